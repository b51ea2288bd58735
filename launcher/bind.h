/* CPU placement of emulated nodes with hwloc: each node's daemon and ranks
 * share one set of host PUs, so a node behaves like one machine and nodes
 * contend less with each other. */
#ifndef EMUNIC_RUN_BIND_H
#define EMUNIC_RUN_BIND_H

#include <hwloc.h>
#include <stdint.h>

#include "opts.h"

struct bind_plan {
    enum bind_kind kind;
    uint32_t nnodes;
    hwloc_topology_t topo;   /* NULL unless loaded */
    hwloc_bitmap_t *sets;    /* per emulated node; NULL: unbound */
};

/* Load the host topology. Returns 0, or 1 after a message. */
int bind_topo_load(struct bind_plan *b);
/* Deal cores or NUMA domains round-robin to nnodes emulated nodes.
 * Returns 0, or 2 after a message. */
int bind_plan_make(struct bind_plan *b, enum bind_kind kind, uint32_t nnodes);
/* In a child before exec: bind the process to its node's set. */
void bind_apply(const struct bind_plan *b, uint32_t node);
void bind_plan_free(struct bind_plan *b);

#endif
