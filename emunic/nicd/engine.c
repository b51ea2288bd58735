/* The daemon's loop: take commands from this node's ranks and packets from
 * the wire, route each to the NIC that owns its target, and park whatever a
 * full queue refuses (in order) instead of ever blocking on a peer. */
#include "nic.h"

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

static void mq_put(struct emu_nic *nic, struct mq *q, const struct emu_msg *m)
{
    struct mq_node *n = malloc(sizeof *n);
    if (!n) {
        fprintf(stderr, "emunic-nicd: out of memory parking a message\n");
        abort();
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
    return rank / nic->job.hdr->ranks_per_node;
}

int emu_nic_check(struct emu_nic *nic, uint32_t rank, uint32_t key,
                  uint64_t addr, uint64_t len, uint32_t need)
{
    if (rank >= nic->nranks)
        return EMU_E_INVAL;
    return emu_region_check(nic->job.ranks[rank].regions, key, addr, len, need);
}

void emu_nic_deliver(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe)
{
    uint32_t l = rank - nic->first;
    if (rank < nic->first || l >= nic->nlocal)
        return;
    struct mq *q = &nic->cq_backlog[l];
    if (q->head || emu_ring_push(&nic->cq[l], cqe) != 0)
        mq_put(nic, q, cqe);
    EMU_CTR_ADD(nic->ctr, completions, 1);
    emu_waiter_notify(&nic->job.ranks[rank].cq_waiter);
}

static void wire_send(struct emu_nic *nic, uint32_t node, const struct emu_msg *m)
{
    struct mq *q = &nic->wire_backlog[node];
    if (q->head || emu_ring_push(&nic->wire_out[node], m) != 0)
        mq_put(nic, q, m);
    EMU_CTR_ADD(nic->ctr, wire_tx, 1);
    emu_waiter_notify(&nic->job.nodes[node].doorbell);
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

void emu_nic_route(struct emu_nic *nic, const struct emu_msg *m)
{
    uint32_t to = m->op == EMU_OP_ACK ? m->src : m->dst;
    uint32_t node = emu_nic_node_of(nic, to);
    if (node == nic->node) {
        struct emu_msg copy = *m;
        dispatch_target(nic, &copy);
    } else {
        wire_send(nic, node, m);
    }
}

void emu_nic_ack(struct emu_nic *nic, const struct emu_msg *req, int status, uint64_t imm)
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
    emu_nic_route(nic, &a);
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
}

static void handle_wire(struct emu_nic *nic, struct emu_msg *m)
{
    EMU_CTR_ADD(nic->ctr, wire_rx, 1);
    uint32_t to = m->op == EMU_OP_ACK ? m->src : m->dst;
    if (emu_msg_validate(m, nic->nranks) != EMU_OK ||
        emu_nic_node_of(nic, to) != nic->node) {
        EMU_CTR_ADD(nic->ctr, rejected, 1);
        return;
    }
    dispatch_target(nic, m);
}

/* ---- loop ---- */

#define CMD_BATCH 32
#define WIRE_BATCH 64

static int turn(struct emu_nic *nic)
{
    int work = 0;
    struct emu_msg m;
    for (uint32_t l = 0; l < nic->nlocal; l++)
        for (int k = 0; k < CMD_BATCH && emu_ring_pop(&nic->cmd[l], &m) == 0; k++, work++)
            handle_cmd(nic, nic->first + l, &m);
    for (int k = 0; k < WIRE_BATCH && emu_ring_pop(&nic->wire_in, &m) == 0; k++, work++)
        handle_wire(nic, &m);
    if (nic->backlog_total) {
        for (uint32_t n = 0; n < nic->job.hdr->nnodes; n++)
            if (nic->wire_backlog[n].head && mq_flush(nic, &nic->wire_backlog[n], &nic->wire_out[n]))
                emu_waiter_notify(&nic->job.nodes[n].doorbell);
        for (uint32_t l = 0; l < nic->nlocal; l++)
            if (nic->cq_backlog[l].head && mq_flush(nic, &nic->cq_backlog[l], &nic->cq[l]))
                emu_waiter_notify(&nic->job.ranks[nic->first + l].cq_waiter);
    }
    work += modules_progress(nic);
    return work;
}

static bool has_work(void *arg)
{
    struct emu_nic *nic = arg;
    if (emu_ring_ready(&nic->wire_in))
        return true;
    for (uint32_t l = 0; l < nic->nlocal; l++)
        if (emu_ring_ready(&nic->cmd[l]))
            return true;
    return false;
}

int nic_run(struct emu_nic *nic)
{
    int64_t last = emu_now_ns();
    while (!nic->stop && !atomic_load_explicit(&nic->job.hdr->abort, memory_order_relaxed)) {
        if (turn(nic)) {
            last = emu_now_ns();
            continue;
        }
        int64_t now = emu_now_ns();
        if (now - last < nic->poll_ns) {
            EMU_CTR_ADD(nic->ctr, polls_idle, 1);
            sched_yield();
            continue;
        }
        /* announce sleep, re-check, then block; parked messages retry on
         * a short timer since a full peer queue rings no bell for us */
        atomic_store(&nic->doorbell->sleeping, 1);
        if (has_work(nic)) {
            atomic_store(&nic->doorbell->sleeping, 0);
            continue;
        }
        EMU_CTR_ADD(nic->ctr, sleeps, 1);
        idle_wait(nic->idle, nic->backlog_total ? 1000000 : 200000000);
        /* normally the launcher's death signals us; this covers the race
         * where it died before we asked for that signal */
        if (kill(nic->job.hdr->launcher_pid, 0) != 0 && errno == ESRCH)
            nic->stop = 1;
        atomic_store(&nic->doorbell->sleeping, 0);
        EMU_CTR_ADD(nic->ctr, wakeups, 1);
        atomic_fetch_add_explicit(&nic->doorbell->wakeups, 1, memory_order_relaxed);
        last = emu_now_ns();
    }
    return 0;
}

/* ---- set-up ---- */

int nic_open(struct emu_nic *nic, const char *jobid, uint32_t node)
{
    memset(nic, 0, sizeof *nic);
    int rc = emu_job_attach(&nic->job, jobid);
    if (rc)
        return rc;
    struct emu_job_hdr *h = nic->job.hdr;
    if (node >= h->nnodes)
        return -EINVAL;
    nic->node = node;
    nic->nranks = h->nranks;
    nic->nlocal = h->ranks_per_node;
    nic->first = node * h->ranks_per_node;
    nic->ctr = &nic->job.nodes[node].ctr;
    nic->doorbell = &nic->job.nodes[node].doorbell;
    nic->cmd = calloc(nic->nlocal, sizeof *nic->cmd);
    nic->cq = calloc(nic->nlocal, sizeof *nic->cq);
    nic->cq_backlog = calloc(nic->nlocal, sizeof *nic->cq_backlog);
    nic->wire_out = calloc(h->nnodes, sizeof *nic->wire_out);
    nic->wire_backlog = calloc(h->nnodes, sizeof *nic->wire_backlog);
    if (!nic->cmd || !nic->cq || !nic->cq_backlog || !nic->wire_out || !nic->wire_backlog)
        return -ENOMEM;
    for (uint32_t l = 0; l < nic->nlocal; l++)
        if (emu_ring_attach(&nic->cmd[l], emu_job_cmd_ring(&nic->job, nic->first + l), h->cmd_slots) ||
            emu_ring_attach(&nic->cq[l], emu_job_cq_ring(&nic->job, nic->first + l), h->cq_slots))
            return -EPROTO;
    for (uint32_t n = 0; n < h->nnodes; n++)
        if (emu_ring_attach(&nic->wire_out[n], emu_job_wire_ring(&nic->job, n), h->wire_slots))
            return -EPROTO;
    if (emu_ring_attach(&nic->wire_in, emu_job_wire_ring(&nic->job, node), h->wire_slots))
        return -EPROTO;
    if ((rc = xfer_init(nic)) != 0)
        return rc;
    nic->idle = idle_open(nic->doorbell->efd);
    if (!nic->idle)
        return -ENOMEM;
    nic->poll_ns = emu_poll_budget_ns(h->nranks + h->nnodes);
    if ((rc = modules_init(nic)) != 0)
        return rc;
    atomic_store(&nic->job.nodes[node].daemon_pid, (int32_t)getpid());
    atomic_store(&nic->job.nodes[node].ready, 1);
    return 0;
}

void nic_close(struct emu_nic *nic)
{
    modules_fini(nic);
    if (nic->job.hdr) {
        for (uint32_t l = 0; nic->cq_backlog && l < nic->nlocal; l++)
            mq_clear(&nic->cq_backlog[l]);
        for (uint32_t n = 0; nic->wire_backlog && n < nic->job.hdr->nnodes; n++)
            mq_clear(&nic->wire_backlog[n]);
    }
    if (nic->idle)
        idle_close(nic->idle);
    xfer_fini(nic);
    free(nic->cmd);
    free(nic->cq);
    free(nic->cq_backlog);
    free(nic->wire_out);
    free(nic->wire_backlog);
    emu_job_detach(&nic->job);
}
