/* DCMF_Manytomany: slice k of the send buffer goes to ranks[k] as one send
 * on the registration's own protocol number (AM space DCMFL_AM_M2M), its
 * msginfo quad naming the connection and the slice's index at the
 * receiver. The sender's cb_done runs once every slice is locally
 * complete.
 *
 * Empty slices are sent too: they say "nothing at this index" and keep
 * the receiver's operations apart.
 *
 * The receiver keeps, per connection, the operations it has open. A slice
 * joins the oldest open operation that has not had a slice at its index
 * yet, else opens a new one: the client's DCMF_RecvManytomany callback
 * then describes the buffer (lengths and displacements per index). An
 * operation completes once a slice has landed at every index but the
 * receiver's own (rankIndex); its request is in use (dcmfl_busy_*) until
 * then. A slice longer than its index's length is cut to it. The counter
 * arrays the client passes (sndcounters, rcvcounters) are not needed and
 * left alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcmf_lib.h"

#define M2M_MARK 0x6d326d21u /* "!m2m": our msginfo quad */
#define NO_INDEX 0xffffffffu

/* ---- receiving ---- */

struct m2m_open {
    struct m2m_open *next;
    DCMF_Request_t *req;
    DCMF_Callback_t cb;
    char *buf;
    unsigned *lens, *displs;
    unsigned n, mine;
    uint8_t *got;       /* per index: a slice arrived */
    unsigned remaining; /* indices still waiting for their slice */
    unsigned pending;   /* slices still being pulled */
    int failed;
};

struct m2m_state {
    struct m2m_state *next; /* every registration's, for finalize */
    unsigned nconn;
    struct m2m_open **open; /* per connection, oldest first */
};

static struct m2m_state *states;

/* A slice being pulled into place. */
struct piece {
    DCMF_Request_t req;
    struct m2m_open *o;
    size_t len;
    struct m2m_state *st;
    unsigned conn, idx;
};

/* The slice at index idx has landed. */
static void landed(struct m2m_open *o, unsigned idx)
{
    if (idx != o->mine)
        o->remaining--;
}

static void maybe_done(struct m2m_state *st, unsigned conn, struct m2m_open *o)
{
    if (o->remaining || o->pending)
        return;
    for (struct m2m_open **pp = &st->open[conn]; *pp; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            break;
        }
    DCMF_Callback_t cb = o->cb;
    int failed = o->failed;
    dcmfl_busy_del(o->req);
    free(o->got);
    free(o);
    if (!cb.function)
        return;
    DCMF_Error_t e = {DCMF_ERROR};
    cb.function(cb.clientdata, failed ? &e : NULL);
}

/* Ask the client for the operation's receive buffer; NULL after a message
 * when its answers cannot be used. */
static struct m2m_open *open_op(const struct dcmfl_proto *p, unsigned conn, size_t peer)
{
    char *buf = NULL;
    unsigned *lens = NULL, *displs = NULL, *counters = NULL, n = 0, mine = NO_INDEX;
    DCMF_Callback_t cb = {0};
    DCMF_Request_t *req = p->m2m.cb_recv(conn, p->m2m.arg, &buf, &lens, &displs, &counters, &n,
                                         &mine, &cb);
    const char *bad = !req ? "no request"
                      : n && (!lens || !displs) ? "no lengths or displacements"
                      : dcmfl_busy_overlaps(req, sizeof *req)
                          ? "a request still in use by an operation that has not completed"
                          : NULL;
    unsigned remaining = n - (mine < n), room = 0;
    for (unsigned i = 0; !bad && i < n; i++)
        room |= i != mine && lens[i];
    if (!bad && room && !buf)
        bad = "no buffer";
    struct m2m_open *o = bad ? NULL : calloc(1, sizeof *o);
    if (o && !(o->got = calloc(n ? n : 1, 1))) {
        free(o);
        o = NULL;
    }
    if (o && dcmfl_busy_add(req, sizeof *req) != 0) {
        free(o->got);
        free(o);
        o = NULL;
    }
    if (!o) {
        fprintf(stderr, "emunic dcmf: rank %u: many-to-many on connection %u from rank %zu dropped: "
                        "the receive callback returned %s\n",
                dcmfl.rank, conn, peer, bad ? bad : "(out of memory)");
        return NULL;
    }
    o->req = req;
    o->cb = cb;
    o->buf = buf;
    o->lens = lens;
    o->displs = displs;
    o->n = n;
    o->mine = mine;
    o->remaining = remaining;
    return o;
}

/* The operation slice idx of connection conn belongs to (opened if need
 * be), or NULL after a message. */
static struct m2m_open *slice_op(const struct dcmfl_proto *p, const DCQuad *mi, unsigned count,
                                 size_t peer, unsigned *conn_out, unsigned *idx_out)
{
    struct m2m_state *st = p->state;
    if (count != 1 || mi[0].w0 != M2M_MARK) {
        fprintf(stderr, "emunic dcmf: rank %u: a malformed many-to-many slice from rank %zu dropped\n",
                dcmfl.rank, peer);
        return NULL;
    }
    unsigned conn = mi[0].w1, idx = mi[0].w2;
    if (conn >= st->nconn) {
        fprintf(stderr, "emunic dcmf: rank %u: a many-to-many slice from rank %zu on connection %u "
                        "dropped: the protocol has %u connections here\n",
                dcmfl.rank, peer, conn, st->nconn);
        return NULL;
    }
    struct m2m_open **pp = &st->open[conn];
    while (*pp && (idx >= (*pp)->n || (*pp)->got[idx]))
        pp = &(*pp)->next;
    if (!*pp && !(*pp = open_op(p, conn, peer)))
        return NULL;
    struct m2m_open *o = *pp;
    if (idx >= o->n) {
        fprintf(stderr, "emunic dcmf: rank %u: a many-to-many slice from rank %zu for index %u dropped: "
                        "the receive callback gave %u indices\n",
                dcmfl.rank, peer, idx, o->n);
        maybe_done(st, conn, o); /* (an operation that expects nothing ends here) */
        return NULL;
    }
    o->got[idx] = 1;
    *conn_out = conn;
    *idx_out = idx;
    return o;
}

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                     size_t bytes)
{
    const struct dcmfl_proto *p = cd;
    unsigned conn, idx;
    struct m2m_open *o = slice_op(p, mi, count, peer, &conn, &idx);
    if (!o)
        return;
    size_t len = bytes < o->lens[idx] ? bytes : o->lens[idx];
    if (len)
        memcpy(o->buf + o->displs[idx], src, len);
    landed(o, idx);
    maybe_done(p->state, conn, o);
}

static void piece_done(void *cd, DCMF_Error_t *e)
{
    struct piece *pc = cd;
    struct m2m_open *o = pc->o;
    if (e) /* the operation ends with an error */
        o->failed = 1;
    landed(o, pc->idx);
    o->pending--;
    struct m2m_state *st = pc->st;
    unsigned conn = pc->conn;
    free(pc);
    maybe_done(st, conn, o);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                               size_t sndlen, size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    const struct dcmfl_proto *p = cd;
    unsigned conn, idx;
    struct m2m_open *o = slice_op(p, mi, count, peer, &conn, &idx);
    if (!o)
        return NULL;
    struct piece *pc = calloc(1, sizeof *pc);
    if (!pc) { /* the slice is lost: the operation ends with an error */
        fprintf(stderr, "emunic dcmf: rank %u: out of memory receiving a many-to-many slice\n", dcmfl.rank);
        o->failed = 1;
        landed(o, idx);
        maybe_done(p->state, conn, o);
        return NULL;
    }
    pc->o = o;
    pc->len = sndlen < o->lens[idx] ? sndlen : o->lens[idx];
    pc->st = p->state;
    pc->conn = conn;
    pc->idx = idx;
    o->pending++;
    *rcvlen = pc->len;
    *rcvbuf = o->buf + o->displs[idx];
    *cb = (DCMF_Callback_t){piece_done, pc};
    return &pc->req;
}

/* ---- registration ---- */

DCMF_Result DCMF_Manytomany_register(DCMF_Protocol_t *registration,
                                     DCMF_Manytomany_Configuration_t *cfg)
{
    const char *fn = "DCMF_Manytomany_register";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!registration || !cfg)
        return dcmfl_fail(DCMF_INVAL, fn, "registration or configuration is NULL");
    if (cfg->protocol != DCMF_DEFAULT_M2M_PROTOCOL && cfg->protocol != DCMF_MEMFIFO_DMA_M2M_PROTOCOL)
        return dcmfl_fail(DCMF_INVAL, fn, "protocol %d is not a DCMF_Manytomany_Protocol", (int)cfg->protocol);
    if (!cfg->cb_recv)
        return dcmfl_fail(DCMF_INVAL, fn, "cb_recv is NULL");
    if (!cfg->nconnections)
        return dcmfl_fail(DCMF_INVAL, fn, "nconnections is 0: no connection id would be valid");
    if (cfg->protocol == DCMF_MEMFIFO_DMA_M2M_PROTOCOL && cfg->nconnections > 32)
        return dcmfl_fail(DCMF_INVAL, fn, "nconnections %u: the memory-FIFO protocol allows 32",
                          cfg->nconnections);
    struct m2m_state *st = calloc(1, sizeof *st);
    if (st && !(st->open = calloc(cfg->nconnections, sizeof *st->open))) {
        free(st);
        st = NULL;
    }
    if (!st)
        return dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    st->nconn = cfg->nconnections;
    dcmfl_lock();
    struct dcmfl_proto *p = (struct dcmfl_proto *)registration;
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, p,
                                    on_long, p};
    rc = dcmfl_space_register(fn, registration, &sc, DCMFL_AM_M2M, dcmfl.nm2m);
    if (rc == DCMF_SUCCESS) {
        p->kind = DCMFL_P_M2M;
        p->m2m = *cfg;
        p->state = st;
        st->next = states;
        states = st;
        dcmfl.nm2m++;
    } else {
        free(st->open);
        free(st);
    }
    dcmfl_unlock();
    return rc;
}

void dcmfl_m2m_fini(void)
{
    /* operations still open belong to nobody now (their requests too) */
    while (states) {
        struct m2m_state *st = states;
        states = st->next;
        for (unsigned c = 0; c < st->nconn; c++)
            while (st->open[c]) {
                struct m2m_open *o = st->open[c];
                st->open[c] = o->next;
                free(o->got);
                free(o);
            }
        free(st->open);
        free(st);
    }
}

/* ---- sending ---- */

struct m2m_tx {
    union {
        struct dcmfl_req r; /* a whole request's storage, as in mcast.c */
        DCMF_Request_t storage;
    };
    struct m2m_op *op;
};

struct m2m_op {
    DCMF_Request_t *req; /* the client's (NULL once released early) */
    DCMF_Callback_t done;
    unsigned left;
    int failed, silent;
    struct m2m_tx tx[];
};

static void finish(struct m2m_op *op, int in_call)
{
    DCMF_Callback_t cb = op->silent ? (DCMF_Callback_t){0} : op->done;
    DCMF_Result err = op->failed ? DCMF_ERROR : DCMF_SUCCESS;
    DCMF_Request_t *req = op->req;
    free(op);
    if (in_call && cb.function) {
        dcmfl_later(cb, req, err);
        return;
    }
    if (req)
        dcmfl_busy_del(req);
    if (!cb.function)
        return;
    DCMF_Error_t e = {err};
    cb.function(cb.clientdata, err == DCMF_SUCCESS ? NULL : &e);
}

static void tx_done(void *cd, DCMF_Error_t *e)
{
    struct m2m_tx *t = cd;
    struct m2m_op *op = t->op;
    if (e)
        op->failed = 1;
    if (--op->left == 0)
        finish(op, 0);
}

static DCMF_Result check(const char *fn, DCMF_Protocol_t *registration, DCMF_Request_t *request,
                         DCMF_Consistency consistency, unsigned conn, unsigned index_vector,
                         const unsigned *rindices, const char *sndbuf, const unsigned *sndlens,
                         const unsigned *sdispls, const unsigned *ranks,
                         const unsigned *permutation, unsigned nranks, struct dcmfl_proto **pp)
{
    DCMF_Result rc;
    struct dcmfl_proto *p = dcmfl_proto_of(fn, registration, DCMFL_P_M2M);
    if (!p)
        return DCMF_INVAL;
    if (!request)
        return dcmfl_fail(DCMF_INVAL, fn, "request is NULL");
    if ((rc = dcmfl_check_consistency(fn, consistency)) != DCMF_SUCCESS)
        return rc;
    if (conn >= p->m2m.nconnections)
        return dcmfl_fail(DCMF_INVAL, fn, "connection_id %u out of range (nconnections %u)", conn,
                          p->m2m.nconnections);
    if (nranks && (!sndlens || !sdispls || !ranks || !permutation))
        return dcmfl_fail(DCMF_INVAL, fn, "sndlens, sdispls, ranks or permutation is NULL with nranks %u",
                          nranks);
    if (nranks && index_vector && !rindices)
        return dcmfl_fail(DCMF_INVAL, fn, "the rank index is a vector, but it is NULL");
    uint8_t *seen = calloc(nranks ? nranks : 1, 1);
    if (!seen)
        return dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    rc = DCMF_SUCCESS;
    for (unsigned j = 0; j < nranks && rc == DCMF_SUCCESS; j++) {
        unsigned k = permutation[j];
        if (k >= nranks || seen[k]++)
            rc = dcmfl_fail(DCMF_INVAL, fn, "permutation[%u] = %u: not a permutation of 0..%u", j, k,
                            nranks - 1);
        else if ((rc = dcmfl_check_rank(fn, ranks[k])) != DCMF_SUCCESS)
            ;
        else if (sndlens[k] && !sndbuf)
            rc = dcmfl_fail(DCMF_INVAL, fn, "sndbuf is NULL with sndlens[%u] = %u", k, sndlens[k]);
    }
    free(seen);
    if (rc == DCMF_SUCCESS)
        rc = dcmfl_check_free(fn, request, sizeof *request);
    *pp = p;
    return rc;
}

int DCMF_Manytomany(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                    DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                    unsigned connection_id, unsigned index_vector, unsigned rindex,
                    unsigned *rindices, const char *sndbuf, unsigned *sndlens,
                    unsigned *sdispls, unsigned *sndcounters, unsigned *ranks,
                    unsigned *permutation, unsigned nranks)
{
    const char *fn = "DCMF_Manytomany";
    (void)sndcounters; /* the library's to use; not needed here */
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    struct dcmfl_proto *p = NULL;
    rc = check(fn, registration, request, consistency, connection_id, index_vector, rindices,
               sndbuf, sndlens, sdispls, ranks, permutation, nranks, &p);
    struct m2m_op *op = NULL;
    if (rc == DCMF_SUCCESS && !(op = calloc(1, sizeof *op + nranks * sizeof op->tx[0])))
        rc = dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    if (rc == DCMF_SUCCESS && dcmfl_busy_add(request, sizeof *request) != 0) {
        free(op);
        rc = dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    }
    if (rc != DCMF_SUCCESS) {
        dcmfl_unlock();
        return rc;
    }
    op->req = request;
    op->done = cb_done;
    op->left = nranks + 1; /* the call's own hold, as in mcast.c */
    unsigned posted = 0;
    for (unsigned j = 0; j < nranks && rc == DCMF_SUCCESS; j++) {
        unsigned k = permutation[j];
        struct dcmfl_req *r = &op->tx[posted].r;
        op->tx[posted].op = op;
        r->magic = DCMFL_REQ_MAGIC;
        r->kind = DCMFL_R_SEND;
        r->consistency = (uint8_t)consistency;
        r->count = 1;
        r->rank = ranks[k];
        r->bytes = sndlens[k];
        r->laddr = (uint64_t)(uintptr_t)(sndbuf + sdispls[k]);
        r->proto = p;
        r->done = (DCMF_Callback_t){tx_done, &op->tx[posted]};
        r->msginfo[0] = (DCQuad){M2M_MARK, connection_id, index_vector ? rindices[k] : rindex, 0};
        rc = dcmfl_post_send(fn, r);
        posted++;
    }
    if (rc != DCMF_SUCCESS) {
        posted--;
        op->silent = 1;
        op->left -= nranks - posted;
        dcmfl_busy_del(op->req);
        op->req = NULL;
    }
    if (--op->left == 0)
        finish(op, 1);
    dcmfl_unlock();
    return rc;
}
