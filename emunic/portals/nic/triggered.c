/* Triggered operations: commands held by the NIC until a counter reaches
 * a threshold. Every change of a counter (the NIC's own increments, and
 * the rank's PtlCTSet/PtlCTInc, which it reports) fires, in posting
 * order, what has become due; a fired counter operation may fire more. */
#include <stdio.h>
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
/* where the next held operation goes: appending by walking the list made
 * posting n of them cost n^2/2 steps (65536: 16 to 90 s) */
static struct trig **held_tail = &held;
static struct ptl_nic *state;
/* Held operations per local rank (state->nheld, in the shared arena: a
 * peer daemon must not bump a counter that has operations waiting on it,
 * ptln_peer_target). Bounded, since a rank that ignores
 * max_triggered_ops must not grow the daemon without bound. */
static uint32_t *held_of(struct emu_nic *nic, uint32_t rank)
{
    (void)nic;
    uint32_t i = rank - state->first;
    return state->nheld && i < state->nlocal ? &state->nheld[i] : NULL;
}

void ptln_trig_init(struct ptl_nic *s) { state = s; }

void ptln_trig_fini(void)
{
    while (held) {
        struct trig *n = held->next;
        free(held);
        held = n;
    }
    held_tail = &held;
    state = NULL;
}

static bool due(struct emu_nic *nic, uint32_t rank, const struct ptlx_trigger *t)
{
    struct ptlx_ct_shm *c = emu_nic_rank_ptr(nic, rank, t->ct, sizeof *c);
    return c && atomic_load(&c->success) + atomic_load(&c->failure) >= t->threshold;
}

/* One held operation on counter ct of rank has left the list: the rank
 * counts what it may still post against max_triggered_ops from this. */
static void done(struct emu_nic *nic, uint32_t rank, uint64_t ct, uint32_t n, bool was_held)
{
    uint32_t *h = held_of(nic, rank);
    if (was_held && h)
        *h -= n;
    struct ptlx_ct_shm *c = emu_nic_rank_ptr(nic, rank, ct, sizeof *c);
    if (c)
        atomic_fetch_add(&c->trig_done, n);
}

static void fire(struct emu_nic *nic, struct emu_msg *m)
{
    m->dtype &= (uint8_t)~PTLX_D_TRIGGERED;
    if (m->aop != PTLX_TRIG_CT) {
        /* a small source is taken now, as a NIC sends data when the
         * operation fires: the rank may be gone (PtlNIFini right after
         * its PtlCTInc) before the target gets to it */
        if (m->aop != PTLX_GET && !(m->flags & EMU_F_INLINE) && !(m->dtype & PTLX_D_PUT_IOV) &&
            m->len <= EMU_INLINE_MAX && emu_nic_copy_out(nic, m->data, m->src, m->laddr, m->len) == EMU_OK) {
            m->flags |= EMU_F_INLINE;
            m->dlen = (uint16_t)m->len;
        }
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
    struct ptlx_trigger tr;
    memcpy(&tr, m->operand + PTLX_TRIGGER_AT, sizeof tr);
    if (due(nic, m->src, &tr)) {
        done(nic, m->src, tr.ct, 1, false);
        fire(nic, m);
        return;
    }
    uint32_t *h = held_of(nic, m->src);
    struct trig *t = h && *h < PTLX_MAX_NI * PTLX_MAX_TRIG ? malloc(sizeof *t) : NULL;
    if (!t) {
        fprintf(stderr, "emunic-nicd: node %u: rank %u holds %u triggered operations (max_triggered_ops %u per NI); "
                "one more is dropped\n", emu_nic_node(nic), m->src, h ? *h : 0, PTLX_MAX_TRIG);
        done(nic, m->src, tr.ct, 1, false);
        return;
    }
    (*h)++;
    t->rank = m->src;
    t->t = tr;
    t->m = *m;
    t->next = NULL;
    *held_tail = t;
    held_tail = &t->next;
}

void ptln_trig_check(struct emu_nic *nic, uint32_t rank, uint64_t ct)
{
    /* take the due ones off first: firing may add to or walk the list */
    struct trig *ready = NULL, **rtail = &ready;
    struct trig **p = &held;
    while (*p) {
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
    held_tail = p; /* before firing, which may hold more */
    while (ready) {
        struct trig *t = ready;
        ready = t->next;
        done(nic, t->rank, t->t.ct, 1, true);
        fire(nic, &t->m);
        free(t);
    }
}

int ptln_trig_cancel(struct emu_nic *nic, uint32_t rank, uint64_t ct)
{
    uint32_t n = 0;
    struct trig **p = &held;
    while (*p) {
        struct trig *t = *p;
        if (t->rank == rank && t->t.ct == ct) {
            *p = t->next;
            free(t);
            n++;
        } else {
            p = &t->next;
        }
    }
    held_tail = p;
    if (n)
        done(nic, rank, ct, n, true);
    return (int)n;
}
