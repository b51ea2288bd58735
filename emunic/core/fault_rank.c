/* The fault plan's rank-side part: resource exhaustion (regfail, eqfull)
 * refuses a rank's own allocations. The decision is emu_fault_refuse's,
 * keyed by how many allocations of the kind this rank has asked for, so a
 * seed replays it. */
#include <stdatomic.h>

#include "client.h"
#include "emunic/counters.h"
#include "emunic/fault.h"
#include "trace_rank.h"

#define CL emu_cl

static _Atomic uint64_t asked[2];

int emunic_fault_refuse(unsigned what)
{
    if (CL.refs <= 0 || what > EMUNIC_RES_EQ)
        return 0;
    const struct emu_netcfg *net = emu_job_netcfg(&CL.job);
    if (!net->nrules)
        return 0;
    uint32_t kind = what == EMUNIC_RES_REG ? EMU_FAULT_REGFAIL : EMU_FAULT_EQFULL;
    uint64_t n = atomic_fetch_add_explicit(&asked[what], 1, memory_order_relaxed);
    if (!emu_fault_refuse(net, kind, CL.node, CL.rank, n))
        return 0;
    /* the node's counters are the NIC's: it adds ours to them */
    atomic_fetch_add_explicit(&CL.me->refused, 1, memory_order_relaxed);
    emu_trace_rank_fault(what == EMUNIC_RES_REG ? "regfail" : "eqfull", n);
    return 1;
}
