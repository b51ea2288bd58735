/* What a rank can write of the job segment (issue 19, emu_job_attach_rank):
 * its own entry and queues, and nothing else. Every rank probes its own mapping of the segment (found
 * in /proc/self/maps, as a stray pointer would find it) with atomic adds of
 * zero, which change nothing but are stores to the MMU: each must fault
 * outside those pieces and succeed inside, at both ends of each piece. It
 * also checks that mprotect cannot make the header writable and that no
 * descriptor of the segment stays open in the rank.
 *
 *   core_segment_ro          the probes; prints "segment_ro: rank R ..."
 *   core_segment_ro stray    rank 1 stores 0 into the header's
 *                            ranks_per_node as a wild pointer would; it
 *                            must die of SIGSEGV (segment_ro.sh checks that
 *                            the launcher names it and the rest is clean) */
#include "itest.h"
#include "emunic/job.h"

#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf probe_jb;
static volatile sig_atomic_t probing;

static void on_segv(int sig)
{
    if (!probing) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    siglongjmp(probe_jb, 1);
}

/* 1 if an atomic add of 0 to the byte at p faulted */
static int store_faults(volatile uint8_t *p)
{
    if (sigsetjmp(probe_jb, 1)) {
        probing = 0;
        return 1;
    }
    probing = 1;
    __atomic_fetch_add(p, 0, __ATOMIC_RELAXED);
    probing = 0;
    return 0;
}

/* The lowest address this process maps the segment's memfd at offset 0:
 * the rank's own view of it. */
static char *rank_view(const char *jobid)
{
    char want[128], line[512];
    snprintf(want, sizeof want, "/memfd:emunic.%s.job", jobid);
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f, "open /proc/self/maps");
    char *base = NULL;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, off;
        char path[256] = "";
        if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %255s", &lo, &off, path) < 2)
            continue;
        if (off == 0 && strcmp(path, want) == 0 && (!base || (char *)lo < base))
            base = (char *)lo;
    }
    fclose(f);
    return base;
}

static int open_fds_of(const char *jobid)
{
    char want[128], link[512], path[300];
    snprintf(want, sizeof want, "/memfd:emunic.%s.job", jobid);
    DIR *d = opendir("/proc/self/fd");
    CHECK(d, "open /proc/self/fd");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k <= 0)
            continue;
        link[k] = 0;
        n += strncmp(link, want, strlen(want)) == 0;
    }
    closedir(d);
    return n;
}

static unsigned nfault, nallow;

static void expect(char *view, uint64_t off, int faults, const char *what, long idx)
{
    int got = store_faults((volatile uint8_t *)(view + off));
    CHECK(got == faults, "a store into %s (%ld) at segment offset %llu %s", what, idx,
          (unsigned long long)off, faults ? "did not fault" : "faulted");
    if (faults)
        nfault++;
    else
        nallow++;
}

/* A piece [off, off+len): writable ends when mine, faulting ends otherwise. */
static void piece(char *view, uint64_t off, uint64_t len, int mine, const char *what, long idx)
{
    expect(view, off, !mine, what, idx);
    expect(view, off + len - 1, !mine, what, idx);
}

int main(int argc, char **argv)
{
    itest_init();
    const char *jobid = emunic_jobid();
    struct emu_job tool; /* a tool's view, only for the geometry */
    CHECK(emu_job_attach(&tool, jobid) == 0, "attach as a tool");
    const struct emu_job_geo g = tool.geo;
    emu_job_detach(&tool);
    char *view = rank_view(jobid);
    CHECK(view, "no mapping of the job segment in /proc/self/maps");
    CHECK(open_fds_of(jobid) == 0, "the rank holds a descriptor of the job segment");
    uint32_t me = emunic_rank(), n = emunic_size();

    if (argc > 1 && strcmp(argv[1], "stray") == 0) {
        emunic_barrier();
        if (me == 1) {
            printf("stray: rank 1 stores into the header\n");
            fflush(stdout);
            *(volatile uint32_t *)(view + offsetof(struct emu_job_hdr, ranks_per_node)) = 0;
            printf("stray: SURVIVED\n");
            return 1;
        }
        emunic_finalize();
        return 0;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction");
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0, "sigaction");

    CHECK(((struct emu_job_hdr *)view)->magic == EMU_JOB_MAGIC, "the view is readable");
    errno = 0;
    CHECK(mprotect(view, EMU_PAGE, PROT_READ | PROT_WRITE) != 0 && errno == EACCES,
          "mprotect made the header writable (errno %d)", errno);

    piece(view, 0, sizeof(struct emu_job_hdr), 0, "the header", 0);
    expect(view, offsetof(struct emu_job_hdr, abort), 1, "the abort word", 0);
    for (uint32_t r = 0; r < n; r++) {
        uint64_t e = g.off_ranks + (uint64_t)r * sizeof(struct emu_rank_info);
        piece(view, e, sizeof(struct emu_rank_info), r == me, "rank entry", r);
        expect(view, e + offsetof(struct emu_rank_info, heap_base), r != me, "rank heap_base", r);
        expect(view, e + offsetof(struct emu_rank_info, regions), r != me, "rank regions", r);
        expect(view, e + offsetof(struct emu_rank_info, nic_bell), r != me, "rank NIC bell", r);
        expect(view, e + offsetof(struct emu_rank_info, bar_seq), r != me, "rank barrier count", r);
        piece(view, g.off_cmd + (uint64_t)r * g.cmd_bytes, g.cmd_bytes, r == me, "command queue", r);
        piece(view, g.off_cq + (uint64_t)r * g.cq_bytes, g.cq_bytes, r == me, "completion queue", r);
    }
    for (uint32_t k = 0; k < g.nnodes; k++) {
        uint64_t e = g.off_nodes + (uint64_t)k * sizeof(struct emu_node_info);
        piece(view, e, sizeof(struct emu_node_info), 0, "node entry", k);
        expect(view, e + offsetof(struct emu_node_info, ctr), 1, "node counters", k);
        expect(view, e + offsetof(struct emu_node_info, doorbell), 1, "node doorbell", k);
    }
    piece(view, g.off_net, sizeof(struct emu_netcfg), 0, "the network configuration", 0);

    /* the library goes on working through the same mapping */
    CHECK(emunic_barrier() == 0, "barrier");
    printf("segment_ro: rank %u: %u stores faulted, %u allowed\n", me, nfault, nallow);
    CHECK(emunic_barrier() == 0, "barrier");
    emunic_finalize();
    return 0;
}
