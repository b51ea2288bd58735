/* The collectives' message layer: one internal send protocol carries
 * every collective message, its two msginfo quads naming the instance
 * (scope, geometry id, kind, sequence number), the message type, a round
 * or chunk number and the sender's member index. A message for an
 * instance this rank has not started yet waits, payload and all, in the
 * unexpected list until coll_start takes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"

_Static_assert(sizeof(struct coll_reqobj) <= sizeof(DCMF_Request_t), "request storage");
_Static_assert(sizeof(struct coll_reqobj) <= sizeof(DCMF_CollectiveRequest_t), "request storage");

/* One send in flight; freed by its completion. */
struct coll_tx {
    struct coll_tx *prev, *next;
    DCMF_Request_t req;
    struct coll_inst *in; /* NULL: a kick */
};

/* One received message: pending (payload still arriving) or unexpected. */
struct coll_msg {
    struct coll_msg *prev, *next;
    DCMF_Request_t req;
    struct coll_hdr h;
    size_t bytes;
    char *buf;
    int owned; /* buf is ours (else it is the instance's own buffer) */
};

struct coll_deferred {
    struct coll_deferred *next;
    DCMF_Callback_t cb;
    DCMF_Result err;
    struct coll_reqobj *req; /* in use until the callback runs */
};

struct coll_group coll_global = {.global = 1};

static DCMF_Protocol_t proto;
static struct coll_inst *active;
static struct coll_tx *txs;
static struct coll_msg *pending, *unexpected, *unexpected_tail;
static struct coll_deferred *deferred, *deferred_tail;
static int kick_posted;
static unsigned api_depth;

uint32_t coll_rank_of(const struct coll_group *g, uint32_t member)
{
    return g->ranks ? g->ranks[member] : member;
}

/* ---- lists ---- */

static void msg_link(struct coll_msg **head, struct coll_msg *m)
{
    m->prev = NULL;
    m->next = *head;
    if (*head)
        (*head)->prev = m;
    *head = m;
}

static void msg_unlink(struct coll_msg **head, struct coll_msg *m)
{
    if (m->prev)
        m->prev->next = m->next;
    else
        *head = m->next;
    if (m->next)
        m->next->prev = m->prev;
}

/* The unexpected list keeps arrival order (a tail pointer for appends). */
static void ux_append(struct coll_msg *m)
{
    m->next = NULL;
    m->prev = unexpected_tail;
    if (unexpected_tail)
        unexpected_tail->next = m;
    else
        unexpected = m;
    unexpected_tail = m;
}

static void ux_remove(struct coll_msg *m)
{
    if (unexpected_tail == m)
        unexpected_tail = m->prev;
    msg_unlink(&unexpected, m);
}

static int same_instance(const struct coll_hdr *h, const struct coll_inst *in)
{
    return h->kind == in->kind && h->seq == in->seq && h->global == in->g->global &&
           h->id == in->g->id;
}

static struct coll_inst *find(const struct coll_hdr *h)
{
    for (struct coll_inst *in = active; in; in = in->next)
        if (same_instance(h, in))
            return in;
    return NULL;
}

/* ---- headers ---- */

static void pack(DCQuad q[2], const struct coll_group *g, uint32_t kind, uint32_t seq,
                 enum coll_mtype t, uint32_t index)
{
    memset(q, 0, 2 * sizeof *q);
    q[0].w0 = (uint32_t)t | kind << 8 | (g ? g->global : 0) << 16;
    q[0].w1 = g ? g->id : 0;
    q[0].w2 = seq;
    q[0].w3 = index;
    q[1].w0 = g ? g->me : 0;
}

static int unpack(const DCQuad *mi, unsigned count, size_t peer, struct coll_hdr *h)
{
    if (count != 2 || !mi) {
        fprintf(stderr, "emunic dcmf: rank %u: a collective message from rank %zu with %u msginfo quads dropped\n",
                dcmfl.rank, peer, count);
        return 0;
    }
    h->mtype = mi[0].w0 & 0xff;
    h->kind = (mi[0].w0 >> 8) & 0xff;
    h->global = (mi[0].w0 >> 16) & 1;
    h->id = mi[0].w1;
    h->seq = mi[0].w2;
    h->index = mi[0].w3;
    h->sender = mi[1].w0;
    if (h->mtype < MT_BARRIER || h->mtype > MT_KICK || h->kind >= CK_NKINDS) {
        fprintf(stderr, "emunic dcmf: rank %u: a malformed collective message from rank %zu dropped\n",
                dcmfl.rank, peer);
        return 0;
    }
    return 1;
}

/* ---- deferred completions ---- */

/* A request stays in use (dcmfl_busy_*) until just before its callback
 * runs: the client may reuse it from the callback on. */
static void run_deferred(void)
{
    struct coll_deferred *list = deferred; /* callbacks may defer more: those wait for their own kick */
    deferred = deferred_tail = NULL;
    kick_posted = 0;
    while (list) {
        struct coll_deferred *d = list;
        list = d->next;
        DCMF_Callback_t cb = d->cb;
        DCMF_Error_t e = {d->err};
        DCMF_Result err = d->err;
        if (d->req)
            dcmfl_busy_del(d->req);
        free(d);
        if (cb.function)
            cb.function(cb.clientdata, err == DCMF_SUCCESS ? NULL : &e);
    }
}

static void defer(DCMF_Callback_t cb, DCMF_Result err, struct coll_reqobj *req)
{
    struct coll_deferred *d = malloc(sizeof *d);
    if (!d) {
        fprintf(stderr, "emunic dcmf: rank %u: out of memory; a collective completes early\n", dcmfl.rank);
        if (req)
            dcmfl_busy_del(req);
        DCMF_Error_t e = {err};
        if (cb.function)
            cb.function(cb.clientdata, err == DCMF_SUCCESS ? NULL : &e);
        return;
    }
    d->next = NULL;
    d->cb = cb;
    d->err = err;
    d->req = req;
    if (deferred_tail)
        deferred_tail->next = d;
    else
        deferred = d;
    deferred_tail = d;
    if (!kick_posted) {
        kick_posted = 1;
        coll_send(NULL, 0, MT_KICK, 0, NULL, 0);
    }
}

/* ---- receiving ---- */

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                     size_t bytes)
{
    (void)cd;
    struct coll_hdr h;
    if (!unpack(mi, count, peer, &h))
        return;
    if (h.mtype == MT_KICK) {
        run_deferred();
        return;
    }
    struct coll_inst *in = find(&h);
    if (in) {
        coll_deliver(in, &h, src, bytes, NULL);
        coll_progress(in);
        return;
    }
    struct coll_msg *m = calloc(1, sizeof *m);
    char *buf = malloc(bytes ? bytes : 1);
    if (!m || !buf) {
        fprintf(stderr, "emunic dcmf: rank %u: out of memory; a collective message from rank %zu dropped\n",
                dcmfl.rank, peer);
        free(m);
        free(buf);
        return;
    }
    memcpy(buf, src, bytes);
    m->h = h;
    m->bytes = bytes;
    m->buf = buf;
    m->owned = 1;
    ux_append(m);
}

static void rx_done(void *cd, DCMF_Error_t *e)
{
    struct coll_msg *m = cd;
    msg_unlink(&pending, m);
    struct coll_inst *in = find(&m->h);
    if (in) {
        if (e)
            in->err = e->result;
        coll_deliver(in, &m->h, m->buf, m->bytes, m->owned ? m->buf : NULL);
        free(m);
        coll_progress(in);
        return;
    }
    if (!m->owned) { /* its instance cannot have finished without it */
        free(m);
        return;
    }
    ux_append(m);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                               size_t sndlen, size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    (void)cd;
    struct coll_hdr h;
    if (!unpack(mi, count, peer, &h))
        return NULL;
    struct coll_msg *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    struct coll_inst *in = find(&h);
    m->h = h;
    m->bytes = sndlen;
    m->buf = in ? coll_direct_buffer(in, &h, sndlen) : NULL;
    if (!m->buf) {
        m->buf = malloc(sndlen ? sndlen : 1);
        m->owned = 1;
        if (!m->buf) {
            free(m);
            return NULL;
        }
    }
    msg_link(&pending, m);
    *rcvlen = sndlen;
    *rcvbuf = m->buf;
    cb->function = rx_done;
    cb->clientdata = m;
    return &m->req;
}

/* ---- sending ---- */

static void tx_done(void *cd, DCMF_Error_t *e)
{
    struct coll_tx *t = cd;
    struct coll_inst *in = t->in;
    if (t->prev)
        t->prev->next = t->next;
    else
        txs = t->next;
    if (t->next)
        t->next->prev = t->prev;
    free(t);
    if (!in)
        return;
    if (e)
        in->err = e->result;
    in->inflight--;
    coll_progress(in);
}

void coll_send(struct coll_inst *in, uint32_t member, enum coll_mtype t, uint32_t index,
               const char *data, size_t len)
{
    DCQuad hdr[2];
    struct coll_tx *tx = calloc(1, sizeof *tx);
    uint32_t rank = in ? coll_rank_of(in->g, member) : dcmfl.rank;
    if (tx) {
        pack(hdr, in ? in->g : NULL, in ? in->kind : 0, in ? in->seq : 0, t, index);
        tx->in = in;
        tx->next = txs;
        if (txs)
            txs->prev = tx;
        txs = tx;
        if (in)
            in->inflight++;
        DCMF_Callback_t cb = {tx_done, tx};
        DCMF_Consistency c = in ? in->cons : DCMF_MATCH_CONSISTENCY;
        if (DCMF_Send(&proto, &tx->req, cb, c, rank, len, (char *)data, hdr, 2) == DCMF_SUCCESS)
            return;
        if (in)
            in->inflight--;
        txs = tx->next;
        if (txs)
            txs->prev = NULL;
        free(tx);
    }
    fprintf(stderr, "emunic dcmf: rank %u: a collective message to rank %u could not be sent\n",
            dcmfl.rank, rank);
    if (in)
        in->err = DCMF_ERROR;
    else
        run_deferred(); /* no kick: complete now rather than never */
}

/* ---- instances ---- */

DCMF_Result coll_ensure(const char *fn)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (dcmfl.internal[COLL_PROTO_ID] == (struct dcmfl_proto *)&proto)
        return DCMF_SUCCESS;
    DCMF_Send_Configuration_t c = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                   on_short, NULL, on_long, NULL};
    rc = dcmfl_internal_register(&proto, &c, COLL_PROTO_ID);
    if (rc != DCMF_SUCCESS)
        return rc;
    memset(coll_global.seq, 0, sizeof coll_global.seq);
    coll_global.n = dcmfl.size;
    coll_global.me = dcmfl.rank;
    return DCMF_SUCCESS;
}

void coll_enter(void)
{
    api_depth++;
    dcmfl.dispatch_depth++;
}

void coll_leave(void)
{
    dcmfl.dispatch_depth--;
    api_depth--;
}

DCMF_Result coll_check_request(const char *fn, void *req, size_t len)
{
    if (!req)
        return dcmfl_fail(DCMF_INVAL, fn, "request is NULL");
    return dcmfl_check_free(fn, req, len);
}

struct coll_inst *coll_inst_new(struct coll_group *g, enum coll_kind kind, DCMF_Callback_t cb,
                                DCMF_Consistency cons, void *req, size_t req_len)
{
    struct coll_inst *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    in->g = g;
    in->kind = kind;
    in->cb = cb;
    in->cons = cons;
    in->req = req;
    in->req_len = req_len;
    return in;
}

void coll_start(struct coll_inst *in)
{
    struct coll_group *g = in->g;
    in->seq = g->seq[in->kind]++;
    g->refs++;
    if (in->req) {
        in->req->magic = COLL_REQ_MAGIC;
        in->req->in = in;
    }
    in->next = active;
    active = in;
    for (struct coll_msg *m = unexpected, *next; m; m = next) {
        next = m->next;
        if (!same_instance(&m->h, in))
            continue;
        ux_remove(m);
        coll_deliver(in, &m->h, m->buf, m->bytes, m->buf);
        free(m);
    }
    coll_progress(in);
}

void coll_inst_free(struct coll_inst *in)
{
    if (in->parts)
        for (size_t i = 0; i < (size_t)in->nchunks * in->nchild; i++)
            free(in->parts[i]);
    free(in->parts);
    free(in->nparts);
    free(in->have);
    free(in->acc);
    free(in);
}

void coll_group_put(struct coll_group *g)
{
    if (g->global || --g->refs)
        return;
    free(g->ranks);
    free(g->bar);
    free(g->lbar);
    free(g);
}

void coll_finish(struct coll_inst *in)
{
    for (struct coll_inst **pp = &active; *pp; pp = &(*pp)->next)
        if (*pp == in) {
            *pp = in->next;
            break;
        }
    DCMF_Callback_t cb = in->cb;
    DCMF_Result err = in->err;
    struct coll_reqobj *req = in->req;
    coll_group_put(in->g);
    coll_inst_free(in);
    if (api_depth) {
        defer(cb, err, req);
        return;
    }
    if (req)
        dcmfl_busy_del(req);
    if (cb.function) {
        DCMF_Error_t e = {err};
        cb.function(cb.clientdata, err == DCMF_SUCCESS ? NULL : &e);
    }
}

void coll_engine_fini(void)
{
    while (active) {
        struct coll_inst *in = active;
        active = in->next;
        coll_group_put(in->g);
        coll_inst_free(in);
    }
    while (txs) {
        struct coll_tx *t = txs;
        txs = t->next;
        free(t);
    }
    while (unexpected) {
        struct coll_msg *m = unexpected;
        unexpected = m->next;
        free(m->buf);
        free(m);
    }
    unexpected_tail = NULL;
    while (deferred) {
        struct coll_deferred *d = deferred;
        deferred = d->next;
        free(d);
    }
    deferred_tail = NULL;
    kick_posted = 0;
    /* Receives still pending stay allocated (and listed): the NIC may be
     * writing their buffers until the rank has finalized. */
    memset(coll_global.seq, 0, sizeof coll_global.seq);
}

DCMF_Result coll_end(DCMF_Result rc)
{
    coll_leave();
    dcmfl_unlock();
    return rc;
}

DCMF_Result coll_launch(const char *fn, struct coll_inst *in, DCMF_Result setup)
{
    if (setup != DCMF_SUCCESS || (in->req && dcmfl_busy_add(in->req, in->req_len) != 0)) {
        coll_inst_free(in);
        return dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    }
    coll_start(in);
    return DCMF_SUCCESS;
}

DCMF_Result coll_register_begin(const char *fn, const void *registration, int have_cfg,
                                unsigned algo, unsigned nalgos)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!registration || !have_cfg)
        return dcmfl_fail(DCMF_INVAL, fn, "registration or configuration is NULL");
    if (algo >= nalgos)
        return dcmfl_fail(DCMF_INVAL, fn, "protocol %d is out of range (0..%u)", (int)algo, nalgos - 1);
    dcmfl_lock();
    rc = coll_ensure(fn);
    if (rc != DCMF_SUCCESS)
        dcmfl_unlock();
    return rc;
}
