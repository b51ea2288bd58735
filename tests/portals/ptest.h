/* Harness for the Portals 4 multi-rank tests: failure reports that name
 * the rank, file and line; bounded waits for events and counters; a
 * barrier built on Portals itself (no other channel exists between ranks
 * of a Portals job); the job layout from emunic-run's environment.
 *
 * A failed check prints
 *     FAIL rank <r> <file>:<line> <what>: <details>
 * on stderr and exits 1. With PTEST_KEEP_GOING=1 in the environment, plain
 * checks only count and the program goes on (exit 1 at the end) so one run
 * lists every mismatch; waits that time out always end the program. */
#ifndef PTEST_H
#define PTEST_H

#include <portals4.h>

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Longest any single wait may take before the test gives up. */
#define PT_WAIT_MS 60000u
/* The barrier's portal table entry: the highest index, so tests own the
 * low ones (PTL_PT_ANY gives the lowest free). */
#define PT_BARRIER_INDEX 63

static uint32_t pt_me, pt_n, pt_node, pt_rpn, pt_nnodes;
static int pt_keep_going;
static int pt_failures;

static inline const char *pt_base(const char *file)
{
    const char *s = strrchr(file, '/');
    return s ? s + 1 : file;
}

__attribute__((format(printf, 5, 6))) static inline void
pt_fail(int fatal, const char *file, int line, const char *what, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "FAIL rank %u %s:%d %s: ", pt_me, pt_base(file), line, what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    pt_failures++;
    if (fatal || !pt_keep_going)
        exit(1);
}

/* CHECK: a mismatch (continues under PTEST_KEEP_GOING). REQUIRE: the test
 * cannot go on without it. */
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond))                                                           \
            pt_fail(0, __FILE__, __LINE__, #cond, __VA_ARGS__);                \
    } while (0)
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond))                                                           \
            pt_fail(1, __FILE__, __LINE__, #cond, __VA_ARGS__);                \
    } while (0)

/* An unconditional mismatch, detailed by the message. */
#define FAILED(...) pt_fail(0, __FILE__, __LINE__, "mismatch", __VA_ARGS__)

/* Informational line for behaviour the semantics leave open. */
#define NOTE(...)                                                              \
    do {                                                                       \
        printf("NOTE rank %u: ", pt_me);                                       \
        printf(__VA_ARGS__);                                                   \
        putchar('\n');                                                         \
        fflush(stdout);                                                        \
    } while (0)

static inline const char *pt_rcname(int rc)
{
    static const char *const names[] = {
        "PTL_OK", "PTL_ARG_INVALID", "PTL_CT_NONE_REACHED", "PTL_EQ_DROPPED",
        "PTL_EQ_EMPTY", "PTL_FAIL", "PTL_IGNORED", "PTL_IN_USE",
        "PTL_LIST_TOO_LONG", "PTL_NO_INIT", "PTL_NO_SPACE", "PTL_PID_IN_USE",
        "PTL_PT_FULL", "PTL_PT_EQ_NEEDED", "PTL_PT_IN_USE", "PTL_ABORTED"};
    static char buf[4][32];
    static int next;
    if (rc >= 0 && rc < (int)(sizeof names / sizeof names[0]))
        return names[rc];
    char *b = buf[next++ & 3];
    snprintf(b, 32, "status %d", rc);
    return b;
}

static inline const char *pt_evname(int k)
{
    static const char *const names[] = {
        "GET", "GET_OVERFLOW", "PUT", "PUT_OVERFLOW", "ATOMIC",
        "ATOMIC_OVERFLOW", "FETCH_ATOMIC", "FETCH_ATOMIC_OVERFLOW", "REPLY",
        "SEND", "ACK", "PT_DISABLED", "LINK", "AUTO_UNLINK", "AUTO_FREE",
        "SEARCH"};
    static char buf[4][32];
    static int next;
    if (k >= 0 && k < (int)(sizeof names / sizeof names[0]))
        return names[k];
    char *b = buf[next++ & 3];
    snprintf(b, 32, "event-kind %d", k);
    return b;
}

static inline const char *pt_failname(int f)
{
    static const char *const names[] = {
        "PTL_NI_OK", "PTL_NI_UNDELIVERABLE", "PTL_NI_DROPPED",
        "PTL_NI_PT_DISABLED", "PTL_NI_PERM_VIOLATION", "PTL_NI_OP_VIOLATION",
        "PTL_NI_NO_MATCH", "PTL_NI_SEGV"};
    static char buf[4][32];
    static int next;
    if (f >= 0 && f < (int)(sizeof names / sizeof names[0]))
        return names[f];
    char *b = buf[next++ & 3];
    snprintf(b, 32, "ni_fail %d", f);
    return b;
}

/* EXPECT_RC(want, call): the call must return want. OK(call): setup that
 * must succeed. */
#define EXPECT_RC(want, call)                                                  \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != (want))                                                     \
            pt_fail(0, __FILE__, __LINE__, #call, "returned %s, want %s",      \
                    pt_rcname(rc_), pt_rcname(want));                          \
    } while (0)
#define OK(call)                                                               \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != PTL_OK)                                                     \
            pt_fail(1, __FILE__, __LINE__, #call, "returned %s, want PTL_OK",  \
                    pt_rcname(rc_));                                           \
    } while (0)

/* ---- job layout ---- */

static inline uint32_t pt_env_u32(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s) {
        fprintf(stderr, "FAIL rank ? %s is not set: run this under emunic-run\n", name);
        exit(1);
    }
    return (uint32_t)strtoul(s, NULL, 10);
}

static inline void pt_env(void)
{
    pt_me = pt_env_u32("EMUNIC_RANK");
    pt_n = pt_env_u32("EMUNIC_SIZE");
    pt_node = pt_env_u32("EMUNIC_NODE");
    pt_nnodes = pt_env_u32("EMUNIC_NNODES");
    pt_rpn = pt_env_u32("EMUNIC_LOCAL_SIZE");
    const char *k = getenv("PTEST_KEEP_GOING");
    pt_keep_going = k && *k && *k != '0';
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* emunic-run places rank r on node r / ranks-per-node. */
static inline uint32_t pt_node_of(uint32_t r) { return r / pt_rpn; }

/* Logical rank under which process p is reached: identity unless a test
 * installed a permutation with PtlSetMap (pt_set_inverse). */
static uint32_t *pt_lrank_of;

static inline ptl_process_t pt_lrank(uint32_t p)
{
    ptl_process_t id;
    memset(&id, 0, sizeof id);
    id.rank = pt_lrank_of ? pt_lrank_of[p] : p;
    return id;
}

static inline ptl_process_t pt_phys(uint32_t p)
{
    ptl_process_t id;
    memset(&id, 0, sizeof id);
    id.phys.nid = pt_node_of(p);
    id.phys.pid = p;
    return id;
}

static inline uint8_t pt_pattern(uint32_t rank, uint64_t salt, uint64_t i)
{
    return (uint8_t)(i * 131 + rank * 7 + salt * 29 + (i >> 8) + (i >> 16) * 3);
}

static inline void pt_fill(void *buf, uint32_t rank, uint64_t salt, size_t len)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        b[i] = pt_pattern(rank, salt, i);
}

/* Index of the first byte of buf[0..len) that differs from the pattern,
 * or -1. */
static inline long pt_check_pattern(const void *buf, uint32_t rank, uint64_t salt, size_t len)
{
    const uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        if (b[i] != pt_pattern(rank, salt, i))
            return (long)i;
    return -1;
}

static inline long pt_check_byte(const void *buf, uint8_t v, size_t len)
{
    const uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        if (b[i] != v)
            return (long)i;
    return -1;
}

/* Format a context string (rotating static buffers). */
__attribute__((format(printf, 1, 2))) static inline const char *pt_ctx(const char *fmt, ...)
{
    static char buf[4][256];
    static int next;
    char *b = buf[next++ & 3];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, 256, fmt, ap);
    va_end(ap);
    return b;
}

#define CHECK_PATTERN(buf, rank, salt, len, ...)                               \
    do {                                                                       \
        long at_ = pt_check_pattern((buf), (rank), (salt), (len));            \
        if (at_ >= 0)                                                          \
            pt_fail(0, __FILE__, __LINE__, "data", "byte %ld of %zu is 0x%02x, want 0x%02x (%s)", \
                    at_, (size_t)(len), ((const uint8_t *)(buf))[at_],         \
                    pt_pattern((rank), (salt), (uint64_t)at_), pt_ctx(__VA_ARGS__)); \
    } while (0)
#define CHECK_BYTES(buf, v, len, ...)                                          \
    do {                                                                       \
        long at_ = pt_check_byte((buf), (uint8_t)(v), (len));                  \
        if (at_ >= 0)                                                          \
            pt_fail(0, __FILE__, __LINE__, "untouched", "byte %ld of %zu is 0x%02x, want 0x%02x (%s)", \
                    at_, (size_t)(len), ((const uint8_t *)(buf))[at_],         \
                    (uint8_t)(v), pt_ctx(__VA_ARGS__));                        \
    } while (0)

/* ---- a call that must not block: watchdog ---- */

static const char *pt_watch_what;
static inline void pt_on_alarm(int sig)
{
    (void)sig;
    char msg[256];
    int k = snprintf(msg, sizeof msg, "FAIL rank %u watchdog: %s did not return within 20 s\n",
                     pt_me, pt_watch_what ? pt_watch_what : "?");
    if (k > 0)
        (void)!write(2, msg, (size_t)k);
    _exit(1);
}
static inline void pt_on_crash(int sig)
{
    char msg[256];
    int k = snprintf(msg, sizeof msg, "FAIL rank %u crash: signal %d in %s\n", pt_me, sig,
                     pt_watch_what ? pt_watch_what : "?");
    if (k > 0)
        (void)!write(2, msg, (size_t)k);
    _exit(1);
}
static inline void pt_watch(const char *what)
{
    pt_watch_what = what;
    signal(SIGALRM, pt_on_alarm);
    signal(SIGSEGV, pt_on_crash);
    signal(SIGBUS, pt_on_crash);
    alarm(20);
}
static inline void pt_unwatch(void)
{
    alarm(0);
    pt_watch_what = "(after a watched call)";
}

/* ---- bounded waits ---- */

static inline int pt_wait_event_(const char *file, int line, ptl_handle_eq_t eq, ptl_event_t *ev, const char *what)
{
    unsigned int which = 99;
    int rc = PtlEQPoll(&eq, 1, PT_WAIT_MS, ev, &which);
    if (rc == PTL_EQ_EMPTY)
        pt_fail(1, file, line, what, "no event within %u ms", PT_WAIT_MS);
    if (rc != PTL_OK && rc != PTL_EQ_DROPPED)
        pt_fail(1, file, line, what, "PtlEQPoll returned %s", pt_rcname(rc));
    if (which != 0)
        pt_fail(0, file, line, what, "PtlEQPoll which = %u, want 0", which);
    return rc;
}
/* Wait for the next event of eq; PTL_EQ_DROPPED counts as a failure. */
#define WAIT_EVENT(eq, ev)                                                     \
    do {                                                                       \
        if (pt_wait_event_(__FILE__, __LINE__, (eq), (ev), "wait " #eq) != PTL_OK) \
            pt_fail(0, __FILE__, __LINE__, "wait " #eq, "PTL_EQ_DROPPED: events were lost"); \
    } while (0)

/* No event may be waiting on eq. */
#define EXPECT_EMPTY(eq, ...)                                                  \
    do {                                                                       \
        ptl_event_t e_;                                                        \
        int rc_ = PtlEQGet((eq), &e_);                                         \
        if (rc_ != PTL_EQ_EMPTY)                                               \
            pt_fail(0, __FILE__, __LINE__, "no event on " #eq,                 \
                    "PtlEQGet returned %s with a %s event (user_ptr %p ni_fail %s) (%s)", \
                    pt_rcname(rc_), pt_evname(e_.type), e_.user_ptr,            \
                    pt_failname(e_.ni_fail_type), pt_ctx(__VA_ARGS__));        \
    } while (0)

static inline long pt_now_ms(void);
static inline ptl_ct_event_t pt_wait_ct_(const char *file, int line, ptl_handle_ct_t ct, ptl_size_t test, const char *what)
{
    /* A wait ends at success >= test or at the first failure; this waits
     * for success + failure >= test, so once anything failed it rechecks
     * every millisecond. */
    ptl_ct_event_t ev = {0, 0};
    unsigned int which = 99;
    long t0 = pt_now_ms();
    int rc;
    while ((rc = PtlCTPoll(&ct, &test, 1, PT_WAIT_MS, &ev, &which)) == PTL_OK && ev.success + ev.failure < test &&
           pt_now_ms() - t0 < PT_WAIT_MS)
        usleep(1000);
    if (rc != PTL_OK || ev.success + ev.failure < test) {
        ptl_ct_event_t now = {0, 0};
        int rc2 = PtlCTGet(ct, &now);
        pt_fail(1, file, line, what, "PtlCTPoll(test %llu) returned %s; PtlCTGet %s: success %llu failure %llu",
                (unsigned long long)test, pt_rcname(rc), pt_rcname(rc2),
                (unsigned long long)now.success, (unsigned long long)now.failure);
    }
    return ev;
}
/* Wait until ct reaches success + failure = s + f, then both must be exact. */
#define EXPECT_CT(ct, s, f)                                                    \
    do {                                                                       \
        ptl_size_t s_ = (s), f_ = (f);                                         \
        ptl_ct_event_t c_ = pt_wait_ct_(__FILE__, __LINE__, (ct), s_ + f_, "wait " #ct); \
        if (c_.success != s_ || c_.failure != f_)                              \
            pt_fail(0, __FILE__, __LINE__, #ct, "success %llu failure %llu, want %llu and %llu", \
                    (unsigned long long)c_.success, (unsigned long long)c_.failure, \
                    (unsigned long long)s_, (unsigned long long)f_);           \
    } while (0)
/* The counter must read exactly (s, f) now. */
#define EXPECT_CT_NOW(ct, s, f)                                                \
    do {                                                                       \
        ptl_ct_event_t c_ = {0, 0};                                            \
        int rc_ = PtlCTGet((ct), &c_);                                         \
        if (rc_ != PTL_OK || c_.success != (ptl_size_t)(s) || c_.failure != (ptl_size_t)(f)) \
            pt_fail(0, __FILE__, __LINE__, #ct, "PtlCTGet %s: success %llu failure %llu, want %llu and %llu", \
                    pt_rcname(rc_), (unsigned long long)c_.success,            \
                    (unsigned long long)c_.failure, (unsigned long long)(s),   \
                    (unsigned long long)(f));                                  \
    } while (0)

/* ---- event checks ---- */

enum {
    EV_START = 1u << 0, EV_UPTR = 1u << 1, EV_HDR = 1u << 2, EV_MATCH = 1u << 3,
    EV_RLEN = 1u << 4, EV_MLEN = 1u << 5, EV_ROFF = 1u << 6, EV_INIT = 1u << 7,
    EV_UID = 1u << 8, EV_PT = 1u << 9, EV_LIST = 1u << 10, EV_FAIL = 1u << 11,
    EV_AOP = 1u << 12, EV_INIT_PHYS = 1u << 13,
    EV_MBITS = 1u << 14, /* match_bits == w->match_bits (matching NIs) */
};

struct evwant {
    int type;
    unsigned fields;
    void *start;
    void *user_ptr;
    ptl_hdr_data_t hdr_data;
    ptl_size_t rlength, mlength, remote_offset;
    uint32_t initiator; /* process (rank); logical or physical per fields */
    ptl_uid_t uid;
    ptl_pt_index_t pt_index;
    int ni_fail;
    int op, dt;
    ptl_match_bits_t match_bits; /* with EV_MBITS */
};

static inline void pt_check_event_(const char *file, int line, const char *ctx,
                            const ptl_event_t *ev, const struct evwant *w)
{
    const char *t = pt_evname(w->type);
    if (!ev)
        return; /* missing: already reported */
    if (ev->type != w->type) {
        pt_fail(0, file, line, ctx, "event type %s, want %s (user_ptr %p ni_fail %s mlength %llu)",
                pt_evname(ev->type), t, ev->user_ptr, pt_failname(ev->ni_fail_type),
                (unsigned long long)ev->mlength);
        return;
    }
#define F_(bit, cond, ...)                                                     \
    do {                                                                       \
        if ((w->fields & (bit)) && !(cond))                                    \
            pt_fail(0, file, line, ctx, __VA_ARGS__);                          \
    } while (0)
    F_(EV_START, ev->start == w->start, "%s event start %p, want %p", t, ev->start, w->start);
    F_(EV_UPTR, ev->user_ptr == w->user_ptr, "%s event user_ptr %p, want %p", t, ev->user_ptr, w->user_ptr);
    F_(EV_HDR, ev->hdr_data == w->hdr_data, "%s event hdr_data 0x%llx, want 0x%llx", t,
       (unsigned long long)ev->hdr_data, (unsigned long long)w->hdr_data);
    F_(EV_MATCH, ev->match_bits == 0, "%s event match_bits 0x%llx, want 0 (non-matching NI)", t,
       (unsigned long long)ev->match_bits);
    F_(EV_MBITS, ev->match_bits == w->match_bits, "%s event match_bits 0x%llx, want 0x%llx", t,
       (unsigned long long)ev->match_bits, (unsigned long long)w->match_bits);
    F_(EV_RLEN, ev->rlength == w->rlength, "%s event rlength %llu, want %llu", t,
       (unsigned long long)ev->rlength, (unsigned long long)w->rlength);
    F_(EV_MLEN, ev->mlength == w->mlength, "%s event mlength %llu, want %llu", t,
       (unsigned long long)ev->mlength, (unsigned long long)w->mlength);
    F_(EV_ROFF, ev->remote_offset == w->remote_offset, "%s event remote_offset %llu, want %llu", t,
       (unsigned long long)ev->remote_offset, (unsigned long long)w->remote_offset);
    F_(EV_INIT, ev->initiator.rank == w->initiator, "%s event initiator.rank %u, want %u", t,
       ev->initiator.rank, w->initiator);
    F_(EV_INIT_PHYS, ev->initiator.phys.nid == pt_node_of(w->initiator) && ev->initiator.phys.pid == w->initiator,
       "%s event initiator.phys {%u,%u}, want {%u,%u}", t, ev->initiator.phys.nid,
       ev->initiator.phys.pid, pt_node_of(w->initiator), w->initiator);
    F_(EV_UID, ev->uid == w->uid, "%s event uid %u, want %u", t, ev->uid, w->uid);
    F_(EV_PT, ev->pt_index == w->pt_index, "%s event pt_index %u, want %u", t, ev->pt_index, w->pt_index);
    F_(EV_LIST, ev->ptl_list == PTL_PRIORITY_LIST, "%s event ptl_list %u, want PTL_PRIORITY_LIST", t, ev->ptl_list);
    F_(EV_FAIL, ev->ni_fail_type == w->ni_fail, "%s event ni_fail_type %s, want %s", t,
       pt_failname(ev->ni_fail_type), pt_failname(w->ni_fail));
    F_(EV_AOP, ev->atomic_operation == w->op && ev->atomic_type == w->dt,
       "%s event atomic_operation %u atomic_type %u, want %u and %u", t, ev->atomic_operation,
       ev->atomic_type, w->op, w->dt);
#undef F_
}
#define CHECK_EVENT(ctx, ev, want) pt_check_event_(__FILE__, __LINE__, (ctx), (ev), (want))

/* What a successful target-side event must carry (logical NI). */
static inline struct evwant want_target(int type, void *start, void *uptr, ptl_hdr_data_t hdr,
                                        ptl_size_t rlen, ptl_size_t mlen, ptl_size_t roff,
                                        uint32_t initiator, ptl_pt_index_t pt)
{
    struct evwant w = {0};
    w.type = type;
    w.fields = EV_START | EV_UPTR | EV_HDR | EV_MATCH | EV_RLEN | EV_MLEN | EV_ROFF | EV_INIT |
               EV_UID | EV_PT | EV_LIST | EV_FAIL;
    if (type == PTL_EVENT_GET)
        w.fields &= ~(unsigned)EV_HDR; /* a Get carries no header data */
    w.start = start;
    w.user_ptr = uptr;
    w.hdr_data = hdr;
    w.rlength = rlen;
    w.mlength = mlen;
    w.remote_offset = roff;
    w.initiator = initiator;
    w.uid = (ptl_uid_t)getuid();
    w.pt_index = pt;
    w.ni_fail = PTL_NI_OK;
    return w;
}
static inline struct evwant want_send(void *uptr)
{
    struct evwant w = {0};
    w.type = PTL_EVENT_SEND;
    w.fields = EV_UPTR | EV_FAIL;
    w.user_ptr = uptr;
    w.ni_fail = PTL_NI_OK;
    return w;
}
static inline struct evwant want_ack(void *uptr, ptl_size_t mlen, ptl_size_t roff, ptl_pt_index_t pt, int fail)
{
    struct evwant w = {0};
    w.type = PTL_EVENT_ACK;
    w.fields = EV_UPTR | EV_MLEN | EV_ROFF | EV_PT | EV_FAIL;
    if (fail != PTL_NI_OK)
        w.fields = EV_UPTR | EV_FAIL; /* lengths of a failed op are not defined */
    w.user_ptr = uptr;
    w.mlength = mlen;
    w.remote_offset = roff;
    w.pt_index = pt;
    w.ni_fail = fail;
    return w;
}
static inline struct evwant want_reply(void *uptr, ptl_size_t mlen, int fail)
{
    struct evwant w = {0};
    w.type = PTL_EVENT_REPLY;
    w.fields = EV_UPTR | EV_MLEN | EV_FAIL;
    if (fail != PTL_NI_OK)
        w.fields = EV_UPTR | EV_FAIL;
    w.user_ptr = uptr;
    w.mlength = mlen;
    w.ni_fail = fail;
    return w;
}

/* Collect n events from eq (in any order; the wait for all of them is
 * bounded by PT_COLLECT_MS) and hand back the one of each requested type.
 * A missing event is a (non-fatal) failure and TAKE then gives NULL. */
#define PT_COLLECT_MS 15000
struct evset {
    ptl_event_t ev[16];
    int n;
    int used[16];
};
static inline long pt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
static inline void pt_collect_(const char *file, int line, ptl_handle_eq_t eq, int n, struct evset *s)
{
    memset(s, 0, sizeof *s);
    long end = pt_now_ms() + PT_COLLECT_MS;
    for (int i = 0; i < n && i < 16; i++) {
        long left = end - pt_now_ms();
        unsigned int which = 99;
        int rc = PtlEQPoll(&eq, 1, (ptl_time_t)(left > 0 ? left : 0), &s->ev[i], &which);
        if (rc == PTL_EQ_EMPTY) {
            pt_fail(0, file, line, "collect events", "only %d of %d events arrived within %d ms", i, n,
                    PT_COLLECT_MS);
            return;
        }
        if (rc != PTL_OK)
            pt_fail(0, file, line, "collect events", "PtlEQPoll returned %s", pt_rcname(rc));
        if (rc != PTL_OK && rc != PTL_EQ_DROPPED)
            return;
        s->n++;
    }
}
#define COLLECT(eq, n, set) pt_collect_(__FILE__, __LINE__, (eq), (n), (set))
static inline const ptl_event_t *pt_take_(const char *file, int line, struct evset *s, int type)
{
    for (int i = 0; i < s->n; i++)
        if (!s->used[i] && s->ev[i].type == type) {
            s->used[i] = 1;
            return &s->ev[i];
        }
    char got[256] = "";
    for (int i = 0; i < s->n; i++) {
        size_t l = strlen(got);
        snprintf(got + l, sizeof got - l, " %s(%s)", pt_evname(s->ev[i].type),
                 pt_failname(s->ev[i].ni_fail_type));
    }
    pt_fail(0, file, line, "event set", "no %s event among:%s", pt_evname(type), got);
    return NULL;
}
#define TAKE(set, type) pt_take_(__FILE__, __LINE__, (set), (type))

/* ---- barrier over Portals ----
 * Every rank puts to rank 0's barrier LE; rank 0 waits for all and puts to
 * each. Puts ask for counting acks, so a barrier also means "my barrier
 * messages were delivered". A first arrival can find rank 0's LE not yet
 * linked (PTL_NI_DROPPED shows as an ack failure): it is then resent. */
static struct {
    ptl_handle_ni_t ni;
    int logical;
    ptl_handle_ct_t ct, mdct;
    ptl_handle_md_t md;
    ptl_handle_le_t le;
    uint64_t epoch, acks, fails;
    uint64_t src;
    char sink[64];
    int up;
} pt_bar;

static inline ptl_process_t pt_bar_target(uint32_t p)
{
    return pt_bar.logical ? pt_lrank(p) : pt_phys(p);
}

static inline void pt_barrier_init(ptl_handle_ni_t ni, int logical)
{
    ptl_pt_index_t idx = 0;
    pt_bar.ni = ni;
    pt_bar.logical = logical;
    OK(PtlCTAlloc(ni, &pt_bar.ct));
    OK(PtlCTAlloc(ni, &pt_bar.mdct));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_BARRIER_INDEX, &idx));
    REQUIRE(idx == PT_BARRIER_INDEX, "barrier PT index %u, want %u", idx, PT_BARRIER_INDEX);
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = pt_bar.sink;
    le.length = sizeof pt_bar.sink;
    le.ct_handle = pt_bar.ct;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE |
                 PTL_LE_EVENT_COMM_DISABLE;
    OK(PtlLEAppend(ni, PT_BARRIER_INDEX, &le, PTL_PRIORITY_LIST, NULL, &pt_bar.le));
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = &pt_bar.src;
    md.length = sizeof pt_bar.src;
    md.options = PTL_MD_EVENT_CT_ACK;
    md.eq_handle = PTL_EQ_NONE;
    md.ct_handle = pt_bar.mdct;
    OK(PtlMDBind(ni, &md, &pt_bar.md));
    pt_bar.up = 1;
}

static inline void pt_bar_put(uint32_t p)
{
    OK(PtlPut(pt_bar.md, 0, sizeof pt_bar.src, PTL_CT_ACK_REQ, pt_bar_target(p),
              PT_BARRIER_INDEX, 0, 0, NULL, 0));
}

static inline void pt_barrier_(const char *file, int line)
{
    REQUIRE(pt_bar.up, "barrier used before pt_barrier_init");
    if (pt_n == 1)
        return;
    pt_bar.epoch++;
    if (pt_me != 0) {
        for (int tries = 0;; tries++) {
            pt_bar_put(0);
            ptl_ct_event_t c = pt_wait_ct_(file, line, pt_bar.mdct, pt_bar.acks + pt_bar.fails + 1, "barrier ack");
            if (c.failure == pt_bar.fails) {
                pt_bar.acks++;
                break;
            }
            /* only the very first barrier may find rank 0 not ready */
            if (pt_bar.epoch != 1 || tries > 5000)
                pt_fail(1, file, line, "barrier", "arrival put failed (epoch %llu, try %d)",
                        (unsigned long long)pt_bar.epoch, tries);
            pt_bar.fails = c.failure;
            usleep(2000);
        }
        pt_wait_ct_(file, line, pt_bar.ct, pt_bar.epoch, "barrier release");
    } else {
        pt_wait_ct_(file, line, pt_bar.ct, pt_bar.epoch * (pt_n - 1), "barrier arrivals");
        for (uint32_t r = 1; r < pt_n; r++)
            pt_bar_put(r);
        pt_bar.acks += pt_n - 1;
        ptl_ct_event_t c = pt_wait_ct_(file, line, pt_bar.mdct, pt_bar.acks + pt_bar.fails, "barrier release acks");
        if (c.failure != pt_bar.fails)
            pt_fail(1, file, line, "barrier", "release put failed");
    }
}
#define BARRIER() pt_barrier_(__FILE__, __LINE__)

static inline void pt_barrier_fini(void)
{
    if (!pt_bar.up)
        return;
    OK(PtlMDRelease(pt_bar.md));
    OK(PtlLEUnlink(pt_bar.le));
    OK(PtlPTFree(pt_bar.ni, PT_BARRIER_INDEX));
    OK(PtlCTFree(pt_bar.ct));
    OK(PtlCTFree(pt_bar.mdct));
    pt_bar.up = 0;
}

/* End of a test program: exit status from the failure count. */
static inline int pt_done(const char *name)
{
    if (pt_failures) {
        fprintf(stderr, "FAIL rank %u %s: %d check(s) failed\n", pt_me, name, pt_failures);
        return 1;
    }
    if (pt_me == 0)
        printf("%s: %u ranks on %u nodes: ok\n", name, pt_n, pt_nnodes);
    return 0;
}

static inline void *pt_xmalloc(size_t n)
{
    void *p = malloc(n);
    REQUIRE(p != NULL, "malloc(%zu)", n);
    return p;
}

static inline ptl_md_t pt_md(void *start, ptl_size_t len, unsigned opts, ptl_handle_eq_t eq, ptl_handle_ct_t ct)
{
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = start;
    md.length = len;
    md.options = opts;
    md.eq_handle = eq;
    md.ct_handle = ct;
    return md;
}

static inline ptl_le_t pt_le(void *start, ptl_size_t len, unsigned opts, ptl_handle_ct_t ct, ptl_uid_t uid)
{
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = start;
    le.length = len;
    le.ct_handle = ct;
    le.uid = uid;
    le.options = opts;
    return le;
}

#endif
