/* Active-message collectives: PAMI_XFER_AMBROADCAST, _AMSCATTER,
 * _AMGATHER and _AMREDUCE. Only the root calls PAMI_Collective; each
 * member hears of it by a message and asks the dispatch function set with
 * PAMI_AMCollective_dispatch_set where its data goes (broadcast, scatter)
 * or comes from (gather, reduce). The root talks to every member directly,
 * itself included, outside the geometry's sequence of ordinary
 * collectives, so every callback runs inside an advance:
 *   broadcast  root -> each other member: header + data; root -> itself:
 *              "done" (its cb_done)
 *   scatter    root -> each member: its header + its block; the root's own
 *              dispatch gives its completion callback (as IBM's does)
 *   gather,    root -> each member: a request with its header; each member
 *   reduce     -> root: its packed data. The root combines the blocks in
 *              member order once all are in (a reduction with the op its
 *              own dispatch returned), unpacks into rcvbuf, and runs the
 *              completion its own dispatch gave.
 * Data travels packed: typed buffers are packed before sending, unpacked
 * on arrival by the receiver's type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"

#define AM_MAGIC 0xa3c011ecu

enum { AM_REQ = 0, AM_REPLY = 1, AM_DONE = 2 };

struct am_hdr {
    uint32_t kind; /* pami_xfer_type_t */
    uint32_t gid;
    uint64_t dispatch;
    uint64_t token;  /* the root's struct am_op */
    uint64_t bytes;  /* data bytes per member */
    uint32_t hlen;   /* user header bytes at the front of the payload */
    uint32_t phase;  /* AM_* */
    int32_t status;  /* reply: the member's pami_result_t */
    uint32_t pad;
};

/* The root's side of a gather or reduce (or the "done" of a broadcast). */
struct am_op {
    uint32_t magic;
    struct am_op *next;
    struct cg_geom *g;
    pami_xfer_type_t kind;
    uint32_t missing;     /* replies still to come */
    size_t bytes;         /* per member */
    char *slots;          /* n * bytes, by member */
    char *got;            /* per member: its reply is in */
    void *rcvbuf;
    pami_type_t rtype;
    pami_result_t result;
    int own_seen;         /* the root's own dispatch has run */
    pami_event_function done;
    void *cookie;
    pami_data_function op; /* reduce: the operation and element type the */
    pami_type_t optype;    /* root's own dispatch gave (as IBM's does) */
};

static struct am_op *live; /* under pamil.mu */

struct cg_amd {
    unsigned ctx; /* context offset */
    size_t id;
    pami_xfer_type_t kind;
    pami_dispatch_callback_function fn;
    void *cookie;
};

static const char FN[] = "PAMI_Collective";

int cg_is_am(pami_xfer_type_t k)
{
    return k == PAMI_XFER_AMBROADCAST || k == PAMI_XFER_AMSCATTER || k == PAMI_XFER_AMGATHER ||
           k == PAMI_XFER_AMREDUCE;
}

pami_result_t cg_am_set(struct cg_geom *g, struct pamil_context *c, pami_xfer_type_t kind, size_t id,
                        pami_dispatch_callback_function fn, void *cookie)
{
    pami_result_t r = PAMI_SUCCESS;
    pthread_mutex_lock(&pamil.mu);
    struct cg_amd *e = NULL;
    for (size_t i = 0; i < g->namd && !e; i++)
        if (g->amd[i].ctx == c->offset && g->amd[i].id == id && g->amd[i].kind == kind)
            e = &g->amd[i];
    if (!e) {
        struct cg_amd *n = realloc(g->amd, (g->namd + 1) * sizeof *n);
        if (n) {
            g->amd = n;
            e = &g->amd[g->namd++];
        } else {
            r = PAMI_ENOMEM;
        }
    }
    if (e)
        *e = (struct cg_amd){c->offset, id, kind, fn, cookie};
    pthread_mutex_unlock(&pamil.mu);
    return r == PAMI_SUCCESS ? r : pamil_fail(r, "PAMI_AMCollective_dispatch_set", "out of memory");
}

static int find_amd(struct cg_geom *g, unsigned ctx, size_t id, pami_xfer_type_t kind, struct cg_amd *out)
{
    int found = 0;
    pthread_mutex_lock(&pamil.mu);
    for (size_t i = 0; i < g->namd && !found; i++)
        if (g->amd[i].ctx == ctx && g->amd[i].id == id && g->amd[i].kind == kind) {
            *out = g->amd[i];
            found = 1;
        }
    pthread_mutex_unlock(&pamil.mu);
    return found;
}

static int rank_of(const struct cg_geom *g, uint32_t task)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->tasks[i] == task)
            return (int)i;
    return -1;
}

/* len packed bytes of (addr, type) into a new buffer, or NULL. */
static char *pack(const void *addr, pami_type_t type, size_t len, pami_result_t *r)
{
    char *p = malloc(len ? len : 1);
    *r = p ? PAMI_SUCCESS : PAMI_ENOMEM;
    if (p && len)
        *r = PAMI_Type_transform_data((void *)addr, type, 0, p, PAMI_TYPE_BYTE, 0, len, PAMI_DATA_COPY, NULL);
    return p;
}

static pami_result_t am_send(struct pamil_context *c, uint32_t task, const struct am_hdr *h, const void *uh,
                             size_t hlen, const void *data, size_t len)
{
    char *buf = malloc(hlen + len + 1);
    if (!buf)
        return pamil_fail(PAMI_ENOMEM, FN, "out of memory");
    if (hlen)
        memcpy(buf, uh, hlen);
    if (len)
        memcpy(buf + hlen, data, len);
    /* no completion callback: the library sends a copy of its own */
    pami_result_t r = pamil_internal_send(c, task, CG_AM_ID, h, sizeof *h, buf, hlen + len, NULL, NULL);
    free(buf);
    return r;
}

static void op_free(struct am_op *o)
{
    o->magic = 0;
    free(o->slots);
    free(o->got);
    free(o);
}

/* ---- the root ---- */

static struct am_op *op_new(struct cg_geom *g, pami_xfer_type_t kind, size_t bytes)
{
    struct am_op *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->magic = AM_MAGIC;
    o->g = g;
    o->kind = kind;
    o->bytes = bytes;
    o->missing = g->n;
    if (kind == PAMI_XFER_AMGATHER || kind == PAMI_XFER_AMREDUCE) {
        o->slots = malloc(g->n * bytes + 1);
        o->got = calloc(g->n, 1);
        if (!o->slots || !o->got) {
            op_free(o);
            return NULL;
        }
    }
    pthread_mutex_lock(&pamil.mu);
    o->next = live;
    live = o;
    pthread_mutex_unlock(&pamil.mu);
    return o;
}

/* The live op behind a token, taken off the list if last is set. */
static struct am_op *op_of(uint64_t token, int unlink)
{
    struct am_op *found = NULL;
    pthread_mutex_lock(&pamil.mu);
    for (struct am_op **p = &live; *p; p = &(*p)->next)
        if ((uint64_t)(uintptr_t)*p == token && (*p)->magic == AM_MAGIC) {
            found = *p;
            if (unlink)
                *p = found->next;
            break;
        }
    pthread_mutex_unlock(&pamil.mu);
    return found;
}

static size_t type_bytes(pami_type_t t, size_t count, pami_result_t *r)
{
    const struct pamil_type *pt = pamil_type_of(FN, t);
    *r = pt ? PAMI_SUCCESS : PAMI_INVAL;
    return pt ? count * pamil_type_size(pt) : 0;
}

static pami_result_t start_bcast(struct pamil_context *c, struct cg_geom *g, const pami_xfer_t *x)
{
    const pami_ambroadcast_t *a = &x->cmd.xfer_ambroadcast;
    pami_result_t r;
    size_t bytes = type_bytes(a->stype, a->stypecount, &r);
    if (r)
        return r;
    if ((a->headerlen && !a->user_header) || (bytes && !a->sndbuf))
        return pamil_fail(PAMI_INVAL, FN, "user_header or sndbuf is NULL");
    char *data = pack(a->sndbuf, a->stype, bytes, &r);
    struct am_op *o = r ? NULL : op_new(g, PAMI_XFER_AMBROADCAST, bytes);
    if (!o) {
        free(data);
        return r ? r : pamil_fail(PAMI_ENOMEM, FN, "out of memory");
    }
    o->done = x->cb_done;
    o->cookie = x->cookie;
    struct am_hdr h = {PAMI_XFER_AMBROADCAST, g->id, a->dispatch, (uint64_t)(uintptr_t)o, bytes,
                       (uint32_t)a->headerlen, AM_REQ, 0, 0};
    for (uint32_t i = 0; i < g->n && !r; i++)
        if ((int)i != g->me)
            r = am_send(c, g->tasks[i], &h, a->user_header, a->headerlen, data, bytes);
    free(data);
    h.phase = AM_DONE;
    if (!r)
        r = am_send(c, c->client->task, &h, NULL, 0, NULL, 0);
    if (r)
        op_free(op_of(h.token, 1));
    return r;
}

static pami_result_t start_scatter(struct pamil_context *c, struct cg_geom *g, const pami_xfer_t *x)
{
    const pami_amscatter_t *a = &x->cmd.xfer_amscatter;
    pami_result_t r;
    size_t bytes = type_bytes(a->stype, a->stypecount, &r);
    if (r)
        return r;
    if ((a->headerlen && !a->headers) || (bytes && !a->sndbuf))
        return pamil_fail(PAMI_INVAL, FN, "headers or sndbuf is NULL");
    char *data = pack(a->sndbuf, a->stype, bytes * g->n, &r);
    struct am_hdr h = {PAMI_XFER_AMSCATTER, g->id, a->dispatch, 0, bytes, (uint32_t)a->headerlen, AM_REQ, 0, 0};
    for (uint32_t i = 0; i < g->n && !r; i++)
        r = am_send(c, g->tasks[i], &h, (const char *)a->headers + i * a->headerlen, a->headerlen,
                    data + i * bytes, bytes);
    free(data);
    return r;
}

/* gather and reduce: a request to every member, the root included */
static pami_result_t start_collect(struct pamil_context *c, struct cg_geom *g, int gather, const pami_xfer_t *x)
{
    const pami_amgather_t *ag = &x->cmd.xfer_amgather;
    const pami_amreduce_t *ar = &x->cmd.xfer_amreduce;
    pami_type_t rt = gather ? ag->rtype : ar->rtype;
    size_t rcount = gather ? ag->rtypecount : ar->rtypecount, hlen = gather ? ag->headerlen : ar->headerlen;
    const char *uh = gather ? ag->headers : ar->user_header;
    void *rcvbuf = gather ? ag->rcvbuf : ar->rcvbuf;
    pami_result_t r;
    size_t bytes = type_bytes(rt, rcount, &r);
    if (r)
        return r;
    if ((hlen && !uh) || (bytes && !rcvbuf))
        return pamil_fail(PAMI_INVAL, FN, "headers or rcvbuf is NULL");
    struct am_op *o = op_new(g, gather ? PAMI_XFER_AMGATHER : PAMI_XFER_AMREDUCE, bytes);
    if (!o)
        return pamil_fail(PAMI_ENOMEM, FN, "out of memory");
    o->rcvbuf = rcvbuf;
    o->rtype = rt;
    struct am_hdr h = {o->kind, g->id, gather ? ag->dispatch : ar->dispatch, (uint64_t)(uintptr_t)o, bytes,
                       (uint32_t)hlen, AM_REQ, 0, 0};
    for (uint32_t i = 0; i < g->n && !r; i++)
        r = am_send(c, g->tasks[i], &h, gather ? uh + i * hlen : uh, hlen, NULL, 0);
    if (r)
        op_free(op_of(h.token, 1));
    return r;
}

pami_result_t cg_am_start(struct pamil_context *c, struct cg_geom *g, pami_xfer_type_t kind, const pami_xfer_t *x)
{
    switch (kind) {
    case PAMI_XFER_AMBROADCAST:
        return start_bcast(c, g, x);
    case PAMI_XFER_AMSCATTER:
        return start_scatter(c, g, x);
    default:
        return start_collect(c, g, kind == PAMI_XFER_AMGATHER, x);
    }
}

/* All blocks are in: combine them into rcvbuf and complete. */
static void collect_finish(struct pamil_context *c, struct am_op *o)
{
    pami_result_t r = o->result;
    size_t n = o->g->n, len = o->kind == PAMI_XFER_AMGATHER ? n * o->bytes : o->bytes;
    const struct pamil_type *t = o->kind == PAMI_XFER_AMREDUCE && !r ? pamil_type_of(FN, o->optype) : NULL;
    size_t es = t ? pamil_type_size(t) : 0;
    if (o->kind == PAMI_XFER_AMREDUCE && !r && (!es || o->bytes % es))
        r = pamil_fail(PAMI_INVAL, FN, "AMReduce: the root's dispatch gave a type that does not divide %zu bytes",
                       o->bytes);
    for (size_t i = 1; !r && o->kind == PAMI_XFER_AMREDUCE && i < n; i++)
        if (pamil_reduce(o->op, t, o->slots, o->slots + i * o->bytes, o->bytes / es) != PAMI_SUCCESS)
            r = pamil_fail(PAMI_INVAL, FN, "AMReduce: the root's dispatch gave an operation that is not a "
                           "reduction defined on rtype");
    if (!r && len)
        r = PAMI_Type_transform_data(o->slots, PAMI_TYPE_BYTE, 0, o->rcvbuf, o->rtype, 0, len, PAMI_DATA_COPY,
                                     NULL);
    if (o->done)
        o->done(c, o->cookie, r);
    op_free(o);
}

static void on_reply(struct pamil_context *c, uint32_t origin, const struct am_hdr *h, const void *data,
                     size_t len)
{
    struct am_op *o = op_of(h->token, 0);
    int k = o ? rank_of(o->g, origin) : -1;
    if (!o || k < 0 || o->got[k] || h->kind != o->kind || (h->status == 0 && len != o->bytes)) {
        fprintf(stderr, "emunic pami: task %u: an AM-collective reply from task %u does not belong to a "
                        "collective in progress; dropped\n", c->client->task, origin);
        return;
    }
    o->got[k] = 1;
    if (h->status && !o->result)
        o->result = (pami_result_t)h->status;
    else if (len)
        memcpy(o->slots + (size_t)k * o->bytes, data, len);
    if (--o->missing == 0 && op_of(h->token, 1))
        collect_finish(c, o);
}

/* ---- a member ---- */

static void on_req(struct pamil_context *c, struct cg_geom *g, uint32_t root, const struct am_hdr *h,
                   const char *data, size_t len)
{
    struct cg_amd d;
    pami_endpoint_t origin = PAMIL_EP(root, c->offset);
    pami_geometry_t gh = (pami_geometry_t)g;
    pami_recv_t rv;
    memset(&rv, 0, sizeof rv);
    int have = find_amd(g, c->offset, h->dispatch, (pami_xfer_type_t)h->kind, &d);
    if (!have)
        fprintf(stderr, "emunic pami: task %u: no active-message collective dispatch %llu is set on geometry "
                        "%u for this context; the collective from task %u fails\n",
                c->client->task, (unsigned long long)h->dispatch, g->id, root);
    if (h->kind == PAMI_XFER_AMBROADCAST || h->kind == PAMI_XFER_AMSCATTER) {
        if (!have)
            return;
        if (h->kind == PAMI_XFER_AMBROADCAST)
            d.fn.ambroadcast(c, d.cookie, data, h->hlen, NULL, h->bytes, origin, gh, &rv);
        else
            d.fn.amscatter(c, d.cookie, data, h->hlen, NULL, h->bytes, origin, gh, &rv);
        pamil_finish_recv(c, &rv, data + h->hlen, len - h->hlen);
        return;
    }
    pami_data_function op = NULL;
    pami_result_t r = have ? PAMI_SUCCESS : PAMI_INVAL;
    if (have && h->kind == PAMI_XFER_AMGATHER)
        d.fn.amgather(c, d.cookie, data, h->hlen, h->bytes, origin, gh, &rv);
    else if (have)
        d.fn.amreduce(c, d.cookie, data, h->hlen, h->bytes, origin, gh, &op, &rv);
    char *packed = NULL;
    if (!r)
        packed = pack(rv.addr, rv.type ? rv.type : PAMI_TYPE_BYTE, h->bytes, &r);
    if (root == c->client->task) {
        /* the root's own dispatch names the collective's completion */
        struct am_op *o = op_of(h->token, 0);
        if (o) {
            o->done = rv.local_fn;
            o->cookie = rv.cookie;
            o->op = op;
            o->optype = rv.type ? rv.type : PAMI_TYPE_BYTE;
        }
    }
    struct am_hdr rh = *h;
    rh.phase = AM_REPLY;
    rh.hlen = 0;
    rh.status = (int32_t)r;
    r = am_send(c, root, &rh, NULL, 0, packed, r ? 0 : h->bytes);
    free(packed);
    if (root != c->client->task && rv.local_fn)
        rv.local_fn(c, rv.cookie, r);
}

static void on_am(struct pamil_context *c, uint32_t origin, const void *hdr, size_t hlen, const void *data,
                  size_t len)
{
    struct am_hdr h;
    if (hlen != sizeof h) {
        fprintf(stderr, "emunic pami: task %u: malformed AM-collective message from task %u; dropped\n",
                c->client->task, origin);
        return;
    }
    memcpy(&h, hdr, sizeof h);
    if (h.phase == AM_REPLY) {
        on_reply(c, origin, &h, data, len);
        return;
    }
    if (h.phase == AM_DONE) {
        struct am_op *o = origin == c->client->task ? op_of(h.token, 1) : NULL;
        if (o && o->done)
            o->done(c, o->cookie, PAMI_SUCCESS);
        if (o)
            op_free(o);
        return;
    }
    struct cg_geom *g = cg_geom_find(c->client, h.gid);
    int bad = !g || rank_of(g, origin) < 0 || g->me < 0 || !cg_is_am((pami_xfer_type_t)h.kind) ||
              h.hlen > len ||
              ((h.kind == PAMI_XFER_AMBROADCAST || h.kind == PAMI_XFER_AMSCATTER) && len - h.hlen != h.bytes);
    if (bad) {
        fprintf(stderr, "emunic pami: task %u: AM-collective message from task %u for geometry %u does not fit "
                        "a geometry this task is in; dropped\n", c->client->task, origin, h.gid);
        return;
    }
    on_req(c, g, origin, &h, data, len);
}

void cg_am_register(void)
{
    pamil_internal_register(CG_AM_ID, on_am);
}

void cg_am_geom_free(struct cg_geom *g)
{
    free(g->amd);
    g->amd = NULL;
    g->namd = 0;
}
