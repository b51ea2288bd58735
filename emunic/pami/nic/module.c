/* The PAMI NIC half: the read-modify-write unit and the hooks of the
 * collective acceleration unit (cau.c). A BG/Q NIC applies PAMI_Rmw at the
 * target without the target's CPU; here the target node's daemon does,
 * and since one daemon serves all of a node's ranks, every RMW on a word
 * is one indivisible step with respect to every other NIC operation. */
#include <stdlib.h>
#include <string.h>

#include "emunic/atomic_op.h"
#include "emunic/region.h"
#include "pami_nic.h"
#include "../proto.h"

/* pami_atomic_t bits (pami.h): fetch, compare, and the modify op above */
#define RMW_FETCH 1u
#define RMW_COMPARE 2u
#define RMW_MODIFY(op) (((op) >> 2) & 7u)
enum { MOD_NONE, MOD_SET, MOD_ADD, MOD_OR, MOD_AND, MOD_XOR, MOD_COUNT_ };

static int rmw_apply(uint64_t *word, unsigned op, uint64_t value, uint64_t test, uint64_t mask)
{
    uint64_t old = *word & mask, v = value & mask;
    if ((op & RMW_COMPARE) && old != (test & mask))
        return 0;
    switch (RMW_MODIFY(op)) {
    case MOD_NONE: return 0;
    case MOD_SET: *word = v; break;
    case MOD_ADD: *word = (old + v) & mask; break;
    case MOD_OR: *word = old | v; break;
    case MOD_AND: *word = old & v; break;
    case MOD_XOR: *word = old ^ v; break;
    }
    return 1;
}

static void rmw_target(struct emu_nic *nic, struct emu_msg *m)
{
    unsigned op = (unsigned)m->ext;
    size_t len = (size_t)m->len;
    int typed = m->dtype == EMU_INT32 || m->dtype == EMU_UINT32 ||
                m->dtype == EMU_INT64 || m->dtype == EMU_UINT64;
    if (!typed || len != emu_dtype_size(m->dtype) || op > 0x1f ||
        RMW_MODIFY(op) >= MOD_COUNT_ || !(op & RMW_FETCH || RMW_MODIFY(op))) {
        EMU_CTR_ADD(emu_nic_counters(nic), rejected, 1);
        emu_nic_ack(nic, m, EMU_E_INVAL, 0);
        return;
    }
    int st = emu_nic_check(nic, m->dst, m->key, m->raddr, len,
                           EMU_PERM_READ | (RMW_MODIFY(op) ? EMU_PERM_ATOMIC : 0));
    uint64_t word = 0, value, test;
    memcpy(&value, m->operand, 8);
    memcpy(&test, m->operand + 8, 8);
    if (st == EMU_OK)
        st = emu_nic_copy_out(nic, &word, m->dst, m->raddr, len);
    uint64_t old = word;
    uint64_t mask = len == 4 ? 0xffffffffull : ~0ull;
    if (st == EMU_OK && rmw_apply(&word, op, value, test, mask))
        st = emu_nic_copy_in(nic, m->dst, m->raddr, &word, len);
    struct emu_nic_counters *ctr = emu_nic_counters(nic);
    if (st == EMU_OK)
        EMU_CTR_ADD(ctr, atomics, 1);
    else
        EMU_CTR_ADD(ctr, errors, 1);
    emu_nic_ack(nic, m, st, old & mask);
}

struct pami_nic {
    struct pamin_cau *cau;
};

static int pamin_init(struct emu_nic *nic, void **state)
{
    struct pami_nic *s = calloc(1, sizeof *s);
    if (!s || pamin_cau_init(nic, &s->cau) != 0) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void pamin_fini(struct emu_nic *nic, void *state)
{
    struct pami_nic *s = state;
    if (!s)
        return;
    pamin_cau_fini(nic, s->cau);
    free(s);
}

static void pamin_local(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    struct pami_nic *s = state;
    if (m->aop >= PAMIX_CAU_FIRST)
        pamin_cau_local(nic, s->cau, m);
    else
        emu_nic_route(nic, m);
}

static void pamin_target(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    struct pami_nic *s = state;
    if (m->aop == PAMIX_RMW) {
        rmw_target(nic, m);
    } else if (m->aop >= PAMIX_CAU_FIRST) {
        pamin_cau_target(nic, s->cau, m);
    } else {
        EMU_CTR_ADD(emu_nic_counters(nic), rejected, 1);
        emu_nic_ack(nic, m, EMU_E_INVAL, 0);
    }
}

static int pamin_progress(struct emu_nic *nic, void *state)
{
    struct pami_nic *s = state;
    return pamin_cau_progress(nic, s->cau);
}

const struct emu_module emu_pami_module = {
    .id = EMU_MOD_PAMI,
    .name = "pami",
    .init = pamin_init,
    .fini = pamin_fini,
    .on_local = pamin_local,
    .on_target = pamin_target,
    .progress = pamin_progress,
};
