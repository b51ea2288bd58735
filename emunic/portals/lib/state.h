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
};

/* An EQ or CT: a block of the registered heap the NIC writes
 * (struct ptlx_eq_shm or struct ptlx_ct_shm). */
struct pl_heapobj {
    uint32_t gen;
    bool live;
    uint32_t ni;
    void *shm;
};

struct pl_md {
    uint32_t gen;
    bool live;
    uint32_t ni;
    ptl_md_t md;
    ptl_size_t total; /* bytes: md.length, or the iovec segments' sum */
};

/* list entries: LEs (non-matching NI) and MEs (matching NI) share the
 * table; the handle kind tells them apart */
struct pl_le {
    uint32_t gen;
    bool live;
    bool me;
    uint32_t ni, pt;
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
    bool pt_used[PTLX_MAX_NI][PTLX_MAX_PT];
};

extern struct pl_state pl;

uint32_t pl_handle(enum pl_kind kind, uint32_t gen, uint32_t idx);
/* Index of a live object of this kind, or -1. Caller holds pl.mu or
 * accepts a racy read (data paths). */
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
