/* The Portals rank half's objects. Handles are kind (4 bits) | generation
 * (12 bits) | index (16 bits), so a stale or wrong-kind handle is caught
 * (PTL_ARG_INVALID), never followed. The NIC keeps its own copy of what it
 * needs (PTs, MDs, LEs), sent with synchronous control commands. */
#ifndef EMUNIC_PORTALS_LIB_STATE_H
#define EMUNIC_PORTALS_LIB_STATE_H

#include <pthread.h>
#include <stdbool.h>

#include "../proto.h"
#include "emunic/emunic.h"

enum pl_kind { PL_NI = 1, PL_EQ = 2, PL_CT = 4, PL_MD = 6, PL_LE = 7, PL_ME = 8 };

#define PL_MAX_EQ 1024
#define PL_MAX_CT 4096

struct pl_ni {
    uint32_t gen;
    int refs;
    unsigned options;
    uint32_t *map; /* logical rank -> job rank (NULL: identity) */
    uint32_t map_n;
    uint32_t *inv; /* job rank -> logical rank, in the heap for the NIC */
    ptl_ni_limits_t lim; /* agreed at the first PtlNIInit, enforced here */
    /* live objects, against lim; nle also counts entries the NIC has
     * unlinked by itself until pl_le_reclaim finds them */
    int nmd, nct, neq, nle;
    uint64_t trig_held; /* upper bound of unfired triggered ops (pl_trig_claim) */
};

/* An EQ or CT: a block of the registered heap the NIC writes
 * (struct ptlx_eq_shm or struct ptlx_ct_shm). */
struct pl_heapobj {
    uint32_t gen;
    bool live;
    uint32_t ni;
    void *shm;
    uint64_t trig_posted; /* CT: triggered ops posted on it (vs. shm trig_done) */
};

struct pl_md {
    uint32_t gen;
    bool live;
    uint32_t ni;
    ptl_md_t md;
    ptl_size_t total; /* bytes: md.length, or the iovec segments' sum */
    uint32_t pin;     /* emunic region keeping its memory moved, 0: none (pin.c) */
};

/* list entries: LEs (non-matching NI) and MEs (matching NI) share the
 * table; the handle kind tells them apart */
struct pl_le {
    uint32_t gen;
    bool live;
    bool me;
    uint32_t ni, pt;
    uint32_t pin; /* as pl_md's */
};

struct pl_state {
    pthread_mutex_t mu;
    int init_refs;
    _Atomic int aborted;
    _Atomic int triggers_used; /* then counter changes are told to the NIC */
    struct pl_ni ni[PTLX_MAX_NI];
    struct pl_heapobj eq[PL_MAX_EQ];
    struct pl_heapobj ct[PL_MAX_CT];
    struct pl_md md[PTLX_MAX_MD];
    struct pl_le *le; /* PTLX_MAX_LE, LEs and MEs */
    uint64_t *le_map; /* heap bitmap the NIC fills with linked entries */
    bool pt_used[PTLX_MAX_NI][PTLX_MAX_PT];
};

extern struct pl_state pl;

/* bounce.c: slots for sources longer than a command carries; wait: for
 * one to come free (a volatile MD), else NULL when all are busy */
struct ptlx_bounce *pl_bounce_take(int wait);
void pl_bounce_give_back(struct ptlx_bounce *s);
void pl_bounce_fini(void);

/* Every call but PtlInit, PtlNIInit and PtlHandleIsEqual: before PtlInit
 * (or after the last PtlFini) the answer is PTL_NO_INIT. */
#define PL_NEED_INIT                                                  \
    do {                                                              \
        if (__atomic_load_n(&pl.init_refs, __ATOMIC_ACQUIRE) <= 0)    \
            return PTL_NO_INIT;                                       \
    } while (0)

uint32_t pl_handle(enum pl_kind kind, uint32_t gen, uint32_t idx);
/* Index of a live object of this kind, or -1. Caller holds pl.mu or
 * accepts a racy read (data paths). */
/* wait.c: PtlAbort's effect on the waits in progress */
void pl_abort_waits(void);

int pl_ni_of(ptl_handle_ni_t h);
int pl_eq_of(ptl_handle_eq_t h);
int pl_ct_of(ptl_handle_ct_t h);
int pl_md_of(ptl_handle_md_t h);
int pl_le_of(ptl_handle_le_t h);
int pl_me_of(ptl_handle_me_t h);
uint32_t pl_next_gen(uint32_t gen);

/* Heap objects (EQs, CTs), pl.mu held: claim a free slot of tab with a
 * fresh heap block of bytes (index, or -1: table or heap full); release
 * one (its handle already checked); release all of NI ni. */
int pl_heapobj_claim(struct pl_heapobj *tab, int n, uint32_t ni, size_t bytes);
void pl_heapobj_release(struct pl_heapobj *o);
void pl_heapobj_sweep(struct pl_heapobj *tab, int n, uint32_t ni);

/* pin.c: expose a descriptor's contiguous private memory of 64 KiB or
 * more with EMU_PERM_PIN (entry: a list entry, pinned only if the program
 * alone unlinks it); the key, or 0. Unpin a key, which becomes 0. */
uint32_t pl_pin(const void *start, ptl_size_t length, unsigned options, int entry);
void pl_unpin(uint32_t *key);

/* Free the slots of entries the NIC unlinked by itself (use-once used up,
 * min_free), on every NI. pl.mu held. */
void pl_le_reclaim(void);

/* Count one more triggered operation on counter ct (index), or false
 * (PTL_NO_SPACE) if its NI already holds max_triggered_ops unfired;
 * pl_trig_unclaim takes it back when it was not posted after all. */
bool pl_trig_claim(int ct);
void pl_trig_unclaim(int ct);

/* Address m as a Portals command of this kind to rank dst's NIC. */
void pl_msg_to(struct emu_msg *m, uint32_t kind, uint32_t dst);

/* A synchronous command to this rank's NIC; returns the NIC's Portals
 * status, *imm its result value. */
int pl_ctl(uint32_t kind, struct emu_msg *m, uint64_t *imm);

/* Rank of target_id on NI ni, or -1. */
int64_t pl_target_rank(uint32_t ni, ptl_process_t id);

/* A function this slice does not emulate: one line on stderr, PTL_FAIL. */
int pl_unsupported(const char *fn, const char *what);

#endif
