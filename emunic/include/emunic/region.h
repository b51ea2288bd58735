/* Exposed memory regions: the only memory a NIC may touch on a rank's
 * behalf as a target. A rank publishes (base, len, perm) in its table in the
 * job segment; the NIC looks keys up under a sequence lock and checks every
 * access against them. Keys carry a generation, so a stale key fails. */
#ifndef EMUNIC_REGION_H
#define EMUNIC_REGION_H

#include <stdatomic.h>
#include <stdint.h>

#define EMU_MAX_REGIONS 512
#define EMU_REGION_IDX_BITS 9

#define EMU_PERM_READ 0x1
#define EMU_PERM_WRITE 0x2
#define EMU_PERM_ATOMIC 0x4
#define EMU_PERM_ALL 0x7
/* Alone: grants no access, only keeps the range's private memory moved
 * onto a memfd (core/promote.c) while it is live; a personality whose
 * NIC half checks its own descriptors (Portals MEs, MDs) exposes so. */
#define EMU_PERM_PIN 0x8

/* Slot 0 is the rank's registered heap, exposed read/write/atomic from the
 * moment the heap exists (as ARMCI_Malloc'd or symmetric memory is). */
#define EMU_KEY_HEAP ((1u << EMU_REGION_IDX_BITS) | 0u)

/* A key's slot: its low bits (the rest is the slot's generation). */
static inline uint32_t emu_region_idx(uint32_t key)
{
    return key & ((1u << EMU_REGION_IDX_BITS) - 1);
}

/* [addr, addr+len) lies inside [base, base+blen), with no overflow on
 * either side: the one bounds check of every shared-memory access. */
static inline int emu_range_within(uint64_t addr, uint64_t len, uint64_t base, uint64_t blen)
{
    return addr >= base && addr - base <= blen && len <= blen - (addr - base);
}

struct emu_region {
    _Atomic uint32_t gen; /* odd: live; changes on every (un)publish */
    uint32_t perm;
    uint64_t base;
    uint64_t len;
    uint64_t pad_;
};

/* Rank side (single writer per table). Returns the key, or 0 if full. */
uint32_t emu_region_publish(struct emu_region *tab, uint32_t idx_hint,
                            uint64_t base, uint64_t len, uint32_t perm);
/* Returns 0, or -1 if the key is not live. */
int emu_region_retract(struct emu_region *tab, uint32_t key);

/* NIC side: is [addr, addr+len) inside the live region `key` with all of
 * `need` permissions? Returns EMU_OK, EMU_E_NOKEY or EMU_E_ACCES. len 0 is
 * allowed anywhere inside (or at the end of) the region. */
int emu_region_check(const struct emu_region *tab, uint32_t key,
                     uint64_t addr, uint64_t len, uint32_t need);

#endif
