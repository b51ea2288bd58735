/* Per-context event queues, operation and message pools, the arrivals of
 * short messages and notices, progress and wakeup. Everything here except
 * padev_wakeup runs in the thread that drives the context. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "padev.h"

#define PADEV_OPS_MAX 16384 /* operations in flight per context: then -ENOMEM */

int64_t padev_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int padev_status(pami_result_t r)
{
    switch (r) {
    case PAMI_SUCCESS: return 0;
    case PAMI_EAGAIN:
    case PAMI_ENOMEM: return -ENOMEM;
    case PAMI_INVAL: return -EINVAL;
    default: return -EIO;
    }
}

void padev_push(int ctx, struct padev_ev *ev)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    ev->next = NULL;
    if (c->tail)
        c->tail->next = ev;
    else
        c->head = ev;
    c->tail = ev;
}

static struct padev_ev *pop(int ctx)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_ev *ev = c->head;
    if (ev) {
        c->head = ev->next;
        if (!c->head)
            c->tail = NULL;
    }
    return ev;
}

struct padev_op *padev_op_get(int ctx)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    if (c->inflight >= PADEV_OPS_MAX)
        return NULL;
    struct padev_op *op = c->free_ops;
    if (op)
        c->free_ops = op->next_free;
    else if (!(op = malloc(sizeof *op)))
        return NULL;
    memset(op, 0, offsetof(struct padev_op, buf));
    op->ctx = ctx;
    op->pending = 1;
    op->local_ev.kind = PADEV_EV_LOCAL;
    op->remote_ev.kind = PADEV_EV_REMOTE;
    c->inflight++;
    return op;
}

void padev_op_put(int ctx, struct padev_op *op)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    op->next_free = c->free_ops;
    c->free_ops = op;
    c->inflight--;
}

struct padev_msg *padev_msg_get(int ctx)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_msg *m = c->free_msgs;
    if (m)
        c->free_msgs = m->next_free;
    else
        m = malloc(sizeof *m);
    return m;
}

void padev_msg_put(int ctx, struct padev_msg *m)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    m->next_free = c->free_msgs;
    c->free_msgs = m;
}

void padev_ctx_free(int ctx)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    while (c->free_ops) {
        struct padev_op *n = c->free_ops->next_free;
        free(c->free_ops);
        c->free_ops = n;
    }
    while (c->free_msgs) {
        struct padev_msg *n = c->free_msgs->next_free;
        free(c->free_msgs);
        c->free_msgs = n;
    }
}

/* ---- PAMI callbacks: queue and return ---- */

void padev_cb_local(pami_context_t pc, void *cookie, pami_result_t r)
{
    (void)pc;
    struct padev_op *op = cookie;
    op->local_ev.status = r == PAMI_SUCCESS ? 0 : -EIO;
    padev_push(op->ctx, &op->local_ev);
}

void padev_cb_remote(pami_context_t pc, void *cookie, pami_result_t r)
{
    (void)pc;
    struct padev_op *op = cookie;
    op->remote_ev.status = r == PAMI_SUCCESS ? 0 : -EIO;
    padev_push(op->ctx, &op->remote_ev);
}

/* One PAMI event for both (a fence standing for a 0-byte put). */
void padev_cb_both(pami_context_t pc, void *cookie, pami_result_t r)
{
    padev_cb_local(pc, cookie, r);
    padev_cb_remote(pc, cookie, r);
}

static int ctx_of_cookie(void *cookie)
{
    return (int)(intptr_t)cookie;
}

static int rank_of(pami_endpoint_t ep)
{
    pami_task_t t = 0;
    size_t off = 0;
    if (PAMI_Endpoint_query(ep, &t, &off) != PAMI_SUCCESS)
        return -1;
    return (int)t;
}

static struct padev_msg *arrival(int ctx, int src, size_t len, const char *what)
{
    struct padev_msg *m = NULL;
    if (src < 0 || src >= padev.nproc || len > PADEV_SMALL_MAX || !(m = padev_msg_get(ctx))) {
        fprintf(stderr, "armci pami device: rank %d: %s from rank %d (%zu bytes) dropped\n",
                padev.me, what, src, len);
        return NULL;
    }
    m->src = src;
    m->len = len;
    m->imm = 0;
    m->addr = NULL;
    return m;
}

/* send_small: header {chan, kind}; delivered on the context it came to. */
static void on_small(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                     const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pc, (void)hdr, (void)hlen, (void)recv;
    int ctx = ctx_of_cookie(cookie);
    struct padev_msg *m = arrival(ctx, rank_of(origin), len, "a short message");
    if (!m)
        return;
    if (len)
        memcpy(m->data, pipe, len);
    m->ev.kind = PADEV_EV_SMALL;
    padev_push(ctx, &m->ev);
}

static void on_notice(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                      const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pc, (void)pipe, (void)len, (void)recv;
    int ctx = ctx_of_cookie(cookie);
    struct padev_notice n;
    if (hlen != sizeof n) {
        fprintf(stderr, "armci pami device: rank %d: a %zu-byte put notice dropped\n", padev.me,
                hlen);
        return;
    }
    memcpy(&n, hdr, sizeof n);
    struct padev_msg *m = arrival(ctx, rank_of(origin), 0, "a put notice");
    if (!m)
        return;
    m->imm = n.imm;
    m->addr = (void *)(uintptr_t)n.addr;
    m->len = (size_t)n.len;
    m->ev.kind = PADEV_EV_NOTIFY;
    padev_push(ctx, &m->ev);
}

static void on_hello(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                     const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pc, (void)cookie, (void)pipe, (void)len, (void)recv;
    int src = rank_of(origin);
    uint32_t first;
    if (hlen != sizeof first || src < 0 || src >= padev.nproc || padev.first_of[src] >= 0)
        return;
    memcpy(&first, hdr, sizeof first);
    padev.first_of[src] = (int)first;
    padev.nhello++;
}

static void on_bye(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                   const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pc, (void)cookie, (void)hdr, (void)hlen, (void)pipe, (void)len, (void)origin,
        (void)recv;
    padev.nbye++;
}

int padev_register_dispatch(int ctx)
{
    static const struct {
        size_t id;
        pami_dispatch_p2p_function fn;
    } table[] = {
        {PADEV_D_SMALL, on_small},     {PADEV_D_NOTICE, on_notice},
        {PADEV_D_MRREQ, padev_on_mrreq}, {PADEV_D_MRREP, padev_on_mrrep},
        {PADEV_D_AMO, padev_on_amo},   {PADEV_D_AMODONE, padev_on_amodone},
        {PADEV_D_HELLO, on_hello},     {PADEV_D_BYE, on_bye},
    };
    pami_dispatch_hint_t hint;
    memset(&hint, 0, sizeof hint);
    /* the data always comes with the call (the library pulls long payloads
     * first): the handlers copy it out and return */
    hint.recv_immediate = PAMI_HINT_ENABLE;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        pami_dispatch_callback_function f;
        f.p2p = table[i].fn;
        if (PAMI_Dispatch_set(padev.ctx[ctx].pc, table[i].id, f, (void *)(intptr_t)ctx, hint) !=
            PAMI_SUCCESS)
            return -EIO;
    }
    return 0;
}

/* ---- running the queue ---- */

static struct padev_op *op_of(struct padev_ev *ev)
{
    size_t off = ev->kind == PADEV_EV_LOCAL ? offsetof(struct padev_op, local_ev)
                                            : offsetof(struct padev_op, remote_ev);
    return (struct padev_op *)(void *)((char *)ev - off);
}

static void run(int ctx, struct padev_ev *ev, int call_core)
{
    if (ev->kind == PADEV_EV_LOCAL || ev->kind == PADEV_EV_REMOTE) {
        struct padev_op *op = op_of(ev);
        struct adev_cmpl *cmpl = ev->kind == PADEV_EV_LOCAL ? op->local : op->remote;
        int status = ev->status;
        if (ev->kind == PADEV_EV_LOCAL && op->fetch && !status)
            memcpy(op->fetch, op->buf, op->fetch_len);
        /* the operation is free before the core runs: it may post again */
        if (--op->pending == 0)
            padev_op_put(ctx, op);
        if (cmpl && call_core)
            cmpl->fn(cmpl, status);
        return;
    }
    struct padev_msg *m = (struct padev_msg *)ev;
    if (call_core && ev->kind == PADEV_EV_SMALL)
        padev.h.small(ctx, m->src, m->data, m->len);
    else if (call_core)
        padev.h.notify(ctx, m->src, m->imm, m->addr, m->len);
    padev_msg_put(ctx, m);
}

/* One event at a time: a handler may progress again and must then see
 * the events behind it, in order. */
int padev_drain(int ctx, int call_core)
{
    int n = 0;
    struct padev_ev *ev;
    while ((ev = pop(ctx)) != NULL) {
        run(ctx, ev, call_core);
        n++;
    }
    return n;
}

/* PAMI_Context_advance polls, and after a quiet spell sleeps on the
 * rank's doorbell (up to EMUNIC_PAMI_IDLE_SLEEP_US, 1 ms by default) until
 * something arrives for the context, a work item is posted to it
 * (padev_wakeup), or the sleep ends. */
int padev_progress(int ctx, int64_t timeout_ns)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    if (!c->open)
        return 0;
    int n = padev_drain(ctx, 1);
    if (n)
        return n;
    int64_t deadline = timeout_ns > 0 ? padev_now_ns() + timeout_ns : 0;
    for (;;) {
        pami_result_t r = PAMI_Context_advance(c->pc, 1);
        if (r != PAMI_SUCCESS && r != PAMI_EAGAIN)
            return -EIO;
        n = padev_drain(ctx, 1);
        if (n || atomic_exchange(&c->wake, 0) || timeout_ns <= 0 || padev_now_ns() >= deadline)
            return n;
    }
}

/* The work item only rings the context: its advance returns. */
static pami_result_t wake_fn(pami_context_t pc, void *cookie)
{
    (void)pc;
    struct padev_ctx *c = cookie;
    atomic_store(&c->posted, 0);
    return PAMI_SUCCESS;
}

void padev_wakeup(int ctx)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    if (!c->open)
        return;
    atomic_store(&c->wake, 1);
    /* one item in the queue at a time: its storage is c->work */
    if (!atomic_exchange(&c->posted, 1) &&
        PAMI_Context_post(c->pc, &c->work, wake_fn, c) != PAMI_SUCCESS)
        atomic_store(&c->posted, 0);
}
