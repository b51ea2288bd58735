/* DCMF_Multicast: one send of the same buffer to each destination, on the
 * registration's own protocol number (AM space DCMFL_AM_MCAST). The first
 * msginfo quad is ours (a mark and the connection id); the client's quads
 * follow. A receiver's DCMF_RecvMulticast callback names the buffer and
 * the request; the send layer (send.c) does the rest, a long message
 * going straight into that buffer. The sender's cb_done runs once every
 * destination's send is locally complete; its request is in use
 * (dcmfl_busy_*) until then, the per-destination sends use our own.
 *
 * Provided: the default and memory-FIFO protocols, point-to-point
 * opcodes. Not: the GI, tree and direct-put protocols (the networks and
 * the posted receives they need are not emulated) and the line-broadcast
 * and tree opcodes, each refused with DCMF_UNIMPL and one line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcmf_lib.h"

#define MC_MARK 0x6d634d43u /* "MCmc": our msginfo quad */
#define MC_MAX_QUADS (DCMFL_MAX_QUADS - 1)

/* ---- receiving ---- */

/* The header quad's connection id, or -1 (after a message) if the
 * message is not a multicast this registration can take. */
static long conn_of(const struct dcmfl_proto *p, const DCQuad *mi, unsigned count, size_t peer)
{
    if (count < 1 || mi[0].w0 != MC_MARK || mi[0].w2 != count - 1) {
        fprintf(stderr, "emunic dcmf: rank %u: a malformed multicast from rank %zu dropped\n",
                dcmfl.rank, peer);
        return -1;
    }
    if (mi[0].w1 >= p->mcast.nconnections) {
        fprintf(stderr, "emunic dcmf: rank %u: a multicast from rank %zu on connection %u dropped: "
                        "the protocol has %u connections here\n",
                dcmfl.rank, peer, mi[0].w1, p->mcast.nconnections);
        return -1;
    }
    return (long)mi[0].w1;
}

/* The client's callback, with its answers checked; NULL after a message
 * when they cannot be used. */
static DCMF_Request_t *ask(const struct dcmfl_proto *p, const DCQuad *mi, unsigned count,
                           size_t peer, size_t sndlen, unsigned conn, unsigned *rcvlen,
                           char **rcvbuf, DCMF_Callback_t *cb)
{
    unsigned pipewidth = 0;
    *rcvlen = 0;
    *rcvbuf = NULL;
    memset(cb, 0, sizeof *cb);
    DCMF_Request_t *req = p->mcast.cb_recv(count > 1 ? mi + 1 : NULL, count - 1, (unsigned)peer,
                                           (unsigned)sndlen, conn, p->mcast.clientdata, rcvlen,
                                           rcvbuf, &pipewidth, cb);
    if (*rcvlen > sndlen)
        *rcvlen = (unsigned)sndlen;
    if (*rcvlen && !*rcvbuf) {
        fprintf(stderr, "emunic dcmf: rank %u: the multicast receive callback returned no buffer; "
                        "%zu bytes from rank %zu dropped\n",
                dcmfl.rank, sndlen, peer);
        return NULL;
    }
    return req;
}

/* One packet: copied at once, then the client's cb_done. */
static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                     size_t bytes)
{
    const struct dcmfl_proto *p = cd;
    long conn = conn_of(p, mi, count, peer);
    unsigned rcvlen;
    char *rcvbuf;
    DCMF_Callback_t cb;
    if (conn < 0 || !ask(p, mi, count, peer, bytes, (unsigned)conn, &rcvlen, &rcvbuf, &cb))
        return;
    if (rcvlen)
        memcpy(rcvbuf, src, rcvlen);
    if (cb.function)
        cb.function(cb.clientdata, NULL);
}

/* Longer: the send layer pulls the data into the client's buffer and
 * runs its cb_done (NULL here drops the message there). */
static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                               size_t sndlen, size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    const struct dcmfl_proto *p = cd;
    long conn = conn_of(p, mi, count, peer);
    unsigned len;
    if (conn < 0)
        return NULL;
    DCMF_Request_t *req = ask(p, mi, count, peer, sndlen, (unsigned)conn, &len, rcvbuf, cb);
    *rcvlen = len;
    return req;
}

/* ---- registration ---- */

DCMF_Result DCMF_Multicast_register(DCMF_Protocol_t *registration,
                                    DCMF_Multicast_Configuration_t *cfg)
{
    const char *fn = "DCMF_Multicast_register";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!registration || !cfg)
        return dcmfl_fail(DCMF_INVAL, fn, "registration or configuration is NULL");
    switch (cfg->protocol) {
    case DCMF_DEFAULT_MSEND_PROTOCOL:
    case DCMF_MEMFIFO_DMA_MSEND_PROTOCOL:
        break;
    case DCMF_GI_MSEND_PROTOCOL:
    case DCMF_TREE_MSEND_PROTOCOL:
    case DCMF_DPUT_DMA_MSEND_PROTOCOL:
    case DCMF_TREE_DPUT_MSEND_PROTOCOL:
        return dcmfl_fail(DCMF_UNIMPL, fn, "multicast protocol %d (GI, tree or direct put) is not emulated",
                          (int)cfg->protocol);
    default:
        return dcmfl_fail(DCMF_INVAL, fn, "protocol %d is not a DCMF_Multicast_Protocol", (int)cfg->protocol);
    }
    if (!cfg->cb_recv)
        return dcmfl_fail(DCMF_INVAL, fn, "cb_recv is NULL");
    if (!cfg->nconnections)
        return dcmfl_fail(DCMF_INVAL, fn, "nconnections is 0: no connection id would be valid");
    dcmfl_lock();
    struct dcmfl_proto *p = (struct dcmfl_proto *)registration;
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, p,
                                    on_long, p};
    rc = dcmfl_space_register(fn, registration, &sc, DCMFL_AM_MCAST, dcmfl.nmcast);
    if (rc == DCMF_SUCCESS) {
        p->kind = DCMFL_P_MCAST;
        p->mcast = *cfg;
        dcmfl.nmcast++;
    }
    dcmfl_unlock();
    return rc;
}

int DCMF_Multicast_postrecv(DCMF_MulticastRecv_t *mrecv)
{
    (void)mrecv;
    return dcmfl_fail(DCMF_UNIMPL, "DCMF_Multicast_postrecv",
                      "posted receives belong to the direct-put protocols, which are not emulated");
}

/* ---- sending ---- */

struct mc_op;

/* The send is posted like a client's: with a whole DCMF_Request_t of
 * storage, which is what the in-use record covers. */
struct mc_tx {
    union {
        struct dcmfl_req r; /* r.done points back here */
        DCMF_Request_t storage;
    };
    struct mc_op *op;
};

struct mc_op {
    DCMF_Request_t *req; /* the client's (NULL once released early) */
    DCMF_Callback_t done;
    unsigned left;  /* sends not locally complete */
    int failed;     /* some send failed (the callback gets an error) */
    int silent;     /* the call returned an error: no callback at all */
    struct mc_tx tx[];
};

/* The last send is done: release the request and call back, now (from
 * advance) or, inside the call itself, in the next advance. */
static void finish(struct mc_op *op, int in_call)
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
    struct mc_tx *t = cd;
    struct mc_op *op = t->op;
    if (e)
        op->failed = 1;
    if (--op->left == 0)
        finish(op, 0);
}

static DCMF_Result check(const char *fn, const DCMF_Multicast_t *m, struct dcmfl_proto **pp)
{
    DCMF_Result rc;
    if (!m)
        return dcmfl_fail(DCMF_INVAL, fn, "mcastinfo is NULL");
    struct dcmfl_proto *p = dcmfl_proto_of(fn, m->registration, DCMFL_P_MCAST);
    if (!p)
        return DCMF_INVAL;
    if (!m->request)
        return dcmfl_fail(DCMF_INVAL, fn, "request is NULL");
    if ((rc = dcmfl_check_consistency(fn, m->consistency)) != DCMF_SUCCESS)
        return rc;
    if (m->connection_id >= p->mcast.nconnections)
        return dcmfl_fail(DCMF_INVAL, fn, "connection_id %u out of range (nconnections %u)",
                          m->connection_id, p->mcast.nconnections);
    if (m->bytes && !m->src)
        return dcmfl_fail(DCMF_INVAL, fn, "src is NULL with %u bytes", m->bytes);
    if (m->nranks && !m->ranks)
        return dcmfl_fail(DCMF_INVAL, fn, "ranks is NULL with nranks %u", m->nranks);
    if (m->count > MC_MAX_QUADS)
        return dcmfl_fail(DCMF_INVAL, fn, "count %u: at most %d msginfo quads", m->count, MC_MAX_QUADS);
    if (m->count && !m->msginfo)
        return dcmfl_fail(DCMF_INVAL, fn, "msginfo is NULL with count %u", m->count);
    for (unsigned i = 0; i < m->nranks; i++) {
        if ((rc = dcmfl_check_rank(fn, m->ranks[i])) != DCMF_SUCCESS)
            return rc;
        /* no opcodes: every destination is a point-to-point send */
        if (m->opcodes && m->opcodes[i] != DCMF_PT_TO_PT_SEND)
            return dcmfl_fail(DCMF_UNIMPL, fn, "opcodes[%u] = 0x%x: only DCMF_PT_TO_PT_SEND is emulated "
                              "(no line broadcasts, no tree operations)", i, (unsigned)m->opcodes[i]);
    }
    if ((rc = dcmfl_check_free(fn, m->request, sizeof *m->request)) != DCMF_SUCCESS)
        return rc;
    *pp = p;
    return DCMF_SUCCESS;
}

int DCMF_Multicast(DCMF_Multicast_t *mcastinfo)
{
    const char *fn = "DCMF_Multicast";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    struct dcmfl_proto *p = NULL;
    rc = check(fn, mcastinfo, &p);
    /* a copy: the structure is the caller's again at once, and a callback
     * run inside this call (a full FIFO advances) may already reuse it */
    DCMF_Multicast_t mc = rc == DCMF_SUCCESS ? *mcastinfo : (DCMF_Multicast_t){0};
    const DCMF_Multicast_t *m = &mc;
    struct mc_op *op = NULL;
    if (rc == DCMF_SUCCESS && !(op = calloc(1, sizeof *op + m->nranks * sizeof op->tx[0])))
        rc = dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    if (rc == DCMF_SUCCESS && dcmfl_busy_add(m->request, sizeof *m->request) != 0) {
        free(op);
        rc = dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    }
    if (rc != DCMF_SUCCESS) {
        dcmfl_unlock();
        return rc;
    }
    op->req = m->request;
    op->done = m->cb_done;
    /* +1: the call's own hold, so that sends completing inside it (a full
     * FIFO advances) do not finish the operation before every one is out */
    op->left = m->nranks + 1;
    unsigned posted = 0;
    for (; posted < m->nranks && rc == DCMF_SUCCESS; posted++) {
        struct dcmfl_req *r = &op->tx[posted].r;
        op->tx[posted].op = op;
        r->magic = DCMFL_REQ_MAGIC;
        r->kind = DCMFL_R_SEND;
        r->consistency = (uint8_t)m->consistency;
        r->count = (uint8_t)(m->count + 1);
        r->rank = m->ranks[posted];
        r->bytes = m->bytes;
        r->laddr = (uint64_t)(uintptr_t)m->src;
        r->proto = p;
        r->done = (DCMF_Callback_t){tx_done, &op->tx[posted]};
        r->msginfo[0] = (DCQuad){MC_MARK, m->connection_id, m->count, 0};
        if (m->count)
            memcpy(&r->msginfo[1], m->msginfo, m->count * sizeof(DCQuad));
        rc = dcmfl_post_send(fn, r);
    }
    if (rc != DCMF_SUCCESS) {
        /* the sends already posted run out silently on our own requests;
         * the client's is free again at once, as after any refused call */
        posted--;
        op->silent = 1;
        op->left -= m->nranks - posted;
        dcmfl_busy_del(op->req);
        op->req = NULL;
    }
    if (--op->left == 0) /* no destinations, or all done already */
        finish(op, 1);
    dcmfl_unlock();
    return rc;
}
