/* The Portals NIC half as an emunic daemon module: control commands and
 * operation starts come from local ranks; operations and their results
 * arrive for local ranks. */
#include <stdio.h>
#include <stdlib.h>

#include "ptl_nic.h"

/* The state lives in our node's shared arena and is published there, so
 * that other daemons can match for our ranks (ptln_peer_target). */
static int ptl_init(struct emu_nic *nic, void **state)
{
    uint32_t node = emu_nic_node(nic), nlocal = emu_nic_nlocal(nic);
    struct ptl_nic *s = emu_shared_alloc(node, sizeof *s);
    if (!s || !(s->ni = emu_shared_alloc(node, nlocal * sizeof *s->ni)) ||
        !(s->nheld = emu_shared_alloc(node, nlocal * sizeof *s->nheld))) {
        fprintf(stderr, "emunic-nicd: node %u: no room for the Portals NIC state in the daemons' arena\n", node);
        return -1;
    }
    s->node = node;
    s->first = emu_nic_first_rank(nic);
    s->nlocal = nlocal;
    *state = s;
    ptln_trig_init(s);
    emu_shared_set_root(node, EMU_MOD_PORTALS, s);
    return 0;
}

/* The arena goes with the job; freeing into it now could race a peer
 * that still holds our lock, so only our own heap is given back. */
static void ptl_fini(struct emu_nic *nic, void *state)
{
    struct ptl_nic *s = state;
    if (!s)
        return;
    emu_shared_set_root(emu_nic_node(nic), EMU_MOD_PORTALS, NULL);
    ptln_trig_fini();
    free(s->pend);
    s->pend = NULL;
}

static void ptl_local(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    if ((m->aop >= PTLX_PUT && m->aop <= PTLX_SWAP) || m->aop == PTLX_TRIG_CT) {
        if (m->dtype & PTLX_D_TRIGGERED)
            ptln_trig_post(nic, m);
        else if (m->aop != PTLX_TRIG_CT)
            ptln_start(nic, state, m);
    } else if (m->aop == PTLX_CT_POKE) {
        ptln_trig_check(nic, m->src, m->laddr);
    } else if (m->aop == PTLX_TRIG_CANCEL) {
        ptln_trig_cancel(nic, m->src, m->laddr);
        emu_nic_ack(nic, m, PTL_OK, 0);
    } else if (m->aop < PTLX_PUT) {
        ptln_control(nic, state, m);
    } else {
        emu_nic_ack(nic, m, PTL_ARG_INVALID, 0); /* ranks may not send results */
    }
}

static void ptl_target(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    if (m->aop == PTLX_RESULT)
        ptln_result(nic, state, m);
    else if (m->aop >= PTLX_PUT && m->aop <= PTLX_SWAP)
        ptln_target(nic, state, m);
}

static int ptl_peer_target(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    return m->aop >= PTLX_PUT && m->aop <= PTLX_SWAP && ptln_peer_target(nic, state, m);
}

const struct emu_module emu_portals_module = {
    .id = EMU_MOD_PORTALS,
    .name = "portals",
    .init = ptl_init,
    .fini = ptl_fini,
    .on_local = ptl_local,
    .on_target = ptl_target,
    .on_peer_target = ptl_peer_target,
};
