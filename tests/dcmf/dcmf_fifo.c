/* Injection FIFO back-pressure (EMUNIC_DCMF_FIFO_DEPTH descriptors, 128
 * by default). A Put that finds the FIFO full advances until a slot
 * frees, so after the k-th of a run of puts returns at least k - depth of
 * them have completed (their cb_done has run), though the program itself
 * never advanced. A Put from inside a callback must not stall (it could
 * only wait for itself): it goes through even with the FIFO full.
 *
 * Argument "depth2": the test runs with EMUNIC_DCMF_FIFO_DEPTH=2 and
 * checks that it does. */
#include "dtest.h"

#define NPUT 200
#define BIGPUT ((size_t)64 * 1024)
#define NSMALL 100
#define NINNER 4
#define INNER 4096

static DCMF_Protocol_t put_p, send_p;
static uint8_t *src, *dst; /* dst: BIGPUT + NINNER * INNER + 64 (the reply) */
static DCMF_Memregion_t src_mr, dst_mr, *all_dst;
static volatile int done_n;
static size_t to, from;

static void count_done(void *cd, DCMF_Error_t *e)
{
    CHECK(cd == &done_n, "cb_done clientdata %p", cd);
    CHECK(e == NULL, "a put failed: %d", e ? (int)e->result : 0);
    dt_inc(&done_n);
}

/* ---- a run of puts without advancing ---- */

static int run(size_t n, size_t bytes, unsigned depth, const char *what)
{
    DCMF_Request_t *req = dt_xmalloc(n * sizeof *req);
    dt_set(&done_n, 0);
    int worst = 0; /* most puts outstanding after a call returned */
    for (size_t k = 1; k <= n; k++) {
        CHECK_RC(DCMF_Put(&put_p, &req[k - 1], (DCMF_Callback_t){count_done, (void *)&done_n},
                          k % 2 ? DCMF_SEQUENTIAL_CONSISTENCY : DCMF_RELAXED_CONSISTENCY, to, bytes, &src_mr,
                          &all_dst[to], 0, 0, dt_nocb()),
                 DCMF_SUCCESS);
        int done = dt_get(&done_n), outstanding = (int)k - done;
        if (outstanding > worst)
            worst = outstanding;
        CHECK(outstanding <= (int)depth,
              "%s: after put %zu returned only %d cb_done had run: %d descriptors outstanding, FIFO depth %u", what, k,
              done, outstanding, depth);
    }
    wait_until(&done_n, (int)n, DT_WAIT_S);
    free(req);
    return worst;
}

/* ---- puts from inside a callback with the FIFO full ---- */

static DCMF_Request_t inner_req[NINNER];
static struct dt_rec inner_done[NINNER], inner_ack[NINNER];
static volatile int inner_issued;

static void issue_inner(void *cd, DCMF_Error_t *e)
{
    (void)cd;
    CHECK(e == NULL, "outer put failed");
    /* the FIFO was full when this put was posted; the first inner put
     * fills it again, the others find it full */
    for (int i = 0; i < NINNER; i++)
        CHECK_RC(DCMF_Put(&put_p, &inner_req[i], dt_done(&inner_done[i]), DCMF_SEQUENTIAL_CONSISTENCY, to, INNER,
                          &src_mr, &all_dst[to], BIGPUT + (size_t)i * INNER, BIGPUT + (size_t)i * INNER,
                          dt_ack(&inner_ack[i])),
                 DCMF_SUCCESS);
    dt_inc(&inner_issued);
    dt_inc(&done_n);
}

/* a receive callback that answers with a put, while the main program has
 * the FIFO full */
static volatile int reply_ack, asked;
static DCMF_Request_t reply_req;
static struct dt_rec reply_rec;

static void on_ask(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *s, size_t bytes)
{
    (void)cd;
    (void)mi;
    (void)count;
    (void)s;
    (void)bytes;
    CHECK(peer == to, "ask from rank %zu, expected my right neighbour %zu", peer, to);
    dt_rec_init(&reply_rec);
    CHECK_RC(DCMF_Put(&put_p, &reply_req, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, peer, 64, &src_mr, &all_dst[peer],
                      BIGPUT + NINNER * INNER, BIGPUT + NINNER * INNER, dt_ack(&reply_rec)),
             DCMF_SUCCESS);
    dt_inc(&asked);
}

static void from_callbacks(unsigned depth)
{
    DCMF_Request_t *req = dt_xmalloc(depth * sizeof *req);
    for (int i = 0; i < NINNER; i++) {
        dt_rec_init(&inner_done[i]);
        dt_rec_init(&inner_ack[i]);
    }
    memset(dst + BIGPUT, 0, NINNER * INNER + 64);
    dt_fill(src + BIGPUT, NINNER * INNER + 64, 50 + (uint32_t)dt_me, 0);
    dt_set(&done_n, 0);
    dt_barrier();
    /* fill the FIFO; the first put's completion issues more puts */
    for (unsigned k = 0; k < depth; k++)
        CHECK_RC(DCMF_Put(&put_p, &req[k],
                          k == 0 ? (DCMF_Callback_t){issue_inner, NULL} : (DCMF_Callback_t){count_done, (void *)&done_n},
                          DCMF_SEQUENTIAL_CONSISTENCY, to, BIGPUT, &src_mr, &all_dst[to], 0, 0, dt_nocb()),
                 DCMF_SUCCESS);
    /* and ask the left neighbour for a put back, to be sent from its
     * receive callback */
    DCMF_Request_t ask_req;
    struct dt_rec ask_done;
    dt_rec_init(&ask_done);
    CHECK_RC(DCMF_Send(&send_p, &ask_req, dt_done(&ask_done), DCMF_SEQUENTIAL_CONSISTENCY, from, 0, NULL, NULL, 0),
             DCMF_SUCCESS);
    wait_until(&done_n, (int)depth, DT_WAIT_S);
    for (int i = 0; i < NINNER; i++) {
        wait_until(&inner_ack[i].calls, 1, DT_WAIT_S);
        wait_until(&inner_done[i].calls, 1, DT_WAIT_S);
    }
    wait_until(&ask_done.calls, 1, DT_WAIT_S);
    wait_until(&asked, 1, DT_WAIT_S);
    wait_until(&reply_rec.calls, 1, DT_WAIT_S);
    dt_barrier();
    CHECK(dt_get(&inner_issued) == 1, "the issuing callback ran %d times", dt_get(&inner_issued));
    for (int i = 0; i < NINNER; i++) {
        CHECK_REC(&inner_done[i], 1, 0, "put from a callback: cb_done");
        CHECK_REC(&inner_ack[i], 0, 1, "put from a callback: cb_ack");
    }
    CHECK_REC(&reply_rec, 0, 1, "put from a receive callback: cb_ack");
    /* both came from my left neighbour: its outer put's callback, and its
     * receive callback answering my ask */
    CHECK_PAT(dst + BIGPUT, NINNER * INNER, 50 + (uint32_t)from, 0, "data of the puts issued from a callback");
    CHECK_PAT(dst + BIGPUT + NINNER * INNER, 64, 50 + (uint32_t)from, NINNER * INNER,
              "data of the put issued from a receive callback");
    free(req);
}

int main(int argc, char **argv)
{
    dt_init();
    const char *env = getenv("EMUNIC_DCMF_FIFO_DEPTH");
    unsigned depth = env && *env ? (unsigned)strtoul(env, NULL, 10) : 128;
    if (argc > 1 && !strcmp(argv[1], "depth2"))
        CHECK(depth == 2, "run with EMUNIC_DCMF_FIFO_DEPTH=2 (it is %s)", env ? env : "unset");
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_RC(DCMF_Put_register(&put_p, &pc), DCMF_SUCCESS);
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ask, NULL, NULL, NULL};
    CHECK_RC(DCMF_Send_register(&send_p, &sc), DCMF_SUCCESS);
    to = (dt_me + 1) % dt_np;
    from = (dt_me + dt_np - 1) % dt_np;
    size_t n = BIGPUT + NINNER * INNER + 64;
    src = dt_xmalloc(n);
    dst = dt_xmalloc(n);
    dt_fill(src, BIGPUT, 10 + (uint32_t)dt_me, 0);
    memset(dst, 0, n);
    CHECK_RC(DCMF_Memregion_create(&src_mr, NULL, n, src, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&dst_mr, NULL, n, dst, 0), DCMF_SUCCESS);
    all_dst = dt_xmalloc(dt_np * sizeof *all_dst);
    dt_exchange_regions(&dst_mr, all_dst);

    dt_barrier();
    double t0 = dt_now();
    int worst = run(NPUT, BIGPUT, depth, "64 KiB puts");
    double t1 = dt_now();
    dt_barrier();
    /* cb_done says only that the source is free; relaxed puts may still
     * be landing */
    double end = dt_now() + 10;
    while (dt_find_bad(dst, BIGPUT, 10 + (uint32_t)from, 0) >= 0 && dt_now() < end)
        DCMF_Messager_advance();
    CHECK_PAT(dst, BIGPUT, 10 + (uint32_t)from, 0, "data of the 64 KiB puts");
    dt_barrier();
    int worst_small = run(NSMALL, 8, depth, "8-byte puts");
    if (dt_me == 0)
        printf("depth %u: %d x 64 KiB puts in %.1f ms, at most %d outstanding after a call; %d x 8-byte puts: at most "
               "%d outstanding%s\n",
               depth, NPUT, (t1 - t0) * 1e3, worst, NSMALL, worst_small,
               depth > NSMALL ? " (the FIFO never filled: no call had to advance)" : "");
    if (depth == 2)
        CHECK(worst == 2, "with depth 2 the FIFO never filled (at most %d outstanding): no back-pressure to test",
              worst);
    dt_barrier();
    from_callbacks(depth);
    dt_finish("dcmf_fifo");
    return 0;
}
