/* Atomics. emunic's PAMI_Rmw is executed whole by the target node's NIC
 * (as BG/Q's L2 atomics through the messaging unit), but only on one
 * integer element (PAMI_TYPE_[UN]SIGNED_INT / _LONG_LONG). The core may
 * ask amo() for ADEV_AMO_SUM of floats, doubles, complex numbers and of
 * runs of up to 64 KiB, which PAMI_Rmw cannot do, so the device does not
 * claim ADEV_CAP_AMO: accumulates and ARMCI_Rmw go to the core's data
 * server (target-driven, as in [BGQ-PAMI]), and amo() is only called for
 * memory no server reaches (private memory of a rank that is not its own
 * server). Then:
 *  - FADD and SWAP of INT32 / INT64 (ARMCI_Rmw): PAMI_Rmw, no target CPU;
 *  - SUM (ARMCI_Acc): an active message applied by the target rank in its
 *    own progress, answering with a status (the paper's AM protocol).
 * Both complete once applied at the target, so a fence needs nothing
 * more. The two never touch the same data through different paths in the
 * core's use (sums are accumulates, FADD/SWAP are RMW). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "padev.h"

static const size_t type_size[] = {
    [ADEV_INT32] = 4, [ADEV_INT64] = 8, [ADEV_FLOAT] = 4,
    [ADEV_DOUBLE] = 8, [ADEV_FCOMPLEX] = 8, [ADEV_DCOMPLEX] = 16,
};

struct padev_amoreq {
    uint64_t cookie, dst;
    uint32_t op, type;
};

struct padev_amorep {
    uint64_t cookie;
    int32_t status, pad;
};

static int by_rmw(int ctx, int proc, int aop, int type, void *dst, const void *operand,
                  void *fetch, struct adev_cmpl *done)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_op *op = padev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    size_t n = type_size[type];
    op->local = done;
    op->fetch = fetch;
    op->fetch_len = fetch ? n : 0;
    /* the operand is copied: PAMI reads it while posting, but keep it
     * with the operation so that nothing depends on that */
    char value[8];
    memcpy(value, operand, n);
    pami_rmw_t p;
    memset(&p, 0, sizeof p);
    p.dest = padev_ep(ctx, proc, 0);
    p.cookie = op;
    p.done_fn = padev_cb_local;
    p.local = op->buf;
    p.remote = dst;
    p.value = value;
    p.operation = aop == ADEV_AMO_SWAP ? PAMI_ATOMIC_FETCH_SET : PAMI_ATOMIC_FETCH_ADD;
    p.type = type == ADEV_INT32 ? PAMI_TYPE_SIGNED_INT : PAMI_TYPE_SIGNED_LONG_LONG;
    pami_result_t r = PAMI_Rmw(c->pc, &p);
    if (r != PAMI_SUCCESS) {
        padev_op_put(ctx, op);
        return padev_status(r);
    }
    c->n_rmw++;
    return 0;
}

int padev_amo(int ctx, int proc, int aop, int type, void *dst, const void *operand, size_t len,
              void *fetch, struct adev_cmpl *done)
{
    if (proc < 0 || proc >= padev.nproc || !dst || !operand || type < ADEV_INT32 ||
        type > ADEV_DCOMPLEX || aop < ADEV_AMO_SUM || aop > ADEV_AMO_SWAP)
        return -EINVAL;
    if (aop != ADEV_AMO_SUM) {
        if (type != ADEV_INT32 && type != ADEV_INT64)
            return -EINVAL;
        return by_rmw(ctx, proc, aop, type, dst, operand, fetch, done);
    }
    if (!len || len % type_size[type])
        return -EINVAL;
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_op *op = padev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    /* the send's local completion, then the target's answer */
    op->pending = 2;
    op->remote = done;
    struct padev_amoreq q = {(uint64_t)(uintptr_t)op, (uint64_t)(uintptr_t)dst, (uint32_t)aop,
                             (uint32_t)type};
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.header.iov_base = &q;
    s.send.header.iov_len = sizeof q;
    s.send.data.iov_base = (void *)(uintptr_t)operand;
    s.send.data.iov_len = len;
    s.send.dispatch = PADEV_D_AMO;
    s.send.dest = padev_ep(ctx, proc, ADEV_CTX_RANK);
    s.events.cookie = op;
    s.events.local_fn = padev_cb_local;
    pami_result_t r = PAMI_Send(c->pc, &s);
    if (r != PAMI_SUCCESS) {
        padev_op_put(ctx, op);
        return padev_status(r);
    }
    c->n_amo_am++;
    return 0;
}

#define ADD(T)                                                                                 \
    for (size_t i = 0; i + sizeof(T) <= len; i += sizeof(T)) {                                 \
        T a, b;                                                                                \
        memcpy(&a, dst + i, sizeof a);                                                         \
        memcpy(&b, src + i, sizeof b);                                                         \
        a += b;                                                                                \
        memcpy(dst + i, &a, sizeof a);                                                         \
    }

/* Integer sums wrap, as a network's would. */
static void add(int type, char *dst, const char *src, size_t len)
{
    switch (type) {
    case ADEV_INT32: ADD(uint32_t) break;
    case ADEV_INT64: ADD(uint64_t) break;
    case ADEV_FLOAT:
    case ADEV_FCOMPLEX: ADD(float) break;
    default: ADD(double) break;
    }
}

/* At the target, on ADEV_CTX_RANK: only the rank's own thread advances it,
 * and it owns the memory. Applied inside the callback (no core code runs). */
void padev_on_amo(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                  const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)cookie, (void)recv;
    struct padev_amoreq q;
    if (hlen != sizeof q)
        return;
    memcpy(&q, hdr, sizeof q);
    struct padev_amorep a = {q.cookie, 0, 0};
    if (q.op != ADEV_AMO_SUM || q.type > ADEV_DCOMPLEX || !len || len % type_size[q.type] ||
        !q.dst || !pipe)
        a.status = -EINVAL;
    else
        add((int)q.type, (char *)(uintptr_t)q.dst, pipe, len);
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.header.iov_base = &a;
    s.header.iov_len = sizeof a;
    s.dispatch = PADEV_D_AMODONE;
    s.dest = origin;
    if (PAMI_Send_immediate(pc, &s) != PAMI_SUCCESS)
        fprintf(stderr, "armci pami device: rank %d: answering an atomic failed\n", padev.me);
}

void padev_on_amodone(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                      const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pc, (void)pipe, (void)len, (void)origin, (void)recv;
    struct padev_amorep a;
    if (hlen != sizeof a)
        return;
    memcpy(&a, hdr, sizeof a);
    struct padev_op *op = (struct padev_op *)(uintptr_t)a.cookie;
    int ctx = (int)(intptr_t)cookie;
    if (!op || op->ctx != ctx)
        return;
    op->remote_ev.status = a.status;
    padev_push(ctx, &op->remote_ev);
}
