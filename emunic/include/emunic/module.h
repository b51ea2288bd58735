/* The hook a personality's NIC half plugs into the daemon with, and the
 * services the daemon offers it. A module sees messages with op
 * EMU_OP_MODULE and its id: on the initiator's NIC first (on_local), then on
 * the target's NIC (on_target) once routed. Everything else (copies, bounds
 * checks, completions, the wire) it asks of the core through emu_nic_*. */
#ifndef EMUNIC_MODULE_H
#define EMUNIC_MODULE_H

#include <stdint.h>

#include "emunic/counters.h"
#include "emunic/msg.h"

struct emu_nic;

struct emu_module {
    uint8_t id;
    const char *name;
    int (*init)(struct emu_nic *nic, void **state);  /* optional */
    void (*fini)(struct emu_nic *nic, void *state);  /* optional */
    /* Initiator side; NULL means "route to the target as is". */
    void (*on_local)(struct emu_nic *nic, void *state, struct emu_msg *m);
    /* Target side; m->dst is a rank of this node. */
    void (*on_target)(struct emu_nic *nic, void *state, struct emu_msg *m);
    /* Target side for a rank of another node, run by this daemon under
     * that node's lock (nicd/fastpath.c) with the state that node's
     * daemon published (emu_shared_set_root): 1 if it did the work as
     * on_target would have, 0 to leave it to the wire, having changed
     * nothing. Optional. */
    int (*on_peer_target)(struct emu_nic *nic, void *peer_state, struct emu_msg *m);
    /* Called every loop turn; returns how much work it did. Optional. */
    int (*progress)(struct emu_nic *nic, void *state);
};

/* Send m to the NIC of rank m->dst (this one included). */
void emu_nic_route(struct emu_nic *nic, const struct emu_msg *m);
/* Tell the initiator of req that it finished: an EMU_CQ_DONE with the
 * flags it asked for, status and imm reach rank req->src. */
void emu_nic_ack(struct emu_nic *nic, const struct emu_msg *req, int status, uint64_t imm);
/* Post an entry to the completion queue of a rank of this node. */
void emu_nic_deliver(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe);
/* Copy len bytes between ranks' memories, or in/out of daemon memory.
 * Return EMU_OK or EMU_E_FAULT. */
int emu_nic_copy(struct emu_nic *nic, uint32_t drank, uint64_t daddr,
                 uint32_t srank, uint64_t saddr, uint64_t len);
int emu_nic_copy_in(struct emu_nic *nic, uint32_t drank, uint64_t daddr,
                    const void *src, uint64_t len);
int emu_nic_copy_out(struct emu_nic *nic, void *dst, uint32_t srank,
                     uint64_t saddr, uint64_t len);
/* The NIC's atomic unit: apply m->aop/m->dtype to (m->dst, m->raddr,
 * m->len) with the operand inline (EMU_F_INLINE, m->data) or at
 * (m->src, m->laddr) and the compare value or mask in m->operand; with
 * fetch, the old contents go to (m->src, m->aux). The caller has checked
 * that the target range may be touched. Returns an emu_status. */
int emu_nic_atomic(struct emu_nic *nic, const struct emu_msg *m, int fetch);
/* Region check on rank's table (see region.h). */
int emu_nic_check(struct emu_nic *nic, uint32_t rank, uint32_t key,
                  uint64_t addr, uint64_t len, uint32_t need);
/* Daemon pointer to [addr, addr+len) in rank's registered heap, or NULL
 * if the range is not entirely inside it. For objects a personality keeps
 * in rank memory and the NIC updates in place (event queues, counters). */
void *emu_nic_rank_ptr(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len);
/* Ring rank's doorbell after updating its memory (cheap when it is awake). */
void emu_nic_wake(struct emu_nic *nic, uint32_t rank);
/* This NIC's ranks are first .. first + nlocal - 1. */
uint32_t emu_nic_first_rank(const struct emu_nic *nic);
uint32_t emu_nic_nlocal(const struct emu_nic *nic);
uint32_t emu_nic_node(const struct emu_nic *nic);
uint32_t emu_nic_node_of(const struct emu_nic *nic, uint32_t rank);
uint32_t emu_nic_nranks(const struct emu_nic *nic);
struct emu_nic_counters *emu_nic_counters(struct emu_nic *nic);
/* The fault plan's eqfull (docs/faults.md): whether an event for local
 * rank's event queues must find them full now. A refusal is counted and
 * traced; the personality reports it in its API's terms (Portals: the
 * event is dropped, PTL_EQ_DROPPED, and flow control disables the PT). */
int emu_nic_eq_refuse(struct emu_nic *nic, uint32_t rank);

#endif
