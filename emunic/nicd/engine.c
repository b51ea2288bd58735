/* The daemon's loop: take commands from this node's ranks and packets from
 * the wire, route each to the NIC that owns its target, and park whatever a
 * full queue refuses (in order) instead of ever blocking on a peer. */
#include "emunic/ctl.h"
#include "emunic/fault.h"
#include "emunic/slice.h"
#include "nic.h"
#include "trace.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mq_node {
    struct mq_node *next;
    struct emu_msg m;
};

/* Park m; -1 if there is no memory for it (said once on stderr): the
 * daemon keeps serving everybody else rather than abort. */
static int mq_put(struct emu_nic *nic, struct mq *q, const struct emu_msg *m)
{
    struct mq_node *n = malloc(sizeof *n);
    if (!n) {
        static int said;
        if (!said++)
            fprintf(stderr, "emunic-nicd: node %u: out of memory parking a message\n", nic->node);
        EMU_CTR_ADD(nic->ctr, errors, 1);
        return -1;
    }
    n->next = NULL;
    n->m = *m;
    if (q->tail)
        q->tail->next = n;
    else
        q->head = n;
    q->tail = n;
    q->n++;
    nic->backlog_total++;
    EMU_CTR_ADD(nic->ctr, backlog, 1);
    return 0;
}

/* Push parked messages while the ring takes them; returns how many. */
static int mq_flush(struct emu_nic *nic, struct mq *q, struct emu_ring *r)
{
    int n = 0;
    while (q->head && emu_ring_push(r, &q->head->m) == 0) {
        struct mq_node *d = q->head;
        q->head = d->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
        nic->backlog_total--;
        free(d);
        n++;
    }
    return n;
}

/* Tell the other daemons how many completions wait for local rank l's
 * queue: while any do, none of them may push there (fastpath.c). */
static void cq_parked(struct emu_nic *nic, uint32_t l)
{
    atomic_store_explicit(&nic->cqacct[nic->first + l].parked, nic->cq_backlog[l].n, memory_order_relaxed);
}

/* The same for a local rank's completion queue, through the guard. */
static int cq_flush(struct emu_nic *nic, uint32_t l)
{
    struct mq *q = &nic->cq_backlog[l];
    int n = 0;
    while (q->head && guard_cq_push(nic, l, &q->head->m) == 0) {
        struct mq_node *d = q->head;
        q->head = d->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
        nic->backlog_total--;
        free(d);
        n++;
    }
    if (q->n < PARK_SOFT)
        nic->held_since[l] = 0; /* its commands flow again */
    if (n)
        cq_parked(nic, l);
    return n;
}

static void cq_drop(struct emu_nic *nic, uint32_t l)
{
    struct mq *q = &nic->cq_backlog[l];
    nic->backlog_total -= q->n;
    while (q->head) {
        struct mq_node *d = q->head;
        q->head = d->next;
        free(d);
    }
    q->tail = NULL;
    q->n = 0;
    cq_parked(nic, l);
}

static void mq_clear(struct mq *q)
{
    while (q->head) {
        struct mq_node *d = q->head;
        q->head = d->next;
        free(d);
    }
    q->tail = NULL;
    q->n = 0;
}

/* ---- services used by target.c and modules ---- */

uint32_t emu_nic_node(const struct emu_nic *nic) { return nic->node; }
uint32_t emu_nic_first_rank(const struct emu_nic *nic) { return nic->first; }
uint32_t emu_nic_nlocal(const struct emu_nic *nic) { return nic->nlocal; }

void *emu_nic_rank_ptr(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len)
{
    return xfer_heap_ptr(nic, rank, addr, len);
}

void emu_nic_wake(struct emu_nic *nic, uint32_t rank)
{
    if (rank < nic->nranks)
        emu_waiter_notify(&nic->job.ranks[rank].cq_waiter);
}
uint32_t emu_nic_nranks(const struct emu_nic *nic) { return nic->nranks; }
struct emu_nic_counters *emu_nic_counters(struct emu_nic *nic) { return nic->ctr; }

uint32_t emu_nic_node_of(const struct emu_nic *nic, uint32_t rank)
{
    return rank / nic->rpn;
}

int emu_nic_check(struct emu_nic *nic, uint32_t rank, uint32_t key,
                  uint64_t addr, uint64_t len, uint32_t need)
{
    if (rank >= nic->nranks)
        return EMU_E_INVAL;
    return emu_region_check(nic->job.ranks[rank].regions, key, addr, len, need);
}

int emu_nic_eq_refuse(struct emu_nic *nic, uint32_t rank)
{
    const struct emu_netcfg *net = &nic->net;
    uint32_t l = rank - nic->first;
    if (!net->nrules || rank < nic->first || l >= nic->nlocal)
        return 0;
    uint64_t n = nic->eq_asked[l]++;
    if (!emu_fault_refuse(net, EMU_FAULT_EQFULL, nic->node, rank, n))
        return 0;
    EMU_CTR_ADD(nic->ctr, refused, 1);
    if (TRACE_ON()) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.src = m.dst = rank;
        trace_fault(nic, "eqfull", nic->node, nic->node, &m);
    }
    return 1;
}

void emu_nic_deliver(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe)
{
    uint32_t l = rank - nic->first;
    if (rank < nic->first || l >= nic->nlocal) {
        fast_deliver(nic, rank, cqe); /* another node's rank, under its lock */
        return;
    }
    if (nic->fenced[rank])
        return;
    struct mq *q = &nic->cq_backlog[l];
    if (q->head || guard_cq_push(nic, l, cqe) != 0) {
        if (nic->fenced[rank])
            return;
        /* back-pressure (turn) keeps a rank's own work from getting here;
         * what still can (peers' events and AMs, acks of work under way)
         * must not grow the daemon without bound */
        if (q->n >= PARK_HARD) {
            nic_fence(nic, rank, EMU_CTL_CQ_OVERFLOW, "%zu completions parked, none taken", q->n);
            return;
        }
        if (mq_put(nic, q, cqe) != 0) {
            nic_fence(nic, rank, EMU_CTL_CQ_OVERFLOW, "no memory to park its completions (%zu parked)", q->n);
            return;
        }
        cq_parked(nic, l);
    }
    EMU_CTR_ADD(nic->ctr, completions, 1);
    if (TRACE_ON() && cqe->op == EMU_CQ_DONE)
        trace_cmd_done(nic, rank, cqe);
    emu_waiter_notify(&nic->job.ranks[rank].cq_waiter);
}

/* ---- the machine model: timed delivery (model.c, timeq.c, congestion.c) ---- */
#include <stdint.h>
#include <sys/prctl.h>

#include "congestion.h"
#include "emunic/model.h"
#include "inject.h"
#include "timeq.h"

#define MODEL_SPIN_NS 200000 /* closer than this to a due time: yield, don't sleep */

static struct {
    int on;     /* messages are timed; off (ideal machine): wire_send's one compare */
    int inject; /* a FIFO, credits or starvation may hold messages (inject.c) */
    const struct emu_netcfg *net;
    _Atomic uint64_t *links;
    uint32_t nnodes;
} model;

static void wire_push(struct emu_nic *nic, uint32_t node, const struct emu_msg *m)
{
    struct mq *q = &nic->wire_backlog[node];
    if (q->head || emu_ring_push(&nic->wire_out[node], m) != 0) {
        if (mq_put(nic, q, m) == 0)
            nic->wire_parked++;
        else
            EMU_CTR_ADD(nic->ctr, lost, 1); /* out of memory: the link protocol, if on, resends */
    }
    emu_waiter_notify_fd(&nic->job.nodes[node].doorbell, nic->doorbell_fd[node]);
}

/* Bytes a message puts on the wire besides its header: writes and AMs
 * their payload, reads nothing (the data rides on the ack), acks of reads
 * and fetching atomics the data they answer with (ack.aop = the acked op,
 * when emu_nic_ack records it). */
static uint64_t wire_bytes(const struct emu_msg *m)
{
    switch (m->op) {
    case EMU_OP_WRITE:
    case EMU_OP_AM:
        return m->len;
    case EMU_OP_ATOMIC:
    case EMU_OP_FETCH_ATOMIC:
        return m->dlen ? m->dlen : 8;
    case EMU_OP_ACK:
        return m->aop == EMU_OP_READ || m->aop == EMU_OP_FETCH_ATOMIC ? m->len : 0;
    case EMU_OP_MODULE:
        return m->dlen;
    default:
        return 0;
    }
}

static void wire_send(struct emu_nic *nic, uint32_t node, const struct emu_msg *m)
{
    EMU_CTR_ADD(nic->ctr, wire_tx, 1);
    if (model.on) {
        int64_t now = emu_now_ns();
        uint64_t bytes = wire_bytes(m);
        int64_t ready = model.inject ? inject_ready(nic, node, m, now) : now;
        /* a put's completion ack carries no data: the profile may make it cheaper */
        int bare_ack = m->op == EMU_OP_ACK && bytes == 0;
        int64_t due = emu_model_send(model.net, model.links, model.nnodes, nic->node, node, bytes, bare_ack,
                                     ready);
        if (model.inject)
            inject_sent(node, due);
        due = timeq_order(node, due); /* never pass an earlier message to node */
        EMU_CTR_ADD(nic->ctr, packets, emu_model_packets(&model.net->m, bytes));
        if (due > now && timeq_push(due, node, m) == 0) {
            EMU_CTR_ADD(nic->ctr, delayed, 1);
            EMU_CTR_ADD(nic->ctr, delay_ns, (uint64_t)(due - now));
            if (timeq_len() > atomic_load_explicit(&nic->ctr->queue_max, memory_order_relaxed))
                atomic_store_explicit(&nic->ctr->queue_max, timeq_len(), memory_order_relaxed);
            return;
        }
    }
    wire_push(nic, node, m);
}

/* Deliver what is due, add background traffic; returns messages moved. */
static int model_progress(struct emu_nic *nic, int64_t now)
{
    int n = 0;
    uint32_t node;
    struct emu_msg m;
    while (timeq_pop(now, &node, &m)) {
        wire_push(nic, node, &m);
        n++;
    }
    cong_progress(now);
    return n;
}

/* How long the daemon may sleep (at most tmo): up to the next due time or
 * background burst; 0: too close, keep polling. */
static int64_t model_sleep(int64_t now, int64_t tmo)
{
    int64_t next = timeq_next_due(), c = cong_progress(now);
    if (c < next)
        next = c;
    if (next == INT64_MAX)
        return tmo;
    if (next - now < MODEL_SPIN_NS)
        return 0;
    return next - now < tmo ? next - now : tmo;
}

static void dispatch_target(struct emu_nic *nic, struct emu_msg *m)
{
    if (m->op == EMU_OP_ACK)
        nic_complete(nic, m);
    else if (m->op == EMU_OP_MODULE)
        modules_target(nic, m);
    else
        nic_target(nic, m);
}

#include "link.h" /* fault injection and reliability (link.c) */

void emu_nic_route(struct emu_nic *nic, const struct emu_msg *m)
{
    uint32_t to = m->op == EMU_OP_ACK ? m->src : m->dst;
    uint32_t node = emu_nic_node_of(nic, to);
    if (LINK_ON())
        link_note(nic, m);
    if (node == nic->node) {
        struct emu_msg copy = *m;
        dispatch_target(nic, &copy);
    } else if (LINK_ON()) {
        link_send(nic, node, m);
    } else if (!fast_try(nic, node, m)) {
        wire_send(nic, node, m);
    }
}

void emu_nic_ack(struct emu_nic *nic, const struct emu_msg *req, int status, uint64_t imm)
{
    nic_ack_data(nic, req, status, imm, NULL, 0);
}

void nic_ack_data(struct emu_nic *nic, const struct emu_msg *req, int status, uint64_t imm,
                  const void *data, uint16_t dlen)
{
    struct emu_msg a;
    memset(&a, 0, EMU_MSG_HDR_SIZE);
    a.op = EMU_OP_ACK;
    a.flags = (uint8_t)(((req->flags & EMU_F_LOCAL_CQ) ? EMU_DONE_LOCAL : 0) |
                        ((req->flags & EMU_F_REMOTE_CQ) ? EMU_DONE_REMOTE : 0));
    a.status = (uint8_t)status;
    a.module = req->module;
    a.src = req->src;
    a.dst = req->dst;
    a.cookie = req->cookie;
    a.imm = imm;
    a.len = req->len;
    a.aop = req->op; /* the model charges a read's data to its ack */
    if (data && dlen) {
        a.flags |= EMU_DONE_DATA;
        a.dlen = dlen;
        /* where the rank library puts it: a read's sink, a fetch's old value */
        a.laddr = req->op == EMU_OP_READ ? req->laddr : req->aux;
        memcpy(a.data, data, dlen);
    }
    emu_nic_route(nic, &a);
    if (nic->backlog_total)
        nic_note_wire_depth(nic, emu_nic_node_of(nic, req->src));
}

/* ---- commands from local ranks ---- */

static void reject(struct emu_nic *nic, const struct emu_msg *m, int status)
{
    EMU_CTR_ADD(nic->ctr, rejected, 1);
    /* answer only a request that asked for completion, so garbage cannot
     * make us flood the rank's queue */
    if (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)) {
        struct emu_msg c;
        memset(&c, 0, EMU_MSG_HDR_SIZE);
        c.op = EMU_CQ_DONE;
        c.flags = (uint8_t)(m->flags & (EMU_DONE_LOCAL | EMU_DONE_REMOTE));
        c.status = (uint8_t)status;
        c.src = m->src;
        c.dst = m->dst < nic->nranks ? m->dst : 0;
        c.cookie = m->cookie;
        emu_nic_deliver(nic, m->src, &c);
    }
}

static void handle_cmd(struct emu_nic *nic, uint32_t rank, struct emu_msg *m)
{
    EMU_CTR_ADD(nic->ctr, cmds, 1);
    m->src = rank; /* a rank speaks only for itself */
    if (TRACE_ON())
        trace_cmd_begin(nic, m);
    int st = emu_msg_validate(m, nic->nranks);
    if (st == EMU_OK && (m->op == EMU_OP_ACK ||
                         (m->op == EMU_OP_AM_ACCEPT && m->dst != rank)))
        st = EMU_E_INVAL;
    if (st != EMU_OK) {
        reject(nic, m, st);
        return;
    }
    if (m->op == EMU_OP_MODULE)
        modules_local(nic, m);
    else if (m->op == EMU_OP_AM_ACCEPT)
        nic_accept(nic, m);
    else
        emu_nic_route(nic, m);
    if (nic->backlog_total)
        nic_note_wire_depth(nic, emu_nic_node_of(nic, m->dst));
    if (TRACE_ON())
        trace_cmd_end(nic, m);
}

static void handle_wire(struct emu_nic *nic, struct emu_msg *m)
{
    EMU_CTR_ADD(nic->ctr, wire_rx, 1);
    if (LINK_ON() && !link_recv(nic, m))
        return;
    do {
        uint32_t to = m->op == EMU_OP_ACK ? m->src : m->dst;
        if (emu_msg_validate(m, nic->nranks) != EMU_OK ||
            emu_nic_node_of(nic, to) != nic->node) {
            EMU_CTR_ADD(nic->ctr, rejected, 1);
            continue;
        }
        dispatch_target(nic, m);
    } while (LINK_ON() && link_recv_next(nic, m));
}

/* ---- loop ---- */

#define CMD_BATCH 32
#define WIRE_BATCH 64
/* How long a rank may keep its commands waiting by not taking its
 * completions before the daemon says so (once; it keeps waiting). */
#define HELD_WARN_NS (10ll * 1000000000)

/* Rank l has PARK_SOFT completions parked: its commands wait until it
 * takes some (returns 1), counted once per episode. */
static int held(struct emu_nic *nic, uint32_t l)
{
    int64_t now = 0;
    if (!nic->held_since[l]) {
        nic->held_since[l] = now = emu_now_ns();
        nic->held_at[l] = nic->cq_backlog[l].n;
        EMU_CTR_ADD(nic->ctr, backpressure, 1);
        return 1;
    }
    if (nic->cq_backlog[l].n < nic->held_at[l]) { /* it reaps: a new clock */
        nic->held_since[l] = emu_now_ns();
        nic->held_at[l] = nic->cq_backlog[l].n;
    } else if (nic->held_since[l] > 0 && (now = emu_now_ns()) - nic->held_since[l] > HELD_WARN_NS) {
        fprintf(stderr, "emunic-nicd: node %u: rank %u has left %zu completions untaken for %lld s; "
                "its commands wait until it takes them\n", nic->node, nic->first + l, nic->cq_backlog[l].n,
                HELD_WARN_NS / 1000000000);
        nic->held_since[l] = -1; /* said */
    }
    return 1;
}

static int turn_locked(struct emu_nic *nic)
{
    int work = 0;
    struct emu_msg m;
    /* peers' queues are full and our parked messages pile up: take no new
     * commands (any of them may go there) until they drain; the wire and
     * its acks keep flowing, so nothing waits on itself */
    if (nic->wire_parked >= PARK_WIRE) {
        if (!nic->wire_held++)
            EMU_CTR_ADD(nic->ctr, backpressure, 1);
    } else {
        nic->wire_held = 0;
    }
    for (uint32_t l = 0; l < nic->nlocal && !nic->wire_held; l++) {
        if (nic->cq_backlog[l].n >= PARK_SOFT && held(nic, l))
            continue;
        const uint8_t *off = &nic->fenced[nic->first + l];
        for (int k = 0; k < CMD_BATCH && !*off && emu_ring_pop(&nic->cmd[l], &m) == 0; k++, work++)
            handle_cmd(nic, nic->first + l, &m);
    }
    for (int k = 0; k < WIRE_BATCH && emu_ring_pop(&nic->wire_in, &m) == 0; k++, work++)
        handle_wire(nic, &m);
    if (nic->backlog_total) {
        for (uint32_t n = 0; n < nic->nnodes; n++) {
            int k;
            if (nic->wire_backlog[n].head && (k = mq_flush(nic, &nic->wire_backlog[n], &nic->wire_out[n]))) {
                nic->wire_parked -= (size_t)k;
                emu_waiter_notify_fd(&nic->job.nodes[n].doorbell, nic->doorbell_fd[n]);
            }
        }
        for (uint32_t l = 0; l < nic->nlocal; l++) {
            if (!nic->cq_backlog[l].head)
                continue;
            if (nic->fenced[nic->first + l])
                cq_drop(nic, l); /* nobody will take them */
            else if (cq_flush(nic, l))
                emu_waiter_notify(&nic->job.ranks[nic->first + l].cq_waiter);
        }
    }
    if (LINK_ON())
        work += link_progress(nic);
    work += modules_progress(nic);
    return work;
}

/* All target work of a turn runs under our node's lock (fastpath.c). */
static int turn(struct emu_nic *nic)
{
    if (!fast_turn_begin(nic))
        return 1; /* put off, not idle */
    int work = turn_locked(nic);
    fast_turn_end(nic);
    return work;
}

static bool has_work(void *arg)
{
    struct emu_nic *nic = arg;
    if (emu_ring_ready(&nic->wire_in))
        return true;
    for (uint32_t l = 0; l < nic->nlocal && nic->wire_parked < PARK_WIRE; l++)
        if (!nic->fenced[nic->first + l] && nic->cq_backlog[l].n < PARK_SOFT && emu_ring_ready(&nic->cmd[l]))
            return true;
    return false;
}

/* Say (1) or take back (0) that we are going to sleep: to the other
 * daemons on our node's doorbell, and to each local rank on the bell in
 * its own entry, since a rank writes nothing it shares with another. The
 * fence pairs with the producers' (emu_waiter_notify_fd) before we look
 * for work again. */
static void arm_bells(struct emu_nic *nic, uint32_t v)
{
    atomic_store_explicit(&nic->doorbell->sleeping, v, memory_order_relaxed);
    for (uint32_t l = 0; l < nic->nlocal; l++)
        atomic_store_explicit(&nic->job.ranks[nic->first + l].nic_bell.sleeping, v, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
}

int nic_run(struct emu_nic *nic)
{
    int64_t last = emu_now_ns();
    model.net = &nic->net;
    model.links = emu_job_links(&nic->job);
    model.nnodes = nic->nnodes;
    if (inject_init(model.net, model.nnodes, nic->node) != 0)
        return -ENOMEM;
    model.inject = inject_on();
    model.on = emu_model_active(model.net) || model.inject;
    if (model.on) {
        if (timeq_init(model.nnodes) != 0)
            return -ENOMEM;
        prctl(PR_SET_TIMERSLACK, 1000UL); /* wake within ~1 us of a due time */
        cong_init(model.net, model.links, model.nnodes, nic->node, last);
    }
    fast_init(nic, model.on);
    /* The shared abort flag is the ranks' (any rank can set it): the
     * launcher stops us with SIGTERM. */
    while (!nic->stop) {
        int moved = model.on ? model_progress(nic, emu_now_ns()) : 0;
        if (turn(nic) || moved) {
            last = emu_now_ns();
            if (last - nic->last_scan > GUARD_SCAN_NS)
                guard_scan(nic, last);
            continue;
        }
        int64_t now = emu_now_ns();
        if (now - nic->last_scan > GUARD_SCAN_NS)
            guard_scan(nic, now);
        if (now - last < nic->poll_ns) {
            EMU_CTR_ADD(nic->ctr, polls_idle, 1);
            if (emu_poll_yield())
                continue;
        }
        /* announce sleep, re-check, then block; parked messages retry on
         * a short timer since a full peer queue rings no bell for us */
        arm_bells(nic, 1);
        if (has_work(nic)) {
            arm_bells(nic, 0);
            continue;
        }
        int64_t tmo = nic->backlog_total ? 1000000 : 200000000;
        if (model.on && (tmo = model_sleep(now, tmo)) == 0) {
            arm_bells(nic, 0);
            sched_yield();
            continue;
        }
        EMU_CTR_ADD(nic->ctr, sleeps, 1);
        guard_hints(nic);
        idle_wait(nic->idle, tmo);
        /* normally the launcher's death signals us; this covers the race
         * where it died before we asked for that signal */
        if (kill(nic->launcher_pid, 0) != 0 && errno == ESRCH)
            nic->stop = 1;
        arm_bells(nic, 0);
        EMU_CTR_ADD(nic->ctr, wakeups, 1);
        atomic_fetch_add_explicit(&nic->doorbell->wakeups, 1, memory_order_relaxed);
        last = emu_now_ns();
    }
    if (model.on)
        timeq_fini();
    inject_fini();
    return 0;
}

/* ---- set-up ---- */

int nic_open(struct emu_nic *nic, const char *jobid, uint32_t node, int ctl_fd, int report_fd, int wire_fd)
{
    memset(nic, 0, sizeof *nic);
    nic->report_fd = -1;
    /* no rank runs before every daemon is ready, so what we copy from the
     * segment here is what the launcher wrote */
    int rc = emu_job_attach(&nic->job, jobid);
    if (rc == 0) {
        /* the wire between daemons: not in the segment ranks map */
        rc = emu_job_wire_map(&nic->job, wire_fd);
        close(wire_fd);
        wire_fd = -1;
    }
    if (rc) {
        if (ctl_fd >= 0)
            close(ctl_fd);
        if (wire_fd >= 0)
            close(wire_fd);
        return rc;
    }
    const struct emu_job_geo *g = &nic->job.geo;
    nic->nnodes = g->nnodes;
    nic->rpn = g->ranks_per_node;
    nic->nranks = g->nranks;
    nic->launcher_pid = g->launcher_pid;
    memcpy(&nic->net, emu_job_netcfg(&nic->job), sizeof nic->net);
    nic->net.trace_dir[sizeof nic->net.trace_dir - 1] = 0;
    if (nic->net.nrules > EMU_FAULT_MAX)
        nic->net.nrules = 0;
    if ((rc = guard_open(nic, ctl_fd, report_fd)) != 0)
        return rc;
    if (node >= g->nnodes)
        return -EINVAL;
    nic->node = node;
    shared_heap_open(&nic->job, node);
    nic->nlocal = g->ranks_per_node;
    nic->first = node * g->ranks_per_node;
    nic->ctr = &nic->job.nodes[node].ctr;
    nic->doorbell = &nic->job.nodes[node].doorbell;
    nic->cmd = calloc(nic->nlocal, sizeof *nic->cmd);
    nic->cq = calloc(nic->nlocal, sizeof *nic->cq);
    nic->cq_backlog = calloc(nic->nlocal, sizeof *nic->cq_backlog);
    nic->wire_out = calloc(g->nnodes, sizeof *nic->wire_out);
    nic->wire_backlog = calloc(g->nnodes, sizeof *nic->wire_backlog);
    nic->eq_asked = calloc(nic->nlocal, sizeof *nic->eq_asked);
    nic->fenced = calloc(nic->nranks, sizeof *nic->fenced);
    nic->cmd_stuck = calloc(nic->nlocal, sizeof *nic->cmd_stuck);
    nic->held_since = calloc(nic->nlocal, sizeof *nic->held_since);
    nic->held_at = calloc(nic->nlocal, sizeof *nic->held_at);
    nic->refused_seen = calloc(nic->nlocal, sizeof *nic->refused_seen);
    if (!nic->cmd || !nic->cq || !nic->cq_backlog || !nic->wire_out || !nic->wire_backlog || !nic->eq_asked ||
        !nic->fenced || !nic->cmd_stuck || !nic->held_since || !nic->held_at ||
        !nic->refused_seen)
        return -ENOMEM;
    if (!(nic->cqacct = emu_job_wire_cq(&nic->job, 0)))
        return -EPROTO;
    for (uint32_t l = 0; l < nic->nlocal; l++) {
        if (emu_ring_attach(&nic->cmd[l], emu_job_cmd_ring(&nic->job, nic->first + l), g->cmd_slots) ||
            emu_ring_attach(&nic->cq[l], emu_job_cq_ring(&nic->job, nic->first + l), g->cq_slots))
            return -EPROTO;
        atomic_store(&nic->cqacct[nic->first + l].pushed, atomic_load(&nic->cq[l].shm->tail));
    }
    for (uint32_t n = 0; n < g->nnodes; n++)
        if (emu_ring_attach(&nic->wire_out[n], emu_job_wire_ring(&nic->job, n), g->wire_slots))
            return -EPROTO;
    if (emu_ring_attach(&nic->wire_in, emu_job_wire_ring(&nic->job, node), g->wire_slots))
        return -EPROTO;
    if ((rc = xfer_init(nic)) != 0)
        return rc;
    nic->idle = idle_open(nic->doorbell_fd[node]);
    if (!nic->idle)
        return -ENOMEM;
    nic->poll_ns = emu_poll_budget_ns(g->nranks + g->nnodes);
    if ((rc = modules_init(nic)) != 0)
        return rc;
    if ((rc = link_init(nic, wire_send)) != 0)
        return rc;
    trace_open(nic); /* a trace part it cannot write is a warning, not a failure */
    atomic_store(&nic->job.nodes[node].daemon_pid, (int32_t)getpid());
    atomic_store(&nic->job.nodes[node].ready, 1);
    return 0;
}

void nic_close(struct emu_nic *nic)
{
    if (nic->refused_seen && nic->ctr)
        guard_hints(nic); /* the last refusals the ranks counted */
    link_fini(nic);
    trace_close(nic);
    modules_fini(nic);
    for (uint32_t l = 0; nic->cq_backlog && l < nic->nlocal; l++)
        mq_clear(&nic->cq_backlog[l]);
    for (uint32_t n = 0; nic->wire_backlog && n < nic->nnodes; n++)
        mq_clear(&nic->wire_backlog[n]);
    if (nic->idle)
        idle_close(nic->idle);
    xfer_fini(nic);
    free(nic->cmd);
    free(nic->cq);
    free(nic->cq_backlog);
    free(nic->wire_out);
    free(nic->wire_backlog);
    free(nic->eq_asked);
    free(nic->fenced);
    free(nic->cmd_stuck);
    free(nic->held_since);
    free(nic->held_at);
    free(nic->refused_seen);
    guard_close(nic);
    emu_job_detach(&nic->job);
}
