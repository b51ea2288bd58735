/* The DCMF NIC half: BG/P's DMA with deterministic and dynamic routing.
 * Ordered traffic is the core's own and needs nothing here. A relaxed
 * transfer longer than a packet is cut into packets that the NIC sends one
 * per transfer per loop turn, as adaptively routed packets trickle over
 * different paths, so traffic posted later overtakes its tail: the
 * ordering that relaxed consistency permits is one that really happens. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/module.h"
#include "emunic/region.h"
#include "../proto.h"

struct lane_item {
    struct lane_item *next;
    struct emu_msg m; /* the whole transfer, as posted */
    uint64_t off;     /* bytes already sent */
};

struct dcmf_nic {
    struct lane_item *head, *tail;
};

static int dcmfn_init(struct emu_nic *nic, void **state)
{
    (void)nic;
    *state = calloc(1, sizeof(struct dcmf_nic));
    return *state ? 0 : -1;
}

static void dcmfn_fini(struct emu_nic *nic, void *state)
{
    (void)nic;
    struct dcmf_nic *s = state;
    while (s && s->head) {
        struct lane_item *d = s->head;
        s->head = d->next;
        free(d);
    }
    free(s);
}

static void dcmfn_local(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    struct dcmf_nic *s = state;
    int op = m->dtype;
    if (m->aop != DCMFX_RELAXED || (op != EMU_OP_WRITE && op != EMU_OP_READ) ||
        (m->flags & EMU_F_INLINE) || m->len == 0) {
        EMU_CTR_ADD(emu_nic_counters(nic), rejected, 1);
        emu_nic_ack(nic, m, EMU_E_INVAL, 0);
        return;
    }
    /* only the last packet reports, so check the whole range now */
    int st = emu_nic_check(nic, m->dst, m->key, m->raddr, m->len,
                           op == EMU_OP_WRITE ? EMU_PERM_WRITE : EMU_PERM_READ);
    if (st != EMU_OK) {
        EMU_CTR_ADD(emu_nic_counters(nic), errors, 1);
        emu_nic_ack(nic, m, st, 0);
        return;
    }
    struct lane_item *it = malloc(sizeof *it);
    if (!it) {
        emu_nic_ack(nic, m, EMU_E_INVAL, 0);
        return;
    }
    it->next = NULL;
    it->m = *m;
    it->off = 0;
    if (s->tail)
        s->tail->next = it;
    else
        s->head = it;
    s->tail = it;
}

/* One packet of every transfer on the lane. */
static int dcmfn_progress(struct emu_nic *nic, void *state)
{
    struct dcmf_nic *s = state;
    int sent = 0;
    struct lane_item **pp = &s->head, *prev = NULL;
    while (*pp) {
        struct lane_item *it = *pp;
        struct emu_msg p;
        memcpy(&p, &it->m, EMU_MSG_HDR_SIZE);
        uint64_t n = it->m.len - it->off;
        if (n > DCMFX_PACKET)
            n = DCMFX_PACKET;
        int last = it->off + n == it->m.len;
        p.op = (uint8_t)it->m.dtype;
        p.module = 0;
        p.aop = 0;
        p.dtype = 0;
        p.flags = last ? (uint8_t)(it->m.flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ | EMU_F_UNORDERED))
                       : EMU_F_UNORDERED;
        p.laddr += it->off;
        p.raddr += it->off;
        p.len = n;
        it->off += n;
        emu_nic_route(nic, &p);
        sent++;
        if (last) {
            *pp = it->next;
            if (s->tail == it)
                s->tail = prev;
            free(it);
        } else {
            prev = it;
            pp = &it->next;
        }
    }
    return sent;
}

const struct emu_module emu_dcmf_module = {
    .id = EMU_MOD_DCMF,
    .name = "dcmf",
    .init = dcmfn_init,
    .fini = dcmfn_fini,
    .on_local = dcmfn_local,
    .progress = dcmfn_progress,
};
