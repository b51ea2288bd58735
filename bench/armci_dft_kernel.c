/* DFT-like validation kernel ([XT5-ARMCI] Sect. 3.1 and 5.1): the
 * communication pattern of NWChem's exchange-correlation step in ARMCI
 * terms, with a result that is checked exactly.
 *
 * Two "global arrays" of doubles, D (input) and F (result), are T x T
 * matrices of B x B tiles distributed block-wise over a 2-D process grid,
 * as Global Arrays distributes them (ARMCI_Malloc, one rectangle of tiles
 * per rank). Ranks draw tasks from a shared counter on rank 0 with
 * ARMCI_Rmw(ARMCI_FETCH_AND_ADD), as NWChem's nxtval does. Task t is a tile
 * triple (i, j, k): ga_get of D(i,k) and D(k,j) (ARMCI_GetS of a patch
 * whose rows are contiguous in the owner's memory), a dgemm on the two
 * tiles, and ga_acc of the product into F(i,j) (ARMCI_AccS, ARMCI_ACC_DBL,
 * scale 1.0) at that tile's owner. The paper's DFT messages are "on the
 * order of 4 KB" (its 2048-4095 B bin): the default 22 x 22 tile is
 * 3872 B, so every get and accumulate moves one such patch, and each fits
 * one 4 KiB data-server buffer (ARMCI_BUF_SIZE) with its request header;
 * from --block 23 on, a patch spills into a second buffer and flow
 * intimation comes into play.
 *
 * Verification: D holds small integers, so every product and every sum is
 * exact in double precision whatever the order the accumulates arrive in.
 * Each rank recomputes the expected value of its own F tiles from the task
 * ids alone and compares bit for bit; D must be unchanged and the counter
 * must end at tasks + ranks (every rank's last draw overshoots once).
 *
 *   emunic-run -N 2 -n 2 --nic portals -- armci_dft_kernel [--tasks N] ... */
#include <armci.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define PROG "armci_dft_kernel"
#define MAX_REPORTED_MISMATCHES 3

struct opts {
    long tasks;
    int block;      /* tile edge B, in doubles */
    int tiles;      /* T tiles per matrix dimension; 0: 2 x the process grid's longer side */
    long compute_us; /* extra compute per task (the dgemm repeated), microseconds */
    const char *csv;
    int quiet;
};

/* The 2-D block distribution: rank r = p * pcol + q owns tile rows
 * [lo(T, prow, p), lo(T, prow, p+1)) and tile columns likewise for q,
 * stored row-major, so a tile's rows are contiguous runs ld apart. */
struct dist {
    int nproc, prow, pcol;
    int tiles, block;
};

/* A tile as seen from anywhere: its owner, its first element in the
 * owner's address space, and the owner's row length in doubles. */
struct patch {
    int owner;
    double *addr;
    int ld;
};

/* What this rank did, summed over ranks for the report. */
struct counts {
    long tasks, gets, accs, rmws, bytes, offnode;
};

/* Only rank 0 talks about usage: under emunic-run every rank parses the
 * same argv, and one message is clearer than one per rank. */
static int is_rank0_env(void)
{
    const char *r = getenv("EMUNIC_RANK");
    return !r || strcmp(r, "0") == 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N NODES -n RANKS --nic portals -- " PROG " [options]\n"
            "DFT-like kernel ([XT5-ARMCI]): tasks drawn from a fetch-and-add counter on rank 0;\n"
            "each gets two B x B tiles of a distributed matrix D (strided get), multiplies them\n"
            "and accumulates the product into a tile of F (strided accumulate). The result is\n"
            "verified exactly; exit status 1 on a mismatch.\n"
            "  --tasks N        tasks in the job (default 20000)\n"
            "  --block B        tile edge in doubles (default 22: 3872-byte patches, the paper's\n"
            "                   ~4 KB messages)\n"
            "  --tiles T        tiles per matrix dimension (default 2 x the process grid's longer\n"
            "                   side; at least that side)\n"
            "  --compute-us US  compute per task: repeat the tile dgemm for at least US\n"
            "                   microseconds (default 0: one dgemm)\n"
            "  --csv FILE       also write the result as CSV (bench_header line first)\n"
            "  --quiet          no progress lines on stderr\n"
            "  --help           this text\n"
            "Runtime options are ARMCI_* environment variables (docs/runtime.md).\n");
}

/* Leave on a usage error. The other ranks give rank 0 a moment to print:
 * emunic-run stops the whole job at the first failing rank, which could
 * otherwise end rank 0 before its message is out. */
static void usage_error_exit(void)
{
    if (!is_rank0_env())
        sleep(1);
    exit(2);
}

static long parse_num(const char *opt, const char *v, long min, long max)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < min || x > max) {
        if (is_rank0_env())
            fprintf(stderr, PROG ": %s wants an integer in %ld..%ld, got '%s'\n", opt, min, max, v);
        usage_error_exit();
    }
    return x;
}

static void parse_options(int argc, char **argv, struct opts *o)
{
    static const struct option lopts[] = {{"tasks", required_argument, 0, 't'},
                                          {"block", required_argument, 0, 'b'},
                                          {"tiles", required_argument, 0, 'T'},
                                          {"compute-us", required_argument, 0, 'c'},
                                          {"csv", required_argument, 0, 'o'},
                                          {"quiet", no_argument, 0, 'q'},
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};
    *o = (struct opts){.tasks = 20000, .block = 22};
    opterr = 0; /* our own message, from rank 0 only */
    int c;
    while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        switch (c) {
        case 't': o->tasks = parse_num("--tasks", optarg, 1, 1000000000L); break;
        case 'b': o->block = (int)parse_num("--block", optarg, 1, 512); break;
        case 'T': o->tiles = (int)parse_num("--tiles", optarg, 1, 256); break;
        case 'c': o->compute_us = parse_num("--compute-us", optarg, 0, 10000000L); break;
        case 'o': o->csv = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'h':
            if (is_rank0_env())
                usage(stdout);
            exit(0);
        default:
            if (is_rank0_env())
                fprintf(stderr, PROG ": unknown option or missing value: '%s' (see --help)\n", argv[optind - 1]);
            usage_error_exit();
        }
    }
    if (optind < argc) {
        if (is_rank0_env())
            fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
        usage_error_exit();
    }
}

/* ---- distribution ---- */

/* First index of part p when n items are split into parts as evenly as
 * GA splits a dimension. */
static int span_lo(int n, int parts, int p)
{
    return (int)((long)n * p / parts);
}

static int span_owner(int n, int parts, int i)
{
    int p = 0;
    while (span_lo(n, parts, p + 1) <= i)
        p++;
    return p;
}

/* The most square grid prow x pcol = nproc with prow <= pcol. */
static void dist_init(struct dist *d, int nproc, int tiles, int block)
{
    d->nproc = nproc;
    d->prow = 1;
    for (int r = 1; (long)r * r <= nproc; r++)
        if (nproc % r == 0)
            d->prow = r;
    d->pcol = nproc / d->prow;
    d->tiles = tiles ? tiles : 2 * d->pcol;
    d->block = block;
}

/* Tile rows [*r0, *r1) and columns [*c0, *c1) of rank r. */
static void dist_range(const struct dist *d, int r, int *r0, int *r1, int *c0, int *c1)
{
    int p = r / d->pcol, q = r % d->pcol;
    *r0 = span_lo(d->tiles, d->prow, p);
    *r1 = span_lo(d->tiles, d->prow, p + 1);
    *c0 = span_lo(d->tiles, d->pcol, q);
    *c1 = span_lo(d->tiles, d->pcol, q + 1);
}

static size_t dist_local_bytes(const struct dist *d, int r)
{
    int r0, r1, c0, c1;
    dist_range(d, r, &r0, &r1, &c0, &c1);
    return (size_t)(r1 - r0) * (size_t)(c1 - c0) * (size_t)d->block * (size_t)d->block * sizeof(double);
}

static struct patch tile_at(const struct dist *d, void **bases, int i, int j)
{
    int owner = span_owner(d->tiles, d->prow, i) * d->pcol + span_owner(d->tiles, d->pcol, j);
    int r0, r1, c0, c1;
    dist_range(d, owner, &r0, &r1, &c0, &c1);
    int ld = (c1 - c0) * d->block;
    size_t off = (size_t)(i - r0) * (size_t)d->block * (size_t)ld + (size_t)(j - c0) * (size_t)d->block;
    return (struct patch){owner, (double *)bases[owner] + off, ld};
}

/* ---- data and compute ---- */

/* D's element at global (row, col): a small integer in -4..4, varied
 * enough that a misplaced row or column changes a product. */
static double d_value(long row, long col)
{
    return (double)((row * 31 + col * 17 + (row * col) % 7) % 9 - 4);
}

static void d_tile(const struct dist *d, int i, int j, double *out)
{
    int b = d->block;
    for (int r = 0; r < b; r++)
        for (int c = 0; c < b; c++)
            out[r * b + c] = d_value((long)i * b + r, (long)j * b + c);
}

/* c = a * b for b x b row-major tiles; i-k-j order keeps the inner loop
 * on contiguous rows. */
static void dgemm(const double *a, const double *bm, double *c, int b)
{
    memset(c, 0, (size_t)b * (size_t)b * sizeof(double));
    for (int i = 0; i < b; i++)
        for (int k = 0; k < b; k++) {
            double aik = a[i * b + k];
            for (int j = 0; j < b; j++)
                c[i * b + j] += aik * bm[k * b + j];
        }
}

/* The task's compute phase: the dgemm once, then again until compute_us
 * have passed, standing in for the quadrature work between a task's gets
 * and its accumulate. Repeating overwrites c with the same product. */
static void compute(const double *a, const double *bm, double *c, int b, long compute_us)
{
    int64_t end = bench_now_ns() + (int64_t)compute_us * 1000;
    do
        dgemm(a, bm, c, b);
    while (compute_us > 0 && bench_now_ns() < end);
}

/* Task t -> tile triple; k varies slowest so that consecutive tasks
 * accumulate into different F tiles. */
static void task_triple(const struct dist *d, long t, int *i, int *j, int *k)
{
    long tt = (long)d->tiles * d->tiles;
    long u = t % (tt * d->tiles);
    *i = (int)(u % d->tiles);
    *j = (int)(u / d->tiles % d->tiles);
    *k = (int)(u / tt);
}

/* How many of the tasks 0..tasks-1 map to triple (i, j, k). */
static long triple_count(const struct dist *d, long tasks, int i, int j, int k)
{
    long n3 = (long)d->tiles * d->tiles * d->tiles;
    long u = (long)k * d->tiles * d->tiles + (long)j * d->tiles + i;
    return tasks / n3 + (u < tasks % n3 ? 1 : 0);
}

/* ---- communication: ga_get and ga_acc of one tile ---- */

static void ga_get_tile(const struct dist *d, void **D, int i, int j, double *buf, struct counts *n)
{
    struct patch p = tile_at(d, D, i, j);
    int b = d->block;
    int src_stride[1] = {p.ld * (int)sizeof(double)};
    int dst_stride[1] = {b * (int)sizeof(double)};
    int count[2] = {b * (int)sizeof(double), b};
    ARMCI_GetS(p.addr, src_stride, buf, dst_stride, count, 1, p.owner);
    n->gets++;
    n->bytes += (long)b * b * (long)sizeof(double);
    n->offnode += !ARMCI_Same_node(p.owner);
}

static void ga_acc_tile(const struct dist *d, void **F, int i, int j, double *buf, struct counts *n)
{
    struct patch p = tile_at(d, F, i, j);
    int b = d->block;
    double one = 1.0;
    int src_stride[1] = {b * (int)sizeof(double)};
    int dst_stride[1] = {p.ld * (int)sizeof(double)};
    int count[2] = {b * (int)sizeof(double), b};
    ARMCI_AccS(ARMCI_ACC_DBL, &one, buf, src_stride, p.addr, dst_stride, count, 1, p.owner);
    n->accs++;
    n->bytes += (long)b * b * (long)sizeof(double);
    n->offnode += !ARMCI_Same_node(p.owner);
}

/* nxtval: the next task id from the counter on rank 0. */
static long next_task(int *counter_at_0, struct counts *n)
{
    int t = 0;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &t, counter_at_0, 1, 0);
    n->rmws++;
    n->bytes += (long)sizeof(int);
    n->offnode += !ARMCI_Same_node(0);
    return t;
}

/* A progress line at each quarter of the tasks, from the rank that draws
 * the quarter's first task. */
static void progress(const struct opts *o, long t, int64_t t0)
{
    if (o->quiet || o->tasks < 4)
        return;
    for (int q = 1; q < 4; q++)
        if (t == o->tasks * q / 4)
            fprintf(stderr, PROG ": %d%% of %ld tasks drawn after %.2f s\n", 25 * q, o->tasks,
                    (double)(bench_now_ns() - t0) / 1e9);
}

static void run_tasks(const struct opts *o, const struct dist *d, void **D, void **F, int *counter_at_0,
                      struct counts *n)
{
    size_t tile_bytes = (size_t)d->block * (size_t)d->block * sizeof(double);
    double *a = malloc(tile_bytes), *bm = malloc(tile_bytes), *c = malloc(tile_bytes);
    if (!a || !bm || !c)
        ARMCI_Error(PROG ": out of memory for tile buffers", 1);
    int64_t t0 = bench_now_ns();
    for (long t = next_task(counter_at_0, n); t < o->tasks; t = next_task(counter_at_0, n)) {
        progress(o, t, t0);
        int i, j, k;
        task_triple(d, t, &i, &j, &k);
        ga_get_tile(d, D, i, k, a, n);
        ga_get_tile(d, D, k, j, bm, n);
        compute(a, bm, c, d->block, o->compute_us);
        ga_acc_tile(d, F, i, j, c, n);
        n->tasks++;
    }
    free(a);
    free(bm);
    free(c);
}

/* ---- set-up and verification of this rank's part ---- */

static void fill_local(const struct dist *d, int me, void **D, void **F)
{
    int r0, r1, c0, c1;
    dist_range(d, me, &r0, &r1, &c0, &c1);
    int b = d->block, ld = (c1 - c0) * b;
    double *dl = D[me], *fl = F[me];
    for (long r = 0; r < (long)(r1 - r0) * b; r++)
        for (long c = 0; c < ld; c++) {
            dl[r * ld + c] = d_value((long)r0 * b + r, (long)c0 * b + c);
            fl[r * ld + c] = 0.0;
        }
}

/* Elements of local tile (i, j) of array X that differ from want; the
 * first few are described on stderr. */
static long compare_tile(const struct dist *d, void **X, const char *name, int i, int j, const double *want,
                         long *reported)
{
    struct patch p = tile_at(d, X, i, j);
    int b = d->block;
    long bad = 0;
    for (int r = 0; r < b; r++)
        for (int c = 0; c < b; c++) {
            double got = p.addr[(long)r * p.ld + c];
            if (got == want[r * b + c])
                continue;
            if (bad++ == 0 && (*reported)++ < MAX_REPORTED_MISMATCHES)
                fprintf(stderr, PROG ": rank %d: %s tile (%d,%d) element (%d,%d) is %.17g, expected %.17g\n",
                        p.owner, name, i, j, r, c, got, want[r * b + c]);
        }
    return bad;
}

/* F(i,j) = sum over k of (tasks on triple (i,j,k)) x D(i,k) D(k,j). */
static void expected_f(const struct dist *d, long tasks, int i, int j, double *want, double *a, double *bm,
                       double *c)
{
    size_t nb = (size_t)d->block * (size_t)d->block;
    memset(want, 0, nb * sizeof(double));
    for (int k = 0; k < d->tiles; k++) {
        long cnt = triple_count(d, tasks, i, j, k);
        if (!cnt)
            continue;
        d_tile(d, i, k, a);
        d_tile(d, k, j, bm);
        dgemm(a, bm, c, d->block);
        for (size_t e = 0; e < nb; e++)
            want[e] += (double)cnt * c[e];
    }
}

/* Mismatching elements of this rank's D and F tiles. */
static long verify_local(const struct dist *d, long tasks, int me, void **D, void **F)
{
    size_t tile_bytes = (size_t)d->block * (size_t)d->block * sizeof(double);
    double *want = malloc(tile_bytes), *a = malloc(tile_bytes), *bm = malloc(tile_bytes);
    double *c = malloc(tile_bytes);
    if (!want || !a || !bm || !c)
        ARMCI_Error(PROG ": out of memory for verification", 1);
    int r0, r1, c0, c1;
    dist_range(d, me, &r0, &r1, &c0, &c1);
    long bad = 0, reported = 0;
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++) {
            d_tile(d, i, j, want); /* gets must not have changed D */
            bad += compare_tile(d, D, "D", i, j, want, &reported);
            expected_f(d, tasks, i, j, want, a, bm, c);
            bad += compare_tile(d, F, "F", i, j, want, &reported);
        }
    free(want);
    free(a);
    free(bm);
    free(c);
    return bad;
}

/* ---- report ---- */

/* The ARMCI_* variables in effect, space-separated ("defaults" when none). */
static void armci_env(char *buf, size_t len)
{
    extern char **environ;
    size_t used = 0;
    buf[0] = 0;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "ARMCI_", 6) != 0)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", *e);
        if (w < 0 || (size_t)w >= len - used)
            break; /* full: the line stays readable, the rest is dropped */
        used += (size_t)w;
    }
    if (!buf[0])
        snprintf(buf, len, "defaults");
}

struct result {
    int nproc, nodes;
    double wall;
    struct counts sum;
    long tasks_min, tasks_max;
    long mismatches;
    int counter, counter_ok;
    int pass; /* no mismatch and the counter is right */
};

static void print_report(const struct opts *o, const struct dist *d, const struct result *r, const char *env)
{
    int b = d->block;
    long ops = r->sum.gets + r->sum.accs + r->sum.rmws;
    printf(PROG ": %d rank%s on %d node%s, D and F %dx%d tiles of %dx%d doubles (%d-byte patches), "
           "process grid %dx%d\n",
           r->nproc, r->nproc == 1 ? "" : "s", r->nodes, r->nodes == 1 ? "" : "s", d->tiles, d->tiles, b, b,
           b * b * (int)sizeof(double), d->prow, d->pcol);
    printf("time     %.3f s for %ld tasks: %.0f tasks/s, %.1f us/task (compute %ld us/task; "
           "tasks per rank %ld..%ld)\n",
           r->wall, o->tasks, (double)o->tasks / r->wall, r->wall * 1e6 / (double)o->tasks, o->compute_us,
           r->tasks_min, r->tasks_max);
    double offnode = ops ? 100.0 * (double)r->sum.offnode / (double)ops : 0.0;
    printf("ops      %ld gets, %ld accs, %ld rmws; %.2f MB moved, %.0f%% of ops off-node\n", r->sum.gets,
           r->sum.accs, r->sum.rmws, (double)r->sum.bytes / 1e6, offnode);
    printf("options  %s\n", env);
    if (r->pass)
        printf("verify   PASS: %d F tiles exact, D unchanged, task counter %d = tasks + ranks\n",
               d->tiles * d->tiles, r->counter);
    else
        printf("verify   FAIL: %ld mismatching elements of D/F, task counter %d (expected %ld)\n", r->mismatches,
               r->counter, o->tasks + r->nproc);
}

static int write_csv(const struct opts *o, const struct dist *d, const struct result *r, const char *env, int argc,
                     char **argv)
{
    FILE *f = fopen(o->csv, "w");
    if (!f) {
        perror(o->csv);
        return -1;
    }
    bench_header(f, argc, argv);
    fprintf(f, "ranks,nodes,tasks,block,tiles,compute_us,wall_s,tasks_per_s,gets,accs,rmws,bytes,offnode_ops,"
               "tasks_min,tasks_max,verify,options\n");
    fprintf(f, "%d,%d,%ld,%d,%d,%ld,%.6f,%.1f,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%s,%s\n", r->nproc, r->nodes, o->tasks,
            d->block, d->tiles, o->compute_us, r->wall, (double)o->tasks / r->wall, r->sum.gets, r->sum.accs,
            r->sum.rmws, r->sum.bytes, r->sum.offnode, r->tasks_min, r->tasks_max,
            r->pass ? "PASS" : "FAIL", env);
    return fclose(f) == 0 ? 0 : -1;
}

/* Sums, minima and maxima over ranks; every rank ends with the totals. */
static void reduce_counts(const struct counts *mine, long mismatches, struct result *r)
{
    long v[7] = {mine->tasks, mine->gets, mine->accs, mine->rmws, mine->bytes, mine->offnode, mismatches};
    armci_msg_lgop(v, 7, "+");
    r->sum = (struct counts){v[0], v[1], v[2], v[3], v[4], v[5]};
    r->mismatches = v[6];
    long lo = mine->tasks, hi = mine->tasks;
    armci_msg_lgop(&lo, 1, "min");
    armci_msg_lgop(&hi, 1, "max");
    r->tasks_min = lo;
    r->tasks_max = hi;
}

int main(int argc, char **argv)
{
    struct opts o;
    parse_options(argc, argv, &o);
    ARMCI_Init();
    int me = armci_msg_me(), nproc = armci_msg_nproc();
    struct dist d;
    dist_init(&d, nproc, o.tiles, o.block);
    if (d.tiles < d.pcol) {
        if (me == 0)
            fprintf(stderr, PROG ": --tiles %d is less than the process grid's %dx%d: some ranks would own "
                    "nothing\n", d.tiles, d.prow, d.pcol);
        ARMCI_Finalize();
        return 2;
    }

    void **D = malloc(sizeof(void *) * (size_t)nproc), **F = malloc(sizeof(void *) * (size_t)nproc),
         **ctr = malloc(sizeof(void *) * (size_t)nproc);
    if (!D || !F || !ctr)
        ARMCI_Error(PROG ": out of memory", 1);
    size_t local = dist_local_bytes(&d, me);
    ARMCI_Malloc(D, (armci_size_t)local);
    ARMCI_Malloc(F, (armci_size_t)local);
    ARMCI_Malloc(ctr, sizeof(long)); /* only rank 0's is used */
    fill_local(&d, me, D, F);
    *(int *)ctr[me] = 0;
    ARMCI_Barrier();

    struct counts mine = {0};
    int64_t t0 = bench_now_ns();
    run_tasks(&o, &d, D, F, ctr[0], &mine);
    ARMCI_AllFence(); /* every accumulate complete at its target ... */
    ARMCI_Barrier();  /* ... on every rank, before anyone reads F */
    struct result r = {.nproc = nproc, .nodes = armci_domain_count(ARMCI_DOMAIN_SMP),
                       .wall = (double)(bench_now_ns() - t0) / 1e9};

    long bad = verify_local(&d, o.tasks, me, D, F);
    reduce_counts(&mine, bad, &r);
    r.counter = me == 0 ? *(int *)ctr[0] : 0;
    r.counter_ok = (long)r.counter == o.tasks + nproc;
    armci_msg_igop(&r.counter_ok, 1, "+"); /* rank 0's verdict for everyone */
    r.pass = r.mismatches == 0 && r.counter_ok;

    int status = r.pass ? 0 : 1;
    if (me == 0) {
        char env[1024];
        armci_env(env, sizeof env);
        print_report(&o, &d, &r, env);
        if (o.csv && write_csv(&o, &d, &r, env, argc, argv) != 0) {
            fprintf(stderr, PROG ": cannot write %s\n", o.csv);
            status = 1;
        }
        fflush(stdout);
    }
    ARMCI_Barrier();
    ARMCI_Free(ctr[me]);
    ARMCI_Free(F[me]);
    ARMCI_Free(D[me]);
    free(ctr);
    free(F);
    free(D);
    ARMCI_Finalize();
    return status;
}
