/* Internal view of process groups for the collectives and armci_msg_*.
 *
 * Users hold copies of ARMCI_Group (get_default/get_world hand out copies),
 * so nothing that changes -- the collective sequence number, the child
 * counter -- may live in the public struct. Each live group has one record
 * here; a handle is resolved to its record by id and checked against it.
 *
 * Scoped views (SCOPE_NODE: the group's members on the caller's node,
 * SCOPE_MASTERS: the first member on each node) are records of their own,
 * built locally on first use, that share the group's id: their traffic is
 * kept apart by a "kind" in the top bits of the tag's phase byte, and each
 * has its own sequence counter. The world's node and masters groups are
 * built this way at init, from armcii_node_of alone. */
#ifndef ARMCII_GROUP_H
#define ARMCII_GROUP_H
#include <stddef.h>
#include <stdint.h>
#include "armci.h"
#include "coll.h"

#define ARMCII_GROUP_MAGIC 0x41475250u /* live handle */
#define ARMCII_GROUP_FREED 0x44454144u /* handle passed to ARMCI_Group_free */

/* Ids: 0 the world, 1..ARMCII_GROUP_ID_MAX created groups; the ids above
 * are reserved (65001: node groups, 65002: the masters group) and never
 * handed out, although the scoped views travel under their group's id. */
#define ARMCII_GROUP_ID_WORLD 0
#define ARMCII_GROUP_ID_MAX 65000
#define ARMCII_GROUP_ID_NODE 65001
#define ARMCII_GROUP_ID_MASTERS 65002

enum { ARMCII_GKIND_PLAIN = 0, ARMCII_GKIND_NODE = 1, ARMCII_GKIND_MASTERS = 2 };

struct armcii_grp {
    ARMCI_Group pub;           /* canonical handle; owns pub.grp_to_abs */
    int kind;                  /* ARMCII_GKIND_*: tag phase bits 6..7 */
    uint32_t seq;              /* sequence number of the next collective */
    uint32_t nchildren;        /* groups created over this one so far */
    struct armcii_grp *view[2];/* the SCOPE_NODE, SCOPE_MASTERS views */
    struct armcii_grp *next;   /* registry of plain groups */
};

/* armcii_group_valid returns 1 when g is a live handle (g->rank is then
 * the caller's rank in it, -1 for a non-member), 0 otherwise. */

/* The record of handle g; armcii_error naming fn when g is NULL, freed or
 * not a group. */
struct armcii_grp *armcii_grp_of(const ARMCI_Group *g, const char *fn);
/* The default group's record. */
struct armcii_grp *armcii_grp_default(void);
/* GA's scope value for scope given as GA or as ARMCI-MPI numbers it
 * (0..2); any other value unchanged. */
int armcii_scope_canon(int scope);
/* The SCOPE_ALL / SCOPE_NODE / SCOPE_MASTERS view of g for the caller
 * (pub.rank -1 when the caller is not in it; scope in either numbering);
 * error naming fn for another scope value. */
struct armcii_grp *armcii_grp_scope(struct armcii_grp *g, int scope, const char *fn);
/* Group rank in v of the member whose absolute id is abs, or -1. */
int armcii_grp_find(const struct armcii_grp *v, int abs);

int armcii_group_init(void);     /* world, default = world, node views */
void armcii_group_finalize(void); /* frees every record still live */

/* Collectives on a record (the caller must be a member, pub.rank >= 0),
 * used by armci_msg_* and the group code; coll.h's functions resolve the
 * public handle and call these. */
armcii_coll_t armcii_gcoll_ibarrier(struct armcii_grp *g);
armcii_coll_t armcii_gcoll_ibcast(struct armcii_grp *g, void *buf, size_t len, int root);
armcii_coll_t armcii_gcoll_iallreduce(struct armcii_grp *g, void *x, size_t n, int type,
                                      int opcode);
/* all (size * len bytes) receives every member's len bytes in rank order;
 * mine may lie inside all. */
armcii_coll_t armcii_gcoll_iallgather(struct armcii_grp *g, const void *mine, size_t len,
                                      void *all);
/* Progress c until it completes (and is freed). */
void armcii_gcoll_wait(armcii_coll_t c);
#endif
