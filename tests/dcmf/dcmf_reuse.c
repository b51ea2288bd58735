/* Request storage belongs to the client again from an operation's last
 * callback on, whatever the client then writes there; while an operation
 * is in flight its storage (and any storage overlapping it) is refused.
 *
 *  - a finished put's request, written over by the client except for its
 *    first 4 bytes (the library's leftovers), carries a send, a get and a
 *    DCMF_Restart of that get; so does a long receive's request, returned
 *    again by the next receive callback after the client scribbled on it;
 *  - a put in flight: its request, storage overlapping it from either
 *    side, DCMF_Restart and a global barrier on it are refused with one
 *    stderr line each; storage right next to it is fine; after the
 *    completion the same request is free again;
 *  - a global barrier in flight: its request is refused for a put and a
 *    send until the barrier's callback;
 *  - a receive callback returning the request of a receive still in
 *    flight (a ring of requests the sender outruns): the second receive
 *    waits for the storage and then completes too, into its own buffer.
 * Every transfer's data is checked byte by byte. */
#include <dcmf_globalcollectives.h>

#include "dtest.h"

#define BIG (256 * 1024)
#define SMALL 1000
#define SEQ DCMF_SEQUENTIAL_CONSISTENCY

static DCMF_Protocol_t put_p, get_p, send_p, gb_p, ring_p;
static volatile int shorts, longs;
static struct dt_rec rdone;
static char *rbuf;
static DCMF_Request_t rreq; /* every long receive's request */

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                     size_t bytes)
{
    (void)cd, (void)mi, (void)count, (void)peer;
    CHECK(bytes == 100, "short send of %zu bytes, expected 100", bytes);
    memcpy(rbuf, src, bytes);
    dt_inc(&shorts);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                               size_t sndlen, size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    (void)cd, (void)mi, (void)count, (void)peer;
    *rcvlen = sndlen;
    *rcvbuf = rbuf;
    *cb = dt_done(&rdone);
    dt_inc(&longs);
    return &rreq;
}

/* One request for every long receive, a buffer of its own for each. */
static char *ring_buf;
static DCMF_Request_t ring_req;
static volatile int ring_longs;
static struct dt_rec ring_done[4];

static DCMF_Request_t *on_ring(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                               size_t sndlen, size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    (void)cd, (void)mi, (void)count, (void)peer;
    int k = dt_inc(&ring_longs) - 1;
    CHECK(k < 4 && sndlen == BIG, "ring receive %d of %zu bytes", k, sndlen);
    *rcvlen = sndlen;
    *rcvbuf = ring_buf + (size_t)k * BIG;
    *cb = dt_done(&ring_done[k]);
    return &ring_req;
}

/* The client's own use of a finished request's memory: everything but the
 * first 4 bytes (where a library may keep a mark) becomes nonzero junk. */
static void scribble(DCMF_Request_t *r, uint8_t v)
{
    memset((char *)r + 4, v, sizeof *r - 4);
}

int main(void)
{
    dt_init();
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL,
                                    on_long, NULL};
    DCMF_GlobalBarrier_Configuration_t bc = {DCMF_DEFAULT_GLOBALBARRIER_PROTOCOL};
    CHECK_RC(DCMF_Put_register(&put_p, &pc), DCMF_SUCCESS);
    CHECK_RC(DCMF_Get_register(&get_p, &gc), DCMF_SUCCESS);
    CHECK_RC(DCMF_Send_register(&send_p, &sc), DCMF_SUCCESS);
    CHECK_RC(DCMF_GlobalBarrier_register(&gb_p, &bc), DCMF_SUCCESS);
    DCMF_Send_Configuration_t rc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, NULL, NULL, on_ring,
                                    NULL};
    CHECK_RC(DCMF_Send_register(&ring_p, &rc), DCMF_SUCCESS);

    size_t to = (dt_me + 1) % dt_np, from = (dt_me + dt_np - 1) % dt_np;
    char *src = dt_xmalloc(BIG), *dst = dt_xmalloc(BIG), *got = dt_xmalloc(BIG);
    rbuf = dt_xmalloc(BIG);
    dt_fill(src, BIG, 10 + (uint32_t)dt_me, 0);
    memset(dst, 0, BIG);
    DCMF_Memregion_t sm, dm, gm, *all_dst = dt_xmalloc(dt_np * sizeof *all_dst);
    size_t out;
    CHECK_RC(DCMF_Memregion_create(&sm, &out, BIG, src, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&dm, &out, BIG, dst, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&gm, &out, BIG, got, 0), DCMF_SUCCESS);
    dt_exchange_regions(&dm, all_dst);
    DCMF_Memregion_t *rm = &all_dst[to];
    DCMF_Request_t *pool = aligned_alloc(16, 4 * sizeof *pool);
    CHECK(pool, "out of memory");
    memset(pool, 0, 4 * sizeof *pool);
    DCMF_Callback_t cb0 = dt_nocb();
    DCQuad mi[1] = {{1, 2, 3, 4}};

    /* ---- a finished request, partly written over by the client ---- */
    struct dt_rec p1, a1, s1, g1, g2;
    dt_rec_init(&p1), dt_rec_init(&a1), dt_rec_init(&s1), dt_rec_init(&g1), dt_rec_init(&g2);
    CHECK_RC(DCMF_Put(&put_p, &pool[0], dt_done(&p1), SEQ, to, SMALL, &sm, rm, 0, 0, dt_ack(&a1)),
             DCMF_SUCCESS);
    wait_until(&p1.calls, 1, DT_WAIT_S);
    wait_until(&a1.calls, 1, DT_WAIT_S);
    scribble(&pool[0], 0x01);
    CHECK_RC(DCMF_Send(&send_p, &pool[0], dt_done(&s1), SEQ, to, 100, src + 50, mi, 1), DCMF_SUCCESS);
    wait_until(&s1.calls, 1, DT_WAIT_S);
    wait_until(&shorts, 1, DT_WAIT_S);
    CHECK_PAT(rbuf, 100, 10 + (uint32_t)from, 50, "short send on a reused request");
    scribble(&pool[0], 0xff);
    dt_barrier(); /* the puts have landed everywhere */
    CHECK_PAT(dst, SMALL, 10 + (uint32_t)from, 0, "put on a fresh request");
    CHECK_RC(DCMF_Get(&get_p, &pool[0], dt_done(&g1), SEQ, to, SMALL, rm, &gm, 0, 0), DCMF_SUCCESS);
    wait_until(&g1.calls, 1, DT_WAIT_S);
    CHECK_PAT(got, SMALL, 10 + (uint32_t)dt_me, 0, "get on a reused request");
    /* untouched since the get: restarting it repeats the get */
    memset(got, 0, SMALL);
    CHECK_RC(DCMF_Restart(&pool[0]), DCMF_SUCCESS);
    CHECK_REC(&g1, 1, 0, "a restart before its completion");
    wait_until(&g1.calls, 2, DT_WAIT_S);
    CHECK_PAT(got, SMALL, 10 + (uint32_t)dt_me, 0, "restarted get");
    dt_barrier();

    /* ---- a request in flight ---- */
    struct dt_rec bp, ba, nb, s2, pl;
    dt_rec_init(&bp), dt_rec_init(&ba), dt_rec_init(&nb), dt_rec_init(&s2), dt_rec_init(&pl);
    dt_fill(src, BIG, 20 + (uint32_t)dt_me, 0);
    CHECK_RC(DCMF_Put(&put_p, &pool[1], dt_done(&bp), DCMF_RELAXED_CONSISTENCY, to, BIG, &sm, rm, 0, 0,
                      dt_ack(&ba)),
             DCMF_SUCCESS);
    DCMF_Request_t *inside = (DCMF_Request_t *)((char *)&pool[1] + 256);
    DCMF_Request_t *below = (DCMF_Request_t *)((char *)&pool[0] + 16);
    CHECK_ERR(DCMF_Send(&send_p, &pool[1], cb0, SEQ, to, 10, src, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Put(&put_p, inside, cb0, SEQ, to, 10, &sm, rm, 0, 0, cb0), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, below, cb0, SEQ, to, 10, rm, &gm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Restart(&pool[1]), DCMF_INVAL, "DCMF_Restart");
    CHECK_ERR(DCMF_GlobalBarrier(&gb_p, &pool[1], cb0), DCMF_INVAL, "DCMF_GlobalBarrier");
    /* the storage on either side is not in use */
    CHECK_RC(DCMF_Get(&get_p, &pool[0], dt_done(&nb), SEQ, to, 64, rm, &gm, 0, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Send(&send_p, &pool[2], dt_done(&s2), SEQ, to, 100, src + 7, mi, 1), DCMF_SUCCESS);
    wait_until(&bp.calls, 1, DT_WAIT_S);
    wait_until(&ba.calls, 1, DT_WAIT_S);
    wait_until(&nb.calls, 1, DT_WAIT_S);
    wait_until(&s2.calls, 1, DT_WAIT_S);
    wait_until(&shorts, 2, DT_WAIT_S);
    CHECK_REC(&bp, 1, 0, "put in flight during refused reuses: cb_done");
    CHECK_REC(&ba, 0, 1, "put in flight during refused reuses: cb_ack");
    CHECK_PAT(rbuf, 100, 20 + (uint32_t)from, 7, "short send next to a request in flight");
    /* complete: free again */
    CHECK_RC(DCMF_Put(&put_p, &pool[1], dt_done(&pl), SEQ, to, 100, &sm, rm, BIG - 100, 0, cb0),
             DCMF_SUCCESS);
    wait_until(&pl.calls, 1, DT_WAIT_S);
    dt_barrier();
    CHECK_PAT(dst + 100, BIG - 100, 20 + (uint32_t)from, 100, "put that was in flight during refused reuses");
    CHECK_PAT(dst, 100, 20 + (uint32_t)from, BIG - 100, "put on its request after completion");
    dt_barrier();

    /* ---- a collective's request in flight ---- */
    struct dt_rec gb, s3;
    dt_rec_init(&gb), dt_rec_init(&s3);
    CHECK_RC(DCMF_GlobalBarrier(&gb_p, &pool[3], dt_done(&gb)), DCMF_SUCCESS);
    CHECK_ERR(DCMF_Put(&put_p, &pool[3], cb0, SEQ, to, 10, &sm, rm, 0, 0, cb0), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Send(&send_p, (DCMF_Request_t *)((char *)&pool[3] - 32), cb0, SEQ, to, 10, src, mi, 1),
              DCMF_INVAL, "DCMF_Send");
    wait_until(&gb.calls, 1, DT_WAIT_S);
    CHECK_REC(&gb, 1, 0, "global barrier");
    CHECK_RC(DCMF_Send(&send_p, &pool[3], dt_done(&s3), SEQ, to, 100, src + 9, mi, 1), DCMF_SUCCESS);
    wait_until(&s3.calls, 1, DT_WAIT_S);
    wait_until(&shorts, 3, DT_WAIT_S);
    CHECK_PAT(rbuf, 100, 20 + (uint32_t)from, 9, "send on a finished barrier's request");
    /* Before the barrier: a left neighbour released before us sends at
     * once, and our barrier wait advances, so its long receive (cb_done
     * on rdone) can finish before we leave the barrier. */
    dt_rec_init(&rdone);
    dt_barrier();

    /* ---- a long receive's request, reused by the next receive ---- */
    struct dt_rec l1, l2;
    dt_rec_init(&l1), dt_rec_init(&l2);
    CHECK_RC(DCMF_Send(&send_p, &pool[0], dt_done(&l1), SEQ, to, BIG, src, mi, 1), DCMF_SUCCESS);
    wait_until(&l1.calls, 1, DT_WAIT_S);
    wait_until(&rdone.calls, 1, DT_WAIT_S);
    CHECK_PAT(rbuf, BIG, 20 + (uint32_t)from, 0, "first long receive");
    scribble(&rreq, 0x01);
    memset(rbuf, 0, BIG);
    dt_barrier(); /* nobody sends the second before its receiver has scribbled */
    dt_fill(src, BIG, 30 + (uint32_t)dt_me, 0);
    CHECK_RC(DCMF_Send(&send_p, &pool[0], dt_done(&l2), SEQ, to, BIG, src, mi, 1), DCMF_SUCCESS);
    wait_until(&l2.calls, 1, DT_WAIT_S);
    wait_until(&rdone.calls, 2, DT_WAIT_S);
    CHECK_REC(&rdone, 2, 0, "long receives on one reused request");
    CHECK(dt_get(&longs) == 2, "%d long receive callbacks, expected 2", dt_get(&longs));
    CHECK_PAT(rbuf, BIG, 30 + (uint32_t)from, 0, "second long receive into a reused request");
    dt_barrier();

    /* ---- four long sends back to back, one receive request for all ---- */
    ring_buf = dt_xmalloc(4 * BIG);
    memset(ring_buf, 0, 4 * BIG);
    for (int k = 0; k < 4; k++)
        dt_rec_init(&ring_done[k]);
    struct dt_rec rs[4];
    char *rsrc = dt_xmalloc(4 * BIG);
    for (int k = 0; k < 4; k++) {
        dt_rec_init(&rs[k]);
        dt_fill(rsrc + (size_t)k * BIG, BIG, 40 + (uint32_t)(dt_me * 4 + (size_t)k), 0);
    }
    dt_barrier();
    for (int k = 0; k < 4; k++)
        CHECK_RC(DCMF_Send(&ring_p, &pool[k], dt_done(&rs[k]), SEQ, to, BIG, rsrc + (size_t)k * BIG, mi, 1),
                 DCMF_SUCCESS);
    for (int k = 0; k < 4; k++) {
        wait_until(&rs[k].calls, 1, DT_WAIT_S);
        wait_until(&ring_done[k].calls, 1, DT_WAIT_S);
    }
    for (int k = 0; k < 4; k++) {
        CHECK_REC(&ring_done[k], 1, 0, "a long receive on a request another one was using");
        CHECK_PAT(ring_buf + (size_t)k * BIG, BIG, 40 + (uint32_t)(from * 4 + (size_t)k), 0,
                  "a long receive on a request another one was using");
    }
    free(ring_buf);
    free(rsrc);

    dt_barrier();
    DCMF_Memregion_destroy(&sm);
    DCMF_Memregion_destroy(&dm);
    DCMF_Memregion_destroy(&gm);
    dt_finish("dcmf_reuse");
    free(pool);
    free(all_dst);
    free(src), free(dst), free(got), free(rbuf);
    return 0;
}
