/* Portal table entries, memory descriptors, list entries, event queues
 * and counters. EQs and CTs are allocated in the registered heap, where
 * this rank's NIC writes them. */
#include <string.h>

#include "state.h"

static uint64_t addr_of(const void *p) { return (uint64_t)(uintptr_t)p; }

/* ---- portal table ---- */

int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle,
               ptl_pt_index_t pt_index_req, ptl_pt_index_t *pt_index)
{
    PL_NEED_INIT;
    int ni = pl_ni_of(ni_handle);
    if (ni < 0 || !pt_index || (options & ~PTL_PT_ALLOC_OPTIONS_MASK))
        return PTL_ARG_INVALID;
    int eq = -1;
    if (eq_handle != PTL_EQ_NONE && ((eq = pl_eq_of(eq_handle)) < 0 || pl.eq[eq].ni != (uint32_t)ni))
        return PTL_ARG_INVALID;
    if ((options & PTL_PT_FLOWCTRL) && eq < 0)
        return PTL_PT_EQ_NEEDED; /* the PT_DISABLED event needs somewhere to go */
    uint32_t max = (uint32_t)pl.ni[ni].lim.max_pt_index;
    if (pt_index_req != PTL_PT_ANY && pt_index_req > max)
        return PTL_ARG_INVALID;
    pthread_mutex_lock(&pl.mu);
    uint32_t idx = pt_index_req;
    int rc = PTL_OK;
    if (pt_index_req == PTL_PT_ANY) {
        for (idx = 0; idx <= max && pl.pt_used[ni][idx]; idx++)
            ;
        if (idx > max)
            rc = PTL_PT_FULL;
    } else if (pl.pt_used[ni][idx]) {
        rc = PTL_PT_IN_USE;
    }
    if (rc == PTL_OK) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(idx, (uint32_t)ni, 0, 0, 0);
        m.raddr = eq >= 0 ? addr_of(pl.eq[eq].shm) : 0;
        m.len = options;
        rc = pl_ctl(PTLX_PT_ALLOC, &m, NULL);
        if (rc == PTL_OK) {
            pl.pt_used[ni][idx] = true;
            *pt_index = idx;
        }
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

static int pt_ctl(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt, uint32_t kind)
{
    int ni = pl_ni_of(ni_handle);
    if (ni < 0 || pt >= PTLX_MAX_PT || !pl.pt_used[ni][pt])
        return PTL_ARG_INVALID;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.hlen = ptlx_pack(pt, (uint32_t)ni, 0, 0, 0);
    return pl_ctl(kind, &m, NULL);
}

int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
    PL_NEED_INIT;
    /* the NIC owns the lists (use-once entries leave them on their own),
     * so it is the one to answer PTL_PT_IN_USE */
    int ni = pl_ni_of(ni_handle);
    pthread_mutex_lock(&pl.mu);
    int rc = pt_ctl(ni_handle, pt_index, PTLX_PT_FREE);
    if (rc == PTL_OK)
        pl.pt_used[ni][pt_index] = false;
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
    PL_NEED_INIT;
    return pt_ctl(ni_handle, pt_index, PTLX_PT_DISABLE);
}

int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
    PL_NEED_INIT;
    return pt_ctl(ni_handle, pt_index, PTLX_PT_ENABLE);
}

/* ---- memory descriptors ---- */

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t *md, ptl_handle_md_t *md_handle)
{
    PL_NEED_INIT;
    int ni = pl_ni_of(ni_handle);
    if (ni < 0 || !md || !md_handle || (md->options & ~PTL_MD_OPTIONS_MASK))
        return PTL_ARG_INVALID;
    /* PTL_IOVEC: start is a ptl_iovec_t array, length its entry count */
    ptl_size_t total = md->length;
    if (md->options & PTL_IOVEC) {
        const ptl_iovec_t *v = md->start;
        if (!v || md->length == 0 || md->length > (ptl_size_t)pl.ni[ni].lim.max_iovecs)
            return PTL_ARG_INVALID;
        total = 0;
        for (ptl_size_t k = 0; k < md->length; k++) {
            if (v[k].iov_len > PTL_SIZE_MAX - total)
                return PTL_ARG_INVALID;
            total += v[k].iov_len;
        }
    }
    int eq = -1, ct = -1;
    if ((md->eq_handle != PTL_EQ_NONE && (eq = pl_eq_of(md->eq_handle)) < 0) ||
        (md->ct_handle != PTL_CT_NONE && (ct = pl_ct_of(md->ct_handle)) < 0))
        return PTL_ARG_INVALID;
    /* an MD's EQ and counter belong to its own NI */
    if ((eq >= 0 && pl.eq[eq].ni != (uint32_t)ni) || (ct >= 0 && pl.ct[ct].ni != (uint32_t)ni))
        return PTL_ARG_INVALID;
    if (emunic_fault_refuse(EMUNIC_RES_REG))
        return PTL_NO_SPACE; /* --fault regfail: the NIC could not register it */
    pthread_mutex_lock(&pl.mu);
    int i, rc = PTL_NO_SPACE;
    for (i = 0; i < PTLX_MAX_MD && pl.md[i].live; i++)
        ;
    if (i < PTLX_MAX_MD && pl.ni[ni].nmd < pl.ni[ni].lim.max_mds) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(0, (uint32_t)ni, 0, 0, 0);
        m.key = (uint32_t)i;
        m.laddr = addr_of(md->start);
        m.len = md->length;
        m.raddr = eq >= 0 ? addr_of(pl.eq[eq].shm) : 0;
        m.aux = ct >= 0 ? addr_of(pl.ct[ct].shm) : 0;
        m.imm = md->options;
        uint32_t pin = pl_pin(md->start, md->length, md->options, 0);
        rc = pl_ctl(PTLX_MD_BIND, &m, NULL);
        if (rc == PTL_OK) {
            pl.md[i].pin = pin;
            pl.md[i].gen = pl_next_gen(pl.md[i].gen);
            pl.md[i].live = true;
            pl.md[i].ni = (uint32_t)ni;
            pl.md[i].md = *md;
            pl.md[i].total = total;
            pl.ni[ni].nmd++;
            *md_handle = pl_handle(PL_MD, pl.md[i].gen, (uint32_t)i);
        } else {
            pl_unpin(&pin);
        }
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

int PtlMDRelease(ptl_handle_md_t md_handle)
{
    PL_NEED_INIT;
    pthread_mutex_lock(&pl.mu);
    int i = pl_md_of(md_handle), rc = PTL_ARG_INVALID;
    if (i >= 0) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(0, pl.md[i].ni, 0, 0, 0);
        m.key = (uint32_t)i;
        rc = pl_ctl(PTLX_MD_RELEASE, &m, NULL);
        if (rc == PTL_OK) {
            pl_unpin(&pl.md[i].pin);
            pl.md[i].live = false;
            pl.ni[pl.md[i].ni].nmd--;
        }
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

/* ---- list entries ---- */

static int le_slot(void)
{
    int i;
    for (i = 0; i < PTLX_MAX_LE && pl.le[i].live; i++)
        ;
    return i < PTLX_MAX_LE ? i : -1;
}

void pl_le_reclaim(void)
{
    if (!pl.le_map && !(pl.le_map = emunic_malloc(PTLX_MAX_LE / 8)))
        return;
    for (uint32_t ni = 0; ni < PTLX_MAX_NI; ni++) {
        if (pl.ni[ni].refs == 0)
            continue;
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(0, ni, 0, 0, 0);
        m.raddr = PTLX_SR_LINKED;
        m.laddr = addr_of(pl.le_map);
        if (pl_ctl(PTLX_NI_STATUS, &m, NULL) != PTL_OK)
            continue;
        /* under pl.mu nothing is linked meanwhile: a clear bit is gone */
        for (int k = 0; k < PTLX_MAX_LE; k++)
            if (pl.le[k].live && pl.le[k].ni == ni && !((pl.le_map[k / 64] >> (k % 64)) & 1)) {
                pl_unpin(&pl.le[k].pin);
                pl.le[k].live = false;
                pl.ni[ni].nle--;
            }
    }
}

/* An appended or searching entry's counter: its index, -1 for none
 * (PTL_CT_NONE), -2 if it is not a live counter of NI ni. PTL_INVALID_HANDLE
 * is not "none": the specification and the reference refuse it (its
 * test_basic_le-010), and Sandia OpenSHMEM passes it only when built with
 * DISABLE_HARD_POLLING_CNTR, which its own comment says the reference
 * rejects. */
static int entry_counter(int ni, ptl_handle_ct_t h)
{
    if (h == PTL_CT_NONE)
        return -1;
    int ct = pl_ct_of(h);
    return ct >= 0 && pl.ct[ct].ni == (uint32_t)ni ? ct : -2;
}

/* What PtlLEAppend and PtlMEAppend share; me is NULL for an LE. */
static int entry_append(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                        const ptl_me_t *me, ptl_list_t ptl_list, void *user_ptr, uint32_t *handle)
{
    int ni = pl_ni_of(ni_handle);
    unsigned mask = me ? PTL_ME_APPEND_OPTIONS_MASK : PTL_LE_APPEND_OPTIONS_MASK;
    /* LEs belong to non-matching NIs, MEs to matching ones */
    if (ni < 0 || ((ni & 1) != 0) != (me != NULL) || !le || !handle || pt_index >= PTLX_MAX_PT ||
        !pl.pt_used[ni][pt_index] || (le->options & ~mask) || ptl_list > PTL_OVERFLOW_LIST)
        return PTL_ARG_INVALID;
    /* PTL_IOVEC: start is a ptl_iovec_t array, length its entry count; the
     * NIC reads the array */
    if ((le->options & PTL_IOVEC) &&
        (!le->start || le->length == 0 || le->length > (ptl_size_t)pl.ni[ni].lim.max_iovecs))
        return PTL_ARG_INVALID;
    int ct = entry_counter(ni, le->ct_handle);
    if (ct == -2)
        return PTL_ARG_INVALID;
    if (emunic_fault_refuse(EMUNIC_RES_REG))
        return PTL_NO_SPACE;
    pthread_mutex_lock(&pl.mu);
    int rc = PTL_NO_SPACE, i = le_slot();
    /* entries the NIC unlinked by itself still count until reclaimed */
    if (i < 0 || pl.ni[ni].nle >= pl.ni[ni].lim.max_entries) {
        pl_le_reclaim();
        i = le_slot();
    }
    if (i >= 0 && pl.ni[ni].nle < pl.ni[ni].lim.max_entries) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(pt_index, (uint32_t)ni, 0, 0, 0);
        m.key = (uint32_t)i | (ptl_list == PTL_OVERFLOW_LIST ? 0x80000000u : 0);
        m.laddr = addr_of(le->start);
        m.len = le->length;
        m.aux = ct >= 0 ? addr_of(pl.ct[ct].shm) : 0;
        m.imm = addr_of(user_ptr);
        m.raddr = le->options;
        m.ext = le->uid;
        if (me) {
            struct ptlx_me_match mm = {me->match_bits, me->ignore_bits, me->min_free, me->match_id};
            memcpy(m.operand, &mm, sizeof mm);
            m.dtype = 1;
        }
        uint32_t pin = pl_pin(le->start, le->length, le->options, 1);
        rc = pl_ctl(PTLX_LE_APPEND, &m, NULL);
        if (rc == PTL_OK) {
            pl.le[i].pin = pin;
            pl.le[i].gen = pl_next_gen(pl.le[i].gen);
            pl.le[i].live = true;
            pl.le[i].me = me != NULL;
            pl.le[i].ni = (uint32_t)ni;
            pl.le[i].pt = pt_index;
            pl.ni[ni].nle++;
            *handle = pl_handle(me ? PL_ME : PL_LE, pl.le[i].gen, (uint32_t)i);
        } else {
            pl_unpin(&pin);
        }
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                ptl_list_t ptl_list, void *user_ptr, ptl_handle_le_t *le_handle)
{
    PL_NEED_INIT;
    return entry_append(ni_handle, pt_index, le, NULL, ptl_list, user_ptr, le_handle);
}

int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                ptl_list_t ptl_list, void *user_ptr, ptl_handle_me_t *me_handle)
{
    PL_NEED_INIT;
    if (!me)
        return PTL_ARG_INVALID;
    /* the leading fields of an ME are an LE's */
    ptl_le_t le = {me->start, me->length, me->ct_handle, me->uid, me->options};
    return entry_append(ni_handle, pt_index, &le, me, ptl_list, user_ptr, me_handle);
}

/* PtlLESearch / PtlMESearch: the NIC looks through the PT's unexpected
 * headers and answers with PTL_EVENT_SEARCH, or (PTL_SEARCH_DELETE) the
 * overflow events of every match, on the PT's EQ. */
static int search(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le, const ptl_me_t *me,
                  ptl_search_op_t op, void *user_ptr)
{
    int ni = pl_ni_of(ni_handle);
    if (ni < 0 || ((ni & 1) != 0) != (me != NULL) || !le || pt_index >= PTLX_MAX_PT || !pl.pt_used[ni][pt_index] ||
        op > PTL_SEARCH_DELETE)
        return PTL_ARG_INVALID;
    /* a counter on the searching entry counts what it finds (Portals 4.3) */
    int ct = entry_counter(ni, le->ct_handle);
    if (ct == -2)
        return PTL_ARG_INVALID;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.hlen = ptlx_pack(pt_index, (uint32_t)ni, 0, 0, 0);
    m.key = op;
    m.aux = ct >= 0 ? addr_of(pl.ct[ct].shm) : 0;
    m.laddr = addr_of(le->start);
    m.len = le->length;
    m.imm = addr_of(user_ptr);
    m.raddr = le->options;
    m.ext = le->uid;
    if (me) {
        struct ptlx_me_match mm = {me->match_bits, me->ignore_bits, me->min_free, me->match_id};
        memcpy(m.operand, &mm, sizeof mm);
        m.dtype = 1;
    }
    return pl_ctl(PTLX_SEARCH, &m, NULL);
}

int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t *le,
                ptl_search_op_t ptl_search_op, void *user_ptr)
{
    PL_NEED_INIT;
    return search(ni_handle, pt_index, le, NULL, ptl_search_op, user_ptr);
}

int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t *me,
                ptl_search_op_t ptl_search_op, void *user_ptr)
{
    PL_NEED_INIT;
    if (!me)
        return PTL_ARG_INVALID;
    ptl_le_t le = {me->start, me->length, me->ct_handle, me->uid, me->options};
    return search(ni_handle, pt_index, &le, me, ptl_search_op, user_ptr);
}

static int entry_unlink(int i)
{
    pthread_mutex_lock(&pl.mu);
    int rc = PTL_ARG_INVALID;
    if (i >= 0 && pl.le[i].live) {
        struct emu_msg m;
        memset(&m, 0, EMU_MSG_HDR_SIZE);
        m.hlen = ptlx_pack(pl.le[i].pt, pl.le[i].ni, 0, 0, 0);
        m.key = (uint32_t)i;
        rc = pl_ctl(PTLX_LE_UNLINK, &m, NULL);
        /* PTL_ARG_INVALID from the NIC: a use-once entry it already unlinked */
        pl_unpin(&pl.le[i].pin);
        pl.le[i].live = false;
        pl.ni[pl.le[i].ni].nle--;
    }
    pthread_mutex_unlock(&pl.mu);
    return rc;
}

int PtlLEUnlink(ptl_handle_le_t le_handle)
{
    PL_NEED_INIT;
    return entry_unlink(pl_le_of(le_handle));
}

int PtlMEUnlink(ptl_handle_me_t me_handle)
{
    PL_NEED_INIT;
    return entry_unlink(pl_me_of(me_handle));
}

/* ---- event queues and counters ---- */

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t *eq_handle)
{
    PL_NEED_INIT;
    int ni = pl_ni_of(ni_handle);
    if (ni < 0 || !eq_handle || count == 0 || count > (1u << 22))
        return PTL_ARG_INVALID;
    if (emunic_fault_refuse(EMUNIC_RES_EQ))
        return PTL_NO_SPACE; /* --fault eqfull */
    pthread_mutex_lock(&pl.mu);
    int i = pl.ni[ni].neq >= pl.ni[ni].lim.max_eqs
                ? -1
                : pl_heapobj_claim(pl.eq, PL_MAX_EQ, (uint32_t)ni,
                                   sizeof(struct ptlx_eq_shm) + count * sizeof(ptl_event_t));
    if (i >= 0) {
        pl.ni[ni].neq++;
        struct ptlx_eq_shm *q = pl.eq[i].shm;
        memset(q, 0, sizeof *q);
        q->count = count;
        *eq_handle = pl_handle(PL_EQ, pl.eq[i].gen, (uint32_t)i);
    }
    pthread_mutex_unlock(&pl.mu);
    return i >= 0 ? PTL_OK : PTL_NO_SPACE;
}

int PtlEQFree(ptl_handle_eq_t eq_handle)
{
    PL_NEED_INIT;
    pthread_mutex_lock(&pl.mu);
    int i = pl_eq_of(eq_handle);
    if (i >= 0) {
        pl.ni[pl.eq[i].ni].neq--;
        pl_heapobj_release(&pl.eq[i]);
    }
    pthread_mutex_unlock(&pl.mu);
    if (i >= 0)
        emunic_ring_self(); /* a thread waiting on it ends its wait (PTL_FAIL) */
    return i >= 0 ? PTL_OK : PTL_ARG_INVALID;
}

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t *ct_handle)
{
    PL_NEED_INIT;
    int ni = pl_ni_of(ni_handle);
    if (ni < 0 || !ct_handle)
        return PTL_ARG_INVALID;
    if (emunic_fault_refuse(EMUNIC_RES_EQ))
        return PTL_NO_SPACE;
    pthread_mutex_lock(&pl.mu);
    int i = pl.ni[ni].nct >= pl.ni[ni].lim.max_cts
                ? -1
                : pl_heapobj_claim(pl.ct, PL_MAX_CT, (uint32_t)ni, sizeof(struct ptlx_ct_shm));
    if (i >= 0) {
        pl.ni[ni].nct++;
        struct ptlx_ct_shm *c = pl.ct[i].shm;
        atomic_store(&c->success, 0);
        atomic_store(&c->failure, 0);
        atomic_store(&c->trig_done, 0);
        *ct_handle = pl_handle(PL_CT, pl.ct[i].gen, (uint32_t)i);
    }
    pthread_mutex_unlock(&pl.mu);
    return i >= 0 ? PTL_OK : PTL_NO_SPACE;
}

int PtlCTFree(ptl_handle_ct_t ct_handle)
{
    PL_NEED_INIT;
    pthread_mutex_lock(&pl.mu);
    int i = pl_ct_of(ct_handle);
    if (i >= 0) {
        pl.ni[pl.ct[i].ni].nct--;
        pl_heapobj_release(&pl.ct[i]);
    }
    pthread_mutex_unlock(&pl.mu);
    if (i >= 0)
        emunic_ring_self(); /* a thread waiting on it ends its wait (PTL_FAIL) */
    return i >= 0 ? PTL_OK : PTL_ARG_INVALID;
}

/* Counters change in rank memory; once triggered operations exist, the
 * NIC is told so it can fire the ones whose threshold was reached. */
static void ct_changed(int i)
{
    if (!atomic_load(&pl.triggers_used))
        return;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    pl_msg_to(&m, PTLX_CT_POKE, emunic_rank());
    m.laddr = addr_of(pl.ct[i].shm);
    emunic_post_module(&m);
}

int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct)
{
    PL_NEED_INIT;
    int i = pl_ct_of(ct_handle);
    if (i < 0)
        return PTL_ARG_INVALID;
    struct ptlx_ct_shm *c = pl.ct[i].shm;
    atomic_store(&c->success, new_ct.success);
    atomic_store(&c->failure, new_ct.failure);
    ct_changed(i);
    return PTL_OK;
}

int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment)
{
    PL_NEED_INIT;
    int i = pl_ct_of(ct_handle);
    /* one of the two at a time, as the reference (and its tests) have it */
    if (i < 0 || (increment.success && increment.failure))
        return PTL_ARG_INVALID;
    struct ptlx_ct_shm *c = pl.ct[i].shm;
    atomic_fetch_add(&c->success, increment.success);
    atomic_fetch_add(&c->failure, increment.failure);
    ct_changed(i);
    return PTL_OK;
}

/* Unfired triggered ops on NI ni: per live counter, those posted on it
 * less those the NIC fired or dropped (a reused heap block may show more
 * done than posted). pl.mu held. */
static uint64_t trig_held(uint32_t ni)
{
    uint64_t n = 0;
    for (int k = 0; k < PL_MAX_CT; k++) {
        if (!pl.ct[k].live || pl.ct[k].ni != ni)
            continue;
        uint64_t done = atomic_load(&((struct ptlx_ct_shm *)pl.ct[k].shm)->trig_done);
        n += pl.ct[k].trig_posted > done ? pl.ct[k].trig_posted - done : 0;
    }
    return n;
}

bool pl_trig_claim(int ct)
{
    pthread_mutex_lock(&pl.mu);
    struct pl_ni *n = &pl.ni[pl.ct[ct].ni];
    uint64_t max = (uint64_t)n->lim.max_triggered_ops;
    /* n->trig_held only grows between counts: count when it says full */
    if (n->trig_held >= max)
        n->trig_held = trig_held(pl.ct[ct].ni);
    bool ok = pl.ct[ct].live && n->trig_held < max;
    if (ok) {
        n->trig_held++;
        pl.ct[ct].trig_posted++;
    }
    pthread_mutex_unlock(&pl.mu);
    return ok;
}

void pl_trig_unclaim(int ct)
{
    pthread_mutex_lock(&pl.mu);
    struct pl_ni *n = &pl.ni[pl.ct[ct].ni];
    if (pl.ct[ct].live && pl.ct[ct].trig_posted > 0) {
        pl.ct[ct].trig_posted--;
        n->trig_held -= n->trig_held > 0;
    }
    pthread_mutex_unlock(&pl.mu);
}

/* PtlTriggeredCTInc / PtlTriggeredCTSet: the NIC applies them. */
static int trig_ct_op(ptl_handle_ct_t ct_handle, ptl_ct_event_t v, int set, ptl_handle_ct_t trig, ptl_size_t threshold)
{
    int i = pl_ct_of(ct_handle), t = pl_ct_of(trig);
    if (i < 0 || t < 0)
        return PTL_ARG_INVALID;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    pl_msg_to(&m, PTLX_TRIG_CT, emunic_rank());
    m.laddr = addr_of(pl.ct[i].shm);
    m.raddr = v.success;
    m.len = v.failure;
    m.key = (uint32_t)set;
    struct ptlx_trigger tr = {addr_of(pl.ct[t].shm), threshold};
    memcpy(m.operand + PTLX_TRIGGER_AT, &tr, sizeof tr);
    m.dtype = 1;
    atomic_store(&pl.triggers_used, 1);
    if (!pl_trig_claim(t))
        return PTL_NO_SPACE;
    if (emunic_post_module(&m) == 0)
        return PTL_OK;
    pl_trig_unclaim(t);
    return PTL_FAIL;
}

int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold)
{
    PL_NEED_INIT;
    return trig_ct_op(ct_handle, increment, 0, trig_ct_handle, threshold);
}

int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold)
{
    PL_NEED_INIT;
    return trig_ct_op(ct_handle, new_ct, 1, trig_ct_handle, threshold);
}

int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle)
{
    PL_NEED_INIT;
    int i = pl_ct_of(ct_handle);
    if (i < 0)
        return PTL_ARG_INVALID;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.hlen = ptlx_pack(0, pl.ct[i].ni, 0, 0, 0);
    m.laddr = addr_of(pl.ct[i].shm);
    return pl_ctl(PTLX_TRIG_CANCEL, &m, NULL);
}
