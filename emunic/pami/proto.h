/* What the PAMI rank half (lib/) and NIC half (nic/) agree on: the module
 * commands. Everything else PAMI does travels as the core's own operations
 * (writes, reads, active messages). */
#ifndef EMUNIC_PAMI_PROTO_H
#define EMUNIC_PAMI_PROTO_H

#include "emunic/msg.h"

/* m->aop of an EMU_OP_MODULE command with m->module == EMU_MOD_PAMI */
enum pamix_cmd {
    /* PAMI_Rmw, executed whole by the target's NIC so that every
     * pami_atomic_t (including compare-and-add and friends, which the
     * core's atomic unit has no single op for) is one indivisible step:
     * m->key/m->raddr: target word; m->len: its size (4 or 8);
     * m->dtype: EMU_INT32/UINT32/INT64/UINT64; m->ext: the pami_atomic_t;
     * m->operand[0..8): value, [8..16): test. The ack's imm carries the
     * old contents (fetching operations). */
    PAMIX_RMW = 1,
    /* 16 and up: the collective acceleration unit (nic/cau.c) */
    PAMIX_CAU_FIRST = 16,
};

#endif
