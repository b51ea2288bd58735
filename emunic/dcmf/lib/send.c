/* Send and Control. A send is a core active message whose header is the
 * msginfo quads; it arrives through the short callback when it came in one
 * packet (always for 0 bytes) and through the long callback otherwise,
 * which names the buffer the NIC then pulls the payload into. Control is a
 * one-packet message that does not keep order with anything. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcmf_lib.h"

/* The protocols of an AM space, by number. */
static struct dcmfl_proto **table_of(uint32_t space, unsigned *cap)
{
    *cap = space == DCMFL_AM_INTERNAL ? DCMFL_INTERNAL_MAX : DCMFL_MAX_PROTOCOLS;
    switch (space) {
    case DCMFL_AM_INTERNAL: return dcmfl.internal;
    case DCMFL_AM_MCAST: return dcmfl.mcast;
    case DCMFL_AM_M2M: return dcmfl.m2m;
    default: return dcmfl.send;
    }
}

static DCMF_Result send_register(const char *fn, DCMF_Protocol_t *registration,
                                 DCMF_Send_Configuration_t *cfg, uint32_t space, unsigned id)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!registration || !cfg)
        return dcmfl_fail(DCMF_INVAL, fn, "registration or configuration is NULL");
    if ((unsigned)cfg->protocol >= DCMF_SEND_PROTOCOL_COUNT)
        return dcmfl_fail(DCMF_INVAL, fn, "protocol %d is not a DCMF_Send_Protocol", (int)cfg->protocol);
    if ((rc = dcmfl_check_network(fn, cfg->network)) != DCMF_SUCCESS)
        return rc;
    if (!cfg->cb_recv_short && !cfg->cb_recv)
        return dcmfl_fail(DCMF_INVAL, fn, "neither receive callback is set");
    unsigned cap;
    struct dcmfl_proto **table = table_of(space, &cap);
    if (id >= cap)
        return dcmfl_fail(DCMF_EAGAIN, fn, "all %u protocol slots of this kind are registered", cap);
    struct dcmfl_proto *p = (struct dcmfl_proto *)registration;
    memset(p, 0, sizeof *p);
    p->magic = DCMFL_PROTO_MAGIC;
    p->kind = DCMFL_P_SEND;
    p->id = id;
    p->algo = cfg->protocol;
    p->space = space;
    p->send = *cfg;
    table[id] = p;
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Send_register(DCMF_Protocol_t *registration, DCMF_Send_Configuration_t *cfg)
{
    dcmfl_lock();
    DCMF_Result rc = send_register("DCMF_Send_register", registration, cfg, DCMFL_AM_SEND, dcmfl.nsend);
    if (rc == DCMF_SUCCESS)
        dcmfl.nsend++;
    dcmfl_unlock();
    return rc;
}

DCMF_Result dcmfl_internal_register(DCMF_Protocol_t *registration, DCMF_Send_Configuration_t *cfg,
                                    unsigned id)
{
    return send_register("DCMF (internal)", registration, cfg, DCMFL_AM_INTERNAL, id);
}

DCMF_Result dcmfl_space_register(const char *fn, DCMF_Protocol_t *registration,
                                 DCMF_Send_Configuration_t *cfg, uint32_t space, unsigned id)
{
    return send_register(fn, registration, cfg, space, id);
}

DCMF_Result dcmfl_post_send(const char *fn, struct dcmfl_req *r)
{
    unsigned flags = EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ; /* remote: frees the FIFO slot */
    if (r->consistency == DCMF_RELAXED_CONSISTENCY || r->consistency == DCMF_WEAK_CONSISTENCY)
        flags |= EMU_F_UNORDERED;
    r->pending = EMU_DONE_LOCAL;
    if (dcmfl_busy_add(r, sizeof(DCMF_Request_t)) != 0)
        return dcmfl_post_result(fn, -ENOMEM);
    uint64_t cookie = dcmfl_fifo_take(r);
    int rc = !cookie ? -ENOMEM
                     : emunic_am_send(r->rank, DCMFL_AM_ID(r->proto->space, r->proto->id), r->msginfo,
                                      (size_t)r->count * sizeof(DCQuad),
                                      (const void *)(uintptr_t)r->laddr, r->bytes, flags, cookie);
    if (rc)
        dcmfl_fifo_undo(r, cookie);
    return dcmfl_post_result(fn, rc);
}

DCMF_Result DCMF_Send(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                      DCMF_Callback_t cb_done, DCMF_Consistency consistency, size_t rank,
                      size_t bytes, char *src, DCQuad *msginfo, unsigned count)
{
    const char *fn = "DCMF_Send";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    struct dcmfl_proto *p = dcmfl_proto_of(fn, registration, DCMFL_P_SEND);
    struct dcmfl_req *r = (struct dcmfl_req *)request;
    if (!p)
        rc = DCMF_INVAL;
    else if (!r)
        rc = dcmfl_fail(DCMF_INVAL, fn, "request is NULL");
    else if ((rc = dcmfl_check_consistency(fn, consistency)) != DCMF_SUCCESS ||
             (rc = dcmfl_check_rank(fn, rank)) != DCMF_SUCCESS)
        ;
    else if (count > DCMFL_MAX_QUADS)
        rc = dcmfl_fail(DCMF_INVAL, fn, "count %u: at most %d msginfo quads", count, DCMFL_MAX_QUADS);
    else if (count && !msginfo)
        rc = dcmfl_fail(DCMF_INVAL, fn, "msginfo is NULL with count %u", count);
    else if (bytes && !src)
        rc = dcmfl_fail(DCMF_INVAL, fn, "src is NULL with %zu bytes", bytes);
    else
        rc = dcmfl_check_free(fn, r, sizeof *request);
    if (rc == DCMF_SUCCESS) {
        memset(r, 0, sizeof *r);
        r->magic = DCMFL_REQ_MAGIC;
        r->kind = DCMFL_R_SEND;
        r->consistency = (uint8_t)consistency;
        r->count = (uint8_t)count;
        r->rank = (uint32_t)rank;
        r->bytes = bytes;
        r->laddr = (uint64_t)(uintptr_t)src;
        r->proto = p;
        r->done = cb_done;
        if (count)
            memcpy(r->msginfo, msginfo, count * sizeof(DCQuad));
        rc = dcmfl_post_send(fn, r);
    }
    dcmfl_unlock();
    return rc;
}

/* ---- receiving ---- */

/* A long message for a protocol with only a short callback: pulled into a
 * buffer of ours, then handed to the short callback. */
struct tmp_recv {
    struct dcmfl_req r; /* first: the completion's cookie points here */
    char *buf;
    size_t len;
    size_t peer;
    unsigned count;
    struct dcmfl_proto *p;
};

#define TMP_MARK 1u /* r.raddr of a tmp_recv */

void dcmfl_recv_done(struct dcmfl_req *r, int status)
{
    int st = status == EMU_E_TRUNC ? EMU_OK : status; /* a short buffer is the receiver's choice */
    if (st != EMU_OK)
        fprintf(stderr, "emunic dcmf: rank %u: receiving a send from rank %u failed: %s\n",
                dcmfl.rank, r->rank, emu_status_str((unsigned)st));
    dcmfl_busy_del(r);
    if (r->raddr == TMP_MARK) {
        struct tmp_recv *t = (struct tmp_recv *)r;
        if (st == EMU_OK) /* a short callback has no way to hear of a failure */
            t->p->send.cb_recv_short(t->p->send.cb_recv_short_clientdata, t->r.msginfo, t->count,
                                     t->peer, t->buf, t->len);
        free(t->buf);
        free(t);
        return;
    }
    DCMF_Callback_t cb = r->done;
    if (cb.function) {
        if (st == EMU_OK) {
            cb.function(cb.clientdata, NULL);
        } else {
            DCMF_Error_t e = {DCMF_ERROR};
            cb.function(cb.clientdata, &e);
        }
    }
}

static void discard(const struct emu_msg *am)
{
    if (am->dlen != am->hlen + am->len) /* release a sender waiting on a long payload */
        emunic_am_accept(am, NULL, 0, 0);
}

/* Take a long payload into rcvbuf with req as the receive request. */
static void accept_into(const struct emu_msg *am, DCMF_Request_t *req, char *rcvbuf, size_t rcvlen,
                        DCMF_Callback_t cb)
{
    struct dcmfl_req *r = (struct dcmfl_req *)req;
    memset(r, 0, sizeof *r);
    r->magic = DCMFL_REQ_MAGIC;
    r->kind = DCMFL_R_RECV;
    r->rank = am->src;
    r->bytes = rcvlen;
    r->done = cb;
    if (dcmfl_busy_add(r, sizeof *req) != 0) {
        fprintf(stderr, "emunic dcmf: rank %u: out of memory receiving %zu bytes from rank %u; dropped\n",
                dcmfl.rank, (size_t)am->len, am->src);
        discard(am);
        return;
    }
    if (emunic_am_accept(am, rcvbuf, rcvlen, (uint64_t)(uintptr_t)r) != 0)
        dcmfl_busy_del(r);
}

/* Long receives whose callback returned request storage still carrying an
 * earlier operation (a client cycling through a ring of requests faster
 * than its receives complete): each waits, payload still at the sender,
 * until its storage is free, then starts as if just returned (the oldest
 * first). */
struct waiting {
    struct waiting *next;
    struct emu_msg am;
    DCMF_Request_t *req;
    char *rcvbuf;
    size_t rcvlen;
    DCMF_Callback_t cb;
};

static struct waiting *wait_head, **wait_tail = &wait_head;

static void wait_for_storage(const struct emu_msg *am, DCMF_Request_t *req, char *rcvbuf,
                             size_t rcvlen, DCMF_Callback_t cb)
{
    struct waiting *w = malloc(sizeof *w);
    if (!w) {
        fprintf(stderr, "emunic dcmf: rank %u: out of memory receiving %zu bytes from rank %u; dropped\n",
                dcmfl.rank, (size_t)am->len, am->src);
        discard(am);
        return;
    }
    *w = (struct waiting){NULL, *am, req, rcvbuf, rcvlen, cb};
    *wait_tail = w;
    wait_tail = &w->next;
}

unsigned dcmfl_waiting_dispatch(void)
{
    unsigned n = 0;
    for (struct waiting **pp = &wait_head; *pp;) {
        struct waiting *w = *pp;
        if (dcmfl_busy_overlaps(w->req, sizeof *w->req)) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        if (wait_tail == &w->next)
            wait_tail = pp;
        accept_into(&w->am, w->req, w->rcvbuf, w->rcvlen, w->cb);
        free(w);
        n++;
    }
    return n;
}

static void deliver_send(const struct emu_msg *am, struct dcmfl_proto *p)
{
    unsigned id = (unsigned)(am->imm & 0xffff);
    unsigned count = am->hlen / sizeof(DCQuad);
    if (am->hlen % sizeof(DCQuad) || count > DCMFL_MAX_QUADS) {
        fprintf(stderr, "emunic dcmf: rank %u: a malformed send from rank %u (%u header bytes) dropped\n",
                dcmfl.rank, am->src, am->hlen);
        discard(am);
        return;
    }
    DCQuad mi[DCMFL_MAX_QUADS]; /* aligned copy */
    memcpy(mi, am->data, am->hlen);
    const DCMF_Send_Configuration_t *c = &p->send;
    size_t len = am->len;
    int inl = am->dlen == am->hlen + am->len;
    if (inl && c->cb_recv_short) {
        c->cb_recv_short(c->cb_recv_short_clientdata, mi, count, am->src,
                         (const char *)am->data + am->hlen, len);
        return;
    }
    if (!c->cb_recv) { /* long, short callback only */
        struct tmp_recv *t = calloc(1, sizeof *t);
        char *buf = malloc(len ? len : 1);
        if (!t || !buf) {
            fprintf(stderr, "emunic dcmf: rank %u: out of memory receiving %zu bytes from rank %u; dropped\n",
                    dcmfl.rank, len, am->src);
            free(t);
            free(buf);
            discard(am);
            return;
        }
        t->r.magic = DCMFL_REQ_MAGIC;
        t->r.kind = DCMFL_R_RECV;
        t->r.rank = am->src;
        t->r.raddr = TMP_MARK;
        memcpy(t->r.msginfo, mi, am->hlen);
        t->buf = buf;
        t->len = len;
        t->peer = am->src;
        t->count = count;
        t->p = p;
        if (dcmfl_busy_add(&t->r, sizeof t->r) != 0 ||
            emunic_am_accept(am, buf, len, (uint64_t)(uintptr_t)&t->r) != 0) {
            dcmfl_busy_del(&t->r);
            free(buf);
            free(t);
        }
        return;
    }
    size_t rcvlen = 0;
    char *rcvbuf = NULL;
    DCMF_Callback_t cb = {0};
    DCMF_Request_t *req = c->cb_recv(c->cb_recv_clientdata, mi, count, am->src, len, &rcvlen,
                                     &rcvbuf, &cb);
    if (rcvlen > len)
        rcvlen = len;
    if (!req || (rcvlen && !rcvbuf)) {
        fprintf(stderr, "emunic dcmf: rank %u: the receive callback of protocol %u returned no %s; "
                        "%zu bytes from rank %u dropped\n",
                dcmfl.rank, id, req ? "buffer" : "request", len, am->src);
        discard(am);
        return;
    }
    if (inl) { /* a one-packet message to a long-only protocol */
        if (rcvlen)
            memcpy(rcvbuf, am->data + am->hlen, rcvlen);
        if (cb.function)
            cb.function(cb.clientdata, NULL);
        return;
    }
    if (dcmfl_busy_overlaps(req, sizeof *req))
        wait_for_storage(am, req, rcvbuf, rcvlen, cb);
    else
        accept_into(am, req, rcvbuf, rcvlen, cb);
}

/* ---- control ---- */

DCMF_Result DCMF_Control_register(DCMF_Protocol_t *registration, DCMF_Control_Configuration_t *cfg)
{
    const char *fn = "DCMF_Control_register";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!registration || !cfg)
        return dcmfl_fail(DCMF_INVAL, fn, "registration or configuration is NULL");
    if ((unsigned)cfg->protocol >= DCMF_CONTROL_PROTOCOL_COUNT)
        return dcmfl_fail(DCMF_INVAL, fn, "protocol %d is not a DCMF_Control_Protocol", (int)cfg->protocol);
    if ((rc = dcmfl_check_network(fn, cfg->network)) != DCMF_SUCCESS)
        return rc;
    if (!cfg->cb_recv)
        return dcmfl_fail(DCMF_INVAL, fn, "cb_recv is NULL");
    dcmfl_lock();
    if (dcmfl.nctl >= DCMFL_MAX_PROTOCOLS) {
        dcmfl_unlock();
        return dcmfl_fail(DCMF_EAGAIN, fn, "all %d control protocol slots are registered", DCMFL_MAX_PROTOCOLS);
    }
    struct dcmfl_proto *p = (struct dcmfl_proto *)registration;
    memset(p, 0, sizeof *p);
    p->magic = DCMFL_PROTO_MAGIC;
    p->kind = DCMFL_P_CONTROL;
    p->id = dcmfl.nctl++;
    p->algo = cfg->protocol;
    p->ctl = *cfg;
    dcmfl.ctl[p->id] = p;
    dcmfl_unlock();
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Control(DCMF_Protocol_t *registration, DCMF_Consistency consistency, size_t rank,
                         DCMF_Control_t *info)
{
    const char *fn = "DCMF_Control";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct dcmfl_proto *p = dcmfl_proto_of(fn, registration, DCMFL_P_CONTROL);
    if (!p)
        return DCMF_INVAL;
    if ((rc = dcmfl_check_consistency(fn, consistency)) != DCMF_SUCCESS ||
        (rc = dcmfl_check_rank(fn, rank)) != DCMF_SUCCESS)
        return rc;
    if (!info)
        return dcmfl_fail(DCMF_INVAL, fn, "info is NULL");
    /* out of band: allowed to pass anything, whatever the consistency */
    int e = emunic_am_send((uint32_t)rank, DCMFL_AM_ID(DCMFL_AM_CONTROL, p->id), info,
                           sizeof(DCMF_Control_t), NULL, 0, EMU_F_UNORDERED, 0);
    return dcmfl_post_result(fn, e);
}

static void deliver_control(const struct emu_msg *am, struct dcmfl_proto *p)
{
    if (am->hlen != sizeof(DCMF_Control_t)) {
        fprintf(stderr, "emunic dcmf: rank %u: a malformed control message from rank %u dropped\n",
                dcmfl.rank, am->src);
        return;
    }
    DCMF_Control_t info;
    memcpy(info, am->data, sizeof info);
    p->ctl.cb_recv(p->ctl.cb_recv_clientdata, (const DCMF_Control_t *)&info, am->src);
}

/* ---- arrivals for protocols not registered yet ---- */

struct held {
    struct held *next;
    struct emu_msg am;
};

static struct held *held_head, **held_tail = &held_head;
static unsigned discards_out; /* payload releases not yet acknowledged */

static struct dcmfl_proto *proto_for(const struct emu_msg *am)
{
    unsigned space = (unsigned)(am->imm >> 16), id = (unsigned)(am->imm & 0xffff), cap;
    if (space == DCMFL_AM_CONTROL)
        return id < DCMFL_MAX_PROTOCOLS ? dcmfl.ctl[id] : NULL;
    if (space != DCMFL_AM_SEND && space != DCMFL_AM_INTERNAL && space != DCMFL_AM_MCAST &&
        space != DCMFL_AM_M2M)
        return NULL;
    struct dcmfl_proto **table = table_of(space, &cap);
    return id < cap ? table[id] : NULL;
}

static void deliver(const struct emu_msg *am, struct dcmfl_proto *p)
{
    if ((am->imm >> 16) == DCMFL_AM_CONTROL)
        deliver_control(am, p);
    else
        deliver_send(am, p);
}

static int held_for(uint64_t imm)
{
    for (struct held *h = held_head; h; h = h->next)
        if (h->am.imm == imm)
            return 1;
    return 0;
}

static void hold(const struct emu_msg *am)
{
    struct held *h = malloc(sizeof *h);
    if (!h) {
        fprintf(stderr, "emunic dcmf: rank %u: out of memory holding a message from rank %u for protocol %u; dropped\n",
                dcmfl.rank, am->src, (unsigned)(am->imm & 0xffff));
        discard(am);
        return;
    }
    h->next = NULL;
    h->am = *am;
    *held_tail = h;
    held_tail = &h->next;
}

/* An arrival waits if its protocol is not registered, or if earlier ones
 * for the same protocol still wait (arrival order is kept). */
static void arrive(const struct emu_msg *am)
{
    struct dcmfl_proto *p = proto_for(am);
    if (!p || (held_head && held_for(am->imm)))
        hold(am);
    else
        deliver(am, p);
}

void dcmfl_on_send(const struct emu_msg *am) { arrive(am); }
void dcmfl_on_control(const struct emu_msg *am) { arrive(am); }

unsigned dcmfl_held_dispatch(void)
{
    unsigned n = 0;
    struct held **pp = &held_head;
    while (*pp) {
        struct held *h = *pp;
        struct dcmfl_proto *p = proto_for(&h->am);
        if (!p) {
            pp = &h->next;
            continue;
        }
        *pp = h->next;
        if (held_tail == &h->next)
            held_tail = pp;
        deliver(&h->am, p); /* may register and hold: the list is consistent */
        free(h);
        n++;
    }
    return n;
}

static void release(const struct emu_msg *am)
{
    if (am->dlen != am->hlen + am->len) {
        emunic_am_accept(am, NULL, 0, 0);
        discards_out++;
    }
}

void dcmfl_release_arrivals(void)
{
    unsigned dropped = 0;
    while (wait_head) {
        struct waiting *w = wait_head;
        wait_head = w->next;
        release(&w->am);
        free(w);
        dropped++;
    }
    wait_tail = &wait_head;
    while (held_head) {
        struct held *h = held_head;
        held_head = h->next;
        release(&h->am);
        free(h);
        dropped++;
    }
    held_tail = &held_head;
    /* queued arrivals too; wait (boundedly) until the NIC has released
     * every sender of a long payload */
    struct emu_msg m[32];
    for (int spins = 0; spins < 100000; spins++) {
        int n = emunic_poll(m, 32);
        for (int i = 0; i < n; i++) {
            if (m[i].op == EMU_CQ_AM) {
                release(&m[i]);
                dropped++;
            } else if (m[i].op == EMU_CQ_DONE && m[i].cookie == 0 && discards_out) {
                discards_out--;
            }
        }
        if (n <= 0 && !discards_out)
            break;
        if (n <= 0)
            sched_yield();
    }
    discards_out = 0;
    if (dropped)
        fprintf(stderr, "emunic dcmf: rank %u: %u message(s) nobody received were dropped at finalize\n",
                dcmfl.rank, dropped);
}
