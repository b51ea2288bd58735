/* What a pami_memregion_t holds. Clients copy regions to their peers by
 * value (allgather, active messages), so everything a peer needs to reach
 * the memory is inside: the owner, its region key, base and length. */
#ifndef EMUNIC_PAMI_MEMREGION_H
#define EMUNIC_PAMI_MEMREGION_H

#include <stdint.h>

#include <pami.h>

#define PAMIL_MR_MAGIC 0x3e6105b9u

struct pamil_mr {
    uint32_t magic;
    uint32_t task;
    uint32_t key;
    uint32_t own_key; /* 1: key is the region's own (destroy retracts it) */
    uint64_t base;
    uint64_t bytes;
};
_Static_assert(sizeof(struct pamil_mr) <= sizeof(pami_memregion_t), "memregion storage");

/* The region in mr, or NULL after a message naming which side it is. */
const struct pamil_mr *pamil_mr_of(const char *fn, const char *side, const pami_memregion_t *mr);
/* Whether [offset, offset + len) lies in mr; -1 after a message if not. */
int pamil_mr_range(const char *fn, const char *side, const struct pamil_mr *mr,
                   size_t offset, size_t len);

#endif
