/* PAMI one-sided latency and bandwidth ([BGQ-PAMI]'s put/get figures), next
 * to the core's raw write and read measured in the same run.
 *
 *   emunic-run -N 2 -n 1 --nic pami -- pami_rma [options]
 *
 * Task 0 times, task 1 only waits in the closing barrier (its NIC does the
 * work). Cases, per size:
 *   put     PAMI_Put by address, until rdone_fn (data at the target)
 *   get     PAMI_Get by address, until done_fn
 *   rput    PAMI_Rput through memory regions, until rdone_fn
 *   rget    PAMI_Rget, until done_fn
 *   raw_write / raw_read: emunic_write (EMU_F_REMOTE_CQ) / emunic_read on the
 *           same memory, each waited for with emunic_wait_cookie
 * --window W > 1 measures bandwidth instead: W operations in flight, the
 * next posted as each completes. Trials interleave the cases; ratio =
 * median over trials of (case median / baseline median). CSV on stdout. */
#include <getopt.h>
#include <string.h>

#include "bench_util.h"
#include "emunic/emunic.h"
#include "pami_bench.h"

enum { C_RAW_WRITE, C_RAW_READ, C_PUT, C_GET, C_RPUT, C_RGET, C_N };
static const char *const names[C_N] = {"raw_write", "raw_read", "put", "get", "rput", "rget"};
static const int base_of[C_N] = {-1, -1, C_RAW_WRITE, C_RAW_READ, C_RAW_WRITE, C_RAW_READ};

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long iters, trials, window;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic pami -- pami_rma [options]\n"
            "PAMI Put/Get/Rput/Rget latency (or bandwidth with --window) against the core's\n"
            "raw write and read in the same run. CSV on stdout.\n"
            "  --sizes LIST   8,1K or LO:HI[:F] (default 8:4M:4)\n"
            "  --iters N      timed operations per trial up to 4 KiB; fewer above (300)\n"
            "  --trials N     trials per size, cases interleaved (3)\n"
            "  --window W     operations in flight: 1 = latency (default), >1 = bandwidth\n"
            "  -h, --help     this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 'z'}, {"iters", required_argument, 0, 'i'},
        {"trials", required_argument, 0, 't'}, {"window", required_argument, 0, 'w'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    *o = (struct opts){.iters = 300, .trials = 3, .window = 1};
    const char *sizes = "8:4M:4";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'z': sizes = optarg; break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 1000); break;
        case 'w': o->window = bench_parse_long("--window", optarg, 1, 256); break;
        case 'h': usage(stdout); exit(0);
        default: pb_bad_option("pami_rma", c, argv);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "pami_rma: unexpected argument '%s' (--help)\n", argv[optind]);
        exit(2);
    }
    if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes) || !o->nsizes) {
        fprintf(stderr, "pami_rma: --sizes '%s' is not a size list\n", sizes);
        exit(2);
    }
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] == 0 || o->sizes[i] > (64u << 20)) {
            fprintf(stderr, "pami_rma: size %llu outside 1..64M\n", (unsigned long long)o->sizes[i]);
            exit(2);
        }
}

struct run {
    char *loc, *remote_base;
    uint32_t key;
    pami_memregion_t lmr, rmr;
    pami_endpoint_t peer;
};

static atomic_long done;

/* Post case c once (one of the window). */
static void post(struct run *r, int c, uint64_t size, uint64_t cookie)
{
    pami_result_t rc = PAMI_SUCCESS;
    if (c == C_PUT) {
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = r->peer;
        p.rma.bytes = size;
        p.rma.cookie = &done;
        p.addr.local = r->loc;
        p.addr.remote = r->remote_base;
        p.put.rdone_fn = pb_count;
        rc = PAMI_Put(pb_ctx[0], &p);
    } else if (c == C_GET) {
        pami_get_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma.dest = r->peer;
        g.rma.bytes = size;
        g.rma.cookie = &done;
        g.rma.done_fn = pb_count;
        g.addr.local = r->loc;
        g.addr.remote = r->remote_base;
        rc = PAMI_Get(pb_ctx[0], &g);
    } else if (c == C_RPUT) {
        pami_rput_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = r->peer;
        p.rma.bytes = size;
        p.rma.cookie = &done;
        p.rdma.local.mr = &r->lmr;
        p.rdma.remote.mr = &r->rmr;
        p.put.rdone_fn = pb_count;
        rc = PAMI_Rput(pb_ctx[0], &p);
    } else if (c == C_RGET) {
        pami_rget_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma.dest = r->peer;
        g.rma.bytes = size;
        g.rma.cookie = &done;
        g.rma.done_fn = pb_count;
        g.rdma.local.mr = &r->lmr;
        g.rdma.remote.mr = &r->rmr;
        rc = PAMI_Rget(pb_ctx[0], &g);
    } else {
        int e = c == C_RAW_WRITE
                    ? emunic_write(1, r->key, (uint64_t)(uintptr_t)r->remote_base, r->loc, size, EMU_F_REMOTE_CQ, cookie, 0)
                    : emunic_read(1, r->key, (uint64_t)(uintptr_t)r->remote_base, r->loc, size, EMU_F_LOCAL_CQ, cookie);
        PB_CHECK(e == 0, "raw post: %d", e);
    }
    PB_CHECK(rc == PAMI_SUCCESS, "%s: %d", names[c], rc);
}

/* n operations of case c, window deep; returns microseconds per operation. */
static double run_case(struct run *r, int c, uint64_t size, long n, long window)
{
    static uint64_t cookie = 1u << 30;
    int64_t t0 = bench_now_ns();
    if (c == C_RAW_WRITE || c == C_RAW_READ) {
        uint64_t first = cookie;
        long posted = 0, finished = 0;
        struct emu_msg m;
        while (finished < n) {
            while (posted < n && posted - finished < window)
                post(r, c, size, cookie + (uint64_t)posted++);
            int st = emunic_wait_cookie(first + (uint64_t)finished, &m);
            PB_CHECK(st == 0, "raw op failed: %d", st);
            finished++;
        }
        cookie += (uint64_t)n;
    } else {
        long start = atomic_load(&done), posted = 0;
        while (atomic_load(&done) - start < n) {
            while (posted < n && posted - (atomic_load(&done) - start) < window)
                post(r, c, size, 0), posted++;
            PAMI_Context_advance(pb_ctx[0], 1);
        }
    }
    return (double)(bench_now_ns() - t0) / 1e3 / (double)n;
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    pb_init("pami_rma", 1, 2, 2);
    uint64_t maxsz = 0;
    for (size_t i = 0; i < o.nsizes; i++)
        maxsz = o.sizes[i] > maxsz ? o.sizes[i] : maxsz;
    struct run r = {0};
    r.loc = bench_alloc_touched(maxsz);
    char *target = bench_alloc_touched(maxsz);
    size_t got;
    PB_CHECK(PAMI_Memregion_create(pb_ctx[0], r.loc, maxsz, &got, &r.lmr) == PAMI_SUCCESS, "mr");
    pami_memregion_t mine;
    PB_CHECK(PAMI_Memregion_create(pb_ctx[0], target, maxsz, &got, &mine) == PAMI_SUCCESS, "mr");
    pami_memregion_t mrs[2];
    uint64_t addr = (uint64_t)(uintptr_t)target, addrs[2];
    pb_allgather(&mine, sizeof mine, mrs);
    pb_allgather(&addr, sizeof addr, addrs);
    memcpy(r.rmr, mrs[1], sizeof r.rmr);
    r.remote_base = (char *)(uintptr_t)addrs[1];
    r.key = emunic_space_key(1);
    r.peer = pb_ep(1, 0);
    if (pb_me == 0) {
        bench_header(stdout, argc, argv);
        printf("bench,case,size,layout,window,us_per_op,MBps,baseline,ratio\n");
        for (size_t s = 0; s < o.nsizes; s++) {
            uint64_t size = o.sizes[s];
            long n = size <= 4096 ? o.iters : (long)(o.iters * 4096 / size);
            if (n < 20)
                n = 20;
            double *t[C_N];
            for (int c = 0; c < C_N; c++)
                t[c] = calloc((size_t)o.trials, sizeof(double));
            for (long k = 0; k < o.trials; k++)
                for (int c = 0; c < C_N; c++) {
                    run_case(&r, c, size, n / 10 + 1, o.window); /* warm-up */
                    t[c][k] = run_case(&r, c, size, n, o.window);
                }
            double med[C_N];
            for (int c = 0; c < C_N; c++) {
                double tmp[1000];
                memcpy(tmp, t[c], (size_t)o.trials * sizeof(double));
                med[c] = bench_median(tmp, (size_t)o.trials);
            }
            for (int c = 0; c < C_N; c++) {
                double ratio = 0;
                if (base_of[c] >= 0) {
                    double rr[1000];
                    for (long k = 0; k < o.trials; k++)
                        rr[k] = t[c][k] / t[base_of[c]][k];
                    ratio = bench_median(rr, (size_t)o.trials);
                }
                printf("pami_rma,%s,%llu,%s,%ld,%.3f,%.1f,%s,%.3f\n", names[c], (unsigned long long)size, pb_layout(),
                       o.window, med[c], (double)size / med[c], base_of[c] >= 0 ? names[base_of[c]] : "",
                       ratio);
            }
            for (int c = 0; c < C_N; c++)
                free(t[c]);
            fflush(stdout);
            fprintf(stderr, "pami_rma: %llu bytes done\n", (unsigned long long)size);
        }
    }
    pb_fini();
    return 0;
}
