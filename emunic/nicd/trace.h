/* The daemon's side of observability: the --trace timeline (Chrome
 * trace-event JSON, merged by the launcher) and the counters the engine
 * cannot bump in one line (queue_max). With EMU_NET_TRACE off every hook
 * costs one predictable branch on a process-wide flag: call the trace_*
 * hooks only under TRACE_ON().
 *
 * Events go to a private buffer, written whole to
 * <netcfg.trace_dir>/nic<N>.part when it fills and at nic_close; each
 * event is one line holding one JSON object (see docs/observe.md). The
 * daemon is single-threaded: none of this takes a lock. */
#ifndef EMUNIC_NICD_TRACE_H
#define EMUNIC_NICD_TRACE_H

#include <stdint.h>

struct emu_nic;
struct emu_msg;

/* Non-zero while this daemon records a trace (set by trace_open). */
extern int emu_nic_trace_on;
#define TRACE_ON() __builtin_expect(emu_nic_trace_on != 0, 0)

/* nic_open, after the job is attached: starts recording if the job asks
 * for a trace; also points the process's doorbell counter at the NIC's
 * counters (doorbells). Returns 0 or -errno (trace part not writable). */
int trace_open(struct emu_nic *nic);
/* nic_close: writes what is left and stops. */
void trace_close(struct emu_nic *nic);

/* An injected fault or a reliability event, as an instant on the NIC's
 * track: what ("drop", "dup", "corrupt", "reorder", "retransmit",
 * "linkdown", ...), the link's nodes (node_b == node_a for a node-wide
 * fault) and the packet concerned (NULL: none). Safe to call with tracing
 * off (returns at once). */
void trace_fault(struct emu_nic *nic, const char *what, uint32_t node_a, uint32_t node_b,
                 const struct emu_msg *m);

/* handle_cmd, once m->src is set: opens the command's span. */
void trace_cmd_begin(struct emu_nic *nic, const struct emu_msg *m);
/* handle_cmd, after the command went its way: closes the span of a
 * command that asked for no completion (its span is the handling). */
void trace_cmd_end(struct emu_nic *nic, const struct emu_msg *m);
/* emu_nic_deliver of an EMU_CQ_DONE: closes the span it completes. */
void trace_cmd_done(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe);

/* Counter upkeep (cheap, called whether or not tracing is on): after a
 * message may have been parked for node, raise queue_max to the depth of
 * node's wire backlog. */
void nic_note_wire_depth(struct emu_nic *nic, uint32_t node);

#endif
