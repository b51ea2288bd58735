/* What the daemon trusts about a rank, and what it does when a rank breaks
 * its own structures. A rank is a program being debugged: a wild store
 * into the job segment is the normal case. The daemon takes a rank's
 * process from the launcher's control block (emunic/ctl.h) and the kernel,
 * never from the segment; and when a queue the rank shares with it is in a
 * state no correct producer or consumer leaves it in, the daemon stops
 * serving that rank, names it, and tells the launcher, which ends it. */
#include "emunic/ctl.h"
#include "emunic/proc.h"
#include "emunic/slice.h"
#include "nic.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A claimed command slot that stays unfilled this long is a stuck queue:
 * a producer needs microseconds between claiming a slot and filling it. */
#define CMD_STUCK_NS (5000000000ll)

int guard_open(struct emu_nic *nic, int ctl_fd, int report_fd)
{
    nic->report_fd = report_fd;
    if (report_fd >= 0) /* a launcher that stopped reading must not stall us */
        fcntl(report_fd, F_SETFL, fcntl(report_fd, F_GETFL) | O_NONBLOCK);
    struct stat st;
    size_t want = emu_ctl_size(nic->nnodes, nic->nranks);
    if (ctl_fd < 0 || fstat(ctl_fd, &st) != 0 || (size_t)st.st_size != want)
        return -EPROTO;
    void *p = mmap(NULL, want, PROT_READ, MAP_SHARED, ctl_fd, 0);
    close(ctl_fd);
    if (p == MAP_FAILED)
        return -errno;
    nic->ctl = p;
    nic->ctl_size = want;
    if (nic->ctl->magic != EMU_CTL_MAGIC || nic->ctl->nnodes != nic->nnodes ||
        nic->ctl->nranks != nic->nranks)
        return -EPROTO;
    nic->doorbell_fd = malloc(nic->nnodes * sizeof *nic->doorbell_fd);
    if (!nic->doorbell_fd)
        return -ENOMEM;
    const int32_t *db = emu_ctl_doorbells(nic->ctl);
    for (uint32_t n = 0; n < nic->nnodes; n++)
        nic->doorbell_fd[n] = db[n];
    return 0;
}

void guard_close(struct emu_nic *nic)
{
    if (nic->ctl)
        munmap((void *)(uintptr_t)nic->ctl, nic->ctl_size);
    nic->ctl = NULL;
    free(nic->doorbell_fd);
    nic->doorbell_fd = NULL;
    if (nic->report_fd >= 0)
        close(nic->report_fd);
    nic->report_fd = -1;
}

pid_t guard_rank_pid(const struct emu_nic *nic, uint32_t rank)
{
    if (!nic->ctl || rank >= nic->nranks)
        return 0;
    return atomic_load_explicit(&emu_ctl_pids(nic->ctl)[rank], memory_order_acquire);
}

static pid_t ppid_of(pid_t pid)
{
    pid_t pp;
    return emu_proc_stat(pid, NULL, &pp) == 0 ? pp : -1;
}

int guard_descends(pid_t pid, pid_t anc)
{
    /* a wrapper (a shell, timeout, a debugger) may stand between */
    for (int depth = 0; depth < 16 && pid > 1; depth++) {
        if (pid == anc)
            return 1;
        pid = ppid_of(pid);
    }
    return 0;
}

uint64_t guard_map_base(pid_t pid, dev_t dev, ino_t ino, uint64_t *end)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[512];
    uint64_t base = 0;
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, off, inode;
        unsigned maj, min;
        char perm[8];
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perm, &off, &maj, &min, &inode) != 7)
            continue;
        if (off != 0 || inode != (unsigned long long)ino || maj != major(dev) || min != minor(dev))
            continue;
        if (found++) { /* mapped twice: which one is the heap is not ours to guess */
            base = 0;
            break;
        }
        base = lo;
        if (end)
            *end = hi;
    }
    fclose(f);
    return base;
}

void nic_fence(struct emu_nic *nic, uint32_t rank, int what, const char *fmt, ...)
{
    if (rank >= nic->nranks || nic->fenced[rank])
        return;
    nic->fenced[rank] = 1;
    _Atomic uint8_t *shared = emu_job_wire_fenced(&nic->job);
    if (shared) /* other daemons' fast path (fastpath.c) stops serving it too */
        atomic_store_explicit(&shared[rank], 1, memory_order_release);
    struct emu_ctl_report rep;
    memset(&rep, 0, sizeof rep);
    rep.magic = EMU_CTL_REPORT_MAGIC;
    rep.rank = rank;
    rep.node = emu_nic_node_of(nic, rank);
    rep.what = (uint32_t)what;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep.text, sizeof rep.text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "emunic-nicd: node %u: rank %u (node %u) %s its %s: %s; no longer served\n",
            nic->node, rank, rep.node, emu_ctl_verb(rep.what), emu_ctl_what_name(rep.what), rep.text);
    EMU_CTR_ADD(nic->ctr, errors, 1);
    if (nic->report_fd >= 0) {
        ssize_t k = write(nic->report_fd, &rep, sizeof rep);
        (void)k; /* best effort: the line above says it too */
    }
}

int nic_fenced(const struct emu_nic *nic, uint32_t rank)
{
    _Atomic uint8_t *shared = emu_job_wire_fenced(&nic->job);
    return nic->fenced[rank] || (shared && atomic_load_explicit(&shared[rank], memory_order_acquire));
}

/* The consumer's view of a command ring: at our position the slot is
 * either empty (sequence == position) or filled (position + 1), and the
 * producers' tail lies in [position, position + capacity]. */
static void scan_cmdq(struct emu_nic *nic, uint32_t l, int64_t now)
{
    struct emu_ring *r = &nic->cmd[l];
    uint32_t rank = nic->first + l;
    uint64_t h = r->head, cap = (uint64_t)r->mask + 1;
    uint64_t s = atomic_load_explicit(&r->seq[h & r->mask], memory_order_acquire);
    uint64_t t = atomic_load_explicit(&r->shm->tail, memory_order_relaxed);
    if (s != h && s != h + 1) {
        nic_fence(nic, rank, EMU_CTL_CMDQ, "slot of position %" PRIu64 " has sequence %" PRIu64
                  " (expected %" PRIu64 " or %" PRIu64 ")", h, s, h, h + 1);
        return;
    }
    if (t < h || t - h > cap) {
        nic_fence(nic, rank, EMU_CTL_CMDQ, "tail %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]",
                  t, h, h + cap);
        return;
    }
    /* claimed (tail past us) but never filled: the tail was moved */
    if (s == h && t > h) {
        if (!nic->cmd_stuck[l])
            nic->cmd_stuck[l] = now;
        else if (now - nic->cmd_stuck[l] > CMD_STUCK_NS)
            nic_fence(nic, rank, EMU_CTL_CMDQ, "position %" PRIu64 " claimed (tail %" PRIu64
                      ") but not filled for %lld s", h, t, CMD_STUCK_NS / 1000000000ll);
    } else {
        nic->cmd_stuck[l] = 0;
    }
}

/* More refusals than a rank can be refused between two looks (50 ms) */
#define REFUSED_STEP (1ull << 32)

void guard_hints(struct emu_nic *nic)
{
    /* a rank's hint changes only how we poll, whatever it holds */
    if (!nic->hogs_expected)
        for (uint32_t l = 0; l < nic->nlocal; l++)
            if (atomic_load_explicit(&nic->job.ranks[nic->first + l].hints, memory_order_relaxed) & EMU_HINT_HOGS) {
                nic->hogs_expected = true;
                emu_poll_expect_hogs();
                atomic_store_explicit(&nic->ctr->hog_watch, 1, memory_order_relaxed);
                break;
            }
    /* a rank's count is its own to garble: a step back or a jump no rank
     * can make between two of our looks is not added, so garbage skews its
     * node's count by at most REFUSED_STEP per look */
    for (uint32_t l = 0; l < nic->nlocal; l++) {
        uint64_t v = atomic_load_explicit(&nic->job.ranks[nic->first + l].refused, memory_order_relaxed);
        if (v > nic->refused_seen[l] && v - nic->refused_seen[l] <= REFUSED_STEP)
            EMU_CTR_ADD(nic->ctr, refused, v - nic->refused_seen[l]);
        nic->refused_seen[l] = v;
    }
    atomic_store_explicit(&nic->ctr->hog_yields, emu_poll_hogs(), memory_order_relaxed);
}

void guard_scan(struct emu_nic *nic, int64_t now)
{
    nic->last_scan = now;
    guard_hints(nic);
    /* looked at on every scan: another job's load comes and goes */
    if (emu_poll_watch_foreign(nic->nranks + nic->nnodes + 1))
        EMU_CTR_ADD(nic->ctr, foreign_load, 1);
    /* a rank that is gone (killed mid-post, say) is not to be blamed for
     * the slot it left half-claimed */
    for (uint32_t l = 0; l < nic->nlocal; l++)
        if (!nic->fenced[nic->first + l] &&
            !emu_rank_ended(atomic_load_explicit(&nic->job.ranks[nic->first + l].state, memory_order_relaxed)))
            scan_cmdq(nic, l, now);
}

int guard_cq_push_ring(struct emu_nic *nic, uint32_t rank, struct emu_ring *r, const struct emu_msg *m)
{
    _Atomic uint64_t *pushed = &nic->cqacct[rank].pushed;
    uint64_t p = atomic_load_explicit(pushed, memory_order_relaxed);
    if (emu_ring_push(r, m) == 0) {
        /* the daemons are its only producers, one at a time under its
         * node's lock: the tail is ours to predict */
        uint64_t t = atomic_load_explicit(&r->shm->tail, memory_order_relaxed);
        if (__builtin_expect(t != p + 1, 0)) {
            nic_fence(nic, rank, EMU_CTL_CQ, "tail %" PRIu64 " after the NIC's entry %" PRIu64, t, p + 1);
            return -1;
        }
        atomic_store_explicit(pushed, p + 1, memory_order_relaxed);
        return 0;
    }
    /* full: our slot holds the entry of one lap ago, not yet taken, or
     * the rank has taken it since the push looked (then it is free: p) */
    uint64_t t = atomic_load_explicit(&r->shm->tail, memory_order_relaxed);
    uint64_t s = atomic_load_explicit(&r->seq[p & r->mask], memory_order_acquire);
    if (t != p)
        nic_fence(nic, rank, EMU_CTL_CQ, "tail %" PRIu64 ", the NIC wrote %" PRIu64 " entries", t, p);
    else if (s != p - r->mask && s != p)
        nic_fence(nic, rank, EMU_CTL_CQ, "slot of position %" PRIu64 " has sequence %" PRIu64
                  " (expected %" PRIu64 " or %" PRIu64 ")", p, s, p - r->mask, p);
    return -1;
}

int guard_cq_push(struct emu_nic *nic, uint32_t l, const struct emu_msg *m)
{
    return guard_cq_push_ring(nic, nic->first + l, &nic->cq[l], m);
}
