/* The collective state machine (see coll_impl.h): rounds of internal
 * messages, shared-memory steps polled from posted work, CAU steps that
 * complete with a module event, and early arrivals kept as unexpected. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/slice.h"
#include "emunic/waiter.h"

#include "coll_impl.h"

struct cg_hdr {
    uint32_t gid, seq, round, src;
};

/* ---- schedule building ---- */

struct cg_op *cg_add(struct cg_coll *x, unsigned kind, uint32_t round)
{
    if (x->nops == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        struct cg_op *o = realloc(x->ops, cap * sizeof *o);
        if (!o)
            abort();
        x->ops = o;
        x->cap = cap;
    }
    struct cg_op *op = &x->ops[x->nops++];
    memset(op, 0, sizeof *op);
    op->x = x;
    op->kind = (uint8_t)kind;
    op->round = round;
    if (round + 1 > x->nrounds)
        x->nrounds = round + 1;
    return op;
}

void *cg_tmp(struct cg_coll *x, size_t len)
{
    void **t = realloc(x->tmps, (x->ntmps + 1) * sizeof *t);
    if (!t)
        abort();
    x->tmps = t;
    void *p = calloc(1, len ? len : 1);
    if (!p)
        abort();
    x->tmps[x->ntmps++] = p;
    return p;
}

/* ---- shared memory region ----
 * slot i (local index i): arrive @0 (reduce instances posted), done @64
 * (broadcast instances consumed), buffer @128. Then two broadcast buffers:
 * ready @0, buffer @128. */
#define SLOT (128 + CG_SHM_CHUNK)

size_t cg_shm_size(uint32_t nlocal)
{
    return (size_t)(nlocal + 2) * SLOT;
}

/* A leader about to free its node's area (client destroy): the members
 * may not have read the last broadcast yet (a barrier's release), and the
 * leader's process may exit next, taking the area with it. Wait until
 * every member says it has (bounded: a member that died never will). */
void cg_shm_quiesce(char *shm, uint32_t nlocal, uint64_t bseq)
{
    int64_t end = emu_now_ns() + 10ll * 1000000000;
    for (uint32_t j = 1; j < nlocal; j++) {
        uint64_t *done = (uint64_t *)(shm + (size_t)j * SLOT + 64);
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < bseq) {
            if (emu_now_ns() > end) {
                fprintf(stderr, "emunic pami: a node's shared collective area is freed before member %u read "
                                "its last broadcast\n", j);
                return;
            }
            sched_yield();
        }
    }
}

static uint64_t *shm_arrive(struct cg_geom *g, uint32_t i) { return (uint64_t *)(g->shm + (size_t)i * SLOT); }
static uint64_t *shm_done(struct cg_geom *g, uint32_t i) { return (uint64_t *)(g->shm + (size_t)i * SLOT + 64); }
static char *shm_buf(struct cg_geom *g, uint32_t i) { return g->shm + (size_t)i * SLOT + 128; }
static uint64_t *shm_ready(struct cg_geom *g, uint32_t b) { return (uint64_t *)(g->shm + (size_t)(g->nlocal + b) * SLOT); }
static char *shm_bbuf(struct cg_geom *g, uint32_t b) { return g->shm + (size_t)(g->nlocal + b) * SLOT + 128; }

static uint64_t ld(uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void st(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Non-blocking shm reduce to local index 0 (n-ary tree, pipelined in
 * chunks): returns 1 when this task's part is finished. */
static int shm_reduce_poll(struct cg_op *op)
{
    struct cg_coll *x = op->x;
    struct cg_geom *g = x->g;
    uint32_t me = (uint32_t)g->lme;
    size_t es = x->rt ? pamil_type_size(x->rt) : 1;
    size_t per = es ? (CG_SHM_CHUNK / es) * es : CG_SHM_CHUNK;
    while (op->chunk_i < op->nchunk) {
        uint64_t s = op->inst + op->chunk_i;
        size_t off = op->chunk_i * per;
        size_t n = op->len - off < per ? op->len - off : per;
        char *acc = (char *)op->dst + off;
        if (op->state == 0) {
            for (uint32_t k = 1; k <= CG_SHM_FANOUT; k++) {
                uint32_t ch = CG_SHM_FANOUT * me + k;
                if (ch < g->nlocal && ld(shm_arrive(g, ch)) < s)
                    return 0;
            }
            for (uint32_t k = 1; k <= CG_SHM_FANOUT; k++) {
                uint32_t ch = CG_SHM_FANOUT * me + k;
                if (ch < g->nlocal && n)
                    pamil_reduce(x->op, x->rt, acc, shm_buf(g, ch), n / es);
            }
            op->state = 1;
        }
        if (me != 0) {
            uint32_t parent = (me - 1) / CG_SHM_FANOUT;
            if (ld(shm_arrive(g, parent)) + 1 < s)
                return 0;
            if (n)
                memcpy(shm_buf(g, me), acc, n);
        }
        st(shm_arrive(g, me), s);
        op->state = 0;
        op->chunk_i++;
    }
    return 1;
}

/* Non-blocking flat broadcast from local index op->peer, one or two
 * alternating buffers (op->count), pipelined in chunks. */
static int shm_bcast_poll(struct cg_op *op)
{
    struct cg_coll *x = op->x;
    struct cg_geom *g = x->g;
    uint32_t me = (uint32_t)g->lme, nbuf = (uint32_t)op->count;
    while (op->chunk_i < op->nchunk) {
        uint64_t s = op->inst + op->chunk_i;
        uint32_t b = (uint32_t)(s % 2); /* 1B waits for s-1, 2B for s-2 */
        size_t off = op->chunk_i * CG_SHM_CHUNK;
        size_t n = op->len - off < CG_SHM_CHUNK ? op->len - off : CG_SHM_CHUNK;
        char *buf = (char *)op->dst + off;
        if (me == op->peer) {
            if (s > nbuf)
                for (uint32_t j = 0; j < g->nlocal; j++)
                    if (j != me && ld(shm_done(g, j)) < s - nbuf)
                        return 0;
            if (n)
                memcpy(shm_bbuf(g, b), buf, n);
            st(shm_ready(g, b), s);
        } else {
            if (ld(shm_ready(g, b)) != s)
                return 0;
            if (n)
                memcpy(buf, shm_bbuf(g, b), n);
        }
        st(shm_done(g, me), s);
        op->chunk_i++;
    }
    return 1;
}

/* ---- rounds ---- */

static void round_start(struct cg_coll *x);
static void finish(struct cg_coll *x);

static struct cg_ctx *ctx_state(struct pamil_context *c)
{
    return c->coll;
}

static void op_done(struct cg_coll *x)
{
    if (x->pending && --x->pending == 0) {
        x->round++;
        round_start(x);
    }
}

static void send_done(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    struct cg_op *op = cookie;
    struct cg_coll *x = op->x;
    if (r != PAMI_SUCCESS && x->result == PAMI_SUCCESS)
        x->result = r;
    op->done = 1;
    op_done(x);
}

static int work_fn(pami_context_t ctx, void *cookie);
static void start(struct cg_coll *x);

static void want_poll(struct cg_coll *x)
{
    struct cg_ctx *s = ctx_state(x->c);
    if (!s->work_posted) {
        s->work_posted = 1;
        PAMI_Context_post(x->c, &s->work, work_fn, x->c);
    }
}

static int cau_post(struct cg_coll *x, struct cg_op *op)
{
    struct cg_geom *g = x->g;
    struct emu_msg m;
    memset(&m, 0, sizeof m);
    m.op = EMU_OP_MODULE;
    m.module = EMU_MOD_PAMI;
    m.aop = (uint8_t)(op->kind == OP_CAU_ALLREDUCE ? CAU_ALLREDUCE : CAU_BCAST);
    if (op->kind == OP_CAU_ALLREDUCE) {
        if (x->rt) {
            m.dtype = (uint8_t)pamil_type_emu_dtype(x->rt);
            m.operand[0] = (uint8_t)pamil_data_emu_aop(x->op);
        } else { /* barrier: a sum of zeros */
            m.dtype = EMU_INT64;
            m.operand[0] = EMU_AOP_SUM;
        }
    }
    m.dst = g->cl->task;
    m.key = (g->cl->index << 8) | x->c->offset;
    m.ext = ((uint64_t)g->id << 32) | x->seq;
    m.imm = pamil_word(PAMIL_K_MODULE, g->cl->index, x->c->offset, 0, CG_CAU_SUBID);
    m.len = op->len;
    m.cookie = (uint64_t)(uintptr_t)op;
    if (op->len)
        memcpy(m.data, op->dst, op->len);
    struct cau_tree t;
    memset(&t, 0, sizeof t);
    uint32_t i = g->node_idx[g->me], n = g->nleaders;
    t.parent = i ? g->tasks[g->leaders[(i - 1) / CG_CAU_FANOUT]] : UINT32_MAX;
    for (uint32_t k = 1; k <= CG_CAU_FANOUT; k++)
        if (CG_CAU_FANOUT * i + k < n)
            t.child[t.nchild++] = g->tasks[g->leaders[CG_CAU_FANOUT * i + k]];
    t.root = op->peer;
    memcpy(m.data + CG_CAU_MAX, &t, sizeof t);
    m.dlen = (uint16_t)(CG_CAU_MAX + sizeof t);
    int rc = emunic_post_module(&m);
    return rc ? (int)pamil_post_result("PAMI_Collective", rc) : 0;
}

static int match_unexpected(struct cg_coll *x, struct cg_op *op)
{
    struct cg_ctx *s = ctx_state(x->c);
    struct cg_umsg **pp = &s->unexp, *prev = NULL;
    for (struct cg_umsg *u = s->unexp; u; prev = u, pp = &u->next, u = u->next) {
        if (u->gid == x->g->id && u->seq == x->seq && u->round == op->round &&
            u->src == op->peer) {
            size_t n = u->len < op->len ? u->len : op->len;
            if (n)
                memcpy(op->dst, u->data, n);
            *pp = u->next;
            if (s->unexp_tail == u)
                s->unexp_tail = prev;
            free(u);
            op->done = 1;
            return 1;
        }
    }
    return 0;
}

struct pack_arg {
    char *packed;
    char *buf;
    size_t pos;
    int out;
};

static int pack_run(void *arg, size_t off, size_t len)
{
    struct pack_arg *a = arg;
    if (a->out)
        memcpy(a->buf + off, a->packed + a->pos, len);
    else
        memcpy(a->packed + a->pos, a->buf + off, len);
    a->pos += len;
    return 0;
}

static void local_op(struct cg_coll *x, struct cg_op *op)
{
    struct cg_geom *g = x->g;
    switch (op->kind) {
    case OP_COPY:
        if (op->len && op->dst != op->src)
            memmove(op->dst, op->src, op->len);
        break;
    case OP_REDUCE:
        if (op->count)
            pamil_reduce(x->op, op->type ? op->type : x->rt, op->dst, op->src, op->count);
        break;
    case OP_PACK:
    case OP_UNPACK: {
        struct pack_arg a = {.packed = op->kind == OP_PACK ? op->dst : (char *)op->src,
                             .buf = op->kind == OP_PACK ? (char *)op->src : op->dst,
                             .out = op->kind == OP_UNPACK};
        if (op->len)
            pamil_type_walk(op->type, 0, op->len, pack_run, &a);
        break;
    }
    case OP_ATTACH:
        if (g->shm_own) {
            g->shm = g->shm_own;
        } else if (!g->shm) {
            uint32_t lt = g->tasks[g->local[0]];
            size_t hl = 0;
            char *base = emunic_peer_heap(lt, &hl);
            uint64_t rb = emunic_heap_addr(lt);
            if (base && rb && g->shm_raddr >= rb && g->shm_raddr - rb + cg_shm_size(g->nlocal) <= hl)
                g->shm = base + (g->shm_raddr - rb);
            else {
                pamil_fail(PAMI_ERROR, "PAMI_Collective", "cannot map the node leader's shared memory");
                abort(); /* shared-memory collectives cannot go on */
            }
        }
        break;
    default:
        break;
    }
}

static void round_start(struct cg_coll *x)
{
    while (x->round < x->nrounds) {
        x->pending = 1; /* guard while posting */
        if (x->polling) {
            x->polling = 0;
            ctx_state(x->c)->npolling--;
        }
        for (size_t i = 0; i < x->nops; i++) {
            struct cg_op *op = &x->ops[i];
            if (op->round != x->round)
                continue;
            switch (op->kind) {
            case OP_SEND: {
                struct cg_hdr h = {x->g->id, x->seq, x->round, (uint32_t)x->g->me};
                x->pending++;
                pami_result_t r = pamil_internal_send(x->c, x->g->tasks[op->peer], CG_MSG_ID, &h, sizeof h,
                                                      op->src, op->len, send_done, op);
                if (r != PAMI_SUCCESS) {
                    x->result = r;
                    x->pending--;
                }
                break;
            }
            case OP_RECV:
                if (!match_unexpected(x, op))
                    x->pending++;
                break;
            case OP_SHM_REDUCE:
            case OP_SHM_BCAST:
                x->pending++;
                x->polling = 1;
                break;
            case OP_CAU_ALLREDUCE:
            case OP_CAU_BCAST:
                x->pending++;
                if (cau_post(x, op) != 0) {
                    x->result = PAMI_ERROR;
                    x->pending--;
                }
                break;
            default:
                local_op(x, op);
            }
        }
        if (x->polling) {
            ctx_state(x->c)->npolling++;
            want_poll(x);
        }
        if (--x->pending)
            return;
        x->round++;
    }
    finish(x);
}

/* posted work: poll every shm step of this context's collectives */
static int work_fn(pami_context_t ctx, void *cookie)
{
    (void)ctx;
    struct pamil_context *c = cookie;
    struct cg_ctx *s = ctx_state(c);
    int progressed = 0;
    while (s->start_head) {
        struct cg_coll *x = s->start_head;
        s->start_head = x->snext;
        if (!s->start_head)
            s->start_tail = NULL;
        start(x);
        progressed = 1;
    }
    for (struct cg_coll *x = s->active, *nx; x; x = nx) {
        nx = x->anext;
        if (!x->polling)
            continue;
        for (size_t i = 0; i < x->nops; i++) {
            struct cg_op *op = &x->ops[i];
            if (op->round != x->round || op->done)
                continue;
            int d = op->kind == OP_SHM_REDUCE ? shm_reduce_poll(op)
                    : op->kind == OP_SHM_BCAST ? shm_bcast_poll(op) : 0;
            if (d) {
                op->done = 1;
                progressed = 1;
                op_done(x); /* may finish x, or start the next round */
                nx = s->active; /* the list may have changed: rescan */
                break;
            }
        }
    }
    /* Nothing moved: the peers we wait for need a CPU (on an oversubscribed
     * host a spinning poller would otherwise hold it for a whole slice). */
    if (!progressed && s->npolling)
        emu_poll_pause();
    if (s->npolling || s->start_head)
        return PAMI_EAGAIN;
    s->work_posted = 0;
    return PAMI_SUCCESS;
}

/* ---- start, finish ---- */

static void start(struct cg_coll *x)
{
    struct cg_ctx *s = ctx_state(x->c);
    x->started = 1;
    x->anext = s->active;
    s->active = x;
    x->round = 0;
    round_start(x);
}

/* Queue x on its geometry; the first in line starts at the next advance
 * of its context (later ones when their predecessor finishes). */
static void queue_start(struct cg_coll *x)
{
    struct cg_ctx *s = ctx_state(x->c);
    x->snext = NULL;
    if (s->start_tail)
        s->start_tail->snext = x;
    else
        s->start_head = x;
    s->start_tail = x;
    want_poll(x);
}

void cg_submit(struct cg_coll *x)
{
    struct cg_geom *g = x->g;
    x->qnext = NULL;
    int first = !g->q_head;
    if (g->q_tail)
        g->q_tail->qnext = x;
    else
        g->q_head = x;
    g->q_tail = x;
    if (first)
        queue_start(x);
}

static void coll_free(struct cg_coll *x)
{
    for (size_t i = 0; i < x->ntmps; i++)
        free(x->tmps[i]);
    free(x->tmps);
    free(x->ops);
    free(x);
}

static void finish(struct cg_coll *x)
{
    struct cg_ctx *s = ctx_state(x->c);
    struct cg_geom *g = x->g;
    if (x->polling) {
        x->polling = 0;
        s->npolling--;
    }
    for (struct cg_coll **pp = &s->active; *pp; pp = &(*pp)->anext)
        if (*pp == x) {
            *pp = x->anext;
            break;
        }
    g->q_head = x->qnext;
    if (!g->q_head)
        g->q_tail = NULL;
    struct cg_coll *next = g->q_head;
    if (x->internal_done)
        x->internal_done(x); /* may free g (destroy) */
    else if (x->xfer.cb_done)
        x->xfer.cb_done(x->c, x->xfer.cookie, x->result);
    coll_free(x);
    if (next && !next->started)
        queue_start(next);
}

/* ---- arrivals ---- */

static void on_msg(struct pamil_context *c, uint32_t origin, const void *hdr, size_t hlen,
                   const void *data, size_t len)
{
    (void)origin;
    struct cg_ctx *s = ctx_state(c);
    struct cg_hdr h;
    if (!s || hlen != sizeof h)
        return;
    memcpy(&h, hdr, sizeof h);
    for (struct cg_coll *x = s->active; x; x = x->anext) {
        if (x->g->id != h.gid || x->seq != h.seq || x->round != h.round)
            continue;
        for (size_t i = 0; i < x->nops; i++) {
            struct cg_op *op = &x->ops[i];
            if (op->kind == OP_RECV && op->round == h.round && op->peer == h.src && !op->done) {
                size_t n = len < op->len ? len : op->len;
                if (n)
                    memcpy(op->dst, data, n);
                op->done = 1;
                op_done(x);
                return;
            }
        }
    }
    struct cg_umsg *u = malloc(sizeof *u + len);
    if (!u)
        abort();
    u->gid = h.gid;
    u->seq = h.seq;
    u->round = h.round;
    u->src = h.src;
    u->len = len;
    u->next = NULL;
    if (len)
        memcpy(u->data, data, len);
    if (s->unexp_tail)
        s->unexp_tail->next = u;
    else
        s->unexp = u;
    s->unexp_tail = u;
}

void cg_on_module(struct pamil_context *c, const struct emu_msg *m)
{
    struct cg_ctx *s = ctx_state(c);
    if (!s)
        return;
    unsigned gid = (unsigned)(m->ext >> 32);
    uint32_t seq = (uint32_t)m->ext;
    for (struct cg_coll *x = s->active; x; x = x->anext) {
        if (x->g->id != gid || x->seq != seq)
            continue;
        for (size_t i = 0; i < x->nops; i++) {
            struct cg_op *op = &x->ops[i];
            if ((op->kind == OP_CAU_ALLREDUCE || op->kind == OP_CAU_BCAST) && op->round == x->round &&
                !op->done) {
                if (m->status != EMU_OK && x->result == PAMI_SUCCESS)
                    x->result = pamil_status_result(m->status);
                size_t n = m->len < op->len ? (size_t)m->len : op->len;
                if (n && m->status == EMU_OK)
                    memcpy(op->dst, m->data, n);
                op->done = 1;
                op_done(x);
                return;
            }
        }
    }
}

void cg_engine_register(void)
{
    pamil_internal_register(CG_MSG_ID, on_msg);
}

void cg_ctx_fini(struct pamil_context *c)
{
    struct cg_ctx *s = ctx_state(c);
    if (!s)
        return;
    while (s->unexp) {
        struct cg_umsg *u = s->unexp;
        s->unexp = u->next;
        free(u);
    }
    free(s);
    c->coll = NULL;
}
