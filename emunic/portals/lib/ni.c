/* Library and network-interface calls: start-up, identity, the logical
 * map, limits and status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

/* Our maximum of each limit: what a NULL desired gets. */
static const ptl_ni_limits_t ours = {
    .max_entries = PTLX_MAX_LE,
    .max_unexpected_headers = PTLX_MAX_UH,
    .max_mds = PTLX_MAX_MD,
    .max_cts = PL_MAX_CT,
    .max_eqs = PL_MAX_EQ,
    .max_pt_index = PTLX_MAX_PT - 1,
    .max_iovecs = PTLX_MAX_IOV,
    .max_list_size = PTLX_MAX_LE,
    .max_triggered_ops = PTLX_MAX_TRIG,
    /* a real NIC's bound (the reference's too); programs size buffers by it */
    .max_msg_size = PTLX_MAX_MSG,
    .max_atomic_size = EMU_ATOMIC_MAX,
    .max_fetch_atomic_size = EMU_ATOMIC_MAX,
    .max_waw_ordered_size = PTL_SIZE_MAX, /* ordered unless PTL_MD_UNORDERED */
    .max_war_ordered_size = PTL_SIZE_MAX,
    .max_volatile_size = PTLX_MAX_VOLATILE, /* beyond EMU_INLINE_MAX: bounce.c */
    /* the NIC touches an entry's memory only when an operation arrives */
    .features = PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING | PTL_COHERENT_ATOMICS,
};

/* The limits an NI gets: desired, each capped at ours. A field <= 0 asks
 * for nothing and gets ours: the reference's test driver leaves
 * max_triggered_ops and max_fetch_atomic_size at 0 and still posts
 * triggered and fetching operations. A fetching atomic is an atomic, so
 * max_fetch_atomic_size never exceeds max_atomic_size. */
static ptl_ni_limits_t agree(const ptl_ni_limits_t *d)
{
    if (!d)
        return ours;
    ptl_ni_limits_t a;
#define AGREE(f) a.f = d->f > 0 && d->f < ours.f ? d->f : ours.f
    AGREE(max_entries);
    AGREE(max_unexpected_headers);
    AGREE(max_mds);
    AGREE(max_cts);
    AGREE(max_eqs);
    AGREE(max_pt_index);
    AGREE(max_iovecs);
    AGREE(max_list_size);
    AGREE(max_triggered_ops);
    AGREE(max_msg_size);
    AGREE(max_atomic_size);
    AGREE(max_fetch_atomic_size);
    AGREE(max_waw_ordered_size);
    AGREE(max_war_ordered_size);
    AGREE(max_volatile_size);
#undef AGREE
    if (a.max_fetch_atomic_size > a.max_atomic_size)
        a.max_fetch_atomic_size = a.max_atomic_size;
    a.features = d->features & ours.features;
    return a;
}

int PtlInit(void)
{
    pthread_mutex_lock(&pl.mu);
    int rc = PTL_OK;
    if (pl.init_refs == 0) {
        int e = emunic_init();
        if (e) {
            fprintf(stderr, "emunic portals: PtlInit: not started by emunic-run --nic portals (%s)\n", strerror(-e));
            rc = PTL_FAIL;
        } else if (strcmp(emunic_nic_name(), "portals") != 0) {
            fprintf(stderr, "emunic portals: PtlInit: this job's NIC is '%s'; start it with emunic-run --nic portals\n",
                    emunic_nic_name());
            emunic_finalize();
            rc = PTL_FAIL;
        } else if (!pl.le && !(pl.le = calloc(PTLX_MAX_LE, sizeof *pl.le))) {
            emunic_finalize();
            rc = PTL_NO_SPACE;
        }
    }
    if (rc == PTL_OK)
        pl.init_refs++;
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

void PtlFini(void)
{
    pthread_mutex_lock(&pl.mu);
    if (pl.init_refs > 0 && --pl.init_refs == 0) {
        emunic_free(pl.le_map);
        pl.le_map = NULL;
        pl_bounce_fini();
        emunic_finalize();
    }
    pthread_mutex_unlock(&pl.mu);
}

void PtlAbort(void)
{
    pl_abort_waits();
}

static int check_options(unsigned o)
{
    if (o & ~PTL_NI_INIT_OPTIONS_MASK)
        return 0;
    int m = !!(o & PTL_NI_MATCHING) + !!(o & PTL_NI_NO_MATCHING);
    int a = !!(o & PTL_NI_LOGICAL) + !!(o & PTL_NI_PHYSICAL);
    return m == 1 && a == 1;
}

int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid,
              const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
              ptl_handle_ni_t *ni_handle)
{
    if (!pl.init_refs)
        return PTL_NO_INIT;
    if (!ni_handle || !check_options(options) || (iface != PTL_IFACE_DEFAULT && iface != 0))
        return PTL_ARG_INVALID;
    if (pid != PTL_PID_ANY && pid != emunic_rank())
        return PTL_PID_IN_USE;
    uint32_t i = ptlx_ni_index(options);
    pthread_mutex_lock(&pl.mu);
    int rc = PTL_OK;
    /* a second init of the NI keeps the limits of the first */
    if (pl.ni[i].refs == 0) {
        ptl_ni_limits_t lim = agree(desired);
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(0, i, 0, 0, 0);
        /* the NIC owns the lists and the unexpected headers */
        m.len = (uint64_t)lim.max_list_size;
        m.aux = (uint64_t)lim.max_unexpected_headers;
        rc = pl_ctl(PTLX_NI_INIT, &m, NULL);
        if (rc == PTL_OK) {
            pl.ni[i].gen = pl_next_gen(pl.ni[i].gen);
            pl.ni[i].options = options;
            pl.ni[i].lim = lim;
        }
    }
    if (rc == PTL_OK) {
        pl.ni[i].refs++;
        *ni_handle = pl_handle(PL_NI, pl.ni[i].gen, i);
        if (actual)
            *actual = pl.ni[i].lim;
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

int PtlNIFini(ptl_handle_ni_t ni_handle)
{
    PL_NEED_INIT;
    pthread_mutex_lock(&pl.mu);
    int i = pl_ni_of(ni_handle), rc = PTL_OK;
    if (i < 0)
        rc = PTL_ARG_INVALID;
    else if (--pl.ni[i].refs == 0) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(0, (uint32_t)i, 0, 0, 0);
        rc = pl_ctl(PTLX_NI_FINI, &m, NULL);
        free(pl.ni[i].map);
        pl.ni[i].map = NULL;
        emunic_free(pl.ni[i].inv);
        pl.ni[i].inv = NULL;
        /* objects of this NI die with it */
        pl_heapobj_sweep(pl.eq, PL_MAX_EQ, (uint32_t)i);
        pl_heapobj_sweep(pl.ct, PL_MAX_CT, (uint32_t)i);
        for (int k = 0; k < PTLX_MAX_MD; k++)
            if (pl.md[k].live && pl.md[k].ni == (uint32_t)i) {
                pl_unpin(&pl.md[k].pin);
                pl.md[k].live = false;
            }
        for (int k = 0; k < PTLX_MAX_LE; k++)
            if (pl.le[k].live && pl.le[k].ni == (uint32_t)i) {
                pl_unpin(&pl.le[k].pin);
                pl.le[k].live = false;
            }
        memset(pl.pt_used[i], 0, sizeof pl.pt_used[i]);
        pl.ni[i].nmd = pl.ni[i].nct = pl.ni[i].neq = pl.ni[i].nle = 0;
        pl.ni[i].trig_held = 0;
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *ni_handle)
{
    PL_NEED_INIT;
    if (!ni_handle)
        return PTL_ARG_INVALID;
    int ni = -1, i;
    switch (handle >> 28) {
    case PL_NI: ni = pl_ni_of(handle); break;
    case PL_EQ: if ((i = pl_eq_of(handle)) >= 0) ni = (int)pl.eq[i].ni; break;
    case PL_CT: if ((i = pl_ct_of(handle)) >= 0) ni = (int)pl.ct[i].ni; break;
    case PL_MD: if ((i = pl_md_of(handle)) >= 0) ni = (int)pl.md[i].ni; break;
    case PL_LE: if ((i = pl_le_of(handle)) >= 0) ni = (int)pl.le[i].ni; break;
    case PL_ME: if ((i = pl_me_of(handle)) >= 0) ni = (int)pl.le[i].ni; break;
    }
    if (ni < 0 || pl.ni[ni].refs == 0)
        return PTL_ARG_INVALID;
    *ni_handle = pl_handle(PL_NI, pl.ni[ni].gen, (uint32_t)ni);
    return PTL_OK;
}

int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register, ptl_sr_value_t *status)
{
    PL_NEED_INIT;
    int i = pl_ni_of(ni_handle);
    if (i < 0 || !status || (unsigned)status_register >= PTL_SR_LAST)
        return PTL_ARG_INVALID;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.hlen = ptlx_pack(0, (uint32_t)i, 0, 0, 0);
    m.raddr = status_register;
    uint64_t v = 0;
    int rc = pl_ctl(PTLX_NI_STATUS, &m, &v);
    if (rc == PTL_OK)
        *status = (ptl_sr_value_t)v;
    return rc;
}

int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid)
{
    PL_NEED_INIT;
    if (pl_ni_of(ni_handle) < 0 || !uid)
        return PTL_ARG_INVALID;
    *uid = (ptl_uid_t)getuid();
    return PTL_OK;
}

static ptl_process_t phys_of(uint32_t rank)
{
    ptl_process_t p;
    p.phys.nid = rank / emunic_local_size();
    p.phys.pid = rank;
    return p;
}

int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t *id)
{
    PL_NEED_INIT;
    if (pl_ni_of(ni_handle) < 0 || !id)
        return PTL_ARG_INVALID;
    *id = phys_of(emunic_rank());
    return PTL_OK;
}

int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id)
{
    PL_NEED_INIT;
    int i = pl_ni_of(ni_handle);
    if (i < 0 || !id)
        return PTL_ARG_INVALID;
    if (i & 2) {
        *id = phys_of(emunic_rank());
        return PTL_OK;
    }
    uint32_t me = emunic_rank();
    id->rank = me;
    for (uint32_t r = 0; pl.ni[i].map && r < pl.ni[i].map_n; r++)
        if (pl.ni[i].map[r] == me) {
            id->rank = r;
            break;
        }
    return PTL_OK;
}

int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, ptl_process_t *mapping,
              ptl_size_t *actual_map_size)
{
    PL_NEED_INIT;
    int i = pl_ni_of(ni_handle);
    if (i < 0 || (i & 2) || !actual_map_size || (map_size && !mapping))
        return PTL_ARG_INVALID;
    uint32_t n = emunic_size();
    for (uint32_t r = 0; r < n && r < map_size; r++)
        mapping[r] = phys_of(pl.ni[i].map ? pl.ni[i].map[r] : r);
    *actual_map_size = n;
    return PTL_OK;
}

int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, const ptl_process_t *mapping)
{
    PL_NEED_INIT;
    int i = pl_ni_of(ni_handle);
    if (i < 0 || (i & 2) || !mapping || map_size == 0 || map_size > emunic_size())
        return PTL_ARG_INVALID;
    uint32_t *map = malloc(map_size * sizeof *map);
    if (!map)
        return PTL_NO_SPACE;
    int identity = map_size == emunic_size();
    for (ptl_size_t r = 0; r < map_size; r++) {
        ptl_process_t p = mapping[r];
        if (p.phys.pid >= emunic_size() || p.phys.nid != p.phys.pid / emunic_local_size()) {
            free(map);
            return PTL_ARG_INVALID;
        }
        map[r] = p.phys.pid;
        identity &= map[r] == r;
    }
    /* the NIC matches and reports initiators by logical rank: give it the
     * inverse table, in the heap where it can read it */
    uint32_t *inv = NULL;
    if (!identity) {
        inv = emunic_malloc((size_t)emunic_size() * sizeof *inv);
        if (!inv) {
            free(map);
            return PTL_NO_SPACE;
        }
        for (uint32_t r = 0; r < emunic_size(); r++)
            inv[r] = PTL_RANK_ANY; /* not in the map */
        for (ptl_size_t r = 0; r < map_size; r++)
            inv[map[r]] = (uint32_t)r;
    }
    pthread_mutex_lock(&pl.mu);
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.hlen = ptlx_pack(0, (uint32_t)i, 0, 0, 0);
    m.laddr = (uint64_t)(uintptr_t)inv;
    m.len = inv ? emunic_size() : 0;
    int rc = pl_ctl(PTLX_NI_SETMAP, &m, NULL);
    if (rc == PTL_OK) {
        free(pl.ni[i].map);
        emunic_free(pl.ni[i].inv);
        pl.ni[i].map = identity ? NULL : map;
        pl.ni[i].inv = inv;
        pl.ni[i].map_n = (uint32_t)map_size;
    }
    pthread_mutex_unlock(&pl.mu);
    if (identity || rc != PTL_OK)
        free(map);
    if (rc != PTL_OK)
        emunic_free(inv);
    return rc;
}

int PtlAtomicSync(void)
{
    PL_NEED_INIT;
    /* the emulated NIC applies atomics to memory the host reads directly:
     * nothing is cached on the NIC side */
    return pl.init_refs ? PTL_OK : PTL_NO_INIT;
}

int PtlStartBundle(ptl_handle_ni_t ni_handle)
{
    PL_NEED_INIT;
    /* a hint: operations are never held back, so there is nothing to open */
    return pl_ni_of(ni_handle) < 0 ? PTL_ARG_INVALID : PTL_OK;
}

int PtlEndBundle(ptl_handle_ni_t ni_handle)
{
    PL_NEED_INIT;
    return pl_ni_of(ni_handle) < 0 ? PTL_ARG_INVALID : PTL_OK;
}
