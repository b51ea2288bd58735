/* The load-balance counter of [BGQ-PAMI]: ranks 1..p-1 take turns at a
 * shared counter in rank 0's memory with ARMCI_Rmw(ARMCI_FETCH_AND_ADD),
 * as Global Arrays' NXTVAL does, and report the latency they see. Rank 0
 * either waits (idle: in armci_msg_barrier) or computes (busy loops of
 * --chunk-us that make no ARMCI call, checking between chunks with one
 * ARMCIX_Progress whether the clients are done). Whether rank 0's
 * computing delays its clients depends on where the atomic runs:
 * ARMCI_RMW=nic (the NIC), ARMCI_RMW=helper with ARMCI_HELPER=1 (the node's
 * helper thread) or with ARMCI_HELPER=0 (rank 0 itself, only inside its
 * ARMCI calls). bench/run_armci.sh sweeps those and p.
 *   emunic-run -N 2 -n 2 --nic portals -- armci_rmw_counter [options] */
#include <armci.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci_bench.h"
#include "bench_util.h"

enum { MODE_IDLE, MODE_COMPUTE, NMODES };
static const char *const mode_names[NMODES] = {"idle", "compute"};

struct opts {
    long iters, warmup;
    double chunk_us;
    int modes[NMODES];
};

/* What one client saw, summed over clients with armci_msg_dgop (each rank
 * fills its own row, the others are zero). */
enum { S_MEAN, S_MEDIAN, S_P10, S_P90, S_MAX, S_WALL, NSTAT };

/* rank 0's side of a mode: the chunks it computed */
struct busy {
    long chunks;
    double chunk_us; /* mean wall time of one chunk */
};

static volatile int *counter; /* rank 0's, in its ARMCI block */
static int *counter_remote;   /* the same, as the clients address it */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N NODES -n RANKS --nic portals -- armci_rmw_counter [options]\n"
            "Ranks 1..p-1 each do --iters ARMCI_Rmw(ARMCI_FETCH_AND_ADD) on a counter at\n"
            "rank 0 ([BGQ-PAMI] load-balance counter) while rank 0 is idle in a barrier or\n"
            "computing in chunks that make no ARMCI call. The paths come from the\n"
            "environment (ARMCI_HELPER, ARMCI_RMW). CSV on stdout (one row per mode:\n"
            "mode,procs,config,nodes,ppn,iters,avg_us,median_us,p10_us,p90_us,max_us,\n"
            "worst_rank_avg_us,ops_per_s,rank0_chunks,rank0_chunk_us); progress on stderr.\n"
            "  --iters N        timed fetch-and-adds per client (1000)\n"
            "  --warmup N       untimed ones before (20)\n"
            "  --modes LIST     idle,compute (both, in that order)\n"
            "  --chunk-us US    length of one compute chunk of rank 0 (300)\n"
            "  -h, --help       this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {{"iters", required_argument, 0, 'i'},
                                       {"warmup", required_argument, 0, 'w'},
                                       {"modes", required_argument, 0, 'm'},
                                       {"chunk-us", required_argument, 0, 'c'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    *o = (struct opts){.iters = 1000, .warmup = 20, .chunk_us = 300, .modes = {1, 1}};
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 'w': o->warmup = bench_parse_long("--warmup", optarg, 0, 1000000); break;
        case 'c': o->chunk_us = (double)bench_parse_long("--chunk-us", optarg, 1, 1000000); break;
        case 'm': {
            o->modes[MODE_IDLE] = strstr(optarg, "idle") != NULL;
            o->modes[MODE_COMPUTE] = strstr(optarg, "compute") != NULL;
            char *copy = strdup(optarg), *save = NULL;
            for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
                if (strcmp(t, "idle") && strcmp(t, "compute")) {
                    fprintf(stderr, "armci_rmw_counter: --modes: unknown mode '%s'\n", t);
                    exit(2);
                }
            free(copy);
            if (!o->modes[MODE_IDLE] && !o->modes[MODE_COMPUTE]) {
                fprintf(stderr, "armci_rmw_counter: --modes: no mode in '%s'\n", optarg);
                exit(2);
            }
            break;
        }
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "armci_rmw_counter: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        exit(2);
    }
}

/* A client's loop: warm-up, then every fetch-and-add timed alone. */
static void client(const struct opts *o, double *row)
{
    double *t = malloc((size_t)o->iters * sizeof *t);
    if (!t) {
        fprintf(stderr, "armci_rmw_counter: out of memory\n");
        exit(1);
    }
    int old;
    for (long i = 0; i < o->warmup; i++)
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter_remote, 1, 0);
    int64_t w0 = bench_now_ns();
    for (long i = 0; i < o->iters; i++) {
        int64_t t0 = bench_now_ns();
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter_remote, 1, 0);
        t[i] = (double)(bench_now_ns() - t0) / 1000.0;
    }
    row[S_WALL] = (double)(bench_now_ns() - w0) / 1e9;
    struct bench_stats s;
    bench_stats_of(t, (size_t)o->iters, &s);
    row[S_MEAN] = s.mean;
    row[S_MEDIAN] = s.median;
    row[S_P10] = s.p10;
    row[S_P90] = s.p90;
    row[S_MAX] = s.max;
    free(t);
}

/* Rank 0 computing: chunks of pure work; between two, one progress call
 * (a real application's next ARMCI call) and a look at the counter. */
static void compute_until(const struct opts *o, long expected, struct busy *b)
{
    int64_t t0 = bench_now_ns();
    b->chunks = 0;
    do {
        ab_spin_ns((int64_t)(o->chunk_us * 1000.0));
        b->chunks++;
        ARMCIX_Progress();
    } while (*counter < expected);
    b->chunk_us = (double)(bench_now_ns() - t0) / 1000.0 / (double)b->chunks;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over clients of one statistic (rows 1..n-1). */
static double client_median(const double *rows, int n, int stat)
{
    double v[1024];
    int k = 0;
    for (int r = 1; r < n && k < 1024; r++)
        v[k++] = rows[r * NSTAT + stat];
    qsort(v, (size_t)k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static void report(const struct opts *o, int mode, const double *rows, int n, const struct busy *b)
{
    double mean = 0, worst = 0, wall = 0, max = 0;
    for (int r = 1; r < n; r++) {
        max = rows[r * NSTAT + S_MAX] > max ? rows[r * NSTAT + S_MAX] : max;
        mean += rows[r * NSTAT + S_MEAN] / (n - 1);
        worst = rows[r * NSTAT + S_MEAN] > worst ? rows[r * NSTAT + S_MEAN] : worst;
        wall = rows[r * NSTAT + S_WALL] > wall ? rows[r * NSTAT + S_WALL] : wall;
    }
    int nodes = armci_domain_count(ARMCI_DOMAIN_SMP), ppn = armci_domain_nprocs(ARMCI_DOMAIN_SMP, 0);
    printf("%s,%d,helper=%s/rmw=%s,%d,%d,%ld,%.3f,%.3f,%.3f,%.3f,%.1f,%.3f,%.0f,", mode_names[mode], n,
           ab_env_or("ARMCI_HELPER", "1"), ab_env_or("ARMCI_RMW", "auto"), nodes, ppn, o->iters,
           mean, client_median(rows, n, S_MEDIAN), client_median(rows, n, S_P10),
           client_median(rows, n, S_P90), max, worst, (double)(n - 1) * (double)o->iters / wall);
    if (mode == MODE_COMPUTE)
        printf("%ld,%.1f\n", b->chunks, b->chunk_us);
    else
        printf(",\n");
    fflush(stdout);
    fprintf(stderr, "armci_rmw_counter: p=%d %-7s helper=%s rmw=%s: avg %.2f us, median %.2f us, "
            "worst rank %.2f us\n", n, mode_names[mode], ab_env_or("ARMCI_HELPER", "1"),
            ab_env_or("ARMCI_RMW", "auto"), mean, client_median(rows, n, S_MEDIAN), worst);
}

static void run_mode(const struct opts *o, int mode)
{
    int me = armci_msg_me(), n = armci_msg_nproc();
    long expected = (long)(n - 1) * (o->warmup + o->iters);
    double *rows = calloc((size_t)n * NSTAT, sizeof *rows);
    struct busy b = {0, 0};
    if (!rows) {
        fprintf(stderr, "armci_rmw_counter: out of memory\n");
        exit(1);
    }
    if (me == 0)
        *counter = 0;
    ARMCI_Barrier(); /* the reset is visible before anyone adds */
    if (me != 0)
        client(o, rows + me * NSTAT);
    else if (mode == MODE_COMPUTE)
        compute_until(o, expected, &b);
    /* idle: rank 0 goes straight here and waits for the clients */
    armci_msg_barrier();
    if (me == 0 && *counter != expected) {
        fprintf(stderr, "armci_rmw_counter: WRONG RESULT: counter is %d after %ld fetch-and-adds\n",
                *counter, expected);
        exit(1);
    }
    armci_msg_dgop(rows, n * NSTAT, "+");
    if (me == 0)
        report(o, mode, rows, n, &b);
    free(rows);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    ab_require_portals_job("armci_rmw_counter");
    ARMCI_Init_args(&argc, &argv);
    int me = armci_msg_me(), n = armci_msg_nproc();
    if (n < 2) {
        if (me == 0)
            fprintf(stderr, "armci_rmw_counter: needs at least 2 ranks (rank 0 hosts the counter)\n");
        ARMCI_Finalize();
        return 2;
    }
    void **base = malloc(sizeof(void *) * (size_t)n);
    if (!base || ARMCI_Malloc(base, 64) != 0) {
        fprintf(stderr, "armci_rmw_counter: ARMCI_Malloc failed\n");
        return 1;
    }
    counter = base[me];
    counter_remote = base[0];
    if (me == 0) {
        bench_header(stdout, argc, argv);
        ab_env_comment(stdout);
        printf("# latencies in microseconds of one ARMCI_Rmw(ARMCI_FETCH_AND_ADD) at rank 0, seen "
               "by ranks 1..p-1: avg = mean over all their operations, median/p10/p90 = median "
               "over clients of each one's percentile; max = the slowest single operation; ops_per_s = all clients' operations / the "
               "slowest client's time; rank0_chunk_us = mean wall time of one compute chunk\n");
        printf("mode,procs,config,nodes,ppn,iters,avg_us,median_us,p10_us,p90_us,max_us,worst_rank_avg_us,"
               "ops_per_s,rank0_chunks,rank0_chunk_us\n");
    }
    for (int m = 0; m < NMODES; m++)
        if (o.modes[m])
            run_mode(&o, m);
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    return 0;
}
