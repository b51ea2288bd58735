/* The Portals NIC half as an emunic daemon module: control commands and
 * operation starts come from local ranks; operations and their results
 * arrive for local ranks. */
#include <stdlib.h>

#include "ptl_nic.h"

static int ptl_init(struct emu_nic *nic, void **state)
{
    struct ptl_nic *s = calloc(1, sizeof *s);
    if (!s || !(s->ni = calloc(emu_nic_nlocal(nic), sizeof *s->ni))) {
        free(s);
        return -1;
    }
    *state = s;
    ptln_trig_init(s);
    return 0;
}

static void ptl_fini(struct emu_nic *nic, void *state)
{
    struct ptl_nic *s = state;
    if (!s)
        return;
    ptln_trig_fini();
    for (uint32_t l = 0; l < emu_nic_nlocal(nic); l++)
        for (int n = 0; n < PTLX_MAX_NI; n++)
            ptln_ni_clear(&s->ni[l][n]);
    free(s->ni);
    free(s->pend);
    free(s);
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

const struct emu_module emu_portals_module = {
    .id = EMU_MOD_PORTALS,
    .name = "portals",
    .init = ptl_init,
    .fini = ptl_fini,
    .on_local = ptl_local,
    .on_target = ptl_target,
};
