/* Posting: every operation that needs a completion takes an op record
 * whose address travels as the Portals user_ptr; progress.c retires it
 * when its last expected event arrives. */
#include <errno.h>
#include <stdlib.h>
#include "pdev.h"

struct pdev pdev;

int pdev_rc(int rc)
{
    switch (rc) {
    case PTL_OK: return 0;
    case PTL_ARG_INVALID: return -EINVAL;
    case PTL_NI_SEGV: return -EFAULT;
    default: return -EIO;
    }
}

ptl_process_t pdev_proc(int rank)
{
    ptl_process_t p;
    p.rank = (ptl_rank_t)rank;
    return p;
}

struct pdev_op *pdev_op_get(struct pdev_ctx *c)
{
    if (c->inflight >= PDEV_MAX_INFLIGHT)
        return NULL; /* the core progresses and retries */
    struct pdev_op *op = c->free_ops;
    if (op)
        c->free_ops = op->next;
    else if ((op = malloc(sizeof *op)) != NULL) {
        op->all_next = c->all_ops;
        c->all_ops = op;
    } else {
        return NULL;
    }
    op->local = op->remote = NULL;
    op->events = 0;
    op->status = 0;
    op->next = NULL;
    c->inflight++;
    return op;
}

void pdev_op_put(struct pdev_ctx *c, struct pdev_op *op)
{
    op->next = c->free_ops;
    c->free_ops = op;
    c->inflight--;
}

/* Completed at posting time: its callback still runs from progress, never
 * inside the posting call, so the core need not be re-entrant. */
void pdev_op_ready(struct pdev_ctx *c, struct pdev_op *op)
{
    op->next = NULL;
    if (c->ready_tail)
        c->ready_tail->next = op;
    else
        c->ready = op;
    c->ready_tail = op;
}

static uint64_t addr(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static int put_to(int ctx, int proc, ptl_pt_index_t pt, const void *src, void *dst,
                  size_t len, uint64_t imm, struct adev_cmpl *local,
                  struct adev_cmpl *remote)
{
    struct pdev_ctx *c = &pdev.ctx[ctx];
    if (len <= pdev.limits.max_volatile_size) {
        /* the payload travels in the command: locally complete on return;
         * an ACK, when wanted, is the only event (SEND is off on md_acked) */
        struct pdev_op *lop = NULL, *rop = NULL;
        if (local && !(lop = pdev_op_get(c)))
            return -ENOMEM;
        if (remote && !(rop = pdev_op_get(c))) {
            if (lop)
                pdev_op_put(c, lop);
            return -ENOMEM;
        }
        if (rop) {
            rop->remote = remote;
            rop->events = 1;
        }
        int rc = PtlPut(remote ? c->md_acked : c->md_quiet, addr(src), len,
                        remote ? PTL_ACK_REQ : PTL_NO_ACK_REQ, pdev_proc(proc), pt, 0, addr(dst),
                        rop, imm);
        if (rc != PTL_OK) {
            if (lop)
                pdev_op_put(c, lop);
            if (rop)
                pdev_op_put(c, rop);
            return pdev_rc(rc);
        }
        if (lop) {
            lop->local = local;
            pdev_op_ready(c, lop);
        }
        return 0;
    }
    struct pdev_op *op = pdev_op_get(c);
    if (!op)
        return -ENOMEM;
    op->local = local;
    op->remote = remote;
    op->events = 1 + (remote != NULL); /* SEND, then ACK */
    int rc = PtlPut(c->md, addr(src), len, remote ? PTL_ACK_REQ : PTL_NO_ACK_REQ,
                    pdev_proc(proc), pt, 0, addr(dst), op, imm);
    if (rc != PTL_OK)
        pdev_op_put(c, op);
    return pdev_rc(rc);
}

static int dev_put(int ctx, int proc, const void *src, void *dst, size_t len,
                   struct adev_cmpl *local, struct adev_cmpl *remote)
{
    return put_to(ctx, proc, PDEV_PT_DATA, src, dst, len, 0, local, remote);
}

static int dev_put_notify(int ctx, int proc, int chan, const void *src, void *dst,
                          size_t len, uint64_t imm, struct adev_cmpl *local)
{
    return put_to(ctx, proc, (ptl_pt_index_t)(PDEV_PT_NOTIFY + chan), src, dst, len, imm,
                  local, NULL);
}

static int dev_get(int ctx, int proc, const void *src, void *dst, size_t len,
                   struct adev_cmpl *done)
{
    struct pdev_ctx *c = &pdev.ctx[ctx];
    struct pdev_op *op = pdev_op_get(c);
    if (!op)
        return -ENOMEM;
    op->local = done;
    op->events = 1; /* REPLY */
    int rc = PtlGet(c->md, addr(dst), len, pdev_proc(proc), PDEV_PT_DATA, 0, addr(src), op);
    if (rc != PTL_OK)
        pdev_op_put(c, op);
    return pdev_rc(rc);
}

static int dev_send_small(int ctx, int proc, int chan, const void *buf, size_t len)
{
    if (len > pdev.limits.max_volatile_size)
        return -EMSGSIZE;
    return pdev_rc(PtlPut(pdev.ctx[ctx].md_quiet, addr(buf), len, PTL_NO_ACK_REQ,
                          pdev_proc(proc), (ptl_pt_index_t)(PDEV_PT_SMALL + chan), 0, 0,
                          NULL, 0));
}

static const ptl_datatype_t ptl_type[] = {
    [ADEV_INT32] = PTL_INT32_T, [ADEV_INT64] = PTL_INT64_T, [ADEV_FLOAT] = PTL_FLOAT,
    [ADEV_DOUBLE] = PTL_DOUBLE, [ADEV_FCOMPLEX] = PTL_FLOAT_COMPLEX,
    [ADEV_DCOMPLEX] = PTL_DOUBLE_COMPLEX,
};
static const size_t type_size[] = {
    [ADEV_INT32] = 4, [ADEV_INT64] = 8, [ADEV_FLOAT] = 4,
    [ADEV_DOUBLE] = 8, [ADEV_FCOMPLEX] = 8, [ADEV_DCOMPLEX] = 16,
};

static int dev_amo(int ctx, int proc, int aop, int type, void *dst, const void *operand,
                   size_t len, void *fetch, struct adev_cmpl *done)
{
    if (type < ADEV_INT32 || type > ADEV_DCOMPLEX)
        return -EINVAL;
    struct pdev_ctx *c = &pdev.ctx[ctx];
    struct pdev_op *op = pdev_op_get(c);
    if (!op)
        return -ENOMEM;
    op->local = done;
    op->events = 1;
    int rc;
    if (aop == ADEV_AMO_SUM && !fetch) {
        /* SEND: the NIC has the operand (for long ones, the target applied it) */
        rc = PtlAtomic(c->md, addr(operand), len, PTL_NO_ACK_REQ, pdev_proc(proc), PDEV_PT_DATA,
                       0, addr(dst), op, 0, PTL_SUM, ptl_type[type]);
    } else {
        ptl_op_t pop = aop == ADEV_AMO_SWAP ? PTL_SWAP : PTL_SUM;
        size_t n = aop == ADEV_AMO_SUM ? len : type_size[type];
        /* operand through the quiet MD, so only the REPLY raises an event */
        if (pop == PTL_SWAP)
            rc = PtlSwap(c->md, addr(fetch), c->md_quiet, addr(operand), n, pdev_proc(proc),
                         PDEV_PT_DATA, 0, addr(dst), op, 0, NULL, PTL_SWAP, ptl_type[type]);
        else
            rc = PtlFetchAtomic(c->md, addr(fetch), c->md_quiet, addr(operand), n,
                                pdev_proc(proc), PDEV_PT_DATA, 0, addr(dst), op, 0, pop,
                                ptl_type[type]);
    }
    if (rc != PTL_OK)
        pdev_op_put(c, op);
    return pdev_rc(rc);
}

int pdev_init(struct adev_job *job, const struct adev_handlers *h, int helper);
void pdev_finalize(void);

const struct armci_device armcii_dev_portals = {
    .name = "portals",
    .caps = ADEV_CAP_AMO | ADEV_CAP_ORDERED,
    .small_max = 144,
    .init = pdev_init,
    .finalize = pdev_finalize,
    /* no mem_register: every address is reachable through PT_DATA */
    .put = dev_put,
    .get = dev_get,
    .put_notify = dev_put_notify,
    .send_small = dev_send_small,
    .amo = dev_amo,
    .progress = pdev_progress,
    .wakeup = pdev_wakeup,
};
