/* The Portals NIC half: per-rank portal tables, list entries and MDs kept
 * in the daemon, the table of operations in flight, and the writers of
 * events and counters into rank memory. */
#ifndef EMUNIC_PORTALS_NIC_H
#define EMUNIC_PORTALS_NIC_H

#include <stdbool.h>

#include "../proto.h"
#include "emunic/module.h"
#include "emunic/shared_heap.h"

/* A list entry; an ME also carries its match criteria and, with
 * PTL_ME_MANAGE_LOCAL, the offset the NIC manages. */
struct nle {
    uint32_t id;
    uint32_t options;
    uint32_t uid;
    bool me;
    uint64_t start, length, ct, user_ptr; /* PTL_IOVEC: start = array, length = total bytes */
    uint32_t iov_count;
    struct ptlx_me_match match;
    uint64_t local_offset;
    /* An overflow entry stays allocated, unlinked (gone), while unexpected
     * headers still point at it; when the last is claimed, an entry the
     * NIC unlinked itself posts PTL_EVENT_AUTO_FREE (auto_free). */
    uint32_t uh_refs;
    bool gone, auto_free;
    struct nle *next;
};

/* What the NIC remembers of an operation an overflow entry took, until a
 * priority append or a search claims it. */
struct nuh {
    uint8_t kind;
    uint8_t aop, atype;
    ptl_process_t from;
    uint64_t match_bits, rlength, mlength, remote_offset, hdr_data, start;
    struct nle *owner; /* the overflow entry that took it */
    struct nuh *next;
};

struct npt {
    bool used, enabled;
    uint32_t options;
    uint64_t eq;
    struct nle *head; /* priority list */
    struct nle *ovf;  /* overflow list */
    struct nuh *uh;   /* unexpected headers, oldest first */
    uint32_t nuh;     /* how many (max_unexpected_headers is per NI) */
};

struct nmd {
    bool live;
    uint32_t options;
    uint64_t start, length, eq, ct;
};

struct nni {
    bool live;
    uint64_t inv_map, inv_len; /* job rank -> logical rank (0: identity) */
    struct npt pt[PTLX_MAX_PT];
    struct nmd *md; /* PTLX_MAX_MD */
    uint64_t sr[PTL_SR_LAST];
    /* from PTLX_NI_INIT: max_list_size (enforced at append) and
     * max_unexpected_headers (for the overflow side) */
    uint64_t max_list, max_uh;
};

/* An operation this NIC started and awaits the result of. */
struct pending {
    bool live;
    bool inline_data;
    uint8_t kind, ack, list; /* list: where the target took it (result) */
    uint32_t gen, rank, ni, pt, put_md, get_md;
    uint64_t user_ptr, length, remote_offset, hdr_data, put_addr, get_addr;
    uint64_t bounce; /* the rank's bounce slot data (PTLX_D_BOUNCE), 0: none */
};

/* A node's Portals NIC state. What target work needs (the NIs and the
 * counts of held triggered operations) lives in the node's shared arena
 * (emunic/shared_heap.h), so another daemon holding the node's lock can
 * match there (ptln_peer_target); the table of operations this NIC
 * started is its own. */
struct ptl_nic {
    uint32_t node, first, nlocal;
    struct nni (*ni)[PTLX_MAX_NI]; /* [nlocal] */
    uint32_t *nheld;               /* [nlocal] triggered operations held (triggered.c) */
    struct pending *pend;          /* this daemon's heap */
    uint32_t npend;
};

/* span.c: memory on one side of an operation */
struct span {
    uint32_t rank;
    bool iov;
    uint64_t addr;  /* contiguous start, or the ptl_iovec_t array */
    uint32_t count; /* segments (iovec) */
};
uint64_t ptln_span_total(struct emu_nic *nic, const struct span *s);
/* Copy len bytes to d at doff from s at soff, or from inline_src. */
int ptln_span_copy(struct emu_nic *nic, const struct span *d, uint64_t doff, const struct span *s, uint64_t soff,
                   const void *inline_src, uint64_t len);
/* The flat address of [off, off+len) if it lies in one segment, else -1. */
int ptln_span_flat(struct emu_nic *nic, const struct span *s, uint64_t off, uint64_t len, uint64_t *addr);

/* events.c */
void ptln_eq_post(struct emu_nic *nic, uint32_t rank, uint64_t eq, const ptl_event_t *ev);
/* Free slots of the EQ (0 if it is not valid memory). */
uint64_t ptln_eq_room(struct emu_nic *nic, uint32_t rank, uint64_t eq);
void ptln_ct_add(struct emu_nic *nic, uint32_t rank, uint64_t ct, uint64_t success, uint64_t failure);

/* control.c: NI, PT, MD and LE commands from a local rank */
void ptln_control(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);
struct nni *ptln_ni(struct emu_nic *nic, struct ptl_nic *s, uint32_t rank, uint32_t ni);
/* Free everything an NI holds (lists, unexpected headers, MDs). */
void ptln_ni_clear(struct nni *n);

/* The initiator's id as the target's NI knows it: logical rank (through
 * the target's PtlSetMap table) or physical nid/pid. */
ptl_process_t ptln_initiator(struct emu_nic *nic, const struct nni *n, uint32_t ni, uint32_t target,
                             uint32_t src);

/* Does ME e accept an operation with these bits, offset and length from
 * initiator from on NI ni? */
bool ptln_me_matches(const struct nle *e, uint64_t bits, uint64_t offset, uint64_t len, uint32_t ni,
                     ptl_process_t from);
uint8_t ptln_event_type(uint8_t kind);

/* unexpected.c: the overflow side of a portal table entry */
void ptln_uh_record(struct npt *p, struct nle *owner, const struct emu_msg *m, ptl_process_t from, uint64_t start,
                    uint64_t mlen);
/* An event about entry e itself (LINK, AUTO_UNLINK, AUTO_FREE) on the PT's EQ. */
void ptln_entry_event(struct emu_nic *nic, uint32_t rank, const struct npt *p, uint32_t pt, const struct nle *e,
                      uint8_t type, bool overflow);
/* Free an entry no list holds any more, or leave it to its headers. */
void ptln_le_free(struct nle *e);
/* An entry the NIC used up (use-once, min_free) and took off its list:
 * PTL_EVENT_AUTO_UNLINK, then PTL_EVENT_AUTO_FREE for an overflow entry
 * once no unexpected header points at it. */
void ptln_le_used_up(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, struct nle *e, bool overflow);
/* A new priority entry first claims matching unexpected headers; returns
 * true if it was used up by them (use-once): then it is freed, not linked. */
bool ptln_uh_claim(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, struct nle *e);
int ptln_search(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, const struct nle *e,
                int delete_op);
void ptln_uh_clear(struct npt *p);

/* target.c: an operation arriving for a local rank */
void ptln_target(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);
/* The same for another node's rank, by this daemon under that node's lock
 * with that node's state s; 0 (nothing done) when it must go to the wire. */
int ptln_peer_target(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);

/* triggered.c: commands held until a counter reaches a threshold */
void ptln_trig_init(struct ptl_nic *s);
void ptln_trig_fini(void);
void ptln_trig_post(struct emu_nic *nic, struct emu_msg *m);
void ptln_trig_check(struct emu_nic *nic, uint32_t rank, uint64_t ct);
int ptln_trig_cancel(struct emu_nic *nic, uint32_t rank, uint64_t ct);

/* initiator.c: operations of local ranks, start and result */
void ptln_start(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);
void ptln_result(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);

#endif
