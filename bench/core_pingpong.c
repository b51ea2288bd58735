/* Latency through the emulated NIC, with the raw hand-off floor measured in
 * the same run.
 *
 *   emunic-run -N 2 -n 1 -- core_pingpong [options]
 *
 * Rank 0 and its peer (the last rank) take part; any other rank waits.
 *   base_*         raw shared-memory hand-off chains forked from rank 0
 *                  before any NIC traffic (see handoff.h)
 *   rtt_remote_cq  rank 0 writes to the peer's heap with EMU_F_REMOTE_CQ and
 *                  waits for the completion (rank->NIC->NIC->NIC->rank, or
 *                  rank->NIC->rank when the peer shares rank 0's node)
 *   pingpong       rank 0 writes with EMU_F_TARGET_NOTIFY, the peer waits
 *                  for the EMU_CQ_TARGET entry and writes back the same way
 * CSV on stdout (one row per case and size), a summary on stderr. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"
#include "handoff.h"

struct opts {
    long iters;       /* timed iterations for sizes <= 8 B */
    long sweep_iters; /* ... for larger sizes */
    long warmup;      /* untimed iterations before each size */
    long base_iters;  /* laps of each baseline */
    uint64_t *sizes;
    size_t nsizes;
    int baselines, rtt, pingpong;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 -- core_pingpong [options]\n"
            "Round-trip latency through the emulated NIC against the raw cross-process\n"
            "hand-off floor measured in the same run. CSV on stdout, summary on stderr.\n"
            "  --iters N        timed iterations for 8-byte (and smaller) sizes (20000)\n"
            "  --sweep-iters N  timed iterations for larger sizes (5000)\n"
            "  --warmup N       untimed iterations before each size (1000)\n"
            "  --base-iters N   laps of each raw baseline (20000)\n"
            "  --sizes LIST     payload sizes: 8,64,1K or LO:HI (powers of two) or\n"
            "                   LO:HI:F (default 8:64K)\n"
            "  --only WHAT      run only base, rtt or pingpong (repeatable)\n"
            "  -h, --help       this text\n"
            "Rank 0 and the last rank take part; run with -N 2 -n 1 for the cross-node\n"
            "numbers, -N 1 -n 2 for two ranks behind one NIC.\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"iters", required_argument, 0, 'i'},  {"sweep-iters", required_argument, 0, 's'},
        {"warmup", required_argument, 0, 'w'}, {"base-iters", required_argument, 0, 'b'},
        {"sizes", required_argument, 0, 'z'},  {"only", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (struct opts){.iters = 20000, .sweep_iters = 5000, .warmup = 1000, .base_iters = 20000};
    const char *sizes = "8:64K";
    int only = 0, c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 100000000); break;
        case 's': o->sweep_iters = bench_parse_long("--sweep-iters", optarg, 1, 100000000); break;
        case 'w': o->warmup = bench_parse_long("--warmup", optarg, 0, 100000000); break;
        case 'b': o->base_iters = bench_parse_long("--base-iters", optarg, 1, 100000000); break;
        case 'z': sizes = optarg; break;
        case 'o':
            only = 1;
            if (!strcmp(optarg, "base"))
                o->baselines = 1;
            else if (!strcmp(optarg, "rtt"))
                o->rtt = 1;
            else if (!strcmp(optarg, "pingpong"))
                o->pingpong = 1;
            else {
                fprintf(stderr, "--only wants base, rtt or pingpong\n");
                exit(2);
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        usage(stderr);
        exit(2);
    }
    if (!only)
        o->baselines = o->rtt = o->pingpong = 1;
    if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes)) {
        fprintf(stderr, "--sizes: cannot parse '%s'\n", sizes);
        exit(2);
    }
}

static void row(const char *cas, uint64_t size, long iters, double *samples, int handoffs,
                const struct be_ctrs *d, const struct handoff_csw *csw, double *median_out)
{
    struct bench_stats st;
    bench_stats_of(samples, (size_t)iters, &st);
    printf("core_pingpong,%s,%llu,%ld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.3f,", cas,
           (unsigned long long)size, iters, st.median, st.p10, st.p90, st.mean, st.min,
           st.median / 2, handoffs, st.median / handoffs);
    if (d)
        be_ctrs_csv(stdout, d, (double)iters);
    else if (csw)
        printf(",,,,,%.4f,%.4f", csw->vcsw, csw->ivcsw);
    else
        be_ctrs_csv_blank(stdout);
    putchar('\n');
    fflush(stdout);
    if (median_out)
        *median_out = st.median;
}

/* ---- baselines ---- */

static void baselines(const struct opts *o, double *samples)
{
    static const struct {
        const char *name;
        int procs;
        enum handoff_wait how;
    } cases[] = {
        {"base_yield_2p", 2, HANDOFF_YIELD},
        {"base_yield_3p", 3, HANDOFF_YIELD},
        {"base_yield_4p", 4, HANDOFF_YIELD},
        {"base_futex_2p", 2, HANDOFF_FUTEX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double med;
        struct handoff_csw csw;
        int rc = handoff_chain(cases[i].procs, cases[i].how, o->base_iters, o->base_iters / 10,
                               samples, &csw);
        BE_CHECK(rc == 0, "baseline %s failed", cases[i].name);
        row(cases[i].name, 8, o->base_iters, samples, handoff_count(cases[i].procs), NULL, &csw, &med);
        fprintf(stderr, "%-16s %8.2f us per lap, %6.2f us per hand-off (%d processes), "
                        "%.2f + %.2f (in)voluntary context switches per lap\n",
                cases[i].name, med, med / handoff_count(cases[i].procs), cases[i].procs, csw.vcsw,
                csw.ivcsw);
    }
}

/* ---- NIC round trips ---- */

static long iters_for(const struct opts *o, uint64_t size)
{
    return size <= 8 ? o->iters : o->sweep_iters;
}

/* Process-to-process hand-offs per round trip: rank -> NIC [-> NIC] ... */
static int handoffs(uint32_t peer, int notify)
{
    int same_node = peer / emunic_local_size() == emunic_node();
    if (notify) /* rank -> NIC [-> NIC] -> peer -> NIC [-> NIC] -> rank */
        return same_node ? 4 : 6;
    return same_node ? 2 : 4; /* rank -> NIC [-> NIC -> NIC] -> rank */
}

static void rtt(const struct opts *o, uint32_t peer, char *src, uint64_t dst, double *samples)
{
    for (size_t z = 0; z < o->nsizes; z++) {
        uint64_t size = o->sizes[z];
        long n = iters_for(o, size);
        struct be_ctrs c0, c1, d;
        for (long i = -o->warmup; i < n; i++) {
            if (i == 0)
                be_ctrs_read(&c0);
            uint64_t ck = be_cookie();
            int64_t t0 = bench_now_ns();
            int rc = emunic_write(peer, EMU_KEY_HEAP, dst, src, size, EMU_F_REMOTE_CQ, ck, 0);
            BE_CHECK(rc == 0, "write: %d", rc);
            be_wait_cookie(ck);
            if (i >= 0)
                samples[i] = (double)(bench_now_ns() - t0) / 1e3;
        }
        be_ctrs_read(&c1);
        be_ctrs_sub(&c1, &c0, &d);
        double med;
        row("rtt_remote_cq", size, n, samples, handoffs(peer, 0), &d, NULL, &med);
        char b[16];
        fprintf(stderr, "rtt_remote_cq    %6s %8.2f us median; per op: %.2f rank wake-ups, "
                        "%.2f NIC wake-ups, %.2f doorbells, %.1f NIC idle yields\n",
                bench_fmt_size(size, b, sizeof b), med, (double)d.rank_wakeups / n,
                (double)d.nic_wakeups / n, (double)(d.nic_doorbells + d.rank_doorbells) / n,
                (double)d.nic_idle_polls / n);
    }
}

/* Wait for the EMU_CQ_TARGET of the peer's write; nothing else arrives. */
static void wait_target(uint32_t from, uint64_t expect)
{
    for (;;) {
        struct emu_msg m;
        int n = emunic_wait(&m, 1, -1);
        BE_CHECK(n >= 0, "emunic_wait: %d", n);
        if (n == 0)
            continue;
        BE_CHECK(m.op == EMU_CQ_TARGET && m.src == from && m.imm == expect,
                 "unexpected entry op %#x src %u imm %llu (want target from %u imm %llu), status %u",
                 m.op, m.src, (unsigned long long)m.imm, from, (unsigned long long)expect, m.status);
        return;
    }
}

static void pingpong(const struct opts *o, uint32_t me, uint32_t peer, char *src, uint64_t dst,
                     double *samples)
{
    for (size_t z = 0; z < o->nsizes; z++) {
        uint64_t size = o->sizes[z];
        long n = iters_for(o, size);
        struct be_ctrs c0, c1, d;
        be_barrier();
        for (long i = -o->warmup; i < n; i++) {
            uint64_t tag = (uint64_t)(i + o->warmup);
            if (me == 0) {
                if (i == 0)
                    be_ctrs_read(&c0);
                int64_t t0 = bench_now_ns();
                int rc = emunic_write(peer, EMU_KEY_HEAP, dst, src, size, EMU_F_TARGET_NOTIFY, 0, tag);
                BE_CHECK(rc == 0, "write: %d", rc);
                wait_target(peer, tag);
                if (i >= 0)
                    samples[i] = (double)(bench_now_ns() - t0) / 1e3;
            } else {
                wait_target(0, tag);
                int rc = emunic_write(0, EMU_KEY_HEAP, dst, src, size, EMU_F_TARGET_NOTIFY, 0, tag);
                BE_CHECK(rc == 0, "write: %d", rc);
            }
        }
        if (me != 0)
            continue;
        be_ctrs_read(&c1);
        be_ctrs_sub(&c1, &c0, &d);
        double med;
        row("pingpong_notify", size, n, samples, handoffs(peer, 1), &d, NULL, &med);
        char b[16];
        fprintf(stderr, "pingpong_notify  %6s %8.2f us median (half %.2f); per round trip: "
                        "%.2f rank wake-ups, %.2f NIC wake-ups, %.2f doorbells\n",
                bench_fmt_size(size, b, sizeof b), med, med / 2, (double)d.rank_wakeups / n,
                (double)d.nic_wakeups / n, (double)(d.nic_doorbells + d.rank_doorbells) / n);
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    uint64_t maxsz = 8;
    for (size_t i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsz)
            maxsz = o.sizes[i];
    /* first heap block: [0, maxsz) source, [maxsz, 2 maxsz) destination */
    char *buf = be_init(2 * maxsz);
    uint32_t me = emunic_rank(), n = emunic_size();
    BE_CHECK(n >= 2, "needs at least 2 ranks (emunic-run -N 2 -n 1)");
    uint32_t peer = n - 1;
    int active = me == 0 || me == peer;
    memset(buf, (int)me + 1, maxsz);
    uint64_t dst0 = emunic_heap_addr(peer) + maxsz; /* rank 0 writes here */
    uint64_t dst1 = emunic_heap_addr(0) + maxsz;    /* the peer writes back here */
    long most = o.iters > o.sweep_iters ? o.iters : o.sweep_iters;
    if (o.base_iters > most)
        most = o.base_iters;
    double *samples = malloc((size_t)most * sizeof *samples);
    BE_CHECK(samples, "out of memory");

    if (me == 0) {
        bench_header(stdout, argc, argv);
        printf("# nodes=%u ranks=%u peer=%u (node %u); latencies in microseconds; handoffs = "
               "process-to-process hand-offs per round trip; *_op = per round trip, whole job\n",
               emunic_nnodes(), n, peer, peer / emunic_local_size());
        printf("bench,case,size,iters,median_us,p10_us,p90_us,mean_us,min_us,half_us,handoffs,"
               "us_per_handoff," BE_CTRS_CSV_HEADER "\n");
        fflush(stdout);
        fprintf(stderr, "core_pingpong: %u nodes x %u ranks, rank 0 <-> rank %u, host %s, %ld cpus\n",
                emunic_nnodes(), emunic_local_size(), peer, bench_host(), bench_nproc());
        be_ctrs_open();
    }
    /* (c) the raw floor, before any NIC traffic; everyone else waits */
    if (o.baselines && me == 0)
        baselines(&o, samples);
    be_barrier();
    if (o.rtt && me == 0)
        rtt(&o, peer, buf, dst0, samples);
    be_barrier();
    if (o.pingpong) {
        if (active)
            pingpong(&o, me, me == 0 ? peer : 0, buf, me == 0 ? dst0 : dst1, samples);
        else
            for (size_t z = 0; z < o.nsizes; z++)
                be_barrier();
    }
    be_barrier();
    if (me == 0)
        fprintf(stderr, "rank 0 emunic_wakeups() total: %llu\n", (unsigned long long)emunic_wakeups());
    free(samples);
    free(o.sizes);
    emunic_finalize();
    return 0;
}
