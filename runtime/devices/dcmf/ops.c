/* Posting. Every operation takes a request from its context's pool (DCMF
 * owns the request until the last callback); all are sequentially
 * consistent, so what one context posts to a target lands in posting
 * order: a put notice arrives after its data, a flush-put after the puts
 * before it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ddev.h"

struct ddev ddev;

struct ddev_op *ddev_op_get(int ctx)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    if (!c->free_ops) {
        if (c->nops >= DDEV_POOL_MAX)
            return NULL; /* the core progresses and retries */
        struct ddev_chunk *k = aligned_alloc(64, (sizeof *k + 63) & ~(size_t)63);
        if (!k)
            return NULL;
        memset(k, 0, sizeof *k);
        k->next = c->chunks;
        c->chunks = k;
        for (int i = DDEV_POOL_CHUNK - 1; i >= 0; i--) {
            k->ops[i].next_free = c->free_ops;
            c->free_ops = &k->ops[i];
        }
        c->nops += DDEV_POOL_CHUNK;
    }
    struct ddev_op *op = c->free_ops;
    c->free_ops = op->next_free;
    op->ctx = ctx;
    op->local = op->remote = NULL;
    op->pending = 1;
    op->fetch = NULL;
    op->fetch_len = 0;
    op->done.kind = DDEV_EV_DONE;
    op->ack.kind = DDEV_EV_ACK;
    atomic_fetch_add(&c->inflight, 1);
    return op;
}

void ddev_op_put(int ctx, struct ddev_op *op)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    op->next_free = c->free_ops;
    c->free_ops = op;
    atomic_fetch_sub(&c->inflight, 1);
}

void ddev_pool_free(int ctx)
{
    struct ddev_ctx *c = &ddev.ctx[ctx];
    while (c->chunks) {
        struct ddev_chunk *n = c->chunks->next;
        free(c->chunks);
        c->chunks = n;
    }
    c->free_ops = NULL;
    c->nops = 0;
    atomic_store(&c->inflight, 0);
}

static DCMF_Callback_t cb(void (*fn)(void *, DCMF_Error_t *), struct ddev_op *op)
{
    DCMF_Callback_t c = {fn, op};
    return c;
}

static int dev_put(int ctx, int proc, const void *src, void *dst, size_t len,
                   struct adev_cmpl *local, struct adev_cmpl *remote)
{
    struct ddev_op *op = ddev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    op->local = local;
    op->remote = remote;
    op->pending = 1 + (remote != NULL);
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Put(&ddev.put_p, &op->req, cb(ddev_cb_done, op),
                              DCMF_SEQUENTIAL_CONSISTENCY, (size_t)proc, len, &ddev.mine,
                              &ddev.regions[proc], (size_t)(uintptr_t)src, (size_t)(uintptr_t)dst,
                              cb(remote ? ddev_cb_ack : NULL, op));
    DCMF_CriticalSection_exit(0);
    if (rc != DCMF_SUCCESS) {
        ddev_op_put(ctx, op);
        return -EIO;
    }
    return 0;
}

static int dev_get(int ctx, int proc, const void *src, void *dst, size_t len,
                   struct adev_cmpl *done)
{
    struct ddev_op *op = ddev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    op->local = done;
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Get(&ddev.get_p, &op->req, cb(ddev_cb_done, op),
                              DCMF_SEQUENTIAL_CONSISTENCY, (size_t)proc, len, &ddev.regions[proc],
                              &ddev.mine, (size_t)(uintptr_t)src, (size_t)(uintptr_t)dst);
    DCMF_CriticalSection_exit(0);
    if (rc != DCMF_SUCCESS) {
        ddev_op_put(ctx, op);
        return -EIO;
    }
    return 0;
}

/* The data, then a notice {imm, dst, len, chan} behind it on the same
 * ordered path: the target's notify runs only once the data is there. */
static int dev_put_notify(int ctx, int proc, int chan, const void *src, void *dst, size_t len,
                          uint64_t imm, struct adev_cmpl *local)
{
    struct ddev_op *op = ddev_op_get(ctx), *note = op ? ddev_op_get(ctx) : NULL;
    if (!note) {
        if (op)
            ddev_op_put(ctx, op);
        return -ENOMEM;
    }
    op->local = local;
    uint64_t d = (uint64_t)(uintptr_t)dst, l = len;
    DCQuad mi[2] = {{(uint32_t)imm, (uint32_t)(imm >> 32), (uint32_t)d, (uint32_t)(d >> 32)},
                    {(uint32_t)l, (uint32_t)(l >> 32), (uint32_t)chan, 0}};
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Put(&ddev.put_p, &op->req, cb(ddev_cb_done, op),
                              DCMF_SEQUENTIAL_CONSISTENCY, (size_t)proc, len, &ddev.mine,
                              &ddev.regions[proc], (size_t)(uintptr_t)src, (size_t)d,
                              cb(NULL, op));
    DCMF_Result rs = DCMF_ERROR;
    if (rc == DCMF_SUCCESS)
        rs = DCMF_Send(&ddev.notify_p, &note->req, cb(ddev_cb_done, note),
                       DCMF_SEQUENTIAL_CONSISTENCY, (size_t)proc, 0, NULL, mi, 2);
    DCMF_CriticalSection_exit(0);
    if (rs != DCMF_SUCCESS)
        ddev_op_put(ctx, note);
    if (rc != DCMF_SUCCESS)
        ddev_op_put(ctx, op); /* else it completes through its callback */
    return rs == DCMF_SUCCESS ? 0 : -EIO;
}

/* Payload as data behind one quad {kind, channel}: one packet. */
static int send_kind(int ctx, int proc, unsigned kind, int chan, const void *buf, size_t len)
{
    if (len > DDEV_SMALL_MAX)
        return -EMSGSIZE;
    struct ddev_op *op = ddev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    if (len)
        memcpy(op->buf, buf, len);
    DCQuad mi = {kind, (uint32_t)chan, 0, 0};
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Send(&ddev.small_p, &op->req, cb(ddev_cb_done, op),
                               DCMF_SEQUENTIAL_CONSISTENCY, (size_t)proc, len, op->buf, &mi, 1);
    DCMF_CriticalSection_exit(0);
    if (rc != DCMF_SUCCESS) {
        ddev_op_put(ctx, op);
        return -EIO;
    }
    return 0;
}

static int dev_send_small(int ctx, int proc, int chan, const void *buf, size_t len)
{
    return send_kind(ctx, proc, DDEV_K_DATA, chan, buf, len);
}

int ddev_send_bye(int proc)
{
    return send_kind(ADEV_CTX_RANK, proc, DDEV_K_BYE, ADEV_CTX_RANK, NULL, 0);
}

int ddev_init(struct adev_job *job, const struct adev_handlers *h, int helper);
void ddev_finalize(void);

const struct armci_device armcii_dev_dcmf = {
    .name = "dcmf",
    .caps = ADEV_CAP_ORDERED,
    .small_max = DDEV_SMALL_MAX,
    .init = ddev_init,
    .finalize = ddev_finalize,
    /* no mem_register: every address is in the whole-space region */
    .put = dev_put,
    .get = dev_get,
    .put_notify = dev_put_notify,
    .send_small = dev_send_small,
    .amo = ddev_amo,
    .progress = ddev_progress,
    .wakeup = ddev_wakeup,
};
