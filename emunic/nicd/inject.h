/* When a message may enter this NIC's injection port: the machine's
 * injection FIFO (fifo_depth messages in flight from this NIC), its
 * credits (messages in flight to one destination NIC) and
 * credit-starvation faults (--fault credits=...). One per daemon process,
 * used by wire_send. */
#ifndef EMUNIC_NICD_INJECT_H
#define EMUNIC_NICD_INJECT_H

#include <stdint.h>

#include "emunic/msg.h"
#include "emunic/netcfg.h"

struct emu_nic;

/* For node `me` of a job of nnodes nodes. 0 or -ENOMEM. */
int inject_init(const struct emu_netcfg *net, uint32_t nnodes, uint32_t me);
void inject_fini(void);
/* Whether anything here can hold a message back (else ready = now). */
int inject_on(void);
/* The earliest time m (to node dst) may be injected, now or later; a
 * message held back counts as a credit stall (or, by a fault, starved). */
int64_t inject_ready(struct emu_nic *nic, uint32_t dst, const struct emu_msg *m, int64_t now);
/* A message to dst was sent; it holds its FIFO slot and credit until it
 * arrives. */
void inject_sent(uint32_t dst, int64_t arrival);

#endif
