/* ARMCI put / get / accumulate latency and bandwidth, contiguous and
 * strided (a square-ish 2-D patch of doubles), rank 0 -> rank 1, as Global
 * Arrays' perf test measures them; and, in the same job, raw Portals
 * PtlPut+ACK and PtlGet between the same two buffers as the baseline.
 *   emunic-run -N 2 -n 1 --nic portals -- armci_perf [options]
 *
 * Latency: one blocking operation, then the next; each one timed alone.
 * ARMCI_Put and ARMCI_Acc return at local completion (for 8 bytes at once:
 * the payload travels in the command), so a put's round trip is measured
 * as ARMCI_Put + ARMCI_Fence (put_fenced), the fair partner of PtlPut with
 * an ACK; both are reported. Bandwidth: windows of non-blocking operations
 * on implicit handles, ARMCI_WaitAll after each window, one ARMCI_Fence at
 * the end for puts and accumulates (the bytes have landed).
 *
 * The raw baseline runs on a second Portals NI of the same processes
 * (non-matching, next to ARMCI's matching one) whose list entry covers rank
 * 1's ARMCI_Malloc block, so both move the same bytes between the same
 * memories, operation by operation interleaved with ARMCI's contiguous
 * put/get cases. Cases that may use a data server (accumulates, strided
 * transfers) are timed in a block of their own (see rdma_only). */
#include <armci.h>
#include <getopt.h>
#include <portals4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci_bench.h"
#include "bench_util.h"

enum op { OP_PUT, OP_PUT_FENCED, OP_GET, OP_ACC, OP_ACC_FENCED, OP_PTL_PUT, OP_PTL_GET, NOPS };
static const char *const op_names[NOPS] = {"put", "put_fenced", "get", "acc", "acc_fenced",
                                           "ptl_put_ack", "ptl_get"};
/* the raw operation an ARMCI round trip is compared with (-1: none) */
static const int op_base[NOPS] = {-1, OP_PTL_PUT, OP_PTL_GET, -1, -1, -1, -1};
/* operations whose bandwidth is measured (the fenced and raw ones: no) */
static const int op_bw[NOPS] = {1, 0, 1, 1, 0, 0, 0};

enum shape { SH_CONTIG, SH_STRIDED, NSHAPES };
static const char *const shape_names[NSHAPES] = {"contig", "strided"};

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long iters, rounds, window, trials;
    uint64_t volume;
    int same_node, raw, bw;
    int ops[NOPS];
    int shapes[NSHAPES];
    const char *memdev;
};

/* One transfer's shape: count[0] bytes per row, count[1] rows, the same
 * row pitch (stride) at both ends. Contiguous: one row. */
struct patch {
    int count[2];
    int stride[1];
    int bytes;
};

static char *loc;     /* rank 0's source / destination */
static char *rem;     /* rank 1's block (its address in rank 1) */
static int peer = 1;
static double one = 1.0;

/* ---- raw Portals baseline ---- */

#define RAW_PT 7
static ptl_handle_ni_t raw_ni;
static ptl_handle_md_t raw_md;
static ptl_handle_eq_t raw_eq;
static char *raw_le_base; /* rank 1's block: offsets are relative to it */

static int ptl_ok(int rc, const char *what)
{
    if (rc != PTL_OK)
        fprintf(stderr, "armci_perf: raw baseline: %s failed (%d)\n", what, rc);
    return rc == PTL_OK;
}

/* Every rank: a non-matching NI, a list entry over its own ARMCI block, an
 * MD over the address space whose ACK and REPLY events go to raw_eq (SEND
 * events off: PtlPut+ACK waits for the ACK only, as ARMCI's fence does). */
static int raw_setup(char *mine, size_t len)
{
    ptl_pt_index_t pt;
    ptl_handle_le_t leh;
    ptl_le_t le = {.start = mine, .length = len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_SUCCESS_DISABLE};
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = PTL_MD_EVENT_SEND_DISABLE,
                   .ct_handle = PTL_CT_NONE};
    if (!ptl_ok(PtlInit(), "PtlInit") ||
        !ptl_ok(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL,
                          NULL, &raw_ni), "PtlNIInit") ||
        !ptl_ok(PtlEQAlloc(raw_ni, 64, &raw_eq), "PtlEQAlloc") ||
        !ptl_ok(PtlPTAlloc(raw_ni, 0, PTL_EQ_NONE, RAW_PT, &pt), "PtlPTAlloc") ||
        !ptl_ok(PtlLEAppend(raw_ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh), "PtlLEAppend"))
        return -1;
    md.eq_handle = raw_eq;
    return ptl_ok(PtlMDBind(raw_ni, &md, &raw_md), "PtlMDBind") ? 0 : -1;
}

static void raw_wait(ptl_event_kind_t want)
{
    ptl_event_t ev;
    int rc = PtlEQWait(raw_eq, &ev);
    if (rc != PTL_OK || ev.type != want || ev.ni_fail_type != PTL_NI_OK) {
        fprintf(stderr, "armci_perf: raw baseline: event %d (want %d), fail type %d, rc %d\n",
                ev.type, want, ev.ni_fail_type, rc);
        exit(1);
    }
}

static void raw_op(int get, size_t len)
{
    ptl_process_t p = {.rank = (ptl_rank_t)peer};
    ptl_size_t off = (ptl_size_t)(rem - raw_le_base);
    ptl_size_t l = (ptl_size_t)(uintptr_t)loc;
    int rc = get ? PtlGet(raw_md, l, len, p, RAW_PT, 0, off, NULL)
                 : PtlPut(raw_md, l, len, PTL_ACK_REQ, p, RAW_PT, 0, off, NULL, 0);
    if (rc != PTL_OK) {
        fprintf(stderr, "armci_perf: raw baseline: %s failed (%d)\n", get ? "PtlGet" : "PtlPut", rc);
        exit(1);
    }
    raw_wait(get ? PTL_EVENT_REPLY : PTL_EVENT_ACK);
}

static void raw_teardown(void)
{
    PtlNIFini(raw_ni); /* frees its EQ, MD, PT and LE */
    PtlFini();
}

/* ---- the ARMCI operations ---- */

/* A square-ish patch: rows a power of two near sqrt(doubles), so the row
 * length runs from 8 B (8 B transfer) to 4 KiB (1 MiB); the pitch is two
 * rows, so neither end is contiguous. */
static struct patch patch_of(int shape, uint64_t size)
{
    struct patch p = {{(int)size, 1}, {(int)size}, (int)size};
    if (shape == SH_CONTIG)
        return p;
    uint64_t n = size / 8, rows = 1;
    while ((rows * 2) * (rows * 2) <= n && n % (rows * 2) == 0)
        rows *= 2;
    p.count[0] = (int)(size / rows);
    p.count[1] = (int)rows;
    p.stride[0] = 2 * p.count[0];
    return p;
}

/* One blocking operation (op's definition of complete). The patch is not
 * const only because the ARMCI prototypes take int[], not const int[]. */
static void blocking_op(int op, int shape, struct patch *p)
{
    int s = shape == SH_STRIDED;
    switch (op) {
    case OP_PUT:
    case OP_PUT_FENCED:
        if (s)
            ARMCI_PutS(loc, p->stride, rem, p->stride, p->count, 1, peer);
        else
            ARMCI_Put(loc, rem, p->bytes, peer);
        if (op == OP_PUT_FENCED)
            ARMCI_Fence(peer);
        break;
    case OP_GET:
        if (s)
            ARMCI_GetS(rem, p->stride, loc, p->stride, p->count, 1, peer);
        else
            ARMCI_Get(rem, loc, p->bytes, peer);
        break;
    case OP_ACC:
    case OP_ACC_FENCED:
        if (s)
            ARMCI_AccS(ARMCI_ACC_DBL, &one, loc, p->stride, rem, p->stride, p->count, 1, peer);
        else
            ARMCI_Acc(ARMCI_ACC_DBL, &one, loc, rem, p->bytes, peer);
        if (op == OP_ACC_FENCED)
            ARMCI_Fence(peer);
        break;
    case OP_PTL_PUT:
    case OP_PTL_GET:
        raw_op(op == OP_PTL_GET, (size_t)p->bytes);
        break;
    }
}

/* One non-blocking operation on the implicit handle of peer. */
static void nb_op(int op, int shape, struct patch *p)
{
    int s = shape == SH_STRIDED;
    if (op == OP_PUT && s)
        ARMCI_NbPutS(loc, p->stride, rem, p->stride, p->count, 1, peer, NULL);
    else if (op == OP_PUT)
        ARMCI_NbPut(loc, rem, p->bytes, peer, NULL);
    else if (op == OP_GET && s)
        ARMCI_NbGetS(rem, p->stride, loc, p->stride, p->count, 1, peer, NULL);
    else if (op == OP_GET)
        ARMCI_NbGet(rem, loc, p->bytes, peer, NULL);
    else if (s)
        ARMCI_NbAccS(ARMCI_ACC_DBL, &one, loc, p->stride, rem, p->stride, p->count, 1, peer, NULL);
    else
        ARMCI_NbAcc(ARMCI_ACC_DBL, &one, loc, rem, p->bytes, peer, NULL);
}

/* ---- correctness, once, before timing anything ---- */

static void fail_check(const char *what, int shape, int bytes, long i, double got, double want)
{
    fprintf(stderr, "armci_perf: WRONG RESULT: %s %s %d B: element %ld is %g, expected %g\n",
            what, shape_names[shape], bytes, i, got, want);
    exit(1);
}

/* Put a pattern, get it back into a cleared buffer; accumulate it twice
 * onto itself and get again: every patch element must then read 3x. */
static void fill_pattern(double *l, long rows, long cols, long pitch, double mult)
{
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++)
            l[r * pitch + c] = mult * (double)(r * 1000 + c + 1);
}

static void verify(int shape, uint64_t size)
{
    struct patch p = patch_of(shape, size);
    long rows = p.count[1], cols = p.count[0] / 8, pitch = p.stride[0] / 8;
    double *l = (double *)loc;
    fill_pattern(l, rows, cols, pitch, 1.0);
    blocking_op(OP_PUT_FENCED, shape, &p);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            blocking_op(OP_ACC, shape, &p);
            blocking_op(OP_ACC_FENCED, shape, &p);
        }
        fill_pattern(l, rows, cols, pitch, 0.0);
        blocking_op(OP_GET, shape, &p);
        for (long r = 0; r < rows; r++)
            for (long c = 0; c < cols; c++) {
                double want = (pass ? 3.0 : 1.0) * (double)(r * 1000 + c + 1);
                if (l[r * pitch + c] != want)
                    fail_check(pass ? "put+acc+acc+get" : "put+get", shape, p.bytes, r * pitch + c,
                               l[r * pitch + c], want);
            }
        fill_pattern(l, rows, cols, pitch, 1.0); /* the source of the next pass */
    }
}

/* ---- measurement ---- */

struct kase {
    int op, shape;
    struct patch p;
    double *lat; /* iters samples */
    long n;
    double bw[64]; /* one per trial, MB/s */
};

static long lat_iters(const struct opts *o, uint64_t size)
{
    /* full count up to 4 KiB, then a constant volume, at least 40 */
    long n = size <= 4096 ? o->iters : (long)((uint64_t)o->iters * 4096 / size);
    return n < 40 ? 40 : n;
}

/* Which cases share a latency block: contiguous put/get and the raw
 * Portals operations (RDMA only) apart from everything that may go
 * through a data server (accumulates, strided transfers). A server that
 * just served a request keeps polling for a while; interleaved with it,
 * every RDMA round trip on a 2-core host pays for that CPU time, and the
 * ARMCI-vs-raw comparison would measure the neighbours. */
static int rdma_only(const struct kase *k)
{
    return k->shape == SH_CONTIG && k->op != OP_ACC && k->op != OP_ACC_FENCED;
}

/* Latency of the cases of one block at one size: rounds of a chunk of
 * each case in turn, so that they all see the same host conditions (by
 * default a chunk is one operation, as in portals_lat: round trips here
 * are quantised by context switches, and interleaving gives every case
 * the same mix); a put or accumulate chunk measured at local completion
 * is fenced (untimed) before the next case starts. */
static void measure_block(const struct opts *o, struct kase *k, int nk, long iters, int rdma)
{
    long rounds = o->rounds ? o->rounds : iters;
    long chunk = (iters + rounds - 1) / rounds;
    for (int c = 0; c < nk; c++) {
        if (rdma_only(&k[c]) != rdma)
            continue;
        k[c].n = 0;
        for (int w = 0; w < 3; w++) /* warm-up: first-touch, credits, grants */
            blocking_op(k[c].op, k[c].shape, &k[c].p);
        ARMCI_Fence(peer);
    }
    for (long r = 0; r < rounds; r++)
        for (int c = 0; c < nk; c++) {
            if (rdma_only(&k[c]) != rdma)
                continue;
            for (long i = 0; i < chunk && k[c].n < iters; i++) {
                int64_t t0 = bench_now_ns();
                blocking_op(k[c].op, k[c].shape, &k[c].p);
                k[c].lat[k[c].n++] = (double)(bench_now_ns() - t0) / 1000.0;
            }
            if (k[c].op == OP_PUT || k[c].op == OP_ACC)
                ARMCI_Fence(peer);
        }
}

static void measure_latency(const struct opts *o, struct kase *k, int nk, long iters)
{
    measure_block(o, k, nk, iters, 1);
    measure_block(o, k, nk, iters, 0);
}

/* One bandwidth trial: nops operations in windows, MB/s. */
static double bw_trial(const struct opts *o, struct kase *k, long nops)
{
    int64_t t0 = bench_now_ns();
    for (long i = 0; i < nops; i++) {
        nb_op(k->op, k->shape, &k->p);
        if ((i + 1) % o->window == 0)
            ARMCI_WaitAll();
    }
    ARMCI_WaitAll();
    if (k->op != OP_GET)
        ARMCI_Fence(peer);
    double s = (double)(bench_now_ns() - t0) / 1e9;
    return (double)k->p.bytes * (double)nops / s / 1e6;
}

static long bw_ops(const struct opts *o, uint64_t size)
{
    uint64_t n = o->volume / size;
    uint64_t lo = 4 * (uint64_t)o->window, hi = 256 * (uint64_t)o->window;
    n = n < lo ? lo : n > hi ? hi : n;
    return (long)((n + (uint64_t)o->window - 1) / (uint64_t)o->window * (uint64_t)o->window);
}

static void measure_bandwidth(const struct opts *o, struct kase *k, int nk, uint64_t size)
{
    long nops = bw_ops(o, size);
    for (long t = 0; t < o->trials; t++)
        for (int c = 0; c < nk; c++)
            if (op_bw[k[c].op])
                k[c].bw[t] = bw_trial(o, &k[c], nops);
}

static double median_of_bw(const struct opts *o, struct kase *k)
{
    double v[64];
    memcpy(v, k->bw, sizeof v);
    return bench_median(v, (size_t)o->trials);
}

/* Rows for one size, in case order (raw first); ratios to the contiguous
 * raw partner of the same size. */
static void report(const struct opts *o, struct kase *k, int nk, uint64_t size, long iters)
{
    struct bench_stats st[2 * NOPS];
    double med[NSHAPES][NOPS] = {{0}};
    for (int c = 0; c < nk; c++) {
        bench_stats_of(k[c].lat, (size_t)k[c].n, &st[c]);
        med[k[c].shape][k[c].op] = st[c].median;
    }
    char sz[32];
    for (int c = 0; c < nk; c++) {
        int op = k[c].op, b = op_base[op];
        printf("%s,%s,%llu,%ld,%.3f,%.3f,%.3f,", op_names[op], shape_names[k[c].shape],
               (unsigned long long)size, iters, st[c].median, st[c].p10, st[c].p90);
        if (o->bw && op_bw[op])
            printf("%.1f,%ld,", median_of_bw(o, &k[c]), bw_ops(o, size));
        else
            printf(",,");
        /* the raw partner is contiguous; a strided op is compared with the
         * raw transfer of the same bytes too (what the patch costs) */
        if (b >= 0 && med[SH_CONTIG][b] > 0)
            printf("%s,%.3f\n", op_names[b], st[c].median / med[SH_CONTIG][b]);
        else
            printf(",\n");
    }
    fflush(stdout);
    fprintf(stderr, "armci_perf: %6s", bench_fmt_size(size, sz, sizeof sz));
    for (int c = 0; c < nk; c++)
        if (k[c].op == OP_PUT_FENCED || k[c].op == OP_GET || k[c].op == OP_ACC_FENCED ||
            k[c].op >= OP_PTL_PUT)
            fprintf(stderr, "  %s%s %.2f", op_names[k[c].op], k[c].shape == SH_STRIDED ? "/s" : "",
                    st[c].median);
    fprintf(stderr, " us\n");
}

/* The cases of one size, in a fixed order: raw first, then ARMCI. */
static int cases_for(const struct opts *o, uint64_t size, struct kase *k, long iters)
{
    static const int order[NOPS] = {OP_PTL_PUT, OP_PTL_GET, OP_PUT, OP_PUT_FENCED, OP_GET, OP_ACC,
                                    OP_ACC_FENCED};
    int nk = 0;
    for (int sh = 0; sh < NSHAPES; sh++) {
        if (!o->shapes[sh] || (sh == SH_STRIDED && size % 8))
            continue; /* a patch of doubles */
        for (int i = 0; i < NOPS; i++) {
            int op = order[i];
            if (!o->ops[op] || (op >= OP_PTL_PUT && (sh != SH_CONTIG || !o->raw)))
                continue;
            if ((op == OP_ACC || op == OP_ACC_FENCED) && size % 8)
                continue;
            k[nk] = (struct kase){.op = op, .shape = sh, .p = patch_of(sh, size)};
            k[nk].lat = malloc((size_t)iters * sizeof(double));
            if (!k[nk].lat) {
                fprintf(stderr, "armci_perf: out of memory\n");
                exit(1);
            }
            nk++;
        }
    }
    return nk;
}

static void run_size(const struct opts *o, uint64_t size)
{
    struct kase k[2 * NOPS];
    long iters = lat_iters(o, size);
    int nk = cases_for(o, size, k, iters);
    measure_latency(o, k, nk, iters);
    if (o->bw)
        measure_bandwidth(o, k, nk, size);
    report(o, k, nk, size, iters);
    for (int c = 0; c < nk; c++)
        free(k[c].lat);
}

/* ---- options ---- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic portals -- armci_perf [options]\n"
            "ARMCI_Put/Get/Acc (doubles) latency and bandwidth, contiguous and strided (a\n"
            "2-D patch, rows of 8 B..4 KiB, pitch two rows), rank 0 -> rank 1, with raw\n"
            "Portals PtlPut+ACK and PtlGet between the same buffers in the same job.\n"
            "CSV on stdout (op,shape,size,iters,lat_us,lat_p10_us,lat_p90_us,bw_MBps,\n"
            "bw_ops,baseline,ratio), progress on stderr. Ops: put (local completion),\n"
            "put_fenced (ARMCI_Put+ARMCI_Fence: remote completion; compared with\n"
            "ptl_put_ack), get (compared with ptl_get), acc, acc_fenced.\n"
            "  --sizes LIST     sizes (default 8:1M, powers of two); see bench_parse_sizes\n"
            "  --iters N        latency samples per case up to 4 KiB, fewer above (1000)\n"
            "  --rounds R       cases take turns in R chunks (default: one op per turn)\n"
            "  --window W       non-blocking operations per ARMCI_WaitAll (16)\n"
            "  --volume BYTES   bytes per bandwidth trial, 4..256 windows (16M)\n"
            "  --trials T       bandwidth trials, median reported (5, at most 64)\n"
            "  --ops LIST       of put,put_fenced,get,acc,acc_fenced,ptl_put_ack,ptl_get (all)\n"
            "  --shapes LIST    contig,strided (both)\n"
            "  --memdev NAME    ARMCI_Malloc_memdev device: heap (default) or private\n"
            "  --no-raw         skip the raw Portals baseline\n"
            "  --no-bw          latency only\n"
            "  --same-node      rank 1 is on rank 0's node (run as -N 1 -n 2); by default\n"
            "                   it must be on another node (-N 2 -n 1)\n"
            "  -h, --help       this text\n");
}

static int parse_list(const char *arg, const char *const *names, int n, int *set)
{
    char *copy = strdup(arg), *save = NULL;
    int ok = copy != NULL;
    for (int i = 0; i < n; i++)
        set[i] = 0;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        int hit = 0;
        for (int i = 0; i < n; i++)
            if (!strcmp(t, names[i]))
                set[i] = hit = 1;
        ok &= hit;
    }
    free(copy);
    return ok ? 0 : -1;
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 's'},  {"iters", required_argument, 0, 'i'},
        {"rounds", required_argument, 0, 'r'}, {"window", required_argument, 0, 'w'},
        {"volume", required_argument, 0, 'v'}, {"trials", required_argument, 0, 't'},
        {"ops", required_argument, 0, 'o'},    {"shapes", required_argument, 0, 'S'},
        {"memdev", required_argument, 0, 'm'}, {"no-raw", no_argument, 0, 'R'},
        {"no-bw", no_argument, 0, 'B'},        {"same-node", no_argument, 0, 'n'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *sizes = "8:1M";
    *o = (struct opts){.iters = 1000, .rounds = 0, .window = 16, .trials = 5, .volume = 16u << 20,
                       .raw = 1, .bw = 1, .memdev = "heap"};
    for (int i = 0; i < NOPS; i++)
        o->ops[i] = 1;
    o->shapes[SH_CONTIG] = o->shapes[SH_STRIDED] = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': sizes = optarg; break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 'r': o->rounds = bench_parse_long("--rounds", optarg, 1, 10000000); break;
        case 'w': o->window = bench_parse_long("--window", optarg, 1, 4096); break;
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 64); break;
        case 'v':
            if (bench_parse_size(optarg, &o->volume) || o->volume == 0) {
                fprintf(stderr, "armci_perf: --volume: cannot parse '%s'\n", optarg);
                exit(2);
            }
            break;
        case 'o':
            if (parse_list(optarg, op_names, NOPS, o->ops)) {
                fprintf(stderr, "armci_perf: --ops: unknown operation in '%s'\n", optarg);
                exit(2);
            }
            break;
        case 'S':
            if (parse_list(optarg, shape_names, NSHAPES, o->shapes)) {
                fprintf(stderr, "armci_perf: --shapes: unknown shape in '%s'\n", optarg);
                exit(2);
            }
            break;
        case 'm':
            if (strcmp(optarg, "heap") && strcmp(optarg, "private")) {
                fprintf(stderr, "armci_perf: --memdev: '%s' is not heap or private\n", optarg);
                exit(2);
            }
            o->memdev = optarg;
            break;
        case 'R': o->raw = 0; break;
        case 'B': o->bw = 0; break;
        case 'n': o->same_node = 1; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "armci_perf: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        exit(2);
    }
    if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes)) {
        fprintf(stderr, "armci_perf: --sizes: cannot parse '%s'\n", sizes);
        exit(2);
    }
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > (1u << 30)) {
            fprintf(stderr, "armci_perf: --sizes: %llu is above 1 GiB\n",
                    (unsigned long long)o->sizes[i]);
            exit(2);
        }
}

/* Rank 1 must be where the options say; the first mistake otherwise is
 * a silent same-node measurement. */
static void check_layout(const struct opts *o)
{
    int n = armci_msg_nproc();
    int same = n >= 2 && armci_domain_id(ARMCI_DOMAIN_SMP, 0) == armci_domain_id(ARMCI_DOMAIN_SMP, 1);
    if (n < 2 || same != o->same_node) {
        if (armci_msg_me() == 0)
            fprintf(stderr, "armci_perf: rank 1 must be on %s node: run as %s (%d ranks now)\n",
                    o->same_node ? "rank 0's" : "another", o->same_node ? "-N 1 -n 2" : "-N 2 -n 1",
                    n);
        ARMCI_Finalize();
        exit(2);
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    ab_require_portals_job("armci_perf");
    ARMCI_Init_args(&argc, &argv);
    check_layout(&o);
    int me = armci_msg_me(), n = armci_msg_nproc();
    uint64_t maxsz = 8;
    for (size_t i = 0; i < o.nsizes; i++)
        maxsz = o.sizes[i] > maxsz ? o.sizes[i] : maxsz;
    /* a strided patch spans two rows per row: twice the size */
    size_t span = 2 * (size_t)maxsz;
    void **base = malloc(sizeof(void *) * (size_t)n);
    int private = !strcmp(o.memdev, "private");
    if (!base || ARMCI_Malloc_memdev(base, (armci_size_t)span, o.memdev) != 0) {
        fprintf(stderr, "armci_perf: ARMCI_Malloc of %zu bytes failed\n", span);
        return 1;
    }
    rem = base[1];
    loc = private ? bench_alloc_touched(span) : ARMCI_Malloc_local((armci_size_t)span);
    for (size_t i = 0; i < span / sizeof(double); i++) {
        ((double *)base[me])[i] = 1.0;
        ((double *)loc)[i] = 1.0;
    }
    raw_le_base = base[1];
    if (o.raw && raw_setup(base[me], span) != 0)
        return 1;
    armci_msg_barrier(); /* list entries linked, blocks initialised */
    if (me == 0) {
        bench_header(stdout, argc, argv);
        ab_env_comment(stdout);
        printf("# ranks=%d peer=1 %s memdev=%s; lat in microseconds (median, p10, p90 of single "
               "operations); bw_MBps = 1e6 bytes/s, median of %ld trials, window %ld; ratio = "
               "lat / baseline lat (same size, contiguous raw Portals)\n",
               n, o.same_node ? "same-node" : "other-node", o.memdev, o.trials, o.window);
        printf("op,shape,size,iters,lat_us,lat_p10_us,lat_p90_us,bw_MBps,bw_ops,baseline,ratio\n");
        for (int sh = 0; sh < NSHAPES; sh++)
            if (o.shapes[sh]) {
                verify(sh, 8);
                verify(sh, maxsz - maxsz % 8 ? maxsz - maxsz % 8 : 8);
            }
        for (size_t i = 0; i < o.nsizes; i++)
            run_size(&o, o.sizes[i]);
    }
    armci_msg_barrier();
    if (o.raw)
        raw_teardown();
    if (!private)
        ARMCI_Free_local(loc);
    ARMCI_Free_memdev(base[me]);
    free(base);
    free(o.sizes);
    ARMCI_Finalize();
    return 0;
}
