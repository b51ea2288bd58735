/* Unit tests of the shared-memory MPSC ring (emunic/ring.h).
 *
 * The ring memory is allocated with exactly emu_ring_bytes() bytes, so an
 * ASan build catches any access outside the ring, which is the property the
 * garbage tests are about. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emunic/msg.h"
#include "emunic/ring.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static void *ring_mem(uint32_t cap)
{
    void *p = NULL;
    size_t n = emu_ring_bytes(cap);
    assert_true(n >= sizeof(struct emu_ring_shm) +
                         (size_t)cap * (sizeof(uint64_t) + sizeof(struct emu_msg)));
    assert_int_equal(posix_memalign(&p, 64, n), 0);
    memset(p, 0xa5, n); /* formatting must not rely on zeroed memory */
    return p;
}

static uint8_t pattern_byte(uint32_t who, uint64_t seq, unsigned j)
{
    return (uint8_t)(who * 131u + (unsigned)seq * 7u + j * 13u + 1u);
}

/* A message whose every header field is derived from (who, seq). */
static void make_msg(struct emu_msg *m, uint32_t who, uint64_t seq,
                     uint16_t dlen)
{
    memset(m, 0, sizeof *m);
    m->op = (uint8_t)(1 + seq % 8);
    m->flags = (uint8_t)(seq & 0x1f);
    m->aop = (uint8_t)(seq % 18);
    m->dtype = (uint8_t)(seq % 14);
    m->module = (uint8_t)who;
    m->status = (uint8_t)(seq % 7);
    m->dlen = dlen;
    m->src = who;
    m->dst = (uint32_t)(seq * 3u);
    m->key = (uint32_t)(seq ^ 0x5a5a5a5au);
    m->hlen = (uint32_t)(seq % 100);
    m->laddr = 0x1000000000ull + seq;
    m->raddr = ~seq;
    m->len = seq * 17u;
    m->cookie = seq;
    m->imm = ((uint64_t)who << 48) | seq;
    m->aux = seq * 0x9e3779b97f4a7c15ull;
    for (unsigned i = 0; i < EMU_OPERAND_MAX; i++)
        m->operand[i] = (uint8_t)(seq + i);
    for (unsigned j = 0; j < dlen && j < EMU_INLINE_MAX; j++)
        m->data[j] = pattern_byte(who, seq, j);
}

/* Header bytes and the dlen inline bytes must match; the rest of data[] is
 * unspecified. */
static void assert_msg_same(const struct emu_msg *got, const struct emu_msg *want)
{
    assert_memory_equal(got, want, EMU_MSG_HDR_SIZE);
    if (want->dlen)
        assert_memory_equal(got->data, want->data, want->dlen);
}

/* ------------------------------------------------------------------ */
/* format / attach                                                     */

static void test_bytes_and_format_attach(void **state)
{
    (void)state;
    assert_true(emu_ring_bytes(2) < emu_ring_bytes(4));
    assert_true(emu_ring_bytes(1024) - emu_ring_bytes(512) >=
                512 * (sizeof(uint64_t) + sizeof(struct emu_msg)));

    const uint32_t cap = 16;
    void *mem = ring_mem(cap);
    struct emu_ring r;
    emu_ring_format(mem, cap);
    struct emu_ring_shm *shm = mem;
    assert_true(shm->magic == EMU_RING_MAGIC);
    assert_int_equal(shm->capacity, cap);
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    assert_ptr_equal(r.shm, mem);
    assert_int_equal(r.mask, cap - 1);
    /* seq[] and slot[] lie inside the ring's bytes */
    uintptr_t lo = (uintptr_t)mem, hi = lo + emu_ring_bytes(cap);
    assert_true((uintptr_t)r.seq >= lo + sizeof(struct emu_ring_shm));
    assert_true((uintptr_t)(r.seq + cap) <= hi);
    assert_true((uintptr_t)r.slot >= (uintptr_t)(r.seq + cap));
    assert_true((uintptr_t)(r.slot + cap) <= hi);
    assert_int_equal(emu_ring_depth(&r), 0);
    assert_false(emu_ring_ready(&r));
    struct emu_msg out;
    assert_int_equal(emu_ring_pop(&r, &out), -1);

    /* Wrong capacity. */
    struct emu_ring r2;
    assert_int_equal(emu_ring_attach(&r2, mem, cap * 2), -1);
    assert_int_equal(emu_ring_attach(&r2, mem, cap / 2), -1);

    /* Garbage magic. */
    uint64_t good = shm->magic;
    shm->magic = 0x0123456789abcdefull;
    assert_int_equal(emu_ring_attach(&r2, mem, cap), -1);
    shm->magic = 0;
    assert_int_equal(emu_ring_attach(&r2, mem, cap), -1);
    shm->magic = good;
    /* Garbage capacity field with a good magic. */
    shm->capacity = cap + 1;
    assert_int_equal(emu_ring_attach(&r2, mem, cap), -1);
    shm->capacity = cap;
    assert_int_equal(emu_ring_attach(&r2, mem, cap), 0);

    /* Capacities that are not a power of two >= 2, even if the header
     * happens to agree. */
    assert_int_equal(emu_ring_attach(&r2, mem, 0), -1);
    shm->capacity = 1;
    assert_int_equal(emu_ring_attach(&r2, mem, 1), -1);
    shm->capacity = 12;
    assert_int_equal(emu_ring_attach(&r2, mem, 12), -1);
    shm->capacity = cap;

    /* Never formatted at all. */
    void *raw = ring_mem(cap);
    assert_int_equal(emu_ring_attach(&r2, raw, cap), -1);
    memset(raw, 0, emu_ring_bytes(cap));
    assert_int_equal(emu_ring_attach(&r2, raw, cap), -1);
    free(raw);
    free(mem);
}

/* ------------------------------------------------------------------ */
/* FIFO, full, empty                                                   */

static void test_fifo_order_and_payload(void **state)
{
    (void)state;
    const uint32_t cap = 8;
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);

    struct emu_msg in[8], out;
    static const uint16_t dl[8] = {0, 1, 7, 64, 100, 143, EMU_INLINE_MAX, 2};
    for (unsigned i = 0; i < cap; i++) {
        make_msg(&in[i], 3, 1000 + i, dl[i]);
        assert_int_equal(emu_ring_push(&r, &in[i]), 0);
        assert_true(emu_ring_ready(&r));
    }
    for (unsigned i = 0; i < cap; i++) {
        memset(&out, 0xee, sizeof out);
        assert_int_equal(emu_ring_pop(&r, &out), 0);
        assert_msg_same(&out, &in[i]);
    }
    assert_false(emu_ring_ready(&r));
    assert_int_equal(emu_ring_pop(&r, &out), -1);
    free(mem);
}

static void test_full_and_empty(void **state)
{
    (void)state;
    const uint32_t caps[] = {2, 4, 64};
    for (unsigned c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        uint32_t cap = caps[c];
        void *mem = ring_mem(cap);
        emu_ring_format(mem, cap);
        struct emu_ring r;
        assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
        struct emu_msg m, out;

        assert_int_equal(emu_ring_pop(&r, &out), -1);
        for (uint32_t i = 0; i < cap; i++) {
            make_msg(&m, 1, i, (uint16_t)(i % 5));
            assert_int_equal(emu_ring_push(&r, &m), 0);
        }
        /* exactly at capacity: full */
        make_msg(&m, 1, 999, 3);
        assert_int_equal(emu_ring_push(&r, &m), -1);
        assert_int_equal(emu_ring_push(&r, &m), -1);
        assert_int_equal(emu_ring_depth(&r), cap);

        /* one pop makes exactly one slot */
        assert_int_equal(emu_ring_pop(&r, &out), 0);
        assert_int_equal(out.cookie, 0);
        make_msg(&m, 1, cap, 4);
        assert_int_equal(emu_ring_push(&r, &m), 0);
        make_msg(&m, 1, 1000, 4);
        assert_int_equal(emu_ring_push(&r, &m), -1);

        /* the rejected pushes left no trace: we get 1..cap, then empty */
        for (uint32_t i = 1; i <= cap; i++) {
            struct emu_msg want;
            make_msg(&want, 1, i, (uint16_t)(i == cap ? 4 : i % 5));
            assert_int_equal(emu_ring_pop(&r, &out), 0);
            assert_msg_same(&out, &want);
        }
        assert_int_equal(emu_ring_pop(&r, &out), -1);
        assert_int_equal(emu_ring_pop(&r, &out), -1);
        assert_int_equal(emu_ring_depth(&r), 0);
        free(mem);
    }
}

/* Bytes of data[] past dlen do not travel: push copies only dlen bytes. */
static void test_only_dlen_bytes_travel(void **state)
{
    (void)state;
    const uint32_t cap = 4;
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);

    /* The source is a heap copy exactly the header + dlen bytes long, so
     * ASan reports a push that reads past dlen. */
    const uint16_t dlen = 5;
    struct emu_msg full;
    make_msg(&full, 2, 77, dlen);
    unsigned char *src = malloc(EMU_MSG_HDR_SIZE + dlen);
    assert_non_null(src);
    memcpy(src, &full, EMU_MSG_HDR_SIZE + dlen);
    /* struct emu_msg is only touched through the header + dlen bytes. */
    assert_int_equal(emu_ring_push(&r, (const struct emu_msg *)(void *)src), 0);
    struct emu_msg out;
    assert_int_equal(emu_ring_pop(&r, &out), 0);
    assert_msg_same(&out, &full);
    free(src);
    free(mem);
}

/* A message with a dlen beyond EMU_INLINE_MAX (emunic_post_raw pushes such
 * garbage as given) must not make push write or pop copy outside a slot. */
static void test_oversized_dlen_stays_in_slot(void **state)
{
    (void)state;
    const uint32_t cap = 4;
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    struct emu_msg *m = malloc(sizeof *m);
    assert_non_null(m);
    const uint16_t dls[] = {EMU_INLINE_MAX + 1, 1000, 0xffff};
    for (unsigned k = 0; k < 3; k++) {
        make_msg(m, 1, k, EMU_INLINE_MAX);
        m->dlen = dls[k];
        int rc = emu_ring_push(&r, m);
        assert_true(rc == 0 || rc == -1);
        if (rc == 0) {
            struct emu_msg *out = malloc(sizeof *out);
            assert_non_null(out);
            assert_int_equal(emu_ring_pop(&r, out), 0);
            /* header travelled, bar possibly a clamped dlen */
            assert_memory_equal(out, m, offsetof(struct emu_msg, dlen));
            assert_memory_equal((char *)out + offsetof(struct emu_msg, src),
                                (char *)m + offsetof(struct emu_msg, src),
                                EMU_MSG_HDR_SIZE - offsetof(struct emu_msg, src));
            assert_memory_equal(out->data, m->data, EMU_INLINE_MAX);
            /* dlen is either kept as given (validate rejects it later) or
             * clamped to what a slot holds */
            assert_true(out->dlen == m->dlen || out->dlen <= EMU_INLINE_MAX);
            free(out);
        }
    }
    free(m);
    free(mem);
}

/* ------------------------------------------------------------------ */
/* wrap-around, depth                                                  */

static void test_wraparound(void **state)
{
    (void)state;
    const uint32_t cap = 8;
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);

    /* One in flight at a time, 10 laps. */
    struct emu_msg m, out;
    uint64_t next_push = 0, next_pop = 0;
    for (unsigned i = 0; i < 10 * cap; i++) {
        make_msg(&m, 0, next_push, (uint16_t)(next_push % (EMU_INLINE_MAX + 1)));
        assert_int_equal(emu_ring_push(&r, &m), 0);
        next_push++;
        assert_int_equal(emu_ring_pop(&r, &out), 0);
        assert_int_equal(out.cookie, next_pop);
        assert_msg_same(&out, &m);
        next_pop++;
    }
    /* Varying fill levels so that head and tail cross the wrap point in
     * every relative position: push k, pop k-1, ... many laps. */
    srand(12345);
    for (unsigned round = 0; round < 40 * cap; round++) {
        unsigned k = 1 + (unsigned)rand() % cap;
        unsigned pushed = 0;
        for (unsigned i = 0; i < k; i++) {
            make_msg(&m, 0, next_push, (uint16_t)(next_push % 50));
            if (emu_ring_push(&r, &m) != 0)
                break;
            next_push++;
            pushed++;
        }
        assert_int_equal(emu_ring_depth(&r), next_push - next_pop);
        assert_true(next_push - next_pop <= cap);
        if (pushed < k)
            assert_int_equal(next_push - next_pop, cap);
        unsigned p = (unsigned)rand() % (cap + 1);
        for (unsigned i = 0; i < p; i++) {
            int rc = emu_ring_pop(&r, &out);
            if (next_pop == next_push) {
                assert_int_equal(rc, -1);
                break;
            }
            assert_int_equal(rc, 0);
            struct emu_msg want;
            make_msg(&want, 0, next_pop, (uint16_t)(next_pop % 50));
            assert_msg_same(&out, &want);
            next_pop++;
        }
    }
    while (emu_ring_pop(&r, &out) == 0) {
        assert_int_equal(out.cookie, next_pop);
        next_pop++;
    }
    assert_int_equal(next_pop, next_push);
    assert_true(next_push > 10 * cap);
    free(mem);
}

static void test_depth(void **state)
{
    (void)state;
    const uint32_t cap = 16;
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring cons, prod;
    assert_int_equal(emu_ring_attach(&cons, mem, cap), 0);
    assert_int_equal(emu_ring_attach(&prod, mem, cap), 0); /* a producer's view */
    struct emu_msg m, out;
    assert_int_equal(emu_ring_depth(&cons), 0);
    assert_int_equal(emu_ring_depth(&prod), 0);
    for (unsigned i = 0; i < 11; i++) {
        make_msg(&m, 0, i, 0);
        assert_int_equal(emu_ring_push(&prod, &m), 0);
        assert_int_equal(emu_ring_depth(&cons), i + 1);
        assert_int_equal(emu_ring_depth(&prod), i + 1);
    }
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(emu_ring_pop(&cons, &out), 0);
        assert_int_equal(out.cookie, i);
        assert_int_equal(emu_ring_depth(&cons), 11 - i - 1);
        /* the consumer publishes its progress in shm->head for others */
        assert_int_equal(emu_ring_depth(&prod), 11 - i - 1);
    }
    free(mem);
}

/* Only the consumer's private index matters: scribbling shm->head (used for
 * depth only) changes nothing about what pop returns. */
static void test_consumer_ignores_shared_head(void **state)
{
    (void)state;
    const uint32_t cap = 8;
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    struct emu_msg m[3], out;
    for (unsigned i = 0; i < 3; i++) {
        make_msg(&m[i], 4, 40 + i, (uint16_t)(10 * i));
        assert_int_equal(emu_ring_push(&r, &m[i]), 0);
    }
    struct emu_ring_shm *shm = mem;
    atomic_store(&shm->head, 0xdeadbeefcafef00dull);
    (void)emu_ring_depth(&r); /* approximate; must merely not crash */
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(emu_ring_pop(&r, &out), 0);
        assert_msg_same(&out, &m[i]);
    }
    assert_int_equal(emu_ring_pop(&r, &out), -1);
    free(mem);
}

/* ------------------------------------------------------------------ */
/* MPSC race                                                           */

#define NPROD 4
#define PER_PROD 100000u

struct race {
    void *mem;
    uint32_t cap;
    _Atomic unsigned go;
    _Atomic unsigned stop; /* consumer gave up: producers must not wait */
    _Atomic uint64_t full_retries;
    const char *err;
};

struct prod_arg {
    struct race *rc;
    uint32_t who;
};

static void *producer(void *p)
{
    struct prod_arg *a = p;
    struct emu_ring r;
    if (emu_ring_attach(&r, a->rc->mem, a->rc->cap) != 0) {
        a->rc->err = "producer attach failed";
        atomic_store(&a->rc->stop, 1);
        return NULL;
    }
    while (!atomic_load(&a->rc->go))
        sched_yield();
    struct emu_msg m;
    uint64_t retries = 0;
    for (uint64_t s = 0; s < PER_PROD; s++) {
        uint16_t dlen = (uint16_t)((s * 7 + a->who) % (EMU_INLINE_MAX + 1));
        make_msg(&m, a->who, s, dlen);
        while (emu_ring_push(&r, &m) != 0) {
            if (atomic_load(&a->rc->stop))
                return NULL;
            retries++;
            sched_yield();
        }
    }
    atomic_fetch_add(&a->rc->full_retries, retries);
    return NULL;
}

struct cons_arg {
    struct race *rc;
    uint64_t next[NPROD];
    uint64_t total;
    const char *err;
    uint64_t bad_who, bad_seq;
};

static void *consumer(void *p)
{
    struct cons_arg *c = p;
    struct emu_ring r;
    if (emu_ring_attach(&r, c->rc->mem, c->rc->cap) != 0) {
        c->err = "consumer attach failed";
        atomic_store(&c->rc->stop, 1);
        return NULL;
    }
    struct emu_msg m, want;
    const uint64_t expect = (uint64_t)NPROD * PER_PROD;
    while (c->total < expect) {
        if (emu_ring_pop(&r, &m) != 0) {
            if (atomic_load(&c->rc->stop)) {
                c->err = "stopped: a producer failed";
                return NULL;
            }
            sched_yield();
            continue;
        }
        if (m.src >= NPROD) {
            c->err = "message from an unknown producer";
            c->bad_who = m.src;
            atomic_store(&c->rc->stop, 1);
            return NULL;
        }
        if (m.cookie != c->next[m.src]) {
            c->err = "per-producer order broken (lost, duplicated or reordered)";
            c->bad_who = m.src;
            c->bad_seq = m.cookie;
            atomic_store(&c->rc->stop, 1);
            return NULL;
        }
        uint16_t dlen = (uint16_t)((m.cookie * 7 + m.src) % (EMU_INLINE_MAX + 1));
        make_msg(&want, m.src, m.cookie, dlen);
        if (memcmp(&m, &want, EMU_MSG_HDR_SIZE + dlen) != 0) {
            c->err = "message bytes corrupted";
            c->bad_who = m.src;
            c->bad_seq = m.cookie;
            atomic_store(&c->rc->stop, 1);
            return NULL;
        }
        c->next[m.src]++;
        c->total++;
    }
    if (emu_ring_pop(&r, &m) != -1)
        c->err = "extra message after all were consumed";
    return NULL;
}

static void test_mpsc_race(void **state)
{
    (void)state;
    struct race rc = {.cap = 64};
    rc.mem = ring_mem(rc.cap);
    emu_ring_format(rc.mem, rc.cap);

    pthread_t pt[NPROD], ct;
    struct prod_arg pa[NPROD];
    struct cons_arg ca;
    memset(&ca, 0, sizeof ca);
    ca.rc = &rc;
    assert_int_equal(pthread_create(&ct, NULL, consumer, &ca), 0);
    for (uint32_t i = 0; i < NPROD; i++) {
        pa[i].rc = &rc;
        pa[i].who = i;
        assert_int_equal(pthread_create(&pt[i], NULL, producer, &pa[i]), 0);
    }
    atomic_store(&rc.go, 1);
    for (uint32_t i = 0; i < NPROD; i++)
        assert_int_equal(pthread_join(pt[i], NULL), 0);
    assert_int_equal(pthread_join(ct, NULL), 0);
    assert_null(rc.err);
    if (ca.err)
        fail_msg("%s (producer %llu seq %llu)", ca.err,
                 (unsigned long long)ca.bad_who, (unsigned long long)ca.bad_seq);
    assert_int_equal(ca.total, (uint64_t)NPROD * PER_PROD);
    for (uint32_t i = 0; i < NPROD; i++)
        assert_int_equal(ca.next[i], PER_PROD);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, rc.mem, rc.cap), 0);
    assert_int_equal(emu_ring_depth(&r), 0);
    print_message("mpsc: %llu full-ring retries\n",
                  (unsigned long long)atomic_load(&rc.full_retries));
    free(rc.mem);
}

/* ------------------------------------------------------------------ */
/* garbage in shared memory                                            */

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] =
        "test_ring: ring operation did not return on a corrupt ring (spins forever)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(3);
}

static void arm_watchdog(unsigned seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm(seconds);
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void scribble(void *p, size_t n, uint64_t *s)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)xorshift(s);
}

/* Is `got` a copy of one of the slots in `snap`? */
static int from_some_slot(const struct emu_msg *got, const struct emu_msg *snap,
                          uint32_t cap)
{
    for (uint32_t i = 0; i < cap; i++) {
        const struct emu_msg *s = &snap[i];
        /* everything but dlen must be byte-identical (pop may clamp dlen) */
        if (memcmp(got, s, offsetof(struct emu_msg, dlen)) != 0)
            continue;
        if (memcmp((const char *)got + offsetof(struct emu_msg, src),
                   (const char *)s + offsetof(struct emu_msg, src),
                   EMU_MSG_HDR_SIZE - offsetof(struct emu_msg, src)) != 0)
            continue;
        size_t n = got->dlen < s->dlen ? got->dlen : s->dlen;
        if (n > EMU_INLINE_MAX)
            n = EMU_INLINE_MAX;
        if (memcmp(got->data, s->data, n) == 0)
            return 1;
    }
    return 0;
}

static unsigned drain_garbage(struct emu_ring *r, uint32_t cap, const char *what)
{
    struct emu_msg *snap = malloc(sizeof(struct emu_msg) * cap);
    assert_non_null(snap);
    memcpy(snap, r->slot, sizeof(struct emu_msg) * cap);
    struct emu_msg *out = malloc(sizeof *out);
    assert_non_null(out);
    unsigned got = 0;
    for (unsigned i = 0; i < 4 * cap + 4; i++) {
        int rc = emu_ring_pop(r, out);
        if (rc == -1)
            continue;
        assert_int_equal(rc, 0);
        got++;
        if (!from_some_slot(out, snap, cap))
            fail_msg("%s: pop returned a message that is not in the ring", what);
        int v = emu_msg_validate(out, 4);
        assert_true(v == EMU_OK || v == EMU_E_INVAL);
        (void)emu_ring_ready(r);
        (void)emu_ring_depth(r);
    }
    free(out);
    free(snap);
    return got;
}

static void push_bounded(struct emu_ring *r, unsigned tries)
{
    struct emu_msg m;
    for (unsigned i = 0; i < tries; i++) {
        make_msg(&m, 1, i, (uint16_t)(i % 20));
        int rc = emu_ring_push(r, &m);
        assert_true(rc == 0 || rc == -1);
    }
}

static void test_garbage_random(void **state)
{
    (void)state;
    const uint32_t cap = 16;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    arm_watchdog(60);
    unsigned popped = 0;
    for (unsigned trial = 0; trial < 300; trial++) {
        void *mem = ring_mem(cap);
        emu_ring_format(mem, cap);
        struct emu_ring cons, prod;
        assert_int_equal(emu_ring_attach(&cons, mem, cap), 0);
        assert_int_equal(emu_ring_attach(&prod, mem, cap), 0);
        struct emu_msg m, out;
        /* some real traffic first, so indices are not at zero */
        for (unsigned i = 0; i < trial % 40; i++) {
            make_msg(&m, 0, i, 3);
            if (emu_ring_push(&prod, &m) != 0)
                assert_int_equal(emu_ring_pop(&cons, &out), 0);
        }
        struct emu_ring_shm *shm = mem;
        switch (trial % 5) {
        case 0: /* tail and head */
            atomic_store(&shm->tail, xorshift(&seed));
            atomic_store(&shm->head, xorshift(&seed));
            break;
        case 1: /* the seq array */
            scribble(cons.seq, cap * sizeof(uint64_t), &seed);
            break;
        case 2: /* the slots */
            scribble(cons.slot, cap * sizeof(struct emu_msg), &seed);
            break;
        case 3: /* everything past the header, plus the header fields */
            atomic_store(&shm->tail, xorshift(&seed));
            atomic_store(&shm->head, xorshift(&seed));
            shm->capacity = (uint32_t)xorshift(&seed);
            scribble(cons.seq, cap * sizeof(uint64_t), &seed);
            scribble(cons.slot, cap * sizeof(struct emu_msg), &seed);
            break;
        case 4: /* seq values close to the real indices: small offsets */
            for (uint32_t i = 0; i < cap; i++)
                atomic_store(&cons.seq[i], atomic_load(&cons.seq[i]) +
                                               (xorshift(&seed) % 5) - 2);
            scribble(cons.slot, cap * sizeof(struct emu_msg), &seed);
            break;
        }
        popped += drain_garbage(&cons, cap, "random garbage");
        push_bounded(&prod, 3 * cap);
        popped += drain_garbage(&cons, cap, "random garbage after pushes");
        free(mem);
    }
    alarm(0);
    /* the garbage did reach the consumer (the path under test) */
    assert_true(popped > 0);
    print_message("garbage: %u messages popped from scribbled rings\n", popped);
}

/* Hand-made states that defeat a naive sequence-number ring. */
static void test_garbage_adversarial(void **state)
{
    (void)state;
    const uint32_t cap = 8;
    arm_watchdog(30);
    struct emu_msg m;
    make_msg(&m, 2, 5, 9);

    /* 1. Every slot looks claimed by someone else (seq ahead of tail): a
     *    producer that reloads tail and retries would spin forever. */
    void *mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    struct emu_ring r;
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    struct emu_ring_shm *shm = mem;
    atomic_store(&shm->tail, 1000);
    for (uint32_t i = 0; i < cap; i++)
        atomic_store(&r.seq[i], 1000 + 12345);
    assert_int_equal(emu_ring_push(&r, &m), -1);
    assert_int_equal(emu_ring_push(&r, &m), -1);
    /* pop sees nothing ready at its own index 0 */
    struct emu_msg out;
    assert_int_equal(emu_ring_pop(&r, &out), -1);
    free(mem);

    /* 2. tail near the 64-bit wrap, seq consistent with it: a push must
     *    still land inside the ring. */
    mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    shm = mem;
    uint64_t t = UINT64_MAX - 2;
    atomic_store(&shm->tail, t);
    for (uint32_t i = 0; i < cap; i++)
        atomic_store(&r.seq[(t + i) & (cap - 1)], t + i);
    for (unsigned i = 0; i < 2 * cap; i++) {
        int rc = emu_ring_push(&r, &m);
        assert_true(rc == 0 || rc == -1);
    }
    drain_garbage(&r, cap, "wrapped tail");
    free(mem);

    /* 3. Every slot claims to be ready for every index and the slots are
     *    full of huge dlen values: pop stays inside its slots. */
    mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    for (uint32_t i = 0; i < cap; i++) {
        atomic_store(&r.seq[i], (uint64_t)i + 1);
        memset(&r.slot[i], 0xff, sizeof r.slot[i]);
        r.slot[i].dlen = 0xffff;
        r.slot[i].hlen = 0xffffffffu;
    }
    assert_int_equal(drain_garbage(&r, cap, "huge dlen"), cap);
    free(mem);

    /* 4. tail rewound behind the consumer: producers must not overwrite
     *    slots the consumer has not read yet. */
    mem = ring_mem(cap);
    emu_ring_format(mem, cap);
    assert_int_equal(emu_ring_attach(&r, mem, cap), 0);
    shm = mem;
    struct emu_msg keep[4];
    for (unsigned i = 0; i < 4; i++) {
        make_msg(&keep[i], 7, i, 11);
        assert_int_equal(emu_ring_push(&r, &keep[i]), 0);
    }
    atomic_store(&shm->tail, 0);
    for (unsigned i = 0; i < 3 * cap; i++) {
        int rc = emu_ring_push(&r, &m);
        assert_true(rc == 0 || rc == -1);
    }
    /* whatever else happened, the four queued messages come out first and
     * intact */
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(emu_ring_pop(&r, &out), 0);
        assert_msg_same(&out, &keep[i]);
    }
    free(mem);
    alarm(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_and_format_attach),
        cmocka_unit_test(test_fifo_order_and_payload),
        cmocka_unit_test(test_full_and_empty),
        cmocka_unit_test(test_only_dlen_bytes_travel),
        cmocka_unit_test(test_oversized_dlen_stays_in_slot),
        cmocka_unit_test(test_wraparound),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_consumer_ignores_shared_head),
        cmocka_unit_test(test_mpsc_race),
        cmocka_unit_test(test_garbage_random),
        cmocka_unit_test(test_garbage_adversarial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
