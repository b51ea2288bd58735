/* Collectives of the runtime core, each a non-blocking state machine
 * (a binomial tree over the group's ranks, as [P7IH-COLL] builds them)
 * driven by p2p completions; the blocking calls start one and progress
 * until it is done. Groups are the public ARMCI_Group. */
#ifndef ARMCII_COLL_H
#define ARMCII_COLL_H
#include <stddef.h>
#include "armci.h"

/* The world group (every rank) and the current default group. */
ARMCI_Group *armcii_group_world(void);
ARMCI_Group *armcii_group_default(void);
/* Whether g is a live group handle (and, if so, the caller's rank in it). */
int armcii_group_valid(const ARMCI_Group *g);

/* Blocking collectives over g (the caller must be a member). Return 0. */
int armcii_coll_barrier(ARMCI_Group *g);
int armcii_coll_bcast(ARMCI_Group *g, void *buf, size_t len, int root /* group rank */);
int armcii_coll_allgather(ARMCI_Group *g, const void *mine, size_t len, void *all);
/* Allreduce of n elements of armci_type_e type with armcii_reduce_op code. */
int armcii_coll_allreduce(ARMCI_Group *g, void *x, size_t n, int type, int opcode);

/* Non-blocking collectives: a request that armcii_coll_test completes. */
typedef struct armcii_coll *armcii_coll_t;
armcii_coll_t armcii_coll_ibarrier(ARMCI_Group *g);
armcii_coll_t armcii_coll_ibcast(ARMCI_Group *g, void *buf, size_t len, int root);
armcii_coll_t armcii_coll_iallreduce(ARMCI_Group *g, void *x, size_t n, int type, int opcode);
int armcii_coll_test(armcii_coll_t c); /* 1 (and frees c) when done */

int armcii_coll_init(void);      /* after p2p: sets up the world group */
void armcii_coll_finalize(void);
#endif
