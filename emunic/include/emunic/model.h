/* The machine model: when a message handed to one node's NIC arrives at
 * another's, on the machine netcfg describes. Pure functions of the
 * configuration plus the links' shared busy-until times, so every daemon
 * computes the same network and congestion emerges from the traffic of all
 * of them. Times are CLOCK_MONOTONIC nanoseconds of the host, with the
 * dilation (netcfg.dilate) applied to every modelled delay. */
#ifndef EMUNIC_MODEL_H
#define EMUNIC_MODEL_H

#include <stdatomic.h>
#include <stdint.h>

#include "emunic/netcfg.h"

/* Arrival time at node dst's NIC of a message of `bytes` wire bytes that
 * node src's NIC injects at now_ns; reserves the links of its route
 * (links: emu_job_links, nnodes nodes). src == dst: now_ns plus the
 * per-message overhead only. The ideal machine returns now_ns. */
int64_t emu_model_arrival(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes,
                          uint32_t src, uint32_t dst, uint64_t bytes, int64_t now_ns);

/* Hops between two nodes on the machine's topology (1 without one). */
uint32_t emu_model_hops(const struct emu_machine *m, uint32_t nnodes, uint32_t a, uint32_t b);

#endif
