/* Helper placement ([XT5-ARMCI]): a helper sharing a core with a busy
 * rank delays every request by a time slice, so when the node has more
 * cores than ranks the helper moves to one the ranks do not use. */
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
        int ranks = armcii_node_nprocs(armcii_node_of(armcii_me()));
        /* ranks fill cores 0..ranks-1 first (emunic-run --bind), so the
         * first core past them is idle */
        if (cores > ranks) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)ranks);
            if (core && hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_THREAD) != 0)
                fprintf(stderr, "armci: rank %d: could not move the helper to core %d\n",
                        armcii_me(), ranks);
        }
    }
    hwloc_topology_destroy(topo);
}
