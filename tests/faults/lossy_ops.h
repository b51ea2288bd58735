/* Tracking one-sided test operations and their callbacks, shared by
 * dcmf_lossy.c and pami_lossy.c (one program = one .c including this once).
 *
 * Rank 0 issues nops operations to rank 1, WIN at a time. ops[i] has a
 * kind letter (the program's), owns [off, off + len) of the put area and
 * the same range of the get area right after it (lossy_layout), and
 * expects one or two callbacks: bit 1 the local one, bit 2 the remote
 * one. Each must run exactly once (a second call fails at once, a missing
 * one after OP_WAIT_S); the operation failed if either reported
 * LOSSY_ERROR. pat() gives every byte that travels, so that both ends can
 * check data on their own.
 *
 * The program defines, before including this:
 *   LOSSY_WHO            DIE's prefix: "dcmf_lossy rank", "pami_lossy task"
 *   LOSSY_CB1, LOSSY_CB2 the local and the remote callback's names
 *   LOSSY_ERROR          the failure a callback may report (an enum constant)
 *   LOSSY_OP_API         struct op's members for the API (may be empty)
 * and, after it, the two functions the loops here call:
 *   static void advance(void)      make progress once
 *   static void issue(unsigned i)  lossy_start(&ops[i], want), then post it */
#ifndef LOSSY_OPS_H
#define LOSSY_OPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN 64         /* operations in flight */
#define OP_WAIT_S 30.0 /* the longest any one of them may take */
#define LINGER_S 0.6
#define TRIES 50 /* of one helper operation (lossy_reliably) */

#define LOSSY_STR_(x) #x
#define LOSSY_STR(x) LOSSY_STR_(x)

#define DIE(...)                                                                    \
    do {                                                                            \
        fflush(stdout);                                                             \
        fprintf(stderr, "FAIL " LOSSY_WHO " %u: ", me);                             \
        fprintf(stderr, __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                        \
        exit(1);                                                                    \
    } while (0)
/* the program's OK(call): this with its result type and success value */
#define LOSSY_OK(type, success, call)                                               \
    do {                                                                            \
        type rc_ = (call);                                                          \
        if (rc_ != (success))                                                       \
            DIE("%s returned %d", #call, (int)rc_);                                 \
    } while (0)

static unsigned me; /* rank (task), for messages */

struct op {
    char kind;
    uint8_t want;    /* callbacks expected: 1 local, 2 remote */
    uint8_t got;     /* callbacks seen */
    uint8_t failed;  /* 1 local failed, 2 remote failed */
    uint8_t settled; /* every expected callback has run */
    size_t off, len; /* slot in the put (or get) area */
    double t0;
    LOSSY_OP_API
};

static struct op *ops;
static unsigned nops, inflight;
static size_t total;     /* bytes of one area */
static unsigned retries; /* failed tries of helper operations: losses too */

static void advance(void);
static void issue(unsigned i);

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* byte j of operation i's data; seed 0 for what rank 0 sends, 1 for what
 * rank 1 offers to Gets */
static inline uint8_t pat(unsigned i, size_t j, unsigned seed)
{
    return (uint8_t)(i * 131u + (unsigned)j * 7u + (unsigned)(j >> 8) + seed * 89u + 1u);
}

/* 1: all bytes as pattern, 0: all zero, -1: anything else */
static inline int slot_state(const uint8_t *b, unsigned i, size_t len, unsigned seed)
{
    int all_pat = 1, all_zero = 1;
    for (size_t j = 0; j < len; j++) {
        all_pat &= b[j] == pat(i, j, seed);
        all_zero &= b[j] == 0;
    }
    return all_pat ? 1 : all_zero ? 0 : -1;
}

/* the command line, "PROG OPS [KINDS]": nops, and the kinds to cycle
 * through (letters of ALL, DFLT when not given); a bad one exits 2 */
static inline const char *lossy_args(int argc, char **argv, const char *prog, const char *dflt, const char *all)
{
    nops = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    const char *kinds = argc > 2 ? argv[2] : dflt;
    size_t nk = strlen(kinds);
    if (!nops || !nk || strspn(kinds, all) != nk) {
        fprintf(stderr, "usage: %s OPS [KINDS of %s]\n", prog, all);
        exit(2);
    }
    return kinds;
}

/* ops[] for nops operations cycling through KINDS; both ranks compute the
 * same layout, so offsets never travel */
static inline void lossy_layout(const char *kinds, size_t (*len_of)(char kind))
{
    size_t nk = strlen(kinds);
    ops = calloc(nops, sizeof *ops);
    if (!ops)
        DIE("out of memory");
    for (unsigned i = 0; i < nops; i++) {
        ops[i].kind = kinds[i % nk];
        ops[i].len = len_of(ops[i].kind);
        ops[i].off = total;
        total += ops[i].len;
    }
}

static inline unsigned lossy_count(char kind)
{
    unsigned n = 0;
    for (unsigned i = 0; i < nops; i++)
        n += ops[i].kind == kind;
    return n;
}

/* the pattern into AREA's slot of every operation of the kinds in HAS */
static inline void lossy_fill(uint8_t *area, int (*has)(char kind), unsigned seed)
{
    for (unsigned i = 0; i < nops; i++)
        if (has(ops[i].kind))
            for (size_t j = 0; j < ops[i].len; j++)
                area[ops[i].off + j] = pat(i, j, seed);
}

/* ---- rank 0: the callbacks ---- */

/* O is about to be posted, expecting the callbacks in WANT */
static inline void lossy_start(struct op *o, uint8_t want)
{
    o->t0 = now_s();
    o->want = want;
    inflight++;
}

/* callback WHICH (1 local, 2 remote) of O has run; FAILED when it
 * reported a failure, RES its code */
static inline void lossy_record(struct op *o, unsigned which, int failed, int res)
{
    /* the index, for messages (the helpers' tries are not in ops) */
    uintptr_t a = (uintptr_t)o, lo = (uintptr_t)ops, hi = (uintptr_t)(ops + nops);
    long i = a >= lo && a < hi ? (long)(o - ops) : -1;
    const char *what = which == 1 ? LOSSY_CB1 : LOSSY_CB2;
    if (!(o->want & which))
        DIE("op %ld (%c): unexpected %s", i, o->kind, what);
    if (o->got & which)
        DIE("op %ld (%c): %s called twice", i, o->kind, what);
    o->got |= (uint8_t)which;
    if (failed) {
        if (res != LOSSY_ERROR)
            DIE("op %ld (%c): %s got %d, expected " LOSSY_STR(LOSSY_ERROR) " (%d)", i, o->kind, what, res,
                (int)LOSSY_ERROR);
        o->failed |= (uint8_t)which;
    }
    if (o->got == o->want) {
        o->settled = 1;
        inflight--;
    }
}

/* issues every operation, WIN at a time, until all have settled */
static inline void lossy_run(void)
{
    unsigned next = 0, settled = 0;
    double last_scan = now_s();
    while (settled < nops) {
        while (next < nops && inflight < WIN)
            issue(next++);
        advance();
        while (settled < nops && ops[settled].settled)
            settled++;
        double t = now_s();
        if (t - last_scan > 0.1) { /* a bounded wait for every operation */
            last_scan = t;
            for (unsigned i = settled; i < next; i++)
                if (!ops[i].settled && t - ops[i].t0 > OP_WAIT_S)
                    DIE("op %u (%c) not complete after %.0f s (callbacks seen %u of %u)", i, ops[i].kind,
                        OP_WAIT_S, ops[i].got, ops[i].want);
        }
    }
}

/* after the last completion: late duplicates (a second callback) are
 * still caught, and the NICs time out and count every loss before the
 * job summary */
static inline void lossy_linger(void)
{
    double t0 = now_s();
    while (now_s() - t0 < LINGER_S)
        advance();
}

/* A helper operation (not one of ops: WHAT, for messages) repeated until
 * it succeeds, since each try may be lost; POST(o, arg) posts one try
 * after lossy_start. Its failed tries count in retries. The tries are
 * static: a late second callback must find them alive. */
static struct op tries_v[2 * TRIES];
static unsigned tries_used;

static inline void lossy_reliably(char kind, uint8_t want, void (*post)(struct op *o, const void *arg),
                                  const void *arg, const char *what)
{
    for (int t = 0; t < TRIES; t++) {
        if (tries_used == 2 * TRIES)
            DIE("%s: out of tries", what);
        struct op *o = &tries_v[tries_used++];
        o->kind = kind;
        lossy_start(o, want);
        post(o, arg);
        while (!o->settled) {
            advance();
            if (now_s() - o->t0 > OP_WAIT_S)
                DIE("%s never completed", what);
        }
        if (!o->failed)
            return;
        retries++;
    }
    DIE("%s failed %d times", what, TRIES);
}

/* ---- rank 0: the end ---- */

/* ops[i] into *ok or *failed; its local callback cannot fail while the
 * remote one succeeds */
static inline void lossy_tally(unsigned i, unsigned *ok, unsigned *failed)
{
    const struct op *o = &ops[i];
    if ((o->failed & 1) && !(o->failed & 2) && (o->want & 2))
        DIE("op %u (%c): %s failed but %s succeeded", i, o->kind, LOSSY_CB1, LOSSY_CB2);
    if (o->failed)
        (*failed)++;
    else
        (*ok)++;
}

/* a Put's slot as read back into BACK: there if it succeeded; if it
 * failed and STRICT (all or nothing), untouched or complete */
static inline void lossy_check_put(unsigned i, const uint8_t *back, int strict)
{
    const struct op *o = &ops[i];
    int st = slot_state(back + o->off, i, o->len, 0);
    if (!o->failed && st != 1)
        DIE("op %u (%c): put succeeded but the target holds other bytes", i, o->kind);
    if (o->failed && strict && st < 0)
        DIE("op %u (%c): failed put left a partial or corrupt slot", i, o->kind);
}

/* a Get's slot of the get area GETS, likewise */
static inline void lossy_check_get(unsigned i, const uint8_t *gets, int strict)
{
    const struct op *o = &ops[i];
    int st = slot_state(gets + o->off, i, o->len, 1);
    if (!o->failed && st != 1)
        DIE("op %u (%c): get succeeded with wrong bytes", i, o->kind);
    if (o->failed && strict && st < 0)
        DIE("op %u (%c): failed get left a partial or corrupt buffer", i, o->kind);
}

/* ---- rank 1: sends as they arrive ---- */

static uint8_t *rseen; /* per op: arrived (the program allocates it) */
static unsigned recv_errors;

/* send ops[i] (WHAT, for the message) has arrived: at most once */
static inline void lossy_arrived(unsigned i, const char *what)
{
    if (rseen[i]++)
        DIE("op %u: %s arrived twice", i, what);
}

/* its bytes are in at DATA: into *count, and recv_errors when wrong */
static inline void lossy_received(unsigned i, const void *data, unsigned *count)
{
    if (slot_state(data, i, ops[i].len, 0) != 1)
        recv_errors++;
    (*count)++;
}

/* ---- both: control messages (the program's dispatch counts ctl_got) ---- */

static int ctl_got;

static inline void wait_control(int n)
{
    double t0 = now_s();
    while (ctl_got < n) {
        advance();
        if (now_s() - t0 > OP_WAIT_S)
            DIE("no control message %d after %.0f s", n, OP_WAIT_S);
    }
}

#endif
