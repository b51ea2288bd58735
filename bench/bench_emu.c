#include "bench_emu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/job.h"

static uint64_t next_cookie = 1;

uint64_t be_cookie(void) { return ++next_cookie; }

void *be_init(size_t info_len)
{
    int rc = emunic_init();
    if (rc) {
        fprintf(stderr, "emunic_init: %s (run me under emunic-run)\n", strerror(-rc));
        exit(2);
    }
    void *info = emunic_malloc(info_len);
    BE_CHECK(info && (uint64_t)(uintptr_t)info == emunic_heap_addr(emunic_rank()),
             "the info block is not the first heap block");
    memset(info, 0, info_len);
    be_barrier();
    return info;
}

void be_barrier(void)
{
    int rc = emunic_barrier();
    BE_CHECK(rc == 0, "barrier: %d", rc);
}

void be_wait_cookie(uint64_t cookie)
{
    struct emu_msg m;
    int st = emunic_wait_cookie(cookie, &m);
    BE_CHECK(st == 0, "completion of cookie %llu: status %d (%s)", (unsigned long long)cookie, st,
             st > 0 ? emu_status_str((unsigned)st) : "wait failed");
}

void be_wait_dones(long n)
{
    struct emu_msg m[64];
    while (n > 0) {
        int got = emunic_wait(m, 64, -1);
        BE_CHECK(got >= 0, "emunic_wait: %d", got);
        for (int i = 0; i < got; i++) {
            if (m[i].op != EMU_CQ_DONE)
                continue;
            BE_CHECK(m[i].status == 0, "completion status %u (%s)", m[i].status,
                     emu_status_str(m[i].status));
            n--;
        }
    }
}

void be_fetch_info(uint32_t rank, void *out, size_t len)
{
    uint64_t c = be_cookie();
    int rc = emunic_read(rank, EMU_KEY_HEAP, emunic_heap_addr(rank), out, len, EMU_F_REMOTE_CQ, c);
    BE_CHECK(rc == 0, "read post: %d", rc);
    be_wait_cookie(c);
}

/* ---- counters ---- */

static struct emu_job job;
static int job_open;

void be_ctrs_open(void)
{
    if (job_open)
        return;
    int rc = emu_job_attach(&job, emunic_jobid());
    BE_CHECK(rc == 0, "emu_job_attach(%s): %d", emunic_jobid(), rc);
    job_open = 1;
}

static void add_csw(int32_t pid, struct be_ctrs *c)
{
    if (pid <= 0)
        return;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    unsigned long long v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1)
            c->vcsw += v;
        else if (sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1)
            c->ivcsw += v;
    }
    fclose(f);
}

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)

void be_ctrs_read(struct be_ctrs *c)
{
    be_ctrs_open();
    memset(c, 0, sizeof *c);
    const struct emu_job_hdr *h = job.hdr;
    for (uint32_t r = 0; r < h->nranks; r++) {
        struct emu_rank_info *ri = &job.ranks[r];
        c->rank_sleeps += LD(ri->cq_waiter.sleeps);
        c->rank_wakeups += LD(ri->cq_waiter.wakeups);
        c->rank_doorbells += LD(ri->cq_waiter.doorbells);
        c->nic_doorbells += LD(ri->nic_bell.doorbells); /* a rank rings its NIC here */
        add_csw(LD(ri->pid), c);
    }
    for (uint32_t n = 0; n < h->nnodes; n++) {
        struct emu_node_info *ni = &job.nodes[n];
        c->nic_sleeps += LD(ni->ctr.sleeps);
        c->nic_wakeups += LD(ni->ctr.wakeups);
        c->nic_doorbells += LD(ni->doorbell.doorbells);
        c->nic_idle_polls += LD(ni->ctr.polls_idle);
        c->nic_cmds += LD(ni->ctr.cmds);
        c->shm_copies += LD(ni->ctr.shm_copies);
        c->vm_copies += LD(ni->ctr.vm_copies);
        c->backlog += LD(ni->ctr.backlog);
        add_csw(LD(ni->daemon_pid), c);
    }
}

void be_ctrs_sub(const struct be_ctrs *a, const struct be_ctrs *b, struct be_ctrs *d)
{
    const uint64_t *pa = (const uint64_t *)a, *pb = (const uint64_t *)b;
    uint64_t *pd = (uint64_t *)d;
    /* the context switch sums fall when a process exits between the two
     * readings (its /proc entry is gone): 0, not a wrapped 2^64 */
    for (size_t i = 0; i < sizeof *d / sizeof(uint64_t); i++)
        pd[i] = pa[i] >= pb[i] ? pa[i] - pb[i] : 0;
}

void be_ctrs_csv(FILE *f, const struct be_ctrs *d, double ops)
{
    if (ops <= 0)
        ops = 1;
    fprintf(f, "%.4f,%.4f,%.4f,%.4f,%.3f,%.4f,%.4f", (double)d->rank_wakeups / ops,
            (double)d->nic_sleeps / ops, (double)d->nic_wakeups / ops,
            (double)(d->nic_doorbells + d->rank_doorbells) / ops, (double)d->nic_idle_polls / ops,
            (double)d->vcsw / ops, (double)d->ivcsw / ops);
}

void be_ctrs_csv_blank(FILE *f) { fputs(",,,,,,", f); }
