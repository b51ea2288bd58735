/* The link layer between routing (emu_nic_route) and the wire (wire_send):
 * fault injection and the link-level reliability protocol (docs/faults.md).
 *
 * It is on only when the job has a fault plan (netcfg.nrules > 0); then
 * every packet for another node goes through link_send and every packet
 * from the wire through link_recv. Without a plan the engine never calls
 * into it: the fault-free path costs one predictable branch on a
 * process-wide flag, as the trace hooks do.
 *
 * On the wire a packet is still one struct emu_msg: the link layer appends
 * a 20-byte trailer (struct link_trailer) after the inline payload and
 * counts it in dlen, so rings, parking queues and the machine model's
 * timed queue carry it unchanged. A payload longer than
 * EMU_INLINE_MAX - LINK_TRAILER_SIZE travels as two sequenced fragments.
 * The daemon is single-threaded and runs one NIC: the state is private to
 * link.c. */
#ifndef EMUNIC_NICD_LINK_H
#define EMUNIC_NICD_LINK_H

#include <stdint.h>

#include "emunic/msg.h"

struct emu_nic;

/* The Portals request/reply pair the link layer times out under
 * --unreliable (enum ptlx_kind in emunic/portals/proto.h, which the daemon
 * cannot include; tests/faults/ptl_consts.c checks they agree): data
 * operations PUT..SWAP, each answered by one RESULT. */
#define LINK_PTLX_PUT 14
#define LINK_PTLX_SWAP 18
#define LINK_PTLX_RESULT 19

/* Non-zero when this daemon's job has a fault plan (set by link_init). */
extern int emu_link_on;
#define LINK_ON() __builtin_expect(emu_link_on != 0, 0)

typedef void (*link_wire_fn)(struct emu_nic *nic, uint32_t node, const struct emu_msg *m);

/* nic_open, after the rings are attached: reads the fault plan; wire is
 * the engine's wire_send. Returns 0 or -errno. */
int link_init(struct emu_nic *nic, link_wire_fn wire);
/* nic_close: prints this NIC's fault summary (when it injected any) and
 * frees everything. */
void link_fini(struct emu_nic *nic);

/* emu_nic_route, for every message it routes (counts a rank's messages
 * for kill=rN,after=N). */
void link_note(struct emu_nic *nic, const struct emu_msg *m);
/* emu_nic_route, for a message to another node: instead of wire_send. */
void link_send(struct emu_nic *nic, uint32_t node, const struct emu_msg *m);
/* handle_wire, first: decodes *m in place. Returns 1 if *m is to be
 * dispatched now, 0 if the link layer consumed it (control packet,
 * duplicate, corrupt, out of order, ...). */
int link_recv(struct emu_nic *nic, struct emu_msg *m);
/* handle_wire, after dispatching: the next packet that became deliverable
 * in order (1, in *m) or none (0). */
int link_recv_next(struct emu_nic *nic, struct emu_msg *m);
/* turn: timers (retransmits, loss time-outs, explicit acks, held
 * packets, timed faults). Returns the work done. */
int link_progress(struct emu_nic *nic);

#endif
