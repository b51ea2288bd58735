/* -v output: the plan, how long start-up took, and what every NIC and
 * rank did, read from the job segment before it is removed. */
#include <stdio.h>

#include "emunic/counters.h"
#include "launcher.h"
#include "msg.h"

void report_plan(const struct launcher *L, uint64_t shm_bytes)
{
    const struct opts *o = L->o;
    msg("job %s: %u node%s x %u rank%s = %u rank%s, nic %s, bind %s, "
        "heap %llu KiB per rank, shared segment %.1f MiB", L->jobid, o->nnodes,
        o->nnodes == 1 ? "" : "s", o->rpn, o->rpn == 1 ? "" : "s", L->nranks,
        L->nranks == 1 ? "" : "s", o->nic, bind_kind_name(o->bind),
        (unsigned long long)(L->job.geo.heap_size >> 10),
        (double)shm_bytes / (1 << 20));
}

void report_started(const struct launcher *L)
{
    msg("job %s: started %u daemon%s and %u rank%s in %.1f ms", L->jobid,
        L->o->nnodes, L->o->nnodes == 1 ? "" : "s", L->nranks,
        L->nranks == 1 ? "" : "s",
        (double)(L->t_launched - L->t_created) / 1e6);
}

void report_end(const struct launcher *L)
{
    if (!L->job_made)
        return;
    fflush(stdout);
    for (uint32_t i = 0; i < L->o->nnodes; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "[nic%u] ", i);
        emu_counters_print(stderr, prefix, &L->job.nodes[i].ctr);
    }
    for (uint32_t r = 0; r < L->nranks; r++)
        fprintf(stderr, "[rank%u] cq_wakeups %llu\n", r,
                (unsigned long long)atomic_load(
                    &L->job.ranks[r].cq_waiter.wakeups));
    fflush(stderr);
}
