/* Helper placement ([XT5-ARMCI]): a helper sharing a core with a busy
 * rank delays every request by a time slice, so when the host has cores
 * no rank uses, each node's helper moves to one of them. All emulated
 * nodes share this host, so "idle" means past every rank of the job
 * (emunic-run --bind fills cores 0..nproc-1 first), and the nodes'
 * helpers spread over the idle cores rather than all taking the first. */
#include <hwloc.h>
#include <stdio.h>
#include "armcii.h"

void armcii_helper_bind(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int ranks = armcii_nproc();
        if (cores > ranks) {
            int pick = ranks + armcii_node_of(armcii_me()) % (cores - ranks);
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)pick);
            if (core && hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_THREAD) != 0)
                fprintf(stderr, "armci: rank %d: could not move the helper to core %d\n",
                        armcii_me(), pick);
        }
    }
    hwloc_topology_destroy(topo);
}
