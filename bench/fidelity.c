/* Fidelity of the machine model against the papers' figures, measured
 * through the PAMI personality (PAMI_Put / PAMI_Get, as [BGQ-PAMI] did):
 *
 *   emunic-run -N NODES -n 1 --nic pami --machine M --dilate K -- fidelity [options]
 *
 * Task 0 times, the others only serve. Modes (--mode, default lat):
 *   lat   16 B (--size) put and get to task 1, window 1: latency
 *   bw    put (and get) bandwidth vs size with --window operations in
 *         flight; peak and N1/2 (size of half the peak, interpolated)
 *   hops  16 B get latency to every other task, with the hop count on the
 *         machine's topology (read from the job's netcfg), and the slope
 *         per extra hop (half the round trip's increase, least squares)
 * Latency is the median of single operations, bandwidth the median of
 * three windowed runs. Times are the rank's clock, which --dilate K slows K times (the
 * interposer), so they read as machine time. CSV on stdout:
 *   fidelity,machine,dilate,mode,case,size,hops,us_per_op,MBps
 * and summary lines "fidelity,machine,dilate,summary,WHAT,value,paper,err_pct"
 * where the machine has a published figure for WHAT (docs/machines.md). */
#include <getopt.h>
#include <math.h>
#include <string.h>

#include "bench_util.h"
#include "emunic/emunic.h"
#include "emunic/job.h"
#include "emunic/model.h"
#include "pami_bench.h"

struct opts {
    const char *mode;
    uint64_t *sizes;
    size_t nsizes;
    uint64_t size;
    long iters, window;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N NODES -n 1 --nic pami --machine M [--dilate K] -- fidelity [options]\n"
            "Machine-model fidelity: PAMI put/get latency, bandwidth (peak, N1/2), latency vs hops.\n"
            "  --mode lat|bw|hops  what to measure (lat)\n"
            "  --size N            bytes for lat and hops (16)\n"
            "  --sizes LIST        sizes for bw (256:1M:4)\n"
            "  --iters N           operations per measurement (100; fewer for big sizes)\n"
            "  --window W          operations in flight for bw (16)\n"
            "  -h, --help          this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"mode", required_argument, 0, 'm'},  {"size", required_argument, 0, 's'},
        {"sizes", required_argument, 0, 'z'}, {"iters", required_argument, 0, 'i'},
        {"window", required_argument, 0, 'w'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    *o = (struct opts){.mode = "lat", .size = 16, .iters = 100, .window = 16};
    const char *sizes = "256:1M:4";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'm': o->mode = optarg; break;
        case 's': o->size = (uint64_t)bench_parse_long("--size", optarg, 1, 1 << 20); break;
        case 'z': sizes = optarg; break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 'w': o->window = bench_parse_long("--window", optarg, 1, 256); break;
        case 'h': usage(stdout); exit(0);
        default: pb_bad_option("fidelity", c, argv);
        }
    }
    if (optind < argc || (strcmp(o->mode, "lat") && strcmp(o->mode, "bw") && strcmp(o->mode, "hops"))) {
        fprintf(stderr, "fidelity: bad mode or argument (--help)\n");
        exit(2);
    }
    if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes) || !o->nsizes) {
        fprintf(stderr, "fidelity: --sizes '%s' is not a size list\n", sizes);
        exit(2);
    }
}

static atomic_long done;
static char *loc;
static uint64_t raddr[64];

static void post(int get, size_t peer, uint64_t size)
{
    pami_result_t rc;
    if (!get) {
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pb_ep(peer, 0);
        p.rma.bytes = size;
        p.rma.cookie = &done;
        p.addr.local = loc;
        p.addr.remote = (void *)(uintptr_t)raddr[peer];
        p.put.rdone_fn = pb_count;
        rc = PAMI_Put(pb_ctx[0], &p);
    } else {
        pami_get_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma.dest = pb_ep(peer, 0);
        g.rma.bytes = size;
        g.rma.cookie = &done;
        g.rma.done_fn = pb_count;
        g.addr.local = loc;
        g.addr.remote = (void *)(uintptr_t)raddr[peer];
        rc = PAMI_Get(pb_ctx[0], &g);
    }
    PB_CHECK(rc == PAMI_SUCCESS, "%s: %d", get ? "get" : "put", rc);
}

/* n operations, window deep; microseconds per operation (rank clock). */
static double run(int get, size_t peer, uint64_t size, long n, long window)
{
    int64_t t0 = bench_now_ns();
    long start = atomic_load(&done), posted = 0;
    while (atomic_load(&done) - start < n) {
        while (posted < n && posted - (atomic_load(&done) - start) < window)
            post(get, peer, size), posted++;
        PAMI_Context_advance(pb_ctx[0], 1);
    }
    return (double)(bench_now_ns() - t0) / 1e3 / (double)n;
}

/* Latency (window 1): the median over n single operations, so a host
 * hiccup (a daemon scheduled late) moves it little. Bandwidth: the median
 * of 3 runs of n operations. Both after a warm-up. */
static double measure(int get, size_t peer, uint64_t size, long n, long window)
{
    double t[3];
    run(get, peer, size, n / 10 + 1, window);
    if (window == 1) {
        double *v = calloc((size_t)n, sizeof *v);
        PB_CHECK(v != NULL, "out of memory");
        for (long i = 0; i < n; i++)
            v[i] = run(get, peer, size, 1, 1);
        double med = bench_median(v, (size_t)n);
        free(v);
        return med;
    }
    for (int k = 0; k < 3; k++)
        t[k] = run(get, peer, size, n, window);
    return bench_median(t, 3);
}

struct paper {
    const char *machine;
    double put_us, get_us, peak_mbps, nhalf, hop_ns;
};
/* Published figures (docs/machines.md); 0: none published. */
static const struct paper papers[] = {
    {"bgq", 2.7, 2.89, 1775, 2048, 35},   /* [BGQ-PAMI] Sec. IV-B, Figs. 4, 5, 7, 8 */
    {"bgp", 0, 0, 425, 0, 0},             /* [OSPRI] Sec. II-A: 425 MB/s per link */
    {"xt5", 0, 0, 3000, 0, 0},            /* [XT5-ARMCI] Sec. 4: 3 GB/s to the network */
    {"p7ih", 0, 0, 5000, 0, 0},           /* PERCS LR link, Arimilli et al. 2010 */
};

static const struct paper *paper_of(const char *m)
{
    for (size_t i = 0; i < sizeof papers / sizeof *papers; i++)
        if (!strcmp(papers[i].machine, m))
            return &papers[i];
    return NULL;
}

static char mname[32] = "ideal";
static double dilate = 1;

static void summary(const char *what, double v, double paper)
{
    if (paper > 0)
        printf("fidelity,%s,%g,summary,%s,%.4g,%.4g,%+.1f\n", mname, dilate, what, v, paper,
               100.0 * (v - paper) / paper);
    else
        printf("fidelity,%s,%g,summary,%s,%.4g,,\n", mname, dilate, what, v);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    pb_init("fidelity", 1, 2, 64);
    struct emu_job job;
    PB_CHECK(emu_job_attach(&job, emunic_jobid()) == 0, "attach the job to read its machine");
    struct emu_netcfg *net = emu_job_netcfg(&job);
    snprintf(mname, sizeof mname, "%s", net->m.name[0] ? net->m.name : "ideal");
    dilate = net->dilate;
    uint64_t maxsz = o.size;
    for (size_t i = 0; i < o.nsizes; i++)
        maxsz = o.sizes[i] > maxsz ? o.sizes[i] : maxsz;
    loc = bench_alloc_touched(maxsz);
    char *target = bench_alloc_touched(maxsz);
    uint64_t mine = (uint64_t)(uintptr_t)target;
    pb_allgather(&mine, sizeof mine, raddr);
    const struct paper *p = paper_of(mname);
    if (pb_me == 0) {
        bench_header(stdout, argc, argv);
        printf("bench,machine,dilate,mode,case,size,hops,us_per_op,MBps\n");
        if (!strcmp(o.mode, "lat")) {
            uint32_t h = emu_model_hops(&net->m, job.hdr->nnodes, 0, emunic_nnodes() > 1 ? 1 : 0);
            double put = measure(0, 1, o.size, o.iters, 1), get = measure(1, 1, o.size, o.iters, 1);
            printf("fidelity,%s,%g,lat,put,%llu,%u,%.3f,%.1f\n", mname, dilate, (unsigned long long)o.size, h, put,
                   (double)o.size / put);
            printf("fidelity,%s,%g,lat,get,%llu,%u,%.3f,%.1f\n", mname, dilate, (unsigned long long)o.size, h, get,
                   (double)o.size / get);
            summary("put_us", put, p ? p->put_us : 0);
            summary("get_us", get, p ? p->get_us : 0);
        } else if (!strcmp(o.mode, "bw")) {
            double peak[2] = {0, 0}, *bw[2];
            bw[0] = calloc(o.nsizes, sizeof(double));
            bw[1] = calloc(o.nsizes, sizeof(double));
            for (size_t s = 0; s < o.nsizes; s++) {
                uint64_t size = o.sizes[s];
                long n = size <= 4096 ? o.iters : (long)((uint64_t)o.iters * 4096 / size);
                if (n < 2 * o.window)
                    n = 2 * o.window;
                for (int g = 0; g < 2; g++) {
                    double us = measure(g, 1, size, n, o.window);
                    bw[g][s] = (double)size / us;
                    peak[g] = bw[g][s] > peak[g] ? bw[g][s] : peak[g];
                    printf("fidelity,%s,%g,bw,%s,%llu,1,%.3f,%.1f\n", mname, dilate, g ? "get" : "put",
                           (unsigned long long)size, us, bw[g][s]);
                    fflush(stdout);
                }
            }
            for (int g = 0; g < 2; g++) {
                double nh = 0; /* N1/2: interpolate log-size where bw crosses peak/2 */
                for (size_t s = 1; s < o.nsizes && !nh; s++)
                    if (bw[g][s - 1] < peak[g] / 2 && bw[g][s] >= peak[g] / 2) {
                        double f = (peak[g] / 2 - bw[g][s - 1]) / (bw[g][s] - bw[g][s - 1]);
                        nh = exp(log((double)o.sizes[s - 1]) + f * (log((double)o.sizes[s]) - log((double)o.sizes[s - 1])));
                    }
                summary(g ? "get_peak_MBps" : "put_peak_MBps", peak[g], p ? p->peak_mbps : 0);
                summary(g ? "get_nhalf_B" : "put_nhalf_B", nh, p ? p->nhalf : 0);
            }
            free(bw[0]);
            free(bw[1]);
        } else {
            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            size_t n = 0;
            for (size_t t = 1; t < pb_n && t < 64; t++) {
                uint32_t h = emu_model_hops(&net->m, job.hdr->nnodes, 0, (uint32_t)(t / emunic_local_size()));
                double get = measure(1, t, o.size, o.iters, 1);
                printf("fidelity,%s,%g,hops,get,%llu,%u,%.3f,%.1f\n", mname, dilate, (unsigned long long)o.size, h,
                       get, (double)o.size / get);
                fflush(stdout);
                sx += h, sy += get, sxx += (double)h * h, sxy += h * get, n++;
            }
            double den = (double)n * sxx - sx * sx;
            /* a round trip crosses each extra hop twice */
            double slope_ns = den > 0 ? ((double)n * sxy - sx * sy) / den * 1e3 / 2 : 0;
            summary("ns_per_hop", slope_ns, p ? p->hop_ns : 0);
        }
        fflush(stdout);
    }
    pb_fini();
    emu_job_detach(&job);
    free(loc);
    free(target);
    free(o.sizes);
    return 0;
}
