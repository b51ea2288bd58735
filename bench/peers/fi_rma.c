/* libfabric peer of bench/run_peers.sh: the one-sided operations emunic's
 * benchmarks time, over a libfabric FI_EP_RDM endpoint with FI_RMA between
 * two processes of this box (run it with FI_PROVIDER=shm; the provider is
 * also asked for by name).
 *
 * The parent process is the initiator and a forked child the target; they
 * swap endpoint names and memory keys over a socketpair, so the bootstrap
 * needs neither a launcher nor the network. Every write asks for
 * FI_DELIVERY_COMPLETE: its completion means the data is in the target's
 * memory, the semantic of a Portals put with an ACK or an MPI put followed
 * by a flush, which is what it is compared with.
 *
 * Output, one "metric,value" line each (comments start with '#'):
 *   put_lat_8B_us     8 B write + its completion, median round trip
 *   get_lat_8B_us     8 B read + its completion, median round trip
 *   put_bw_1M_MBps    1 MiB writes, --bw-window in flight, median of trials
 *   msgrate_8B_per_s  8 B writes, --rate-window in flight, median of trials
 *   put_lat_<N>B_us   with --lat-sizes: an N-byte write as put_lat_8B_us,
 *                     one line per size, after a "# lat-sizes" comment
 *
 *   fi_rma [--iters N] [--warmup N] [--trials T] [--bw-window W]
 *          [--bw-windows N] [--rate-window W] [--rate-windows N]
 *          [--lat-sizes LIST] */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peer_stats.h"

#define BIG (1u << 20) /* the bandwidth message, and the buffer size */
#define SMALL 8u
#define MAX_WINDOW 1024

static const char *prog = "fi_rma";

/* What one side tells the other: its endpoint name and how to reach its
 * registered buffer. Fixed size, so one write/read moves it whole. */
struct card {
    uint64_t addr, key;
    size_t namelen;
    char name[256];
};

struct side {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    void *desc;
    char *buf;
    fi_addr_t peer;
    uint64_t raddr, rkey;
    uint64_t done; /* completions reaped so far */
    struct fi_context2 ctx[MAX_WINDOW];
};

static void die(const char *what, long rc)
{
    fprintf(stderr, "%s: %s failed: %ld (%s)\n", prog, what, rc, fi_strerror((int)(rc < 0 ? -rc : rc)));
    exit(1);
}

static void check(const char *what, long rc)
{
    if (rc != 0)
        die(what, rc);
}

/* Reads whatever completions are there, without waiting: also the call
 * that drives the shm provider's manual progress on this side. */
static void reap(struct side *s)
{
    struct fi_cq_entry ev[16];
    ssize_t n = fi_cq_read(s->cq, ev, 16);
    if (n > 0) {
        s->done += (uint64_t)n;
    } else if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof err);
        fi_cq_readerr(s->cq, &err, 0);
        fprintf(stderr, "%s: operation failed: %s\n", prog, fi_strerror(err.err));
        exit(1);
    } else if (n != -FI_EAGAIN) {
        die("fi_cq_read", (long)n);
    }
}

static void wait_done(struct side *s, uint64_t target)
{
    while (s->done < target)
        reap(s);
}

/* One RMA operation; a full transmit queue (-FI_EAGAIN) is relieved by
 * reaping, as the libfabric man pages ask of a caller. */
static void post(struct side *s, int is_read, size_t len, size_t slot)
{
    struct iovec iov = {.iov_base = s->buf, .iov_len = len};
    struct fi_rma_iov riov = {.addr = s->raddr, .len = len, .key = s->rkey};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &s->desc,
                             .iov_count = 1,
                             .addr = s->peer,
                             .rma_iov = &riov,
                             .rma_iov_count = 1,
                             .context = &s->ctx[slot]};
    for (;;) {
        ssize_t rc = is_read ? fi_readmsg(s->ep, &msg, FI_COMPLETION)
                             : fi_writemsg(s->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            die(is_read ? "fi_readmsg" : "fi_writemsg", (long)rc);
        reap(s);
    }
}

static void open_side(struct side *s)
{
    struct fi_info *hints = fi_allocinfo();
    if (!hints)
        die("fi_allocinfo", -FI_ENOMEM);
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2; /* every operation gets its own context */
    /* The memory-registration modes this program copes with: it passes
     * local descriptors, uses the provider's keys and follows
     * FI_MR_VIRT_ADDR when the provider wants it. */
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->fabric_attr->prov_name = strdup("shm");
    check("fi_getinfo", fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &s->info));
    fi_freeinfo(hints);

    struct fi_info *fi = s->info;
    check("fi_fabric", fi_fabric(fi->fabric_attr, &s->fabric, NULL));
    check("fi_domain", fi_domain(s->fabric, fi, &s->domain, NULL));
    struct fi_av_attr av_attr = {.type = FI_AV_UNSPEC, .count = 2};
    check("fi_av_open", fi_av_open(s->domain, &av_attr, &s->av, NULL));
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 2 * MAX_WINDOW, .wait_obj = FI_WAIT_NONE};
    check("fi_cq_open", fi_cq_open(s->domain, &cq_attr, &s->cq, NULL));
    check("fi_endpoint", fi_endpoint(s->domain, fi, &s->ep, NULL));
    check("fi_ep_bind av", fi_ep_bind(s->ep, &s->av->fid, 0));
    check("fi_ep_bind cq", fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV));
    check("fi_enable", fi_enable(s->ep));

    /* Page-aligned, as a real application's RMA buffer would usually be. */
    if (posix_memalign((void **)&s->buf, 4096, BIG))
        die("posix_memalign", -FI_ENOMEM);
    memset(s->buf, 0, BIG);
    check("fi_mr_reg", fi_mr_reg(s->domain, s->buf, BIG, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0,
                                 0, &s->mr, NULL));
    s->desc = fi_mr_desc(s->mr);
}

static void close_side(struct side *s)
{
    fi_close(&s->ep->fid);
    fi_close(&s->mr->fid);
    fi_close(&s->cq->fid);
    fi_close(&s->av->fid);
    fi_close(&s->domain->fid);
    fi_close(&s->fabric->fid);
    fi_freeinfo(s->info);
    free(s->buf);
}

static void full_io(int fd, void *p, size_t n, int out)
{
    char *c = p;
    while (n > 0) {
        ssize_t k = out ? write(fd, c, n) : read(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            fprintf(stderr, "%s: bootstrap socket %s failed\n", prog, out ? "write" : "read");
            exit(1);
        }
        c += k;
        n -= (size_t)k;
    }
}

/* Swap cards with the other process and put it in the address vector. */
static void exchange(struct side *s, int fd)
{
    struct card mine, theirs;
    memset(&mine, 0, sizeof mine);
    mine.namelen = sizeof mine.name;
    check("fi_getname", fi_getname(&s->ep->fid, mine.name, &mine.namelen));
    mine.key = fi_mr_key(s->mr);
    mine.addr = (s->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)s->buf : 0;
    full_io(fd, &mine, sizeof mine, 1);
    full_io(fd, &theirs, sizeof theirs, 0);
    if (theirs.namelen > sizeof theirs.name)
        die("peer card", -FI_EINVAL);
    int n = fi_av_insert(s->av, theirs.name, 1, &s->peer, 0, NULL);
    if (n != 1)
        die("fi_av_insert", n < 0 ? n : -FI_EINVAL);
    s->raddr = theirs.addr;
    s->rkey = theirs.key;
}

/* The target only has to drive progress (the shm provider executes
 * incoming RMA and returns delivery acknowledgements from inside its
 * fi_cq_read) until the initiator says it is done or goes away. */
static void serve(struct side *s, int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    for (unsigned long spin = 0;; spin++) {
        reap(s);
        /* a syscall every iteration would slow the progress it drives */
        if ((spin & 1023) == 0 && poll(&pfd, 1, 0) != 0)
            break;
    }
}

static double latency(struct side *s, int is_read, size_t len, long warmup, long iters, double *samples)
{
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = peer_now_us();
        post(s, is_read, len, 0);
        wait_done(s, s->done + 1);
        if (i >= warmup)
            samples[i - warmup] = peer_now_us() - t0;
    }
    return peer_median(samples, (size_t)iters);
}

/* windows of `window` writes of len bytes, each window waited for whole;
 * returns operations per second */
static double windows(struct side *s, size_t len, long window, long count)
{
    double t0 = peer_now_us();
    for (long w = 0; w < count; w++) {
        uint64_t base = s->done;
        for (long k = 0; k < window; k++)
            post(s, 0, len, (size_t)k);
        wait_done(s, base + (uint64_t)window);
    }
    return (double)(window * count) / ((peer_now_us() - t0) / 1e6);
}

/* One write and a read back: a wrong key or address fails here, not as a
 * suspiciously fast number. */
static void sanity(struct side *s)
{
    for (unsigned i = 0; i < SMALL; i++)
        s->buf[i] = (char)(0x5a + i);
    post(s, 0, SMALL, 0);
    wait_done(s, s->done + 1);
    memset(s->buf, 0, SMALL);
    post(s, 1, SMALL, 0);
    wait_done(s, s->done + 1);
    for (unsigned i = 0; i < SMALL; i++)
        if (s->buf[i] != (char)(0x5a + i)) {
            fprintf(stderr, "%s: read back of a write differs at byte %u\n", prog, i);
            exit(1);
        }
}

static void usage(FILE *f)
{
    fprintf(f, "usage: FI_PROVIDER=shm fi_rma [--iters N] [--warmup N] [--trials T] [--bw-window W]\n"
               "              [--bw-windows N] [--rate-window W] [--rate-windows N] [--lat-sizes LIST]\n"
               "libfabric shm RMA between this process and a forked child: 8 B write (delivery\n"
               "complete) and read latency, 1 MiB write bandwidth, 8 B write rate.\n"
               "--lat-sizes 8,64,4K,1M: also the write latency at each size (up to 1M).\n"
               "Prints metric,value lines.\n");
}

int main(int argc, char **argv)
{
    struct peer_opts o;
    int st = peer_parse_opts(argc, argv, prog, MAX_WINDOW, BIG, 0, usage, &o);
    if (st >= 0)
        return st;
    long iters = o.iters, warmup = o.warmup, trials = o.trials, bw_window = o.bw_window, bw_windows = o.bw_windows,
         rate_window = o.rate_window, rate_windows = o.rate_windows;

    /* Fork before any libfabric call: each process must own its provider
     * state, as two separately launched ranks would. */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("fi_rma: socketpair");
        return 1;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        perror("fi_rma: fork");
        return 1;
    }
    static struct side s;
    if (child == 0) {
        prog = "fi_rma(target)";
        close(sv[0]);
        /* never outlive the initiator, whatever kills it; SIGTERM, which
         * the shm provider catches to unlink its region */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1)
            _exit(1);
        open_side(&s);
        exchange(&s, sv[1]);
        serve(&s, sv[1]);
        /* close properly: the provider unlinks its shm region on close */
        close_side(&s);
        exit(0);
    }
    close(sv[1]);
    open_side(&s);
    exchange(&s, sv[0]);
    sanity(&s);

    double *samples = malloc(sizeof(double) * (size_t)(iters > trials ? iters : trials));
    double *trial = malloc(sizeof(double) * (size_t)trials);
    if (!samples || !trial)
        die("malloc", -FI_ENOMEM);
    printf("# fi_rma provider=%s fabric=%s version=%u.%u iters=%ld trials=%ld bw_window=%ld rate_window=%ld\n",
           s.info->fabric_attr->prov_name, s.info->fabric_attr->name, FI_MAJOR(fi_version()), FI_MINOR(fi_version()),
           iters, trials, bw_window, rate_window);
    printf("put_lat_8B_us,%.3f\n", latency(&s, 0, SMALL, warmup, iters, samples));
    printf("get_lat_8B_us,%.3f\n", latency(&s, 1, SMALL, warmup, iters, samples));
    windows(&s, BIG, bw_window, 1); /* warm the 1 MiB path (mappings, bounce buffers) */
    for (long t = 0; t < trials; t++)
        trial[t] = windows(&s, BIG, bw_window, bw_windows) * BIG / 1e6;
    printf("put_bw_1M_MBps,%.1f\n", peer_median(trial, (size_t)trials));
    windows(&s, SMALL, rate_window, 10);
    for (long t = 0; t < trials; t++)
        trial[t] = windows(&s, SMALL, rate_window, rate_windows);
    printf("msgrate_8B_per_s,%.0f\n", peer_median(trial, (size_t)trials));
    /* after the fixed metrics, so their lines and timing stay as without
     * the option; the marker tells a reader the 8 B line again is the sweep's */
    if (o.n_sizes > 0)
        printf("# lat-sizes: write (delivery complete) + completion, median of %ld\n", iters);
    for (int i = 0; i < o.n_sizes; i++)
        printf("put_lat_%ldB_us,%.3f\n", o.sizes[i], latency(&s, 0, (size_t)o.sizes[i], warmup, iters, samples));
    fflush(stdout);

    /* tell the target to stop, then tear down in the usual order */
    char bye = 0;
    full_io(sv[0], &bye, 1, 1);
    int status = 0;
    waitpid(child, &status, 0);
    close_side(&s);
    free(samples);
    free(trial);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: the target process failed (status %d)\n", prog, status);
        return 1;
    }
    return 0;
}
