/* Triggered operations: commands held by the NIC until a counter reaches
 * a threshold. Every change of a counter (the NIC's own increments, and
 * the rank's PtlCTSet/PtlCTInc, which it reports) fires, in posting
 * order, what has become due; a fired counter operation may fire more. */
#include <stdlib.h>
#include <string.h>

#include "ptl_nic.h"

struct trig {
    uint32_t rank;
    struct ptlx_trigger t;
    struct emu_msg m;
    struct trig *next;
};

/* one Portals module per daemon: the held list and the state that firing
 * a data operation needs */
static struct trig *held;
static struct ptl_nic *state;

void ptln_trig_init(struct ptl_nic *s) { state = s; }

void ptln_trig_fini(void)
{
    while (held) {
        struct trig *n = held->next;
        free(held);
        held = n;
    }
    state = NULL;
}

static bool due(struct emu_nic *nic, uint32_t rank, const struct ptlx_trigger *t)
{
    struct ptlx_ct_shm *c = emu_nic_rank_ptr(nic, rank, t->ct, sizeof *c);
    return c && atomic_load(&c->success) + atomic_load(&c->failure) >= t->threshold;
}

static void fire(struct emu_nic *nic, struct emu_msg *m)
{
    m->dtype &= (uint8_t)~PTLX_D_TRIGGERED;
    if (m->aop != PTLX_TRIG_CT) {
        ptln_start(nic, state, m);
        return;
    }
    struct ptlx_ct_shm *c = emu_nic_rank_ptr(nic, m->src, m->laddr, sizeof *c);
    if (!c)
        return;
    if (m->key) { /* PtlTriggeredCTSet */
        atomic_store(&c->success, m->raddr);
        atomic_store(&c->failure, m->len);
        emu_nic_wake(nic, m->src);
        ptln_trig_check(nic, m->src, m->laddr);
    } else {
        ptln_ct_add(nic, m->src, m->laddr, m->raddr, m->len); /* checks triggers itself */
    }
}

void ptln_trig_post(struct emu_nic *nic, struct emu_msg *m)
{
    struct trig *t = malloc(sizeof *t);
    if (!t)
        return;
    t->rank = m->src;
    memcpy(&t->t, m->operand + PTLX_TRIGGER_AT, sizeof t->t);
    t->m = *m;
    t->next = NULL;
    if (due(nic, t->rank, &t->t)) {
        fire(nic, &t->m);
        free(t);
        return;
    }
    struct trig **tail = &held;
    while (*tail)
        tail = &(*tail)->next;
    *tail = t;
}

void ptln_trig_check(struct emu_nic *nic, uint32_t rank, uint64_t ct)
{
    /* take the due ones off first: firing may add to or walk the list */
    struct trig *ready = NULL, **rtail = &ready;
    for (struct trig **p = &held; *p;) {
        struct trig *t = *p;
        if (t->rank == rank && t->t.ct == ct && due(nic, rank, &t->t)) {
            *p = t->next;
            t->next = NULL;
            *rtail = t;
            rtail = &t->next;
        } else {
            p = &t->next;
        }
    }
    while (ready) {
        struct trig *t = ready;
        ready = t->next;
        fire(nic, &t->m);
        free(t);
    }
}

int ptln_trig_cancel(uint32_t rank, uint64_t ct)
{
    int n = 0;
    for (struct trig **p = &held; *p;) {
        struct trig *t = *p;
        if (t->rank == rank && t->t.ct == ct) {
            *p = t->next;
            free(t);
            n++;
        } else {
            p = &t->next;
        }
    }
    return n;
}
