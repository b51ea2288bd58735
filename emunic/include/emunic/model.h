/* The machine model: when a message handed to one node's NIC arrives at
 * another's, on the machine netcfg describes. Pure functions of the
 * configuration plus the links' shared busy-until times, so every daemon
 * computes the same network and congestion emerges from the traffic of all
 * of them. Times are CLOCK_MONOTONIC nanoseconds of the host, with the
 * dilation (netcfg.dilate) applied to every modelled delay.
 *
 * Timing (cut-through, see docs/machines.md): a message of B wire bytes,
 * S = B / link_bw its serialisation time, o the per-message overhead
 * (ack_overhead_ns for a put's data-less ack),
 *   injection port of src:  start0 = max(now, busy); busy = start0 + o + S
 *   head leaves at          t = start0 + o
 *   each link of the dimension-ordered route, in order:
 *                           s = max(t, busy); busy = s + S;
 *                           t = s + (first link ? latency : hop)
 *   reception port of dst:  s = max(t, busy); busy = s + S
 *   arrival                 = s + S
 * every delay (o, latency, hop, S) multiplied by the dilation. */
#ifndef EMUNIC_MODEL_H
#define EMUNIC_MODEL_H

#include <stdatomic.h>
#include <stdint.h>

#include "emunic/netcfg.h"

/* Link slots of a node (index into its EMU_NET_LINKS_PER_NODE). */
#define EMU_LINK_OUT(dim, minus) (2u * (dim) + ((minus) ? 1u : 0u)) /* torus port */
#define EMU_LINK_RX (2u * EMU_NET_MAX_DIMS - 1u) /* reception port (needs ndims < 6) */
#define EMU_LINK_INJ (2u * EMU_NET_MAX_DIMS)     /* injection port */
#define EMU_MODEL_MAX_ROUTE 256                  /* links on one route, at most */

/* Whether the machine adds any delay (the ideal machine does not). */
int emu_model_active(const struct emu_netcfg *net);

/* Arrival time at node dst's NIC of a message of `bytes` wire bytes that
 * node src's NIC injects at now_ns; reserves the links of its route
 * (links: emu_job_links, nnodes nodes). src == dst: now_ns plus the
 * per-message overhead only. The ideal machine returns now_ns. */
int64_t emu_model_arrival(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes,
                          uint32_t src, uint32_t dst, uint64_t bytes, int64_t now_ns);

/* The same for a message that may enter the injection port no earlier than
 * ready_ns (the NIC's FIFO and credits decide that, see nicd/inject.c);
 * ack: a data-less completion ack, charged the profile's ack_overhead_ns
 * instead of overhead_ns. */
int64_t emu_model_send(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes, uint32_t src,
                       uint32_t dst, uint64_t bytes, int ack, int64_t ready_ns);

/* Background traffic: occupy the network links of src->dst's route and
 * dst's reception port for `bytes` from now_ns (no injection overhead, no
 * data). Returns the time the tail would arrive. */
int64_t emu_model_occupy(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes,
                         uint32_t src, uint32_t dst, uint64_t bytes, int64_t now_ns);

/* Hops between two nodes on the machine's topology (1 without one). */
uint32_t emu_model_hops(const struct emu_machine *m, uint32_t nnodes, uint32_t a, uint32_t b);

/* Coordinates of node n (coords[d] for d < m->ndims), from the mapping. */
void emu_model_coords(const struct emu_machine *m, uint32_t n, uint32_t *coords);
/* Node index at coordinates (inverse of emu_model_coords). */
uint32_t emu_model_node_at(const struct emu_machine *m, const uint32_t *coords);

/* The route's network links as indices into the links array (node *
 * EMU_NET_LINKS_PER_NODE + slot), dimension-ordered; returns how many
 * (at most max). Without a topology: src's port 0, one link. */
uint32_t emu_model_route(const struct emu_machine *m, uint32_t nnodes, uint32_t src, uint32_t dst,
                         uint32_t *out, uint32_t max);

/* Packets a message of `bytes` takes (MTU 0: 1). */
uint64_t emu_model_packets(const struct emu_machine *m, uint64_t bytes);

/* Check a mapping string against ndims: a permutation of the first ndims
 * letters of "ABCDEF" followed by 'T' ("" is the default "ABC..T").
 * Returns 0 or -1. */
int emu_model_mapping_ok(const char *mapping, uint32_t ndims);

/* Nodes of a machine of these dimensions: the product of full[], which
 * stops growing once past 2^32 (more than any job) so it cannot wrap. */
uint64_t emu_model_nodes(const uint32_t *full, uint32_t ndims);

/* Sub-shape of a machine for a job of nnodes nodes: fill dimensions from
 * the fastest-varying one (the letter before T in the mapping) to the
 * slowest, each up to its full size. full[] are the profile's sizes,
 * out[] receives the job's. Returns 0, or -1 if nnodes exceeds the
 * product of full[]. */
int emu_model_subshape(const uint32_t *full, uint32_t ndims, const char *mapping, uint32_t nnodes,
                       uint32_t *out);

#endif
