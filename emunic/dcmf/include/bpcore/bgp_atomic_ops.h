/* Blue Gene/P shim: the atomic word of the BG/P kernel headers
 * (`#include <bpcore/bgp_atomic_ops.h>`), on Linux with C11 atomics. Names,
 * types and signatures are BG/P's; the code is emunic's own. Each
 * operation is a full barrier, as the BG/P versions (msync, then a
 * lwarx/stwcx. loop) are.
 *
 * Clients also read and write `atom` directly (`while (a.atom);`,
 * `a.atom = 0; _bgp_mbar();` to release a test-and-set lock): that works
 * on x86 and ARM as on the PPC450, but a thread sanitizer calls such plain
 * accesses next to atomic ones a data race. */
#ifndef EMUNIC_BGP_ATOMIC_OPS_H
#define EMUNIC_BGP_ATOMIC_OPS_H

#include <stdint.h>

#include <bpcore/ppc450_inlines.h>

/* One 32-bit word, alone on an L1 cache line of the PPC450 (32 bytes). */
typedef struct T_BGP_Atomic {
    volatile uint32_t atom;
} __attribute__((aligned(32))) _BGP_Atomic;

/* _BGP_Atomic a = _BGP_ATOMIC_INIT(0); */
#define _BGP_ATOMIC_INIT(val) {(val)}
#define _BGP_ATOMIC_READ(pvar) ((pvar)->atom)

/* Add value; returns the word as it was before. */
static inline uint32_t _bgp_fetch_and_add(_BGP_Atomic *var, uint32_t value)
{
    return atomic_fetch_add_explicit(EMU_BGP_ATOMIC32_(&var->atom), value, memory_order_seq_cst);
}

/* OR in mask; returns the old word. */
static inline uint32_t _bgp_fetch_and_or(_BGP_Atomic *var, uint32_t mask)
{
    return atomic_fetch_or_explicit(EMU_BGP_ATOMIC32_(&var->atom), mask, memory_order_seq_cst);
}

/* AND with mask; returns the old word. */
static inline uint32_t _bgp_fetch_and_and(_BGP_Atomic *var, uint32_t mask)
{
    return atomic_fetch_and_explicit(EMU_BGP_ATOMIC32_(&var->atom), mask, memory_order_seq_cst);
}

/* Set the bits of mask if none of them is set yet: returns 1 when it set
 * them (they were all 0), 0 with the word unchanged otherwise. With mask 1
 * on a word that is 0 or 1 this is the classic test-and-set lock. */
static inline int _bgp_test_and_set(_BGP_Atomic *var, uint32_t mask)
{
    uint32_t old = atomic_load_explicit(EMU_BGP_ATOMIC32_(&var->atom), memory_order_relaxed);
    do {
        if (old & mask)
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(EMU_BGP_ATOMIC32_(&var->atom), &old, old | mask,
                                                    memory_order_seq_cst, memory_order_relaxed));
    return 1;
}

/* Store NewValue if the word equals *pOldValue: returns 1; otherwise
 * returns 0 and puts the word's current value in *pOldValue. */
static inline int _bgp_compare_and_swap(_BGP_Atomic *var, uint32_t *pOldValue, uint32_t NewValue)
{
    return atomic_compare_exchange_strong_explicit(EMU_BGP_ATOMIC32_(&var->atom), pOldValue, NewValue,
                                                   memory_order_seq_cst, memory_order_seq_cst);
}

#endif
