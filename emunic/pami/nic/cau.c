/* The collective acceleration unit (P7IH CAU, [P7IH-COLL] 3.6): one per
 * NIC, combining and broadcasting up to 64 bytes over a tree of nodes of
 * fan-out 8 without the tasks' CPUs. A node's leader task hands its NIC a
 * command (its contribution, or its wish to take part in a broadcast) with
 * the tree around its node (parent and children leader ranks); the NICs
 * then exchange packets among themselves:
 *
 *   allreduce: contributions climb the tree (UP), each NIC combining its
 *              children's with its own task's (the core's atomic unit
 *              arithmetic, emu_atomic_apply); the root NIC sends the result
 *              down (DOWN), and every NIC hands it to its leader task.
 *   broadcast: the root's NIC floods the data along the tree edges (BFWD),
 *              each NIC forwarding to every neighbour but the sender.
 *
 * An instance is named by (leader rank, client/context, geometry id and
 * sequence): packets that arrive before the local command wait in it.
 * Results reach the task as EMU_CQ_MODULE entries with the routing word
 * the task gave (msg.imm), the instance in msg.ext, the data in msg.data. */
#include <stdlib.h>
#include <string.h>

#include "emunic/atomic_op.h"
#include "pami_nic.h"
#include "../proto.h"

#define CAU_MAX 64
#define FANOUT 8
enum { C_ALLREDUCE = PAMIX_CAU_FIRST, C_BCAST, C_UP, C_DOWN, C_BFWD };

struct tree {
    uint32_t parent, nchild, child[FANOUT], root;
};

struct ent {
    uint32_t leader, key;
    uint64_t ext;
    int have_local, sent_up, acc_init, have_data;
    struct tree t;
    uint64_t word;
    uint8_t aop, dtype;
    uint64_t len;
    uint32_t got_up, from;
    uint8_t acc[CAU_MAX];
    struct ent *next;
};

struct pamin_cau {
    struct ent *ents;
    size_t nents;
};

int pamin_cau_init(struct emu_nic *nic, struct pamin_cau **cau)
{
    (void)nic;
    *cau = calloc(1, sizeof **cau);
    return *cau ? 0 : -1;
}

void pamin_cau_fini(struct emu_nic *nic, struct pamin_cau *cau)
{
    (void)nic;
    if (!cau)
        return;
    while (cau->ents) {
        struct ent *e = cau->ents;
        cau->ents = e->next;
        free(e);
    }
    free(cau);
}

static struct ent *get(struct pamin_cau *cau, uint32_t leader, uint32_t key, uint64_t ext)
{
    for (struct ent *e = cau->ents; e; e = e->next)
        if (e->leader == leader && e->key == key && e->ext == ext)
            return e;
    struct ent *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->leader = leader;
    e->key = key;
    e->ext = ext;
    e->from = UINT32_MAX;
    e->next = cau->ents;
    cau->ents = e;
    cau->nents++;
    return e;
}

static void drop(struct pamin_cau *cau, struct ent *e)
{
    for (struct ent **pp = &cau->ents; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            cau->nents--;
            free(e);
            return;
        }
}

static void deliver(struct emu_nic *nic, uint32_t rank, uint64_t word, uint64_t ext, const void *data,
                    uint64_t len, int status)
{
    struct emu_msg q;
    memset(&q, 0, sizeof q);
    q.op = EMU_CQ_MODULE;
    q.module = EMU_MOD_PAMI;
    q.status = (uint8_t)status;
    q.src = rank;
    q.dst = rank;
    q.imm = word;
    q.ext = ext;
    q.len = len;
    q.dlen = (uint16_t)len;
    if (len)
        memcpy(q.data, data, len);
    emu_nic_deliver(nic, rank, &q);
}

static void send_pkt(struct emu_nic *nic, const struct ent *e, unsigned kind, uint32_t to, const void *data,
                     uint64_t len)
{
    struct emu_msg p;
    memset(&p, 0, sizeof p);
    p.op = EMU_OP_MODULE;
    p.module = EMU_MOD_PAMI;
    p.aop = (uint8_t)kind;
    p.dtype = e->dtype;
    p.operand[0] = e->aop;
    p.src = e->leader;
    p.dst = to;
    p.key = e->key;
    p.ext = e->ext;
    p.laddr = e->leader; /* the sending node's leader */
    p.len = len;
    p.dlen = (uint16_t)len;
    if (len)
        memcpy(p.data, data, len);
    emu_nic_route(nic, &p);
}

static int combine(struct ent *e, const struct emu_msg *m)
{
    unsigned aop = m->operand[0], dt = m->dtype;
    if (m->len > CAU_MAX || !emu_aop_valid(aop, dt) || emu_aop_is_swap(aop))
        return -1;
    if (!e->acc_init) {
        e->aop = (uint8_t)aop;
        e->dtype = (uint8_t)dt;
        e->len = m->len;
        memcpy(e->acc, m->data, m->len);
        e->acc_init = 1;
        return 0;
    }
    if (aop != e->aop || dt != e->dtype || m->len != e->len)
        return -1;
    return m->len ? emu_atomic_apply(aop, dt, e->acc, m->data, NULL, m->len, NULL) : 0;
}

static void check_reduce(struct emu_nic *nic, struct pamin_cau *cau, struct ent *e)
{
    if (!e->have_local || e->got_up < e->t.nchild || e->sent_up)
        return;
    if (e->t.parent != UINT32_MAX) {
        send_pkt(nic, e, C_UP, e->t.parent, e->acc, e->len);
        e->sent_up = 1;
        return;
    }
    for (uint32_t i = 0; i < e->t.nchild; i++)
        send_pkt(nic, e, C_DOWN, e->t.child[i], e->acc, e->len);
    deliver(nic, e->leader, e->word, e->ext, e->acc, e->len, EMU_OK);
    drop(cau, e);
}

static void check_bcast(struct emu_nic *nic, struct pamin_cau *cau, struct ent *e)
{
    if (!e->have_local || !e->have_data)
        return;
    if (e->t.parent != UINT32_MAX && e->t.parent != e->from)
        send_pkt(nic, e, C_BFWD, e->t.parent, e->acc, e->len);
    for (uint32_t i = 0; i < e->t.nchild; i++)
        if (e->t.child[i] != e->from)
            send_pkt(nic, e, C_BFWD, e->t.child[i], e->acc, e->len);
    deliver(nic, e->leader, e->word, e->ext, e->acc, e->len, EMU_OK);
    drop(cau, e);
}

static void reject(struct emu_nic *nic, const struct emu_msg *m)
{
    EMU_CTR_ADD(emu_nic_counters(nic), rejected, 1);
    if (m->aop == C_ALLREDUCE || m->aop == C_BCAST)
        deliver(nic, m->src, m->imm, m->ext, NULL, 0, EMU_E_INVAL);
}

/* A leader's command, on its own NIC. */
void pamin_cau_local(struct emu_nic *nic, struct pamin_cau *cau, struct emu_msg *m)
{
    EMU_CTR_ADD(emu_nic_counters(nic), module_ops, 1);
    if ((m->aop != C_ALLREDUCE && m->aop != C_BCAST) || m->len > CAU_MAX ||
        m->dlen < CAU_MAX + sizeof(struct tree) || emu_nic_node_of(nic, m->src) != emu_nic_node(nic)) {
        reject(nic, m);
        return;
    }
    struct tree t;
    memcpy(&t, m->data + CAU_MAX, sizeof t);
    uint32_t n = emu_nic_nranks(nic);
    int bad = t.nchild > FANOUT || (t.parent != UINT32_MAX && t.parent >= n);
    for (uint32_t i = 0; i < t.nchild && !bad; i++)
        bad = t.child[i] >= n;
    struct ent *e = bad ? NULL : get(cau, m->src, m->key, m->ext);
    if (!e || e->have_local) {
        reject(nic, m);
        return;
    }
    e->have_local = 1;
    e->t = t;
    e->word = m->imm;
    if (m->aop == C_ALLREDUCE) {
        if (combine(e, m) != 0) {
            reject(nic, m);
            drop(cau, e);
            return;
        }
        check_reduce(nic, cau, e);
    } else {
        if (t.root) {
            e->len = m->len;
            memcpy(e->acc, m->data, m->len);
            e->have_data = 1;
        }
        check_bcast(nic, cau, e);
    }
}

/* Packets from other NICs (and this one), for the leader m->dst. */
void pamin_cau_target(struct emu_nic *nic, struct pamin_cau *cau, struct emu_msg *m)
{
    EMU_CTR_ADD(emu_nic_counters(nic), module_ops, 1);
    if (m->len > CAU_MAX || m->dlen != m->len) {
        EMU_CTR_ADD(emu_nic_counters(nic), rejected, 1);
        return;
    }
    struct ent *e;
    switch (m->aop) {
    case C_UP:
        e = get(cau, m->dst, m->key, m->ext);
        if (!e || combine(e, m) != 0) {
            EMU_CTR_ADD(emu_nic_counters(nic), errors, 1);
            return;
        }
        e->got_up++;
        check_reduce(nic, cau, e);
        break;
    case C_DOWN:
        e = get(cau, m->dst, m->key, m->ext);
        if (!e)
            return;
        for (uint32_t i = 0; i < e->t.nchild; i++)
            send_pkt(nic, e, C_DOWN, e->t.child[i], m->data, m->len);
        deliver(nic, e->leader, e->word, e->ext, m->data, m->len, EMU_OK);
        drop(cau, e);
        break;
    case C_BFWD:
        e = get(cau, m->dst, m->key, m->ext);
        if (!e || e->have_data)
            return;
        e->have_data = 1;
        e->len = m->len;
        e->from = (uint32_t)m->laddr;
        memcpy(e->acc, m->data, m->len);
        check_bcast(nic, cau, e);
        break;
    default:
        EMU_CTR_ADD(emu_nic_counters(nic), rejected, 1);
    }
}

int pamin_cau_progress(struct emu_nic *nic, struct pamin_cau *cau)
{
    (void)nic;
    (void)cau;
    return 0;
}
