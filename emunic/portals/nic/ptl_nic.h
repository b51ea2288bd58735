/* The Portals NIC half: per-rank portal tables, list entries and MDs kept
 * in the daemon, the table of operations in flight, and the writers of
 * events and counters into rank memory. */
#ifndef EMUNIC_PORTALS_NIC_H
#define EMUNIC_PORTALS_NIC_H

#include <stdbool.h>

#include "../proto.h"
#include "emunic/module.h"

/* A list entry; an ME also carries its match criteria and, with
 * PTL_ME_MANAGE_LOCAL, the offset the NIC manages. */
struct nle {
    uint32_t id;
    uint32_t options;
    uint32_t uid;
    bool me;
    uint64_t start, length, ct, user_ptr;
    struct ptlx_me_match match;
    uint64_t local_offset;
    struct nle *next;
};

struct npt {
    bool used, enabled;
    uint32_t options;
    uint64_t eq;
    struct nle *head;
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
};

/* An operation this NIC started and awaits the result of. */
struct pending {
    bool live;
    bool inline_data;
    uint8_t kind, ack;
    uint32_t gen, rank, ni, pt, put_md, get_md;
    uint64_t user_ptr, length, remote_offset, hdr_data, put_addr, get_addr;
};

struct ptl_nic {
    struct nni (*ni)[PTLX_MAX_NI]; /* [nlocal] */
    struct pending *pend;
    uint32_t npend;
};

/* events.c */
void ptln_eq_post(struct emu_nic *nic, uint32_t rank, uint64_t eq, const ptl_event_t *ev);
/* Free slots of the EQ (0 if it is not valid memory). */
uint64_t ptln_eq_room(struct emu_nic *nic, uint32_t rank, uint64_t eq);
void ptln_ct_add(struct emu_nic *nic, uint32_t rank, uint64_t ct, uint64_t success, uint64_t failure);

/* control.c: NI, PT, MD and LE commands from a local rank */
void ptln_control(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);
struct nni *ptln_ni(struct emu_nic *nic, struct ptl_nic *s, uint32_t rank, uint32_t ni);

/* The initiator's id as the target's NI knows it: logical rank (through
 * the target's PtlSetMap table) or physical nid/pid. */
ptl_process_t ptln_initiator(struct emu_nic *nic, const struct nni *n, uint32_t ni, uint32_t target,
                             uint32_t src);

/* target.c: an operation arriving for a local rank */
void ptln_target(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);

/* triggered.c: commands held until a counter reaches a threshold */
void ptln_trig_init(struct ptl_nic *s);
void ptln_trig_fini(void);
void ptln_trig_post(struct emu_nic *nic, struct emu_msg *m);
void ptln_trig_check(struct emu_nic *nic, uint32_t rank, uint64_t ct);
int ptln_trig_cancel(uint32_t rank, uint64_t ct);

/* initiator.c: operations of local ranks, start and result */
void ptln_start(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);
void ptln_result(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m);

#endif
