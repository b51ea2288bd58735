/* Handle encoding, lookup and the control-command round trip. */
#include <stdio.h>
#include <string.h>

#include "state.h"

struct pl_state pl = {.mu = PTHREAD_MUTEX_INITIALIZER};

uint32_t pl_handle(enum pl_kind kind, uint32_t gen, uint32_t idx)
{
    return (uint32_t)kind << 28 | (gen & 0xfff) << 16 | (idx & 0xffff);
}

int pl_heapobj_claim(struct pl_heapobj *tab, int n, uint32_t ni, size_t bytes)
{
    int i;
    for (i = 0; i < n && tab[i].live; i++)
        ;
    void *p = i < n ? emunic_malloc(bytes) : NULL;
    if (!p)
        return -1;
    tab[i].gen = pl_next_gen(tab[i].gen);
    tab[i].live = true;
    tab[i].ni = ni;
    tab[i].shm = p;
    tab[i].trig_posted = 0;
    return i;
}

void pl_heapobj_release(struct pl_heapobj *o)
{
    o->live = false;
    emunic_free(o->shm);
}

void pl_heapobj_sweep(struct pl_heapobj *tab, int n, uint32_t ni)
{
    for (int k = 0; k < n; k++)
        if (tab[k].live && tab[k].ni == ni)
            pl_heapobj_release(&tab[k]);
}

uint32_t pl_next_gen(uint32_t gen)
{
    /* 1..0xffe: never 0 (a zeroed handle) nor a pattern of the constants */
    return gen >= 0xffe ? 1 : gen + 1;
}

static int decode(uint32_t h, enum pl_kind kind, uint32_t limit, uint32_t *gen)
{
    if (h >> 28 != (uint32_t)kind || (h & 0xffff) >= limit)
        return -1;
    *gen = (h >> 16) & 0xfff;
    return (int)(h & 0xffff);
}

int pl_ni_of(ptl_handle_ni_t h)
{
    uint32_t g;
    int i = decode(h, PL_NI, PTLX_MAX_NI, &g);
    return i >= 0 && pl.ni[i].refs > 0 && pl.ni[i].gen == g ? i : -1;
}

#define LOOKUP(name, kind, arr, limit)                                   \
    int name(uint32_t h)                                                 \
    {                                                                    \
        uint32_t g;                                                      \
        int i = decode(h, kind, limit, &g);                              \
        return i >= 0 && pl.arr[i].live && pl.arr[i].gen == g ? i : -1; \
    }

LOOKUP(pl_eq_of, PL_EQ, eq, PL_MAX_EQ)
LOOKUP(pl_ct_of, PL_CT, ct, PL_MAX_CT)
LOOKUP(pl_md_of, PL_MD, md, PTLX_MAX_MD)

static int entry_of(uint32_t h, enum pl_kind kind)
{
    uint32_t g;
    int i = decode(h, kind, PTLX_MAX_LE, &g);
    return i >= 0 && pl.le && pl.le[i].live && pl.le[i].gen == g && pl.le[i].me == (kind == PL_ME) ? i : -1;
}

int pl_le_of(ptl_handle_le_t h) { return entry_of(h, PL_LE); }
int pl_me_of(ptl_handle_me_t h) { return entry_of(h, PL_ME); }

int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2)
{
    return handle1 == handle2;
}

void pl_msg_to(struct emu_msg *m, uint32_t kind, uint32_t dst)
{
    m->op = EMU_OP_MODULE;
    m->module = EMU_MOD_PORTALS;
    m->aop = (uint8_t)kind;
    m->dst = dst;
}

int pl_ctl(uint32_t kind, struct emu_msg *m, uint64_t *imm)
{
    static _Atomic uint64_t seq = 1;
    pl_msg_to(m, kind, emunic_rank());
    m->flags = EMU_F_REMOTE_CQ;
    /* tag our cookies so they never meet another user's */
    m->cookie = 0x5074000000000000ull | atomic_fetch_add(&seq, 1);
    if (emunic_post_module(m) != 0)
        return PTL_FAIL;
    struct emu_msg d;
    int st = emunic_wait_cookie(m->cookie, &d);
    if (st < 0)
        return PTL_FAIL;
    if (imm)
        *imm = d.imm;
    return st;
}

int64_t pl_target_rank(uint32_t ni, ptl_process_t id)
{
    uint32_t size = emunic_size();
    if (ni & 2) { /* physical: nid is the node, pid the rank */
        if (id.phys.pid >= size || id.phys.nid != id.phys.pid / emunic_local_size())
            return -1;
        return id.phys.pid;
    }
    if (pl.ni[ni].map)
        return id.rank < pl.ni[ni].map_n ? (int64_t)pl.ni[ni].map[id.rank] : -1;
    return id.rank < size ? (int64_t)id.rank : -1;
}

int pl_unsupported(const char *fn, const char *what)
{
    fprintf(stderr, "emunic portals: %s: not emulated yet: %s (see docs/portals.md)\n", fn, what);
    return PTL_FAIL;
}
