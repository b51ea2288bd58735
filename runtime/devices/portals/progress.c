/* A context's event queue: retiring operations, delivering notified puts
 * and short messages, and re-posting short-message buffers as they fill. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pdev.h"

static ptl_me_t span_me(unsigned options)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = NULL;
    me.length = PTL_SIZE_MAX;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT | options;
    me.match_id.rank = PTL_RANK_ANY;
    me.ignore_bits = ~(ptl_match_bits_t)0;
    return me;
}

/* A receive buffer whose local offset advances with each message; the NIC
 * unlinks it when fewer than small_max bytes are left. */
static int post_rbuf(struct pdev_ctx *c, int ctx, int i)
{
    ptl_me_t me = span_me(PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_LINK_DISABLE |
                          PTL_ME_UNEXPECTED_HDR_DISABLE);
    me.start = c->rbuf[i];
    me.length = PDEV_RBUF_SIZE;
    me.min_free = pdev.limits.max_volatile_size;
    return PtlMEAppend(pdev.ni, (ptl_pt_index_t)(PDEV_PT_SMALL + ctx), &me, PTL_PRIORITY_LIST,
                       (void *)(intptr_t)i, &c->me_small[i]);
}

static int pt_alloc(ptl_handle_eq_t eq, ptl_pt_index_t want)
{
    ptl_pt_index_t got;
    int rc = PtlPTAlloc(pdev.ni, 0, eq, want, &got);
    return rc == PTL_OK && got != want ? PTL_FAIL : rc;
}

int pdev_open_ctx(int ctx)
{
    struct pdev_ctx *c = &pdev.ctx[ctx];
    int rc = PtlEQAlloc(pdev.ni, PDEV_EQ_SIZE, &c->eq);
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = 0,
                   .eq_handle = c->eq, .ct_handle = PTL_CT_NONE};
    if (rc == PTL_OK)
        rc = PtlMDBind(pdev.ni, &md, &c->md);
    md.options = PTL_MD_VOLATILE | PTL_MD_EVENT_SUCCESS_DISABLE;
    if (rc == PTL_OK)
        rc = PtlMDBind(pdev.ni, &md, &c->md_quiet);
    md.options = PTL_MD_VOLATILE | PTL_MD_EVENT_SEND_DISABLE;
    if (rc == PTL_OK)
        rc = PtlMDBind(pdev.ni, &md, &c->md_acked);
    if (rc == PTL_OK)
        rc = pt_alloc(c->eq, (ptl_pt_index_t)(PDEV_PT_NOTIFY + ctx));
    if (rc == PTL_OK) {
        ptl_me_t me = span_me(PTL_ME_EVENT_LINK_DISABLE | PTL_ME_UNEXPECTED_HDR_DISABLE);
        rc = PtlMEAppend(pdev.ni, (ptl_pt_index_t)(PDEV_PT_NOTIFY + ctx), &me, PTL_PRIORITY_LIST,
                         NULL, &c->me_notify);
    }
    if (rc == PTL_OK)
        rc = pt_alloc(c->eq, (ptl_pt_index_t)(PDEV_PT_SMALL + ctx));
    for (int i = 0; rc == PTL_OK && i < PDEV_RBUF_COUNT; i++) {
        if (!(c->rbuf[i] = pdev.alloc(PDEV_RBUF_SIZE)))
            return -ENOMEM;
        rc = post_rbuf(c, ctx, i);
    }
    if (rc != PTL_OK) {
        fprintf(stderr, "armci portals device: setting up context %d failed (Portals error %d)\n",
                ctx, rc);
        return pdev_rc(rc);
    }
    c->open = 1;
    return 0;
}

void pdev_close_ctx(int ctx)
{
    struct pdev_ctx *c = &pdev.ctx[ctx];
    if (!c->open)
        return;
    for (int i = 0; i < PDEV_RBUF_COUNT; i++) {
        PtlMEUnlink(c->me_small[i]); /* may already be auto-unlinked */
        pdev.release(c->rbuf[i]);
    }
    PtlMEUnlink(c->me_notify);
    PtlPTFree(pdev.ni, (ptl_pt_index_t)(PDEV_PT_SMALL + ctx));
    PtlPTFree(pdev.ni, (ptl_pt_index_t)(PDEV_PT_NOTIFY + ctx));
    PtlMDRelease(c->md_quiet);
    PtlMDRelease(c->md_acked);
    PtlMDRelease(c->md);
    PtlEQFree(c->eq);
    /* ops still in flight or on the ready list are freed with the rest */
    while (c->all_ops) {
        struct pdev_op *n = c->all_ops->all_next;
        free(c->all_ops);
        c->all_ops = n;
    }
    c->free_ops = c->ready = c->ready_tail = NULL;
    c->open = 0;
}

static void retire(struct pdev_ctx *c, struct pdev_op *op)
{
    if (op->local)
        op->local->fn(op->local, op->status);
    if (op->remote)
        op->remote->fn(op->remote, op->status);
    pdev_op_put(c, op);
}

static void on_event(int ctx, struct pdev_ctx *c, const ptl_event_t *ev)
{
    switch (ev->type) {
    case PTL_EVENT_SEND:
    case PTL_EVENT_ACK:
    case PTL_EVENT_REPLY: {
        struct pdev_op *op = ev->user_ptr;
        if (!op) {
            /* only failures are reported on the quiet MD */
            fprintf(stderr, "armci portals device: rank %d: a short message to rank %u failed "
                    "(ni_fail_type %d)\n", pdev.me, ev->initiator.rank, ev->ni_fail_type);
            return;
        }
        if (ev->ni_fail_type != PTL_NI_OK && !op->status)
            op->status = -EIO;
        if (ev->type == PTL_EVENT_SEND && op->local && op->remote) {
            /* put with ack: the source is free now, the data lands later */
            op->local->fn(op->local, op->status);
            op->local = NULL;
        }
        if (--op->events == 0)
            retire(c, op);
        return;
    }
    case PTL_EVENT_PUT:
        if (ev->pt_index == (ptl_pt_index_t)(PDEV_PT_SMALL + ctx)) {
            if (ev->hdr_data != PDEV_HDR_WAKE)
                pdev.h.small(ctx, (int)ev->initiator.rank, ev->start, ev->mlength);
        } else {
            pdev.h.notify(ctx, (int)ev->initiator.rank, ev->hdr_data, ev->start, ev->mlength);
        }
        return;
    case PTL_EVENT_AUTO_UNLINK: {
        /* every message in the buffer has been handled: post it again */
        int i = (int)(intptr_t)ev->user_ptr;
        int rc = post_rbuf(c, ctx, i);
        if (rc != PTL_OK)
            fprintf(stderr, "armci portals device: re-posting a receive buffer failed (%d)\n", rc);
        return;
    }
    case PTL_EVENT_PT_DISABLED:
        fprintf(stderr, "armci portals device: rank %d: portal %u disabled (receive buffers "
                "or event queue full)\n", pdev.me, ev->pt_index);
        return;
    default:
        return;
    }
}

int pdev_progress(int ctx, int64_t timeout_ns)
{
    struct pdev_ctx *c = &pdev.ctx[ctx];
    int n = 0;
    while (c->ready) {
        struct pdev_op *op = c->ready;
        c->ready = op->next;
        if (!c->ready)
            c->ready_tail = NULL;
        retire(c, op);
        n++;
    }
    ptl_event_t ev;
    for (;;) {
        int rc = PtlEQGet(c->eq, &ev);
        if (rc == PTL_EQ_EMPTY)
            break;
        if (rc == PTL_EQ_DROPPED)
            fprintf(stderr, "armci portals device: rank %d: events were dropped\n", pdev.me);
        else if (rc != PTL_OK)
            return pdev_rc(rc);
        on_event(ctx, c, &ev);
        n++;
    }
    if (n || timeout_ns <= 0)
        return n;
    unsigned which;
    ptl_time_t ms = (ptl_time_t)((timeout_ns + 999999) / 1000000);
    int rc = PtlEQPoll(&c->eq, 1, ms, &ev, &which);
    if (rc == PTL_EQ_EMPTY)
        return 0;
    if (rc != PTL_OK && rc != PTL_EQ_DROPPED)
        return pdev_rc(rc);
    on_event(ctx, c, &ev);
    return 1;
}

void pdev_wakeup(int ctx)
{
    static const char nothing[1];
    PtlPut(pdev.ctx[ctx].md_quiet, (ptl_size_t)(uintptr_t)nothing, 0, PTL_NO_ACK_REQ,
           pdev_proc(pdev.me), (ptl_pt_index_t)(PDEV_PT_SMALL + ctx), 0, 0, NULL,
           PDEV_HDR_WAKE);
}
