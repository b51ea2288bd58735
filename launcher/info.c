/* --info: what the host offers (hwloc) and where -N/-n/--bind would put
 * each emulated node, so a user can see oversubscription before running. */
#include <stdio.h>

#include "bind.h"
#include "emunic/job.h"
#include "launcher.h"
#include "opts.h"

static int count(hwloc_topology_t t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t, type);
    return n < 0 ? 0 : n;
}

static void print_objs(hwloc_topology_t t, hwloc_obj_type_t type,
                       const char *name)
{
    for (int i = 0; i < count(t, type); i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, type, (unsigned)i);
        char pus[256] = "none";
        if (o->cpuset && !hwloc_bitmap_iszero(o->cpuset))
            hwloc_bitmap_list_snprintf(pus, sizeof pus, o->cpuset);
        printf("  %s %u: PUs %s", name, o->os_index, pus);
        if (type == HWLOC_OBJ_NUMANODE)
            printf(", %.1f GiB", (double)o->attr->numanode.local_memory /
                                     (1 << 30));
        if (type == HWLOC_OBJ_PACKAGE)
            printf(", %d cores",
                   hwloc_get_nbobjs_inside_cpuset_by_type(t, o->cpuset,
                                                          HWLOC_OBJ_CORE));
        printf("\n");
    }
}

static void print_topology(hwloc_topology_t t)
{
    unsigned v = hwloc_get_api_version();
    printf("host topology (hwloc %u.%u.%u):\n", v >> 16, (v >> 8) & 0xff,
           v & 0xff);
    printf("  packages: %d, NUMA nodes: %d, cores: %d, PUs: %d\n",
           count(t, HWLOC_OBJ_PACKAGE), count(t, HWLOC_OBJ_NUMANODE),
           count(t, HWLOC_OBJ_CORE), count(t, HWLOC_OBJ_PU));
    print_objs(t, HWLOC_OBJ_PACKAGE, "package");
    print_objs(t, HWLOC_OBJ_NUMANODE, "NUMA node");
}

static void print_plan(const struct opts *o, const struct bind_plan *b)
{
    uint32_t nranks = o->nnodes * o->rpn;
    int pus = count(b->topo, HWLOC_OBJ_PU);
    uint32_t procs = nranks + o->nnodes;
    printf("placement for -N %u -n %u --bind %s --nic %s: %u ranks + %u NIC "
           "daemons = %u processes on %d PUs%s\n", o->nnodes, o->rpn,
           bind_kind_name(o->bind), o->nic, nranks, o->nnodes, procs, pus,
           pus > 0 && procs > (uint32_t)pus ? " (oversubscribed)" : "");
    for (uint32_t i = 0; i < o->nnodes; i++) {
        char where[256] = "any PU (unbound)";
        if (b->sets) {
            char s[200];
            hwloc_bitmap_list_snprintf(s, sizeof s, b->sets[i]);
            snprintf(where, sizeof where, "PUs %s", s);
        }
        uint32_t r0 = i * o->rpn, r1 = r0 + o->rpn - 1;
        if (r0 == r1)
            printf("  node %u: NIC daemon + rank %u on %s\n", i, r0, where);
        else
            printf("  node %u: NIC daemon + ranks %u-%u on %s\n", i, r0, r1,
                   where);
    }
    struct emu_job_params p;
    opts_job_params(o, &p);
    printf("shared segment: %.1f MiB (%.1f MiB of memory available)",
           (double)emu_job_size(&p) / (1 << 20), (double)mem_available() / (1 << 20));
    printf(", heap %llu KiB per rank\n",
           (unsigned long long)(p.heap_size >> 10));
}

int info_run(const struct opts *o)
{
    struct bind_plan b = {0};
    if (bind_topo_load(&b))
        return 1;
    int rc = bind_plan_make(&b, o->bind, o->nnodes);
    if (rc == 0) {
        print_topology(b.topo);
        print_plan(o, &b);
    }
    bind_plan_free(&b);
    return rc;
}
