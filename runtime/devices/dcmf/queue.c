/* Per-context queues and progress. DCMF callbacks run in whichever thread
 * is advancing, possibly while the other context's thread owns the state
 * they report on, so they only queue an event on the context it belongs
 * to; progress(ctx) runs ctx's events in its own thread, outside DCMF.
 *
 * One thread at a time advances the messager; a thread that finds another
 * one advancing waits on its context's condition variable instead, which
 * the advancing thread signals when it queues an event for that context or
 * stops advancing. (Two threads sleeping in DCMF's idle wait could not
 * wake each other: the NIC's doorbell goes to one of them.) */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ddev.h"

/* Longest wait on a condition variable before trying to advance again: it
 * bounds the time a waiter takes over when the advancing thread leaves
 * progress without being seen to. */
#define DDEV_WAIT_SLICE_NS 1000000
/* How long after the rank's thread leaves progress the helper keeps off
 * the messager: longer than the gap between a tight loop's waits, short
 * against a compute phase whose requests the helper should serve. */
#define DDEV_RANK_GRACE_NS 100000
/* The helper's longest wait while the rank's thread is in progress: it
 * bounds how late the helper notices that thread's departure. */
#define DDEV_DEFER_SLICE_NS 200000

int64_t ddev_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void ddev_push(int ctx, struct ddev_ev *ev)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    ev->next = NULL;
    pthread_mutex_lock(&ddev.qlock);
    if (c->tail)
        c->tail->next = ev;
    else
        c->head = ev;
    c->tail = ev;
    if (atomic_load(&c->waiting))
        pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&ddev.qlock);
}

static struct ddev_ev *pop(int ctx)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    pthread_mutex_lock(&ddev.qlock);
    struct ddev_ev *ev = c->head;
    if (ev) {
        c->head = ev->next;
        if (!c->head)
            c->tail = NULL;
    }
    pthread_mutex_unlock(&ddev.qlock);
    return ev;
}

/* ---- DCMF callbacks: queue and return ---- */

void ddev_cb_done(void *cd, DCMF_Error_t *e)
{
    struct ddev_op *op = cd;
    op->done.status = e ? -EIO : 0;
    ddev_push(op->ctx, &op->done);
}

void ddev_cb_ack(void *cd, DCMF_Error_t *e)
{
    struct ddev_op *op = cd;
    op->ack.status = e ? -EIO : 0;
    ddev_push(op->ctx, &op->ack);
}

static struct ddev_msg *msg_get(void)
{
    pthread_mutex_lock(&ddev.qlock);
    struct ddev_msg *m = ddev.free_msgs;
    if (m) {
        ddev.free_msgs = m->next_free;
    } else if ((m = malloc(sizeof *m)) != NULL) {
        m->all_next = ddev.all_msgs;
        ddev.all_msgs = m;
    }
    pthread_mutex_unlock(&ddev.qlock);
    return m;
}

static void msg_put(struct ddev_msg *m)
{
    pthread_mutex_lock(&ddev.qlock);
    m->next_free = ddev.free_msgs;
    ddev.free_msgs = m;
    pthread_mutex_unlock(&ddev.qlock);
}

/* A message for a context that is not there, or one we cannot hold, is a
 * protocol error the sender cannot be told about: say so and drop it. */
static struct ddev_msg *arrival(unsigned chan, size_t peer, size_t len, const char *what)
{
    struct ddev_msg *m = NULL;
    if (chan >= ADEV_NCTX || !ddev.ctx[chan].open || len > DDEV_SMALL_MAX ||
        !(m = msg_get())) {
        fprintf(stderr, "armci dcmf device: rank %d: %s from rank %zu for context %u (%zu bytes) "
                "dropped\n", ddev.me, what, peer, chan, len);
        return NULL;
    }
    m->src = (int)peer;
    m->len = len;
    m->imm = 0;
    m->addr = NULL;
    return m;
}

void ddev_on_small(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                   size_t bytes)
{
    (void)cd;
    if (count < 1)
        return;
    if (mi[0].w0 == DDEV_K_BYE) {
        atomic_fetch_add(&ddev.byes, 1);
        return;
    }
    struct ddev_msg *m = arrival(mi[0].w1, peer, bytes, "a short message");
    if (!m)
        return;
    memcpy(m->data, src, bytes);
    m->ev.kind = DDEV_EV_SMALL;
    ddev_push((int)mi[0].w1, &m->ev);
}

/* The long path: never taken by a message the device sends (header and
 * payload fit one packet); kept so that a change of packet size shows up
 * as a message, not as lost data. */
struct long_rx {
    DCMF_Request_t req;
    struct ddev_msg *m;
    int chan;
};

static void long_rx_done(void *cd, DCMF_Error_t *e)
{
    struct long_rx *l = cd;
    if (e)
        msg_put(l->m);
    else
        ddev_push(l->chan, &l->m->ev);
    free(l);
}

DCMF_Request_t *ddev_on_small_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                                   size_t sndlen, size_t *rcvlen, char **rcvbuf,
                                   DCMF_Callback_t *cb_done)
{
    (void)cd;
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "armci dcmf device: rank %d: a %zu-byte short message from rank %zu "
                "took DCMF's long path\n", ddev.me, sndlen, peer);
    struct long_rx *l = calloc(1, sizeof *l);
    struct ddev_msg *m = count ? arrival(mi[0].w1, peer, sndlen, "a short message") : NULL;
    if (!l || !m) {
        free(l);
        if (m)
            msg_put(m);
        return NULL; /* DCMF drops it with a message of its own */
    }
    m->ev.kind = DDEV_EV_SMALL;
    l->m = m;
    l->chan = (int)mi[0].w1;
    *rcvlen = sndlen;
    *rcvbuf = m->data;
    cb_done->function = long_rx_done;
    cb_done->clientdata = l;
    return &l->req;
}

void ddev_on_notice(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                    size_t bytes)
{
    (void)cd, (void)src, (void)bytes;
    if (count < 2)
        return;
    struct ddev_msg *m = arrival(mi[1].w2, peer, 0, "a put notice");
    if (!m)
        return;
    m->imm = (uint64_t)mi[0].w0 | (uint64_t)mi[0].w1 << 32;
    m->addr = (void *)(uintptr_t)((uint64_t)mi[0].w2 | (uint64_t)mi[0].w3 << 32);
    m->len = (size_t)((uint64_t)mi[1].w0 | (uint64_t)mi[1].w1 << 32);
    m->ev.kind = DDEV_EV_NOTIFY;
    ddev_push((int)mi[1].w2, &m->ev);
}

/* ---- running a context's events ---- */

static struct ddev_op *op_of(struct ddev_ev *ev)
{
    size_t off = ev->kind == DDEV_EV_DONE ? offsetof(struct ddev_op, done)
                                          : offsetof(struct ddev_op, ack);
    return (struct ddev_op *)(void *)((char *)ev - off);
}

/* One event; call_core 0 at shut-down, when the core is gone. */
static void run(int ctx, struct ddev_ev *ev, int call_core)
{
    if (ev->kind == DDEV_EV_DONE || ev->kind == DDEV_EV_ACK) {
        struct ddev_op *op = op_of(ev);
        struct adev_cmpl *cmpl = ev->kind == DDEV_EV_DONE ? op->local : op->remote;
        int status = ev->status;
        if (ev->kind == DDEV_EV_ACK && op->fetch && !status)
            memcpy(op->fetch, op->buf, op->fetch_len);
        /* the request is free before the core runs: it may post again */
        if (--op->pending == 0)
            ddev_op_put(ctx, op);
        if (cmpl && call_core)
            cmpl->fn(cmpl, status);
        return;
    }
    if (ev->kind == DDEV_EV_AMO) {
        ddev_amo_run(ctx, ev, call_core);
        return;
    }
    struct ddev_msg *m = (struct ddev_msg *)ev;
    if (call_core && ev->kind == DDEV_EV_SMALL)
        ddev.h.small(ctx, m->src, m->data, m->len);
    else if (call_core)
        ddev.h.notify(ctx, m->src, m->imm, m->addr, m->len);
    msg_put(m);
}

/* One event at a time: a handler may progress again (to wait for a free
 * request), and must then see the events behind it, in order. */
static int drain(int ctx, int call_core)
{
    int n = 0;
    struct ddev_ev *ev;
    while ((ev = pop(ctx)) != NULL) {
        run(ctx, ev, call_core);
        n++;
    }
    return n;
}

int ddev_drain_quiet(int ctx)
{
    return ddev.ctx[ctx].open ? drain(ctx, 0) : 0;
}

int ddev_open_ctx(int ctx)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    pthread_condattr_t a;
    if (pthread_condattr_init(&a) != 0)
        return -ENOMEM;
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&c->cond, &a);
    pthread_condattr_destroy(&a);
    if (rc)
        return -rc;
    c->open = 1;
    return 0;
}

void ddev_close_ctx(int ctx)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    if (!c->open)
        return;
    ddev_drain_quiet(ctx);
    ddev_pool_free(ctx);
    pthread_cond_destroy(&c->cond);
    c->open = 0;
}

/* The application thread goes first while it waits for requests of its
 * own. Then, and for a moment after it leaves progress, the helper keeps
 * off the messager: a helper asleep in DCMF's idle wait would take the
 * rank's acknowledgements and hand each one over (two wake-ups per round
 * trip where one does), and a helper woken at every exit of a tight loop
 * would cost one more; its own timed wait brings it back once the rank's
 * thread has stayed away for DDEV_RANK_GRACE_NS. A rank thread that waits
 * with nothing in flight (for other ranks, as in a barrier) leaves the
 * messager to the helper, whose data server then hears requests first.
 * A helper with requests of its own in flight (a server's reply) is not
 * held back by the grace period, only by a rank thread waiting for its
 * turn: a rank thread asleep in DCMF would not run their completions
 * before its nap ends. */
static int rank_waits_for_own(void)
{
    return atomic_load(&ddev.ctx[ADEV_CTX_RANK].inflight) > 0;
}

static int my_turn(int ctx)
{
    if (ctx == ADEV_CTX_RANK)
        return 1;
    if (atomic_load(&ddev.rank_wants))
        return 0;
    if (atomic_load(&ddev.ctx[ctx].inflight) > 0)
        return 1;
    int64_t r = atomic_load(&ddev.rank_until);
    if (r == INT64_MAX)
        return !rank_waits_for_own();
    return ddev_now_ns() >= r;
}

/* Tell a thread waiting on another context that it may advance now. */
static void hand_over(int ctx)
{
    for (int o = 0; o < ADEV_NCTX; o++) {
        struct ddev_ctx *c = &ddev.ctx[o];
        if (o == ctx || !c->open || !atomic_load(&c->waiting) || !my_turn(o))
            continue;
        pthread_mutex_lock(&ddev.qlock);
        pthread_cond_signal(&c->cond);
        pthread_mutex_unlock(&ddev.qlock);
    }
}

/* Wait until ctx has an event, a wake-up, or its turn to advance, or a
 * slice or the deadline has passed. */
static void wait_turn(int ctx, int64_t deadline)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    int64_t now = ddev_now_ns();
    int64_t until = now + DDEV_WAIT_SLICE_NS;
    if (ctx != ADEV_CTX_RANK) {
        int64_t r = atomic_load(&ddev.rank_until);
        if (r == INT64_MAX)
            r = now + DDEV_DEFER_SLICE_NS;
        if (r > now && r < until)
            until = r;
    }
    if (until > deadline)
        until = deadline;
    struct timespec ts = {until / 1000000000, until % 1000000000};
    pthread_mutex_lock(&ddev.qlock);
    atomic_fetch_add(&c->waiting, 1);
    if (!c->head && !atomic_load(&c->wake) && (atomic_load(&ddev.advancing) || !my_turn(ctx)))
        pthread_cond_timedwait(&c->cond, &ddev.qlock, &ts);
    atomic_fetch_sub(&c->waiting, 1);
    pthread_mutex_unlock(&ddev.qlock);
}

static void set_wants(int *wants, int v)
{
    if (*wants == v)
        return;
    *wants = v;
    atomic_store(&ddev.rank_wants, v);
}

static int progress(int ctx, int64_t timeout_ns)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    int n = drain(ctx, 1);
    if (n)
        return n;
    int64_t deadline = timeout_ns > 0 ? ddev_now_ns() + timeout_ns : 0;
    int wants = 0;
    for (;;) {
        int zero = 0;
        unsigned got = 0;
        int advanced = my_turn(ctx) && atomic_compare_exchange_strong(&ddev.advancing, &zero, 1);
        if (advanced) {
            set_wants(&wants, 0);
            /* not inside the critical section: advance takes it itself,
             * and leaves it while it sleeps on the doorbell when idle */
            got = DCMF_Messager_advance();
            atomic_store(&ddev.advancing, 0);
            hand_over(ctx);
        } else if (timeout_ns > 0) {
            if (ctx == ADEV_CTX_RANK && rank_waits_for_own())
                set_wants(&wants, 1);
            wait_turn(ctx, deadline);
        }
        n = drain(ctx, 1);
        if (n || atomic_exchange(&c->wake, 0) || timeout_ns <= 0 || ddev_now_ns() >= deadline) {
            if (wants) {
                set_wants(&wants, 0);
                hand_over(ctx);
            }
            return n;
        }
        if (advanced && !got)
            sched_yield();
    }
}

int ddev_progress(int ctx, int64_t timeout_ns)
{
    /* a handler may progress again: only the outermost call leaves */
    static _Thread_local int depth;
    if (ctx != ADEV_CTX_RANK)
        return progress(ctx, timeout_ns);
    if (depth++ == 0)
        atomic_store(&ddev.rank_until, INT64_MAX);
    int n = progress(ctx, timeout_ns);
    if (--depth == 0)
        atomic_store(&ddev.rank_until, ddev_now_ns() + DDEV_RANK_GRACE_NS);
    return n;
}

void ddev_wakeup(int ctx)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    atomic_store(&c->wake, 1);
    pthread_mutex_lock(&ddev.qlock);
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&ddev.qlock);
    if (atomic_load(&ddev.advancing)) {
        /* ring our own doorbell: an advance asleep in DCMF returns at once
         * (the acknowledgement protocol ignores messages from ourselves) */
        DCMF_Control_t nothing;
        memset(&nothing, 0, sizeof nothing);
        DCMF_CriticalSection_enter(0);
        DCMF_Control(&ddev.ack_p, DCMF_SEQUENTIAL_CONSISTENCY, (size_t)ddev.me, &nothing);
        DCMF_CriticalSection_exit(0);
    }
}
