/* Geometry collectives: the world (globalflag), the even ranks in order
 * and the odd ranks in reverse order (run at the same time, each doing a
 * different sequence), and each node's ranks; DCMF_Geometry_analyze's
 * answers; barrier, broadcast from every member and allreduce on each
 * (every allreduce protocol, the async rectangle ones included);
 * several geometries' collectives in flight at once; barrier semantics on
 * the world geometry; freeing and re-creating a geometry.
 * Usage: dcmf_coll_geom [quick] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dcmf.h>
#include <dcmf_collectives.h>

#include "coll_test.h"
static size_t per_node;

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

static DCMF_CollectiveProtocol_t bp[DCMF_NUM_BARRIER_PROTOCOLS], ap[DCMF_NUM_ALLREDUCE_PROTOCOLS],
    cp[DCMF_NUM_BROADCAST_PROTOCOLS];

struct geo {
    DCMF_Geometry_t g;
    unsigned ranks[1024];
    unsigned n;
};
static struct geo world, parity, node;

static void make(struct geo *x, unsigned id, DCMF_CollectiveProtocol_t **bars, unsigned nbars,
                 unsigned globalflag)
{
    DCMF_CollectiveRequest_t req;
    OK(DCMF_Geometry_initialize(&x->g, id, x->ranks, x->n, bars, nbars, NULL, 0, &req, 1, globalflag));
}

static int member(const struct geo *x, size_t r)
{
    for (unsigned i = 0; i < x->n; i++)
        if (x->ranks[i] == r)
            return 1;
    return 0;
}

static int all_on_my_node(const struct geo *x)
{
    for (unsigned i = 0; i < x->n; i++)
        if (x->ranks[i] / per_node != me / per_node)
            return 0;
    return 1;
}

static void expect_analyze(struct geo *x, DCMF_CollectiveProtocol_t *p, int want, const char *what)
{
    int got = DCMF_Geometry_analyze(&x->g, p);
    if (got != want)
        FAIL("analyze %s: %d, expected %d", what, got, want);
}

static void check_analyze(void)
{
    int world_local = all_on_my_node(&world), par_local = all_on_my_node(&parity);
    for (int a = 0; a < DCMF_NUM_BARRIER_PROTOCOLS; a++) {
        int lock = a == DCMF_LOCKBOX_BARRIER_PROTOCOL || a == DCMF_LOCKBOX_BINOMIAL_BARRIER_PROTOCOL;
        expect_analyze(&world, &bp[a], lock ? world_local : 1, "world barrier");
        expect_analyze(&parity, &bp[a], a == DCMF_GI_BARRIER_PROTOCOL ? 0 : lock ? par_local : 1,
                       "parity barrier");
        expect_analyze(&node, &bp[a], a == DCMF_GI_BARRIER_PROTOCOL ? 0 : 1, "node barrier");
    }
    for (int a = 0; a < DCMF_NUM_ALLREDUCE_PROTOCOLS; a++) {
        int tree = a <= DCMF_TREE_DPUT_PIPELINED_ALLREDUCE_PROTOCOL;
        expect_analyze(&world, &ap[a], 1, "world allreduce");
        expect_analyze(&parity, &ap[a], !tree, "parity allreduce");
    }
    for (int a = 0; a < DCMF_NUM_BROADCAST_PROTOCOLS; a++) {
        expect_analyze(&world, &cp[a], 1, "world broadcast");
        expect_analyze(&parity, &cp[a], a != DCMF_TREE_BROADCAST_PROTOCOL, "parity broadcast");
    }
}

static void barrier(struct geo *x)
{
    int t = ndone + 1;
    OK(DCMF_Barrier(&x->g, CB, DCMF_MATCH_CONSISTENCY));
    wait_for(t);
}

static unsigned char pat(size_t root, size_t size, size_t i)
{
    return (unsigned char)(i * 31 + root * 11 + size);
}

static void bcast_every_root(struct geo *x, DCMF_CollectiveProtocol_t *p)
{
    static const size_t sizes[] = {0, 100, 70000};
    static char buf[70000];
    for (unsigned m = 0; m < x->n; m++)
        for (size_t k = 0; k < 3; k++) {
            size_t root = x->ranks[m], size = sizes[k];
            for (size_t i = 0; i < size; i++)
                buf[i] = me == root ? (char)pat(root, size, i) : 0;
            DCMF_CollectiveRequest_t req;
            int t = ndone + 1;
            OK(DCMF_Broadcast(p, &req, CB, DCMF_MATCH_CONSISTENCY, &x->g, (unsigned)root, buf,
                              (unsigned)size));
            wait_for(t);
            for (size_t i = 0; i < size; i++)
                if ((unsigned char)buf[i] != pat(root, size, i))
                    FAIL("geometry bcast root %zu size %zu: byte %zu wrong", root, size, i);
        }
}

#define AR_N 1000
static int val(size_t r, size_t i, int salt) { return (int)(r * 1000 + i) * (salt + 1); }

static void allreduce_sum(struct geo *x, DCMF_CollectiveProtocol_t *p, int salt)
{
    static int s[AR_N], o[AR_N];
    for (size_t i = 0; i < AR_N; i++)
        s[i] = val(me, i, salt);
    DCMF_CollectiveRequest_t req;
    int t = ndone + 1;
    OK(DCMF_Allreduce(p, &req, CB, DCMF_RELAXED_CONSISTENCY, &x->g, (char *)s, (char *)o, AR_N,
                      DCMF_SIGNED_INT, DCMF_SUM));
    wait_for(t);
    for (size_t i = 0; i < AR_N; i++) {
        int want = 0;
        for (unsigned m = 0; m < x->n; m++)
            want += val(x->ranks[m], i, salt);
        if (o[i] != want)
            FAIL("geometry allreduce (salt %d): [%zu] = %d, expected %d", salt, i, o[i], want);
    }
}

/* The parity groups at the same time, doing different things. */
static void subsets(int quick)
{
    barrier(&parity);
    bcast_every_root(&parity, &cp[DCMF_TORUS_BINOMIAL_BROADCAST_PROTOCOL]);
    int extra = me % 2 == 0 ? (quick ? 5 : 10) : 2;
    for (int k = 0; k < extra; k++)
        allreduce_sum(&parity, &ap[DCMF_TORUS_BINOMIAL_ALLREDUCE_PROTOCOL + k % 6], k);
    /* MAX of doubles on the parity group, in place */
    double d[100];
    for (int i = 0; i < 100; i++)
        d[i] = (double)((me * 37 + (size_t)i) % 101);
    DCMF_CollectiveRequest_t req;
    int t = ndone + 1;
    OK(DCMF_Allreduce(&ap[DCMF_TORUS_RECTANGLE_ALLREDUCE_PROTOCOL], &req, CB, DCMF_MATCH_CONSISTENCY,
                      &parity.g, (char *)d, (char *)d, 100, DCMF_DOUBLE, DCMF_MAX));
    wait_for(t);
    for (int i = 0; i < 100; i++) {
        double want = 0;
        for (unsigned m = 0; m < parity.n; m++) {
            double v = (double)((parity.ranks[m] * 37 + (unsigned)i) % 101);
            want = v > want ? v : want;
        }
        if (d[i] != want)
            FAIL("parity MAX [%d] = %g, expected %g", i, d[i], want);
    }
    barrier(&parity);
}

/* Collectives of three geometries in flight together. */
static void overlapped(void)
{
    static char big[50000];
    size_t root = np - 1;
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = me == root ? (char)(i * 7) : 0;
    int s[AR_N], o[AR_N];
    for (size_t i = 0; i < AR_N; i++)
        s[i] = val(me, i, 3);
    DCMF_CollectiveRequest_t r1, r2;
    int t = ndone + 5;
    OK(DCMF_Broadcast(&cp[DCMF_TREE_BROADCAST_PROTOCOL], &r1, CB, DCMF_RELAXED_CONSISTENCY, &world.g,
                      (unsigned)root, big, sizeof big));
    OK(DCMF_Barrier(&node.g, CB, DCMF_MATCH_CONSISTENCY));
    OK(DCMF_Allreduce(&ap[DCMF_TORUS_SHORT_BINOMIAL_ALLREDUCE_PROTOCOL], &r2, CB, DCMF_MATCH_CONSISTENCY,
                      &parity.g, (char *)s, (char *)o, AR_N, DCMF_SIGNED_INT, DCMF_SUM));
    OK(DCMF_Barrier(&world.g, CB, DCMF_MATCH_CONSISTENCY));
    OK(DCMF_Barrier(&parity.g, CB, DCMF_SEQUENTIAL_CONSISTENCY));
    wait_for(t);
    for (size_t i = 0; i < sizeof big; i++)
        if (big[i] != (char)(i * 7))
            FAIL("overlapped world bcast: byte %zu wrong", i);
    for (size_t i = 0; i < AR_N; i++) {
        int want = 0;
        for (unsigned m = 0; m < parity.n; m++)
            want += val(parity.ranks[m], i, 3);
        if (o[i] != want)
            FAIL("overlapped parity allreduce: [%zu] = %d, expected %d", i, o[i], want);
    }
}

static double world_double(double v, DCMF_Op op)
{
    DCMF_CollectiveRequest_t req;
    double out;
    int t = ndone + 1;
    OK(DCMF_Allreduce(&ap[DCMF_TREE_ALLREDUCE_PROTOCOL], &req, CB, DCMF_MATCH_CONSISTENCY, &world.g,
                      (char *)&v, (char *)&out, 1, DCMF_DOUBLE, op));
    wait_for(t);
    return out;
}

static void barrier_semantics(void)
{
    struct timespec ts = {0, (long)(me % 32) * 10000000L};
    nanosleep(&ts, NULL);
    double in = DCMF_Timer();
    barrier(&world);
    double out = DCMF_Timer();
    double last_in = world_double(in, DCMF_MAX), first_out = world_double(out, DCMF_MIN);
    if (first_out < last_in)
        FAIL("a rank left the world barrier at %.6f before the last entered at %.6f", first_out, last_in);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    DCMF_Messager_initialize();
    me = DCMF_Messager_rank();
    np = DCMF_Messager_size();
    DCMF_Hardware_t hw;
    OK(DCMF_Hardware(&hw));
    per_node = hw.tSize;
    if (np > 1024)
        FAIL("at most 1024 ranks");
    if (DCMF_Collective_initialize() != 0)
        FAIL("DCMF_Collective_initialize");
    for (int a = 0; a < DCMF_NUM_BARRIER_PROTOCOLS; a++) {
        DCMF_Barrier_Configuration_t c = {(DCMF_Barrier_Protocol)a, NULL};
        OK(DCMF_Barrier_register(&bp[a], &c));
    }
    for (int a = 0; a < DCMF_NUM_ALLREDUCE_PROTOCOLS; a++) {
        DCMF_Allreduce_Configuration_t c = {(DCMF_Allreduce_Protocol)a, NULL, 0};
        OK(DCMF_Allreduce_register(&ap[a], &c));
    }
    for (int a = 0; a < DCMF_NUM_BROADCAST_PROTOCOLS; a++) {
        DCMF_Broadcast_Configuration_t c = {(DCMF_Broadcast_Protocol)a, NULL};
        OK(DCMF_Broadcast_register(&cp[a], &c));
    }

    for (size_t r = 0; r < np; r++)
        world.ranks[world.n++] = (unsigned)r;
    if (me % 2 == 0) {
        for (size_t r = 0; r < np; r += 2)
            parity.ranks[parity.n++] = (unsigned)r;
    } else {
        for (size_t r = np; r-- > 0;)
            if (r % 2 == 1)
                parity.ranks[parity.n++] = (unsigned)r;
    }
    for (size_t r = me / per_node * per_node; r < (me / per_node + 1) * per_node; r++)
        node.ranks[node.n++] = (unsigned)r;
    DCMF_CollectiveProtocol_t *wb[] = {&bp[DCMF_GI_BARRIER_PROTOCOL], &bp[DCMF_BINOMIAL_BARRIER_PROTOCOL]};
    DCMF_CollectiveProtocol_t *pb[] = {&bp[DCMF_LOCKBOX_BARRIER_PROTOCOL],
                                       &bp[DCMF_TORUS_BINOMIAL_BARRIER_PROTOCOL]};
    DCMF_CollectiveProtocol_t *nb[] = {&bp[DCMF_LOCKBOX_BARRIER_PROTOCOL]};
    make(&world, 1, wb, 2, 1);
    make(&parity, 2 + (unsigned)(me % 2), pb, 2, 0);
    make(&node, 100 + (unsigned)(me / per_node), nb, 1, 0);
    if (!member(&parity, me) || !member(&node, me))
        FAIL("bad test set-up");
    check_analyze();

    subsets(quick);
    barrier(&world);
    allreduce_sum(&world, &ap[DCMF_TREE_PIPELINED_ALLREDUCE_PROTOCOL], 7);
    /* the async rectangle protocols MPICH's dcmfd and GASNet register */
    for (int a = DCMF_TORUS_ASYNC_RECTANGLE_ALLREDUCE_PROTOCOL; a < DCMF_NUM_ALLREDUCE_PROTOCOLS; a++) {
        allreduce_sum(&world, &ap[a], 20 + a);
        allreduce_sum(&parity, &ap[a], 40 + a);
    }
    bcast_every_root(&world, &cp[quick ? DCMF_TREE_BROADCAST_PROTOCOL : DCMF_TORUS_RECTANGLE_BROADCAST_PROTOCOL]);
    barrier(&node);
    overlapped();
    barrier_semantics();

    /* free the parity geometry and make it again, reversed, under a new id */
    OK(DCMF_Geometry_free(&parity.g));
    for (unsigned i = 0; i < parity.n / 2; i++) {
        unsigned tmp = parity.ranks[i];
        parity.ranks[i] = parity.ranks[parity.n - 1 - i];
        parity.ranks[parity.n - 1 - i] = tmp;
    }
    make(&parity, 20 + (unsigned)(me % 2), pb, 2, 0);
    allreduce_sum(&parity, &ap[DCMF_TORUS_ASYNC_BINOMIAL_ALLREDUCE_PROTOCOL], 9);
    barrier(&parity);
    barrier(&world);
    OK(DCMF_Geometry_free(&parity.g));
    OK(DCMF_Geometry_free(&node.g));
    OK(DCMF_Geometry_free(&world.g));
    if (me == 0)
        printf("dcmf_coll_geom on %zu ranks: ok\n", np);
    DCMF_Messager_finalize();
    return 0;
}
