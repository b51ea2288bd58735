/* Latency of the PAMI collectives ([P7IH-COLL]) per algorithm: barrier,
 * broadcast (rotating roots, as the paper measures latency) and allreduce
 * of doubles with SUM, for every algorithm of the world geometry that the
 * metadata allows at that size. Task 0's mean time per operation, CSV:
 *
 *   bench,case,size,tasks,nodes,iters,us_per_op
 *   pami_coll,allreduce/I0:Hybrid:SHMEM:CAU,8,16,4,200,41.2
 *
 *   pami_coll [--iters N] [--max BYTES] [--xfer barrier,bcast,allreduce]
 * Sizes are 8, 64, 512, 4 KiB, 64 KiB (up to --max); above 4 KiB a
 * quarter of the iterations run. */
#include <getopt.h>
#include <string.h>
#include <time.h>

#include "pami_bench.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static atomic_long done;

static void run(pami_xfer_t *x)
{
    long want = atomic_load(&done) + 1;
    x->cb_done = pb_count;
    x->cookie = &done;
    PB_CHECK(PAMI_Collective(pb_ctx[0], x) == PAMI_SUCCESS, "PAMI_Collective");
    pb_until(pb_ctx[0], &done, want);
}

static pami_geometry_t world;
static size_t nodes;

static void measure(pami_xfer_type_t t, const char *tname, size_t bytes, int iters, char *buf, char *buf2)
{
    size_t num[2];
    PB_CHECK(PAMI_Geometry_algorithms_num(world, t, num) == PAMI_SUCCESS, "algorithms_num");
    pami_algorithm_t algs[32];
    pami_metadata_t md[32];
    PB_CHECK(num[0] + num[1] <= 32, "too many algorithms");
    PB_CHECK(PAMI_Geometry_algorithms_query(world, t, algs, md, num[0], algs + num[0], md + num[0], num[1]) ==
                 PAMI_SUCCESS,
             "algorithms_query");
    for (size_t a = 0; a < num[0] + num[1]; a++) {
        pami_xfer_t x;
        memset(&x, 0, sizeof x);
        x.algorithm = algs[a];
        if (t == PAMI_XFER_BROADCAST) {
            x.cmd.xfer_broadcast.buf = buf;
            x.cmd.xfer_broadcast.type = PAMI_TYPE_BYTE;
            x.cmd.xfer_broadcast.typecount = bytes;
        } else if (t == PAMI_XFER_ALLREDUCE) {
            pami_allreduce_t *r = &x.cmd.xfer_allreduce;
            r->sndbuf = buf;
            r->rcvbuf = buf2;
            r->stype = r->rtype = PAMI_TYPE_DOUBLE;
            r->stypecount = r->rtypecount = bytes / 8;
            r->op = PAMI_DATA_SUM;
        }
        if (a >= num[0]) { /* "must query": ask the metadata */
            if (md[a].check_correct.values.rangeminmax && (bytes < md[a].range_lo || bytes > md[a].range_hi))
                continue;
            if (md[a].check_fn && md[a].check_fn(&x).bitmask)
                continue;
        }
        pb_barrier();
        double t0 = 0;
        int warm = 5;
        for (int i = -warm; i < iters; i++) {
            if (i == 0)
                t0 = now_us();
            if (t == PAMI_XFER_BROADCAST)
                x.cmd.xfer_broadcast.root = pb_ep((size_t)(i + warm) % pb_n, 0);
            run(&x);
        }
        double us = (now_us() - t0) / iters;
        if (pb_me == 0)
            printf("pami_coll,%s/%s,%zu,%zu,%zu,%d,%.2f\n", tname, md[a].name, bytes, pb_n, nodes, iters, us);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int iters = 200;
    size_t maxb = 65536;
    const char *which = "barrier,bcast,allreduce";
    static const struct option lo[] = {{"iters", 1, 0, 'i'}, {"max", 1, 0, 'm'}, {"xfer", 1, 0, 'x'}, {0, 0, 0, 0}};
    int c;
    pb_init("pami_coll", 1, 1, 64);
    while ((c = getopt_long(argc, argv, "i:m:x:", lo, NULL)) != -1) {
        switch (c) {
        case 'i': iters = atoi(optarg); break;
        case 'm': maxb = (size_t)strtoull(optarg, NULL, 0); break;
        case 'x': which = optarg; break;
        default: pb_bad_option("pami_coll", c, argv);
        }
    }
    PB_CHECK(iters > 0, "--iters must be positive");
    PB_CHECK(PAMI_Geometry_world(pb_client, &world) == PAMI_SUCCESS, "world");
    pami_configuration_t q = {.name = PAMI_CLIENT_NUM_LOCAL_TASKS};
    PB_CHECK(PAMI_Client_query(pb_client, &q, 1) == PAMI_SUCCESS, "query");
    nodes = pb_n / (q.value.intval ? q.value.intval : 1);
    char *buf = calloc(1, maxb + 8), *buf2 = calloc(1, maxb + 8);
    if (pb_me == 0) {
        printf("# pami_coll layout %s: task 0's mean latency per collective (us)\n", pb_layout());
        printf("bench,case,size,tasks,nodes,iters,us_per_op\n");
    }
    static const size_t sizes[] = {8, 64, 512, 4096, 65536};
    if (strstr(which, "barrier"))
        measure(PAMI_XFER_BARRIER, "barrier", 0, iters, buf, buf2);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && sizes[s] <= maxb; s++) {
        int it = sizes[s] > 4096 ? (iters + 3) / 4 : iters;
        if (strstr(which, "bcast"))
            measure(PAMI_XFER_BROADCAST, "bcast", sizes[s], it, buf, buf2);
        if (strstr(which, "allreduce"))
            measure(PAMI_XFER_ALLREDUCE, "allreduce", sizes[s], it, buf, buf2);
    }
    free(buf);
    free(buf2);
    pb_fini();
    return 0;
}
