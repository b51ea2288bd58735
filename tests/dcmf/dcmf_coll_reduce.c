/* DCMF_Reduce over geometries: the world (globalflag) and the even ranks
 * in order / the odd ranks in reverse order (not global, run at the same
 * time); every registered protocol that analyze accepts; every member as
 * root; sums of ints, maxima of doubles, products, bitwise and of
 * unsigned long longs; 0 to 20000 elements (several pipeline chunks), in
 * place at the root. The root's rbuffer gets the reduction element by
 * element; other members' rbuffer is never written (some pass NULL).
 * Reduces and allreduces on one geometry back to back; analyze's answers
 * (the tree protocol only on a global geometry); each refused call with
 * its result and one stderr line. Usage: dcmf_coll_reduce [quick] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dcmf.h>
#include <dcmf_collectives.h>

static size_t me, np;

#define FAIL(...)                                                               \
    do {                                                                        \
        errcap_restore();                                                       \
        fprintf(stderr, "FAIL rank %zu line %d: ", me, __LINE__);               \
        fprintf(stderr, __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                    \
        exit(1);                                                                \
    } while (0)

#include "../common/errcap.h"

#define OK(call)                                                                \
    do {                                                                        \
        DCMF_Result rc_ = (call);                                               \
        if (rc_ != DCMF_SUCCESS)                                                \
            FAIL("%s returned %d", #call, rc_);                                 \
    } while (0)

static volatile int ndone;

static void done_cb(void *cd, DCMF_Error_t *e)
{
    if (e)
        FAIL("collective completed with error %d", e->result);
    (*(volatile int *)cd)++;
}
#define CB ((DCMF_Callback_t){done_cb, (void *)&ndone})

static void wait_for(int target)
{
    double end = DCMF_Timer() + 60;
    while (ndone < target) {
        DCMF_Messager_advance();
        if (DCMF_Timer() > end)
            FAIL("timeout waiting for a collective (%d of %d done)", ndone, target);
    }
}

static DCMF_CollectiveProtocol_t bar_gi, bar_bin, ar_bin, rp[DCMF_NUM_REDUCE_PROTOCOLS];

struct geo {
    DCMF_Geometry_t g;
    unsigned ranks[1024];
    unsigned n;
    int global;
};
static struct geo world, parity;

/* ---- values ---- */

enum kind { K_ISUM, K_DMAX, K_IPROD, K_UBAND, NKINDS };
static const DCMF_Dt kdt[] = {DCMF_SIGNED_INT, DCMF_DOUBLE, DCMF_SIGNED_INT, DCMF_UNSIGNED_LONG_LONG};
static const DCMF_Op kop[] = {DCMF_SUM, DCMF_MAX, DCMF_PROD, DCMF_BAND};
static const size_t ksize[] = {sizeof(int), sizeof(double), sizeof(int), sizeof(unsigned long long)};
static const char *const kname[] = {"int sum", "double max", "int prod", "ull band"};

/* Rank r's element i; every combination is exact. */
static void put(enum kind k, void *buf, size_t i, size_t r)
{
    static const int prod[] = {1, -1, 2, 1, -1, 1};
    switch (k) {
    case K_ISUM: ((int *)buf)[i] = (int)((r * 7 + i * 3) % 23) - 11; break;
    case K_DMAX: ((double *)buf)[i] = (double)((r * 37 + i * 11) % 101) - 50.5; break;
    case K_IPROD: ((int *)buf)[i] = prod[(r + i) % 6]; break;
    default: ((unsigned long long *)buf)[i] = ~(1ull << ((r * 5 + i) % 64)); break;
    }
}

static void fold(enum kind k, void *acc, const void *in, size_t i)
{
    switch (k) {
    case K_ISUM: ((int *)acc)[i] += ((const int *)in)[i]; break;
    case K_DMAX:
        if (((const double *)in)[i] > ((double *)acc)[i])
            ((double *)acc)[i] = ((const double *)in)[i];
        break;
    case K_IPROD: ((int *)acc)[i] *= ((const int *)in)[i]; break;
    default: ((unsigned long long *)acc)[i] &= ((const unsigned long long *)in)[i]; break;
    }
}

/* ---- one reduce ---- */

#define MAXN 20000
/* + 8: the sentinel after the result */
static unsigned char sbuf[MAXN * 8], rbuf[MAXN * 8 + 8], want[MAXN * 8], tmp[MAXN * 8];

static void one(struct geo *x, DCMF_CollectiveProtocol_t *p, unsigned root, enum kind k, size_t n,
                int in_place)
{
    size_t es = ksize[k], bytes = n * es;
    int is_root = me == root;
    for (size_t i = 0; i < n; i++)
        put(k, sbuf, i, me);
    memset(rbuf, 0xa5, bytes + 8);
    char *rb = is_root ? (char *)rbuf : (me % 2 ? NULL : (char *)rbuf);
    char *sb = (char *)sbuf;
    if (is_root && in_place) {
        memcpy(rbuf, sbuf, bytes);
        sb = (char *)rbuf;
    }
    DCMF_CollectiveRequest_t req;
    int t = ndone + 1;
    OK(DCMF_Reduce(p, &req, CB, DCMF_MATCH_CONSISTENCY, &x->g, root, sb, rb, (unsigned)n, kdt[k], kop[k]));
    wait_for(t);
    if (!is_root) {
        for (size_t i = 0; i < bytes + 8; i++)
            if (rbuf[i] != 0xa5)
                FAIL("reduce %s root %u n %zu: a non-root's rbuffer byte %zu was written", kname[k],
                     root, n, i);
        return;
    }
    for (size_t i = 0; i < n; i++)
        put(k, want, i, x->ranks[0]);
    for (unsigned m = 1; m < x->n; m++) {
        for (size_t i = 0; i < n; i++)
            put(k, tmp, i, x->ranks[m]);
        for (size_t i = 0; i < n; i++)
            fold(k, want, tmp, i);
    }
    if (memcmp(rbuf, want, bytes) != 0) {
        size_t i = 0;
        while (i < bytes && rbuf[i] == want[i])
            i++;
        FAIL("reduce %s root %u n %zu%s on %u members: byte %zu (element %zu) differs", kname[k], root,
             n, in_place ? " in place" : "", x->n, i, i / es);
    }
    for (size_t i = bytes; i < bytes + 8; i++)
        if (rbuf[i] != 0xa5)
            FAIL("reduce %s root %u n %zu: wrote past the result (byte %zu)", kname[k], root, n, i);
}

static void every_root(struct geo *x, DCMF_CollectiveProtocol_t *p, int quick)
{
    static const size_t counts[] = {0, 1, 1000, MAXN};
    for (unsigned m = 0; m < x->n; m++) {
        if (quick && m != 0 && m != x->n / 2 && m != x->n - 1)
            continue; /* quick: three roots */
        for (int k = 0; k < NKINDS; k++)
            for (size_t c = 0; c < 4; c++) {
                if (quick && c == 3 && (k != K_ISUM || m))
                    continue;
                one(x, p, x->ranks[m], (enum kind)k, counts[c], (int)(m + c) % 2);
            }
    }
}

/* A reduce, an allreduce and a reduce on one geometry, all in flight. */
static void back_to_back(struct geo *x)
{
    int a[100], b[100], c[100], ra[100], rb[100], rc[100];
    for (int i = 0; i < 100; i++)
        a[i] = (int)me + i, b[i] = 2 * (int)me - i, c[i] = i % 3 ? 1 : (int)me;
    memset(ra, 0, sizeof ra), memset(rb, 0, sizeof rb), memset(rc, 0, sizeof rc);
    unsigned r1 = x->ranks[0], r2 = x->ranks[x->n - 1];
    DCMF_CollectiveRequest_t q1, q2, q3;
    int t = ndone + 3;
    OK(DCMF_Reduce(&rp[DCMF_TORUS_BINOMIAL_REDUCE_PROTOCOL], &q1, CB, DCMF_MATCH_CONSISTENCY, &x->g, r1,
                   (char *)a, (char *)ra, 100, DCMF_SIGNED_INT, DCMF_SUM));
    OK(DCMF_Allreduce(&ar_bin, &q2, CB, DCMF_MATCH_CONSISTENCY, &x->g, (char *)b, (char *)rb, 100,
                      DCMF_SIGNED_INT, DCMF_MIN));
    OK(DCMF_Reduce(&rp[DCMF_TORUS_RECTANGLE_RING_REDUCE_PROTOCOL], &q3, CB, DCMF_MATCH_CONSISTENCY, &x->g,
                   r2, (char *)c, (char *)rc, 100, DCMF_SIGNED_INT, DCMF_MAX));
    wait_for(t);
    for (int i = 0; i < 100; i++) {
        int sa = 0, mb = 1 << 30, mc = -(1 << 30);
        for (unsigned m = 0; m < x->n; m++) {
            int r = (int)x->ranks[m];
            sa += r + i;
            mb = 2 * r - i < mb ? 2 * r - i : mb;
            int cv = i % 3 ? 1 : r;
            mc = cv > mc ? cv : mc;
        }
        if (me == r1 && ra[i] != sa)
            FAIL("back to back: reduce [%d] = %d, expected %d", i, ra[i], sa);
        if (rb[i] != mb)
            FAIL("back to back: allreduce [%d] = %d, expected %d", i, rb[i], mb);
        if (me == r2 && rc[i] != mc)
            FAIL("back to back: second reduce [%d] = %d, expected %d", i, rc[i], mc);
    }
}

static void make(struct geo *x, unsigned id, DCMF_CollectiveProtocol_t **bars, unsigned nbars,
                 int global)
{
    DCMF_CollectiveRequest_t req;
    x->global = global;
    OK(DCMF_Geometry_initialize(&x->g, id, x->ranks, x->n, bars, nbars, NULL, 0, &req, 1,
                                (unsigned)global));
}

static void errors(void)
{
    const char *fr = "DCMF_Reduce", *fg = "DCMF_Reduce_register";
    DCMF_CollectiveProtocol_t tmpp;
    DCMF_Reduce_Configuration_t bad = {DCMF_NUM_REDUCE_PROTOCOLS, NULL, 0};
    CHECK_ERR(DCMF_Reduce_register(&tmpp, &bad), DCMF_INVAL, fg);
    CHECK_ERR(DCMF_Reduce_register(&tmpp, NULL), DCMF_INVAL, fg);
    CHECK_ERR(DCMF_Reduce_register(NULL, &bad), DCMF_INVAL, fg);
    int v = 1, out = 0;
    DCMF_CollectiveRequest_t req;
    /* the tree protocol on a geometry that is not global */
    CHECK_ERR(DCMF_Reduce(&rp[DCMF_TREE_REDUCE_PROTOCOL], &req, CB, DCMF_MATCH_CONSISTENCY, &parity.g,
                          parity.ranks[0], (char *)&v, (char *)&out, 1, DCMF_SIGNED_INT, DCMF_SUM),
              DCMF_INVAL, fr);
    /* an allreduce protocol, a root outside, no rbuffer at the root (every
     * rank its own root), no request, a user-defined operator */
    CHECK_ERR(DCMF_Reduce(&ar_bin, &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, 0, (char *)&v,
                          (char *)&out, 1, DCMF_SIGNED_INT, DCMF_SUM),
              DCMF_INVAL, fr);
    CHECK_ERR(DCMF_Reduce(&rp[1], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, (unsigned)np, (char *)&v,
                          (char *)&out, 1, DCMF_SIGNED_INT, DCMF_SUM),
              DCMF_INVAL, fr);
    CHECK_ERR(DCMF_Reduce(&rp[1], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, (unsigned)me, (char *)&v,
                          NULL, 1, DCMF_SIGNED_INT, DCMF_SUM),
              DCMF_INVAL, fr);
    CHECK_ERR(DCMF_Reduce(&rp[1], NULL, CB, DCMF_MATCH_CONSISTENCY, &world.g, 0, (char *)&v,
                          (char *)&out, 1, DCMF_SIGNED_INT, DCMF_SUM),
              DCMF_INVAL, fr);
    CHECK_ERR(DCMF_Reduce(&rp[1], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, 0, (char *)&v,
                          (char *)&out, 1, DCMF_SIGNED_INT, DCMF_USERDEFINED_OP),
              DCMF_UNIMPL, fr);
    CHECK_ERR(DCMF_Reduce(&rp[1], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, 0, (char *)&v,
                          (char *)&out, 1, DCMF_DOUBLE, DCMF_BAND),
              DCMF_INVAL, fr);
    /* a request still in use */
    int t = ndone + 1;
    OK(DCMF_Reduce(&rp[1], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, 0, (char *)&v, (char *)&out, 1,
                   DCMF_SIGNED_INT, DCMF_SUM));
    CHECK_ERR(DCMF_Reduce(&rp[1], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g, 0, (char *)&v,
                          (char *)&out, 1, DCMF_SIGNED_INT, DCMF_SUM),
              DCMF_INVAL, fr);
    wait_for(t);
    if (me == 0 && out != (int)np)
        FAIL("reduce after refused calls: %d, expected %zu", out, np);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    DCMF_Messager_initialize();
    me = DCMF_Messager_rank();
    np = DCMF_Messager_size();
    if (np > 1024)
        FAIL("at most 1024 ranks");
    if (DCMF_Collective_initialize() != 0)
        FAIL("DCMF_Collective_initialize");
    DCMF_Barrier_Configuration_t bgi = {DCMF_GI_BARRIER_PROTOCOL, NULL},
                                 bbin = {DCMF_BINOMIAL_BARRIER_PROTOCOL, NULL};
    OK(DCMF_Barrier_register(&bar_gi, &bgi));
    OK(DCMF_Barrier_register(&bar_bin, &bbin));
    DCMF_Allreduce_Configuration_t ac = {DCMF_TORUS_BINOMIAL_ALLREDUCE_PROTOCOL, NULL, 0};
    OK(DCMF_Allreduce_register(&ar_bin, &ac));
    for (int a = 0; a < DCMF_NUM_REDUCE_PROTOCOLS; a++) {
        DCMF_Reduce_Configuration_t c = {(DCMF_Reduce_Protocol)a, NULL, 1};
        OK(DCMF_Reduce_register(&rp[a], &c));
    }
    for (size_t r = 0; r < np; r++)
        world.ranks[world.n++] = (unsigned)r;
    for (size_t i = 0; i < np; i++) {
        size_t r = me % 2 ? np - 1 - i : i;
        if (r % 2 == me % 2)
            parity.ranks[parity.n++] = (unsigned)r;
    }
    DCMF_CollectiveProtocol_t *wb[] = {&bar_gi, &bar_bin}, *pb[] = {&bar_bin};
    make(&world, 1, wb, 2, 1);
    make(&parity, 2 + (unsigned)(me % 2), pb, 1, 0);

    for (int a = 0; a < DCMF_NUM_REDUCE_PROTOCOLS; a++) {
        int w = DCMF_Geometry_analyze(&world.g, &rp[a]), p = DCMF_Geometry_analyze(&parity.g, &rp[a]);
        if (w != 1 || p != (a != DCMF_TREE_REDUCE_PROTOCOL))
            FAIL("analyze reduce protocol %d: world %d parity %d", a, w, p);
    }

    every_root(&parity, &rp[DCMF_TORUS_BINOMIAL_REDUCE_PROTOCOL], quick);
    every_root(&world, &rp[DCMF_TREE_REDUCE_PROTOCOL], quick);
    for (int a = DCMF_TORUS_RECTANGLE_REDUCE_PROTOCOL; a < DCMF_NUM_REDUCE_PROTOCOLS; a++)
        one(&world, &rp[a], (unsigned)(np - 1), K_ISUM, 1000, 0);
    back_to_back(&world);
    back_to_back(&parity);
    errors();
    int t = ndone + 1;
    OK(DCMF_Barrier(&world.g, CB, DCMF_MATCH_CONSISTENCY));
    wait_for(t);
    OK(DCMF_Geometry_free(&parity.g));
    OK(DCMF_Geometry_free(&world.g));
    if (me == 0)
        printf("dcmf_coll_reduce on %zu ranks: ok\n", np);
    DCMF_Messager_finalize();
    return 0;
}
