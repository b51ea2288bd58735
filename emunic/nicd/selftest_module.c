/* A minimal module that proves the hook end to end: each rank owns a
 * 64-bit counter kept in its NIC; a module command adds msg.imm to the
 * target's counter and returns the new value in the initiator's
 * completion (msg.imm), i.e. a NIC-side fetch-and-add a personality could
 * have written. */
#include "nic.h"

#include <stdlib.h>

struct selftest {
    uint64_t *counter; /* per local rank */
};

static int st_init(struct emu_nic *nic, void **state)
{
    struct selftest *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->counter = calloc(nic->nlocal, sizeof *s->counter);
    if (!s->counter) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static void st_fini(struct emu_nic *nic, void *state)
{
    (void)nic;
    struct selftest *s = state;
    if (s) {
        free(s->counter);
        free(s);
    }
}

static void st_target(struct emu_nic *nic, void *state, struct emu_msg *m)
{
    struct selftest *s = state;
    uint64_t v = s->counter[m->dst - nic->first] += m->imm;
    emu_nic_ack(nic, m, EMU_OK, v);
}

const struct emu_module emu_selftest_module = {
    .id = EMU_MOD_SELFTEST,
    .name = "selftest",
    .init = st_init,
    .fini = st_fini,
    .on_target = st_target,
};
