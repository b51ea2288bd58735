/* Hot-spot congestion: every rank off node 0 writes to rank 0's heap at an
 * offered load, and we report how much slower each write completes than on
 * an idle network. The machine model (--machine, with finite links) makes
 * the hot node's reception port and the links into it the bottleneck, so
 * the slowdown grows with the load.
 *
 *   emunic-run -N NODES -n 1 --machine bgq --dilate K -- congestion [options]
 *
 * Each sender posts writes of --size bytes (EMU_F_REMOTE_CQ) open loop,
 * with exponentially distributed gaps (Poisson arrivals) so that all
 * senders together offer LOAD x link bandwidth to node 0, for each LOAD of --loads; latency per write is timed on the
 * rank's clock (dilated: machine time). The baseline is one sender alone,
 * unpaced. CSV on stdout (rank 1 collects through rank 0's heap):
 *   congestion,machine,dilate,senders,size,load,mean_us,base_us,slowdown */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"
#include "emunic/job.h"

struct opts {
    uint64_t size;
    double loads[16];
    int nloads;
    long iters;
};

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"size", required_argument, 0, 's'}, {"loads", required_argument, 0, 'l'},
        {"iters", required_argument, 0, 'i'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (struct opts){.size = 4096, .iters = 200};
    const char *loads = "0.1,0.3,0.5,0.7,0.9,1.2";
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': o->size = (uint64_t)bench_parse_long("--size", optarg, 1, 1 << 20); break;
        case 'l': loads = optarg; break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 1000000); break;
        case 'h':
            printf("usage: emunic-run -N NODES -n 1 --machine M [--dilate K] -- congestion\n"
                   "  [--size BYTES (4096)] [--loads 0.1,0.3,... (offered load, fraction of link bw)]\n"
                   "  [--iters N writes per sender per load (200)]\n");
            exit(0);
        default: exit(2);
        }
    }
    char *copy = strdup(loads), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && o->nloads < 15; t = strtok_r(NULL, ",", &save))
        o->loads[o->nloads++] = strtod(t, NULL);
    free(copy);
    if (!o->nloads) {
        fprintf(stderr, "congestion: --loads '%s' is not a list\n", loads);
        exit(2);
    }
}

/* n writes to rank 0, open loop: one posted every `gap` ns of the rank's
 * clock whatever is still in flight (gap 0: one at a time, back to back);
 * returns the mean time from post to completion, us. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* Exponential variate of mean `mean` (Poisson arrivals: queues form below
 * saturation, as with independent traffic; evenly paced senders would
 * never queue until the load passes 1). */
static int64_t expo(int64_t mean)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    double u = ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
    return (int64_t)(-log(u) * (double)mean);
}

static double send(uint64_t raddr, const void *src, uint64_t size, long n, int64_t gap, double k)
{
    static uint64_t ck_next = 1ull << 50;
    int64_t *t_post = calloc((size_t)n, sizeof *t_post);
    BE_CHECK(t_post != NULL, "out of memory");
    uint64_t base = ck_next;
    ck_next += (uint64_t)n;
    long posted = 0, done = 0;
    double sum = 0;
    int64_t next = bench_now_ns();
    while (done < n) {
        int64_t now = bench_now_ns();
        int due = gap ? now >= next : posted == done;
        if (posted < n && due && posted - done < 256) {
            t_post[posted] = now;
            int e = emunic_write(0, EMU_KEY_HEAP, raddr, src, size, EMU_F_REMOTE_CQ, base + (uint64_t)posted, 0);
            BE_CHECK(e == 0, "write: %d", e);
            posted++;
            next += gap ? expo(gap) : 0;
            continue;
        }
        int64_t tmo = -1;
        if (gap && posted < n)
            tmo = next > now ? (int64_t)((double)(next - now) * k) : 0;
        struct emu_msg m[16];
        int c = emunic_wait(m, 16, tmo);
        BE_CHECK(c >= 0, "wait: %d", c);
        int64_t t = bench_now_ns();
        for (int i = 0; i < c; i++) {
            if (m[i].op != EMU_CQ_DONE || m[i].cookie < base || m[i].cookie >= base + (uint64_t)n)
                continue;
            BE_CHECK(m[i].status == 0, "write failed: %s", emu_status_str(m[i].status));
            sum += (double)(t - t_post[m[i].cookie - base]) / 1e3;
            done++;
        }
    }
    free(t_post);
    return sum / (double)n;
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    /* rank 0's info block is the target and the results board */
    double *board = be_init(o.size + 64 * 16 * sizeof(double));
    uint32_t me = emunic_rank(), n = emunic_size(), rpn = emunic_local_size();
    BE_CHECK(emunic_nnodes() >= 2, "needs at least 2 nodes");
    struct emu_job job;
    BE_CHECK(emu_job_attach(&job, emunic_jobid()) == 0, "attach");
    struct emu_netcfg *net = emu_job_netcfg(&job);
    double k = net->dilate, bw = (double)net->m.link_bw;
    BE_CHECK(bw > 0, "--machine %s has infinite links: nothing to congest", net->m.name);
    uint64_t raddr = emunic_heap_addr(0);
    char *src = emunic_malloc(o.size);
    memset(src, 1, o.size);
    uint32_t senders = n - rpn; /* every rank off node 0 */
    rng ^= 0x2545f4914f6cdd1dull * (me + 1);
    int sender = me >= rpn;
    double base = 0;
    if (me == rpn)
        base = send(raddr, src, o.size, o.iters, 0, k);
    be_barrier();
    if (me == 0) {
        bench_header(stdout, argc, argv);
        printf("bench,machine,dilate,senders,size,load,mean_us,base_us,slowdown\n");
    }
    for (int l = 0; l < o.nloads; l++) {
        /* offered load: senders x size / gap = load x bw */
        int64_t gap = (int64_t)((double)senders * (double)o.size * 1e9 / (o.loads[l] * bw));
        double mean = sender ? send(raddr, src, o.size, o.iters, gap, k) : 0;
        if (sender) { /* post mean into rank 0's board: slot [l][me] */
            uint64_t at = raddr + o.size + ((uint64_t)l * 64 + (me % 64)) * sizeof(double);
            uint64_t ck = be_cookie();
            BE_CHECK(emunic_write(0, EMU_KEY_HEAP, at, &mean, sizeof mean, EMU_F_REMOTE_CQ, ck, 0) == 0, "post");
            be_wait_cookie(ck);
            if (me == rpn) {
                at = raddr + o.size + (15u * 64) * sizeof(double);
                ck = be_cookie();
                BE_CHECK(emunic_write(0, EMU_KEY_HEAP, at, &base, sizeof base, EMU_F_REMOTE_CQ, ck, 0) == 0, "post");
                be_wait_cookie(ck);
            }
        }
        be_barrier();
        if (me == 0) {
            double *res = (double *)((char *)board + o.size), sum = 0;
            for (uint32_t r = rpn; r < n && r < 64 + rpn; r++)
                sum += res[l * 64 + (r % 64)];
            double m = sum / senders, b = res[15 * 64];
            printf("congestion,%s,%g,%u,%llu,%.2f,%.3f,%.3f,%.3f\n", net->m.name, k, senders,
                   (unsigned long long)o.size, o.loads[l], m, b, b > 0 ? m / b : 0);
            fflush(stdout);
        }
        be_barrier();
    }
    emu_job_detach(&job);
    emunic_finalize();
    return 0;
}
