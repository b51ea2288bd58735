/* The daemons' link between hosts (emunic/nicd/hostlink.c) on its own:
 * two processes on this host, one libfabric endpoint each ($FI_PROVIDER,
 * default tcp on 127.0.0.1), against the raw shared-memory ping-pong of
 * the same two processes in the same run (bench/handoff.c).
 *   hostlink_perf [--iters N] [--msgs M]
 * Cases: a one-message round trip (the link's share of a cross-host
 * round trip), and a one-way stream of M messages flushed every batch,
 * answered by one message (the link's message rate and bandwidth).
 * CSV on stdout: case, iterations, median/p10/p90 us, rate (M msg/s),
 * MB/s. Not run by emunic-run: it forks its own peer. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "handoff.h"
#include "hostlink.h"

struct sink {
    uint64_t got;
};

static void count(void *arg, uint32_t peer, const struct emu_msg *m, unsigned n)
{
    (void)peer;
    (void)m;
    ((struct sink *)arg)->got += n;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "hostlink_perf: %s: %s\n", what, rc < 0 ? strerror(-rc) : "failed");
    exit(1);
}

/* Poll (briefly), then wait, until *got reaches want. */
static void await(struct hostlink *hl, struct sink *s, uint64_t want)
{
    int spins = 0;
    while (s->got < want) {
        int rc = hostlink_poll(hl, count, s, NULL);
        if (rc < 0)
            die("hostlink_poll", rc);
        if (rc == 0 && ++spins > 200) {
            rc = hostlink_wait(hl, 1000);
            if (rc && rc != -ETIMEDOUT)
                die("hostlink_wait", rc);
            spins = 0;
        }
    }
}

static struct hostlink *open_side(int sock, uint32_t self)
{
    struct hostlink *hl;
    const char *why;
    int rc = hostlink_open(&hl, NULL, self, 2, 42, &why);
    if (rc) {
        fprintf(stderr, "hostlink_perf: %s\n", why);
        exit(rc == -ENODEV ? 2 : 1);
    }
    uint8_t name[2][HOSTLINK_NAME_MAX];
    size_t len[2] = {HOSTLINK_NAME_MAX, 0};
    if (hostlink_name(hl, name[self], &len[0]))
        die("hostlink_name", -EINVAL);
    len[self] = len[0];
    if (write(sock, &len[self], sizeof(size_t)) != sizeof(size_t) || write(sock, name[self], len[self]) != (ssize_t)len[self] ||
        read(sock, &len[1 - self], sizeof(size_t)) != sizeof(size_t) || len[1 - self] > HOSTLINK_NAME_MAX ||
        read(sock, name[1 - self], len[1 - self]) != (ssize_t)len[1 - self])
        die("name exchange", -EIO);
    uint32_t p;
    for (int i = 0; i < 2; i++)
        if ((rc = hostlink_add_peer(hl, name[i], len[i], &p)) != 0)
            die("hostlink_add_peer", rc);
    return hl;
}

/* The peer: echo every round trip, answer each stream with one message. */
static int echo_side(int sock, long iters, long streams, long msgs)
{
    struct hostlink *hl = open_side(sock, 1);
    struct sink s = {0};
    struct emu_msg m;
    memset(&m, 0, sizeof m);
    for (long i = 0; i < iters; i++) {
        await(hl, &s, s.got + 1);
        if (hostlink_send(hl, 0, &m, 1) || hostlink_flush(hl))
            return 1;
    }
    for (long r = 0; r < streams; r++) {
        await(hl, &s, s.got + (uint64_t)msgs);
        if (hostlink_send(hl, 0, &m, 1) || hostlink_flush(hl))
            return 1;
    }
    char c;
    if (read(sock, &c, 1) != 1)
        return 1;
    hostlink_close(hl);
    return 0;
}

static void row(const char *cas, long n, double *us, double rate, double mbs)
{
    struct bench_stats st;
    bench_stats_of(us, (size_t)n, &st);
    printf("%s,%ld,%.2f,%.2f,%.2f,%.3f,%.1f\n", cas, n, st.median, st.p10, st.p90, rate, mbs);
    fprintf(stderr, "hostlink_perf: %-22s median %8.2f us", cas, st.median);
    if (rate > 0)
        fprintf(stderr, "  %.3f M msg/s  %.1f MB/s", rate, mbs);
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    long iters = 2000, msgs = 20000, streams = 5;
    static const struct option opts[] = {
        {"iters", required_argument, 0, 'i'}, {"msgs", required_argument, 0, 'm'}, {"help", no_argument, 0, 'h'}, {0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'i')
            iters = bench_parse_long("--iters", optarg, 10, 10000000);
        else if (c == 'm')
            msgs = bench_parse_long("--msgs", optarg, 1, 100000000);
        else {
            printf("usage: hostlink_perf [--iters N] [--msgs M]\n"
                   "The daemons' libfabric link between two processes of this host ($FI_PROVIDER,\n"
                   "default tcp, 127.0.0.1): one-message round trip (N, default 2000) and a stream\n"
                   "of M 256-byte messages (default 20000, 5 times), against the raw shared-memory\n"
                   "ping-pong in the same run. CSV: case, iterations, median/p10/p90 us,\n"
                   "M msg/s, MB/s.\n");
            return c == 'h' ? 0 : 2;
        }
    }
    bench_header(stdout, argc, argv);
    printf("case,iters,median_us,p10_us,p90_us,mmsg_per_s,mb_per_s\n");
    double *us = malloc((size_t)(iters > streams ? iters : streams) * sizeof *us);
    if (!us)
        return 1;
    /* the floor: the same two-process ping-pong through shared memory */
    if (handoff_chain(2, HANDOFF_YIELD, iters, iters / 10, us, NULL) == 0)
        row("shm_pingpong_yield", iters, us, 0, 0);
    if (handoff_chain(2, HANDOFF_FUTEX, iters, iters / 10, us, NULL) == 0)
        row("shm_pingpong_futex", iters, us, 0, 0);

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        return 1;
    long warm = iters / 10;
    pid_t kid = fork();
    if (kid == 0) {
        close(sv[0]);
        alarm(600);
        _exit(echo_side(sv[1], iters + warm, streams, msgs));
    }
    close(sv[1]);
    struct hostlink *hl = open_side(sv[0], 0);
    fprintf(stderr, "hostlink_perf: provider %s\n", hostlink_provider(hl));
    struct sink s = {0};
    struct emu_msg *m = calloc((size_t)msgs, sizeof *m);
    if (!m)
        return 1;
    for (long i = 0; i < iters + warm; i++) {
        int64_t t0 = bench_now_ns();
        if (hostlink_send(hl, 1, m, 1) || hostlink_flush(hl))
            die("hostlink_send", -EIO);
        await(hl, &s, s.got + 1);
        if (i >= warm)
            us[i - warm] = (bench_now_ns() - t0) / 1e3;
    }
    row("hostlink_roundtrip", iters, us, 0, 0);
    double best = 0;
    for (long r = 0; r < streams; r++) {
        int64_t t0 = bench_now_ns();
        int rc = hostlink_send(hl, 1, m, (unsigned)msgs);
        if (rc || (rc = hostlink_flush(hl)) != 0)
            die("hostlink_send", rc);
        await(hl, &s, s.got + 1);
        us[r] = (bench_now_ns() - t0) / 1e3;
        if (best == 0 || us[r] < best)
            best = us[r];
    }
    /* rate and bandwidth of the median stream */
    struct bench_stats st;
    double tmp[64];
    memcpy(tmp, us, (size_t)streams * sizeof *us);
    bench_stats_of(tmp, (size_t)streams, &st);
    double rate = msgs / st.median, mbs = msgs * (double)sizeof(struct emu_msg) / st.median;
    row("hostlink_stream", streams, us, rate, mbs);
    struct hostlink_stats hs;
    hostlink_stats(hl, &hs);
    fprintf(stderr, "hostlink_perf: %llu batches for %llu messages sent, %llu waits for a buffer\n",
            (unsigned long long)hs.tx_batches, (unsigned long long)hs.tx_msgs, (unsigned long long)hs.tx_waits);
    char done = 'd';
    if (write(sv[0], &done, 1) != 1)
        return 1;
    int wst;
    waitpid(kid, &wst, 0);
    hostlink_close(hl);
    return WIFEXITED(wst) && WEXITSTATUS(wst) == 0 ? 0 : 1;
}
