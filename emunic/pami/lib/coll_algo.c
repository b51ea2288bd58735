/* Schedule builders (see coll_impl.h). Point-to-point components work on
 * a group of geometry ranks, so that the same binomial tree or butterfly
 * serves the whole geometry or just its node leaders; shared-memory and
 * CAU steps are single ops that the engine polls or the NIC completes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"

static const char FN[] = "PAMI_Collective";

static uint32_t nphases(uint32_t n)
{
    uint32_t p = 0;
    while ((1u << p) < n)
        p++;
    return p;
}

static struct cg_op *add_send(struct cg_coll *x, uint32_t round, uint32_t peer, const void *buf, size_t len)
{
    struct cg_op *op = cg_add(x, OP_SEND, round);
    op->peer = peer;
    op->src = buf;
    op->len = len;
    return op;
}

static struct cg_op *add_recv(struct cg_coll *x, uint32_t round, uint32_t peer, void *buf, size_t len)
{
    struct cg_op *op = cg_add(x, OP_RECV, round);
    op->peer = peer;
    op->dst = buf;
    op->len = len;
    return op;
}

static void add_copy(struct cg_coll *x, uint32_t round, void *dst, const void *src, size_t len)
{
    struct cg_op *op = cg_add(x, OP_COPY, round);
    op->dst = dst;
    op->src = src;
    op->len = len;
}

static void add_reduce(struct cg_coll *x, uint32_t round, void *dst, const void *src, size_t count)
{
    struct cg_op *op = cg_add(x, OP_REDUCE, round);
    op->dst = dst;
    op->src = src;
    op->count = count;
}

/* ---- point-to-point components ---- */

uint32_t cg_add_barrier_dissem(struct cg_coll *x, uint32_t round, const struct cg_group *gr)
{
    uint32_t n = gr->n, k = 0;
    if (gr->me < 0)
        return round + nphases(n);
    uint32_t me = (uint32_t)gr->me;
    for (uint32_t d = 1; d < n; d <<= 1, k++) {
        add_send(x, round + k, gr->r[(me + d) % n], NULL, 0);
        add_recv(x, round + k, gr->r[(me + n - d) % n], NULL, 0);
    }
    return round + k;
}

/* Figure 4: phase i, distance 2^(nphases-1-i), relative to the root. */
uint32_t cg_add_bcast_binomial(struct cg_coll *x, uint32_t round, const struct cg_group *gr,
                               uint32_t root, void *buf, size_t len)
{
    uint32_t n = gr->n, np = nphases(n);
    if (gr->me < 0)
        return round + np;
    uint32_t vr = ((uint32_t)gr->me + n - root) % n;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t dist = 1u << (np - 1 - i);
        if (vr % (2 * dist) == 0 && vr + dist < n)
            add_send(x, round + i, gr->r[(vr + dist + root) % n], buf, len);
        else if (vr % (2 * dist) == dist)
            add_recv(x, round + i, gr->r[(vr - dist + root) % n], buf, len);
    }
    return round + np;
}

uint32_t cg_add_reduce_binomial(struct cg_coll *x, uint32_t round, const struct cg_group *gr,
                                uint32_t root, void *acc, size_t count, size_t bytes)
{
    uint32_t n = gr->n, np = nphases(n);
    if (gr->me < 0)
        return round + np + 1;
    uint32_t vr = ((uint32_t)gr->me + n - root) % n;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t dist = 1u << i;
        if (vr % (2 * dist) == dist) {
            add_send(x, round + i, gr->r[(vr - dist + root) % n], acc, bytes);
            break;
        }
        if (vr % (2 * dist) == 0 && vr + dist < n) {
            void *t = cg_tmp(x, bytes);
            add_recv(x, round + i, gr->r[(vr + dist + root) % n], t, bytes);
            add_reduce(x, round + i + 1, acc, t, count);
        }
    }
    return round + np + 1;
}

/* Butterfly (recursive doubling); the first 2*rem ranks pair up first
 * when n is not a power of two. */
uint32_t cg_add_allreduce_rd(struct cg_coll *x, uint32_t round, const struct cg_group *gr,
                             void *acc, size_t count, size_t bytes)
{
    uint32_t n = gr->n, p2 = 1, lg = 0;
    while (p2 * 2 <= n) {
        p2 *= 2;
        lg++;
    }
    uint32_t rem = n - p2, end = round + 1 + lg;
    if (gr->me < 0)
        return end + 1;
    uint32_t me = (uint32_t)gr->me;
    int nr;
    if (me < 2 * rem) {
        if (me % 2 == 0) {
            add_send(x, round, gr->r[me + 1], acc, bytes);
            add_recv(x, end, gr->r[me + 1], acc, bytes);
            return end + 1;
        }
        void *t = cg_tmp(x, bytes);
        add_recv(x, round, gr->r[me - 1], t, bytes);
        add_reduce(x, round + 1, acc, t, count);
        nr = (int)(me / 2);
    } else {
        nr = (int)(me - rem);
    }
    for (uint32_t k = 0; k < lg; k++) {
        uint32_t pn = (uint32_t)nr ^ (1u << k);
        uint32_t peer = pn < rem ? pn * 2 + 1 : pn + rem;
        void *t = cg_tmp(x, bytes);
        add_send(x, round + 1 + k, gr->r[peer], acc, bytes);
        add_recv(x, round + 1 + k, gr->r[peer], t, bytes);
        add_reduce(x, round + 2 + k, acc, t, count);
    }
    if (me < 2 * rem)
        add_send(x, end, gr->r[me - 1], acc, bytes);
    return end + 1;
}

/* ---- shared-memory components ---- */

/* Rounds 0 and 1 of every shared-memory schedule: the first time, the
 * node's leader allocates the area and sends its address to the node's
 * other members (round 0), who map it (round 1). Components then start at
 * round 1 (node) and 2 (leaders), whatever the node's size, so that rounds
 * agree between nodes. */
static void shm_prep(struct cg_coll *x)
{
    struct cg_geom *g = x->g;
    if (g->nlocal <= 1 || g->shm_setup)
        return;
    g->shm_setup = 1;
    if (g->lme == 0) {
        size_t sz = cg_shm_size(g->nlocal);
        g->shm_own = emunic_malloc(sz);
        if (!g->shm_own) {
            pamil_fail(PAMI_ENOMEM, FN, "no registered memory for the node's shared area (%zu bytes)", sz);
            abort();
        }
        memset(g->shm_own, 0, sz);
        g->shm_raddr = (uint64_t)(uintptr_t)g->shm_own;
        for (uint32_t i = 1; i < g->nlocal; i++)
            add_send(x, 0, g->local[i], &g->shm_raddr, sizeof g->shm_raddr);
    } else {
        add_recv(x, 0, g->local[0], &g->shm_raddr, sizeof g->shm_raddr);
    }
    cg_add(x, OP_ATTACH, 1);
}

static uint32_t shm_reduce(struct cg_coll *x, uint32_t round, void *acc, size_t bytes)
{
    struct cg_geom *g = x->g;
    if (g->nlocal <= 1)
        return round;
    size_t es = x->rt ? pamil_type_size(x->rt) : 1;
    size_t per = (CG_SHM_CHUNK / es) * es;
    struct cg_op *op = cg_add(x, OP_SHM_REDUCE, round);
    op->dst = acc;
    op->len = bytes;
    op->nchunk = bytes ? (bytes + per - 1) / per : 1;
    op->inst = g->shm_seq + 1;
    g->shm_seq += op->nchunk;
    return round + 1;
}

static uint32_t shm_bcast(struct cg_coll *x, uint32_t round, uint32_t lroot, void *buf, size_t bytes, int nbuf)
{
    struct cg_geom *g = x->g;
    if (g->nlocal <= 1)
        return round;
    struct cg_op *op = cg_add(x, OP_SHM_BCAST, round);
    op->dst = buf;
    op->len = bytes;
    op->peer = lroot;
    op->count = (size_t)nbuf;
    op->nchunk = bytes ? (bytes + CG_SHM_CHUNK - 1) / CG_SHM_CHUNK : 1;
    op->inst = g->shm_bseq + 1;
    g->shm_bseq += op->nchunk;
    return round + 1;
}

static struct cg_group leaders_group(struct cg_geom *g)
{
    struct cg_group gr = {g->nleaders, g->leaders, g->lme == 0 ? (int)g->node_idx[g->me] : -1};
    return gr;
}

static struct cg_group all_group(struct cg_coll *x)
{
    struct cg_geom *g = x->g;
    uint32_t *r = cg_tmp(x, g->n * sizeof *r);
    for (uint32_t i = 0; i < g->n; i++)
        r[i] = i;
    struct cg_group gr = {g->n, r, g->me};
    return gr;
}

/* ---- argument helpers ---- */

static int type_bytes(const char *what, pami_type_t t, size_t count, const void *buf,
                      const struct pamil_type **pt, size_t *bytes)
{
    *pt = pamil_type_of(FN, t);
    if (!*pt)
        return PAMI_INVAL;
    *bytes = count * pamil_type_size(*pt);
    if (!buf && *bytes)
        return pamil_fail(PAMI_INVAL, FN, "%s is NULL with %zu bytes of data", what, *bytes);
    return 0;
}

/* Contiguous view of count elements of t at buf: buf itself, or a packed
 * copy made in round 0 (in) / unpacked at the end (out). */
static char *view_in(struct cg_coll *x, const struct pamil_type *t, const void *buf, size_t bytes)
{
    if (pamil_type_is_contig(t) || !bytes)
        return (char *)buf;
    char *p = cg_tmp(x, bytes);
    struct cg_op *op = cg_add(x, OP_PACK, 0);
    op->dst = p;
    op->src = buf;
    op->len = bytes;
    op->type = t;
    return p;
}

static char *view_out(struct cg_coll *x, const struct pamil_type *t, void *buf, size_t bytes, int *unpack)
{
    *unpack = !(pamil_type_is_contig(t) || !bytes);
    return *unpack ? cg_tmp(x, bytes) : buf;
}

static void add_unpack(struct cg_coll *x, uint32_t round, const struct pamil_type *t, void *buf,
                       const void *packed, size_t bytes)
{
    struct cg_op *op = cg_add(x, OP_UNPACK, round);
    op->dst = buf;
    op->src = packed;
    op->len = bytes;
    op->type = t;
}

static int check_root(struct cg_coll *x, pami_endpoint_t root, uint32_t *gr)
{
    uint32_t task = PAMIL_EP_TASK(root);
    for (uint32_t i = 0; i < x->g->n; i++)
        if (x->g->tasks[i] == task) {
            *gr = i;
            return 0;
        }
    return pamil_fail(PAMI_INVAL, FN, "root task %u is not in geometry %u", task, x->g->id);
}

int cg_cau_ok(pami_data_function op, const struct pamil_type *t, size_t bytes)
{
    if (bytes > CG_CAU_MAX)
        return 0;
    int dt = pamil_type_emu_dtype(t), aop = pamil_data_emu_aop(op);
    if (dt != EMU_INT32 && dt != EMU_UINT32 && dt != EMU_INT64 && dt != EMU_UINT64 && dt != EMU_FLOAT &&
        dt != EMU_DOUBLE)
        return 0;
    /* every reduction the NIC's arithmetic defines on the type (no bitwise
     * or logical ops on floats) */
    return aop >= 0 && emu_aop_valid((unsigned)aop, (unsigned)dt) && !emu_aop_is_swap((unsigned)aop);
}

/* ---- barrier ---- */

static int b_dissem(struct cg_coll *x)
{
    struct cg_group gr = all_group(x);
    cg_add_barrier_dissem(x, 0, &gr);
    return 0;
}

static int b_binomial(struct cg_coll *x)
{
    struct cg_group gr = all_group(x);
    uint32_t r = cg_add_reduce_binomial(x, 0, &gr, 0, NULL, 0, 0);
    cg_add_bcast_binomial(x, r, &gr, 0, NULL, 0);
    return 0;
}

static int b_hybrid(struct cg_coll *x, int cau)
{
    struct cg_geom *g = x->g;
    shm_prep(x);
    shm_reduce(x, 1, NULL, 0);
    uint32_t r = 2;
    if (g->nleaders > 1) {
        if (cau) {
            if (g->lme == 0) {
                struct cg_op *op = cg_add(x, OP_CAU_ALLREDUCE, r);
                op->dst = cg_tmp(x, 8);
                op->len = 8;
            }
            r++;
        } else {
            struct cg_group lg = leaders_group(g);
            r = cg_add_barrier_dissem(x, r, &lg);
        }
    }
    shm_bcast(x, r, 0, NULL, 0, 2);
    return 0;
}
static int b_hyb_p2p(struct cg_coll *x) { return b_hybrid(x, 0); }
static int b_hyb_cau(struct cg_coll *x) { return b_hybrid(x, 1); }

/* ---- broadcast ---- */

static int bcast_args(struct cg_coll *x, uint32_t *root, const struct pamil_type **t, size_t *bytes)
{
    pami_broadcast_t *a = &x->xfer.cmd.xfer_broadcast;
    int rc = check_root(x, a->root, root);
    if (!rc)
        rc = type_bytes("buf", a->type, a->typecount, a->buf, t, bytes);
    return rc;
}

static int bc_binomial(struct cg_coll *x)
{
    pami_broadcast_t *a = &x->xfer.cmd.xfer_broadcast;
    uint32_t root;
    const struct pamil_type *t;
    size_t bytes;
    int rc = bcast_args(x, &root, &t, &bytes), unpack = 0;
    if (rc)
        return rc;
    char *v = (uint32_t)x->g->me == root ? view_in(x, t, a->buf, bytes) : view_out(x, t, a->buf, bytes, &unpack);
    struct cg_group gr = all_group(x);
    uint32_t r = cg_add_bcast_binomial(x, 0, &gr, root, v, bytes);
    if (unpack)
        add_unpack(x, r, t, a->buf, v, bytes);
    return 0;
}

static int bc_hybrid(struct cg_coll *x, int cau, int nbuf)
{
    pami_broadcast_t *a = &x->xfer.cmd.xfer_broadcast;
    struct cg_geom *g = x->g;
    uint32_t root;
    const struct pamil_type *t;
    size_t bytes;
    int rc = bcast_args(x, &root, &t, &bytes), unpack = 0;
    if (rc)
        return rc;
    if (cau && bytes > CG_CAU_MAX)
        return pamil_fail(PAMI_INVAL, FN, "%zu bytes: this CAU broadcast takes at most %d", bytes, CG_CAU_MAX);
    char *v = (uint32_t)g->me == root ? view_in(x, t, a->buf, bytes) : view_out(x, t, a->buf, bytes, &unpack);
    uint32_t rnode = g->node_idx[root], mynode = g->node_idx[g->me];
    shm_prep(x);
    if (mynode == rnode) {
        uint32_t lroot = 0;
        for (uint32_t i = 0; i < g->nlocal; i++)
            if (g->local[i] == root)
                lroot = i;
        shm_bcast(x, 1, lroot, v, bytes, nbuf);
    }
    uint32_t r = 2;
    if (g->nleaders > 1) {
        if (cau) {
            if (g->lme == 0) {
                struct cg_op *op = cg_add(x, OP_CAU_BCAST, r);
                op->dst = v;
                op->len = bytes;
                op->peer = mynode == rnode;
            }
            r++;
        } else {
            struct cg_group lg = leaders_group(g);
            r = cg_add_bcast_binomial(x, r, &lg, rnode, v, bytes);
        }
    }
    if (mynode != rnode)
        r = shm_bcast(x, r, 0, v, bytes, nbuf);
    if (unpack)
        add_unpack(x, r, t, a->buf, v, bytes);
    return 0;
}
static int bc_hyb_p2p(struct cg_coll *x) { return bc_hybrid(x, 0, 2); }
static int bc_hyb_cau(struct cg_coll *x) { return bc_hybrid(x, 1, 2); }
static int bc_shm1(struct cg_coll *x) { return bc_hybrid(x, 0, 1); }

/* ---- allreduce / reduce ---- */

/* A reduction's operands: a non-contiguous type (whose pieces are all one
 * primitive) reduces on packed data, sv packed from sndbuf in round 0 and
 * rv unpacked into rcvbuf by red_done; contiguous ones work in place. */
struct red {
    size_t count, bytes;
    char *sv, *rv, *rbuf;
    const struct pamil_type *t2;
    int unpack;
};

static int red_args(struct cg_coll *x, char *sbuf, pami_type_t st, size_t sc, char *rbuf, pami_type_t rt,
                    size_t rc_, pami_data_function op, int need_rbuf, struct red *d)
{
    const struct pamil_type *t1, *t2;
    int rc = type_bytes("sndbuf", st, sc, sbuf, &t1, &d->bytes);
    if (rc)
        return rc;
    size_t rb;
    rc = type_bytes("rcvbuf", rt, need_rbuf ? rc_ : 0, rbuf, &t2, &rb);
    if (rc)
        return rc;
    if (need_rbuf && rb != d->bytes)
        return pamil_fail(PAMI_INVAL, FN, "send %zu bytes but receive %zu", d->bytes, rb);
    x->op = op;
    x->rt = t1;
    d->count = sc;
    char probe[64] = {0}, probe2[64] = {0};
    if (pamil_reduce(op, t1, probe, probe2, 1) != PAMI_SUCCESS)
        return pamil_fail(PAMI_INVAL, FN, "the operation is not a reduction defined on this type");
    d->sv = view_in(x, t1, sbuf, d->bytes);
    d->t2 = t2;
    d->rbuf = rbuf;
    d->rv = need_rbuf ? view_out(x, t2, rbuf, d->bytes, &d->unpack) : NULL;
    if (!need_rbuf)
        d->unpack = 0;
    return 0;
}

static void red_done(struct cg_coll *x, uint32_t round, const struct red *d)
{
    if (d->unpack)
        add_unpack(x, round, d->t2, d->rbuf, d->rv, d->bytes);
}

static int ar_args(struct cg_coll *x, struct red *d)
{
    pami_allreduce_t *a = &x->xfer.cmd.xfer_allreduce;
    return red_args(x, a->sndbuf, a->stype, a->stypecount, a->rcvbuf, a->rtype, a->rtypecount, a->op, 1, d);
}

static int ar_rd(struct cg_coll *x)
{
    struct red d;
    int rc = ar_args(x, &d);
    if (rc)
        return rc;
    add_copy(x, 0, d.rv, d.sv, d.bytes);
    struct cg_group gr = all_group(x);
    red_done(x, cg_add_allreduce_rd(x, 0, &gr, d.rv, d.count, d.bytes), &d);
    return 0;
}

static int ar_binomial(struct cg_coll *x)
{
    struct red d;
    int rc = ar_args(x, &d);
    if (rc)
        return rc;
    add_copy(x, 0, d.rv, d.sv, d.bytes);
    struct cg_group gr = all_group(x);
    uint32_t r = cg_add_reduce_binomial(x, 0, &gr, 0, d.rv, d.count, d.bytes);
    red_done(x, cg_add_bcast_binomial(x, r, &gr, 0, d.rv, d.bytes), &d);
    return 0;
}

static int ar_hybrid(struct cg_coll *x, int cau)
{
    pami_allreduce_t *a = &x->xfer.cmd.xfer_allreduce;
    struct cg_geom *g = x->g;
    struct red d;
    int rc = ar_args(x, &d);
    if (rc)
        return rc;
    if (cau && !cg_cau_ok(a->op, x->rt, d.bytes))
        return pamil_fail(PAMI_INVAL, FN, "the CAU allreduce takes at most %d bytes of 32/64-bit integers or "
                          "floats, with a reduction defined on the type (no bitwise or logical ops on floats)",
                          CG_CAU_MAX);
    add_copy(x, 0, d.rv, d.sv, d.bytes);
    shm_prep(x);
    shm_reduce(x, 1, d.rv, d.bytes);
    uint32_t r = 2;
    if (g->nleaders > 1) {
        if (cau) {
            if (g->lme == 0) {
                struct cg_op *op = cg_add(x, OP_CAU_ALLREDUCE, r);
                op->dst = d.rv;
                op->len = d.bytes;
            }
            r++;
        } else {
            struct cg_group lg = leaders_group(g);
            r = cg_add_allreduce_rd(x, r, &lg, d.rv, d.count, d.bytes);
        }
    }
    red_done(x, shm_bcast(x, r, 0, d.rv, d.bytes, 2), &d);
    return 0;
}
static int ar_hyb_p2p(struct cg_coll *x) { return ar_hybrid(x, 0); }
static int ar_hyb_cau(struct cg_coll *x) { return ar_hybrid(x, 1); }

static int rd_binomial(struct cg_coll *x)
{
    pami_reduce_t *a = &x->xfer.cmd.xfer_reduce;
    uint32_t root;
    int rc = check_root(x, a->root, &root);
    if (rc)
        return rc;
    int am_root = (uint32_t)x->g->me == root;
    struct red d;
    rc = red_args(x, a->sndbuf, a->stype, a->stypecount, a->rcvbuf, a->rtype, a->rtypecount, a->op, am_root, &d);
    if (rc)
        return rc;
    char *acc = am_root ? d.rv : cg_tmp(x, d.bytes);
    add_copy(x, 0, acc, d.sv, d.bytes);
    struct cg_group gr = all_group(x);
    red_done(x, cg_add_reduce_binomial(x, 0, &gr, root, acc, d.count, d.bytes), &d);
    return 0;
}

static int scan_rd(struct cg_coll *x)
{
    pami_scan_t *a = &x->xfer.cmd.xfer_scan;
    struct red d;
    int rc = red_args(x, a->sndbuf, a->stype, a->stypecount, a->rcvbuf, a->rtype, a->rtypecount, a->op, 1, &d);
    if (rc)
        return rc;
    size_t count = d.count, bytes = d.bytes;
    uint32_t n = x->g->n, me = (uint32_t)x->g->me, k = 0;
    char *part = cg_tmp(x, bytes);
    add_copy(x, 0, part, d.sv, bytes);
    int have_excl = 0;
    for (uint32_t dist = 1; dist < n; dist <<= 1, k++) {
        if (me + dist < n)
            add_send(x, k, me + dist, part, bytes);
        if (me >= dist) {
            char *t = cg_tmp(x, bytes);
            add_recv(x, k, me - dist, t, bytes);
            if (a->exclusive) {
                if (have_excl)
                    add_reduce(x, k + 1, d.rv, t, count);
                else
                    add_copy(x, k + 1, d.rv, t, bytes);
                have_excl = 1;
            }
            add_reduce(x, k + 1, part, t, count);
        }
    }
    if (!a->exclusive)
        add_copy(x, k, d.rv, part, bytes);
    else if (!have_excl) /* task 0: nothing before it; leave the identity-free result as the input */
        add_copy(x, k, d.rv, d.sv, bytes);
    red_done(x, k, &d);
    return 0;
}

/* reduce_scatter: rcounts count elements of stype; each task's share
 * arrives packed and is unpacked into rcvbuf by rtype. */
static int rs_reduce_scatter(struct cg_coll *x)
{
    pami_reduce_scatter_t *a = &x->xfer.cmd.xfer_reduce_scatter;
    struct red d;
    int rc = red_args(x, a->sndbuf, a->stype, a->stypecount, a->rcvbuf, a->rtype, 0, a->op, 0, &d);
    if (rc)
        return rc;
    if (!a->rcounts)
        return pamil_fail(PAMI_INVAL, FN, "rcounts is NULL");
    size_t es = pamil_type_size(x->rt), tot = 0, mine;
    uint32_t n = x->g->n, me = (uint32_t)x->g->me;
    for (uint32_t i = 0; i < n; i++)
        tot += a->rcounts[i];
    if (tot != d.count)
        return pamil_fail(PAMI_INVAL, FN, "rcounts add up to %zu, not stypecount %zu", tot, d.count);
    mine = a->rcounts[me] * es;
    if (mine && !a->rcvbuf)
        return pamil_fail(PAMI_INVAL, FN, "rcvbuf is NULL");
    int unpack;
    char *rv = view_out(x, d.t2, a->rcvbuf, mine, &unpack);
    char *acc = cg_tmp(x, d.bytes);
    add_copy(x, 0, acc, d.sv, d.bytes);
    struct cg_group gr = all_group(x);
    uint32_t r = cg_add_reduce_binomial(x, 0, &gr, 0, acc, d.count, d.bytes);
    if (me == 0) {
        size_t off = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i == 0)
                add_copy(x, r, rv, acc, a->rcounts[0] * es);
            else
                add_send(x, r, i, acc + off, a->rcounts[i] * es);
            off += a->rcounts[i] * es;
        }
    } else {
        add_recv(x, r, 0, rv, mine);
    }
    if (unpack)
        add_unpack(x, r + 1, d.t2, a->rcvbuf, rv, mine);
    return 0;
}

/* ---- allgather(v) ---- */

static int blocks_args(struct cg_coll *x, const char *sb, pami_type_t st, size_t sc, const char *rb, pami_type_t rt,
                       size_t rc_, int need_r, const struct pamil_type **t1, const struct pamil_type **t2,
                       size_t *sbytes, size_t *rbytes)
{
    (void)x;
    int rc = type_bytes("sndbuf", st, sc, sb, t1, sbytes);
    if (!rc)
        rc = type_bytes("rcvbuf", rt, need_r ? rc_ : 0, rb, t2, rbytes);
    if (rc)
        return rc;
    if (need_r && *rbytes != *sbytes)
        return pamil_fail(PAMI_INVAL, FN, "blocks of %zu bytes sent but %zu received", *sbytes, *rbytes);
    return 0;
}

static int ag_common(struct cg_coll *x, int bruck)
{
    pami_allgather_t *a = &x->xfer.cmd.xfer_allgather;
    const struct pamil_type *t1, *t2;
    size_t sb, rb;
    int rc = blocks_args(x, a->sndbuf, a->stype, a->stypecount, a->rcvbuf, a->rtype, a->rtypecount, 1, &t1, &t2,
                         &sb, &rb), unpack;
    if (rc)
        return rc;
    uint32_t n = x->g->n, me = (uint32_t)x->g->me;
    char *sv = view_in(x, t1, a->sndbuf, sb);
    char *rv = view_out(x, t2, a->rcvbuf, sb * n, &unpack);
    uint32_t r = 0;
    if (bruck) {
        char *t = cg_tmp(x, sb * n);
        add_copy(x, 0, t, sv, sb);
        for (uint32_t d = 1; d < n; d <<= 1, r++) {
            uint32_t cnt = d < n - d ? d : n - d;
            add_send(x, r, (me + n - d) % n, t, sb * cnt);
            add_recv(x, r, (me + d) % n, t + sb * d, sb * cnt);
        }
        for (uint32_t i = 0; i < n; i++)
            add_copy(x, r, rv + sb * ((me + i) % n), t + sb * i, sb);
    } else {
        add_copy(x, 0, rv + sb * me, sv, sb);
        for (uint32_t k = 0; k + 1 < n; k++, r++) {
            uint32_t sblk = (me + n - k) % n, rblk = (me + n - k - 1) % n;
            add_send(x, r, (me + 1) % n, rv + sb * sblk, sb);
            add_recv(x, r, (me + n - 1) % n, rv + sb * rblk, sb);
        }
    }
    if (unpack)
        add_unpack(x, r, t2, a->rcvbuf, rv, sb * n);
    return 0;
}
static int ag_bruck(struct cg_coll *x) { return ag_common(x, 1); }
static int ag_ring(struct cg_coll *x) { return ag_common(x, 0); }

/* v-variants: counts in elements of the type, displacements in its extent
 * (as MPI's), so a block of a non-contiguous type is its packed data bytes
 * (cnt) found at a byte offset (off) of the user's buffer. */
/* An int count of the _int forms; a negative one counts as 0. */
static size_t nonneg(int c) { return c < 0 ? 0 : (size_t)c; }

static int v_args(struct cg_coll *x, const struct pamil_type *t, const char *what, const void *counts,
                  const void *displs, int is_int, size_t *cnt, size_t *off, const void *buf)
{
    uint32_t n = x->g->n;
    if (!counts || !displs)
        return pamil_fail(PAMI_INVAL, FN, "%s counts or displacements are NULL", what);
    size_t es = pamil_type_size(t), ext = pamil_type_extent(t);
    for (uint32_t i = 0; i < n; i++) {
        long long c = is_int ? ((const int *)counts)[i] : (long long)((const size_t *)counts)[i];
        long long d = is_int ? ((const int *)displs)[i] : (long long)((const size_t *)displs)[i];
        if (c < 0 || d < 0)
            return pamil_fail(PAMI_INVAL, FN, "negative %s count or displacement for rank %u", what, i);
        cnt[i] = (size_t)c * es;
        off[i] = (size_t)d * ext;
        if (cnt[i] && !buf)
            return pamil_fail(PAMI_INVAL, FN, "%s buffer is NULL", what);
    }
    return 0;
}

/* The blocks of a v-collective move packed: for a non-contiguous type,
 * a staging buffer holds block i at (*off)[i] (replaced by packed
 * offsets); a send side packs every block into it in round 0, a receive
 * side unpacks them with v_unpack once the data is in. A contiguous type
 * moves in place: buf and *off are kept. */
static char *v_packed(struct cg_coll *x, const struct pamil_type *t, char *buf, const size_t *cnt, size_t **off,
                      int pack)
{
    if (pamil_type_is_contig(t))
        return buf;
    uint32_t n = x->g->n;
    size_t *poff = cg_tmp(x, n * sizeof *poff), total = 0;
    for (uint32_t i = 0; i < n; i++) {
        poff[i] = total;
        total += cnt[i];
    }
    char *p = cg_tmp(x, total ? total : 1);
    for (uint32_t i = 0; pack && i < n; i++)
        if (cnt[i]) {
            struct cg_op *op = cg_add(x, OP_PACK, 0);
            op->dst = p + poff[i];
            op->src = buf + (*off)[i];
            op->len = cnt[i];
            op->type = t;
        }
    *off = poff;
    return p;
}

static void v_unpack(struct cg_coll *x, uint32_t round, const struct pamil_type *t, char *buf, const size_t *cnt,
                     const size_t *off, const char *packed, const size_t *poff)
{
    if (packed == buf)
        return;
    for (uint32_t i = 0; i < x->g->n; i++)
        if (cnt[i])
            add_unpack(x, round, t, buf + off[i], packed + poff[i], cnt[i]);
}

static int agv_ring(struct cg_coll *x)
{
    int is_int = x->d->xfer == PAMI_XFER_ALLGATHERV_INT;
    pami_allgatherv_t *a = &x->xfer.cmd.xfer_allgatherv;
    pami_allgatherv_int_t *b = &x->xfer.cmd.xfer_allgatherv_int;
    char *sbuf = is_int ? b->sndbuf : a->sndbuf, *rbuf = is_int ? b->rcvbuf : a->rcvbuf;
    pami_type_t st = is_int ? b->stype : a->stype, rtt = is_int ? b->rtype : a->rtype;
    size_t sc = is_int ? nonneg(b->stypecount) : a->stypecount;
    const void *cnts = is_int ? (const void *)b->rtypecounts : (const void *)a->rtypecounts;
    const void *dsp = is_int ? (const void *)b->rdispls : (const void *)a->rdispls;
    uint32_t n = x->g->n, me = (uint32_t)x->g->me;
    const struct pamil_type *t1, *t2;
    size_t sb;
    int rc = type_bytes("sndbuf", st, sc, sbuf, &t1, &sb);
    if (rc)
        return rc;
    t2 = pamil_type_of(FN, rtt);
    if (!t2)
        return PAMI_INVAL;
    size_t *cnt = cg_tmp(x, n * sizeof *cnt), *off = cg_tmp(x, n * sizeof *off), *poff = off;
    rc = v_args(x, t2, "receive", cnts, dsp, is_int, cnt, off, rbuf);
    if (rc)
        return rc;
    if (cnt[me] != sb)
        return pamil_fail(PAMI_INVAL, FN, "sending %zu bytes but my receive count is %zu bytes", sb, cnt[me]);
    char *sv = view_in(x, t1, sbuf, sb), *rv = v_packed(x, t2, rbuf, cnt, &poff, 0);
    add_copy(x, 0, rv + poff[me], sv, sb);
    uint32_t r = 0;
    for (uint32_t k = 0; k + 1 < n; k++, r++) {
        uint32_t sblk = (me + n - k) % n, rblk = (me + n - k - 1) % n;
        add_send(x, r, (me + 1) % n, rv + poff[sblk], cnt[sblk]);
        add_recv(x, r, (me + n - 1) % n, rv + poff[rblk], cnt[rblk]);
    }
    v_unpack(x, r, t2, rbuf, cnt, off, rv, poff);
    return 0;
}

/* ---- gather / scatter (linear) ---- */

/* A rooted collective's arguments, whichever of its three forms (plain,
 * v, v_int) the caller used. "mine" is the side every task has (gather:
 * the send side, scatter: the receive side), "root's" the other. */
struct rooted {
    pami_endpoint_t root;
    char *sbuf, *rbuf;
    pami_type_t st, rt;
    size_t mine;                 /* count of my side (a negative int: 0) */
    size_t roots;                /* plain form: count of the root's side, per task */
    const void *counts, *displs; /* v forms: the root's counts and displacements */
    int v, v_int;
};

static struct rooted gather_args(struct cg_coll *x)
{
    pami_xfer_type_t k = x->d->xfer;
    if (k == PAMI_XFER_GATHER) {
        pami_gather_t *a = &x->xfer.cmd.xfer_gather;
        return (struct rooted){a->root, a->sndbuf, a->rcvbuf, a->stype, a->rtype, a->stypecount, a->rtypecount,
                               NULL, NULL, 0, 0};
    }
    if (k == PAMI_XFER_GATHERV) {
        pami_gatherv_t *v = &x->xfer.cmd.xfer_gatherv;
        return (struct rooted){v->root, v->sndbuf, v->rcvbuf, v->stype, v->rtype, v->stypecount, 0,
                               v->rtypecounts, v->rdispls, 1, 0};
    }
    pami_gatherv_int_t *vi = &x->xfer.cmd.xfer_gatherv_int;
    return (struct rooted){vi->root, vi->sndbuf, vi->rcvbuf, vi->stype, vi->rtype, nonneg(vi->stypecount), 0,
                           vi->rtypecounts, vi->rdispls, 1, 1};
}

static struct rooted scatter_args(struct cg_coll *x)
{
    pami_xfer_type_t k = x->d->xfer;
    if (k == PAMI_XFER_SCATTER) {
        pami_scatter_t *a = &x->xfer.cmd.xfer_scatter;
        return (struct rooted){a->root, a->sndbuf, a->rcvbuf, a->stype, a->rtype, a->rtypecount, a->stypecount,
                               NULL, NULL, 0, 0};
    }
    if (k == PAMI_XFER_SCATTERV) {
        pami_scatterv_t *v = &x->xfer.cmd.xfer_scatterv;
        return (struct rooted){v->root, v->sndbuf, v->rcvbuf, v->stype, v->rtype, v->rtypecount, 0,
                               v->stypecounts, v->sdispls, 1, 0};
    }
    pami_scatterv_int_t *vi = &x->xfer.cmd.xfer_scatterv_int;
    return (struct rooted){vi->root, vi->sndbuf, vi->rcvbuf, vi->stype, vi->rtype, nonneg(vi->rtypecount), 0,
                           vi->stypecounts, vi->sdispls, 1, 1};
}

static int gather_lin(struct cg_coll *x)
{
    uint32_t n = x->g->n, me = (uint32_t)x->g->me, root;
    struct rooted g = gather_args(x);
    int rc = check_root(x, g.root, &root);
    if (rc)
        return rc;
    char *sbuf = g.sbuf, *rbuf = g.rbuf;
    pami_type_t st = g.st, rtt = g.rt;
    size_t sc = g.mine;
    const struct pamil_type *t1, *t2;
    size_t sb;
    rc = type_bytes("sndbuf", st, sc, sbuf, &t1, &sb);
    if (rc)
        return rc;
    char *sv = view_in(x, t1, sbuf, sb);
    if (me != root) {
        add_send(x, 0, root, sv, sb);
        return 0;
    }
    t2 = pamil_type_of(FN, rtt);
    if (!t2)
        return PAMI_INVAL;
    size_t *cnt = cg_tmp(x, n * sizeof *cnt), *off = cg_tmp(x, n * sizeof *off), *poff = off;
    int unpack = 0;
    char *rv = rbuf;
    if (!g.v) {
        size_t rb;
        rc = type_bytes("rcvbuf", rtt, g.roots * n, rbuf, &t2, &rb);
        if (rc)
            return rc;
        if (rb != sb * n)
            return pamil_fail(PAMI_INVAL, FN, "blocks of %zu bytes sent but %zu received", sb, rb / n);
        rv = view_out(x, t2, rbuf, rb, &unpack);
        for (uint32_t i = 0; i < n; i++) {
            cnt[i] = sb;
            off[i] = sb * i;
        }
    } else {
        rc = v_args(x, t2, "receive", g.counts, g.displs, g.v_int, cnt, off, rbuf);
        if (rc)
            return rc;
        if (cnt[me] != sb)
            return pamil_fail(PAMI_INVAL, FN, "root sends %zu bytes but receives %zu from itself", sb, cnt[me]);
        poff = off;
        rv = v_packed(x, t2, rbuf, cnt, &poff, 0);
    }
    for (uint32_t i = 0; i < n; i++)
        if (i == me)
            add_copy(x, 0, rv + poff[i], sv, sb);
        else
            add_recv(x, 0, i, rv + poff[i], cnt[i]);
    if (unpack)
        add_unpack(x, 1, t2, rbuf, rv, sb * n);
    else if (g.v)
        v_unpack(x, 1, t2, rbuf, cnt, off, rv, poff);
    return 0;
}

static int scatter_lin(struct cg_coll *x)
{
    uint32_t n = x->g->n, me = (uint32_t)x->g->me, root;
    struct rooted g = scatter_args(x);
    int rc = check_root(x, g.root, &root);
    if (rc)
        return rc;
    char *sbuf = g.sbuf, *rbuf = g.rbuf;
    pami_type_t st = g.st, rtt = g.rt;
    size_t rc_ = g.mine;
    const struct pamil_type *t1, *t2;
    size_t rb;
    rc = type_bytes("rcvbuf", rtt, rc_, rbuf, &t2, &rb);
    if (rc)
        return rc;
    int unpack;
    char *rv = view_out(x, t2, rbuf, rb, &unpack);
    if (me != root) {
        add_recv(x, 0, root, rv, rb);
        if (unpack)
            add_unpack(x, 1, t2, rbuf, rv, rb);
        return 0;
    }
    t1 = pamil_type_of(FN, st);
    if (!t1)
        return PAMI_INVAL;
    size_t *cnt = cg_tmp(x, n * sizeof *cnt), *off = cg_tmp(x, n * sizeof *off);
    char *sv = sbuf;
    if (!g.v) {
        size_t sb;
        rc = type_bytes("sndbuf", st, g.roots * n, sbuf, &t1, &sb);
        if (rc)
            return rc;
        if (sb != rb * n)
            return pamil_fail(PAMI_INVAL, FN, "blocks of %zu bytes sent but %zu received", sb / n, rb);
        sv = view_in(x, t1, sbuf, sb);
        for (uint32_t i = 0; i < n; i++) {
            cnt[i] = rb;
            off[i] = rb * i;
        }
    } else {
        rc = v_args(x, t1, "send", g.counts, g.displs, g.v_int, cnt, off, sbuf);
        if (rc)
            return rc;
        if (cnt[me] != rb)
            return pamil_fail(PAMI_INVAL, FN, "root receives %zu bytes but sends %zu to itself", rb, cnt[me]);
        sv = v_packed(x, t1, sbuf, cnt, &off, 1);
    }
    for (uint32_t i = 0; i < n; i++)
        if (i == me)
            add_copy(x, 0, rv, sv + off[i], rb);
        else
            add_send(x, 0, i, sv + off[i], cnt[i]);
    if (unpack)
        add_unpack(x, 1, t2, rbuf, rv, rb);
    return 0;
}

/* ---- alltoall(v): pairwise exchange, round k with me+k / me-k ---- */

static int overlaps(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

/* Sends read blocks that later rounds' receives may overwrite when the
 * buffers overlap (sndbuf == rcvbuf, MPI's in-place alltoall): then the
 * send side is copied aside in round 0 and sent from there. */
static char *apart(struct cg_coll *x, char *sv, const size_t *so, const size_t *sc, const char *rv,
                   const size_t *ro, const size_t *rc_)
{
    uint32_t n = x->g->n;
    size_t slo = SIZE_MAX, shi = 0, rlo = SIZE_MAX, rhi = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (sc[i]) {
            slo = so[i] < slo ? so[i] : slo;
            shi = so[i] + sc[i] > shi ? so[i] + sc[i] : shi;
        }
        if (rc_[i]) {
            rlo = ro[i] < rlo ? ro[i] : rlo;
            rhi = ro[i] + rc_[i] > rhi ? ro[i] + rc_[i] : rhi;
        }
    }
    if (slo >= shi || rlo >= rhi || !overlaps(sv + slo, shi - slo, rv + rlo, rhi - rlo))
        return sv;
    char *copy = cg_tmp(x, shi);
    add_copy(x, 0, copy + slo, sv + slo, shi - slo);
    return copy;
}

static int a2a_pairwise(struct cg_coll *x)
{
    pami_xfer_type_t k = x->d->xfer;
    uint32_t n = x->g->n, me = (uint32_t)x->g->me;
    size_t *sc = cg_tmp(x, n * sizeof *sc), *so = cg_tmp(x, n * sizeof *so);
    size_t *rc_ = cg_tmp(x, n * sizeof *rc_), *ro = cg_tmp(x, n * sizeof *ro), *uro = NULL;
    char *sbuf, *rbuf, *sv, *rv;
    int unpack = 0, rc;
    const struct pamil_type *t1, *t2;
    size_t rbytes = 0;
    if (k == PAMI_XFER_ALLTOALL) {
        pami_alltoall_t *a = &x->xfer.cmd.xfer_alltoall;
        size_t sb, rb;
        rc = blocks_args(x, a->sndbuf, a->stype, a->stypecount * n, a->rcvbuf, a->rtype, a->rtypecount * n, 1, &t1,
                         &t2, &sb, &rb);
        if (rc)
            return rc;
        sbuf = a->sndbuf;
        rbuf = a->rcvbuf;
        sv = view_in(x, t1, sbuf, sb);
        rv = view_out(x, t2, rbuf, rb, &unpack);
        rbytes = rb;
        for (uint32_t i = 0; i < n; i++) {
            sc[i] = rc_[i] = sb / n;
            so[i] = ro[i] = sb / n * i;
        }
    } else {
        int is_int = k == PAMI_XFER_ALLTOALLV_INT;
        pami_alltoallv_t *a = &x->xfer.cmd.xfer_alltoallv;
        pami_alltoallv_int_t *b = &x->xfer.cmd.xfer_alltoallv_int;
        sbuf = is_int ? b->sndbuf : a->sndbuf;
        rbuf = is_int ? b->rcvbuf : a->rcvbuf;
        t1 = pamil_type_of(FN, is_int ? b->stype : a->stype);
        t2 = pamil_type_of(FN, is_int ? b->rtype : a->rtype);
        if (!t1 || !t2)
            return PAMI_INVAL;
        rc = v_args(x, t1, "send", is_int ? (const void *)b->stypecounts : (const void *)a->stypecounts,
                    is_int ? (const void *)b->sdispls : (const void *)a->sdispls, is_int, sc, so, sbuf);
        if (!rc)
            rc = v_args(x, t2, "receive", is_int ? (const void *)b->rtypecounts : (const void *)a->rtypecounts,
                        is_int ? (const void *)b->rdispls : (const void *)a->rdispls, is_int, rc_, ro, rbuf);
        if (rc)
            return rc;
        if (sc[me] != rc_[me])
            return pamil_fail(PAMI_INVAL, FN, "sending %zu bytes to myself but receiving %zu", sc[me], rc_[me]);
        uro = ro;
        sv = v_packed(x, t1, sbuf, sc, &so, 1);
        rv = v_packed(x, t2, rbuf, rc_, &ro, 0);
    }
    sv = apart(x, sv, so, sc, rv, ro, rc_);
    add_copy(x, 0, rv + ro[me], sv + so[me], sc[me]);
    uint32_t r = 0;
    for (uint32_t s = 1; s < n; s++, r++) {
        uint32_t to = (me + s) % n, from = (me + n - s) % n;
        add_send(x, r, to, sv + so[to], sc[to]);
        add_recv(x, r, from, rv + ro[from], rc_[from]);
    }
    if (unpack)
        add_unpack(x, r, t2, rbuf, rv, rbytes);
    else if (uro)
        v_unpack(x, r, t2, rbuf, rc_, uro, rv, ro);
    return 0;
}

/* ---- the table ---- */

const struct cg_desc cg_descs[] = {
    {PAMI_XFER_BARRIER, "I0:Dissemination:P2P:P2P", 0, 0, b_dissem},
    {PAMI_XFER_BARRIER, "I0:Binomial:P2P:P2P", 0, 0, b_binomial},
    {PAMI_XFER_BARRIER, "I0:Hybrid:SHMEM:P2P", 0, 0, b_hyb_p2p},
    {PAMI_XFER_BARRIER, "I0:Hybrid:SHMEM:CAU", 0, 0, b_hyb_cau},
    {PAMI_XFER_BARRIER, "I0:SharedMemory:SHMEM:SHMEM", 1, CG_NEED_ONENODE, b_hyb_p2p},
    {PAMI_XFER_BROADCAST, "I0:Binomial:P2P:P2P", 0, 0, bc_binomial},
    {PAMI_XFER_BROADCAST, "I0:Hybrid:SHMEM:P2P", 0, 0, bc_hyb_p2p},
    {PAMI_XFER_BROADCAST, "I0:SharedMemory2B:SHMEM:SHMEM", 1, CG_NEED_ONENODE, bc_hyb_p2p},
    {PAMI_XFER_BROADCAST, "I0:SharedMemory1B:SHMEM:SHMEM", 1, CG_NEED_ONENODE, bc_shm1},
    {PAMI_XFER_BROADCAST, "I0:Hybrid:SHMEM:CAU", 1, CG_NEED_SMALL, bc_hyb_cau},
    {PAMI_XFER_ALLREDUCE, "I0:RecursiveDoubling:P2P:P2P", 0, 0, ar_rd},
    {PAMI_XFER_ALLREDUCE, "I0:Binomial:P2P:P2P", 0, 0, ar_binomial},
    {PAMI_XFER_ALLREDUCE, "I0:Hybrid:SHMEM:P2P", 0, 0, ar_hyb_p2p},
    {PAMI_XFER_ALLREDUCE, "I0:SharedMemory:SHMEM:SHMEM", 1, CG_NEED_ONENODE, ar_hyb_p2p},
    {PAMI_XFER_ALLREDUCE, "I0:Hybrid:SHMEM:CAU", 1, CG_NEED_CAU, ar_hyb_cau},
    {PAMI_XFER_REDUCE, "I0:Binomial:P2P:P2P", 0, 0, rd_binomial},
    {PAMI_XFER_ALLGATHER, "I0:Bruck:P2P:P2P", 0, 0, ag_bruck},
    {PAMI_XFER_ALLGATHER, "I0:Ring:P2P:P2P", 0, 0, ag_ring},
    {PAMI_XFER_ALLGATHERV, "I0:Ring:P2P:P2P", 0, 0, agv_ring},
    {PAMI_XFER_ALLGATHERV_INT, "I0:Ring:P2P:P2P", 0, 0, agv_ring},
    {PAMI_XFER_GATHER, "I0:Linear:P2P:P2P", 0, 0, gather_lin},
    {PAMI_XFER_GATHERV, "I0:Linear:P2P:P2P", 0, 0, gather_lin},
    {PAMI_XFER_GATHERV_INT, "I0:Linear:P2P:P2P", 0, 0, gather_lin},
    {PAMI_XFER_SCATTER, "I0:Linear:P2P:P2P", 0, 0, scatter_lin},
    {PAMI_XFER_SCATTERV, "I0:Linear:P2P:P2P", 0, 0, scatter_lin},
    {PAMI_XFER_SCATTERV_INT, "I0:Linear:P2P:P2P", 0, 0, scatter_lin},
    {PAMI_XFER_ALLTOALL, "I0:Pairwise:P2P:P2P", 0, 0, a2a_pairwise},
    {PAMI_XFER_ALLTOALLV, "I0:Pairwise:P2P:P2P", 0, 0, a2a_pairwise},
    {PAMI_XFER_ALLTOALLV_INT, "I0:Pairwise:P2P:P2P", 0, 0, a2a_pairwise},
    {PAMI_XFER_SCAN, "I0:RecursiveDoubling:P2P:P2P", 0, 0, scan_rd},
    {PAMI_XFER_REDUCE_SCATTER, "I0:ReduceScatterv:P2P:P2P", 0, 0, rs_reduce_scatter},
    /* active-message collectives run outside the schedules (coll_am.c) */
    {PAMI_XFER_AMBROADCAST, "I0:AMLinear:P2P:P2P", 0, 0, NULL},
    {PAMI_XFER_AMSCATTER, "I0:AMLinear:P2P:P2P", 0, 0, NULL},
    {PAMI_XFER_AMGATHER, "I0:AMLinear:P2P:P2P", 0, 0, NULL},
    {PAMI_XFER_AMREDUCE, "I0:AMLinear:P2P:P2P", 0, 0, NULL},
};
const size_t cg_ndescs = sizeof cg_descs / sizeof cg_descs[0];
