#include "bind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

int bind_topo_load(struct bind_plan *b)
{
    if (b->topo)
        return 0;
    if (hwloc_topology_init(&b->topo) < 0) {
        b->topo = NULL;
        msg("hwloc: cannot initialise a topology");
        return 1;
    }
    if (hwloc_topology_load(b->topo) < 0) {
        msg("hwloc: cannot read the host topology: %s", strerror(errno));
        hwloc_topology_destroy(b->topo);
        b->topo = NULL;
        return 1;
    }
    return 0;
}

/* Objects of type t that have PUs (NUMA nodes of pure memory have none). */
static int units(hwloc_topology_t topo, hwloc_obj_type_t t, hwloc_obj_t **out)
{
    int n = hwloc_get_nbobjs_by_type(topo, t);
    if (n <= 0)
        return 0;
    hwloc_obj_t *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, t, (unsigned)i);
        if (o && o->cpuset && !hwloc_bitmap_iszero(o->cpuset))
            v[k++] = o;
    }
    *out = v;
    return k;
}

int bind_plan_make(struct bind_plan *b, enum bind_kind kind, uint32_t nnodes)
{
    b->kind = kind;
    b->nnodes = nnodes;
    if (kind == BIND_NONE)
        return 0;
    if (bind_topo_load(b))
        return 2;
    hwloc_obj_t *u = NULL;
    int n = units(b->topo, kind == BIND_CORE ? HWLOC_OBJ_CORE
                                              : HWLOC_OBJ_NUMANODE, &u);
    if (n == 0 && kind == BIND_CORE) /* some VMs report PUs only */
        n = units(b->topo, HWLOC_OBJ_PU, &u);
    if (n == 0) {
        free(u);
        return msg_usage("--bind %s: hwloc finds no %s with CPUs on this host",
                         bind_kind_name(kind),
                         kind == BIND_CORE ? "cores" : "NUMA domains");
    }
    b->sets = calloc(nnodes, sizeof *b->sets);
    if (!b->sets) {
        free(u);
        return msg_usage("out of memory");
    }
    for (uint32_t i = 0; i < nnodes; i++)
        b->sets[i] = hwloc_bitmap_alloc();
    /* More units than nodes: a node gets several; fewer: nodes share. */
    uint32_t rounds = (uint32_t)n > nnodes ? (uint32_t)n : nnodes;
    for (uint32_t k = 0; k < rounds; k++)
        hwloc_bitmap_or(b->sets[k % nnodes], b->sets[k % nnodes],
                        u[k % (uint32_t)n]->cpuset);
    free(u);
    return 0;
}

void bind_apply(const struct bind_plan *b, uint32_t node)
{
    if (!b->sets || !b->topo)
        return;
    if (hwloc_set_cpubind(b->topo, b->sets[node], HWLOC_CPUBIND_PROCESS) < 0) {
        char s[256];
        hwloc_bitmap_list_snprintf(s, sizeof s, b->sets[node]);
        msg("warning: cannot bind node %u to PUs %s: %s", node, s,
            strerror(errno));
    }
}

void bind_plan_free(struct bind_plan *b)
{
    for (uint32_t i = 0; b->sets && i < b->nnodes; i++)
        hwloc_bitmap_free(b->sets[i]);
    free(b->sets);
    b->sets = NULL;
    if (b->topo)
        hwloc_topology_destroy(b->topo);
    b->topo = NULL;
}
