/* Memory regions, Put and Get: every size class (empty, inline, packet
 * boundary, multi-packet, MiBs) between every kind of memory (malloc,
 * stack, the registered emunic heap), with offsets, to self, on the node
 * and across nodes, under each consistency and callback combination;
 * guard bytes around every destination; Restart; calls that must be
 * refused; and a put into a region its owner destroyed. */
#include "emunic/emunic.h"

#include "dtest.h"

#define GUARD 256
#define MAXSZ ((size_t)4 * 1024 * 1024 + 3)
#define STKSZ ((size_t)16385) /* largest transfer the stack buffers take */
#define SLACK 128             /* room for offsets */
#define BUFSZ(max) ((max) + 2 * GUARD + SLACK)

enum { K_MALLOC, K_STACK, K_HEAP, NKINDS };
static const char *const kname[NKINDS] = {"malloc", "stack", "heap"};

static const size_t sizes[] = {0, 1, 8, 143, 144, 145, 4096, 16384, 16385, 1024 * 1024, MAXSZ};
#define NSIZES (sizeof sizes / sizeof *sizes)

static const DCMF_Consistency cons[] = {DCMF_SEQUENTIAL_CONSISTENCY, DCMF_RELAXED_CONSISTENCY,
                                        DCMF_MATCH_CONSISTENCY, DCMF_WEAK_CONSISTENCY};
static const char *const cname[] = {"match", "relaxed", "sequential", "weak"};

static DCMF_Protocol_t put_p, get_p;

struct kind {
    uint8_t *src, *putdst, *getdst; /* each BUFSZ(cap) */
    size_t cap;
    DCMF_Memregion_t src_mr, putdst_mr, getdst_mr;
    DCMF_Memregion_t *all_src, *all_putdst; /* every rank's, by rank */
};
static struct kind K[NKINDS];

/* a 1-byte sequential put with cb_ack after an ordered put without one:
 * its ack says the earlier put is in place */
static uint8_t fence_buf[64];
static DCMF_Memregion_t fence_mr, *all_fence;

static void make_regions(struct kind *k)
{
    size_t n = BUFSZ(k->cap), out = 0;
    CHECK_RC(DCMF_Memregion_create(&k->src_mr, &out, n, k->src, 0), DCMF_SUCCESS);
    CHECK(out == n, "memregion bytes_out %zu, asked %zu", out, n);
    CHECK_RC(DCMF_Memregion_create(&k->putdst_mr, &out, n, k->putdst, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&k->getdst_mr, &out, n, k->getdst, 0), DCMF_SUCCESS);
    size_t qb = 0;
    void *qa = NULL;
    CHECK_RC(DCMF_Memregion_query(&k->putdst_mr, &qb, &qa), DCMF_SUCCESS);
    CHECK(qb == n && qa == k->putdst, "query: %p+%zu, created %p+%zu", qa, qb, (void *)k->putdst, n);
    k->all_src = dt_xmalloc(dt_np * sizeof(DCMF_Memregion_t));
    k->all_putdst = dt_xmalloc(dt_np * sizeof(DCMF_Memregion_t));
    dt_exchange_regions(&k->src_mr, k->all_src);
    dt_exchange_regions(&k->putdst_mr, k->all_putdst);
    /* what peers got describes the same memory */
    CHECK_RC(DCMF_Memregion_query(&k->all_src[dt_me], &qb, &qa), DCMF_SUCCESS);
    CHECK(qb == n && qa == k->src, "my region as exchanged: %p+%zu", qa, qb);
}

static void check_memregion_basics(void)
{
    uint8_t *b = dt_xmalloc(1000);
    DCMF_Memregion_t m, whole;
    size_t out = 0, qb = 0;
    void *qa = (void *)1;
    CHECK_RC(DCMF_Memregion_create(&m, &out, 1000, b, 0), DCMF_SUCCESS);
    CHECK(out == 1000, "bytes_out %zu", out);
    CHECK_RC(DCMF_Memregion_destroy(&m), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&m, NULL, 1000, b, 0), DCMF_SUCCESS); /* bytes_out is optional */
    CHECK_RC(DCMF_Memregion_query(&m, &qb, &qa), DCMF_SUCCESS);
    CHECK(qb == 1000 && qa == b, "query %p+%zu, created %p+1000", qa, qb, (void *)b);
    CHECK_RC(DCMF_Memregion_destroy(&m), DCMF_SUCCESS);
    CHECK_ERR(DCMF_Memregion_destroy(&m), DCMF_INVAL, "DCMF_Memregion_destroy");
    CHECK_ERR(DCMF_Memregion_query(&m, &qb, &qa), DCMF_INVAL, "DCMF_Memregion_query");
    CHECK_ERR(DCMF_Memregion_create(&m, &out, 1000, NULL, 0), DCMF_INVAL, "DCMF_Memregion_create");
    CHECK_ERR(DCMF_Memregion_create(&m, &out, ((size_t)-1) - 1, NULL, 0), DCMF_INVAL, "DCMF_Memregion_create");
    CHECK_ERR(DCMF_Memregion_create(NULL, &out, 1000, b, 0), DCMF_INVAL, "DCMF_Memregion_create");
    /* the whole address space */
    out = 0;
    CHECK_RC(DCMF_Memregion_create(&whole, &out, (size_t)-1, NULL, 0), DCMF_SUCCESS);
    CHECK(out == (size_t)-1, "whole address space: bytes_out %zu", out);
    qa = (void *)1;
    CHECK_RC(DCMF_Memregion_query(&whole, &qb, &qa), DCMF_SUCCESS);
    CHECK(qa == NULL && qb == (size_t)-1, "whole address space: query %p+%zu", qa, qb);
    CHECK_RC(DCMF_Memregion_destroy(&whole), DCMF_SUCCESS);
    /* many create/destroy cycles must not leak region slots */
    for (int i = 0; i < 2000; i++) {
        CHECK_RC(DCMF_Memregion_create(&m, NULL, 1000, b, 0), DCMF_SUCCESS);
        CHECK_RC(DCMF_Memregion_destroy(&m), DCMF_SUCCESS);
    }
    free(b);
}

/* ---- the matrix ---- */

static struct dt_rec put_done, put_ack, get_done, fence_ack;
static DCMF_Request_t put_req, get_req, fence_req;
static DCMF_Request_t *nocb_req; /* one per round: nothing says when it is free */

static uint8_t guard_of(uint32_t seed, size_t first)
{
    return (uint8_t)~dt_pat(seed, first); /* never equal to the first data byte */
}

static void check_window(const uint8_t *buf, size_t doff, size_t size, uint32_t seed, size_t soff,
                         uint8_t g, const char *what, size_t peer, int round)
{
    char w[160];
    snprintf(w, sizeof w, "%s round %d peer %zu size %zu: guard before", what, round, peer, size);
    CHECK_BYTES(buf + doff - GUARD, GUARD, g, w);
    snprintf(w, sizeof w, "%s round %d peer %zu size %zu: data", what, round, peer, size);
    CHECK_PAT(buf + doff, size, seed, soff, w);
    snprintf(w, sizeof w, "%s round %d peer %zu size %zu: guard after", what, round, peer, size);
    CHECK_BYTES(buf + doff + size, GUARD, g, w);
}

static int round_no;

static void one_round(size_t shift, size_t size, int sk, int dk)
{
    int round = round_no++;
    size_t to = (dt_me + shift) % dt_np, from = (dt_me + dt_np - shift) % dt_np;
    size_t soff = (size_t)(round * 7) % 61, doff = GUARD + (size_t)(round * 13) % 67;
    uint32_t my_seed = (uint32_t)(round * 256) + (uint32_t)dt_me * 7 + 1;
    uint32_t from_seed = (uint32_t)(round * 256) + (uint32_t)from * 7 + 1;
    uint32_t to_seed = (uint32_t)(round * 256) + (uint32_t)to * 7 + 1;
    int variant = round % 4; /* 0 both callbacks, 1 cb_done only, 2 cb_ack only, 3 none */
    DCMF_Consistency pc = variant == 1 || variant == 3 ? (round / 4 % 2 ? DCMF_MATCH_CONSISTENCY
                                                                        : DCMF_SEQUENTIAL_CONSISTENCY)
                                                       : cons[round / 4 % 4];
    DCMF_Consistency gc = cons[(round + 1) % 4];
    char what[160];

    /* prepare: my source, the window a peer puts into, my get sink */
    dt_fill(K[sk].src + soff, size, my_seed, soff);
    uint8_t g_put = guard_of(from_seed, soff), g_get = guard_of(to_seed, soff);
    memset(K[dk].putdst + doff - GUARD, g_put, size + 2 * GUARD);
    memset(K[dk].getdst + doff - GUARD, g_get, size + 2 * GUARD);
    dt_rec_init(&put_done);
    dt_rec_init(&put_ack);
    dt_rec_init(&get_done);
    dt_rec_init(&fence_ack);
    dt_barrier();

    DCMF_Request_t *preq = variant == 3 ? &nocb_req[round] : &put_req;
    CHECK_RC(DCMF_Put(&put_p, preq, variant <= 1 ? dt_done(&put_done) : dt_nocb(), pc, to, size,
                      &K[sk].src_mr, &K[dk].all_putdst[to], soff, doff,
                      variant == 0 || variant == 2 ? dt_ack(&put_ack) : dt_nocb()),
             DCMF_SUCCESS);
    CHECK_RC(DCMF_Get(&get_p, &get_req, dt_done(&get_done), gc, to, size, &K[sk].all_src[to],
                      &K[dk].getdst_mr, soff, doff),
             DCMF_SUCCESS);
    if (variant == 1 || variant == 3)
        CHECK_RC(DCMF_Put(&put_p, &fence_req, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, to, 1, &fence_mr,
                          &all_fence[to], 0, 1 + (size_t)(round % 60), dt_ack(&fence_ack)),
                 DCMF_SUCCESS);
    snprintf(what, sizeof what, "round %d: put %s->%s %zu bytes to rank %zu (%s, variant %d)", round,
             kname[sk], kname[dk], size, to, cname[pc], variant);
    if (variant <= 1)
        wait_until(&put_done.calls, 1, DT_WAIT_S);
    if (variant == 0 || variant == 2)
        wait_until(&put_ack.calls, 1, DT_WAIT_S);
    if (variant == 1 || variant == 3)
        wait_until(&fence_ack.calls, 1, DT_WAIT_S);
    wait_until(&get_done.calls, 1, DT_WAIT_S);
    snprintf(what, sizeof what, "round %d: get %s->%s %zu bytes from rank %zu (%s)", round, kname[sk],
             kname[dk], size, to, cname[gc]);
    check_window(K[dk].getdst, doff, size, to_seed, soff, g_get, what, to, round);
    dt_barrier();

    /* what my peer put here */
    snprintf(what, sizeof what, "round %d: put %s->%s from rank %zu (%s, variant %d)", round, kname[sk],
             kname[dk], from, cname[pc], variant);
    check_window(K[dk].putdst, doff, size, from_seed, soff, g_put, what, from, round);
    /* by now every completion has come back: each callback ran once */
    snprintf(what, sizeof what, "round %d: put %zu bytes cb_done/cb_ack (variant %d)", round, size, variant);
    CHECK_REC(&put_done, variant <= 1 ? 1 : 0, 0, what);
    CHECK_REC(&put_ack, 0, variant == 0 || variant == 2 ? 1 : 0, what);
    CHECK_REC(&get_done, 1, 0, "get cb_done");
    CHECK_REC(&fence_ack, 0, variant == 1 || variant == 3 ? 1 : 0, "fence cb_ack");
}

static void matrix(void)
{
    nocb_req = dt_xmalloc(4096 * sizeof(DCMF_Request_t));
    for (size_t s = 0; s < dt_np; s++)
        for (size_t i = 0; i < NSIZES; i++)
            for (int sk = 0; sk < NKINDS; sk++)
                for (int dk = 0; dk < NKINDS; dk++) {
                    if (sizes[i] > K[sk].cap || sizes[i] > K[dk].cap)
                        continue;
                    if (round_no >= 4096)
                        FAIL("too many rounds for the request pool");
                    one_round(s, sizes[i], sk, dk);
                }
    /* the callbacks of the last round had a barrier's worth of advancing
     * to run twice; check again */
    dt_barrier();
    CHECK_REC(&get_done, 1, 0, "last get cb_done after more advancing");
}

/* ---- the whole address space as a region: offsets are addresses ---- */

static void whole_space(uint8_t *stackbuf)
{
    DCMF_Memregion_t whole, *all = dt_xmalloc(dt_np * sizeof *all);
    size_t out;
    CHECK_RC(DCMF_Memregion_create(&whole, &out, (size_t)-1, NULL, 0), DCMF_SUCCESS);
    dt_exchange_regions(&whole, all);
    uint64_t mine[2] = {(uint64_t)(uintptr_t)stackbuf, (uint64_t)(uintptr_t)K[K_MALLOC].putdst};
    uint64_t *addrs = dt_xmalloc(dt_np * sizeof mine);
    dt_allgather(mine, sizeof mine, addrs);
    size_t to = (dt_me + 1) % dt_np, from = (dt_me + dt_np - 1) % dt_np;
    const size_t n = 5000;
    /* put from my stack into the peer's malloc buffer, get it back to my stack */
    dt_fill(stackbuf, n, 999 + (uint32_t)dt_me, 0);
    memset(K[K_MALLOC].putdst, 0x11, n + GUARD);
    dt_barrier();
    dt_rec_init(&put_done);
    dt_rec_init(&put_ack);
    CHECK_RC(DCMF_Put(&put_p, &put_req, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, n, &whole,
                      &all[to], (size_t)(uintptr_t)stackbuf, (size_t)addrs[to * 2 + 1], dt_ack(&put_ack)),
             DCMF_SUCCESS);
    wait_until(&put_ack.calls, 1, DT_WAIT_S);
    wait_until(&put_done.calls, 1, DT_WAIT_S);
    dt_barrier();
    CHECK_PAT(K[K_MALLOC].putdst, n, 999 + (uint32_t)from, 0, "whole-space put");
    CHECK_BYTES(K[K_MALLOC].putdst + n, GUARD, 0x11, "whole-space put: after the data");
    memset(stackbuf, 0, n);
    dt_rec_init(&get_done);
    CHECK_RC(DCMF_Get(&get_p, &get_req, dt_done(&get_done), DCMF_RELAXED_CONSISTENCY, to, n, &all[to], &whole,
                      (size_t)addrs[to * 2 + 1], (size_t)(uintptr_t)stackbuf),
             DCMF_SUCCESS);
    wait_until(&get_done.calls, 1, DT_WAIT_S);
    CHECK_PAT(stackbuf, n, 999 + (uint32_t)dt_me, 0, "whole-space get of my own data back");
    CHECK_REC(&get_done, 1, 0, "whole-space get");
    dt_barrier();
    CHECK_RC(DCMF_Memregion_destroy(&whole), DCMF_SUCCESS);
    free(all);
    free(addrs);
}

/* ---- Restart: the same transfer again ---- */

static void restart(void)
{
    static const size_t rs[] = {8, 145, 100000, MAXSZ};
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++) {
        size_t n = rs[i], to = (dt_me + 1) % dt_np, from = (dt_me + dt_np - 1) % dt_np;
        DCMF_Consistency c = i % 2 ? DCMF_RELAXED_CONSISTENCY : DCMF_SEQUENTIAL_CONSISTENCY;
        uint8_t *pd = K[K_MALLOC].putdst, *gd = K[K_HEAP].getdst;
        dt_fill(K[K_HEAP].src + 5, n, 7000 + (uint32_t)dt_me, 0);
        memset(pd, 0x22, n + 2 * GUARD);
        memset(gd, 0x33, n + 2 * GUARD);
        dt_rec_init(&put_done);
        dt_rec_init(&put_ack);
        dt_rec_init(&get_done);
        dt_barrier();
        CHECK_RC(DCMF_Put(&put_p, &put_req, dt_done(&put_done), c, to, n, &K[K_HEAP].src_mr,
                          &K[K_MALLOC].all_putdst[to], 5, GUARD, dt_ack(&put_ack)),
                 DCMF_SUCCESS);
        CHECK_RC(DCMF_Get(&get_p, &get_req, dt_done(&get_done), c, to, n, &K[K_HEAP].all_src[to],
                          &K[K_HEAP].getdst_mr, 5, GUARD),
                 DCMF_SUCCESS);
        wait_until(&put_ack.calls, 1, DT_WAIT_S);
        wait_until(&put_done.calls, 1, DT_WAIT_S);
        wait_until(&get_done.calls, 1, DT_WAIT_S);
        CHECK_PAT(gd + GUARD, n, 7000 + (uint32_t)to, 0, "get before restart");
        dt_barrier();
        CHECK_PAT(pd + GUARD, n, 7000 + (uint32_t)from, 0, "put before restart");
        /* wipe what arrived; the restarted operations must bring it again */
        memset(pd, 0x44, n + 2 * GUARD);
        memset(gd, 0x55, n + 2 * GUARD);
        dt_barrier();
        CHECK_RC(DCMF_Restart(&put_req), DCMF_SUCCESS);
        CHECK_RC(DCMF_Restart(&get_req), DCMF_SUCCESS);
        wait_until(&put_ack.calls, 2, DT_WAIT_S);
        wait_until(&put_done.calls, 2, DT_WAIT_S);
        wait_until(&get_done.calls, 2, DT_WAIT_S);
        CHECK_BYTES(gd, GUARD, 0x55, "restarted get: guard before");
        CHECK_PAT(gd + GUARD, n, 7000 + (uint32_t)to, 0, "restarted get");
        CHECK_BYTES(gd + GUARD + n, GUARD, 0x55, "restarted get: guard after");
        dt_barrier();
        CHECK_BYTES(pd, GUARD, 0x44, "restarted put: guard before");
        CHECK_PAT(pd + GUARD, n, 7000 + (uint32_t)from, 0, "restarted put");
        CHECK_BYTES(pd + GUARD + n, GUARD, 0x44, "restarted put: guard after");
        CHECK_REC(&put_done, 2, 0, "restarted put cb_done");
        CHECK_REC(&put_ack, 0, 2, "restarted put cb_ack");
        CHECK_REC(&get_done, 2, 0, "restarted get cb_done");
    }
}

/* ---- refused at the call ---- */

static void refused(void)
{
    size_t to = (dt_me + 1) % dt_np, other = (dt_me + 2) % dt_np;
    DCMF_Memregion_t *rm = &K[K_MALLOC].all_putdst[to], *lm = &K[K_MALLOC].src_mr;
    size_t rb = BUFSZ(K[K_MALLOC].cap);
    DCMF_Request_t r;
    dt_rec_init(&put_done);
    /* past the end of the remote region */
    CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 1, lm, rm, 0, rb, dt_nocb()),
              DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 200, lm, rm, 0, rb - 199,
                       dt_nocb()),
              DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_RELAXED_CONSISTENCY, to, rb + 1, lm, rm, 0, 0, dt_nocb()),
              DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 2, lm, rm, 0, (size_t)-1,
                       dt_nocb()),
              DCMF_INVAL, "DCMF_Put");
    /* past the end of the local one */
    CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 10, lm, rm, rb - 9, 0,
                       dt_nocb()),
              DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 10, &K[K_MALLOC].all_src[to],
                       &K[K_MALLOC].getdst_mr, rb - 9, 0),
              DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Get(&get_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 10, &K[K_MALLOC].all_src[to],
                       &K[K_MALLOC].getdst_mr, 0, rb - 9),
              DCMF_INVAL, "DCMF_Get");
    /* exactly up to the end is fine */
    CHECK_RC(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 1, lm, rm, 0, rb - 1,
                      dt_nocb()),
             DCMF_SUCCESS);
    wait_until(&put_done.calls, 1, DT_WAIT_S);
    /* the remote region is not the target's */
    if (dt_np > 2) {
        CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 8, lm,
                           &K[K_MALLOC].all_putdst[other], 0, 0, dt_nocb()),
                  DCMF_INVAL, "DCMF_Put");
        CHECK_ERR(DCMF_Get(&get_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 8,
                           &K[K_MALLOC].all_src[other], &K[K_MALLOC].getdst_mr, 0, 0),
                  DCMF_INVAL, "DCMF_Get");
    }
    if (dt_np > 1) {
        /* a peer's region as my local one */
        CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 8,
                           &K[K_MALLOC].all_src[to], rm, 0, 0, dt_nocb()),
                  DCMF_INVAL, "DCMF_Put");
        /* my own region as the remote one of a peer */
        CHECK_ERR(DCMF_Put(&put_p, &r, dt_done(&put_done), DCMF_SEQUENTIAL_CONSISTENCY, to, 8, lm,
                           &K[K_MALLOC].putdst_mr, 0, 0, dt_nocb()),
                  DCMF_INVAL, "DCMF_Put");
        /* only the owner destroys */
        DCMF_Memregion_t copy;
        memcpy(&copy, rm, sizeof copy);
        CHECK_ERR(DCMF_Memregion_destroy(&copy), DCMF_INVAL, "DCMF_Memregion_destroy");
    }
    DCMF_Messager_advance();
    CHECK_REC(&put_done, 1, 0, "refused calls ran no callback");
    dt_barrier();
}

/* ---- a region destroyed before the put arrives ---- */

static void destroyed_region(void)
{
    static const size_t ds[] = {64, 4096, 65536 + 1};
    const size_t n = 65536 + 1 + 2 * GUARD;
    uint8_t *victim = dt_xmalloc(n), *src = dt_xmalloc(n), *sink = dt_xmalloc(n);
    DCMF_Memregion_t vm, sm, km, *all = dt_xmalloc(dt_np * sizeof vm);
    size_t to = (dt_me + 1) % dt_np;
    memset(victim, 0x66, n);
    dt_fill(src, n, 4242, 0);
    CHECK_RC(DCMF_Memregion_create(&vm, NULL, n, victim, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&sm, NULL, n, src, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&km, NULL, n, sink, 0), DCMF_SUCCESS);
    dt_exchange_regions(&vm, all);
    CHECK_RC(DCMF_Memregion_destroy(&vm), DCMF_SUCCESS);
    dt_barrier();
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
        DCMF_Consistency c = cons[i % 4];
        char what[128];
        /* both callbacks: cb_ack must carry the error */
        dt_rec_init(&put_done);
        dt_rec_init(&put_ack);
        CHECK_RC(DCMF_Put(&put_p, &put_req, dt_done(&put_done), c, to, ds[i], &sm, &all[to], 0, GUARD,
                          dt_ack(&put_ack)),
                 DCMF_SUCCESS);
        wait_until(&put_ack.calls, 1, DT_WAIT_S);
        wait_until(&put_done.calls, 1, DT_WAIT_S);
        snprintf(what, sizeof what, "put of %zu bytes (%s) into a destroyed region", ds[i], cname[c]);
        CHECK(dt_get(&put_ack.errors) == 1 && dt_get(&put_ack.result) != DCMF_SUCCESS,
              "%s: cb_ack errors %d result %d, expected an error", what, dt_get(&put_ack.errors),
              dt_get(&put_ack.result));
        CHECK(dt_get(&put_done.done) == 1 && dt_get(&put_ack.ack) == 1, "%s: callbacks ran %d/%d times", what,
              dt_get(&put_done.done), dt_get(&put_ack.ack));
        if (ds[i] > 144) {
            /* the source was never read: the local completion is the
             * failed transfer's too */
            CHECK(dt_get(&put_done.errors) == 1, "%s: cb_done got no error", what);
        }
        /* cb_done alone: for a payload not copied at the call, the error
         * must reach it, or nobody hears of the failure */
        if (ds[i] > 144) {
            dt_rec_init(&put_done);
            CHECK_RC(DCMF_Put(&put_p, &put_req, dt_done(&put_done), c, to, ds[i], &sm, &all[to], 0, GUARD,
                              dt_nocb()),
                     DCMF_SUCCESS);
            wait_until(&put_done.calls, 1, DT_WAIT_S);
            CHECK(dt_get(&put_done.errors) == 1 && dt_get(&put_done.result) != DCMF_SUCCESS,
                  "%s with cb_done only: errors %d result %d", what, dt_get(&put_done.errors),
                  dt_get(&put_done.result));
        }
        /* a get from it fails too and leaves the sink alone */
        memset(sink, 0x77, n);
        dt_rec_init(&get_done);
        CHECK_RC(DCMF_Get(&get_p, &get_req, dt_done(&get_done), c, to, ds[i], &all[to], &km, GUARD, 0),
                 DCMF_SUCCESS);
        wait_until(&get_done.calls, 1, DT_WAIT_S);
        CHECK(dt_get(&get_done.errors) == 1 && dt_get(&get_done.result) != DCMF_SUCCESS,
              "get of %zu bytes from a destroyed region: errors %d result %d", ds[i], dt_get(&get_done.errors),
              dt_get(&get_done.result));
        CHECK_BYTES(sink, n, 0x77, "sink of a failed get");
    }
    dt_barrier();
    CHECK_BYTES(victim, n, 0x66, "destroyed region after puts into it");
    CHECK_RC(DCMF_Memregion_destroy(&sm), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_destroy(&km), DCMF_SUCCESS);
    free(victim);
    free(src);
    free(sink);
    free(all);
}

int main(void)
{
    dt_init();
    DCMF_Put_Configuration_t pcfg = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gcfg = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_TORUS_NETWORK};
    CHECK_RC(DCMF_Put_register(&put_p, &pcfg), DCMF_SUCCESS);
    CHECK_RC(DCMF_Get_register(&get_p, &gcfg), DCMF_SUCCESS);
    check_memregion_basics();

    /* stack memory lives in main's frame for the whole test */
    uint8_t stk_src[BUFSZ(STKSZ)], stk_putdst[BUFSZ(STKSZ)], stk_getdst[BUFSZ(STKSZ)];
    K[K_STACK] = (struct kind){.src = stk_src, .putdst = stk_putdst, .getdst = stk_getdst, .cap = STKSZ};
    K[K_MALLOC] = (struct kind){.src = dt_xmalloc(BUFSZ(MAXSZ)), .putdst = dt_xmalloc(BUFSZ(MAXSZ)),
                                .getdst = dt_xmalloc(BUFSZ(MAXSZ)), .cap = MAXSZ};
    K[K_HEAP] = (struct kind){.src = emunic_malloc(BUFSZ(MAXSZ)), .putdst = emunic_malloc(BUFSZ(MAXSZ)),
                              .getdst = emunic_malloc(BUFSZ(MAXSZ)), .cap = MAXSZ};
    CHECK(K[K_HEAP].src && K[K_HEAP].putdst && K[K_HEAP].getdst, "emunic_malloc failed");
    for (int k = 0; k < NKINDS; k++)
        make_regions(&K[k]);
    CHECK_RC(DCMF_Memregion_create(&fence_mr, NULL, sizeof fence_buf, fence_buf, 0), DCMF_SUCCESS);
    all_fence = dt_xmalloc(dt_np * sizeof(DCMF_Memregion_t));
    dt_exchange_regions(&fence_mr, all_fence);

    matrix();
    whole_space(stk_src);
    restart();
    refused();
    destroyed_region();

    printf("rank %zu: %d rounds\n", dt_me, round_no);
    dt_finish("dcmf_onesided");
    return 0;
}
