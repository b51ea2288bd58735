/* Atomics without network atomics. DCMF has none, so caps has no
 * ADEV_CAP_AMO and the core sends accumulates and RMW to its data server;
 * it still calls amo() for memory no server can reach (the private memory
 * of a rank that is not its own server). Then, as OSPRI does all of them,
 * the operation is a send whose handler runs on the target: in the target
 * rank's own progress, on its memory, replying with the old value behind a
 * status. Completion means the target has applied it (a fence then needs
 * nothing more), and it waits for the target to progress. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ddev.h"

static const size_t type_size[] = {
    [ADEV_INT32] = 4, [ADEV_INT64] = 8, [ADEV_FLOAT] = 4,
    [ADEV_DOUBLE] = 8, [ADEV_FCOMPLEX] = 8, [ADEV_DCOMPLEX] = 16,
};

/* A request at the target, until its handler has run. */
struct amo_rx {
    DCMF_Request_t req; /* the long path's receive */
    struct ddev_ev ev;
    int src, op, type;
    uint64_t cookie;
    char *dst;
    size_t len;
    int fetch;
    char data[]; /* the operand */
};

static struct amo_rx *rx_of(struct ddev_ev *ev)
{
    return (struct amo_rx *)(void *)((char *)ev - offsetof(struct amo_rx, ev));
}

static uint64_t u64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)lo | (uint64_t)hi << 32;
}

int ddev_amo(int ctx, int proc, int aop, int type, void *dst, const void *operand, size_t len,
             void *fetch, struct adev_cmpl *done)
{
    if (type < ADEV_INT32 || type > ADEV_DCOMPLEX || aop < ADEV_AMO_SUM || aop > ADEV_AMO_SWAP ||
        (aop == ADEV_AMO_SWAP && type != ADEV_INT32 && type != ADEV_INT64))
        return -EINVAL;
    size_t n = aop == ADEV_AMO_SUM ? len : type_size[type];
    if (!n || n % type_size[type] || (fetch && n > DDEV_SMALL_MAX))
        return -EINVAL;
    struct ddev_op *op = ddev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    /* pending: the send's own completion, then the target's reply */
    op->pending = 2;
    op->remote = done;
    op->fetch = fetch;
    op->fetch_len = fetch ? n : 0;
    uint64_t cookie = (uint64_t)(uintptr_t)op, d = (uint64_t)(uintptr_t)dst;
    DCQuad mi[2] = {{(uint32_t)aop, (uint32_t)type, (uint32_t)cookie, (uint32_t)(cookie >> 32)},
                    {(uint32_t)d, (uint32_t)(d >> 32), fetch != NULL, 0}};
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Send(&ddev.amo_p, &op->req, (DCMF_Callback_t){ddev_cb_done, op},
                               DCMF_SEQUENTIAL_CONSISTENCY, (size_t)proc, n, (char *)operand,
                               mi, 2);
    DCMF_CriticalSection_exit(0);
    if (rc != DCMF_SUCCESS) {
        ddev_op_put(ctx, op);
        return -EIO;
    }
    return 0;
}

/* ---- at the target ---- */

static struct amo_rx *rx_new(const DCQuad *mi, unsigned count, size_t peer, size_t bytes)
{
    if (count < 2)
        return NULL;
    struct amo_rx *rx = aligned_alloc(16, (sizeof *rx + bytes + 15) & ~(size_t)15);
    if (!rx)
        return NULL;
    rx->ev.kind = DDEV_EV_AMO;
    rx->ev.status = 0;
    rx->src = (int)peer;
    rx->op = (int)mi[0].w0;
    rx->type = (int)mi[0].w1;
    rx->cookie = u64(mi[0].w2, mi[0].w3);
    rx->dst = (char *)(uintptr_t)u64(mi[1].w0, mi[1].w1);
    rx->fetch = mi[1].w2 != 0;
    rx->len = bytes;
    return rx;
}

/* Always on the rank's own context: only its process holds the memory. */
void ddev_on_amo(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                 size_t bytes)
{
    (void)cd;
    struct amo_rx *rx = rx_new(mi, count, peer, bytes);
    if (!rx)
        return;
    memcpy(rx->data, src, bytes);
    ddev_push(ADEV_CTX_RANK, &rx->ev);
}

static void rx_arrived(void *cd, DCMF_Error_t *e)
{
    struct amo_rx *rx = cd;
    if (e)
        rx->ev.status = -EIO;
    ddev_push(ADEV_CTX_RANK, &rx->ev);
}

DCMF_Request_t *ddev_on_amo_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                                 size_t sndlen, size_t *rcvlen, char **rcvbuf,
                                 DCMF_Callback_t *cb_done)
{
    (void)cd;
    struct amo_rx *rx = rx_new(mi, count, peer, sndlen);
    if (!rx)
        return NULL; /* DCMF drops it, saying so */
    *rcvlen = sndlen;
    *rcvbuf = rx->data;
    cb_done->function = rx_arrived;
    cb_done->clientdata = rx;
    return &rx->req;
}

#define ADD(T)                                                                                 \
    for (size_t i = 0; i + sizeof(T) <= len; i += sizeof(T)) {                                 \
        T a, b;                                                                                \
        memcpy(&a, dst + i, sizeof a);                                                         \
        memcpy(&b, operand + i, sizeof b);                                                     \
        a += b;                                                                                \
        memcpy(dst + i, &a, sizeof a);                                                         \
    }

/* Integer sums wrap, as the network's would. */
static void apply(int aop, int type, char *dst, const char *operand, size_t len)
{
    if (aop == ADEV_AMO_SWAP) {
        memcpy(dst, operand, len);
        return;
    }
    switch (type) {
    case ADEV_INT32: ADD(uint32_t) break;
    case ADEV_INT64: ADD(uint64_t) break;
    case ADEV_FLOAT:
    case ADEV_FCOMPLEX: ADD(float) break;
    default: ADD(double) break;
    }
}

static int check(const struct amo_rx *rx)
{
    if (rx->ev.status)
        return rx->ev.status;
    if (rx->type < ADEV_INT32 || rx->type > ADEV_DCOMPLEX || rx->op < ADEV_AMO_SUM ||
        rx->op > ADEV_AMO_SWAP || !rx->len || rx->len % type_size[rx->type] ||
        (rx->fetch && rx->len > DDEV_SMALL_MAX))
        return -EINVAL;
    return 0;
}

void ddev_amo_run(int ctx, struct ddev_ev *ev, int call_core)
{
    struct amo_rx *rx = rx_of(ev);
    if (!call_core) {
        free(rx);
        return;
    }
    struct ddev_op *op;
    while ((op = ddev_op_get(ctx)) == NULL)
        ddev_progress(ctx, 0); /* the reply needs a request */
    int st = check(rx);
    size_t old = 0;
    if (!st) {
        if (rx->fetch) {
            memcpy(op->buf, rx->dst, rx->len);
            old = rx->len;
        }
        apply(rx->op, rx->type, rx->dst, rx->data, rx->len);
    }
    DCQuad mi = {(uint32_t)rx->cookie, (uint32_t)(rx->cookie >> 32), (uint32_t)st, 0};
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Send(&ddev.amo_done_p, &op->req, (DCMF_Callback_t){ddev_cb_done, op},
                               DCMF_SEQUENTIAL_CONSISTENCY, (size_t)rx->src, old, op->buf,
                               &mi, 1);
    DCMF_CriticalSection_exit(0);
    if (rc != DCMF_SUCCESS)
        ddev_op_put(ctx, op); /* DCMF said why; the origin's call never completes */
    free(rx);
}

/* ---- back at the origin ---- */

void ddev_on_amo_done(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                      size_t bytes)
{
    (void)cd, (void)peer;
    if (count < 1)
        return;
    struct ddev_op *op = (struct ddev_op *)(uintptr_t)u64(mi[0].w0, mi[0].w1);
    op->ack.status = (int)mi[0].w2;
    if (bytes > sizeof op->buf)
        op->ack.status = -EIO;
    else if (bytes)
        memcpy(op->buf, src, bytes);
    ddev_push(op->ctx, &op->ack);
}
