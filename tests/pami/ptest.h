/* Harness for the PAMI tests (one program = one .c file including this
 * header once).
 *
 *   pt_init(ncontexts)          PAMI_Client_create + Context_createv, the
 *                               harness dispatch (id PT_DISPATCH on every
 *                               context) and a start-up barrier
 *   pt_finish(name)             barrier, destroy contexts and client, print
 *                               "<name> ok" from task 0
 *   FAIL / CHECK / CHECK_RC     "FAIL task <t> <file>:<line> ..." on stderr, exit 1
 *   pt_wait(ctx, counter, target, seconds)
 *                               advance ctx until *counter >= target; FAIL on timeout
 *   pt_barrier()                all tasks, over PAMI_Send on context 0
 *   pt_allgather(mine, len, all) up to PT_GATHER_MAX bytes per task
 *   pt_pat(task, i)             a byte pattern tests fill and check
 *   pt_count_cb                 an event function that bumps (atomic) *cookie
 *
 * Counters touched from callbacks are atomics, so tests that enable the
 * async progress thread stay race-free. */
#ifndef PTEST_H
#define PTEST_H

#include <pami.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/errcap.h"

#define PT_UNUSED __attribute__((unused))

#define PT_DISPATCH 250
#define PT_GATHER_MAX 96
#define PT_MAX_TASKS 256

static pami_client_t pt_client;
static pami_context_t pt_ctx[64];
static size_t pt_nctx;
static size_t pt_task, pt_size;

/* stderr while CHECK_ERR captures it (FAIL puts it back first) */
#define FAIL(...)                                                                  \
    do {                                                                           \
        errcap_restore();                                                          \
        fprintf(stderr, "FAIL task %zu %s:%d ", pt_task, __FILE__, __LINE__);      \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        exit(1);                                                                   \
    } while (0)
#define CHECK(cond, ...)     \
    do {                     \
        if (!(cond))         \
            FAIL(__VA_ARGS__); \
    } while (0)
#define CHECK_RC(call, want)                                                     \
    do {                                                                         \
        pami_result_t rc_ = (call);                                              \
        if (rc_ != (want))                                                       \
            FAIL("%s returned %d, expected %d", #call, (int)rc_, (int)(want));   \
    } while (0)

static inline unsigned char pt_pat(size_t task, size_t i)
{
    return (unsigned char)(task * 31 + i * 7 + (i >> 8) + 1);
}

PT_UNUSED static double pt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

PT_UNUSED static void pt_wait_at(pami_context_t ctx, atomic_long *counter, long target, double seconds,
                                 const char *file, int line)
{
    double end = pt_now() + seconds;
    while (atomic_load(counter) < target) {
        pami_result_t r = PAMI_Context_advance(ctx, 1);
        if (r != PAMI_SUCCESS && r != PAMI_EAGAIN)
            FAIL("PAMI_Context_advance returned %d while waiting (%s:%d)", (int)r, file, line);
        if (pt_now() > end)
            FAIL("timed out waiting at %s:%d: %ld of %ld after %.0f s", file, line, atomic_load(counter),
                 target, seconds);
    }
}
/* (a macro so that a timeout names the caller's line) */
#define pt_wait(ctx, counter, target, seconds) pt_wait_at((ctx), (counter), (target), (seconds), __FILE__, __LINE__)

PT_UNUSED static void pt_count_cb(pami_context_t ctx, void *cookie, pami_result_t result)
{
    (void)ctx;
    if (result != PAMI_SUCCESS)
        FAIL("a completion reported %d", (int)result);
    atomic_fetch_add((atomic_long *)cookie, 1);
}

/* ---- harness messages: barrier arrivals and gathered blocks ---- */

struct pt_msg {
    uint32_t kind; /* 1 barrier, 2 gather */
    uint32_t epoch;
    uint32_t from;
    uint32_t len;
};

static atomic_long pt_bar_arrived[2];
static unsigned pt_bar_epoch;
static unsigned char pt_gather_buf[2][PT_MAX_TASKS][PT_GATHER_MAX];
static atomic_long pt_gather_arrived[2];
static unsigned pt_gather_epoch;

PT_UNUSED static void pt_recv(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen,
                    const void *pipe, size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)origin, (void)recv;
    struct pt_msg m;
    if (hlen != sizeof m || !pipe)
        FAIL("harness message with header %zu bytes, pipe %p", hlen, pipe);
    memcpy(&m, hdr, sizeof m);
    if (m.kind == 1) {
        atomic_fetch_add(&pt_bar_arrived[m.epoch & 1], 1);
    } else {
        if (dlen != m.len || m.from >= PT_MAX_TASKS || dlen > PT_GATHER_MAX)
            FAIL("bad gather block from %u (%zu bytes)", m.from, dlen);
        memcpy(pt_gather_buf[m.epoch & 1][m.from], pipe, dlen);
        atomic_fetch_add(&pt_gather_arrived[m.epoch & 1], 1);
    }
}

PT_UNUSED static void pt_send_all(struct pt_msg *m, const void *data, size_t len)
{
    for (size_t t = 0; t < pt_size; t++) {
        pami_endpoint_t ep;
        CHECK_RC(PAMI_Endpoint_create(pt_client, (pami_task_t)t, 0, &ep), PAMI_SUCCESS);
        pami_send_immediate_t s;
        memset(&s, 0, sizeof s);
        s.dest = ep;
        s.dispatch = PT_DISPATCH;
        s.header.iov_base = m;
        s.header.iov_len = sizeof *m;
        s.data.iov_base = (void *)data;
        s.data.iov_len = len;
        CHECK_RC(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_SUCCESS);
    }
}

/* Every task's barrier calls must be on context 0 with no other thread
 * advancing it. */
PT_UNUSED static void pt_barrier(void)
{
    unsigned e = pt_bar_epoch++;
    struct pt_msg m = {1, e, (uint32_t)pt_task, 0};
    pt_send_all(&m, NULL, 0);
    pt_wait(pt_ctx[0], &pt_bar_arrived[e & 1], (long)pt_size, 60);
    atomic_fetch_sub(&pt_bar_arrived[e & 1], (long)pt_size);
}

PT_UNUSED static void pt_allgather(const void *mine, size_t len, void *all)
{
    if (len > PT_GATHER_MAX || pt_size > PT_MAX_TASKS)
        FAIL("pt_allgather: %zu bytes or %zu tasks is too many", len, pt_size);
    unsigned e = pt_gather_epoch++;
    struct pt_msg m = {2, e, (uint32_t)pt_task, (uint32_t)len};
    pt_send_all(&m, mine, len);
    pt_wait(pt_ctx[0], &pt_gather_arrived[e & 1], (long)pt_size, 60);
    atomic_fetch_sub(&pt_gather_arrived[e & 1], (long)pt_size);
    for (size_t t = 0; t < pt_size; t++)
        memcpy((char *)all + t * len, pt_gather_buf[e & 1][t], len);
    pt_barrier(); /* nobody starts the next gather into this epoch's buffer early */
}

PT_UNUSED static void pt_init(size_t ncontexts)
{
    if (PAMI_Client_create("ptest", &pt_client, NULL, 0) != PAMI_SUCCESS)
        exit(1); /* the library said why, in one line (outside emunic-run, too) */
    pami_configuration_t q[2] = {{.name = PAMI_CLIENT_TASK_ID}, {.name = PAMI_CLIENT_NUM_TASKS}};
    CHECK_RC(PAMI_Client_query(pt_client, q, 2), PAMI_SUCCESS);
    pt_task = q[0].value.intval;
    pt_size = q[1].value.intval;
    pt_nctx = ncontexts;
    CHECK_RC(PAMI_Context_createv(pt_client, NULL, 0, pt_ctx, ncontexts), PAMI_SUCCESS);
    pami_dispatch_callback_function fn = {.p2p = pt_recv};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    h.recv_immediate = PAMI_HINT_ENABLE;
    for (size_t i = 0; i < ncontexts; i++)
        CHECK_RC(PAMI_Dispatch_set(pt_ctx[i], PT_DISPATCH, fn, NULL, h), PAMI_SUCCESS);
    pt_barrier();
}

PT_UNUSED static void pt_finish(const char *name)
{
    pt_barrier();
    CHECK_RC(PAMI_Context_destroyv(pt_ctx, pt_nctx), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&pt_client), PAMI_SUCCESS);
    if (pt_task == 0)
        printf("%s ok\n", name);
}

/* ---- additions: expected errors, endpoints, waits without advancing ----
 *
 *   CHECK_ERR(call, want, fn)   call returns want and prints exactly one
 *                               stderr line naming fn (captured, not shown)
 *   pt_ep(task, offset)         PAMI_Endpoint_create on pt_client
 *   pt_wait_noadvance(counter, target, seconds)
 *                               sleep-poll *counter (another thread advances)
 *   pt_wait_all(ctxs, n, counter, target, seconds)
 *                               advance every context of ctxs in turn
 *   pt_result_cb                an event function storing result+1 into
 *                               (atomic_long *)cookie (0 = not yet called) */

PT_UNUSED static pami_endpoint_t pt_ep(size_t task, size_t offset)
{
    pami_endpoint_t ep;
    CHECK_RC(PAMI_Endpoint_create(pt_client, (pami_task_t)task, offset, &ep), PAMI_SUCCESS);
    return ep;
}

PT_UNUSED static void pt_sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

PT_UNUSED static void pt_wait_noadvance(atomic_long *counter, long target, double seconds)
{
    double end = pt_now() + seconds;
    while (atomic_load(counter) < target) {
        if (pt_now() > end)
            FAIL("timed out waiting (not advancing): %ld of %ld after %.0f s", atomic_load(counter),
                 target, seconds);
        pt_sleep_us(200);
    }
}

PT_UNUSED static void pt_wait_all(pami_context_t *ctxs, size_t n, atomic_long *counter, long target,
                                  double seconds)
{
    double end = pt_now() + seconds;
    while (atomic_load(counter) < target) {
        for (size_t i = 0; i < n; i++) {
            pami_result_t r = PAMI_Context_advance(ctxs[i], 1);
            if (r != PAMI_SUCCESS && r != PAMI_EAGAIN)
                FAIL("PAMI_Context_advance returned %d while waiting", (int)r);
        }
        if (pt_now() > end)
            FAIL("timed out waiting: %ld of %ld after %.0f s", atomic_load(counter), target, seconds);
    }
}

/* Advance ctx for about `seconds` whatever happens (to show something does
 * NOT happen). */
PT_UNUSED static void pt_advance_for(pami_context_t ctx, double seconds)
{
    double end = pt_now() + seconds;
    while (pt_now() < end) {
        pami_result_t r = PAMI_Context_advance(ctx, 1);
        if (r != PAMI_SUCCESS && r != PAMI_EAGAIN)
            FAIL("PAMI_Context_advance returned %d", (int)r);
    }
}

PT_UNUSED static void pt_result_cb(pami_context_t ctx, void *cookie, pami_result_t result)
{
    (void)ctx;
    atomic_store((atomic_long *)cookie, (long)result + 1);
}

#endif
