/* Active messages: PAMI_Send, Send_immediate, Send_typed and dispatch.
 *
 * Every task sends to its right neighbour (and to itself) messages of
 * 0 B .. 1 MiB on three dispatch ids registered with recv_immediate
 * DEFAULT (immediate up to PAMI_DISPATCH_RECV_IMMEDIATE_MAX), ENABLE
 * (always immediate) and DISABLE (always asynchronous); headers of 0 ..
 * 4000 bytes (over one slot: the long-header path); local_fn and
 * remote_fn; Send_immediate at and over its limit and buffer reuse;
 * typed sends and typed receives with PAMI_Type_* vector types and a
 * data function; every dispatch id 0..255; a re-registered dispatch.
 *
 * Argument "early": messages (short, pulled, long-header) sent before the
 * target's PAMI_Dispatch_set wait and are delivered after it, each once. */
#include "ptest.h"

#define D_DEFAULT 0
#define D_ENABLE 1
#define D_DISABLE 2
#define D_TYPED 3
#define D_MAX 255
#define D_EARLY 77

struct hdr {
    uint32_t from, seq, len, hlen; /* hlen: the header size the sender used */
    uint32_t dispatch, mode;       /* mode: expected receive kind */
    uint32_t self, pad;            /* self: sent to the sender itself */
};

enum { M_IMM = 1, M_ASYNC = 2 };

static size_t recv_imm_max, send_imm_max;
static atomic_long got_msgs;
/* Receives completed, from the left neighbour and from this task itself,
 * and messages sent to the right neighbour and to this task: the program
 * is symmetric, so the left sends as many as this task sends right. */
static atomic_long got_left, got_self;
static long sent_right, sent_self;

static void wait_recvs(int line)
{
    double end = pt_now() + 20;
    while (atomic_load(&got_left) < sent_right || atomic_load(&got_self) < sent_self) {
        PAMI_Context_advance(pt_ctx[0], 1);
        if (pt_now() > end)
            FAIL("line %d: received %ld of %ld from the left, %ld of %ld from self", line,
                 atomic_load(&got_left), sent_right, atomic_load(&got_self), sent_self);
    }
}
static void count_sent(size_t to)
{
    if (to == pt_task)
        sent_self++;
    else
        sent_right++;
}
static size_t left, right;

/* A receive in flight: checked by its local_fn. */
struct pending {
    unsigned char *buf;
    size_t len;
    uint32_t from, seq, self;
};

static void check_payload(const unsigned char *p, size_t len, uint32_t from, uint32_t seq, const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != pt_pat(from + seq, i))
            FAIL("%s: message %u from %u, %zu bytes: byte %zu is %u, want %u", what, seq, from, len, i,
                 p[i], pt_pat(from + seq, i));
}

static void check_header(const void *h, size_t hlen, struct hdr *out)
{
    CHECK(hlen >= sizeof *out, "header of %zu bytes", hlen);
    memcpy(out, h, sizeof *out);
    CHECK(out->hlen == hlen, "header length %zu, sender said %u", hlen, out->hlen);
    const unsigned char *b = h;
    for (size_t i = sizeof *out; i < hlen; i++)
        CHECK(b[i] == (unsigned char)(i * 13 + out->seq), "header byte %zu of %zu", i, hlen);
}

static void on_recv_done(pami_context_t ctx, void *cookie, pami_result_t result)
{
    (void)ctx;
    struct pending *p = cookie;
    CHECK(result == PAMI_SUCCESS, "receive completed with %d", (int)result);
    check_payload(p->buf, p->len, p->from, p->seq, "async receive");
    atomic_fetch_add(p->self ? &got_self : &got_left, 1);
    free(p->buf);
    free(p);
}

/* cookie: the dispatch id the function was registered for */
static void on_msg(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                   size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx;
    struct hdr hd;
    check_header(h, hlen, &hd);
    pami_task_t from;
    size_t off;
    CHECK_RC(PAMI_Endpoint_query(origin, &from, &off), PAMI_SUCCESS);
    CHECK(from == hd.from && off == 0, "origin %u/%zu, header says task %u", from, off, hd.from);
    CHECK((uintptr_t)cookie == hd.dispatch, "dispatch %u called with the cookie of %zu", hd.dispatch,
          (size_t)(uintptr_t)cookie);
    CHECK(dlen == hd.len, "data %zu bytes, sender said %u", dlen, hd.len);
    if (hd.mode == M_IMM) {
        CHECK(pipe && !recv, "%zu bytes on dispatch %u: expected an immediate receive (pipe %p recv %p)",
              dlen, hd.dispatch, pipe, (void *)recv);
        check_payload(pipe, dlen, hd.from, hd.seq, "immediate receive");
        atomic_fetch_add(&got_msgs, 1);
        atomic_fetch_add(hd.self ? &got_self : &got_left, 1);
        return;
    }
    CHECK(!pipe && recv, "%zu bytes on dispatch %u: expected an asynchronous receive (pipe %p recv %p)",
          dlen, hd.dispatch, pipe, (void *)recv);
    struct pending *p = calloc(1, sizeof *p);
    p->buf = malloc(dlen ? dlen : 1);
    p->len = dlen;
    p->from = hd.from;
    p->seq = hd.seq;
    p->self = hd.self;
    recv->cookie = p;
    recv->local_fn = on_recv_done;
    recv->addr = p->buf;
    recv->type = PAMI_TYPE_BYTE;
    recv->offset = 0;
    recv->data_fn = PAMI_DATA_COPY;
    recv->data_cookie = NULL;
    atomic_fetch_add(&got_msgs, 1);
}

static unsigned char *src;
static unsigned char hbuf[8192];
static uint32_t seqno;

static int expect_mode(size_t dispatch, size_t len)
{
    if (dispatch == D_ENABLE)
        return M_IMM;
    if (dispatch == D_DISABLE)
        return M_ASYNC;
    return len <= recv_imm_max ? M_IMM : M_ASYNC;
}

/* Build header + data for a message to `to` (the pattern keys on from+seq). */
static void build(size_t to, size_t dispatch, size_t hlen, size_t len, uint32_t seq)
{
    struct hdr hd = {(uint32_t)pt_task, seq, (uint32_t)len, (uint32_t)hlen, (uint32_t)dispatch,
                     (uint32_t)expect_mode(dispatch, len), to == pt_task, 0};
    memcpy(hbuf, &hd, sizeof hd);
    for (size_t i = sizeof hd; i < hlen; i++)
        hbuf[i] = (unsigned char)(i * 13 + seq);
    for (size_t i = 0; i < len; i++)
        src[i] = pt_pat(pt_task + seq, i);
}

/* A PAMI_Send of a checked header (hlen bytes) and len bytes to `to`,
 * counted as sent; its events are the caller's to set. */
static pami_send_t prepared_send(size_t to, size_t dispatch, size_t hlen, size_t len)
{
    build(to, dispatch, hlen, len, seqno++);
    count_sent(to);
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.dest = pt_ep(to, 0);
    s.send.dispatch = dispatch;
    s.send.header.iov_base = hbuf;
    s.send.header.iov_len = hlen;
    s.send.data.iov_base = len ? src : NULL;
    s.send.data.iov_len = len;
    return s;
}

/* One send to `to` with both completions; waits for them and for the one
 * message from `from` (the matching sender) to be received completely. */
static void exchange(size_t to, size_t dispatch, size_t hlen, size_t len)
{
    atomic_long local = 0, remote = 0;
    pami_send_t s = prepared_send(to, dispatch, hlen, len);
    s.events.cookie = &local;
    s.events.local_fn = pt_count_cb;
    s.events.remote_fn = pt_count_cb;
    CHECK_RC(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS);
    /* local completion: the same counter gets local and remote */
    (void)remote;
    pt_wait(pt_ctx[0], &local, 2, 20);
    wait_recvs(__LINE__);
    CHECK(atomic_load(&local) == 2, "local+remote completions ran %ld times", atomic_load(&local));
}

/* ---- sizes x dispatch ids x headers ---- */

static void sizes(void)
{
    const size_t lens[] = {0, 1, 64, recv_imm_max - 1, recv_imm_max, recv_imm_max + 1,
                           send_imm_max - sizeof(struct hdr), send_imm_max, send_imm_max + 1,
                           1000, 4096, 65536 + 3, 1 << 20};
    const size_t dispatches[] = {D_DEFAULT, D_ENABLE, D_DISABLE};
    for (size_t d = 0; d < 3; d++)
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            exchange(right, dispatches[d], sizeof(struct hdr), lens[i]);
            exchange(pt_task, dispatches[d], sizeof(struct hdr), lens[i]); /* to self */
        }
    pt_barrier();
    /* headers around one slot (144 bytes) and far beyond it */
    const size_t hlens[] = {sizeof(struct hdr), 100, send_imm_max - 1, send_imm_max, send_imm_max + 1,
                            200, 1000, 4000};
    const size_t dlens[] = {0, 10, recv_imm_max + 1, 5000};
    for (size_t d = 0; d < 3; d++)
        for (size_t h = 0; h < sizeof hlens / sizeof hlens[0]; h++)
            for (size_t i = 0; i < sizeof dlens / sizeof dlens[0]; i++) {
                exchange(right, dispatches[d], hlens[h], dlens[i]);
                exchange(pt_task, dispatches[d], hlens[h], dlens[i]);
            }
    pt_barrier();
}

/* Many sends in flight at once, no callbacks, then a count. */
static void burst(void)
{
    const int n = 200;
    unsigned char *bufs = malloc((size_t)n * 300);
    for (int k = 0; k < n; k++) {
        size_t len = (size_t)(k * 37) % 300;
        uint32_t seq = seqno++;
        build(right, D_DEFAULT, sizeof(struct hdr), len, seq);
        count_sent(right);
        memcpy(bufs + (size_t)k * 300, src, len);
        pami_send_t s;
        memset(&s, 0, sizeof s);
        s.send.dest = pt_ep(right, 0);
        s.send.dispatch = D_DEFAULT;
        s.send.header.iov_base = hbuf; /* may be reused on return for every size */
        s.send.header.iov_len = sizeof(struct hdr);
        s.send.data.iov_base = bufs + (size_t)k * 300;
        s.send.data.iov_len = len;
        CHECK_RC(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS);
    }
    wait_recvs(__LINE__);
    pt_barrier(); /* the right neighbour has taken everything: bufs may go */
    free(bufs);
}

/* ---- Send_immediate ---- */

static void immediate(void)
{
    size_t hl = sizeof(struct hdr);
    const size_t lens[] = {0, 1, send_imm_max - hl};
    for (size_t i = 0; i < 3; i++) {
        for (int to_self = 0; to_self < 2; to_self++) {
            uint32_t seq = seqno++;
            build(to_self ? pt_task : right, D_DEFAULT, hl, lens[i], seq);
            count_sent(to_self ? pt_task : right);
            pami_send_immediate_t s;
            memset(&s, 0, sizeof s);
            s.dest = pt_ep(to_self ? pt_task : right, 0);
            s.dispatch = D_DEFAULT;
            s.header.iov_base = hbuf;
            s.header.iov_len = hl;
            s.data.iov_base = src;
            s.data.iov_len = lens[i];
            CHECK_RC(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_SUCCESS);
            /* the buffers are free on return */
            memset(hbuf, 0xee, hl);
            memset(src, 0xee, lens[i]);
            wait_recvs(__LINE__);
        }
    }
    /* header + data one byte over the limit, and a header alone */
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.dest = pt_ep(right, 0);
    s.dispatch = D_DEFAULT;
    s.header.iov_base = hbuf;
    s.header.iov_len = hl;
    s.data.iov_base = src;
    s.data.iov_len = send_imm_max - hl + 1;
    CHECK_ERR(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_INVAL, "PAMI_Send_immediate");
    s.header.iov_len = send_imm_max + 1;
    s.data.iov_len = 0;
    CHECK_ERR(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_INVAL, "PAMI_Send_immediate");
    pt_barrier();
}

/* ---- local_fn / remote_fn separately, and PAMI_Send's buffer reuse ---- */

static void events(void)
{
    const size_t lens[] = {0, 100, 5000, 300000};
    for (size_t i = 0; i < 4; i++) {
        for (int which = 0; which < 3; which++) { /* local only, remote only, none */
            atomic_long l = 0, r = 0;
            pami_send_t s = prepared_send(right, D_DEFAULT, sizeof(struct hdr), lens[i]);
            s.events.cookie = which == 0 ? (void *)&l : (void *)&r;
            s.events.local_fn = which == 0 ? pt_count_cb : NULL;
            s.events.remote_fn = which == 1 ? pt_count_cb : NULL;
            CHECK_RC(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS);
            memset(hbuf, 0xdd, sizeof(struct hdr)); /* the header is free on return */
            if (which == 0)
                pt_wait(pt_ctx[0], &l, 1, 20);
            if (which == 1)
                pt_wait(pt_ctx[0], &r, 1, 20);
            wait_recvs(__LINE__);
            pt_barrier(); /* which == 2: src must stay until the peer has it */
            pt_advance_for(pt_ctx[0], 0.01);
            CHECK(atomic_load(&l) == (which == 0) && atomic_load(&r) == (which == 1),
                  "local_fn ran %ld times, remote_fn %ld times", atomic_load(&l), atomic_load(&r));
        }
    }
}

/* An events.remote_fn the caller never set (IBM's test/api barrier()
 * leaves it as stack garbage; 0x64 there) is taken as NULL with one line,
 * once: the message still arrives, local_fn still runs, and the remote
 * completion does not call the garbage. */
static void garbage_event(void)
{
    for (int round = 0; round < 2; round++) {
        atomic_long l = 0;
        pami_send_t s = prepared_send(right, D_DEFAULT, sizeof(struct hdr), 100);
        s.events.cookie = &l;
        s.events.local_fn = pt_count_cb;
        s.events.remote_fn = (pami_event_function)(uintptr_t)0x64;
        if (round == 0)
            CHECK_ERR(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS, "events.remote_fn");
        else
            CHECK_QUIET(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS);
        pt_wait(pt_ctx[0], &l, 1, 20);
        wait_recvs(__LINE__);
        pt_barrier();
        pt_advance_for(pt_ctx[0], 0.05); /* where the remote completion would come */
        CHECK(atomic_load(&l) == 1, "local_fn ran %ld times", atomic_load(&l));
    }
}

/* ---- typed sends and receives ---- */

/* Sender: 4-byte blocks every 12 bytes. Receiver: 8-byte blocks every 20. */
static pami_type_t t_send, t_recv;
static unsigned char *typed_rbuf;
static size_t typed_rlen;
static atomic_long typed_done;

#define XOR_KEY 0x5a

static void xor_fn(void *target, void *source, size_t bytes, void *cookie)
{
    unsigned char *t = target;
    const unsigned char *s = source;
    unsigned char k = (unsigned char)(uintptr_t)cookie;
    for (size_t i = 0; i < bytes; i++)
        t[i] = s[i] ^ k;
}

static void on_typed(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                     size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)origin;
    struct hdr hd;
    check_header(h, hlen, &hd);
    CHECK(dlen == hd.len, "typed: %zu bytes, sender said %u", dlen, hd.len);
    if (hd.mode == M_IMM) { /* contiguous stream */
        CHECK(pipe && !recv, "typed: expected immediate");
        for (size_t i = 0; i < dlen; i++)
            CHECK(((const unsigned char *)pipe)[i] == pt_pat(hd.from + hd.seq, i), "typed stream byte %zu", i);
        atomic_fetch_add(&typed_done, 1);
        return;
    }
    CHECK(!pipe && recv, "typed: expected asynchronous");
    memset(typed_rbuf, 0, typed_rlen);
    recv->cookie = &typed_done;
    recv->local_fn = pt_count_cb;
    recv->addr = typed_rbuf;
    recv->type = t_recv;
    recv->offset = 0;
    if (hd.mode == M_ASYNC + 10) {
        recv->data_fn = xor_fn;
        recv->data_cookie = (void *)(uintptr_t)XOR_KEY;
    } else {
        recv->data_fn = PAMI_DATA_COPY;
    }
}

static void typed(void)
{
    CHECK_RC(PAMI_Type_create(&t_send), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(t_send, 4, 0, 1, 12), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(t_send, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_create(&t_recv), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(t_recv, 8, 0, 1, 20), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(t_recv, 1), PAMI_SUCCESS);
    pami_configuration_t q[2] = {{.name = PAMI_TYPE_DATA_SIZE}, {.name = PAMI_TYPE_DATA_EXTENT}};
    CHECK_RC(PAMI_Type_query(t_send, q, 2), PAMI_SUCCESS);
    CHECK(q[0].value.intval == 4 && q[1].value.intval == 12, "send type size %zu extent %zu",
          q[0].value.intval, q[1].value.intval);
    pami_dispatch_callback_function fn = {.p2p = on_typed};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], D_TYPED, fn, NULL, h), PAMI_SUCCESS);
    pt_barrier();
    const size_t lens[] = {8, 64, 4000, 80000}; /* multiples of 8 */
    long typed_sent = 0;
    typed_rlen = 80000 / 8 * 20;
    typed_rbuf = calloc(1, typed_rlen);
    for (size_t i = 0; i < 4; i++) {
        for (int mode = 0; mode < 3; mode++) { /* immediate stream, typed recv, typed recv + xor */
            size_t len = lens[i];
            if (mode == 0 && len > recv_imm_max)
                continue;
            if (mode != 0 && len <= recv_imm_max)
                continue;
            uint32_t seq = seqno++;
            struct hdr hd = {(uint32_t)pt_task, seq, (uint32_t)len, sizeof hd, D_TYPED,
                             (uint32_t)(mode == 0 ? M_IMM : mode == 1 ? M_ASYNC : M_ASYNC + 10), 0, 0};
            /* the sender's strided buffer: stream byte i at (i/4)*12 + i%4 */
            size_t sext = len / 4 * 12;
            unsigned char *sbuf = malloc(sext);
            memset(sbuf, 0xcc, sext);
            for (size_t k = 0; k < len; k++)
                sbuf[k / 4 * 12 + k % 4] = pt_pat(pt_task + seq, k);
            size_t rext = len / 8 * 20;
            long want = ++typed_sent; /* the left sends as many as this task */
            atomic_long l = 0;
            pami_send_typed_t s;
            memset(&s, 0, sizeof s);
            s.send.dest = pt_ep(right, 0);
            s.send.dispatch = D_TYPED;
            s.send.header.iov_base = &hd;
            s.send.header.iov_len = sizeof hd;
            s.send.data.iov_base = sbuf;
            s.send.data.iov_len = len;
            s.events.cookie = &l;
            s.events.local_fn = pt_count_cb;
            s.typed.type = t_send;
            s.typed.offset = 0;
            s.typed.data_fn = PAMI_DATA_COPY;
            CHECK_RC(PAMI_Send_typed(pt_ctx[0], &s), PAMI_SUCCESS);
            pt_wait(pt_ctx[0], &l, 1, 20);
            pt_wait(pt_ctx[0], &typed_done, want, 20);
            if (mode != 0) {
                unsigned char k = mode == 2 ? XOR_KEY : 0;
                for (size_t b = 0; b < len; b++) {
                    size_t at = b / 8 * 20 + b % 8;
                    CHECK(typed_rbuf[at] == (unsigned char)(pt_pat(left + seq, b) ^ k),
                          "typed receive (mode %d, %zu bytes): stream byte %zu at %zu is %u", mode, len, b,
                          at, typed_rbuf[at]);
                }
                for (size_t at = 0; at < typed_rlen; at++)
                    CHECK((at % 20 < 8 && at < rext) || typed_rbuf[at] == 0, "typed receive wrote the gap at %zu", at);
            }
            free(sbuf);
            pt_barrier();
        }
    }
    CHECK_RC(PAMI_Type_destroy(&t_send), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_destroy(&t_recv), PAMI_SUCCESS);
    free(typed_rbuf);
    typed_rbuf = NULL;
}

/* ---- every dispatch id; re-registration ---- */

static atomic_long id_hits[256];

static void on_id(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                  size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)origin, (void)recv;
    uint32_t id;
    CHECK(hlen == sizeof id && pipe && dlen == 1, "id message: header %zu data %zu", hlen, dlen);
    memcpy(&id, h, sizeof id);
    CHECK((uintptr_t)cookie == id, "a message for dispatch %u ran the function of %zu", id,
          (size_t)(uintptr_t)cookie);
    CHECK(*(const unsigned char *)pipe == (unsigned char)id, "id message payload");
    atomic_fetch_add(&id_hits[id], 1);
}

static void on_id2(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                   size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)h, (void)hlen, (void)pipe, (void)dlen, (void)origin, (void)recv;
    atomic_fetch_add(&id_hits[0], 1000);
}

static void all_ids(void)
{
    pami_configuration_t q = {.name = PAMI_CONTEXT_DISPATCH_ID_MAX};
    CHECK_RC(PAMI_Context_query(pt_ctx[0], &q, 1), PAMI_SUCCESS);
    CHECK(q.value.intval == D_MAX, "DISPATCH_ID_MAX %zu", q.value.intval);
    pami_dispatch_callback_function fn = {.p2p = on_id};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    for (size_t id = 0; id <= D_MAX; id++)
        if (id != PT_DISPATCH)
            CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], id, fn, (void *)(uintptr_t)id, h), PAMI_SUCCESS);
    pt_barrier();
    for (uint32_t id = 0; id <= D_MAX; id++) {
        if (id == PT_DISPATCH)
            continue;
        unsigned char b = (unsigned char)id;
        pami_send_immediate_t s;
        memset(&s, 0, sizeof s);
        s.dest = pt_ep(right, 0);
        s.dispatch = id;
        s.header.iov_base = &id;
        s.header.iov_len = sizeof id;
        s.data.iov_base = &b;
        s.data.iov_len = 1;
        CHECK_RC(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_SUCCESS);
    }
    double end = pt_now() + 20;
    for (size_t id = 0; id <= D_MAX; id++) {
        if (id == PT_DISPATCH)
            continue;
        while (atomic_load(&id_hits[id]) < 1) {
            PAMI_Context_advance(pt_ctx[0], 1);
            CHECK(pt_now() < end, "dispatch id %zu never ran", id);
        }
    }
    pt_barrier();
    for (size_t id = 0; id <= D_MAX; id++)
        CHECK(id == PT_DISPATCH || atomic_load(&id_hits[id]) == 1, "dispatch %zu ran %ld times", id,
              atomic_load(&id_hits[id]));
    /* the id past the last one */
    CHECK_ERR(PAMI_Dispatch_set(pt_ctx[0], D_MAX + 1, fn, NULL, h), PAMI_INVAL, "PAMI_Dispatch_set");
    /* registering again replaces the function */
    pami_dispatch_callback_function fn2 = {.p2p = on_id2};
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], 0, fn2, NULL, h), PAMI_SUCCESS);
    pt_barrier();
    uint32_t id = 0;
    unsigned char b = 0;
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.dest = pt_ep(right, 0);
    s.dispatch = 0;
    s.header.iov_base = &id;
    s.header.iov_len = sizeof id;
    s.data.iov_base = &b;
    s.data.iov_len = 1;
    CHECK_RC(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &id_hits[0], 1001, 20);
    pt_barrier();
    CHECK(atomic_load(&id_hits[0]) == 1001, "dispatch 0 count %ld", atomic_load(&id_hits[0]));
}

/* ---- messages that arrive before the dispatch is set ---- */

static atomic_long early_n, early_done;
static unsigned char early_seen[8];
static unsigned char *early_buf;

static void on_early(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                     size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)origin;
    struct hdr hd;
    check_header(h, hlen, &hd);
    CHECK(hd.seq < 8 && !early_seen[hd.seq], "early message %u delivered twice", hd.seq);
    early_seen[hd.seq] = 1;
    CHECK(hd.from == left, "early message from %u", hd.from);
    CHECK(dlen == hd.len, "early message length");
    if (pipe) {
        check_payload(pipe, dlen, hd.from, hd.seq, "early immediate");
        atomic_fetch_add(&early_done, 1);
    } else {
        recv->addr = early_buf + (size_t)hd.seq * 70000;
        recv->type = PAMI_TYPE_BYTE;
        recv->data_fn = PAMI_DATA_COPY;
        recv->local_fn = pt_count_cb;
        recv->cookie = &early_done;
    }
    atomic_fetch_add(&early_n, 1);
}

static void early(void)
{
    /* seq 0..5: short, short-to-the-slot, pulled, long header, 0 bytes, long */
    const size_t lens[] = {10, 100, 70000 - 1, 50, 0, 65536};
    const size_t hls[] = {sizeof(struct hdr), sizeof(struct hdr), sizeof(struct hdr), 500,
                          sizeof(struct hdr), sizeof(struct hdr)};
    const int n = 6;
    early_buf = calloc((size_t)n, 70000);
    /* a sender must have the dispatch set on its own context (as IBM's
     * PAMI, p2p/send/dispatch_err): the messages leave from context 1,
     * where D_EARLY is set, for context 0, where it is not yet */
    pami_dispatch_callback_function efn = {.p2p = on_early};
    pami_dispatch_hint_t eh;
    memset(&eh, 0, sizeof eh);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[1], D_EARLY, efn, NULL, eh), PAMI_SUCCESS);
    unsigned char *bufs[6];
    atomic_long local = 0;
    for (int k = 0; k < n; k++) {
        struct hdr hd = {(uint32_t)pt_task, (uint32_t)k, (uint32_t)lens[k], (uint32_t)hls[k], D_EARLY, 0, 0, 0};
        unsigned char *hb = malloc(hls[k]);
        memcpy(hb, &hd, sizeof hd);
        for (size_t i = sizeof hd; i < hls[k]; i++)
            hb[i] = (unsigned char)(i * 13 + (uint32_t)k);
        bufs[k] = malloc(lens[k] + 1);
        for (size_t i = 0; i < lens[k]; i++)
            bufs[k][i] = pt_pat(pt_task + (size_t)k, i);
        pami_send_t s;
        memset(&s, 0, sizeof s);
        s.send.dest = pt_ep(right, 0);
        s.send.dispatch = D_EARLY;
        s.send.header.iov_base = hb;
        s.send.header.iov_len = hls[k];
        s.send.data.iov_base = bufs[k];
        s.send.data.iov_len = lens[k];
        s.events.cookie = &local;
        s.events.local_fn = pt_count_cb;
        CHECK_RC(PAMI_Send(pt_ctx[1], &s), PAMI_SUCCESS);
        free(hb);
    }
    /* everything has arrived (or is on its way) and nothing may run */
    pt_barrier();
    pt_advance_for(pt_ctx[0], 0.3);
    pt_barrier();
    CHECK(atomic_load(&early_n) == 0, "%ld messages ran before PAMI_Dispatch_set", atomic_load(&early_n));
    pami_dispatch_callback_function fn = {.p2p = on_early};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], D_EARLY, fn, NULL, h), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &early_done, n, 20);
    pt_wait(pt_ctx[1], &local, n, 20);
    for (int k = 0; k < n; k++)
        if (k != 0 && k != 1 && k != 3 && k != 4)
            check_payload(early_buf + (size_t)k * 70000, lens[k], (uint32_t)left, (uint32_t)k, "early async");
    pt_barrier();
    for (int k = 0; k < n; k++)
        free(bufs[k]);
    free(early_buf);
}

int main(int argc, char **argv)
{
    int do_early = argc > 1 && !strcmp(argv[1], "early");
    pt_init(do_early ? 2 : 1);
    right = (pt_task + 1) % pt_size;
    left = (pt_task + pt_size - 1) % pt_size;
    pami_configuration_t q[2] = {{.name = PAMI_DISPATCH_RECV_IMMEDIATE_MAX},
                                 {.name = PAMI_DISPATCH_SEND_IMMEDIATE_MAX}};
    CHECK_RC(PAMI_Dispatch_query(pt_ctx[0], D_DEFAULT, q, 2), PAMI_SUCCESS);
    recv_imm_max = q[0].value.intval;
    send_imm_max = q[1].value.intval;
    CHECK(recv_imm_max >= 64 && send_imm_max >= 64 && send_imm_max < 4000,
          "RECV_IMMEDIATE_MAX %zu SEND_IMMEDIATE_MAX %zu", recv_imm_max, send_imm_max);
    src = malloc(1 << 20);
    if (do_early) {
        early();
        free(src);
        pt_finish("pami_send early");
        return 0;
    }
    pami_dispatch_callback_function fn = {.p2p = on_msg};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], D_DEFAULT, fn, (void *)(uintptr_t)D_DEFAULT, h), PAMI_SUCCESS);
    h.recv_immediate = PAMI_HINT_ENABLE;
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], D_ENABLE, fn, (void *)(uintptr_t)D_ENABLE, h), PAMI_SUCCESS);
    h.recv_immediate = PAMI_HINT_DISABLE;
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], D_DISABLE, fn, (void *)(uintptr_t)D_DISABLE, h), PAMI_SUCCESS);
    pt_barrier();
    sizes();
    burst();
    immediate();
    events();
    garbage_event();
    typed();
    all_ids(); /* last: it replaces the functions of ids 0..3 */
    free(src);
    pt_finish("pami_send");
    return 0;
}
