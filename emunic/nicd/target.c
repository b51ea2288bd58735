/* Target-side execution. One daemon runs every target operation of its
 * node in order, so NIC atomics are atomic with respect to each other.
 * Every access is checked against the target's exposed region first; an
 * access that fails the check touches nothing. */
#include "nic.h"

#include <stdlib.h>
#include <string.h>

#include "emunic/atomic_op.h"

static void notify_target(struct emu_nic *nic, const struct emu_msg *m)
{
    struct emu_msg t;
    memset(&t, 0, EMU_MSG_HDR_SIZE);
    t.op = EMU_CQ_TARGET;
    t.flags = m->op; /* which operation hit us */
    t.aop = m->aop;
    t.dtype = m->dtype;
    t.src = m->src;
    t.dst = m->dst;
    t.key = m->key;
    t.raddr = m->raddr;
    t.len = m->len;
    t.imm = m->imm;
    emu_nic_deliver(nic, m->dst, &t);
}

static int do_write(struct emu_nic *nic, const struct emu_msg *m)
{
    int st = emu_nic_check(nic, m->dst, m->key, m->raddr, m->len, EMU_PERM_WRITE);
    if (st != EMU_OK || m->len == 0)
        return st;
    if (m->flags & EMU_F_INLINE)
        return emu_nic_copy_in(nic, m->dst, m->raddr, m->data, m->len);
    return emu_nic_copy(nic, m->dst, m->raddr, m->src, m->laddr, m->len);
}

/* Whether a small result for (m->src, sink) goes back in the completion:
 * the rank asked for it and we could write the sink only with
 * process_vm_writev (its library's store is cheaper than our system call). */
static int data_back(struct emu_nic *nic, const struct emu_msg *m, uint64_t sink)
{
    return (m->flags & EMU_F_DATA_BACK) && (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)) &&
           m->len <= EMU_INLINE_MAX && !xfer_mapped(nic, m->src, sink, m->len);
}

/* back: where a result to carry in the ack goes; *nback its length. */
static int do_read(struct emu_nic *nic, const struct emu_msg *m, uint8_t *back, uint16_t *nback)
{
    int st = emu_nic_check(nic, m->dst, m->key, m->raddr, m->len, EMU_PERM_READ);
    if (st != EMU_OK || m->len == 0)
        return st;
    if (data_back(nic, m, m->laddr)) {
        st = emu_nic_copy_out(nic, back, m->dst, m->raddr, m->len);
        if (st == EMU_OK)
            *nback = (uint16_t)m->len;
        return st;
    }
    return emu_nic_copy(nic, m->src, m->laddr, m->dst, m->raddr, m->len);
}

static int do_atomic(struct emu_nic *nic, const struct emu_msg *m, uint8_t *back, uint16_t *nback)
{
    int fetch = m->op == EMU_OP_FETCH_ATOMIC;
    uint32_t need = EMU_PERM_ATOMIC | (fetch ? EMU_PERM_READ : 0);
    int st = emu_nic_check(nic, m->dst, m->key, m->raddr, m->len, need);
    if (st != EMU_OK)
        return st;
    if (fetch && data_back(nic, m, m->aux)) {
        st = nic_atomic_into(nic, m, back);
        if (st == EMU_OK)
            *nback = (uint16_t)m->len;
        return st;
    }
    return emu_nic_atomic(nic, m, fetch);
}

static uint64_t ticket_new(struct emu_nic *nic, const struct emu_msg *m)
{
    uint32_t i;
    for (i = 0; i < nic->nticket && nic->tickets[i].live; i++)
        ;
    if (i == nic->nticket) {
        uint32_t n = nic->nticket ? 2 * nic->nticket : 64;
        struct am_ticket *t = realloc(nic->tickets, n * sizeof *t);
        if (!t)
            return 0;
        memset(t + nic->nticket, 0, (n - nic->nticket) * sizeof *t);
        nic->tickets = t;
        nic->nticket = n;
    }
    struct am_ticket *t = &nic->tickets[i];
    t->live = 1;
    t->gen++;
    memcpy(&t->am, m, EMU_MSG_HDR_SIZE);
    return ((uint64_t)t->gen << 32) | (i + 1);
}

static struct am_ticket *ticket_find(struct emu_nic *nic, uint64_t id, uint32_t owner)
{
    uint32_t i = (uint32_t)id - 1;
    if ((uint32_t)id == 0 || i >= nic->nticket)
        return NULL;
    struct am_ticket *t = &nic->tickets[i];
    if (!t->live || t->gen != (uint32_t)(id >> 32) || t->am.dst != owner)
        return NULL;
    return t;
}

/* Returns 1 if the AM was delivered and the initiator's completion must
 * wait for an accept (long payload), else 0. */
static int do_am(struct emu_nic *nic, struct emu_nic_counters *ctr, const struct emu_msg *m)
{
    struct emu_msg e = *m;
    e.op = EMU_CQ_AM;
    e.status = EMU_OK;
    int deferred = 0;
    if (!(m->flags & EMU_F_INLINE)) {
        e.aux = ticket_new(nic, m);
        if (!e.aux)
            return -1;
        deferred = 1;
    }
    EMU_CTR_ADD(ctr, ams, 1);
    emu_nic_deliver(nic, m->dst, &e);
    return deferred;
}

void nic_target(struct emu_nic *nic, struct emu_msg *m)
{
    nic_target_for(nic, m, nic->ctr);
}

void nic_target_for(struct emu_nic *nic, struct emu_msg *m, struct emu_nic_counters *ctr)
{
    int st;
    uint8_t back[EMU_INLINE_MAX];
    uint16_t nback = 0;
    /* a finished or dead rank's memory is not a target any more, nor that
     * of a rank we stopped serving */
    if (nic_fenced(nic, m->dst) ||
        emu_rank_ended(atomic_load_explicit(&nic->job.ranks[m->dst].state, memory_order_acquire))) {
        EMU_CTR_ADD(ctr, errors, 1);
        if (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ))
            emu_nic_ack(nic, m, EMU_E_DEAD, 0);
        return;
    }
    switch (m->op) {
    case EMU_OP_NOP: /* everything before it from this initiator is done */
        st = EMU_OK;
        break;
    case EMU_OP_WRITE:
        st = do_write(nic, m);
        EMU_CTR_ADD(ctr, writes, 1);
        break;
    case EMU_OP_READ:
        st = do_read(nic, m, back, &nback);
        EMU_CTR_ADD(ctr, reads, 1);
        break;
    case EMU_OP_ATOMIC:
    case EMU_OP_FETCH_ATOMIC:
        st = do_atomic(nic, m, back, &nback);
        EMU_CTR_ADD(ctr, atomics, 1);
        break;
    case EMU_OP_AM: {
        int r = do_am(nic, ctr, m);
        if (r == 1)
            return; /* acked when accepted */
        st = r == 0 ? EMU_OK : EMU_E_INVAL;
        break;
    }
    default:
        st = EMU_E_INVAL;
        break;
    }
    if (st == EMU_OK) {
        if (m->op != EMU_OP_AM && m->op != EMU_OP_NOP)
            EMU_CTR_ADD(ctr, bytes, m->len);
        if (m->flags & EMU_F_TARGET_NOTIFY)
            notify_target(nic, m);
    } else {
        EMU_CTR_ADD(ctr, errors, 1);
    }
    if (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ))
        nic_ack_data(nic, m, st, 0, st == EMU_OK ? back : NULL, nback);
}

void nic_accept(struct emu_nic *nic, struct emu_msg *m)
{
    struct am_ticket *t = ticket_find(nic, m->aux, m->src);
    struct emu_msg done;
    memset(&done, 0, EMU_MSG_HDR_SIZE);
    done.op = EMU_CQ_DONE;
    done.flags = EMU_DONE_REMOTE;
    done.src = m->src;
    done.dst = m->src;
    done.cookie = m->cookie;
    if (!t) {
        done.status = EMU_E_NOKEY;
        EMU_CTR_ADD(nic->ctr, errors, 1);
        emu_nic_deliver(nic, m->src, &done);
        return;
    }
    struct emu_msg am = t->am;
    t->live = 0;
    uint64_t n = am.len < m->len ? am.len : m->len;
    int st = n ? emu_nic_copy(nic, m->src, m->laddr, am.src, am.laddr, n) : EMU_OK;
    if (st == EMU_OK) {
        EMU_CTR_ADD(nic->ctr, bytes, n);
        if (n < am.len)
            st = EMU_E_TRUNC;
    }
    done.status = (uint8_t)st;
    done.len = n;
    emu_nic_deliver(nic, m->src, &done);
    /* the source buffer has been read: release the sender */
    if (am.flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ))
        emu_nic_ack(nic, &am, st == EMU_E_TRUNC ? EMU_OK : st, 0);
}

void nic_complete(struct emu_nic *nic, const struct emu_msg *ack)
{
    if (!ack->flags)
        return;
    struct emu_msg c;
    memset(&c, 0, EMU_MSG_HDR_SIZE);
    c.op = EMU_CQ_DONE;
    c.flags = ack->flags;
    c.status = ack->status;
    c.module = ack->module;
    c.src = ack->src;
    c.dst = ack->dst;
    c.cookie = ack->cookie;
    c.imm = ack->imm;
    c.len = ack->len;
    if (ack->flags & EMU_DONE_DATA) {
        c.laddr = ack->laddr;
        c.dlen = ack->dlen;
        memcpy(c.data, ack->data, ack->dlen);
    }
    emu_nic_deliver(nic, ack->src, &c);
}
