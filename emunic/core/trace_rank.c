/* The rank's track of the --trace timeline. A span runs from the moment a
 * rank starts posting an operation (emunic_write, _read, _atomic, _am_send,
 * _flush, _am_accept) to the moment the rank takes its EMU_CQ_DONE off the
 * completion queue; an operation that asked for no completion from the NIC
 * gets a span of its posting only. Operations are matched to completions
 * by cookie (equal cookies complete oldest first).
 *
 * Cost with tracing off: client_ops.c tests emu_trace_rank_state against
 * EMU_TR_OFF (one predictable branch); the first test after emunic_init
 * reads the job's netcfg once. With tracing on, events go to a buffer
 * (under a mutex: a rank may post from several threads) written to
 * <netcfg.trace_dir>/rank<R>.part when full and at exit. */
#include "trace_rank.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "emunic/tracebuf.h"

#define CL emu_cl

int emu_trace_rank_state = EMU_TR_UNKNOWN;

#define PEND_MAX (1u << 22)

struct pend {
    uint64_t cookie;
    int64_t t0;
    uint64_t len;
    uint32_t dst;
    uint8_t op, used;
};

static struct {
    pthread_mutex_t mu;
    struct emu_tracebuf tb;
    uint32_t pid, tid, rank;
    struct pend *tab;
    uint32_t cap, count;
    uint64_t untracked;
} T = {.mu = PTHREAD_MUTEX_INITIALIZER, .tb = EMU_TRACEBUF_INIT};

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define emit_locked(...) emu_tracebuf_emit(&T.tb, __VA_ARGS__)

static double us(int64_t t) { return emu_tracebuf_us(&T.tb, t); }

static void span_locked(const struct pend *p, int64_t t1, int status, const char *extra)
{
    emit_locked("{\"ph\":\"X\",\"cat\":\"rank\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,"
                "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"src\":%u,\"dst\":%u,\"len\":%llu,"
                "\"cookie\":%llu,\"status\":%d%s}}\n",
                emu_op_name(p->op), T.pid, T.tid, us(p->t0), (double)(t1 - p->t0) / 1000.0,
                T.rank, p->dst, (unsigned long long)p->len, (unsigned long long)p->cookie,
                status, extra);
}

static void at_exit(void)
{
    pthread_mutex_lock(&T.mu);
    if (T.tb.fd >= 0) {
        int64_t now = emu_now_ns();
        for (uint32_t i = 0; i < T.cap; i++)
            if (T.tab[i].used)
                span_locked(&T.tab[i], now, -1, ",\"unfinished\":1");
        emu_tracebuf_close(&T.tb);
    }
    pthread_mutex_unlock(&T.mu);
}

static void resolve(void)
{
    int state = EMU_TR_OFF;
    if (CL.refs > 0 && CL.job.hdr) {
        const struct emu_netcfg *net = emu_job_netcfg(&CL.job);
        char path[512];
        if ((net->flags & EMU_NET_TRACE) && net->trace_dir[0] &&
            memchr(net->trace_dir, 0, sizeof net->trace_dir) &&
            snprintf(path, sizeof path, "%s/rank%u.part", net->trace_dir, CL.rank) < (int)sizeof path) {
            int rc = emu_tracebuf_open(&T.tb, path, net->start_ns);
            if (rc == 0) {
                uint32_t rpn = CL.job.geo.ranks_per_node;
                T.rank = CL.rank;
                T.pid = CL.node;
                T.tid = CL.node * (rpn + 1) + 1 + CL.local;
                atexit(at_exit);
                state = EMU_TR_ON;
            } else {
                fprintf(stderr, "emunic: rank %u records no trace: cannot write %s: %s\n",
                        CL.rank, path, strerror(-rc));
            }
        }
    }
    __atomic_store_n(&emu_trace_rank_state, state, __ATOMIC_RELEASE);
}

static int on(void)
{
    pthread_once(&once, resolve);
    return __atomic_load_n(&emu_trace_rank_state, __ATOMIC_ACQUIRE) == EMU_TR_ON;
}

int64_t emu_trace_rank_begin(void)
{
    return on() ? emu_now_ns() : 0;
}

static uint32_t slot_of(uint64_t cookie)
{
    return (uint32_t)((cookie * 0x9e3779b97f4a7c15ull) >> 32) & (T.cap - 1);
}

static void put_locked(const struct pend *p)
{
    uint32_t i = slot_of(p->cookie);
    while (T.tab[i].used)
        i = (i + 1) & (T.cap - 1);
    T.tab[i] = *p;
    T.tab[i].used = 1;
    T.count++;
}

static int grow_locked(void)
{
    uint32_t ncap = T.cap ? 2 * T.cap : 256, ocap = T.cap;
    struct pend *old = T.tab, *n = calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    T.tab = n;
    T.cap = ncap;
    T.count = 0;
    for (uint32_t i = 0; i < ocap; i++)
        if (old[i].used)
            put_locked(&old[i]);
    free(old);
    return 0;
}

void emu_trace_rank_post(int64_t t0, const struct emu_msg *m, int rc)
{
    if (!on() || m->op == EMU_OP_MODULE)
        return;
    pthread_mutex_lock(&T.mu);
    if (T.tb.fd < 0) {
        pthread_mutex_unlock(&T.mu);
        return;
    }
    struct pend p = {.cookie = m->cookie, .t0 = t0, .len = m->len, .dst = m->dst, .op = m->op};
    if (rc != 0 || !(m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)))
        span_locked(&p, emu_now_ns(), rc, rc ? ",\"post_failed\":1" : ",\"no_completion\":1");
    else if (T.count + 1 > T.cap / 2 && (T.cap >= PEND_MAX || grow_locked() < 0))
        T.untracked++;
    else
        put_locked(&p);
    pthread_mutex_unlock(&T.mu);
}

void emu_trace_rank_done(const struct emu_msg *cqe)
{
    if (!on() || cqe->op != EMU_CQ_DONE)
        return;
    pthread_mutex_lock(&T.mu);
    if (T.tb.fd < 0 || !T.count) {
        pthread_mutex_unlock(&T.mu);
        return;
    }
    uint32_t i = slot_of(cqe->cookie);
    while (T.tab[i].used && T.tab[i].cookie != cqe->cookie)
        i = (i + 1) & (T.cap - 1);
    if (T.tab[i].used) {
        span_locked(&T.tab[i], emu_now_ns(), cqe->status, "");
        T.tab[i].used = 0;
        T.count--;
        uint32_t j = i;
        for (;;) {
            j = (j + 1) & (T.cap - 1);
            if (!T.tab[j].used)
                break;
            uint32_t home = slot_of(T.tab[j].cookie);
            if (((j - home) & (T.cap - 1)) >= ((j - i) & (T.cap - 1))) {
                T.tab[i] = T.tab[j];
                T.tab[j].used = 0;
                i = j;
            }
        }
    }
    pthread_mutex_unlock(&T.mu);
}

void emu_trace_rank_fault(const char *what, uint64_t n)
{
    if (!on())
        return;
    pthread_mutex_lock(&T.mu);
    if (T.tb.fd >= 0)
        emit_locked("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"fault\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,"
                    "\"ts\":%.3f,\"args\":{\"rank\":%u,\"n\":%llu}}\n",
                    what, T.pid, T.tid, us(emu_now_ns()), T.rank, (unsigned long long)n);
    pthread_mutex_unlock(&T.mu);
}
