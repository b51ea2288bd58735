/* Blue Gene/P shim: the PowerPC 450 inlines DCMF clients use for atomics
 * and barriers (`#include <bpcore/ppc450_inlines.h>`), on Linux with C11
 * atomics. Names and signatures are BG/P's; the implementation is emunic's
 * own emulation.
 *
 * _bgp_LoadReserved / _bgp_StoreConditional emulate lwarx / stwcx. with a
 * compare-exchange against the value the reservation saw, kept in a
 * thread-local reservation. Two differences from the hardware, harmless for
 * the usual read-modify-write retry loops:
 *  - a store by someone else that puts back the value the reservation saw
 *    (A -> B -> A) does not cancel it, where the hardware would;
 *  - the reservation is per thread and per translation unit (the state is
 *    a static in this header), so pair the two calls in one function, as
 *    every retry loop does.
 * Needs a C11 compiler with <stdatomic.h> (gcc, clang). */
#ifndef EMUNIC_BGP_PPC450_INLINES_H
#define EMUNIC_BGP_PPC450_INLINES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The barriers, unless the client already supplies its own (as macros). On
 * the PPC450 msync orders everything and mbar orders storage accesses; a
 * full fence is what both mean to code written against them. isync is
 * used after a lock's lwarx/stwcx. loop to keep later loads from starting
 * early: an acquire fence. */
#ifndef _bgp_msync
static inline void _bgp_msync(void) { atomic_thread_fence(memory_order_seq_cst); }
#endif
#ifndef _bgp_mbar
static inline void _bgp_mbar(void) { atomic_thread_fence(memory_order_seq_cst); }
#endif
#ifndef _bgp_isync
static inline void _bgp_isync(void) { atomic_thread_fence(memory_order_acquire); }
#endif

/* A 32-bit word that the hardware accesses atomically, seen through C11:
 * uint32_t and _Atomic uint32_t have the same size and alignment on every
 * Linux target gcc and clang support. */
#define EMU_BGP_ATOMIC32_(p) ((volatile _Atomic uint32_t *)(p))

struct emu_bgp_reservation_ {
    volatile uint32_t *addr; /* NULL: no reservation held */
    uint32_t seen;
};
static _Thread_local struct emu_bgp_reservation_ emu_bgp_resv_ __attribute__((unused));

/* lwarx: load the word and take a reservation on it. */
static inline uint32_t _bgp_LoadReserved(volatile uint32_t *pVar)
{
    uint32_t v = atomic_load_explicit(EMU_BGP_ATOMIC32_(pVar), memory_order_acquire);
    emu_bgp_resv_.addr = pVar;
    emu_bgp_resv_.seen = v;
    return v;
}

/* stwcx.: store Val if the reservation on pVar still holds, i.e. the word
 * still has the value _bgp_LoadReserved saw. Returns 1 when it stored, 0
 * when not (the caller retries). The reservation is gone either way. */
static inline int _bgp_StoreConditional(volatile uint32_t *pVar, uint32_t Val)
{
    volatile uint32_t *held = emu_bgp_resv_.addr;
    emu_bgp_resv_.addr = NULL;
    if (held != pVar)
        return 0;
    uint32_t expect = emu_bgp_resv_.seen;
    return atomic_compare_exchange_strong_explicit(EMU_BGP_ATOMIC32_(pVar), &expect, Val,
                                                   memory_order_seq_cst, memory_order_relaxed);
}

/* dcbt: bring the cache line holding addr into the data cache ahead of a
 * use. A hint, as on the PPC450: nothing is read or written. Any object
 * pointer converts to the parameter, volatile ones included. */
#ifndef _bgp_dcache_touch_line
static inline void _bgp_dcache_touch_line(const volatile void *addr)
{
    __builtin_prefetch((const void *)addr, 0, 3);
}
#endif

#endif
