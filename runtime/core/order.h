/* Ordering and remote completion ([OSPRI] strict / partial / unordered,
 * [BGQ-PAMI] per-region conflict tracking). Data reaches a target by one
 * of two paths: RDMA (the device's put/get/atomics straight to the target
 * rank) or SRV (a request the target's data server executes). Each path
 * is ordered in itself; crossing paths needs a flush of the other one,
 * and a fence needs both: a no-op when nothing is outstanding, a
 * flush-put (zero-byte put with ack) for RDMA writes, a flush-send
 * (request with ack) for server work. */
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
int armcii_order_init(int nproc);
void armcii_order_finalize(void);
/* Counters for the report: flushes of each kind. */
extern unsigned long armcii_nflush_put, armcii_nflush_send, armcii_nflush_noop;
#endif
