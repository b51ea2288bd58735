/* Flush decisions. A target's dirty bits say which paths carry writes to it
 * that are not yet known to be applied; with conflict tracking the same
 * bits are also kept per segment, so a read only waits for writes to the
 * data it reads. */
#include "order.h"

#include <errno.h>
#include <stdlib.h>
#include "chan.h"
#include "config.h"
#include "op.h"
#include "serial.h"

unsigned long armcii_nflush_put, armcii_nflush_send, armcii_nflush_noop, armcii_nflush_ack;
static uint8_t *tstate; /* per target, the union over its segments */
/* Every RDMA put asks for an acknowledgement, counted here per target, so
 * flushing puts is waiting for their acks -- no extra round trip. Only
 * writes that carry no ack (the NIC's non-fetching atomics) leave a
 * target `unacked`, which a real flush-put then covers. */
static struct armcii_req *acks;
static uint8_t *unacked;

struct adev_cmpl *armcii_order_ack(int proc)
{
    return &armcii_cmpl_new(&acks[proc])->c;
}

void armcii_order_unacked(int proc)
{
    unacked[proc] = 1;
}

/* Whether proc's RDMA writes need a real flush-put: only when one without
 * an ack is outstanding; otherwise their acks are the flush. */
static int needs_flush_put(int proc)
{
    if (!unacked[proc]) {
        armcii_nflush_ack++;
        return 0;
    }
    unacked[proc] = 0;
    return 1;
}

static void flush_put(int proc)
{
    armcii_req_wait(armcii_req_implicit(proc));
    armcii_req_wait(&acks[proc]);
    if (!needs_flush_put(proc))
        return;
    struct armcii_req r = {0};
    struct armcii_cmpl *c = armcii_cmpl_new(&r);
    ARMCII_POST("ARMCI_Fence", armcii_dev->put(ADEV_CTX_RANK, proc, NULL, NULL, 0, NULL, &c->c));
    armcii_req_wait(&r);
    armcii_nflush_put++;
}

static void flush_send(int proc)
{
    armcii_chan_flush(armcii_server_of(proc));
    armcii_nflush_send++;
}

/* Clear a path's bit on proc everywhere: the flush covered every segment.
 * A server flush covers every rank that server serves. */
static void clear(int proc, uint8_t bit)
{
    if (bit == ARMCII_DIRTY_RDMA) {
        tstate[proc] &= (uint8_t)~bit;
        armcii_seg_clear(proc, bit);
        return;
    }
    int srv = armcii_server_of(proc);
    for (int p = 0; p < armcii_nproc(); p++)
        if (armcii_server_of(p) == srv) {
            tstate[p] &= (uint8_t)~bit;
            armcii_seg_clear(p, bit);
        }
}

static void flush_path(int proc, uint8_t bit)
{
    if (bit == ARMCII_DIRTY_RDMA)
        flush_put(proc);
    else
        flush_send(proc);
    clear(proc, bit);
}

void armcii_order_before(int proc, struct armcii_seg *seg, int kind, int path)
{
    int mode = armcii_cfg.order;
    if (mode == ARMCII_ORDER_UNORDERED)
        return;
    uint8_t st = armcii_cfg.conflict && seg ? seg->state[proc] : tstate[proc];
    uint8_t other = path == ARMCII_RDMA ? ARMCII_DIRTY_SRV : ARMCII_DIRTY_RDMA;
    if (mode == ARMCII_ORDER_PARTIAL) {
        /* only puts keep their order, and only across paths */
        if (kind == ARMCII_OP_PUT && (st & other))
            flush_path(proc, other);
        return;
    }
    if (st & other)
        flush_path(proc, other);
    /* a path that does not keep RDMA writes in order must flush them
     * before anything that may read or overwrite them */
    if (path == ARMCII_RDMA && !(armcii_dev->caps & ADEV_CAP_ORDERED) &&
        (st & ARMCII_DIRTY_RDMA))
        flush_path(proc, ARMCII_DIRTY_RDMA);
}

void armcii_order_after(int proc, struct armcii_seg *seg, int kind, int path)
{
    if (kind == ARMCII_OP_GET)
        return;
    uint8_t bit = path == ARMCII_RDMA ? ARMCII_DIRTY_RDMA : ARMCII_DIRTY_SRV;
    tstate[proc] |= bit;
    if (seg)
        seg->state[proc] |= bit;
}

void armcii_fence(int proc)
{
    uint8_t st = tstate[proc];
    armcii_req_wait(armcii_req_implicit(proc));
    if (!st) {
        armcii_nflush_noop++;
        return;
    }
    if (st & ARMCII_DIRTY_SRV)
        flush_path(proc, ARMCII_DIRTY_SRV);
    if (st & ARMCII_DIRTY_RDMA)
        flush_path(proc, ARMCII_DIRTY_RDMA);
}

void ARMCI_Fence(int proc)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Fence");
    armcii_check_proc(proc, "ARMCI_Fence");
    armcii_fence(proc);
}

/* All flush-puts go out at once, then all server flushes; one wait. Only
 * to the targets written since their last fence ([OSPRI]), unless
 * ARMCI_ALLFENCE=all: then every rank gets a flush-put, written to or
 * not, as ARMCI's generic AllFence does (the baseline it is measured
 * against). */
void ARMCI_AllFence(void)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_AllFence");
    int n = armcii_nproc();
    int all = armcii_cfg.allfence == ARMCII_ALLFENCE_ALL;
    ARMCI_WaitAll();
    struct armcii_req r = {0};
    for (int p = 0; p < n; p++) {
        if (all)
            unacked[p] = 0;
        else if (!(tstate[p] & ARMCII_DIRTY_RDMA) || !needs_flush_put(p))
            continue;
        struct armcii_cmpl *c = armcii_cmpl_new(&r);
        ARMCII_POST("ARMCI_AllFence", armcii_dev->put(ADEV_CTX_RANK, p, NULL, NULL, 0, NULL, &c->c));
        armcii_nflush_put++;
    }
    armcii_req_wait(&r);
    for (int p = 0; p < n; p++)
        if (tstate[p] & ARMCII_DIRTY_RDMA) {
            armcii_req_wait(&acks[p]);
            clear(p, ARMCII_DIRTY_RDMA);
        }
    for (int p = 0; p < n; p++)
        if (tstate[p] & ARMCII_DIRTY_SRV)
            flush_path(p, ARMCII_DIRTY_SRV);
}

int armcii_order_init(int nproc)
{
    tstate = calloc((size_t)nproc, 1);
    unacked = calloc((size_t)nproc, 1);
    acks = calloc((size_t)nproc, sizeof *acks);
    return tstate && unacked && acks ? 0 : -ENOMEM;
}

void armcii_order_finalize(void)
{
    free(tstate);
    free(unacked);
    free(acks);
    tstate = unacked = NULL;
    acks = NULL;
}
