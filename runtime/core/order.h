/* Ordering and remote completion ([OSPRI] strict / partial / unordered,
 * [BGQ-PAMI] per-region conflict tracking). Data reaches a target by one
 * of two paths: RDMA (the device's put/get/atomics straight to the target
 * rank) or SRV (a request the target's data server executes). Each path
 * is ordered in itself; crossing paths needs a flush of the other one,
 * and a fence needs both: a no-op when nothing is outstanding, waiting
 * for the acks of RDMA puts (a flush-put, a zero-byte put with ack, when
 * a write without ack is outstanding), a flush-send (request with ack)
 * for server work. */
#ifndef ARMCII_ORDER_H
#define ARMCII_ORDER_H
#include "mem.h"

enum { ARMCII_OP_PUT, ARMCII_OP_GET, ARMCII_OP_ACC, ARMCII_OP_RMW };
enum { ARMCII_RDMA, ARMCII_SRV };

#define ARMCII_DIRTY_RDMA 1
#define ARMCII_DIRTY_SRV 2

/* Before an operation of kind on path touching seg (NULL: unknown, the
 * whole target) of proc: flush what the ordering mode requires. */
void armcii_order_before(int proc, struct armcii_seg *seg, int kind, int path);
/* After posting it: remember an outstanding write. */
void armcii_order_after(int proc, struct armcii_seg *seg, int kind, int path);
void armcii_fence(int proc);
/* The remote completion to give an RDMA put to proc, and the mark for an
 * RDMA write that has none (a fence must then send a flush-put). */
struct adev_cmpl *armcii_order_ack(int proc);
void armcii_order_unacked(int proc);
int armcii_order_init(int nproc);
void armcii_order_finalize(void);
/* Counters for the report: flushes of each kind. */
extern unsigned long armcii_nflush_put, armcii_nflush_send, armcii_nflush_noop;
extern unsigned long armcii_nflush_ack; /* RDMA flushes done by waiting for acks */
#endif
