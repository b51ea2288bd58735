/* Bandwidth and message rate through the emulated NIC, with memcpy measured
 * in the same run as the floor.
 *
 *   emunic-run -N 2 -n 1 -- core_bw [options]
 *
 * Rank 0 moves data to and from the last rank ("the peer"); other ranks wait.
 * Every case is windowed: post a window of operations, each asking for its
 * own remote completion, then wait for all of them. Within a window each
 * operation uses its own slot of the buffers, and the slots span at most
 * --span bytes (64 MiB by default, twice the L3 of the usual CI host), so
 * large sizes stream from memory the way a big transfer would. memcpy runs
 * the very same slot pattern in one process.
 *   memcpy          rank 0 copies between two of its own buffers
 *   vm_readv        process_vm_readv from a forked helper's private buffer
 *                   into rank 0's heap: the one-copy floor of private memory
 *   vm_bounce_2M    readv from one helper into a 2 MiB bounce buffer, writev
 *                   into another, per 2 MiB: the NIC's private -> private path
 *   vm_bounce_256K  the same with an L2-sized 256 KiB bounce (see vmcopy.h)
 *   write_heap      heap -> peer heap       (one memcpy by the peer's NIC)
 *   write_private   malloc -> exposed malloc (process_vm_readv + writev)
 *   read_heap       peer heap -> heap
 *   read_private    exposed malloc -> malloc
 *   msgrate_all_cq  8-byte writes, window 64, every one completed
 *   msgrate_last_cq 8-byte writes, window 64, only the last completed (the
 *                   NIC keeps per-pair order, so that covers the window) */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"
#include "vmcopy.h"

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long window;
    uint64_t span;
    uint64_t volume;  /* bytes per trial, sets the number of windows */
    long min_windows, max_windows;
    long trials;
    long msg_windows; /* windows per message-rate trial */
};

struct peer_info {
    uint64_t heap;    /* peer's heap buffer */
    uint64_t priv;    /* peer's exposed private buffer */
    uint32_t priv_key;
};

enum kind { K_MEMCPY, K_VM_READV, K_VM_BOUNCE, K_WRITE, K_READ };

struct bufs {
    char *heap, *priv;  /* rank 0's own */
    struct peer_info peer;
    uint32_t peer_rank;
    struct vmcopy vm;   /* helpers for the process_vm floors */
};

static int is_nic(enum kind k) { return k == K_WRITE || k == K_READ; }

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 -- core_bw [options]\n"
            "Windowed write/read bandwidth (heap and private memory) and 8-byte message\n"
            "rate through the emulated NIC, against memcpy in the same run.\n"
            "  --sizes LIST        8,64,1M or LO:HI (powers of two) or LO:HI:F\n"
            "                      (default 8:16M:4 plus 1M)\n"
            "  --window N          operations in flight per window (64)\n"
            "  --span BYTES        most memory the slots of a window cover (64M)\n"
            "  --volume BYTES      bytes moved per trial (256M); the window count is\n"
            "                      clamped to --min-windows..--max-windows (3..1000)\n"
            "  --min-windows N, --max-windows N\n"
            "  --trials N          trials per size, interleaved across cases; the\n"
            "                      median is reported (5)\n"
            "  --msg-windows N     windows per message-rate trial (2000)\n"
            "  -h, --help          this text\n");
}

static void add_size(struct opts *o, uint64_t s)
{
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] == s)
            return;
    o->sizes = realloc(o->sizes, (o->nsizes + 1) * sizeof *o->sizes);
    if (!o->sizes)
        exit(1);
    size_t i = o->nsizes++;
    while (i > 0 && o->sizes[i - 1] > s) {
        o->sizes[i] = o->sizes[i - 1];
        i--;
    }
    o->sizes[i] = s;
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 'z'},       {"window", required_argument, 0, 'w'},
        {"span", required_argument, 0, 's'},        {"volume", required_argument, 0, 'v'},
        {"min-windows", required_argument, 0, 'm'}, {"max-windows", required_argument, 0, 'M'},
        {"trials", required_argument, 0, 't'},      {"msg-windows", required_argument, 0, 'r'},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0},
    };
    *o = (struct opts){.window = 64, .span = 64ull << 20, .volume = 256ull << 20,
                       .min_windows = 3, .max_windows = 1000, .trials = 5, .msg_windows = 2000};
    const char *sizes = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'z': sizes = optarg; break;
        case 'w': o->window = bench_parse_long("--window", optarg, 1, 4096); break;
        case 's':
        case 'v':
            if (bench_parse_size(optarg, c == 's' ? &o->span : &o->volume)) {
                fprintf(stderr, "%s: cannot parse '%s'\n", c == 's' ? "--span" : "--volume", optarg);
                exit(2);
            }
            break;
        case 'm': o->min_windows = bench_parse_long("--min-windows", optarg, 1, 1000000000); break;
        case 'M': o->max_windows = bench_parse_long("--max-windows", optarg, 1, 1000000000); break;
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 1000); break;
        case 'r': o->msg_windows = bench_parse_long("--msg-windows", optarg, 1, 1000000000); break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        usage(stderr);
        exit(2);
    }
    if (o->max_windows < o->min_windows)
        o->max_windows = o->min_windows;
    if (sizes) {
        if (bench_parse_sizes(sizes, &o->sizes, &o->nsizes)) {
            fprintf(stderr, "--sizes: cannot parse '%s'\n", sizes);
            exit(2);
        }
    } else {
        bench_parse_sizes("8:16M:4", &o->sizes, &o->nsizes);
        add_size(o, 1u << 20); /* the size the target is stated at */
        add_size(o, 16u << 20);
    }
}

static uint64_t max_size(const struct opts *o)
{
    uint64_t m = 8;
    for (size_t i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > m)
            m = o->sizes[i];
    return m;
}

/* Slots of a window: each operation its own, within the span. */
static long nslots(const struct opts *o, uint64_t size)
{
    uint64_t n = o->span / size;
    if (n < 1)
        n = 1;
    return n < (uint64_t)o->window ? (long)n : o->window;
}

static uint64_t buf_bytes(const struct opts *o)
{
    uint64_t m = max_size(o), b = o->span > m ? o->span : m;
    /* a window of the largest size needs at least one slot */
    return b;
}

static long windows_for(const struct opts *o, uint64_t size)
{
    uint64_t w = o->volume / (size * (uint64_t)o->window);
    if (w < (uint64_t)o->min_windows)
        w = (uint64_t)o->min_windows;
    if (w > (uint64_t)o->max_windows)
        w = (uint64_t)o->max_windows;
    return (long)w;
}

/* Post one window of kind k and wait for it. arg selects private memory
 * for the NIC cases and is the chunk size of K_VM_BOUNCE. */
static void one_window(const struct opts *o, struct bufs *b, enum kind k, uint64_t arg,
                       uint64_t size, int last_only)
{
    long slots = nslots(o, size);
    int private_ = arg != 0;
    char *mine = private_ ? b->priv : b->heap;
    uint64_t theirs = private_ ? b->peer.priv : b->peer.heap;
    uint32_t key = private_ ? b->peer.priv_key : EMU_KEY_HEAP;
    if (!is_nic(k)) {
        for (long w = 0; w < o->window; w++) {
            uint64_t off = (uint64_t)(w % slots) * size;
            int rc = 0;
            if (k == K_MEMCPY)
                memcpy(b->priv + off, b->heap + off, size);
            else if (k == K_VM_READV)
                rc = vmcopy_readv(&b->vm, off, b->heap + off, size);
            else
                rc = vmcopy_bounce(&b->vm, off, size, arg);
            BE_CHECK(rc == 0, "process_vm copy failed: %s", strerror(errno));
        }
        return;
    }
    for (long w = 0; w < o->window; w++) {
        uint64_t off = (uint64_t)(w % slots) * size;
        unsigned fl = !last_only || w == o->window - 1 ? EMU_F_REMOTE_CQ : 0;
        int rc = k == K_WRITE
                     ? emunic_write(b->peer_rank, key, theirs + off, mine + off, size, fl, be_cookie(), 0)
                     : emunic_read(b->peer_rank, key, theirs + off, mine + off, size, fl, be_cookie());
        BE_CHECK(rc == 0, "post: %d", rc);
    }
    be_wait_dones(last_only ? 1 : o->window);
}

/* One trial: `windows` windows of kind k; returns bytes per second and
 * adds the job counters of the trial to *d (NIC cases). */
static double trial(const struct opts *o, struct bufs *b, enum kind k, uint64_t arg, uint64_t size,
                    long windows, int last_only, struct be_ctrs *d, double *secs)
{
    struct be_ctrs c0, c1, x;
    if (is_nic(k))
        be_ctrs_read(&c0);
    int64_t t0 = bench_now_ns();
    for (long w = 0; w < windows; w++)
        one_window(o, b, k, arg, size, last_only);
    double s = (double)(bench_now_ns() - t0) / 1e9;
    if (is_nic(k)) {
        be_ctrs_read(&c1);
        be_ctrs_sub(&c1, &c0, &x);
        uint64_t *pd = (uint64_t *)d;
        const uint64_t *px = (const uint64_t *)&x;
        for (size_t i = 0; i < sizeof x / sizeof(uint64_t); i++)
            pd[i] += px[i];
    }
    *secs += s;
    return (double)windows * (double)o->window * (double)size / s;
}

static void row(const char *cas, uint64_t size, const struct opts *o, long windows, double bps,
                double ratio, double secs, const struct be_ctrs *d, double ops)
{
    printf("core_bw,%s,%llu,%ld,%ld,%ld,%.2f,%.0f,%.3f,%.3f,", cas, (unsigned long long)size,
           o->window, windows, o->trials, bps / 1e6, bps / (double)size, ratio, secs);
    if (d)
        be_ctrs_csv(stdout, d, ops);
    else
        be_ctrs_csv_blank(stdout);
    putchar('\n');
    fflush(stdout);
}

static const struct bw_case {
    const char *name;
    enum kind k;
    uint64_t arg;
} cases[] = {
    {"memcpy", K_MEMCPY, 0},
    {"vm_readv", K_VM_READV, 0},
    {"vm_bounce_2M", K_VM_BOUNCE, 2u << 20},
    {"vm_bounce_256K", K_VM_BOUNCE, 256u << 10},
    {"write_heap", K_WRITE, 0},
    {"write_private", K_WRITE, 1},
    {"read_heap", K_READ, 0},
    {"read_private", K_READ, 1},
};
enum { NC = sizeof cases / sizeof cases[0] };

/* Every case at one size. Trials of all cases interleave (trial t of each
 * case, then trial t+1), so memcpy sees the same host as the NIC cases: on
 * a shared VM memory bandwidth drifts by 2x within a minute. Each case's
 * bandwidth is the median over trials, its ratio the median of the
 * per-trial ratios to the memcpy trial next to it. Returns the ratios. */
static void one_size(const struct opts *o, struct bufs *b, uint64_t size, double *ratio_out)
{
    long windows = windows_for(o, size), trials = o->trials;
    double *bw = calloc((size_t)(NC * trials), sizeof *bw);
    double *ratio = calloc((size_t)trials, sizeof *ratio);
    struct be_ctrs d[NC];
    double secs[NC];
    BE_CHECK(bw && ratio, "out of memory");
    memset(d, 0, sizeof d);
    memset(secs, 0, sizeof secs);
    /* warm-up: faults in every slot in every mapping (the NIC's too) */
    for (int c = 0; c < NC; c++)
        one_window(o, b, cases[c].k, cases[c].arg, size, 0);
    for (long t = 0; t < trials; t++)
        for (int c = 0; c < NC; c++)
            bw[c * trials + t] =
                trial(o, b, cases[c].k, cases[c].arg, size, windows, 0, &d[c], &secs[c]);
    double ops = (double)windows * (double)o->window * (double)trials;
    char s[16];
    for (int c = 0; c < NC; c++) {
        for (long t = 0; t < trials; t++)
            ratio[t] = bw[c * trials + t] / bw[t];
        double r = bench_median(ratio, (size_t)trials);
        double m = bench_median(bw + c * trials, (size_t)trials);
        ratio_out[c] = r;
        row(cases[c].name, size, o, windows, m, r, secs[c], is_nic(cases[c].k) ? &d[c] : NULL, ops);
        fprintf(stderr, "%-14s %6s %10.1f MB/s  %5.2fx memcpy", cases[c].name,
                bench_fmt_size(size, s, sizeof s), m / 1e6, r);
        if (is_nic(cases[c].k))
            fprintf(stderr, "  per op: %.3f NIC wake-ups, %.3f rank wake-ups, %.2f copies",
                    (double)d[c].nic_wakeups / ops, (double)d[c].rank_wakeups / ops,
                    (double)(d[c].shm_copies + d[c].vm_copies) / ops);
        fputc('\n', stderr);
    }
    free(bw);
    free(ratio);
}

static void run(const struct opts *o, struct bufs *b)
{
    double at_mib[NC] = {0};
    for (size_t i = 0; i < o->nsizes; i++) {
        double r[NC];
        one_size(o, b, o->sizes[i], r);
        if (o->sizes[i] == 1u << 20)
            memcpy(at_mib, r, sizeof r);
    }
    /* message rate: 8-byte writes to the peer's heap */
    for (int last = 0; last < 2; last++) {
        struct be_ctrs d = {0};
        double secs = 0, rate[1000];
        long trials = o->trials < 1000 ? o->trials : 1000;
        one_window(o, b, K_WRITE, 0, 8, last);
        for (long t = 0; t < trials; t++)
            rate[t] = trial(o, b, K_WRITE, 0, 8, o->msg_windows, last, &d, &secs);
        double bps = bench_median(rate, (size_t)trials);
        double ops = (double)o->msg_windows * (double)o->window * (double)trials;
        row(last ? "msgrate_last_cq" : "msgrate_all_cq", 8, o, o->msg_windows, bps, 0, secs, &d, ops);
        fprintf(stderr, "%-16s   8 B %10.0f msgs/s  per msg: %.3f NIC wake-ups, %.3f rank wake-ups, "
                        "%.2f NIC idle yields, %.2f ctx switches\n",
                last ? "msgrate_last_cq" : "msgrate_all_cq", bps / 8, (double)d.nic_wakeups / ops,
                (double)d.rank_wakeups / ops, (double)d.nic_idle_polls / ops,
                (double)(d.vcsw + d.ivcsw) / ops);
    }
    if (at_mib[0] > 0) {
        fprintf(stderr, "at 1 MiB (median of per-trial ratios to memcpy):");
        for (int c = 1; c < NC; c++)
            fprintf(stderr, " %s %.2fx", cases[c].name, at_mib[c]);
        fputc('\n', stderr);
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    struct peer_info *info = be_init(4096);
    uint32_t me = emunic_rank(), n = emunic_size();
    BE_CHECK(n >= 2, "needs at least 2 ranks (emunic-run -N 2 -n 1)");
    uint32_t peer = n - 1;
    uint64_t bytes = buf_bytes(&o);
    struct bufs b = {.peer_rank = peer};
    if (me == 0 || me == peer) {
        b.heap = emunic_malloc(bytes);
        BE_CHECK(b.heap, "emunic_malloc(%llu) failed: raise --heap", (unsigned long long)bytes);
        memset(b.heap, 0x11 * (int)(me + 1), bytes);
        b.priv = bench_alloc_touched(bytes);
        int64_t key = emunic_expose(b.priv, bytes, EMU_PERM_READ | EMU_PERM_WRITE);
        BE_CHECK(key > 0, "expose: %lld", (long long)key);
        info->heap = (uint64_t)(uintptr_t)b.heap;
        info->priv = (uint64_t)(uintptr_t)b.priv;
        info->priv_key = (uint32_t)key;
    }
    be_barrier();
    if (me == 0) {
        be_fetch_info(peer, &b.peer, sizeof b.peer);
        bench_header(stdout, argc, argv);
        printf("# nodes=%u ranks=%u peer=%u; window=%ld span=%llu; mbps = 1e6 bytes/s; ops_s = "
               "operations/s; ratio_memcpy = median over trials of mbps / mbps of the memcpy trial run next to it; *_op = per operation, "
               "whole job\n",
               emunic_nnodes(), n, peer, o.window, (unsigned long long)o.span);
        printf("bench,case,size,window,windows,trials,mbps,ops_s,ratio_memcpy,seconds," BE_CTRS_CSV_HEADER
               "\n");
        fflush(stdout);
        fprintf(stderr, "core_bw: %u nodes x %u ranks, rank 0 <-> rank %u, host %s, %ld cpus\n",
                emunic_nnodes(), emunic_local_size(), peer, bench_host(), bench_nproc());
        BE_CHECK(vmcopy_open(&b.vm, b.priv, bytes, 2u << 20) == 0, "cannot fork the vm_* helpers");
        run(&o, &b);
        vmcopy_close(&b.vm);
    }
    be_barrier();
    free(o.sizes);
    emunic_finalize();
    return 0;
}
