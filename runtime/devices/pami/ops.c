/* Posting: endpoints, the memory region cache, put, get, the notifying
 * put, short messages, and the region request / response protocol.
 *
 * By region vs by address. A put or get goes by region (PAMI_Rput /
 * PAMI_Rget) when both sides are in regions: the remote side in a region
 * this context has cached for the target, the local side in the region
 * over this process's address space (or in one of its own segments'
 * regions). Otherwise it goes by virtual address (PAMI_Put / PAMI_Get):
 * emunic's PAMI reaches any address of a task that way, through the
 * task's whole-address-space key, so it is the fallback [BGQ-PAMI] takes
 * while a region is missing (on BG/Q the fallback for a get is an active
 * message the target answers; here the NIC serves it). A miss sends one
 * region request to the target (at most one in flight per context and
 * target) and carries on by address; the answer fills the cache.
 *
 * Ordering. emunic's PAMI posts Put, Rput and Send (every active message)
 * into the rank's one ordered queue to each destination (none of them sets
 * the core's EMU_F_UNORDERED; lib/rma.c, lib/send.c), and the NIC applies
 * that queue in order: a notice sent after a put arrives after the data,
 * and puts land in posting order (ADEV_CAP_ORDERED). PAMI_Rmw is
 * unordered. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "padev.h"

struct padev padev;

/* ---- endpoints: created once per (context, rank, offset) ---- */

pami_endpoint_t padev_ep(int ctx, int proc, int off)
{
    struct padev_peer *p = &padev.ctx[ctx].peers[proc];
    if (!p->have_ep[off]) {
        if (PAMI_Endpoint_create(padev.client, (pami_task_t)proc, (size_t)off, &p->ep[off]) !=
            PAMI_SUCCESS)
            return PAMI_ENDPOINT_NULL;
        p->have_ep[off] = 1;
    }
    return p->ep[off];
}

/* ---- the region cache ---- */

/* The cached region of proc holding [addr, addr + len), counted as a use;
 * NULL when none is known. *neg: the target said it has none there. */
static struct padev_mr *mr_find(int ctx, int proc, uint64_t addr, size_t len, int *neg)
{
    struct padev_peer *p = &padev.ctx[ctx].peers[proc];
    *neg = 0;
    if (!p->mrs)
        return NULL;
    for (size_t i = 0; i < padev.mr_cache; i++) {
        struct padev_mr *m = &p->mrs[i];
        if (!m->used || addr < m->base || addr - m->base > m->size ||
            len > m->size - (addr - m->base))
            continue;
        m->hits++;
        if (m->neg) {
            /* ask again now and then: the memory may be registered by now */
            if (m->hits >= PADEV_NEG_RETRY)
                m->used = 0;
            *neg = 1;
            return NULL;
        }
        return m;
    }
    return NULL;
}

/* A slot for a new entry: a free one, else the least frequently used. */
static struct padev_mr *mr_slot(int ctx, int proc)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_peer *p = &c->peers[proc];
    if (!p->mrs && !(p->mrs = calloc(padev.mr_cache, sizeof *p->mrs)))
        return NULL;
    struct padev_mr *victim = NULL;
    for (size_t i = 0; i < padev.mr_cache; i++) {
        struct padev_mr *m = &p->mrs[i];
        if (!m->used)
            return m;
        if (!victim || m->hits < victim->hits)
            victim = m;
    }
    c->n_mrevict++;
    /* frequencies decay, so that old favourites do not stay forever */
    for (size_t i = 0; i < padev.mr_cache; i++)
        p->mrs[i].hits /= 2;
    victim->used = 0;
    return victim;
}

static void mr_ask(int ctx, int proc, uint64_t addr, size_t len)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_peer *p = &c->peers[proc];
    if (p->asking || !padev.use_regions)
        return;
    struct padev_mrreq q = {addr, len};
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.header.iov_base = &q;
    s.header.iov_len = sizeof q;
    s.dispatch = PADEV_D_MRREQ;
    s.dest = padev_ep(ctx, proc, ADEV_CTX_RANK);
    if (PAMI_Send_immediate(c->pc, &s) == PAMI_SUCCESS) {
        p->asking = 1;
        c->asking++;
        c->n_mrreq++;
    }
}

/* The local region holding [addr, addr + len), or NULL. */
static pami_memregion_t *local_mr(const void *addr, size_t len, size_t *off)
{
    uint64_t a = (uint64_t)(uintptr_t)addr;
    if (padev.has_space_mr && a >= padev.space_base && a - padev.space_base <= padev.space_len &&
        len <= padev.space_len - (a - padev.space_base)) {
        *off = (size_t)(a - padev.space_base);
        return &padev.space_mr;
    }
    return NULL;
}

/* The target's region for [addr, addr + len), asking for it on a miss. */
static pami_memregion_t *remote_mr(int ctx, int proc, const void *addr, size_t len, size_t *off)
{
    if (!padev.use_regions)
        return NULL;
    uint64_t a = (uint64_t)(uintptr_t)addr;
    int neg;
    struct padev_mr *m = mr_find(ctx, proc, a, len, &neg);
    if (m) {
        *off = (size_t)(a - m->base);
        return &m->mr;
    }
    if (!neg)
        mr_ask(ctx, proc, a, len);
    return NULL;
}

/* At the target (ADEV_CTX_RANK, the rank's own thread): the region of the
 * registered segment holding the range, made on first demand. */
void padev_on_mrreq(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                    const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)cookie, (void)pipe, (void)len, (void)recv;
    struct padev_mrreq q;
    if (hlen != sizeof q)
        return;
    memcpy(&q, hdr, sizeof q);
    struct padev_mrrep a;
    memset(&a, 0, sizeof a);
    a.addr = q.addr;
    a.len = q.len;
    for (size_t i = 0; i < padev.nsegs; i++) {
        struct padev_seg *s = &padev.segs[i];
        if (!s->live || q.addr < s->base || q.addr - s->base > s->len ||
            q.len > s->len - (q.addr - s->base))
            continue;
        if (!s->has_mr) {
            size_t got = 0;
            if (PAMI_Memregion_create(pc, (void *)(uintptr_t)s->base, (size_t)s->len, &got,
                                      &s->mr) != PAMI_SUCCESS ||
                got < s->len)
                break;
            s->has_mr = 1;
        }
        a.base = s->base;
        a.size = s->len;
        memcpy(&a.mr, &s->mr, sizeof a.mr);
        break;
    }
    if (!a.size) {
        /* none: say how far the memory without segments reaches around
         * the range, so that one "none" answer covers all of it */
        uint64_t lo = 0, hi = UINT64_MAX;
        int overlap = 0;
        for (size_t i = 0; i < padev.nsegs; i++) {
            const struct padev_seg *s = &padev.segs[i];
            if (!s->live)
                continue;
            if (s->base < q.addr + q.len && q.addr < s->base + s->len)
                overlap = 1;
            if (s->base + s->len <= q.addr && s->base + s->len > lo)
                lo = s->base + s->len;
            if (s->base >= q.addr + q.len && s->base < hi)
                hi = s->base;
        }
        if (!overlap && lo <= q.addr && hi >= q.addr + q.len) {
            a.addr = lo;
            a.len = hi - lo;
        }
    }
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.header.iov_base = &a;
    s.header.iov_len = sizeof a;
    s.dispatch = PADEV_D_MRREP;
    s.dest = origin;
    if (PAMI_Send_immediate(pc, &s) != PAMI_SUCCESS)
        fprintf(stderr, "armci pami device: rank %d: answering a region request failed\n",
                padev.me);
}

/* Back at the origin, on the context that asked. */
void padev_on_mrrep(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                    const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pc, (void)pipe, (void)len, (void)recv;
    int ctx = (int)(intptr_t)cookie;
    struct padev_ctx *c = &padev.ctx[ctx];
    struct padev_mrrep a;
    pami_task_t t = 0;
    size_t off = 0;
    if (hlen != sizeof a || PAMI_Endpoint_query(origin, &t, &off) != PAMI_SUCCESS ||
        (int)t >= padev.nproc)
        return;
    memcpy(&a, hdr, sizeof a);
    int proc = (int)t;
    struct padev_peer *p = &c->peers[proc];
    if (p->asking) {
        p->asking = 0;
        c->asking--;
    }
    struct padev_mr *m = mr_slot(ctx, proc);
    if (!m)
        return;
    m->used = 1;
    m->hits = 1;
    if (a.size) {
        m->neg = 0;
        m->base = a.base;
        m->size = a.size;
        memcpy(&m->mr, &a.mr, sizeof m->mr);
    } else {
        /* no region there (memory ARMCI did not register): by address */
        m->neg = 1;
        m->base = a.addr;
        m->size = a.len;
        c->n_mrneg++;
    }
}

/* ---- own segments ---- */

int padev_mem_register(void *base, size_t len)
{
    if (!base || !len)
        return 0;
    if (padev.nsegs == padev.segs_cap) {
        size_t cap = padev.segs_cap ? padev.segs_cap * 2 : 16;
        struct padev_seg *s = realloc(padev.segs, cap * sizeof *s);
        if (!s)
            return -ENOMEM;
        padev.segs = s;
        padev.segs_cap = cap;
    }
    struct padev_seg *s = &padev.segs[padev.nsegs++];
    memset(s, 0, sizeof *s);
    s->base = (uint64_t)(uintptr_t)base;
    s->len = len;
    s->live = 1;
    return 0;
}

/* The region stays until finalize: origins may hold it in their caches,
 * and it names this process's memory, which PAMI reaches anyway. New
 * requests no longer find the segment. */
void padev_mem_deregister(void *base, size_t len)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    for (size_t i = 0; i < padev.nsegs; i++)
        if (padev.segs[i].live && padev.segs[i].base == b && padev.segs[i].len == len) {
            padev.segs[i].live = 0;
            return;
        }
}

void padev_segs_free(void)
{
    for (size_t i = 0; i < padev.nsegs; i++)
        if (padev.segs[i].has_mr)
            PAMI_Memregion_destroy(padev.ctx[ADEV_CTX_RANK].pc, &padev.segs[i].mr);
    free(padev.segs);
    padev.segs = NULL;
    padev.nsegs = padev.segs_cap = 0;
}

/* ---- operations ---- */

static int bad_proc(int proc)
{
    return proc < 0 || proc >= padev.nproc;
}

/* A 0-byte put (the core's flush-put): a fence to the target, which
 * completes once everything this rank posted to it is applied. */
static int flush_put(int ctx, int proc, struct adev_cmpl *local, struct adev_cmpl *remote)
{
    struct padev_op *op = padev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    op->local = local;
    op->remote = remote;
    op->pending = 2;
    pami_result_t r = PAMI_Fence_endpoint(padev.ctx[ctx].pc, padev_cb_both, op,
                                          padev_ep(ctx, proc, 0));
    if (r != PAMI_SUCCESS) {
        padev_op_put(ctx, op);
        return padev_status(r);
    }
    return 0;
}

/* Post a put (rdone: its remote completion, or NULL) or a get of len
 * bytes between local and remote for op: by memory region when both ends
 * have one (Rput/Rget), else by address (Put/Get). The issued op is
 * released again if PAMI refuses it. */
static int rma(int ctx, int proc, struct padev_op *op, int put, void *local, void *remote, size_t len,
               pami_event_function rdone)
{
    struct padev_ctx *c = &padev.ctx[ctx];
    pami_rma_t base = {.dest = padev_ep(ctx, proc, 0), .bytes = len, .cookie = op, .done_fn = padev_cb_local};
    size_t roff = 0, loff = 0;
    pami_memregion_t *rm = remote_mr(ctx, proc, remote, len, &roff);
    pami_memregion_t *lm = rm ? local_mr(local, len, &loff) : NULL;
    pami_rdma_t rdma = {.local = {.mr = lm, .offset = loff}, .remote = {.mr = rm, .offset = roff}};
    pami_rma_addr_t addr = {.local = local, .remote = remote};
    pami_result_t r;
    if (put && rm && lm) {
        pami_rput_simple_t p = {.rma = base, .rdma = rdma, .put = {.rdone_fn = rdone}};
        r = PAMI_Rput(c->pc, &p);
        c->n_rput++;
    } else if (put) {
        pami_put_simple_t p = {.rma = base, .addr = addr, .put = {.rdone_fn = rdone}};
        r = PAMI_Put(c->pc, &p);
        c->n_put_va++;
    } else if (rm && lm) {
        pami_rget_simple_t p = {.rma = base, .rdma = rdma};
        r = PAMI_Rget(c->pc, &p);
        c->n_rget++;
    } else {
        pami_get_simple_t p = {.rma = base, .addr = addr};
        r = PAMI_Get(c->pc, &p);
        c->n_get_va++;
    }
    if (r != PAMI_SUCCESS) {
        padev_op_put(ctx, op);
        return padev_status(r);
    }
    return 0;
}

static int dev_put(int ctx, int proc, const void *src, void *dst, size_t len,
                   struct adev_cmpl *local, struct adev_cmpl *remote)
{
    if (bad_proc(proc))
        return -EINVAL;
    if (len == 0)
        return flush_put(ctx, proc, local, remote);
    if (!src || !dst)
        return -EINVAL;
    struct padev_op *op = padev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    op->local = local;
    op->remote = remote;
    op->pending = 1 + (remote != NULL);
    return rma(ctx, proc, op, 1, (void *)(uintptr_t)src, dst, len, remote ? padev_cb_remote : NULL);
}

static int dev_get(int ctx, int proc, const void *src, void *dst, size_t len,
                   struct adev_cmpl *done)
{
    if (bad_proc(proc))
        return -EINVAL;
    struct padev_op *op = padev_op_get(ctx);
    if (!op)
        return -ENOMEM;
    op->local = done;
    if (len == 0) { /* nothing to read: complete at the next progress */
        op->local_ev.status = 0;
        padev_push(ctx, &op->local_ev);
        return 0;
    }
    if (!src || !dst) {
        padev_op_put(ctx, op);
        return -EINVAL;
    }
    return rma(ctx, proc, op, 0, dst, (void *)(uintptr_t)src, len, NULL);
}

/* The data, then a notice {imm, dst, len, chan} behind it in the same
 * ordered queue: the target's notify runs once the data is there. */
static int dev_put_notify(int ctx, int proc, int chan, const void *src, void *dst, size_t len,
                          uint64_t imm, struct adev_cmpl *local)
{
    if (bad_proc(proc) || chan < 0 || chan >= ADEV_NCTX)
        return -EINVAL;
    int rc = 0;
    if (len)
        rc = dev_put(ctx, proc, src, dst, len, local, NULL);
    if (rc)
        return rc;
    struct padev_notice n = {imm, (uint64_t)(uintptr_t)dst, len, (uint32_t)chan, 0};
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.header.iov_base = &n;
    s.header.iov_len = sizeof n;
    s.dispatch = PADEV_D_NOTICE;
    s.dest = padev_ep(ctx, proc, chan);
    pami_result_t r = PAMI_Send_immediate(padev.ctx[ctx].pc, &s);
    if (r != PAMI_SUCCESS)
        return -EIO; /* the put is posted: it completes, the notice is lost */
    if (!len && local) {
        /* nothing was put: the local completion is due at once */
        struct padev_op *op = padev_op_get(ctx);
        if (!op)
            return -EIO;
        op->local = local;
        op->local_ev.status = 0;
        padev_push(ctx, &op->local_ev);
    }
    return 0;
}

static int dev_send_small(int ctx, int proc, int chan, const void *buf, size_t len)
{
    if (bad_proc(proc) || chan < 0 || chan >= ADEV_NCTX || (len && !buf))
        return -EINVAL;
    if (len > PADEV_SMALL_MAX)
        return -EMSGSIZE;
    uint32_t h[2] = {(uint32_t)chan, 0};
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.header.iov_base = h;
    s.header.iov_len = sizeof h;
    s.data.iov_base = (void *)(uintptr_t)buf;
    s.data.iov_len = len;
    s.dispatch = PADEV_D_SMALL;
    s.dest = padev_ep(ctx, proc, chan);
    return padev_status(PAMI_Send_immediate(padev.ctx[ctx].pc, &s));
}

int padev_init(struct adev_job *job, const struct adev_handlers *h, int helper);
void padev_finalize(void);

const struct armci_device armcii_dev_pami = {
    .name = "pami",
    /* no ADEV_CAP_AMO: PAMI_Rmw covers fetch-and-add and swap of integers
     * only, not the float / complex / multi-element sums the core's
     * accumulates would ask for (amo.c) */
    .caps = ADEV_CAP_ORDERED,
    .small_max = PADEV_SMALL_MAX,
    .init = padev_init,
    .finalize = padev_finalize,
    .mem_register = padev_mem_register,
    .mem_deregister = padev_mem_deregister,
    .put = dev_put,
    .get = dev_get,
    .put_notify = dev_put_notify,
    .send_small = dev_send_small,
    .amo = padev_amo,
    .progress = padev_progress,
    .wakeup = padev_wakeup,
};
