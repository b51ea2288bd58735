/* Cross-node target work done by the initiator's daemon.
 *
 * A write, read, atomic or flush to another node's rank normally costs
 * four process hand-offs (rank -> its NIC -> target NIC -> its NIC ->
 * rank). All daemons of a host map every heap and trust each other, so the
 * initiator's daemon can apply the operation itself, under the target
 * node's lock, and complete it to its own rank: two hand-offs, as between
 * two ranks of one node.
 *
 * Why this keeps the semantics. A node's target work is executed only by
 * whoever holds its lock (emu_wire_lock): its own daemon holds it for each
 * turn of its loop, which is where it pops its wire ring and runs every
 * target operation, module work included; another daemon holds it for one
 * operation. So NIC atomics stay atomic with respect to each other. An
 * operation takes this path only when the target's wire ring is empty
 * under the lock and nothing of ours waits for it in our backlog: then
 * everything we sent that node before it has been applied, which keeps
 * per-pair order (and makes a flush a no-op that completes at once). It
 * also needs our own wire ring empty, so acks of earlier operations that
 * are on their way back are not overtaken by this completion. The lock is
 * only ever tried: a busy target means the usual road, never a wait.
 *
 * Inline active messages and target notifications put an entry into the
 * target rank's completion queue. Its producers are the daemons, one at a
 * time under the node's lock, counting its entries in the wire object
 * (emu_wire_cq), so the check of its tail stays exact; such an operation
 * takes the path only when the queue has room and its daemon has nothing
 * parked for it, so entries keep their order and none needs parking here.
 *
 * A personality module takes part if it keeps its target state in the
 * node's shared arena (emunic/shared_heap.h) and has on_peer_target: it
 * runs under the same lock and conditions, and may decline.
 *
 * What keeps the usual road: long active messages (the payload waits at
 * the target's daemon for an accept), module operations a module declines
 * or whose state is private to the target's daemon, and a job with a machine
 * model, fault rules, the reliability protocol or a trace, whose timing and
 * records belong to the wire. EMUNIC_FAST_PATH=0 turns the path off. */
#include "nic.h"
#include "trace.h"
#include "link.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* emu_wire_lock.held: FREE, HELD, HELD with the node's own daemon asleep
 * on it (WAITED), or let go to that daemon (HANDED: nobody else may take
 * it, so peers that keep applying operations cannot starve the node's own
 * turns). Only the node's own daemon ever waits; others only try. */
enum { FREE, HELD, WAITED, HANDED };

static int enabled; /* the job allows the path (fast_init) */
/* while applying an operation for another node: that node's counters */
static struct emu_nic_counters *target_ctr;
static struct emu_ring *cq_views; /* [nranks] other nodes' ranks' completion queues */
static uint8_t *cq_viewed;

void fast_init(struct emu_nic *nic, int model_on)
{
    const char *e = getenv("EMUNIC_FAST_PATH");
    enabled = !(e && strcmp(e, "0") == 0) && !model_on && nic->net.nrules == 0 && !TRACE_ON() &&
              !LINK_ON() && emu_job_wire_lock(&nic->job, nic->node) != NULL;
    if (enabled) {
        cq_views = calloc(nic->nranks, sizeof *cq_views);
        cq_viewed = calloc(nic->nranks, 1);
        enabled = cq_views && cq_viewed;
    }
}

static struct emu_ring *cq_view(struct emu_nic *nic, uint32_t rank)
{
    if (!cq_viewed[rank]) {
        if (emu_ring_attach(&cq_views[rank], emu_job_cq_ring(&nic->job, rank), nic->job.geo.cq_slots) != 0)
            return NULL;
        cq_viewed[rank] = 1;
    }
    return &cq_views[rank];
}

/* Room for one entry in rank's queue that nothing parked must precede:
 * under the node's lock nobody else pushes, and the rank only takes. */
static int cq_room(struct emu_nic *nic, uint32_t rank)
{
    struct emu_ring *r = cq_view(nic, rank);
    return r && atomic_load_explicit(&nic->cqacct[rank].parked, memory_order_relaxed) == 0 &&
           emu_ring_depth(r) < (uint64_t)r->mask;
}

void fast_deliver(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe)
{
    if (rank >= nic->nranks || !target_ctr || nic_fenced(nic, rank))
        return;
    struct emu_ring *r = cq_view(nic, rank);
    if (!r || guard_cq_push_ring(nic, rank, r, cqe) != 0)
        return; /* cq_room said there was room: the rank broke its queue, and is fenced */
    EMU_CTR_ADD(target_ctr, completions, 1);
    emu_waiter_notify(&nic->job.ranks[rank].cq_waiter);
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

static int lock_try(struct emu_wire_lock *l, uint32_t me)
{
    uint32_t expect = FREE;
    if (atomic_load_explicit(&l->held, memory_order_relaxed) != FREE ||
        !atomic_compare_exchange_strong_explicit(&l->held, &expect, HELD, memory_order_acquire,
                                                 memory_order_relaxed))
        return 0;
    l->holder = me;
    return 1;
}

static void lock_drop(struct emu_wire_lock *l)
{
    uint32_t v = HELD;
    if (atomic_compare_exchange_strong_explicit(&l->held, &v, FREE, memory_order_release, memory_order_relaxed))
        return;
    /* WAITED: the node's own daemon sleeps on it */
    atomic_store_explicit(&l->held, HANDED, memory_order_release);
    futex(&l->held, FUTEX_WAKE, 1, NULL);
}

int fast_turn_begin(struct emu_nic *nic)
{
    struct emu_wire_lock *l = emu_job_wire_lock(&nic->job, nic->node);
    uint32_t handed = HANDED;
    if (!l || lock_try(l, nic->node))
        return 1;
    if (atomic_compare_exchange_strong_explicit(&l->held, &handed, HELD, memory_order_acquire,
                                                memory_order_relaxed)) {
        l->holder = nic->node;
        return 1;
    }
    /* another daemon is applying one operation to our ranks (a copy of
     * private memory may take a while): sleep until it lets go, with a
     * timeout in case it died holding the lock */
    EMU_CTR_ADD(nic->ctr, fast_busy, 1);
    uint32_t expect = HELD;
    if (atomic_compare_exchange_strong_explicit(&l->held, &expect, WAITED, memory_order_relaxed,
                                                memory_order_relaxed) ||
        expect == WAITED) {
        struct timespec ts = {0, 1000000};
        futex(&l->held, FUTEX_WAIT, WAITED, &ts);
    }
    return 0;
}

void fast_turn_end(struct emu_nic *nic)
{
    struct emu_wire_lock *l = emu_job_wire_lock(&nic->job, nic->node);
    if (l)
        lock_drop(l);
}

/* 1: the path may apply m, 2: if the target's queue has room too, 3: its
 * module may, if that node's module state is shared (modules_peer_target). */
static int eligible(const struct emu_msg *m)
{
    switch (m->op) {
    case EMU_OP_NOP:
    case EMU_OP_WRITE:
    case EMU_OP_READ:
    case EMU_OP_ATOMIC:
    case EMU_OP_FETCH_ATOMIC:
        return m->flags & EMU_F_TARGET_NOTIFY ? 2 : 1;
    case EMU_OP_AM:
        return m->flags & EMU_F_INLINE ? 2 : 0;
    case EMU_OP_MODULE:
        return modules_has_peer(m->module) ? 3 : 0;
    default:
        return 0;
    }
}

int fast_try(struct emu_nic *nic, uint32_t node, const struct emu_msg *m)
{
    int kind = enabled ? eligible(m) : 0;
    if (!kind || nic->wire_backlog[node].head || emu_ring_ready(&nic->wire_in))
        return 0;
    /* reaching a rank's heap the first time takes /proc look-ups: do them
     * before the lock, and leave a rank that is not up to its own daemon */
    if (!xfer_latch(nic, m->dst) || !xfer_latch(nic, m->src))
        return 0;
    struct emu_wire_lock *l = emu_job_wire_lock(&nic->job, node);
    if (!l || !lock_try(l, nic->node))
        return 0;
    /* under the lock the target's daemon is between turns: an empty ring
     * means it has applied all we sent it */
    if (emu_ring_depth(&nic->wire_out[node]) != 0 || (kind == 2 && !cq_room(nic, m->dst))) {
        lock_drop(l);
        return 0;
    }
    struct emu_msg copy = *m;
    /* a module's work may start another operation here (an ack that
     * fires a triggered put) and take a third node's lock meanwhile */
    struct emu_nic_counters *outer = target_ctr;
    target_ctr = &nic->job.nodes[node].ctr;
    int done = 1;
    if (kind != 3)
        nic_target_for(nic, &copy, target_ctr);
    else if (nic_fenced(nic, m->dst) ||
             emu_rank_ended(atomic_load_explicit(&nic->job.ranks[m->dst].state, memory_order_acquire)))
        done = 0; /* its own daemon answers for a rank it stopped serving */
    else
        done = modules_peer_target(nic, node, &copy);
    target_ctr = outer;
    lock_drop(l);
    if (!done)
        return 0;
    EMU_CTR_ADD(nic->ctr, fast_ops, 1);
    return 1;
}
