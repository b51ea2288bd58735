/* One-sided transfers: PAMI_Put/Get by virtual address (any address of the
 * target process, through its whole-address-space region) and PAMI_Rput/
 * Rget by memory region, each also typed. A typed transfer becomes one core
 * write or read per piece where the local and remote layouts are both
 * contiguous; the callbacks run after the last piece. */
#include <stdlib.h>
#include <string.h>

#include "pami_lib.h"
#include "memregion.h"

struct xfer {
    const char *fn;
    int write;
    uint32_t task, key;
    char *local;     /* base of the local buffer */
    uint64_t remote; /* base of the remote buffer */
    size_t bytes;
    const struct pamil_type *lt, *rt; /* NULL: contiguous */
    pami_event_function done_fn, rdone_fn;
    void *cookie;
};

struct run {
    size_t off, len;
};

struct runs {
    struct run *v;
    size_t n, cap;
};

static int add_run(void *arg, size_t off, size_t len)
{
    struct runs *r = arg;
    if (r->n && r->v[r->n - 1].off + r->v[r->n - 1].len == off) {
        r->v[r->n - 1].len += len; /* adjacent pieces merge */
        return 0;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        struct run *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (struct run){off, len};
    return 0;
}

static int runs_of(const struct pamil_type *t, size_t bytes, struct runs *r)
{
    if (!t)
        return add_run(r, 0, bytes);
    return pamil_type_walk(t, 0, bytes, add_run, r);
}

static int post_piece(const struct xfer *x, size_t loff, size_t roff, size_t len,
                      unsigned flags, struct pamil_op *op)
{
    uint64_t ck = (uint64_t)(uintptr_t)op;
    if (x->write)
        return emunic_write(x->task, x->key, x->remote + roff, x->local + loff, len, flags, ck, 0);
    return emunic_read(x->task, x->key, x->remote + roff, x->local + loff, len, flags, ck);
}

static pami_result_t run_xfer(struct pamil_context *c, const struct xfer *x)
{
    if (x->bytes == 0)
        return pamil_fail(PAMI_INVAL, x->fn, "bytes is 0");
    if (!x->local || !x->remote)
        return pamil_fail(PAMI_INVAL, x->fn, "the local or remote address is NULL");
    struct runs lr = {0}, rr = {0};
    if (runs_of(x->lt, x->bytes, &lr) || runs_of(x->rt, x->bytes, &rr)) {
        free(lr.v);
        free(rr.v);
        return pamil_fail(PAMI_ENOMEM, x->fn, "out of memory");
    }
    /* pieces: where both sides are contiguous */
    size_t npieces = 0;
    for (size_t i = 0, j = 0, li = 0, ri = 0; i < lr.n && j < rr.n;) {
        size_t n = lr.v[i].len - li < rr.v[j].len - ri ? lr.v[i].len - li : rr.v[j].len - ri;
        npieces++;
        li += n;
        ri += n;
        if (li == lr.v[i].len)
            i++, li = 0;
        if (ri == rr.v[j].len)
            j++, ri = 0;
    }
    unsigned flags = (x->done_fn ? EMU_F_LOCAL_CQ : 0) | (x->rdone_fn ? EMU_F_REMOTE_CQ : 0);
    struct pamil_op *op = NULL;
    if (flags) {
        op = pamil_op_new(c, PAMIL_O_RMA);
        if (!op) {
            free(lr.v);
            free(rr.v);
            return pamil_fail(PAMI_ENOMEM, x->fn, "out of memory");
        }
        op->local_fn = x->done_fn;
        op->remote_fn = x->rdone_fn;
        op->cookie = x->cookie;
        op->pend_local = x->done_fn ? (uint32_t)npieces : 0;
        op->pend_remote = x->rdone_fn ? (uint32_t)npieces : 0;
    }
    pamil_touch(c, x->task);
    pami_result_t res = PAMI_SUCCESS;
    size_t posted = 0;
    for (size_t i = 0, j = 0, li = 0, ri = 0; i < lr.n && j < rr.n;) {
        size_t n = lr.v[i].len - li < rr.v[j].len - ri ? lr.v[i].len - li : rr.v[j].len - ri;
        int rc = post_piece(x, lr.v[i].off + li, rr.v[j].off + ri, n, flags, op);
        if (rc) {
            res = pamil_post_result(x->fn, rc);
            break;
        }
        if ((++posted & 63) == 0)
            pamil_drain(c);
        li += n;
        ri += n;
        if (li == lr.v[i].len)
            i++, li = 0;
        if (ri == rr.v[j].len)
            j++, ri = 0;
    }
    free(lr.v);
    free(rr.v);
    if (op && posted < npieces) {
        if (posted == 0) {
            pamil_op_free(op);
        } else { /* the callbacks still run, once, for what was posted */
            op->pend_local = x->done_fn ? (uint32_t)posted : 0;
            op->pend_remote = x->rdone_fn ? (uint32_t)posted : 0;
            op->result = res;
        }
    }
    return res;
}

static pami_result_t rma_common(struct pamil_context *c, struct xfer *x, const pami_rma_t *rma)
{
    pami_result_t r = pamil_check_ep(x->fn, c, rma->dest);
    if (r != PAMI_SUCCESS)
        return r;
    x->task = PAMIL_EP_TASK(rma->dest);
    x->bytes = rma->bytes;
    x->done_fn = pamil_event_fn(x->fn, "done_fn", rma->done_fn);
    x->cookie = rma->cookie;
    return PAMI_SUCCESS;
}

/* ---- by virtual address ---- */

static pami_result_t by_address(const char *fn, pami_context_t context, const pami_rma_t *rma,
                                const pami_rma_addr_t *addr, const pami_rma_typed_t *type,
                                pami_event_function rdone, int write)
{
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    struct xfer x = {.fn = fn, .write = write, .rdone_fn = pamil_event_fn(fn, "rdone_fn", rdone)};
    pami_result_t r = rma_common(c, &x, rma);
    if (r != PAMI_SUCCESS)
        return r;
    x.local = addr->local;
    x.remote = (uint64_t)(uintptr_t)addr->remote;
    if (type) {
        if (!(x.lt = pamil_type_of(fn, type->local)) || !(x.rt = pamil_type_of(fn, type->remote)))
            return PAMI_INVAL;
    }
    if (!(x.key = pamil_space_key(fn, x.task)))
        return PAMI_ERROR;
    return run_xfer(c, &x);
}





/* ---- by memory region ---- */

static pami_result_t by_region(const char *fn, pami_context_t context, const pami_rma_t *rma,
                               const pami_rdma_t *rdma, const pami_rma_typed_t *type,
                               pami_event_function rdone, int write)
{
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    struct xfer x = {.fn = fn, .write = write, .rdone_fn = pamil_event_fn(fn, "rdone_fn", rdone)};
    pami_result_t r = rma_common(c, &x, rma);
    if (r != PAMI_SUCCESS)
        return r;
    if (type) {
        if (!(x.lt = pamil_type_of(fn, type->local)) || !(x.rt = pamil_type_of(fn, type->remote)))
            return PAMI_INVAL;
    }
    /* the span each side touches: the type's extent covers the data */
    size_t lspan = x.bytes, rspan = x.bytes;
    if (x.lt && x.bytes)
        lspan = (x.bytes + pamil_type_size(x.lt) - 1) / pamil_type_size(x.lt) * pamil_type_extent(x.lt);
    if (x.rt && x.bytes)
        rspan = (x.bytes + pamil_type_size(x.rt) - 1) / pamil_type_size(x.rt) * pamil_type_extent(x.rt);
    const struct pamil_mr *lm = pamil_mr_of(fn, "local", rdma->local.mr);
    const struct pamil_mr *rm = pamil_mr_of(fn, "remote", rdma->remote.mr);
    if (!lm || !rm)
        return PAMI_INVAL;
    if (lm->task != c->client->task)
        return pamil_fail(PAMI_INVAL, fn, "the local memory region belongs to task %u", lm->task);
    if (rm->task != x.task)
        return pamil_fail(PAMI_INVAL, fn, "the remote memory region belongs to task %u, not the destination %u",
                          rm->task, x.task);
    if (pamil_mr_range(fn, "local", lm, rdma->local.offset, lspan) ||
        pamil_mr_range(fn, "remote", rm, rdma->remote.offset, rspan))
        return PAMI_INVAL;
    x.local = (char *)(uintptr_t)(lm->base + rdma->local.offset);
    x.remote = rm->base + rdma->remote.offset;
    x.key = rm->key;
    return run_xfer(c, &x);
}

/* ---- the calls ---- */

/* name(context, p): p's members go to how(), after a NULL check */
#define RMA_CALL(name, ptype, how, ...)                                          \
    pami_result_t name(pami_context_t context, ptype *p)                         \
    {                                                                            \
        if (!p)                                                                  \
            return pamil_fail(PAMI_INVAL, #name, "parameters is NULL");          \
        return how(#name, context, __VA_ARGS__);                                 \
    }

RMA_CALL(PAMI_Put, pami_put_simple_t, by_address, &p->rma, &p->addr, NULL, p->put.rdone_fn, 1)
RMA_CALL(PAMI_Put_typed, pami_put_typed_t, by_address, &p->rma, &p->addr, &p->type, p->put.rdone_fn, 1)
RMA_CALL(PAMI_Get, pami_get_simple_t, by_address, &p->rma, &p->addr, NULL, NULL, 0)
RMA_CALL(PAMI_Get_typed, pami_get_typed_t, by_address, &p->rma, &p->addr, &p->type, NULL, 0)
RMA_CALL(PAMI_Rput, pami_rput_simple_t, by_region, &p->rma, &p->rdma, NULL, p->put.rdone_fn, 1)
RMA_CALL(PAMI_Rput_typed, pami_rput_typed_t, by_region, &p->rma, &p->rdma, &p->type, p->put.rdone_fn, 1)
RMA_CALL(PAMI_Rget, pami_rget_simple_t, by_region, &p->rma, &p->rdma, NULL, NULL, 0)
RMA_CALL(PAMI_Rget_typed, pami_rget_typed_t, by_region, &p->rma, &p->rdma, &p->type, NULL, 0)
