/* Flow intimation on the data-server path ([XT5-ARMCI]): bandwidth of
 * strided 2-D get and accumulate (rows of --row bytes, pitch two rows)
 * from rank 0 to rank 1 through rank 1's data server, with each client
 * owning 2 buffers of 4 KiB there. Without intimation every 4 KiB piece
 * waits for a credit, i.e. one server round trip per 8 KiB; with it the
 * first piece announces the rest and the server grants spare buffers
 * (ARMCI_SPARE_BUFS x ARMCI_SPARE_SIZE) that the client fills, or pulls
 * from, without waiting (runtime/core/chan.c, server.c).
 *
 * The setting under test comes from the environment, one job per value
 * (bench/run_armci.sh alternates them): ARMCI_FLOW_INTIMATION, or
 * --intimation, which sets it. Unless already set, this program sets
 * ARMCI_NONCONTIG=helper ARMCI_ACC=helper ARMCI_BUFS=2 ARMCI_BUF_SIZE=4096
 * before ARMCI_Init, so the transfers take the path being studied. In the
 * same job it measures a contiguous ARMCI_Get of the same bytes (one RDMA,
 * no server) as the baseline, and the protocol's counters per operation
 * (requests, grants, credit waits, server acks) and the job's wake-ups and
 * context switches, to say where the time goes.
 *   emunic-run -N 2 -n 1 --nic portals -- armci_flow [options] */
#include <armci.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci_bench.h"
#include "bench_emu.h"
#include "bench_util.h"

enum op { OP_GETS, OP_ACCS, OP_GET_CONTIG, NOPS };
static const char *const op_names[NOPS] = {"get", "acc", "get_contig"};

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    uint64_t row, volume;
    long trials;
    int ops[NOPS];
    const char *intimation; /* NULL: as the environment says */
};

/* What one (size, op) accumulates over its trials. */
struct acc_stats {
    double bw[64];
    double *lat;
    long nlat;
    struct ab_proto_ctrs proto;
    struct be_ctrs job;
};

static char *loc, *rem;
static int peer = 1;
static double one = 1.0;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic portals -- armci_flow [options]\n"
            "Strided 2-D ARMCI_GetS / ARMCI_AccS(double) bandwidth through the data server\n"
            "(flow intimation vs plain credits: run once with each --intimation), and a\n"
            "contiguous ARMCI_Get of the same bytes as the same-job baseline. Sets, unless\n"
            "already set: ARMCI_NONCONTIG=helper ARMCI_ACC=helper ARMCI_BUFS=2\n"
            "ARMCI_BUF_SIZE=4096. CSV on stdout (op,intimation,size,row,ops,trials,bw_MBps,\n"
            "bw_min_MBps,bw_max_MBps,lat_us,vs_get_contig,requests_op,grants_op,\n"
            "credit_waits_op,srv_acks_op, then the job's wake-up counters per operation).\n"
            "  --sizes LIST       transfer sizes (16K:1M); multiples of --row\n"
            "  --row BYTES        contiguous run (row) length at the target (1K)\n"
            "  --volume BYTES     bytes per trial, 4..256 operations (8M)\n"
            "  --trials T         trials per size and op, interleaved (5, at most 64)\n"
            "  --ops LIST         of get,acc,get_contig (all)\n"
            "  --intimation on|off  set ARMCI_FLOW_INTIMATION (default: the environment's, 1)\n"
            "  -h, --help         this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 's'},  {"row", required_argument, 0, 'r'},
        {"volume", required_argument, 0, 'v'}, {"trials", required_argument, 0, 't'},
        {"ops", required_argument, 0, 'o'},    {"intimation", required_argument, 0, 'I'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *sizes = "16K:1M";
    *o = (struct opts){.row = 1024, .volume = 8u << 20, .trials = 5, .ops = {1, 1, 1}};
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': sizes = optarg; break;
        case 'r':
        case 'v': {
            uint64_t v;
            if (bench_parse_size(optarg, &v) || v == 0 || (c == 'r' && (v % 8 || v > (1u << 20)))) {
                fprintf(stderr, "armci_flow: %s: bad size '%s'%s\n", c == 'r' ? "--row" : "--volume",
                        optarg, c == 'r' ? " (a multiple of 8, at most 1M)" : "");
                exit(2);
            }
            *(c == 'r' ? &o->row : &o->volume) = v;
            break;
        }
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 64); break;
        case 'o': {
            char *copy = strdup(optarg), *save = NULL;
            memset(o->ops, 0, sizeof o->ops);
            for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
                int hit = 0;
                for (int i = 0; i < NOPS; i++)
                    if (!strcmp(t, op_names[i]))
                        o->ops[i] = hit = 1;
                if (!hit) {
                    fprintf(stderr, "armci_flow: --ops: unknown operation '%s'\n", t);
                    exit(2);
                }
            }
            free(copy);
            break;
        }
        case 'I':
            if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
                fprintf(stderr, "armci_flow: --intimation: '%s' is not on or off\n", optarg);
                exit(2);
            }
            o->intimation = optarg;
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "armci_flow: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        exit(2);
    }
    if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes)) {
        fprintf(stderr, "armci_flow: --sizes: cannot parse '%s'\n", sizes);
        exit(2);
    }
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] % o->row || o->sizes[i] > (256u << 20)) {
            fprintf(stderr, "armci_flow: --sizes: %llu is not a multiple of the row (%llu) or "
                    "above 256M\n", (unsigned long long)o->sizes[i], (unsigned long long)o->row);
            exit(2);
        }
}

/* The path under study, unless the caller chose otherwise. */
static void set_environment(const struct opts *o)
{
    setenv("ARMCI_NONCONTIG", "helper", 0);
    setenv("ARMCI_ACC", "helper", 0);
    setenv("ARMCI_BUFS", "2", 0);
    setenv("ARMCI_BUF_SIZE", "4096", 0);
    if (o->intimation)
        setenv("ARMCI_FLOW_INTIMATION", strcmp(o->intimation, "on") ? "0" : "1", 1);
}

/* The remote patch: rows of o->row bytes, pitch two rows; local contiguous. */
struct patch {
    int count[2], rstride[1], lstride[1];
};

static struct patch patch_of(const struct opts *o, uint64_t size)
{
    struct patch p = {{(int)o->row, (int)(size / o->row)}, {(int)(2 * o->row)}, {(int)o->row}};
    return p;
}

/* p is not const because the ARMCI prototypes take int[]. */
static void one_op(int op, struct patch *p, uint64_t size)
{
    if (op == OP_GETS)
        ARMCI_GetS(rem, p->rstride, loc, p->lstride, p->count, 1, peer);
    else if (op == OP_ACCS)
        ARMCI_AccS(ARMCI_ACC_DBL, &one, loc, p->lstride, rem, p->rstride, p->count, 1, peer);
    else
        ARMCI_Get(rem, loc, (int)size, peer);
}

/* Put a pattern (plain RDMA runs are not under test: ARMCI_PutS takes the
 * server path too, which is fine), get it back through the server, add it
 * once and get again: 2x. */
static void verify(const struct opts *o, uint64_t size)
{
    struct patch p = patch_of(o, size);
    long n = (long)(size / 8);
    double *l = (double *)loc;
    for (long i = 0; i < n; i++)
        l[i] = (double)(i + 1);
    ARMCI_PutS(loc, p.lstride, rem, p.rstride, p.count, 1, peer);
    ARMCI_Fence(peer);
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            for (long i = 0; i < n; i++)
                l[i] = (double)(i + 1);
            one_op(OP_ACCS, &p, size);
            ARMCI_Fence(peer);
        }
        memset(l, 0, (size_t)size);
        one_op(OP_GETS, &p, size);
        for (long i = 0; i < n; i++)
            if (l[i] != (double)(pass + 1) * (double)(i + 1)) {
                fprintf(stderr, "armci_flow: WRONG RESULT: %s of %llu B: element %ld is %g, "
                        "expected %g\n", pass ? "AccS then GetS" : "PutS then GetS",
                        (unsigned long long)size, i, l[i], (double)(pass + 1) * (double)(i + 1));
                exit(1);
            }
    }
    for (long i = 0; i < n; i++)
        l[i] = 1.0; /* accumulate ones from now on: no growth worth noting */
}

static long ops_per_trial(const struct opts *o, uint64_t size)
{
    uint64_t n = o->volume / size;
    return (long)(n < 4 ? 4 : n > 256 ? 256 : n);
}

/* Rank 0's side of one trial: nops blocking operations, each timed; an
 * accumulate's bytes have landed only after the fence, which is in the
 * bandwidth. Returns MB/s. */
static double trial(int op, struct patch *p, uint64_t size, long nops, struct acc_stats *a)
{
    int64_t t0 = bench_now_ns();
    for (long i = 0; i < nops; i++) {
        int64_t s = bench_now_ns();
        one_op(op, p, size);
        a->lat[a->nlat++] = (double)(bench_now_ns() - s) / 1000.0;
    }
    if (op == OP_ACCS)
        ARMCI_Fence(peer);
    return (double)size * (double)nops / ((double)(bench_now_ns() - t0) / 1e9) / 1e6;
}

/* Every rank: counters around rank 0's trial, so the server's side (rank
 * 1) is counted too; the barrier also ends the trial at the server. */
static void counted_trial(const struct opts *o, int op, uint64_t size, long t, struct acc_stats *a)
{
    struct ab_proto_ctrs p0, p1, d;
    struct be_ctrs j0, j1, jd;
    struct patch p = patch_of(o, size);
    int me = armci_msg_me();
    armci_msg_barrier();
    ab_proto_read(&p0);
    if (me == 0) {
        be_ctrs_read(&j0);
        a->bw[t] = trial(op, &p, size, ops_per_trial(o, size), a);
        be_ctrs_read(&j1);
        be_ctrs_sub(&j1, &j0, &jd);
        uint64_t *acc = (uint64_t *)&a->job;
        const uint64_t *add = (const uint64_t *)&jd;
        for (size_t i = 0; i < sizeof jd / sizeof *add; i++)
            acc[i] += add[i];
    }
    armci_msg_barrier();
    ab_proto_read(&p1);
    ab_proto_sub(&p1, &p0, &d);
    a->proto.have = d.have;
    a->proto.requests += d.requests;
    a->proto.grants += d.grants;
    a->proto.credit_waits += d.credit_waits;
    a->proto.srv_requests += d.srv_requests;
    a->proto.srv_acks += d.srv_acks;
}

static void report(const struct opts *o, uint64_t size, struct acc_stats *a, const char *intim)
{
    struct bench_stats b[NOPS], l[NOPS];
    long nops = ops_per_trial(o, size) * o->trials;
    for (int op = 0; op < NOPS; op++)
        if (o->ops[op]) {
            bench_stats_of(a[op].bw, (size_t)o->trials, &b[op]);
            bench_stats_of(a[op].lat, (size_t)a[op].nlat, &l[op]);
        } else {
            memset(&b[op], 0, sizeof b[op]);
        }
    for (int op = 0; op < NOPS; op++) {
        if (!o->ops[op])
            continue;
        printf("%s,%s,%llu,%llu,%ld,%ld,%.1f,%.1f,%.1f,%.2f,", op_names[op], intim,
               (unsigned long long)size, (unsigned long long)o->row, ops_per_trial(o, size),
               o->trials, b[op].median, b[op].min, b[op].max, l[op].median);
        if (b[OP_GET_CONTIG].median > 0 && op != OP_GET_CONTIG)
            printf("%.3f,", b[op].median / b[OP_GET_CONTIG].median);
        else
            printf(",");
        const struct ab_proto_ctrs *c = &a[op].proto;
        if (c->have)
            printf("%.3f,%.3f,%.3f,%.3f,", (double)c->requests / nops, (double)c->grants / nops,
                   (double)c->credit_waits / nops, (double)c->srv_acks / nops);
        else
            printf(",,,,");
        be_ctrs_csv(stdout, &a[op].job, (double)nops);
        printf("\n");
    }
    fflush(stdout);
    char sz[32];
    fprintf(stderr, "armci_flow: intimation=%s %6s  get %.0f  acc %.0f  get_contig %.0f MB/s\n",
            intim, bench_fmt_size(size, sz, sizeof sz), b[OP_GETS].median, b[OP_ACCS].median,
            b[OP_GET_CONTIG].median);
}

static void run_size(const struct opts *o, uint64_t size, const char *intim)
{
    struct acc_stats a[NOPS];
    long per = ops_per_trial(o, size);
    memset(a, 0, sizeof a);
    for (int op = 0; op < NOPS; op++)
        if (!(a[op].lat = malloc((size_t)(per * o->trials) * sizeof(double)))) {
            fprintf(stderr, "armci_flow: out of memory\n");
            exit(1);
        }
    for (long t = 0; t < o->trials; t++)
        for (int op = 0; op < NOPS; op++)
            if (o->ops[op])
                counted_trial(o, op, size, t, &a[op]);
    /* the server's counters live at rank 1, the client's at rank 0 */
    for (int op = 0; op < NOPS; op++)
        if (o->ops[op])
            ab_proto_allsum(&a[op].proto);
    if (armci_msg_me() == 0)
        report(o, size, a, intim);
    for (int op = 0; op < NOPS; op++)
        free(a[op].lat);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    ab_require_portals_job("armci_flow");
    set_environment(&o);
    ARMCI_Init_args(&argc, &argv);
    int me = armci_msg_me(), n = armci_msg_nproc();
    if (n < 2 || armci_domain_id(ARMCI_DOMAIN_SMP, 0) == armci_domain_id(ARMCI_DOMAIN_SMP, 1)) {
        if (me == 0)
            fprintf(stderr, "armci_flow: rank 1 must be on another node: run as -N 2 -n 1\n");
        ARMCI_Finalize();
        return 2;
    }
    uint64_t maxsz = 0;
    for (size_t i = 0; i < o.nsizes; i++)
        maxsz = o.sizes[i] > maxsz ? o.sizes[i] : maxsz;
    void **base = malloc(sizeof(void *) * (size_t)n);
    if (!base || ARMCI_Malloc(base, (armci_size_t)(2 * maxsz)) != 0) {
        fprintf(stderr, "armci_flow: ARMCI_Malloc of %llu bytes failed\n",
                (unsigned long long)(2 * maxsz));
        return 1;
    }
    rem = base[1];
    loc = ARMCI_Malloc_local((armci_size_t)maxsz);
    memset(base[me], 0, 2 * maxsz);
    const char *intim = ab_env_or("ARMCI_FLOW_INTIMATION", "1");
    armci_msg_barrier();
    if (me == 0) {
        bench_header(stdout, argc, argv);
        ab_env_comment(stdout);
        printf("# ranks=%d target=1 (other node); bw_MBps = 1e6 bytes/s, median over trials of "
               "ops blocking operations (accumulates: + a fence); lat_us = median single "
               "operation; vs_get_contig = bw / the contiguous get's bw; *_op = per operation "
               "(requests, grants, credit waits: client; srv_acks: server; the rest: job-wide "
               "emunic counters)\n", n);
        printf("op,intimation,size,row,ops,trials,bw_MBps,bw_min_MBps,bw_max_MBps,lat_us,"
               "vs_get_contig,requests_op,grants_op,credit_waits_op,srv_acks_op," BE_CTRS_CSV_HEADER
               "\n");
        verify(&o, o.sizes[0]);
        verify(&o, maxsz);
    }
    armci_msg_barrier();
    for (size_t i = 0; i < o.nsizes; i++)
        run_size(&o, o.sizes[i], intim);
    ARMCI_Free_local(loc);
    ARMCI_Free(base[me]);
    free(base);
    free(o.sizes);
    ARMCI_Finalize();
    return 0;
}
