/* Active messages: PAMI_Send, Send_immediate and Send_typed, the dispatch
 * table, and the library's internal messages. Everything travels as a core
 * AM whose handler word names the target context and dispatch id (see
 * pami_lib.h). Payloads that do not fit one slot wait at the origin until
 * the target pulls them, into the client's buffer for an asynchronous
 * receive or into a library buffer when the bytes must be seen first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pami_lib.h"

/* First bytes of a PAMIL_K_LONGHDR message (the client's header and data
 * follow as the pulled payload). */
struct longhdr {
    uint64_t hlen, dlen;
};

/* ---- origin ---- */

struct send_args {
    pami_endpoint_t dest;
    size_t dispatch;
    const void *hdr, *data;
    size_t hlen, dlen;
    pami_event_function local_fn, remote_fn;
    void *cookie;
    void *tmp; /* library copy of the data, freed with the op */
};

static pami_result_t post_send(const char *fn, struct pamil_context *c, struct send_args *a)
{
    struct pamil_client *cl = c->client;
    uint32_t task = PAMIL_EP_TASK(a->dest);
    int long_hdr = a->hlen > EMU_INLINE_MAX;
    uint64_t w = pamil_word(long_hdr ? PAMIL_K_LONGHDR : PAMIL_K_SEND, cl->index,
                            PAMIL_EP_OFF(a->dest), c->offset, (unsigned)a->dispatch);
    if (a->remote_fn)
        w |= PAMIL_W_ACK;
    struct pamil_op *op = NULL;
    if (long_hdr) {
        /* one buffer holds the header and data, pulled together */
        void *both = malloc(a->hlen + a->dlen);
        if (!both) {
            free(a->tmp);
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        }
        memcpy(both, a->hdr, a->hlen);
        if (a->dlen)
            memcpy((char *)both + a->hlen, a->data, a->dlen);
        free(a->tmp);
        a->tmp = both;
    }
    /* An eager message (one slot, or up to PAMIL_EAGER_MAX bytes copied
     * here) is out of the caller's buffers before PAMI_Send returns, and
     * its local completion is queued then, as IBM's eager protocol
     * completes a packet injected at once: the next advance runs it ahead
     * of anything that arrives later. IBM's tests count on that order (a
     * reply's local completion is seen before the next message). */
    int inl = !long_hdr && a->hlen + a->dlen <= EMU_INLINE_MAX;
    int now = !long_hdr && a->hlen + a->dlen <= PAMIL_EAGER_MAX;
    if (now && !inl && !a->tmp) {
        a->tmp = malloc(a->dlen);
        if (!a->tmp)
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        memcpy(a->tmp, a->data, a->dlen);
    }
    int pend_local = !inl && (a->tmp || (a->local_fn && !now));
    struct pamil_op *done_now = NULL;
    if (now && a->local_fn) {
        done_now = pamil_op_new(c, PAMIL_O_SEND);
        if (!done_now) {
            free(a->tmp);
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        }
        done_now->local_fn = a->local_fn;
        done_now->cookie = a->cookie;
        done_now->pend_local = 1;
    }
    if (pend_local || a->remote_fn) {
        op = pamil_op_new(c, PAMIL_O_SEND);
        if (!op) {
            pamil_op_free(done_now);
            free(a->tmp);
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        }
        op->local_fn = now ? NULL : a->local_fn;
        op->remote_fn = a->remote_fn;
        op->cookie = a->cookie;
        op->tmp = inl ? NULL : a->tmp;
        op->pend_local = (uint32_t)pend_local;
        op->pend_remote = a->remote_fn ? 1 : 0;
        if (op->tmp)
            pamil_op_pulled(op);
    }
    int rc;
    if (long_hdr) {
        struct longhdr lh = {a->hlen, a->dlen};
        rc = emunic_am_send(task, w, &lh, sizeof lh, op->tmp, a->hlen + a->dlen, EMU_F_LOCAL_CQ,
                            (uint64_t)(uintptr_t)op);
    } else {
        rc = emunic_am_send(task, w, a->hdr, a->hlen, a->tmp ? a->tmp : a->data, a->dlen,
                            pend_local ? EMU_F_LOCAL_CQ : 0, (uint64_t)(uintptr_t)op);
    }
    if (inl)
        free(a->tmp);
    if (rc) {
        pamil_op_free(op);
        pamil_op_free(done_now);
        return pamil_post_result(fn, rc);
    }
    if (done_now) { /* complete now: first in the inbox, ahead of any reply */
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.op = EMU_CQ_DONE;
        m.flags = EMU_DONE_LOCAL;
        m.cookie = (uint64_t)(uintptr_t)done_now;
        pamil_inbox_push(c, &m);
    }
    return PAMI_SUCCESS;
}

static pami_result_t check_send(const char *fn, struct pamil_context *c, const pami_send_immediate_t *s)
{
    if (s->dispatch >= PAMIL_DISPATCH_MAX)
        return pamil_fail(PAMI_INVAL, fn, "dispatch id %zu out of range (0..%d)", s->dispatch, PAMIL_DISPATCH_MAX - 1);
    if ((s->header.iov_len && !s->header.iov_base) || (s->data.iov_len && !s->data.iov_base))
        return pamil_fail(PAMI_INVAL, fn, "an iovec has a length but no base");
    /* dispatch ids are registered alike on every task, so the local
     * registration says whether the target takes long headers */
    const struct pamil_dispatch *d = &c->dispatch[s->dispatch];
    if (!d->set)
        return pamil_fail(PAMI_INVAL, fn, "dispatch id %zu is not set on this context (PAMI_Dispatch_set it on "
                          "every task)", s->dispatch);
    /* a "long" header is one longer than an immediate receive takes, as
     * IBM's long_header_perf sends RECV_IMMEDIATE_MAX bytes on such a
     * dispatch (the transport carries any length either way) */
    if (d->hints.long_header == PAMI_HINT_DISABLE && s->header.iov_len > PAMIL_RECV_IMMEDIATE_MAX)
        return pamil_fail(PAMI_INVAL, fn, "a %zu-byte header on dispatch %zu, which was set with long headers "
                          "disabled (at most %d bytes)", s->header.iov_len, s->dispatch, PAMIL_RECV_IMMEDIATE_MAX);
    return pamil_check_ep(fn, c, s->dest);
}

pami_result_t PAMI_Send(pami_context_t context, pami_send_t *parameters)
{
    static const char fn[] = "PAMI_Send";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (!parameters)
        return pamil_fail(PAMI_INVAL, fn, "parameters is NULL");
    pami_result_t r = check_send(fn, c, &parameters->send);
    if (r != PAMI_SUCCESS)
        return r;
    struct send_args a = {
        .dest = parameters->send.dest, .dispatch = parameters->send.dispatch,
        .hdr = parameters->send.header.iov_base, .hlen = parameters->send.header.iov_len,
        .data = parameters->send.data.iov_base, .dlen = parameters->send.data.iov_len,
        .local_fn = pamil_event_fn(fn, "events.local_fn", parameters->events.local_fn),
        .remote_fn = pamil_event_fn(fn, "events.remote_fn", parameters->events.remote_fn),
        .cookie = parameters->events.cookie,
    };
    return post_send(fn, c, &a);
}

pami_result_t PAMI_Send_immediate(pami_context_t context, pami_send_immediate_t *parameters)
{
    static const char fn[] = "PAMI_Send_immediate";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (!parameters)
        return pamil_fail(PAMI_INVAL, fn, "parameters is NULL");
    pami_result_t r = check_send(fn, c, parameters);
    if (r != PAMI_SUCCESS)
        return r;
    size_t total = parameters->header.iov_len + parameters->data.iov_len;
    if (total > PAMIL_SEND_IMMEDIATE_MAX)
        return pamil_fail(PAMI_INVAL, fn, "header + data is %zu bytes; at most %d (PAMI_DISPATCH_SEND_IMMEDIATE_MAX)",
                          total, PAMIL_SEND_IMMEDIATE_MAX);
    struct send_args a = {
        .dest = parameters->dest, .dispatch = parameters->dispatch,
        .hdr = parameters->header.iov_base, .hlen = parameters->header.iov_len,
        .data = parameters->data.iov_base, .dlen = parameters->data.iov_len,
    };
    return post_send(fn, c, &a); /* eager: the buffers are free on return */
}

pami_result_t PAMI_Send_typed(pami_context_t context, pami_send_typed_t *parameters)
{
    static const char fn[] = "PAMI_Send_typed";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (!parameters)
        return pamil_fail(PAMI_INVAL, fn, "parameters is NULL");
    pami_result_t r = check_send(fn, c, &parameters->send);
    if (r != PAMI_SUCCESS)
        return r;
    if (!pamil_type_of(fn, parameters->typed.type))
        return PAMI_INVAL;
    size_t bytes = parameters->send.data.iov_len;
    void *packed = bytes ? malloc(bytes) : NULL;
    if (bytes && !packed)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    /* pack now: the wire carries the data stream, the target lays it out */
    pami_data_function dfn = parameters->typed.data_fn ? parameters->typed.data_fn : PAMI_DATA_COPY;
    if (bytes && PAMI_Type_transform_data(parameters->send.data.iov_base, parameters->typed.type,
                                          parameters->typed.offset, packed, PAMI_TYPE_BYTE, 0, bytes,
                                          dfn, parameters->typed.data_cookie) != PAMI_SUCCESS) {
        free(packed);
        return pamil_fail(PAMI_INVAL, fn, "cannot pack %zu bytes of the send type", bytes);
    }
    struct send_args a = {
        .dest = parameters->send.dest, .dispatch = parameters->send.dispatch,
        .hdr = parameters->send.header.iov_base, .hlen = parameters->send.header.iov_len,
        .data = packed, .dlen = bytes, .tmp = packed,
        .local_fn = pamil_event_fn(fn, "events.local_fn", parameters->events.local_fn),
        .remote_fn = pamil_event_fn(fn, "events.remote_fn", parameters->events.remote_fn),
        .cookie = parameters->events.cookie,
    };
    return post_send(fn, c, &a);
}

/* ---- dispatch table ---- */

pami_result_t PAMI_Dispatch_set(pami_context_t context, size_t dispatch,
                                pami_dispatch_callback_function fn, void *cookie,
                                pami_dispatch_hint_t options)
{
    static const char fnn[] = "PAMI_Dispatch_set";
    struct pamil_context *c = pamil_context_of(fnn, context);
    if (!c)
        return PAMI_INVAL;
    if (dispatch >= PAMIL_DISPATCH_MAX)
        return pamil_fail(PAMI_INVAL, fnn, "dispatch id %zu out of range (0..%d)", dispatch, PAMIL_DISPATCH_MAX - 1);
    if (!fn.p2p)
        return pamil_fail(PAMI_INVAL, fnn, "the dispatch function is NULL");
    struct pamil_dispatch *d = &c->dispatch[dispatch];
    d->fn = fn.p2p;
    d->cookie = cookie;
    d->hints = options;
    d->set = 1;
    /* arrivals that waited for a dispatch go back into the inbox, in order */
    if (c->nearly) {
        size_t n = c->nearly;
        struct emu_msg *q = c->early;
        c->early = NULL;
        c->nearly = c->early_cap = 0;
        for (size_t i = 0; i < n; i++)
            pamil_inbox_push(c, &q[i]);
        free(q);
    }
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Dispatch_query(pami_context_t context, size_t dispatch,
                                  pami_configuration_t configuration[], size_t num_configs)
{
    static const char fn[] = "PAMI_Dispatch_query";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (dispatch >= PAMIL_DISPATCH_MAX)
        return pamil_fail(PAMI_INVAL, fn, "dispatch id %zu out of range", dispatch);
    return pamil_attr_query_all(fn, c->client, configuration, num_configs);
}

pami_result_t PAMI_Dispatch_update(pami_context_t context, size_t dispatch,
                                   pami_configuration_t configuration[], size_t num_configs)
{
    static const char fn[] = "PAMI_Dispatch_update";
    if (!pamil_context_of(fn, context))
        return PAMI_INVAL;
    if (dispatch >= PAMIL_DISPATCH_MAX)
        return pamil_fail(PAMI_INVAL, fn, "dispatch id %zu out of range", dispatch);
    return pamil_attr_update_none(fn, configuration, num_configs);
}

/* ---- target ---- */

static void hold_early(struct pamil_context *c, const struct emu_msg *m)
{
    if (c->nearly == c->early_cap) {
        size_t cap = c->early_cap ? c->early_cap * 2 : 16;
        struct emu_msg *q = realloc(c->early, cap * sizeof *q);
        if (!q) {
            fprintf(stderr, "emunic pami: task %u: out of memory: a message for dispatch %u was lost\n",
                    c->client->task, pamil_w_id(m->imm));
            return;
        }
        c->early = q;
        c->early_cap = cap;
    }
    c->early[c->nearly++] = *m;
}

/* The receive is over: tell the origin if it asked. */
static void send_rack(struct pamil_context *c, uint32_t origin, unsigned octx, uint64_t cookie)
{
    uint64_t w = pamil_word(PAMIL_K_RACK, c->client->index, octx, c->offset, 0);
    int rc = emunic_am_send(origin, w, &cookie, sizeof cookie, NULL, 0, 0, 0);
    if (rc)
        fprintf(stderr, "emunic pami: task %u: cannot notify task %u of a completed receive (%d)\n",
                c->client->task, origin, rc);
}

static int immediate(const struct pamil_dispatch *d, size_t len)
{
    if (d->hints.recv_immediate == PAMI_HINT_ENABLE)
        return 1;
    return d->hints.recv_immediate != PAMI_HINT_DISABLE && len <= PAMIL_RECV_IMMEDIATE_MAX;
}

static int recv_is_plain(const pami_recv_t *r)
{
    return (r->type == NULL || r->type == PAMI_TYPE_BYTE) && pamil_data_is_copy(r->data_fn);
}

void pamil_finish_recv(struct pamil_context *c, const pami_recv_t *r, const void *src, size_t len)
{
    pami_result_t res = PAMI_SUCCESS;
    if (len) {
        if (recv_is_plain(r)) {
            memcpy(r->addr, src, len);
        } else {
            pami_data_function dfn = r->data_fn ? r->data_fn : PAMI_DATA_COPY;
            res = PAMI_Type_transform_data((void *)src, PAMI_TYPE_BYTE, 0, r->addr, r->type,
                                           r->offset, len, dfn, r->data_cookie);
        }
    }
    if (r->local_fn)
        r->local_fn(c, r->cookie, res);
}

static struct pamil_op *pull_op(struct pamil_context *c, const struct emu_msg *am, unsigned stage)
{
    struct pamil_op *op = pamil_op_new(c, PAMIL_O_PULL);
    if (!op)
        return NULL;
    op->stage = (uint8_t)stage;
    op->origin_task = am->src;
    op->origin_ctx = pamil_w_octx(am->imm);
    op->dispatch = pamil_w_id(am->imm);
    op->internal_id = pamil_w_id(am->imm);
    op->ack = (am->imm & PAMIL_W_ACK) != 0;
    op->ack_cookie = am->cookie;
    op->hlen = am->hlen;
    memcpy(op->hdr, am->data, am->hlen);
    op->bytes = am->len;
    return op;
}

static void start_pull(struct pamil_context *c, const struct emu_msg *am, struct pamil_op *op,
                       void *buf)
{
    int rc = emunic_am_accept(am, buf, am->len, (uint64_t)(uintptr_t)op);
    if (rc) {
        fprintf(stderr, "emunic pami: task %u: cannot take a %llu-byte message from task %u (%d); dropped\n",
                c->client->task, (unsigned long long)am->len, am->src, rc);
        pamil_op_free(op);
    }
}

/* A pull started below finished (pamil_op_event hands it over). */
void pamil_pull_done(struct pamil_op *op)
{
    struct pamil_context *c = op->ctx;
    pami_endpoint_t origin = PAMIL_EP(op->origin_task, op->origin_ctx);
    if (op->result != PAMI_SUCCESS)
        fprintf(stderr, "emunic pami: task %u: pulling a message from task %u failed\n",
                c->client->task, op->origin_task);
    struct pamil_dispatch *d = &c->dispatch[op->dispatch];
    switch (op->stage) {
    case PAMIL_PULL_IMM:
        d->fn(c, d->cookie, op->hdr, op->hlen, op->tmp ? op->tmp : (void *)"", op->bytes, origin, NULL);
        break;
    case PAMIL_PULL_RECV:
        if (op->recv.local_fn)
            op->recv.local_fn(c, op->recv.cookie, (pami_result_t)op->result);
        break;
    case PAMIL_PULL_TYPED:
        pamil_finish_recv(c, &op->recv, op->tmp, op->bytes);
        break;
    case PAMIL_PULL_LONGHDR: {
        size_t hlen = op->hlen, dlen = op->bytes - hlen;
        const char *h = op->tmp, *data = h + hlen;
        if (immediate(d, dlen)) {
            d->fn(c, d->cookie, h, hlen, data, dlen, origin, NULL);
        } else {
            pami_recv_t r = {0};
            d->fn(c, d->cookie, h, hlen, NULL, dlen, origin, &r);
            pamil_finish_recv(c, &r, data, dlen);
        }
        break;
    }
    case PAMIL_PULL_INTERNAL:
        pamil_internal_deliver(c, op->internal_id, op->origin_task, op->hdr, op->hlen, op->tmp, op->bytes);
        break;
    }
    if (op->ack)
        send_rack(c, op->origin_task, op->origin_ctx, op->ack_cookie);
    pamil_op_free(op);
}

static void on_send(struct pamil_context *c, const struct emu_msg *am, int long_hdr)
{
    unsigned id = pamil_w_id(am->imm);
    struct pamil_dispatch *d = &c->dispatch[id];
    if (!d->set) { /* a fast peer: wait for PAMI_Dispatch_set */
        hold_early(c, am);
        return;
    }
    pami_endpoint_t origin = PAMIL_EP(am->src, pamil_w_octx(am->imm));
    int ack = (am->imm & PAMIL_W_ACK) != 0;
    if (long_hdr) {
        struct longhdr lh;
        memcpy(&lh, am->data, sizeof lh);
        struct pamil_op *op = pull_op(c, am, PAMIL_PULL_LONGHDR);
        if (op)
            op->hlen = (uint32_t)lh.hlen;
        if (!op || !(op->tmp = malloc(am->len))) {
            fprintf(stderr, "emunic pami: task %u: out of memory for a long-header message\n", c->client->task);
            pamil_op_free(op);
            return;
        }
        start_pull(c, am, op, op->tmp);
        return;
    }
    size_t len = am->len;
    int inline_data = am->dlen == am->hlen + am->len;
    const void *hdr = am->data;
    if (immediate(d, len)) {
        if (inline_data) {
            d->fn(c, d->cookie, hdr, am->hlen, am->data + am->hlen, len, origin, NULL);
        } else {
            struct pamil_op *op = pull_op(c, am, PAMIL_PULL_IMM);
            if (!op || !(op->tmp = malloc(len))) {
                fprintf(stderr, "emunic pami: task %u: out of memory for a %zu-byte message\n", c->client->task, len);
                pamil_op_free(op);
                return;
            }
            start_pull(c, am, op, op->tmp);
            return;
        }
    } else {
        pami_recv_t r = {0};
        d->fn(c, d->cookie, hdr, am->hlen, NULL, len, origin, &r);
        if (len && !r.addr && recv_is_plain(&r)) {
            fprintf(stderr, "emunic pami: task %u: dispatch %u gave no receive buffer for %zu bytes; dropped\n",
                    c->client->task, id, len);
            r.local_fn = NULL;
            len = 0;
        }
        if (inline_data || len == 0) {
            pamil_finish_recv(c, &r, am->data + am->hlen, len);
        } else {
            int plain = recv_is_plain(&r);
            struct pamil_op *op = pull_op(c, am, plain ? PAMIL_PULL_RECV : PAMIL_PULL_TYPED);
            if (op)
                op->recv = r;
            if (!op || (!plain && !(op->tmp = malloc(len)))) {
                fprintf(stderr, "emunic pami: task %u: out of memory for a %zu-byte message\n", c->client->task, len);
                pamil_op_free(op);
                return;
            }
            start_pull(c, am, op, plain ? r.addr : op->tmp);
            return;
        }
    }
    if (ack)
        send_rack(c, am->src, pamil_w_octx(am->imm), am->cookie);
}

static void on_rack(struct pamil_context *c, const struct emu_msg *am)
{
    uint64_t cookie;
    memcpy(&cookie, am->data, sizeof cookie);
    struct pamil_op *op = (struct pamil_op *)(uintptr_t)cookie;
    if (am->hlen != sizeof cookie || !op || op->magic != PAMIL_OP_MAGIC || op->ctx != c) {
        fprintf(stderr, "emunic pami: task %u: remote completion for an unknown send dropped\n", c->client->task);
        return;
    }
    pamil_op_event(op, EMU_DONE_REMOTE, EMU_OK, 0);
}

/* ---- internal messages ---- */

static pamil_internal_fn internal_fns[PAMIL_INTERNAL_MAX];

void pamil_internal_register(unsigned id, pamil_internal_fn fn)
{
    if (id < PAMIL_INTERNAL_MAX)
        internal_fns[id] = fn;
}

void pamil_internal_deliver(struct pamil_context *c, unsigned id, uint32_t origin,
                            const void *hdr, size_t hlen, const void *data, size_t len)
{
    if (id >= PAMIL_INTERNAL_MAX || !internal_fns[id]) {
        fprintf(stderr, "emunic pami: task %u: internal message %u has no handler; dropped\n", c->client->task, id);
        return;
    }
    internal_fns[id](c, origin, hdr, hlen, data, len);
}

pami_result_t pamil_internal_send(struct pamil_context *c, uint32_t dst, unsigned id,
                                  const void *hdr, size_t hlen, const void *data,
                                  size_t len, pami_event_function done, void *cookie)
{
    static const char fn[] = "internal send";
    if (hlen > PAMIL_INTERNAL_HDR_MAX || id >= PAMIL_INTERNAL_MAX || dst >= c->client->size)
        return pamil_fail(PAMI_INVAL, fn, "bad header length %zu, id %u or task %u", hlen, id, dst);
    uint64_t w = pamil_word(PAMIL_K_INTERNAL, c->client->index, c->offset, c->offset, id);
    int fits = hlen + len <= EMU_INLINE_MAX;
    struct pamil_op *op = NULL;
    if (done || !fits) {
        op = pamil_op_new(c, done ? PAMIL_O_INTERNAL : PAMIL_O_FREE);
        if (!op)
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        op->local_fn = done;
        op->cookie = cookie;
        op->pend_local = 1;
        if (!done) { /* nobody waits for the buffer: send a copy */
            op->tmp = malloc(len);
            if (!op->tmp) {
                pamil_op_free(op);
                return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
            }
            memcpy(op->tmp, data, len);
            data = op->tmp;
            if (!fits)
                pamil_op_pulled(op);
        }
    }
    int rc = emunic_am_send(dst, w, hdr, hlen, data, len, op ? EMU_F_LOCAL_CQ : 0, (uint64_t)(uintptr_t)op);
    if (rc) {
        pamil_op_free(op);
        return pamil_post_result(fn, rc);
    }
    return PAMI_SUCCESS;
}

static void on_internal(struct pamil_context *c, const struct emu_msg *am)
{
    if (am->dlen == am->hlen + am->len) {
        pamil_internal_deliver(c, pamil_w_id(am->imm), am->src, am->data, am->hlen, am->data + am->hlen, am->len);
        return;
    }
    struct pamil_op *op = pull_op(c, am, PAMIL_PULL_INTERNAL);
    if (!op || !(op->tmp = malloc(am->len))) {
        fprintf(stderr, "emunic pami: task %u: out of memory for an internal message\n", c->client->task);
        pamil_op_free(op);
        return;
    }
    start_pull(c, am, op, op->tmp);
}

void pamil_on_am(struct pamil_context *c, const struct emu_msg *am)
{
    switch (pamil_w_kind(am->imm)) {
    case PAMIL_K_SEND: on_send(c, am, 0); break;
    case PAMIL_K_LONGHDR: on_send(c, am, 1); break;
    case PAMIL_K_RACK: on_rack(c, am); break;
    case PAMIL_K_INTERNAL: on_internal(c, am); break;
    default:
        fprintf(stderr, "emunic pami: task %u: message of unknown kind %u dropped\n",
                c->client->task, pamil_w_kind(am->imm));
    }
}
