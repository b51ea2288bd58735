/* Many ranks (run at 8 x 8): every rank sends a short and a long message
 * to, and puts into, every other rank, all at once; every byte and every
 * callback argument is checked and every message counted exactly once. */
#include "dtest.h"

#define SHORT 40
#define LONGMAX 2000
#define PUTMAX 2000

static DCMF_Protocol_t send_p, put_p;
static volatile int *short_seen, *long_seen;
static volatile int short_n, long_n;
static uint8_t *long_buf; /* by source: LONGMAX */
static DCMF_Request_t *long_req;
static struct dt_rec *long_done;
static int cd_short, cd_long;

static uint32_t seed_of(size_t src, size_t dst, int what) { return (uint32_t)((src * 1024 + dst) * 4 + (size_t)what); }
static size_t long_len(size_t src, size_t dst) { return 145 + (src * 7 + dst * 3) % (LONGMAX - 145); }
static size_t put_len(size_t src, size_t dst) { return 1 + (src * 13 + dst * 7) % (PUTMAX - 1); }

static void check_mi(const DCQuad *mi, unsigned count, unsigned want, size_t peer, int what)
{
    CHECK(count == want, "%s from rank %zu: count %u", what ? "long" : "short", peer, count);
    for (unsigned q = 0; q < count; q++)
        CHECK(mi[q].w0 == (uint32_t)peer && mi[q].w1 == (uint32_t)dt_me && mi[q].w2 == q && mi[q].w3 == (uint32_t)what,
              "%s from rank %zu: msginfo[%u] = {%u,%u,%u,%u}", what ? "long" : "short", peer, q, mi[q].w0, mi[q].w1,
              mi[q].w2, mi[q].w3);
}

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    CHECK(cd == &cd_short, "short: clientdata %p", cd);
    CHECK(peer < dt_np && peer != dt_me, "short from rank %zu", peer);
    check_mi(mi, count, 1, peer, 0);
    CHECK(bytes == SHORT, "short from rank %zu: %zu bytes", peer, bytes);
    CHECK_PAT(src, bytes, seed_of(peer, dt_me, 0), 0, "short message data");
    CHECK(dt_inc(&short_seen[peer]) == 1, "second short message from rank %zu", peer);
    dt_inc(&short_n);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen, size_t *rcvlen,
                               char **rcvbuf, DCMF_Callback_t *cb_done)
{
    CHECK(cd == &cd_long, "long: clientdata %p", cd);
    CHECK(peer < dt_np && peer != dt_me, "long from rank %zu", peer);
    check_mi(mi, count, 2, peer, 1);
    CHECK(sndlen == long_len(peer, dt_me), "long from rank %zu: %zu bytes, expected %zu", peer, sndlen,
          long_len(peer, dt_me));
    CHECK(dt_inc(&long_seen[peer]) == 1, "second long message from rank %zu", peer);
    *rcvlen = sndlen;
    *rcvbuf = (char *)long_buf + peer * LONGMAX;
    *cb_done = dt_done(&long_done[peer]);
    return &long_req[peer];
}

int main(void)
{
    double t0 = dt_now();
    dt_init();
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, &cd_short, on_long,
                                    &cd_long};
    CHECK_RC(DCMF_Send_register(&send_p, &sc), DCMF_SUCCESS);
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_RC(DCMF_Put_register(&put_p, &pc), DCMF_SUCCESS);
    size_t np = dt_np, me = dt_me;
    short_seen = dt_xmalloc(np * sizeof *short_seen);
    long_seen = dt_xmalloc(np * sizeof *long_seen);
    memset((void *)short_seen, 0, np * sizeof *short_seen);
    memset((void *)long_seen, 0, np * sizeof *long_seen);
    long_buf = dt_xmalloc(np * LONGMAX);
    long_req = dt_xmalloc(np * sizeof *long_req);
    long_done = dt_xmalloc(np * sizeof *long_done);
    for (size_t p = 0; p < np; p++)
        dt_rec_init(&long_done[p]);
    /* my put area: one PUTMAX slot per source, guard-filled */
    uint8_t *area = dt_xmalloc(np * PUTMAX), *src = dt_xmalloc(np * (SHORT + LONGMAX + PUTMAX));
    memset(area, 0xee, np * PUTMAX);
    DCMF_Memregion_t am, sm, *all = dt_xmalloc(np * sizeof am);
    CHECK_RC(DCMF_Memregion_create(&am, NULL, np * PUTMAX, area, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&sm, NULL, np * (SHORT + LONGMAX + PUTMAX), src, 0), DCMF_SUCCESS);
    dt_exchange_regions(&am, all);
    /* what goes to each peer: its own stretch of source memory */
    for (size_t p = 0; p < np; p++) {
        uint8_t *b = src + p * (SHORT + LONGMAX + PUTMAX);
        dt_fill(b, SHORT, seed_of(me, p, 0), 0);
        dt_fill(b + SHORT, LONGMAX, seed_of(me, p, 1), 0);
        dt_fill(b + SHORT + LONGMAX, PUTMAX, seed_of(me, p, 2), 0);
    }
    DCMF_Request_t *req = dt_xmalloc(3 * np * sizeof *req);
    struct dt_rec sdone, pdone, pack;
    dt_rec_init(&sdone);
    dt_rec_init(&pdone);
    dt_rec_init(&pack);
    dt_barrier();
    double t1 = dt_now();

    for (size_t i = 1; i < np; i++) {
        size_t p = (me + i) % np;
        uint8_t *b = src + p * (SHORT + LONGMAX + PUTMAX);
        DCQuad mi[2];
        for (unsigned q = 0; q < 2; q++)
            mi[q] = (DCQuad){(uint32_t)me, (uint32_t)p, q, 0};
        CHECK_RC(DCMF_Send(&send_p, &req[3 * p], dt_done(&sdone), DCMF_SEQUENTIAL_CONSISTENCY, p, SHORT, (char *)b, mi, 1),
                 DCMF_SUCCESS);
        for (unsigned q = 0; q < 2; q++)
            mi[q].w3 = 1;
        CHECK_RC(DCMF_Send(&send_p, &req[3 * p + 1], dt_done(&sdone),
                           i % 2 ? DCMF_RELAXED_CONSISTENCY : DCMF_SEQUENTIAL_CONSISTENCY, p, long_len(me, p),
                           (char *)b + SHORT, mi, 2),
                 DCMF_SUCCESS);
        CHECK_RC(DCMF_Put(&put_p, &req[3 * p + 2], dt_done(&pdone), i % 3 ? DCMF_SEQUENTIAL_CONSISTENCY : DCMF_RELAXED_CONSISTENCY,
                          p, put_len(me, p), &sm, &all[p], p * (SHORT + LONGMAX + PUTMAX) + SHORT + LONGMAX,
                          me * PUTMAX, dt_ack(&pack)),
                 DCMF_SUCCESS);
    }
    int n = (int)np - 1;
    wait_until(&sdone.calls, 2 * n, DT_WAIT_S);
    wait_until(&pdone.calls, n, DT_WAIT_S);
    wait_until(&pack.calls, n, DT_WAIT_S);
    wait_until(&short_n, n, DT_WAIT_S);
    for (size_t p = 0; p < np; p++)
        if (p != me)
            wait_until(&long_done[p].calls, 1, DT_WAIT_S);
    dt_barrier();
    double t2 = dt_now();

    CHECK_REC(&sdone, 2 * n, 0, "send cb_done");
    CHECK_REC(&pdone, n, 0, "put cb_done");
    CHECK_REC(&pack, 0, n, "put cb_ack");
    for (size_t p = 0; p < np; p++) {
        char what[64];
        uint8_t *slot = area + p * PUTMAX;
        if (p == me) {
            CHECK_BYTES(slot, PUTMAX, 0xee, "my own put slot");
            CHECK(dt_get(&short_seen[p]) == 0 && dt_get(&long_seen[p]) == 0, "messages from myself");
            continue;
        }
        CHECK(dt_get(&short_seen[p]) == 1 && dt_get(&long_seen[p]) == 1, "from rank %zu: %d short, %d long", p,
              dt_get(&short_seen[p]), dt_get(&long_seen[p]));
        CHECK_REC(&long_done[p], 1, 0, "long receive cb_done");
        snprintf(what, sizeof what, "long message from rank %zu", p);
        CHECK_PAT(long_buf + p * LONGMAX, long_len(p, me), seed_of(p, me, 1), 0, what);
        snprintf(what, sizeof what, "put from rank %zu", p);
        CHECK_PAT(slot, put_len(p, me), seed_of(p, me, 2), 0, what);
        CHECK_BYTES(slot + put_len(p, me), PUTMAX - put_len(p, me), 0xee, what);
    }
    if (me == 0)
        printf("%zu ranks: start-up and region exchange %.2f s, %zu sends + %zu puts %.2f s\n", np, t1 - t0,
               2 * np * (np - 1), np * (np - 1), t2 - t1);
    dt_finish("dcmf_many");
    free((void *)short_seen);
    free((void *)long_seen);
    free(long_buf);
    free(long_req);
    free(long_done);
    free(area);
    free(src);
    free(all);
    free(req);
    return 0;
}
