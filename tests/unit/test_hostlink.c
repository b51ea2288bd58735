/* Unit tests of the daemons' link between hosts (emunic/nicd/hostlink.c)
 * over libfabric on loopback: two processes, one endpoint each, names
 * swapped through a socketpair as the launcher will swap them. Every
 * message is checked byte by byte and in order; a batch from another job
 * and calls with bad arguments are refused. Skipped (one line) where
 * libfabric has no provider for ordered reliable datagrams. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hostlink.h"

#define JOB 0x1234abcdu
#define LIMIT_S 60 /* any side still running after this has hung: fail */

static void fill(struct emu_msg *m, uint32_t from, uint64_t i)
{
    memset(m, 0, sizeof *m);
    m->op = (uint8_t)(1 + i % 200);
    m->src = from;
    m->dst = (uint32_t)(i * 2654435761u);
    m->cookie = i;
    m->dlen = EMU_INLINE_MAX;
    for (unsigned j = 0; j < EMU_INLINE_MAX; j++)
        m->data[j] = (uint8_t)(i * 7 + j * 13 + from);
}

/* What a side has received from each peer, checked on arrival. */
struct rx {
    uint64_t next[2];
    int bad;
};

static void deliver(void *arg, uint32_t peer, const struct emu_msg *m, unsigned n)
{
    struct rx *r = arg;
    for (unsigned k = 0; k < n; k++) {
        struct emu_msg want;
        fill(&want, peer, r->next[peer < 2 ? peer : 0]);
        if (peer >= 2 || memcmp(&want, &m[k], sizeof want) != 0)
            r->bad++;
        if (peer < 2)
            r->next[peer]++;
    }
}

/* Both sides' set-up: an endpoint with index self of 2, both names added
 * in index order. 0, or 77 (skip) when the fabric is not there. */
static int open_pair(int sock, uint32_t self, uint32_t job, struct hostlink **hl)
{
    const char *why;
    int rc = hostlink_open(hl, NULL, self, 2, job, &why);
    if (rc == -ENODEV)
        return 77;
    if (rc)
        return 1;
    uint8_t mine[HOSTLINK_NAME_MAX], theirs[HOSTLINK_NAME_MAX];
    size_t len = sizeof mine;
    if (hostlink_name(*hl, mine, &len) || write(sock, &len, sizeof len) != sizeof len ||
        write(sock, mine, len) != (ssize_t)len)
        return 1;
    size_t tlen;
    if (read(sock, &tlen, sizeof tlen) != sizeof tlen || tlen > sizeof theirs ||
        read(sock, theirs, tlen) != (ssize_t)tlen)
        return 1;
    uint32_t p0, p1;
    const uint8_t *n0 = self == 0 ? mine : theirs, *n1 = self == 0 ? theirs : mine;
    size_t l0 = self == 0 ? len : tlen, l1 = self == 0 ? tlen : len;
    if (hostlink_add_peer(*hl, n0, l0, &p0) || hostlink_add_peer(*hl, n1, l1, &p1) || p0 != 0 || p1 != 1)
        return 1;
    return 0;
}

/* Send count messages to the other side in chunks of 1..97 (some flushed
 * at once, some left to fill a batch) while receiving theirs; then wait
 * until the other side's count has arrived. */
static int exchange(struct hostlink *hl, uint32_t self, uint64_t count, uint64_t expect, struct rx *r)
{
    uint32_t peer = 1 - self, bad_peer = 0;
    uint64_t sent = 0;
    unsigned seed = 7 + self;
    struct emu_msg chunk[97];
    while (sent < count || r->next[peer] < expect) {
        if (sent < count) {
            seed = seed * 1103515245u + 12345u;
            unsigned n = 1 + (seed >> 8) % 97;
            if (n > count - sent)
                n = (unsigned)(count - sent);
            for (unsigned k = 0; k < n; k++)
                fill(&chunk[k], self, sent + k);
            if (hostlink_send(hl, peer, chunk, n))
                return 1;
            sent += n;
            if ((seed >> 4) % 3 == 0 || sent == count)
                if (hostlink_flush(hl))
                    return 1;
        }
        if (hostlink_poll(hl, deliver, r, &bad_peer) < 0)
            return 1;
        if (sent == count && r->next[peer] < expect) {
            int w = hostlink_wait(hl, 100);
            if (w && w != -ETIMEDOUT)
                return 1;
        }
    }
    return r->bad ? 1 : 0;
}

/* One side of a job: self sends to_send, expects to_get, then both say
 * they are done (a last message each way) so neither closes under the
 * other's traffic. */
static int side(int sock, uint32_t self, uint64_t to_send, uint64_t to_get)
{
    alarm(LIMIT_S);
    struct hostlink *hl;
    int rc = open_pair(sock, self, JOB, &hl);
    if (rc)
        return rc;
    struct rx r = {{0, 0}, 0};
    rc = exchange(hl, self, to_send, to_get, &r);
    char done = 'd';
    if (!rc && (write(sock, &done, 1) != 1 || read(sock, &done, 1) != 1))
        rc = 1;
    struct hostlink_stats st;
    hostlink_stats(hl, &st);
    if (!rc && (st.tx_msgs != to_send || st.rx_msgs != to_get ||
                (to_send && st.tx_batches > to_send) || st.rx_batches > to_get))
        rc = 1;
    hostlink_close(hl);
    return rc;
}

/* Run a and b as the two sides; 77 from either skips the test. */
static void run_pair(uint64_t a_sends, uint64_t b_sends)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        close(sv[0]);
        _exit(side(sv[1], 1, b_sends, a_sends));
    }
    close(sv[1]);
    int mine = side(sv[0], 0, a_sends, b_sends);
    close(sv[0]);
    int st;
    assert_int_equal(waitpid(kid, &st, 0), kid);
    assert_true(WIFEXITED(st));
    if (mine == 77 || WEXITSTATUS(st) == 77)
        skip();
    assert_int_equal(mine, 0);
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_one_way(void **state)
{
    (void)state;
    run_pair(20000, 0);
}

static void test_both_ways(void **state)
{
    (void)state;
    run_pair(15000, 12000); /* both send at once: received batches are stashed during sends */
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct hostlink *hl;
    const char *why;
    assert_int_equal(hostlink_open(&hl, NULL, 2, 2, JOB, &why), -EINVAL);
    assert_null(hl);
    assert_non_null(why);
    int rc = hostlink_open(&hl, NULL, 0, 1, JOB, &why);
    if (rc == -ENODEV)
        skip();
    assert_int_equal(rc, 0);
    assert_non_null(hostlink_provider(hl));
    struct emu_msg m;
    fill(&m, 0, 0);
    assert_int_equal(hostlink_send(hl, 0, &m, 1), -EINVAL); /* no peer added yet */
    uint32_t p;
    assert_int_equal(hostlink_add_peer(hl, NULL, 0, &p), -EINVAL);
    uint8_t name[HOSTLINK_NAME_MAX];
    size_t len = sizeof name;
    assert_int_equal(hostlink_name(hl, name, &len), 0);
    assert_int_equal(hostlink_add_peer(hl, name, len, &p), 0);
    assert_int_equal(p, 0);
    assert_int_equal(hostlink_add_peer(hl, name, len, &p), -ENOSPC); /* max_peers 1 */
    assert_int_equal(hostlink_send(hl, 1, &m, 1), -EINVAL);
    hostlink_close(hl);
}

/* A batch from an endpoint of another job (another cookie) reaching ours
 * is refused and its sender named, never delivered. */
static int stranger(int sock)
{
    alarm(LIMIT_S);
    struct hostlink *hl;
    int rc = open_pair(sock, 1, JOB ^ 1, &hl);
    if (rc)
        return rc;
    struct emu_msg m;
    fill(&m, 1, 0);
    rc = hostlink_send(hl, 0, &m, 1) || hostlink_flush(hl);
    /* keep driving the fabric until the other side saw it: providers with
     * manual progress (udp;ofi_rxd) move nothing while the sender sleeps */
    char done;
    struct rx r = {{0, 0}, 0};
    while (!rc && recv(sock, &done, 1, MSG_DONTWAIT) != 1) {
        if (hostlink_poll(hl, deliver, &r, NULL) < 0)
            rc = 1;
        int w = hostlink_wait(hl, 10);
        if (w && w != -ETIMEDOUT)
            rc = 1;
    }
    hostlink_close(hl);
    return rc;
}

static void test_other_job_refused(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        close(sv[0]);
        _exit(stranger(sv[1]));
    }
    close(sv[1]);
    alarm(LIMIT_S);
    struct hostlink *hl = NULL;
    int rc = open_pair(sv[0], 0, JOB, &hl);
    int got = 0;
    uint32_t bad = 99;
    struct rx r = {{0, 0}, 0};
    while (rc == 0 && got == 0) {
        got = hostlink_poll(hl, deliver, &r, &bad);
        if (got == 0 && hostlink_wait(hl, 100) == -EIO)
            break;
    }
    char done = 'd';
    assert_int_equal(write(sv[0], &done, 1), 1);
    int st;
    assert_int_equal(waitpid(kid, &st, 0), kid);
    close(sv[0]);
    if (rc == 77)
        skip();
    assert_int_equal(rc, 0);
    assert_int_equal(got, -EPROTO);
    assert_int_equal(bad, 1);
    assert_int_equal(r.next[1], 0); /* nothing delivered */
    hostlink_close(hl);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_one_way),
        cmocka_unit_test(test_both_ways),
        cmocka_unit_test(test_other_job_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
