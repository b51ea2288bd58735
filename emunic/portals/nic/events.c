/* Events and counters written into rank memory, as a NIC DMA-writes
 * them. Everything read back from that memory (the queue's size and the
 * rank's head) is treated as untrusted and checked first. */
#include "ptl_nic.h"

/* The fault plan's eqfull. ptln_eq_room already decided for the event
 * that follows it (flow control checks room first); the PT_DISABLED event
 * has the slot flow control keeps for it. */
static uint32_t granted = UINT32_MAX;

static int refused(struct emu_nic *nic, uint32_t rank)
{
    if (granted == rank) {
        granted = UINT32_MAX;
        return 0;
    }
    return emu_nic_eq_refuse(nic, rank);
}

void ptln_eq_post(struct emu_nic *nic, uint32_t rank, uint64_t eq, const ptl_event_t *ev)
{
    if (!eq)
        return;
    struct ptlx_eq_shm *q = emu_nic_rank_ptr(nic, rank, eq, sizeof *q);
    if (!q)
        return;
    uint64_t count = q->count;
    if (!count || count > (1u << 22) ||
        !emu_nic_rank_ptr(nic, rank, eq, sizeof *q + count * sizeof(ptl_event_t)))
        return;
    uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&q->head, memory_order_acquire);
    if (t - h >= count || (ev->type != PTL_EVENT_PT_DISABLED && refused(nic, rank))) {
        /* full: the event is lost and the queue says so (PTL_EQ_DROPPED) */
        atomic_store(&q->dropped, 1);
    } else {
        q->ev[t % count] = *ev;
        atomic_store_explicit(&q->tail, t + 1, memory_order_release);
    }
    emu_nic_wake(nic, rank);
}

uint64_t ptln_eq_room(struct emu_nic *nic, uint32_t rank, uint64_t eq)
{
    struct ptlx_eq_shm *q = eq ? emu_nic_rank_ptr(nic, rank, eq, sizeof *q) : NULL;
    if (!q)
        return 0;
    uint64_t count = q->count;
    uint64_t used = atomic_load(&q->tail) - atomic_load(&q->head);
    if (used >= count)
        return 0;
    /* decide eqfull for the event this check announces, once */
    if (emu_nic_eq_refuse(nic, rank))
        return 0;
    granted = rank;
    return count - used;
}

void ptln_ct_add(struct emu_nic *nic, uint32_t rank, uint64_t ct, uint64_t success, uint64_t failure)
{
    if (!ct)
        return;
    struct ptlx_ct_shm *c = emu_nic_rank_ptr(nic, rank, ct, sizeof *c);
    if (!c)
        return;
    if (success)
        atomic_fetch_add(&c->success, success);
    if (failure)
        atomic_fetch_add(&c->failure, failure);
    emu_nic_wake(nic, rank);
    ptln_trig_check(nic, rank, ct);
}
