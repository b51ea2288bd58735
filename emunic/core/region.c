/* Region table under a per-entry sequence lock: the owning rank is the only
 * writer, NICs read without locks and retry-free (a torn read fails the
 * check, which is the safe answer for an access racing an unexpose). */
#include "emunic/region.h"

#include "emunic/msg.h"

_Static_assert(EMU_MAX_REGIONS == 1u << EMU_REGION_IDX_BITS, "a key's slot bits index the whole table");

static uint32_t make_key(uint32_t idx, uint32_t gen)
{
    return (gen << EMU_REGION_IDX_BITS) | idx;
}

uint32_t emu_region_publish(struct emu_region *tab, uint32_t idx_hint,
                            uint64_t base, uint64_t len, uint32_t perm)
{
    for (uint32_t k = 0; k < EMU_MAX_REGIONS; k++) {
        uint32_t idx = (idx_hint + k) % EMU_MAX_REGIONS;
        struct emu_region *e = &tab[idx];
        uint32_t g = atomic_load_explicit(&e->gen, memory_order_relaxed);
        if (g & 1)
            continue;
        /* gen bits above the index must stay odd and non-zero in the key */
        uint32_t ng = (g + 1) & (0xffffffffu >> EMU_REGION_IDX_BITS);
        if (ng == 0 || !(ng & 1))
            ng = 1;
        /* seqlock writer: the even gen (retract) is ordered before the new
         * contents, which a reader may load concurrently, so they are
         * written (and read) as relaxed atomics, not plain stores */
        atomic_thread_fence(memory_order_release);
        __atomic_store_n(&e->base, base, __ATOMIC_RELAXED);
        __atomic_store_n(&e->len, len, __ATOMIC_RELAXED);
        __atomic_store_n(&e->perm, perm, __ATOMIC_RELAXED);
        atomic_store_explicit(&e->gen, ng, memory_order_release);
        return make_key(idx, ng);
    }
    return 0;
}

int emu_region_retract(struct emu_region *tab, uint32_t key)
{
    uint32_t idx = emu_region_idx(key);
    uint32_t gen = key >> EMU_REGION_IDX_BITS;
    struct emu_region *e = &tab[idx];
    if (!(gen & 1) || atomic_load_explicit(&e->gen, memory_order_relaxed) != gen)
        return -1;
    atomic_store_explicit(&e->gen, gen + 1, memory_order_release);
    return 0;
}

int emu_region_check(const struct emu_region *tab, uint32_t key,
                     uint64_t addr, uint64_t len, uint32_t need)
{
    uint32_t idx = emu_region_idx(key);
    uint32_t gen = key >> EMU_REGION_IDX_BITS;
    if (!(gen & 1))
        return EMU_E_NOKEY;
    struct emu_region *e = (struct emu_region *)&tab[idx];
    if (atomic_load_explicit(&e->gen, memory_order_acquire) != gen)
        return EMU_E_NOKEY;
    uint64_t base = __atomic_load_n(&e->base, __ATOMIC_RELAXED);
    uint64_t rlen = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
    uint32_t perm = __atomic_load_n(&e->perm, __ATOMIC_RELAXED);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&e->gen, memory_order_relaxed) != gen)
        return EMU_E_NOKEY;
    if ((perm & need) != need)
        return EMU_E_ACCES;
    if (!emu_range_within(addr, len, base, rlen))
        return EMU_E_ACCES;
    return EMU_OK;
}
