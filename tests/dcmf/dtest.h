/* Harness for the DCMF point-to-point tests (one program = one .c file
 * including this header once).
 *
 *   dt_init()                 DCMF_Messager_initialize (must return 1), then dt_setup:
 *                             harness protocols and a start-up handshake
 *   dt_finish(name)           barrier, the last DCMF_Messager_finalize (must return 1)
 *   FAIL(fmt, ...)            "FAIL rank <r> <file>:<line> <msg>" on stderr, exit 1
 *   CHECK(cond, fmt, ...)     FAIL unless cond
 *   CHECK_RC(call, want)      FAIL unless call returns the DCMF_Result want
 *   CHECK_ERR(call, want, fn) ... and prints exactly one stderr line naming fn
 *   CHECK_PAT / CHECK_BYTES   a buffer byte by byte against dt_pat / one value
 *   wait_until(p, target, s)  advance until *p >= target; FAIL after s seconds
 *   dt_barrier()              all ranks, over DCMF_Control; with DT_BARRIER_SKEW=r
 *                             in the environment rank r leaves every barrier last
 *   dt_allgather(mine, len, all)   up to DT_GATHER_MAX bytes per rank, over DCMF_Send
 *   dt_exchange_regions(&mine, all) every rank's memregion, indexed by rank
 *   dt_done_cb / dt_ack_cb    completion callbacks recording into a struct dt_rec
 *
 * The harness registers one control and one send protocol in dt_setup, so
 * every rank must call it at the same point of its registration order. It
 * is thread-safe in the way the tests need for interrupt mode: callbacks
 * may run on the library's interrupt thread, so every counter a callback
 * touches is read and written with atomics. */
#ifndef DTEST_H
#define DTEST_H

#include <dcmf.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/errcap.h"

#define DT_UNUSED __attribute__((unused))

static size_t dt_me DT_UNUSED, dt_np DT_UNUSED;
static int dt_ready DT_UNUSED; /* dt_setup done: the rank is known */

static inline const char *dt_base(const char *file)
{
    const char *s = strrchr(file, '/');
    return s ? s + 1 : file;
}

__attribute__((format(printf, 3, 4), noreturn)) static inline void
dt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    char who[32];
    fflush(stdout);
    errcap_restore(); /* a failure inside a capture must still be seen */
    if (dt_ready) {
        snprintf(who, sizeof who, "%zu", dt_me);
    } else {
        /* before the messager is up only the launcher knows the rank */
        const char *r = getenv("EMUNIC_RANK");
        snprintf(who, sizeof who, "%s", r ? r : "?");
    }
    fprintf(stderr, "FAIL rank %s %s:%d ", who, dt_base(file), line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

#define FAIL(...) dt_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond))                                                            \
            FAIL(__VA_ARGS__);                                                  \
    } while (0)
#define CHECK_RC(call, want)                                                    \
    do {                                                                        \
        int dt_rc_ = (int)(call);                                               \
        if (dt_rc_ != (int)(want))                                              \
            FAIL("%s returned %d, expected %d", #call, dt_rc_, (int)(want));    \
    } while (0)

#define NOTE(...)                                                               \
    do {                                                                        \
        printf("NOTE rank %zu: ", dt_me);                                       \
        printf(__VA_ARGS__);                                                    \
        putchar('\n');                                                          \
        fflush(stdout);                                                         \
    } while (0)

/* ---- atomics shared with callbacks (which may run on another thread) ---- */

static inline int dt_get(volatile int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static inline void dt_set(volatile int *p, int v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
static inline int dt_add(volatile int *p, int v) { return __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST); }
static inline int dt_inc(volatile int *p) { return dt_add(p, 1); }

static inline double dt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void dt_sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

/* Advancing, wait for *p to reach target. A hang is a failure that names
 * the waiting line, not a ctest timeout. */
static inline void dt_wait_until(volatile int *p, int target, double seconds, const char *file,
                                 int line)
{
    double end = dt_now() + seconds;
    while (dt_get(p) < target) {
        DCMF_Messager_advance();
        if (dt_now() > end)
            dt_fail(file, line, "timeout after %.1f s waiting for a counter to reach %d (it is %d)",
                    seconds, target, dt_get(p));
    }
}
#define wait_until(p, target, seconds) dt_wait_until((p), (target), (seconds), __FILE__, __LINE__)

/* The same without advancing: for waits that must be satisfied by the
 * NIC or the interrupt thread alone. */
static inline void dt_wait_noadvance(volatile int *p, int target, double seconds, const char *file,
                                     int line)
{
    double end = dt_now() + seconds;
    while (dt_get(p) < target) {
        if (dt_now() > end)
            dt_fail(file, line, "timeout after %.1f s waiting (without advance) for a counter to reach %d (it is %d)",
                    seconds, target, dt_get(p));
        dt_sleep_ms(0.05);
    }
}
#define wait_noadvance(p, target, seconds)                                      \
    dt_wait_noadvance((p), (target), (seconds), __FILE__, __LINE__)

/* Expected errors: CHECK_ERR(call, want, fn) runs call with stderr
 * captured (tests/common/errcap.h): it must return want and print exactly
 * one line naming fn (the library's "one line per mistake" rule), kept out
 * of the test log. */

/* ---- completion records ---- */

/* What a cb_done / cb_ack callback saw. clientdata must be the record. */
struct dt_rec {
    volatile int calls;  /* times any callback ran with this clientdata */
    volatile int done;   /* ... of which dt_done_cb */
    volatile int ack;    /* ... of which dt_ack_cb */
    volatile int errors; /* ... with a non-NULL DCMF_Error_t */
    volatile int result; /* the last error's result */
    volatile int magic;  /* set by dt_rec_init: catches a wrong clientdata */
};
#define DT_REC_MAGIC 0x5eed1234

static inline void dt_rec_init(struct dt_rec *r)
{
    memset((void *)r, 0, sizeof *r);
    dt_set(&r->magic, DT_REC_MAGIC);
}

static inline void dt_rec_note(void *cd, DCMF_Error_t *e, volatile int *which_off, const char *what)
{
    struct dt_rec *r = cd;
    if (!r || dt_get(&r->magic) != DT_REC_MAGIC)
        FAIL("%s callback got clientdata %p, which is not a clientdata the test passed", what, cd);
    dt_inc(which_off);
    if (e) {
        dt_set(&r->result, (int)e->result);
        dt_inc(&r->errors);
    }
    dt_inc(&r->calls); /* last: waiters key on calls */
}

static DT_UNUSED void dt_done_cb(void *cd, DCMF_Error_t *e)
{
    dt_rec_note(cd, e, cd ? &((struct dt_rec *)cd)->done : NULL, "cb_done");
}

static DT_UNUSED void dt_ack_cb(void *cd, DCMF_Error_t *e)
{
    dt_rec_note(cd, e, cd ? &((struct dt_rec *)cd)->ack : NULL, "cb_ack");
}

static inline DCMF_Callback_t dt_done(struct dt_rec *r) { return (DCMF_Callback_t){dt_done_cb, r}; }
static inline DCMF_Callback_t dt_ack(struct dt_rec *r) { return (DCMF_Callback_t){dt_ack_cb, r}; }
static inline DCMF_Callback_t dt_nocb(void) { return (DCMF_Callback_t){NULL, NULL}; }

/* Exactly `done` cb_done and `ack` cb_ack calls, none with an error. */
#define CHECK_REC(rec, ndone, nack, what)                                       \
    do {                                                                        \
        struct dt_rec *dt_r_ = (rec);                                           \
        CHECK(dt_get(&dt_r_->done) == (ndone) && dt_get(&dt_r_->ack) == (nack) && \
                  dt_get(&dt_r_->errors) == 0 &&                                \
                  dt_get(&dt_r_->calls) == (ndone) + (nack),                    \
              "%s: callbacks done %d ack %d errors %d (result %d) calls %d, expected done %d ack %d no errors", \
              (what), dt_get(&dt_r_->done), dt_get(&dt_r_->ack), dt_get(&dt_r_->errors), \
              dt_get(&dt_r_->result), dt_get(&dt_r_->calls), (ndone), (nack));  \
    } while (0)

/* ---- data patterns ---- */

/* Byte i of pattern `seed`: consecutive seeds differ at every byte (the
 * difference is 0x5b), so old data never passes for new. */
static inline uint8_t dt_pat(uint32_t seed, size_t i)
{
    uint32_t x = (uint32_t)i * 0x9e3779b1u;
    x ^= x >> 15;
    return (uint8_t)(x + (uint32_t)(i >> 8) + seed * 0x5bu);
}

static inline void dt_fill(void *buf, size_t len, uint32_t seed, size_t first)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        b[i] = dt_pat(seed, first + i);
}

/* Index of the first byte that is not pattern seed, or -1. */
static inline long dt_find_bad(const void *buf, size_t len, uint32_t seed, size_t first)
{
    const volatile uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        if (b[i] != dt_pat(seed, first + i))
            return (long)i;
    return -1;
}

#define CHECK_PAT(buf, len, seed, first, what)                                  \
    do {                                                                        \
        long dt_bad_ = dt_find_bad((buf), (len), (seed), (first));              \
        if (dt_bad_ >= 0)                                                       \
            FAIL("%s: byte %ld of %zu is 0x%02x, expected 0x%02x", (what), dt_bad_, \
                 (size_t)(len), ((const volatile uint8_t *)(buf))[dt_bad_],     \
                 dt_pat((seed), (first) + (size_t)dt_bad_));                    \
    } while (0)

/* Every byte of [buf, buf+len) is v. */
#define CHECK_BYTES(buf, len, v, what)                                          \
    do {                                                                        \
        const volatile uint8_t *dt_b_ = (const volatile uint8_t *)(buf);        \
        for (size_t dt_i_ = 0; dt_i_ < (size_t)(len); dt_i_++)                  \
            if (dt_b_[dt_i_] != (uint8_t)(v))                                   \
                FAIL("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", (what), dt_i_, \
                     (size_t)(len), dt_b_[dt_i_], (uint8_t)(v));                \
    } while (0)

static inline void *dt_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        FAIL("out of memory (%zu bytes)", n);
    return p;
}

/* ---- barrier and all-gather ---- */

#define DT_WAIT_S 60.0
#define DT_GATHER_MAX 96 /* 6 msginfo quads; the 7th carries the tag */

enum { DT_ARRIVE = 1, DT_RELEASE = 2, DT_HELLO = 3, DT_START = 4 };

static struct {
    DCMF_Protocol_t ctl, xsend;
    volatile int arrive[4], release[4];
    unsigned epoch;
    long skew; /* DT_BARRIER_SKEW: the rank released last, or -1 */
    /* all-gather: two generations in flight at most (a rank can be one
     * gather ahead of a peer, never two) */
    uint8_t *gbuf[2];
    volatile int gcount[2];
    unsigned gseq;
    DCMF_Request_t *greq;
    volatile int gsent;
    /* start-up: which ranks said hello (root), and the root's answer */
    volatile int *hello;
    volatile int nhello, start;
} dt DT_UNUSED;

static DT_UNUSED void dt_on_ctl(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)peer;
    if (cd != (void *)&dt)
        FAIL("harness control callback: clientdata %p is not the registered %p", cd, (void *)&dt);
    uint32_t w[8];
    memcpy(w, info, sizeof w);
    if (w[0] == DT_ARRIVE)
        dt_inc(&dt.arrive[w[1] % 4]);
    else if (w[0] == DT_RELEASE)
        dt_inc(&dt.release[w[1] % 4]);
    else if (w[0] == DT_HELLO && peer < dt_np) {
        if (__atomic_exchange_n(&dt.hello[peer], 1, __ATOMIC_SEQ_CST) == 0)
            dt_inc(&dt.nhello);
    } else if (w[0] == DT_START)
        dt_inc(&dt.start);
    else
        FAIL("harness control callback: unknown message kind %u from rank %zu", w[0], peer);
}

static DT_UNUSED void dt_on_gather(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                                   const char *src, size_t bytes)
{
    (void)src;
    if (cd != (void *)&dt || count != 7 || bytes != 0 || peer >= dt_np)
        FAIL("harness gather callback: clientdata %p count %u bytes %zu peer %zu", cd, count,
             bytes, peer);
    unsigned g = mi[6].w0 % 2;
    size_t len = mi[6].w1;
    if (mi[6].w2 != peer || len > DT_GATHER_MAX)
        FAIL("harness gather callback: tag says rank %u (%zu bytes), peer is %zu", mi[6].w2, len,
             peer);
    memcpy(dt.gbuf[g] + peer * DT_GATHER_MAX, mi, len);
    dt_inc(&dt.gcount[g]);
}

static DT_UNUSED void dt_on_gather_sent(void *cd, DCMF_Error_t *e)
{
    if (cd != (void *)&dt || e)
        FAIL("harness gather send: cb_done clientdata %p error %d", cd, e ? (int)e->result : 0);
    dt_inc(&dt.gsent);
}

static inline void dt_release(size_t r, DCMF_Control_t *info, const char *file, int line)
{
    if (DCMF_Control(&dt.ctl, DCMF_SEQUENTIAL_CONSISTENCY, r, info) != DCMF_SUCCESS)
        dt_fail(file, line, "barrier: DCMF_Control to rank %zu failed", r);
}

/* Ranks leave a barrier at different times, and those out first may send
 * at once to ranks still waiting in it (and advancing). DT_BARRIER_SKEW=r
 * makes that gap long for rank r: rank 0 releases it 200 ms after the
 * others, so a test that gets ready to receive only after a barrier fails
 * every time instead of now and then. */
static inline void dt_barrier_at(const char *file, int line)
{
    unsigned e = dt.epoch++;
    uint32_t w[8] = {0};
    DCMF_Control_t info;
    w[1] = e;
    if (dt_me == 0) {
        dt_wait_until(&dt.arrive[e % 4], (int)dt_np - 1, DT_WAIT_S, file, line);
        dt_add(&dt.arrive[e % 4], -((int)dt_np - 1));
        w[0] = DT_RELEASE;
        memcpy(&info, w, sizeof info);
        for (size_t r = 1; r < dt_np; r++)
            if ((long)r != dt.skew)
                dt_release(r, &info, file, line);
        if (dt.skew > 0 && (size_t)dt.skew < dt_np) {
            for (double end = dt_now() + 0.2; dt_now() < end;)
                DCMF_Messager_advance();
            dt_release((size_t)dt.skew, &info, file, line);
        }
    } else {
        w[0] = DT_ARRIVE;
        memcpy(&info, w, sizeof info);
        if (DCMF_Control(&dt.ctl, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info) != DCMF_SUCCESS)
            dt_fail(file, line, "barrier: DCMF_Control to rank 0 failed");
        dt_wait_until(&dt.release[e % 4], 1, DT_WAIT_S, file, line);
        dt_add(&dt.release[e % 4], -1);
    }
}
#define dt_barrier() dt_barrier_at(__FILE__, __LINE__)

/* all[r*len ...] = rank r's `mine` (len <= DT_GATHER_MAX), for every r. */
static inline void dt_allgather_at(const void *mine, size_t len, void *all, const char *file,
                                   int line)
{
    if (len > DT_GATHER_MAX)
        dt_fail(file, line, "dt_allgather: %zu bytes is more than %d", len, DT_GATHER_MAX);
    unsigned g = dt.gseq++ % 2;
    DCQuad mi[7];
    memset(mi, 0, sizeof mi);
    memcpy(mi, mine, len);
    mi[6].w0 = g;
    mi[6].w1 = (uint32_t)len;
    mi[6].w2 = (uint32_t)dt_me;
    dt_set(&dt.gsent, 0);
    for (size_t r = 0; r < dt_np; r++) {
        if (r == dt_me)
            continue;
        if (DCMF_Send(&dt.xsend, &dt.greq[r], (DCMF_Callback_t){dt_on_gather_sent, &dt},
                      DCMF_SEQUENTIAL_CONSISTENCY,
                      r, 0, NULL, mi, 7) != DCMF_SUCCESS)
            dt_fail(file, line, "dt_allgather: DCMF_Send to rank %zu failed", r);
    }
    dt_wait_until(&dt.gcount[g], (int)dt_np - 1, DT_WAIT_S, file, line);
    dt_wait_until(&dt.gsent, (int)dt_np - 1, DT_WAIT_S, file, line);
    dt_add(&dt.gcount[g], -((int)dt_np - 1));
    memcpy(dt.gbuf[g] + dt_me * DT_GATHER_MAX, mine, len);
    for (size_t r = 0; r < dt_np; r++)
        memcpy((char *)all + r * len, dt.gbuf[g] + r * DT_GATHER_MAX, len);
    /* nobody reuses the requests or this generation's buffer before every
     * rank is through */
    dt_barrier_at(file, line);
}
#define dt_allgather(mine, len, all) dt_allgather_at((mine), (len), (all), __FILE__, __LINE__)

static inline void dt_exchange_regions_at(DCMF_Memregion_t *mine, DCMF_Memregion_t *all,
                                          const char *file, int line)
{
    dt_allgather_at(mine, sizeof *mine, all, file, line);
}
#define dt_exchange_regions(mine, all) dt_exchange_regions_at((mine), (all), __FILE__, __LINE__)

/* ---- start and end ---- */

/* Nobody may send a harness message before every rank has registered the
 * harness protocols: with interrupts on from DCMF_Messager_initialize
 * (DCMF_INTERRUPTS=1) an early arrival is dropped, not queued. So each
 * rank says hello until rank 0, having heard everyone, says start; a
 * hello that came too early is simply sent again. */
static inline void dt_startup_sync(void)
{
    uint32_t w[8] = {0};
    DCMF_Control_t info;
    if (dt_np == 1)
        return;
    double end = dt_now() + DT_WAIT_S;
    if (dt_me == 0) {
        wait_until(&dt.nhello, (int)dt_np - 1, DT_WAIT_S);
        w[0] = DT_START;
        memcpy(&info, w, sizeof info);
        for (size_t r = 1; r < dt_np; r++)
            CHECK_RC(DCMF_Control(&dt.ctl, DCMF_SEQUENTIAL_CONSISTENCY, r, &info), DCMF_SUCCESS);
        return;
    }
    w[0] = DT_HELLO;
    memcpy(&info, w, sizeof info);
    while (!dt_get(&dt.start)) {
        CHECK(dt_now() < end, "start-up: rank 0 never answered");
        CHECK_RC(DCMF_Control(&dt.ctl, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info), DCMF_SUCCESS);
        double again = dt_now() + 0.05;
        while (!dt_get(&dt.start) && dt_now() < again)
            DCMF_Messager_advance();
    }
}

/* After DCMF_Messager_initialize: the rank, the harness's protocols. */
static inline void dt_setup(void)
{
    dt_me = DCMF_Messager_rank();
    dt_np = DCMF_Messager_size();
    dt_ready = 1;
    const char *skew = getenv("DT_BARRIER_SKEW");
    dt.skew = skew ? strtol(skew, NULL, 10) : -1;
    dt.hello = dt_xmalloc(dt_np * sizeof *dt.hello);
    memset((void *)dt.hello, 0, dt_np * sizeof *dt.hello);
    const char *r = getenv("EMUNIC_RANK"), *n = getenv("EMUNIC_SIZE");
    CHECK(r && n && (size_t)atol(r) == dt_me && (size_t)atol(n) == dt_np,
          "DCMF_Messager_rank/size say %zu/%zu, the launcher says %s/%s", dt_me, dt_np,
          r ? r : "(unset)", n ? n : "(unset)");
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, dt_on_ctl,
                                       (void *)&dt};
    CHECK_RC(DCMF_Control_register(&dt.ctl, &cc), DCMF_SUCCESS);
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, dt_on_gather,
                                    (void *)&dt, NULL, NULL};
    CHECK_RC(DCMF_Send_register(&dt.xsend, &sc), DCMF_SUCCESS);
    for (int g = 0; g < 2; g++)
        dt.gbuf[g] = dt_xmalloc(dt_np * DT_GATHER_MAX);
    dt.greq = dt_xmalloc(dt_np * sizeof(DCMF_Request_t));
    dt_startup_sync();
}

static inline void dt_init(void)
{
    unsigned first = DCMF_Messager_initialize();
    if (first != 1)
        FAIL("DCMF_Messager_initialize returned %u the first time, expected 1", first);
    dt_setup();
}

/* Everyone done, then the messager's last reference goes. */
static inline void dt_finish(const char *name)
{
    dt_barrier();
    unsigned last = DCMF_Messager_finalize();
    CHECK(last == 1, "DCMF_Messager_finalize returned %u for the last reference, expected 1", last);
    for (int g = 0; g < 2; g++)
        free(dt.gbuf[g]);
    free(dt.greq);
    free((void *)dt.hello);
    if (dt_me == 0)
        printf("%s: ok (%zu ranks)\n", name, dt_np);
}

#endif
