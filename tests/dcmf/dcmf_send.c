/* DCMF_Send: which receive callback a message reaches (short when it fits
 * one packet with its msginfo, long otherwise), every msginfo count with
 * its values, every argument of both callbacks, truncating receives,
 * protocols with only one of the two callbacks, many protocols, sends to
 * self, Restart, and per-source order of 1000 sequential sends.
 * Argument "pending_at_finalize" (two ranks): only the check that a long
 * send the receiver never took still completes when the receiver
 * finalizes. */
#include "dtest.h"

#define GUARD 64
#define PACKET 144 /* one packet: msginfo quads + payload, docs/core.md */
#define BIGMSG ((size_t)1024 * 1024 + 5)

static const size_t sizes[] = {0, 1, 15, 16, 17, 31, 32, 33, 100, 112, 128, 144, 145, 1000, 4096, 65536, BIGMSG};
#define NSIZES (sizeof sizes / sizeof *sizes)
static const DCMF_Consistency cons[] = {DCMF_SEQUENTIAL_CONSISTENCY, DCMF_RELAXED_CONSISTENCY,
                                        DCMF_MATCH_CONSISTENCY, DCMF_WEAK_CONSISTENCY};

/* clientdata given at registration, one per protocol */
static int cd_both, cd_both_long, cd_trunc, cd_trunc_long, cd_short_only, cd_long_only;

static DCMF_Protocol_t p_both, p_trunc, p_short_only, p_long_only, p_order, p_restart;

static void fill_info(DCQuad *mi, unsigned count, uint32_t seed)
{
    for (unsigned q = 0; q < count; q++) {
        mi[q].w0 = seed * 131u + q * 4 + 0;
        mi[q].w1 = seed * 131u + q * 4 + 1 + 0x10000000u;
        mi[q].w2 = ~(seed * 131u + q * 4 + 2);
        mi[q].w3 = (seed << 8) ^ (q * 0x01010101u);
    }
}

static void check_info(const DCQuad *mi, unsigned count, unsigned want_count, uint32_t seed, const char *what)
{
    CHECK(count == want_count, "%s: count %u, sent %u", what, count, want_count);
    if (!count)
        return;
    CHECK(mi != NULL, "%s: msginfo NULL with count %u", what, count);
    CHECK((uintptr_t)mi % 16 == 0, "%s: msginfo %p is not 16-byte aligned", what, (const void *)mi);
    DCQuad want[7];
    fill_info(want, count, seed);
    for (unsigned q = 0; q < count; q++)
        CHECK(mi[q].w0 == want[q].w0 && mi[q].w1 == want[q].w1 && mi[q].w2 == want[q].w2 && mi[q].w3 == want[q].w3,
              "%s: msginfo[%u] = {%#x,%#x,%#x,%#x}, sent {%#x,%#x,%#x,%#x}", what, q, mi[q].w0, mi[q].w1, mi[q].w2,
              mi[q].w3, want[q].w0, want[q].w1, want[q].w2, want[q].w3);
}

/* ---- the round matrix: one expected message at a time ---- */

static struct {
    size_t from, size, rcvlen;
    unsigned count;
    uint32_t seed;
    int want_short; /* which callback it must reach */
    volatile int short_calls, long_calls;
    struct dt_rec done; /* the receive's cb_done */
} ex;

static uint8_t *rxbuf; /* GUARD + BIGMSG + GUARD */
static DCMF_Request_t rx_req;

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    char what[96];
    snprintf(what, sizeof what, "short callback (%zu bytes from rank %zu)", bytes, peer);
    CHECK(cd == &cd_both || cd == &cd_trunc, "%s: clientdata %p is not the registered one", what, cd);
    CHECK(peer == ex.from, "%s: peer %zu, expected %zu", what, peer, ex.from);
    CHECK(ex.want_short, "%s: a %zu-byte message with %u quads came through the short callback", what, ex.size,
          ex.count);
    CHECK(bytes == ex.size, "%s: bytes %zu, sent %zu", what, bytes, ex.size);
    check_info(mi, count, ex.count, ex.seed, what);
    CHECK(bytes == 0 || src != NULL, "%s: src NULL", what);
    CHECK_PAT(src, bytes, ex.seed, 0, what);
    dt_inc(&ex.short_calls);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                               size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    char what[96];
    snprintf(what, sizeof what, "long callback (%zu bytes from rank %zu)", sndlen, peer);
    CHECK(cd == &cd_both_long || cd == &cd_trunc_long, "%s: clientdata %p is not the registered one", what, cd);
    CHECK(peer == ex.from, "%s: peer %zu, expected %zu", what, peer, ex.from);
    CHECK(!ex.want_short, "%s: a %zu-byte message with %u quads came through the long callback", what, ex.size,
          ex.count);
    CHECK(sndlen == ex.size, "%s: sndlen %zu, sent %zu", what, sndlen, ex.size);
    CHECK(rcvlen && rcvbuf && cb_done, "%s: NULL out-pointer", what);
    check_info(mi, count, ex.count, ex.seed, what);
    *rcvlen = ex.rcvlen;
    /* nothing wanted: no buffer needed either */
    *rcvbuf = ex.rcvlen == 0 ? NULL : (char *)rxbuf + GUARD;
    *cb_done = dt_done(&ex.done);
    dt_inc(&ex.long_calls);
    return &rx_req;
}

static DCMF_Request_t send_req;
static struct dt_rec send_done;
static uint8_t *txbuf;

static void one_round(int round, size_t shift, size_t size, unsigned count, int trunc)
{
    size_t to = (dt_me + shift) % dt_np, from = (dt_me + dt_np - shift) % dt_np;
    uint32_t seed = (uint32_t)round * 64 + 1;
    DCMF_Consistency c = cons[round % 4];
    char what[128];

    /* what will arrive here */
    ex.from = from;
    ex.size = size;
    ex.count = count;
    ex.seed = seed;
    ex.want_short = size + 16 * count <= PACKET;
    /* the truncating protocol keeps half (round 3 of 4: nothing at all) */
    ex.rcvlen = !trunc ? size : (round % 4 == 3 ? 0 : size / 2 + 1);
    dt_set(&ex.short_calls, 0);
    dt_set(&ex.long_calls, 0);
    dt_rec_init(&ex.done);
    memset(rxbuf, 0xee, size + 2 * GUARD);
    /* what leaves */
    DCQuad mi[7];
    fill_info(mi, count, seed);
    dt_fill(txbuf, size, seed, 0);
    dt_rec_init(&send_done);
    dt_barrier();

    CHECK_RC(DCMF_Send(trunc ? &p_trunc : &p_both, &send_req, dt_done(&send_done), c, to, size,
                       size ? (char *)txbuf : NULL,
                       count ? mi : NULL, count),
             DCMF_SUCCESS);
    /* the msginfo is the library's once the call returns */
    memset(mi, 0xab, sizeof mi);
    wait_until(&send_done.calls, 1, DT_WAIT_S);
    if (ex.want_short) {
        wait_until(&ex.short_calls, 1, DT_WAIT_S);
    } else {
        wait_until(&ex.long_calls, 1, DT_WAIT_S);
        wait_until(&ex.done.calls, 1, DT_WAIT_S);
        snprintf(what, sizeof what, "round %d: long receive of %zu bytes (rcvlen %zu) from rank %zu", round, size,
                 ex.rcvlen, from);
        CHECK_BYTES(rxbuf, GUARD, 0xee, what);
        CHECK_PAT(rxbuf + GUARD, ex.rcvlen, seed, 0, what);
        CHECK_BYTES(rxbuf + GUARD + ex.rcvlen, size - ex.rcvlen + GUARD, 0xee, what);
        CHECK_REC(&ex.done, 1, 0, what);
    }
    CHECK_REC(&send_done, 1, 0, "send cb_done");
    CHECK(dt_get(&ex.short_calls) + dt_get(&ex.long_calls) == 1, "round %d: %d short and %d long callbacks", round,
          dt_get(&ex.short_calls), dt_get(&ex.long_calls));
}

static void matrix(void)
{
    int round = 0;
    for (size_t s = 0; s < dt_np; s++)
        for (size_t i = 0; i < NSIZES; i++)
            for (unsigned count = 0; count <= 7; count++) {
                /* every count for the small sizes; the big ones cycle */
                if (sizes[i] > 4096 && count != (unsigned)(round % 8)) {
                    round++;
                    continue;
                }
                one_round(round, s, sizes[i], count, 0);
                round++;
            }
    /* truncating receives */
    for (size_t s = 0; s < dt_np; s++)
        for (size_t i = 0; i < NSIZES; i++)
            one_round(round++, s, sizes[i], (unsigned)(i % 8), 1);
}

/* ---- a protocol with only one of the two callbacks ---- */

static volatile int one_cb_calls;
static size_t one_expect_size;
static uint32_t one_expect_seed;
static unsigned one_expect_count;
static DCMF_Request_t one_req;
static struct dt_rec one_done;

static void on_short_only(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    char what[96];
    snprintf(what, sizeof what, "short-only protocol: %zu bytes from rank %zu", bytes, peer);
    CHECK(cd == &cd_short_only, "%s: clientdata %p", what, cd);
    CHECK(peer == (dt_me + dt_np - 1) % dt_np, "%s: wrong peer", what);
    CHECK(bytes == one_expect_size, "%s: expected %zu bytes (all of them)", what, one_expect_size);
    check_info(mi, count, one_expect_count, one_expect_seed, what);
    CHECK_PAT(src, bytes, one_expect_seed, 0, what);
    dt_inc(&one_cb_calls);
}

static DCMF_Request_t *on_long_only(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                                    size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    char what[96];
    snprintf(what, sizeof what, "long-only protocol: %zu bytes from rank %zu", sndlen, peer);
    CHECK(cd == &cd_long_only, "%s: clientdata %p", what, cd);
    CHECK(peer == (dt_me + dt_np - 1) % dt_np, "%s: wrong peer", what);
    CHECK(sndlen == one_expect_size, "%s: expected %zu", what, one_expect_size);
    check_info(mi, count, one_expect_count, one_expect_seed, what);
    *rcvlen = sndlen;
    *rcvbuf = (char *)rxbuf + GUARD;
    *cb_done = dt_done(&one_done);
    dt_inc(&one_cb_calls);
    return &one_req;
}

static void one_callback_protocols(void)
{
    static const size_t short_only_sizes[] = {0, 5, 144, 145, 5000, BIGMSG};
    static const size_t long_only_sizes[] = {5, 0, 1, 100, 145, 70000};
    size_t to = (dt_me + 1) % dt_np;
    int round = 0;
    for (size_t i = 0; i < sizeof short_only_sizes / sizeof *short_only_sizes; i++, round++) {
        one_expect_size = short_only_sizes[i];
        one_expect_seed = 5000 + (uint32_t)round;
        one_expect_count = (unsigned)(i % 3);
        dt_set(&one_cb_calls, 0);
        DCQuad mi[7];
        fill_info(mi, one_expect_count, one_expect_seed);
        dt_fill(txbuf, one_expect_size, one_expect_seed, 0);
        dt_rec_init(&send_done);
        dt_barrier();
        CHECK_RC(DCMF_Send(&p_short_only, &send_req, dt_done(&send_done), DCMF_SEQUENTIAL_CONSISTENCY, to,
                           one_expect_size, (char *)txbuf, mi, one_expect_count),
                 DCMF_SUCCESS);
        wait_until(&send_done.calls, 1, DT_WAIT_S);
        wait_until(&one_cb_calls, 1, DT_WAIT_S);
        CHECK_REC(&send_done, 1, 0, "send to a short-only protocol");
    }
    for (size_t i = 0; i < sizeof long_only_sizes / sizeof *long_only_sizes; i++, round++) {
        one_expect_size = long_only_sizes[i];
        one_expect_seed = 6000 + (uint32_t)round;
        one_expect_count = (unsigned)(i % 3) * 3;
        dt_set(&one_cb_calls, 0);
        dt_rec_init(&one_done);
        memset(rxbuf, 0xee, one_expect_size + 2 * GUARD);
        DCQuad mi[7];
        fill_info(mi, one_expect_count, one_expect_seed);
        dt_fill(txbuf, one_expect_size, one_expect_seed, 0);
        dt_rec_init(&send_done);
        dt_barrier();
        CHECK_RC(DCMF_Send(&p_long_only, &send_req, dt_done(&send_done), DCMF_RELAXED_CONSISTENCY, to,
                           one_expect_size, (char *)txbuf, mi, one_expect_count),
                 DCMF_SUCCESS);
        wait_until(&send_done.calls, 1, DT_WAIT_S);
        wait_until(&one_cb_calls, 1, DT_WAIT_S);
        wait_until(&one_done.calls, 1, DT_WAIT_S);
        char what[96];
        snprintf(what, sizeof what, "long-only protocol, %zu-byte message", one_expect_size);
        CHECK_BYTES(rxbuf, GUARD, 0xee, what);
        CHECK_PAT(rxbuf + GUARD, one_expect_size, one_expect_seed, 0, what);
        CHECK_BYTES(rxbuf + GUARD + one_expect_size, GUARD, 0xee, what);
        CHECK_REC(&one_done, 1, 0, what);
        CHECK_REC(&send_done, 1, 0, "send to a long-only protocol");
    }
    dt_barrier();
}

/* ---- many protocols ---- */

#define NMANY 40
static DCMF_Protocol_t p_many[NMANY];
static volatile int many_cd[NMANY]; /* calls, by protocol; also its clientdata */
static uint8_t many_buf[NMANY][400];
static DCMF_Request_t many_rreq[NMANY], many_sreq[NMANY];
static struct dt_rec many_rdone[NMANY], many_sdone[NMANY];

static int many_index(void *cd, const DCQuad *mi, unsigned count, int parity, const char *what)
{
    int i = (int)((volatile int *)cd - many_cd);
    CHECK(i >= 0 && i < NMANY, "%s: clientdata %p is none of the registered ones", what, cd);
    CHECK(count == 1 && mi[0].w0 == (uint32_t)i && mi[0].w1 == 0xfeed,
          "%s: protocol %d got msginfo for protocol %u (count %u)", what, i, count ? mi[0].w0 : 999u, count);
    CHECK(parity < 0 || i % 2 == parity, "%s: protocol %d reached the callback registered for the other parity",
          what, i);
    return i;
}

static void many_short_even(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)peer;
    int i = many_index(cd, mi, count, 0, "many protocols, short (even)");
    CHECK(bytes == 10 && !memcmp(src, "0123456789", 10), "protocol %d: short data", i);
    dt_inc(&many_cd[i]);
}

static void many_short_odd(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)peer;
    int i = many_index(cd, mi, count, 1, "many protocols, short (odd)");
    CHECK(bytes == 10 && !memcmp(src, "0123456789", 10), "protocol %d: short data", i);
    dt_inc(&many_cd[i]);
}

static DCMF_Request_t *many_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                                 size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    (void)peer;
    int i = many_index(cd, mi, count, -1, "many protocols, long");
    CHECK(sndlen == 300 + (size_t)i, "protocol %d: long message of %zu bytes", i, sndlen);
    *rcvlen = sndlen;
    *rcvbuf = (char *)many_buf[i];
    *cb_done = dt_done(&many_rdone[i]);
    dt_inc(&many_cd[i]);
    return &many_rreq[i];
}

static void many_protocols(void)
{
    size_t to = (dt_me + 1) % dt_np, from = (dt_me + dt_np - 1) % dt_np;
    for (int i = 0; i < NMANY; i++) {
        DCMF_Send_Configuration_t c = {i % 3 ? DCMF_DEFAULT_SEND_PROTOCOL : DCMF_EAGER_SEND_PROTOCOL,
                                       DCMF_DEFAULT_NETWORK, i % 2 ? many_short_odd : many_short_even,
                                       (void *)&many_cd[i], many_long, (void *)&many_cd[i]};
        CHECK_RC(DCMF_Send_register(&p_many[i], &c), DCMF_SUCCESS);
        dt_rec_init(&many_rdone[i]);
        dt_rec_init(&many_sdone[i]);
    }
    dt_fill(txbuf, 400, 77 + (uint32_t)dt_me, 0);
    dt_barrier();
    /* in reverse, so the order of arrival says nothing about the number */
    for (int i = NMANY - 1; i >= 0; i--) {
        DCQuad mi = {(uint32_t)i, 0xfeed, 0, 0};
        int lng = i % 4 == 1;
        CHECK_RC(DCMF_Send(&p_many[i], &many_sreq[i], dt_done(&many_sdone[i]), DCMF_SEQUENTIAL_CONSISTENCY, to,
                           lng ? 300 + (size_t)i : 10, lng ? (char *)txbuf : "0123456789", &mi, 1),
                 DCMF_SUCCESS);
    }
    for (int i = 0; i < NMANY; i++) {
        wait_until(&many_cd[i], 1, DT_WAIT_S);
        wait_until(&many_sdone[i].calls, 1, DT_WAIT_S);
        if (i % 4 == 1) {
            wait_until(&many_rdone[i].calls, 1, DT_WAIT_S);
            CHECK_PAT(many_buf[i], 300 + (size_t)i, 77 + (uint32_t)from, 0, "many protocols: long data");
        }
    }
    dt_barrier();
    for (int i = 0; i < NMANY; i++) {
        CHECK(dt_get(&many_cd[i]) == 1, "protocol %d received %d messages, expected 1", i, dt_get(&many_cd[i]));
        CHECK_REC(&many_sdone[i], 1, 0, "many protocols: send cb_done");
    }
}

/* ---- Restart of a send: the same message again ---- */

static volatile int rs_short, rs_long;
static DCMF_Request_t rs_rreq[2];
static uint8_t rs_buf[2][6000];
static struct dt_rec rs_rdone[2];

static void rs_on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    CHECK(peer == (dt_me + dt_np - 1) % dt_np, "restart: short from rank %zu", peer);
    check_info(mi, count, 3, 100 + (uint32_t)peer, "restarted short send");
    CHECK(bytes == 20, "restarted short send: %zu bytes", bytes);
    CHECK_PAT(src, 20, 100 + (uint32_t)peer, 0, "restarted short send");
    dt_inc(&rs_short);
}

static DCMF_Request_t *rs_on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                                  size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    (void)cd;
    int n = dt_get(&rs_long);
    CHECK(n < 2, "restart: a third long message");
    check_info(mi, count, 2, 200 + (uint32_t)peer, "restarted long send");
    CHECK(sndlen == 5000, "restarted long send: %zu bytes", sndlen);
    *rcvlen = sndlen;
    *rcvbuf = (char *)rs_buf[n];
    *cb_done = dt_done(&rs_rdone[n]);
    dt_inc(&rs_long);
    return &rs_rreq[n];
}

static void restart(void)
{
    size_t to = (dt_me + 1) % dt_np, from = (dt_me + dt_np - 1) % dt_np;
    static uint8_t sbuf[20], lbuf[5000];
    DCMF_Request_t sreq, lreq;
    struct dt_rec sdone, ldone;
    DCQuad smi[3], lmi[2];
    dt_fill(sbuf, sizeof sbuf, 100 + (uint32_t)dt_me, 0);
    dt_fill(lbuf, sizeof lbuf, 200 + (uint32_t)dt_me, 0);
    fill_info(smi, 3, 100 + (uint32_t)dt_me);
    fill_info(lmi, 2, 200 + (uint32_t)dt_me);
    dt_rec_init(&sdone);
    dt_rec_init(&ldone);
    dt_rec_init(&rs_rdone[0]);
    dt_rec_init(&rs_rdone[1]);
    dt_barrier();
    CHECK_RC(DCMF_Send(&p_restart, &sreq, dt_done(&sdone), DCMF_SEQUENTIAL_CONSISTENCY, to, sizeof sbuf,
                       (char *)sbuf, smi, 3),
             DCMF_SUCCESS);
    CHECK_RC(DCMF_Send(&p_restart, &lreq, dt_done(&ldone), DCMF_RELAXED_CONSISTENCY, to, sizeof lbuf, (char *)lbuf,
                       lmi, 2),
             DCMF_SUCCESS);
    /* the msginfo was copied: Restart must not need it */
    memset(smi, 0, sizeof smi);
    memset(lmi, 0, sizeof lmi);
    wait_until(&sdone.calls, 1, DT_WAIT_S);
    wait_until(&ldone.calls, 1, DT_WAIT_S);
    wait_until(&rs_short, 1, DT_WAIT_S);
    wait_until(&rs_rdone[0].calls, 1, DT_WAIT_S);
    dt_barrier();
    CHECK_RC(DCMF_Restart(&sreq), DCMF_SUCCESS);
    CHECK_RC(DCMF_Restart(&lreq), DCMF_SUCCESS);
    wait_until(&sdone.calls, 2, DT_WAIT_S);
    wait_until(&ldone.calls, 2, DT_WAIT_S);
    wait_until(&rs_short, 2, DT_WAIT_S);
    wait_until(&rs_rdone[1].calls, 1, DT_WAIT_S);
    dt_barrier();
    CHECK(dt_get(&rs_short) == 2 && dt_get(&rs_long) == 2, "restart: %d short and %d long arrivals, expected 2 and 2",
          dt_get(&rs_short), dt_get(&rs_long));
    CHECK_PAT(rs_buf[0], 5000, 200 + (uint32_t)from, 0, "long send");
    CHECK_PAT(rs_buf[1], 5000, 200 + (uint32_t)from, 0, "restarted long send");
    CHECK_REC(&sdone, 2, 0, "restarted short send cb_done");
    CHECK_REC(&ldone, 2, 0, "restarted long send cb_done");
    CHECK_REC(&rs_rdone[0], 1, 0, "long receive");
    CHECK_REC(&rs_rdone[1], 1, 0, "restarted long receive");
}

/* ---- order: 1000 sequential sends from every rank to rank 0 ---- */

#define NORDER 1000
#define ORDER_LONG 300 /* every 10th message: the long path */
static volatile int *order_next; /* by source: the sequence number expected next */
static volatile int order_arrived;
static uint8_t *order_rbuf;       /* by source and long message: ORDER_LONG bytes */
static DCMF_Request_t *order_rreq; /* likewise */
static struct dt_rec *order_rdone;

static size_t order_size(uint32_t seq) { return seq % 10 == 9 ? ORDER_LONG : seq % 50; }

static void order_check(const DCQuad *mi, unsigned count, size_t peer, size_t bytes)
{
    CHECK(count == 1 && mi[0].w1 == peer && mi[0].w2 == 0x0dde5, "order: bad msginfo from rank %zu", peer);
    uint32_t seq = mi[0].w0;
    int want = dt_get(&order_next[peer]);
    CHECK(seq == (uint32_t)want, "order: message %u from rank %zu arrived when %d was next", seq, peer, want);
    CHECK(bytes == order_size(seq), "order: message %u from rank %zu has %zu bytes", seq, peer, bytes);
    dt_inc(&order_next[peer]);
    dt_inc(&order_arrived);
}

static void order_on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    order_check(mi, count, peer, bytes);
    CHECK_PAT(src, bytes, 900 + (uint32_t)peer, mi[0].w0 % 64, "order: short data");
}

static DCMF_Request_t *order_on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                                     size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    (void)cd;
    order_check(mi, count, peer, sndlen);
    size_t slot = peer * (NORDER / 10) + mi[0].w0 / 10;
    *rcvlen = sndlen;
    *rcvbuf = (char *)order_rbuf + slot * ORDER_LONG;
    *cb_done = dt_done(&order_rdone[slot]);
    return &order_rreq[slot];
}

static void order(void)
{
    size_t nslots = dt_np * (NORDER / 10);
    if (dt_me == 0) {
        order_next = dt_xmalloc(dt_np * sizeof *order_next);
        memset((void *)order_next, 0, dt_np * sizeof *order_next);
        order_rbuf = dt_xmalloc(nslots * ORDER_LONG);
        order_rreq = dt_xmalloc(nslots * sizeof *order_rreq);
        order_rdone = dt_xmalloc(nslots * sizeof *order_rdone);
        for (size_t i = 0; i < nslots; i++)
            dt_rec_init(&order_rdone[i]);
    }
    DCMF_Request_t *sreq = dt_xmalloc(NORDER * sizeof *sreq);
    static struct dt_rec sdone;
    dt_rec_init(&sdone);
    dt_fill(txbuf, 64 + ORDER_LONG, 900 + (uint32_t)dt_me, 0);
    dt_barrier();
    for (uint32_t seq = 0; seq < NORDER; seq++) {
        DCQuad mi = {seq, (uint32_t)dt_me, 0x0dde5, 0};
        CHECK_RC(DCMF_Send(&p_order, &sreq[seq], dt_done(&sdone), DCMF_SEQUENTIAL_CONSISTENCY, 0, order_size(seq),
                           (char *)txbuf + seq % 64, &mi, 1),
                 DCMF_SUCCESS);
    }
    wait_until(&sdone.calls, NORDER, DT_WAIT_S);
    CHECK_REC(&sdone, NORDER, 0, "order: send cb_done");
    if (dt_me == 0) {
        wait_until(&order_arrived, (int)(dt_np * NORDER), DT_WAIT_S);
        for (size_t p = 0; p < dt_np; p++)
            for (uint32_t k = 0; k < NORDER / 10; k++) {
                size_t slot = p * (NORDER / 10) + k;
                uint32_t seq = k * 10 + 9;
                wait_until(&order_rdone[slot].calls, 1, DT_WAIT_S);
                CHECK_REC(&order_rdone[slot], 1, 0, "order: long receive");
                CHECK_PAT(order_rbuf + slot * ORDER_LONG, ORDER_LONG, 900 + (uint32_t)p, seq % 64, "order: long data");
            }
        printf("order: %zu x %d sequential sends arrived in order\n", dt_np, NORDER);
    }
    dt_barrier();
    free(sreq);
}

/* ---- a long send the receiver never took, when it finalizes ---- */

/* Rank 0 sends rank 1 a long message; rank 1, not advancing, finalizes
 * with it still waiting. The sender's cb_done must still come (an error
 * is fine): a request that never completes hangs whoever waits for it. */
static volatile int go_n;

static void on_go(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    (void)info;
    (void)peer;
    dt_inc(&go_n);
}

static void pending_at_finalize(void)
{
    DCMF_Protocol_t put_p, go_p;
    DCMF_Control_Configuration_t gc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_go, NULL};
    CHECK_RC(DCMF_Control_register(&go_p, &gc), DCMF_SUCCESS);
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_RC(DCMF_Put_register(&put_p, &pc), DCMF_SUCCESS);
    static volatile uint8_t flag[8];
    static uint8_t one = 1;
    DCMF_Memregion_t fm, om, all[2];
    CHECK(dt_np == 2, "run on two ranks");
    CHECK_RC(DCMF_Memregion_create(&fm, NULL, sizeof flag, (void *)flag, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&om, NULL, 1, &one, 0), DCMF_SUCCESS);
    dt_exchange_regions(&fm, all);
    if (dt_me == 1) {
        /* no advance from here: the message waits in this rank's queue */
        DCMF_Control_t info;
        memset(&info, 0, sizeof info);
        CHECK_RC(DCMF_Control(&go_p, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info), DCMF_SUCCESS);
        double end = dt_now() + 30;
        while (!flag[0])
            CHECK(dt_now() < end, "the flag never came");
        CHECK(DCMF_Messager_finalize() == 1, "finalize");
        return;
    }
    wait_until(&go_n, 1, DT_WAIT_S);
    struct dt_rec sd, fa;
    DCMF_Request_t sreq, freq;
    dt_rec_init(&sd);
    dt_rec_init(&fa);
    dt_fill(txbuf, 1000, 1, 0);
    CHECK_RC(DCMF_Send(&p_both, &sreq, dt_done(&sd), DCMF_SEQUENTIAL_CONSISTENCY, 1, 1000, (char *)txbuf, NULL, 0),
             DCMF_SUCCESS);
    /* ordered after the send's arrival at rank 1 */
    CHECK_RC(DCMF_Put(&put_p, &freq, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, 1, 1, &om, &all[1], 0, 0, dt_ack(&fa)),
             DCMF_SUCCESS);
    wait_until(&fa.calls, 1, DT_WAIT_S);
    ERRCAP_BEGIN(); /* an error completion prints a line */
    double end = dt_now() + 10;
    while (!dt_get(&sd.calls) && dt_now() < end)
        DCMF_Messager_advance();
    char line[256];
    errcap_end(line, sizeof line);
    CHECK(dt_get(&sd.calls) == 1,
          "10 s after the receiver finalized, the long send it never accepted has not completed (cb_done not called)");
    printf("pending at finalize: the sender's cb_done came, error %d (result %d)\n", dt_get(&sd.errors),
           dt_get(&sd.result));
    CHECK(DCMF_Messager_finalize() == 1, "finalize");
}

int main(int argc, char **argv)
{
    dt_init();
    DCMF_Send_Configuration_t c;
    c = (DCMF_Send_Configuration_t){DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, &cd_both, on_long,
                                    &cd_both_long};
    CHECK_RC(DCMF_Send_register(&p_both, &c), DCMF_SUCCESS);
    c = (DCMF_Send_Configuration_t){DCMF_RZV_SEND_PROTOCOL, DCMF_TORUS_NETWORK, on_short, &cd_trunc, on_long,
                                    &cd_trunc_long};
    CHECK_RC(DCMF_Send_register(&p_trunc, &c), DCMF_SUCCESS);
    c = (DCMF_Send_Configuration_t){DCMF_EAGER_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short_only, &cd_short_only,
                                    NULL, NULL};
    CHECK_RC(DCMF_Send_register(&p_short_only, &c), DCMF_SUCCESS);
    c = (DCMF_Send_Configuration_t){DCMF_USER0_SEND_PROTOCOL, DCMF_SHMEM_NETWORK, NULL, NULL, on_long_only,
                                    &cd_long_only};
    CHECK_RC(DCMF_Send_register(&p_long_only, &c), DCMF_SUCCESS);
    c = (DCMF_Send_Configuration_t){DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, order_on_short, NULL,
                                    order_on_long, NULL};
    CHECK_RC(DCMF_Send_register(&p_order, &c), DCMF_SUCCESS);
    c = (DCMF_Send_Configuration_t){DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, rs_on_short, NULL, rs_on_long,
                                    NULL};
    CHECK_RC(DCMF_Send_register(&p_restart, &c), DCMF_SUCCESS);

    rxbuf = dt_xmalloc(BIGMSG + 2 * GUARD);
    txbuf = dt_xmalloc(BIGMSG + 2 * GUARD);
    if (argc > 1 && !strcmp(argv[1], "pending_at_finalize")) {
        pending_at_finalize();
        free(rxbuf);
        free(txbuf);
        return 0;
    }

    matrix();
    one_callback_protocols();
    many_protocols();
    restart();
    order();
    dt_finish("dcmf_send");
    free(rxbuf);
    free(txbuf);
    return 0;
}
