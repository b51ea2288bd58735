/* The [OSPRI] paper's runtime comparisons, on ARMCI over its DCMF device
 * (any device runs them; the job's NIC is a CSV column):
 *
 *   --mode allfence  every rank puts 8 bytes to --peers other ranks, then
 *                    every rank times ARMCI_AllFence. ARMCI_ALLFENCE=touched
 *                    flushes only the ranks written since the last fence
 *                    (OSPRI), =all every rank (ARMCI's generic AllFence):
 *                    Table I, AllFence cost against the number of ranks.
 *   --mode order     rank 0 leaves --counts writes (contiguous puts, strided
 *                    puts through rank 1's data server, accumulates) of
 *                    --write-bytes outstanding at rank 1, then times one
 *                    blocking get of each --sizes from the same allocation.
 *                    ARMCI_ORDER=strict must flush the writes first, =partial
 *                    need not: Fig. 7, strict vs partial ordering.
 *   --mode helper    rank 0's blocking put, put+fence, accumulate+fence and
 *                    get to rank 1 while rank 1 waits (idle) or computes in
 *                    --slice-us slices with one ARMCIX_Progress between them;
 *                    ARMCI_HELPER=1 or 0: Fig. 3, what the communication
 *                    helper thread costs and buys.
 *
 *   emunic-run -N 2 -n 1 --nic dcmf -- armci_ospri --mode order
 * bench/run_ospri.sh runs the whole matrix. CSV on stdout (rank 0),
 * progress on stderr. */
#include <armci.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci_bench.h"
#include "bench_util.h"

enum mode { M_ALLFENCE, M_ORDER, M_HELPER, NMODES };
static const char *const mode_names[NMODES] = {"allfence", "order", "helper"};

struct opts {
    int mode;
    long iters, warmup, peers;
    uint64_t *sizes, *counts;
    size_t nsizes, ncounts;
    uint64_t write_bytes;
    double slice_us;
};

/* libarmci's flush counter (order.h): weak, so another runtime still links */
extern unsigned long armcii_nflush_put __attribute__((weak));

static unsigned long flush_puts(void)
{
    return &armcii_nflush_put ? *(volatile unsigned long *)&armcii_nflush_put : 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N NODES -n RANKS --nic dcmf -- armci_ospri --mode MODE [options]\n"
            "The [OSPRI] comparisons (see the top of bench/armci_ospri.c); the option under\n"
            "comparison comes from the environment (ARMCI_ALLFENCE, ARMCI_ORDER, ARMCI_HELPER).\n"
            "  --mode M          allfence | order | helper (or $OSPRI_MODE)\n"
            "  --iters N         timed operations per case (300)\n"
            "  --warmup N        untimed ones before (20)\n"
            "  --peers K         allfence: ranks each rank writes to before the fence (1)\n"
            "  --sizes LIST      order: get sizes (8,64,512,4K); helper: transfer sizes (8,1K)\n"
            "  --counts LIST     order: writes outstanding before the get (1,8)\n"
            "  --write-bytes B   order: size of each write (4K)\n"
            "  --slice-us US     helper: rank 1's compute slice (500)\n"
            "  -h, --help        this text\n"
            "CSV columns: allfence: nic,allfence,procs,nodes,peers,iters,median_us,p10_us,p90_us,\n"
            "mean_rank_median_us,max_rank_median_us,flush_puts_per_fence;\n"
            "order: nic,order,writes,count,write_bytes,get_bytes,iters,median_us,p10_us,p90_us,\n"
            "plain_get_us; helper: nic,helper,target,op,bytes,iters,median_us,p10_us,p90_us.\n");
}

static int mode_of(const char *s)
{
    for (int m = 0; m < NMODES; m++)
        if (!strcmp(s, mode_names[m]))
            return m;
    fprintf(stderr, "armci_ospri: --mode wants allfence, order or helper, not '%s'\n", s);
    exit(2);
}

static void sizes_opt(const char *opt, const char *v, uint64_t **out, size_t *n)
{
    free(*out);
    if (bench_parse_sizes(v, out, n) || !*n) {
        fprintf(stderr, "armci_ospri: %s wants a list of sizes, not '%s'\n", opt, v);
        exit(2);
    }
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {{"mode", required_argument, NULL, 'm'},
                                       {"iters", required_argument, NULL, 'i'},
                                       {"warmup", required_argument, NULL, 'w'},
                                       {"peers", required_argument, NULL, 'p'},
                                       {"sizes", required_argument, NULL, 's'},
                                       {"counts", required_argument, NULL, 'c'},
                                       {"write-bytes", required_argument, NULL, 'b'},
                                       {"slice-us", required_argument, NULL, 'u'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->mode = -1;
    o->iters = 300;
    o->warmup = 20;
    o->peers = 1;
    o->write_bytes = 4096;
    o->slice_us = 500;
    const char *sizes = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'm': o->mode = mode_of(optarg); break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 1000000); break;
        case 'w': o->warmup = bench_parse_long("--warmup", optarg, 0, 1000000); break;
        case 'p': o->peers = bench_parse_long("--peers", optarg, 0, 4096); break;
        case 's': sizes = optarg; break;
        case 'c': sizes_opt("--counts", optarg, &o->counts, &o->ncounts); break;
        case 'b':
            if (bench_parse_size(optarg, &o->write_bytes) || o->write_bytes < 64 ||
                o->write_bytes % 64 || o->write_bytes > (1u << 20)) {
                fprintf(stderr, "armci_ospri: --write-bytes wants a multiple of 64 up to 1M\n");
                exit(2);
            }
            break;
        case 'u': o->slice_us = (double)bench_parse_long("--slice-us", optarg, 1, 1000000); break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "armci_ospri: unexpected argument '%s'\n", argv[optind]);
        exit(2);
    }
    if (o->mode < 0)
        o->mode = mode_of(ab_env_or("OSPRI_MODE", "order"));
    sizes_opt("--sizes", sizes ? sizes : o->mode == M_ORDER ? "8,64,512,4K" : "8,1K", &o->sizes,
              &o->nsizes);
    if (!o->counts)
        sizes_opt("--counts", "1,8", &o->counts, &o->ncounts);
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > (1u << 20) || o->sizes[i] % 8) {
            fprintf(stderr, "armci_ospri: sizes must be multiples of 8 up to 1M\n");
            exit(2);
        }
}

static const char *nic(void)
{
    return ab_env_or("EMUNIC_NIC", "?");
}

static double *samples(long n)
{
    double *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
    if (!v) {
        fprintf(stderr, "armci_ospri: out of memory\n");
        exit(1);
    }
    return v;
}

/* ---- (a) AllFence after a few 8-byte puts ---- */

static void run_allfence(const struct opts *o, void **mem, int argc, char **argv)
{
    int me = armci_msg_me(), n = armci_msg_nproc();
    long total = o->warmup + o->iters;
    double *lat = samples(o->iters);
    long val = me;
    unsigned long f0 = 0;
    for (long i = 0; i < total; i++) {
        if (i == o->warmup)
            f0 = flush_puts();
        armci_msg_barrier();
        for (long k = 1; k <= o->peers && k < n; k++) {
            int p = (int)((me + k) % n);
            ARMCI_Put(&val, (char *)mem[p] + 8 * (size_t)me, 8, p);
        }
        int64_t t0 = bench_now_ns();
        ARMCI_AllFence();
        if (i >= o->warmup)
            lat[i - o->warmup] = (double)(bench_now_ns() - t0) / 1e3;
    }
    double per_fence = (double)(flush_puts() - f0) / (double)o->iters;
    struct bench_stats st;
    bench_stats_of(lat, (size_t)o->iters, &st);
    double agg[2] = {st.median, st.median}; /* sum, max over ranks */
    armci_msg_dgop(&agg[0], 1, "+");
    armci_msg_dgop(&agg[1], 1, "max");
    if (me == 0) {
        bench_header(stdout, argc, argv);
        ab_env_comment(stdout);
        printf("nic,allfence,procs,nodes,peers,iters,median_us,p10_us,p90_us,"
               "mean_rank_median_us,max_rank_median_us,flush_puts_per_fence\n");
        const char *af = ab_env_or("ARMCI_ALLFENCE", "touched");
        long peers = o->peers < n ? o->peers : n - 1;
        printf("%s,%s,%d,%d,%ld,%ld,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f\n", nic(), af, n,
               armci_domain_count(ARMCI_DOMAIN_SMP), peers, o->iters, st.median, st.p10, st.p90,
               agg[0] / n, agg[1], per_fence);
        fprintf(stderr, "armci_ospri: allfence=%s p=%d: %.2f us (ranks' medians: mean %.2f, max "
                "%.2f; %.1f flush-puts per fence)\n", af, n, st.median, agg[0] / n, agg[1],
                per_fence);
        fflush(stdout);
    }
    free(lat);
}

/* ---- (b) a get behind outstanding writes ---- */

enum { W_PUT, W_PUTS, W_ACC, NWRITES };
static const char *const write_names[NWRITES] = {"put", "puts_srv", "acc"};

/* One write of o->write_bytes into rank 1's first block: contiguous (RDMA),
 * strided with 64-byte rows (packed through rank 1's data server), or an
 * accumulate (the data server adds it in). */
static void write_one(int kind, const struct opts *o, double *src, char *dst)
{
    static double one = 1.0;
    int bytes = (int)o->write_bytes;
    int stride[1] = {128}, count[2] = {64, bytes / 64};
    if (kind == W_PUT)
        ARMCI_NbPut(src, dst, bytes, 1, NULL);
    else if (kind == W_PUTS)
        ARMCI_NbPutS(src, stride, dst, stride, count, 1, 1, NULL);
    else
        ARMCI_NbAcc(ARMCI_ACC_DBL, &one, src, dst, bytes, 1, NULL);
}

static double time_get(const struct opts *o, int kind, long count, uint64_t gbytes, char *from,
                       char *into, double *src, char *wdst, double *p10p90)
{
    double *lat = samples(o->iters);
    for (long i = 0; i < o->warmup + o->iters; i++) {
        for (long k = 0; kind >= 0 && k < count; k++)
            write_one(kind, o, src, wdst);
        int64_t t0 = bench_now_ns();
        ARMCI_Get(from, into, (int)gbytes, 1);
        if (i >= o->warmup)
            lat[i - o->warmup] = (double)(bench_now_ns() - t0) / 1e3;
        ARMCI_Fence(1); /* untimed: the next get starts clean */
    }
    struct bench_stats st;
    bench_stats_of(lat, (size_t)o->iters, &st);
    p10p90[0] = st.p10;
    p10p90[1] = st.p90;
    free(lat);
    return st.median;
}

static void run_order(const struct opts *o, void **mem, int argc, char **argv)
{
    if (armci_msg_me() != 0)
        return;
    /* the writes go to the first 2 * write_bytes (strided rows leave gaps),
     * the get reads the same allocation right after them */
    char *wdst = mem[1], *from = (char *)mem[1] + 2 * o->write_bytes;
    double *src = calloc(1, 2 * o->write_bytes);
    char *into = calloc(1, 1u << 20);
    if (!src || !into) {
        fprintf(stderr, "armci_ospri: out of memory\n");
        exit(1);
    }
    const char *order = ab_env_or("ARMCI_ORDER", "strict");
    bench_header(stdout, argc, argv);
    ab_env_comment(stdout);
    printf("nic,order,writes,count,write_bytes,get_bytes,iters,median_us,p10_us,p90_us,"
           "plain_get_us\n");
    for (size_t s = 0; s < o->nsizes; s++) {
        double pp[2];
        double plain = time_get(o, -1, 0, o->sizes[s], from, into, src, wdst, pp);
        for (int w = 0; w < NWRITES; w++)
            for (size_t c = 0; c < o->ncounts; c++) {
                long count = (long)o->counts[c];
                double med = time_get(o, w, count, o->sizes[s], from, into, src, wdst, pp);
                printf("%s,%s,%s,%ld,%llu,%llu,%ld,%.3f,%.3f,%.3f,%.3f\n", nic(), order,
                       write_names[w], count, (unsigned long long)o->write_bytes,
                       (unsigned long long)o->sizes[s], o->iters, med, pp[0], pp[1], plain);
                fprintf(stderr, "armci_ospri: order=%s %2ld x %s then get %6llu B: %8.2f us "
                        "(plain %.2f)\n", order, count, write_names[w],
                        (unsigned long long)o->sizes[s], med, plain);
            }
        fflush(stdout);
    }
    free(src);
    free(into);
}

/* ---- (c) blocking latency with and without the helper thread ---- */

enum { O_PUT, O_PUT_FENCED, O_ACC_FENCED, O_GET, NOPS };
static const char *const op_names[NOPS] = {"put", "put_fenced", "acc_fenced", "get"};
enum { T_IDLE, T_COMPUTE, NTARGET };
static const char *const target_names[NTARGET] = {"idle", "compute"};

static void blocking(int op, char *loc, char *rem, int bytes)
{
    static double one = 1.0;
    switch (op) {
    case O_PUT: ARMCI_Put(loc, rem, bytes, 1); break;
    case O_PUT_FENCED: ARMCI_Put(loc, rem, bytes, 1); ARMCI_Fence(1); break;
    case O_ACC_FENCED: ARMCI_Acc(ARMCI_ACC_DBL, &one, loc, rem, bytes, 1); ARMCI_Fence(1); break;
    default: ARMCI_Get(rem, loc, bytes, 1); break;
    }
}

/* Rank 1 computes in slices, looking at its stop flag (set by rank 0's
 * put) and progressing once between slices. */
static void target_compute(const struct opts *o, volatile long *stop)
{
    while (!*stop) {
        ab_spin_ns((int64_t)(o->slice_us * 1e3));
        ARMCIX_Progress();
    }
}

static void run_helper(const struct opts *o, void **mem, int argc, char **argv)
{
    int me = armci_msg_me();
    size_t maxb = 0;
    for (size_t s = 0; s < o->nsizes; s++)
        maxb = o->sizes[s] > maxb ? o->sizes[s] : maxb;
    /* [0, 8): rank 1's stop flag; the data after it */
    char *rem = (char *)mem[1] + 64;
    char *loc = calloc(1, maxb ? maxb : 8);
    double *lat = samples(o->iters);
    if (!loc) {
        fprintf(stderr, "armci_ospri: out of memory\n");
        exit(1);
    }
    const char *helper = ab_env_or("ARMCI_HELPER", "1");
    if (me == 0) {
        bench_header(stdout, argc, argv);
        ab_env_comment(stdout);
        printf("nic,helper,target,op,bytes,iters,median_us,p10_us,p90_us\n");
    }
    for (int t = 0; t < NTARGET; t++) {
        *(volatile long *)mem[me] = 0;
        armci_msg_barrier();
        if (me == 1 && t == T_COMPUTE)
            target_compute(o, (volatile long *)mem[1]);
        if (me == 0) {
            for (size_t s = 0; s < o->nsizes; s++)
                for (int op = 0; op < NOPS; op++) {
                    int bytes = (int)o->sizes[s];
                    for (long i = 0; i < o->warmup + o->iters; i++) {
                        int64_t t0 = bench_now_ns();
                        blocking(op, loc, rem, bytes);
                        if (i >= o->warmup)
                            lat[i - o->warmup] = (double)(bench_now_ns() - t0) / 1e3;
                    }
                    ARMCI_Fence(1);
                    struct bench_stats st;
                    bench_stats_of(lat, (size_t)o->iters, &st);
                    printf("%s,%s,%s,%s,%d,%ld,%.3f,%.3f,%.3f\n", nic(), helper,
                           target_names[t], op_names[op], bytes, o->iters, st.median, st.p10,
                           st.p90);
                    fprintf(stderr, "armci_ospri: helper=%s target %-7s %-10s %5d B: %8.2f us\n",
                            helper, target_names[t], op_names[op], bytes, st.median);
                }
            fflush(stdout);
            long one = 1;
            ARMCI_Put(&one, mem[1], sizeof one, 1);
            ARMCI_Fence(1);
        }
        armci_msg_barrier();
    }
    free(loc);
    free(lat);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    if (!getenv("EMUNIC_JOBID")) {
        fprintf(stderr, "armci_ospri: run me under emunic-run --nic dcmf (see --help)\n");
        return 2;
    }
    ARMCI_Init_args(&argc, &argv);
    int me = armci_msg_me(), n = armci_msg_nproc();
    if (n < 2 || (o.mode != M_ALLFENCE && n != 2)) {
        if (me == 0)
            fprintf(stderr, "armci_ospri: --mode %s wants %s\n", mode_names[o.mode],
                    o.mode == M_ALLFENCE ? "at least two ranks" : "two ranks (-N 2 -n 1)");
        ARMCI_Finalize();
        return 2;
    }
    size_t bytes = 8 * (size_t)n;
    if (o.mode == M_ORDER)
        bytes = 2 * o.write_bytes + (1u << 20);
    else if (o.mode == M_HELPER)
        bytes = 64 + (1u << 20);
    void **mem = calloc((size_t)n, sizeof *mem);
    if (!mem || ARMCI_Malloc(mem, (int)bytes)) {
        fprintf(stderr, "armci_ospri: out of memory\n");
        return 1;
    }
    if (o.mode == M_ALLFENCE)
        run_allfence(&o, mem, argc, argv);
    else if (o.mode == M_ORDER)
        run_order(&o, mem, argc, argv);
    else
        run_helper(&o, mem, argc, argv);
    armci_msg_barrier();
    ARMCI_Free(mem[me]);
    free(mem);
    free(o.sizes);
    free(o.counts);
    ARMCI_Finalize();
    return 0;
}
