/* What ordering costs a read ([OSPRI] strict vs partial ordering, [BGQ-PAMI]
 * per-region conflict tracking): rank 0 leaves W non-blocking writes
 * outstanding at rank 1 -- accumulates (through rank 1's data server) or
 * puts (RDMA) -- into allocation A, then times one blocking 8-byte get
 * from A (a read that must see them under strict ordering) or from B, a
 * different allocation (a read that need not). Which of the two waits for
 * the writes to be applied depends on ARMCI_ORDER and
 * ARMCI_CONFLICT_TRACKING, taken from the environment (one job per
 * setting; bench/run_armci.sh runs them). The job also checks that
 * strict ordering reads its own accumulates.
 *   emunic-run -N 2 -n 1 --nic portals -- armci_order [options] */
#include <armci.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci_bench.h"
#include "bench_util.h"

static long region = 65536; /* bytes each write touches in A (--bytes) */

enum { W_ACC, W_PUT, NWRITES };
static const char *const write_names[NWRITES] = {"acc", "put"};
enum { R_SAME, R_OTHER, NREADS };
static const char *const read_names[NREADS] = {"same_alloc", "other_alloc"};

struct opts {
    long iters, window;
    uint64_t bytes;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic portals -- armci_order [options]\n"
            "Latency of a blocking 8-byte ARMCI_Get issued right after --window\n"
            "non-blocking accumulates or puts of --bytes to rank 1, reading the allocation\n"
            "they write (same_alloc) or another one (other_alloc). Ordering options from\n"
            "the environment (ARMCI_ORDER, ARMCI_CONFLICT_TRACKING). CSV on stdout:\n"
            "writes,read,order,conflict_tracking,window,bytes,iters,lat_us,p10_us,p90_us,\n"
            "plain_get_us (the same get with nothing outstanding); progress on stderr.\n"
            "  --iters N    timed gets per case (300)\n"
            "  --window W   writes outstanding before each get (8)\n"
            "  --bytes B    size of each write (64K)\n"
            "  -h, --help   this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {{"iters", required_argument, NULL, 'i'},
                                       {"window", required_argument, NULL, 'w'},
                                       {"bytes", required_argument, NULL, 'b'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    *o = (struct opts){300, 8, 65536};
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 1000000); break;
        case 'w': o->window = bench_parse_long("--window", optarg, 1, 256); break;
        case 'b':
            if (bench_parse_size(optarg, &o->bytes) || o->bytes < 8 || o->bytes > (1u << 24) ||
                o->bytes % 8) {
                fprintf(stderr, "armci_order: --bytes wants a multiple of 8 from 8 to 16M, not '%s'\n",
                        optarg);
                exit(2);
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "armci_order: unexpected argument '%s'\n", argv[optind]);
        exit(2);
    }
}

static void **alloc_a, **alloc_b;

static void writes(int kind, long n, double *src)
{
    static double one = 1.0;
    for (long k = 0; k < n; k++) {
        char *dst = (char *)alloc_a[1] + (size_t)(k % 8) * region;
        if (kind == W_ACC)
            ARMCI_NbAcc(ARMCI_ACC_DBL, &one, src, dst, (int)region, 1, NULL);
        else
            ARMCI_NbPut(src, dst, (int)region, 1, NULL);
    }
}

/* One timed get per iteration after the window; everything is fenced
 * (untimed) before the next iteration starts. */
static double time_case(int kind, int read, const struct opts *o, double *src, double *stats)
{
    double *lat = malloc(sizeof *lat * (size_t)o->iters);
    if (!lat) {
        fprintf(stderr, "armci_order: out of memory\n");
        exit(1);
    }
    double v;
    void *from = read == R_SAME ? alloc_a[1] : alloc_b[1];
    for (long i = 0; i < o->iters; i++) {
        if (kind >= 0)
            writes(kind, o->window, src);
        int64_t t0 = bench_now_ns();
        ARMCI_Get(from, &v, sizeof v, 1);
        lat[i] = (double)(bench_now_ns() - t0) / 1e3;
        ARMCI_Fence(1);
    }
    struct bench_stats s;
    bench_stats_of(lat, (size_t)o->iters, &s);
    stats[0] = s.p10;
    stats[1] = s.p90;
    free(lat);
    return s.median;
}

/* Strict ordering must show rank 0 its own accumulates at once. */
static void check_location_consistency(double *src)
{
    static double one = 1.0;
    double *a1 = alloc_a[1], zero[8] = {0}, got;
    ARMCI_Put(zero, a1, sizeof zero, 1);
    ARMCI_Fence(1);
    ARMCI_NbAcc(ARMCI_ACC_DBL, &one, src, a1, sizeof(double), 1, NULL);
    ARMCI_Get(a1, &got, sizeof got, 1);
    if (got != src[0]) {
        fprintf(stderr, "armci_order: FAIL: a get after an accumulate read %g, expected %g\n",
                got, src[0]);
        exit(1);
    }
    ARMCI_Fence(1);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    ab_require_portals_job("armci_order");
    region = (long)o.bytes;
    ARMCI_Init_args(&argc, &argv);
    int me = armci_msg_me();
    if (armci_msg_nproc() != 2 || ARMCI_Same_node(1 - me)) {
        if (me == 0)
            fprintf(stderr, "armci_order: run as emunic-run -N 2 -n 1 (two ranks, two nodes)\n");
        ARMCI_Finalize();
        return 2;
    }
    alloc_a = calloc(2, sizeof *alloc_a);
    alloc_b = calloc(2, sizeof *alloc_b);
    double *src = malloc((size_t)region);
    if (!alloc_a || !alloc_b || !src || ARMCI_Malloc(alloc_a, (int)(8 * region)) ||
        ARMCI_Malloc(alloc_b, (int)region)) {
        fprintf(stderr, "armci_order: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < (size_t)region / sizeof(double); i++)
        src[i] = 1.0;
    const char *order = ab_env_or("ARMCI_ORDER", "strict");
    const char *ct = ab_env_or("ARMCI_CONFLICT_TRACKING", "1");
    if (me == 0) {
        if (!strcmp(order, "strict"))
            check_location_consistency(src);
        bench_header(stdout, argc, argv);
        ab_env_comment(stdout);
        printf("writes,read,order,conflict_tracking,window,bytes,iters,lat_us,p10_us,p90_us,"
               "plain_get_us\n");
        double st[2];
        double plain = time_case(-1, R_OTHER, &o, src, st);
        for (int w = 0; w < NWRITES; w++)
            for (int r = 0; r < NREADS; r++) {
                double lat = time_case(w, r, &o, src, st);
                printf("%s,%s,%s,%s,%ld,%ld,%ld,%.3f,%.3f,%.3f,%.3f\n", write_names[w],
                       read_names[r], order, ct, o.window, region, o.iters, lat, st[0], st[1],
                       plain);
                fprintf(stderr, "armci_order: %s x%ld then get %-11s %8.2f us (plain %.2f)\n",
                        write_names[w], o.window, read_names[r], lat, plain);
            }
        fflush(stdout);
    }
    armci_msg_barrier();
    ARMCI_Free(alloc_b[me]);
    ARMCI_Free(alloc_a[me]);
    free(src);
    free(alloc_a);
    free(alloc_b);
    ARMCI_Finalize();
    return 0;
}
