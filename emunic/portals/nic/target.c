/* Non-matching delivery at the target NIC: the first list entry of the
 * portal table entry takes the operation if it allows it; the NIC moves
 * the data (truncating to the entry), counts and posts target events, and
 * sends the result back to the initiator's NIC. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emunic/atomic_op.h"
#include "ptl_nic.h"

static bool needs_put(uint8_t k) { return k != PTLX_GET; }
static bool needs_get(uint8_t k) { return k == PTLX_GET || k == PTLX_FETCH || k == PTLX_SWAP; }

uint8_t ptln_event_type(uint8_t k)
{
    switch (k) {
    case PTLX_PUT: return PTL_EVENT_PUT;
    case PTLX_GET: return PTL_EVENT_GET;
    case PTLX_ATOMIC: return PTL_EVENT_ATOMIC;
    default: return PTL_EVENT_FETCH_ATOMIC; /* fetch-atomic and swap */
    }
}

static int fail_of(int emu_status)
{
    return emu_status == EMU_OK ? PTL_NI_OK : emu_status == EMU_E_FAULT ? PTL_NI_SEGV : PTL_NI_UNDELIVERABLE;
}

/* The two sides of m: the entry's memory, the initiator's source (put
 * data / operand) and sink (get / fetch). */
static struct span le_span(const struct emu_msg *m, const struct nle *le)
{
    return (struct span){m->dst, le->iov_count > 0, le->start, le->iov_count};
}

static struct span side(const struct emu_msg *m, unsigned bit, int at, uint64_t flat)
{
    if (!(m->dtype & bit))
        return (struct span){m->src, false, flat, 0};
    struct ptlx_iov v;
    memcpy(&v, m->operand + at, sizeof v);
    return (struct span){m->src, true, v.addr, (uint32_t)v.count};
}

/* Move the data of m for mlen bytes at offset into entry le. */
static int execute(struct emu_nic *nic, const struct emu_msg *m, const struct nle *le, uint64_t offset,
                   uint64_t mlen)
{
    if (mlen == 0)
        return EMU_OK;
    struct span t = le_span(m, le);
    bool put_iov = m->dtype & PTLX_D_PUT_IOV, get_iov = m->dtype & PTLX_D_GET_IOV;
    struct span src = side(m, PTLX_D_PUT_IOV, 0, m->laddr), snk = side(m, PTLX_D_GET_IOV, 16, m->aux);
    uint64_t soff = put_iov ? m->laddr : 0, goff = get_iov ? m->aux : 0;
    switch (m->aop) {
    case PTLX_PUT:
        return ptln_span_copy(nic, &t, offset, &src, soff, (m->flags & EMU_F_INLINE) ? m->data : NULL, mlen);
    case PTLX_GET: {
        /* the entry was read; only the initiator's sink can be gone */
        int st = ptln_span_copy(nic, &snk, goff, &t, offset, NULL, mlen);
        return st == EMU_E_DEAD ? EMU_E_NORESULT : st;
    }
    default: {
        /* the atomic unit works on flat memory: each side must sit in one
         * segment of its iovec */
        struct emu_msg a = *m;
        a.len = mlen;
        a.aop = (uint8_t)ptlx_op(m->hlen);
        a.dtype = (uint8_t)ptlx_dtype(ptlx_type(m->hlen));
        if (ptln_span_flat(nic, &t, offset, mlen, &a.raddr) ||
            (put_iov && !(m->flags & EMU_F_INLINE) && ptln_span_flat(nic, &src, soff, mlen, &a.laddr)) ||
            (get_iov && ptln_span_flat(nic, &snk, goff, mlen, &a.aux)))
            return EMU_E_INVAL;
        return emu_nic_atomic(nic, &a, m->aop != PTLX_ATOMIC);
    }
    }
}

/* The result for the initiator's NIC: key says which list took it (its
 * ACK and REPLY events report that list). */
static void reply(struct emu_nic *nic, const struct emu_msg *m, int fail, uint64_t mlen, uint64_t offset,
                  bool overflow)
{
    struct emu_msg r;
    memset(&r, 0, EMU_MSG_HDR_SIZE);
    r.op = EMU_OP_MODULE;
    r.module = EMU_MOD_PORTALS;
    r.aop = PTLX_RESULT;
    r.dtype = m->aop;
    r.status = (uint8_t)fail;
    r.src = m->dst;
    r.dst = m->src;
    r.cookie = m->cookie;
    r.len = mlen;
    r.raddr = offset;
    r.key = overflow ? PTL_OVERFLOW_LIST : PTL_PRIORITY_LIST;
    emu_nic_route(nic, &r);
}

bool ptln_me_matches(const struct nle *e, uint64_t bits, uint64_t offset, uint64_t len, uint32_t ni,
                     ptl_process_t from)
{
    if ((bits ^ e->match.match_bits) & ~e->match.ignore_bits)
        return false;
    ptl_process_t id = e->match.match_id;
    if (ni & 2) {
        if ((id.phys.nid != PTL_NID_ANY && id.phys.nid != from.phys.nid) ||
            (id.phys.pid != PTL_PID_ANY && id.phys.pid != from.phys.pid))
            return false;
    } else if (id.rank != PTL_RANK_ANY && id.rank != from.rank) {
        return false;
    }
    uint64_t off = (e->options & PTL_ME_MANAGE_LOCAL) ? e->local_offset : offset;
    return !(e->options & PTL_ME_NO_TRUNCATE) || (off <= e->length && len <= e->length - off);
}

/* The entry that takes m: a non-matching NI's first LE, or a matching
 * NI's first ME that matches. *prev is the link that points at it. */
static struct nle *find_in(struct nle **list, const struct emu_msg *m, uint32_t ni, ptl_process_t from,
                           struct nle ***prev)
{
    for (struct nle **l = list; *l; l = &(*l)->next)
        if (!(ni & 1) || ptln_me_matches(*l, m->ext, m->raddr, m->len, ni, from)) {
            *prev = l;
            return *l;
        }
    return NULL;
}

/* The priority list first; what it does not take, the overflow list. */
static struct nle *find_entry(struct npt *p, const struct emu_msg *m, uint32_t ni, ptl_process_t from,
                              struct nle ***prev, bool *overflow)
{
    struct nle *e = find_in(&p->head, m, ni, from, prev);
    *overflow = !e && (e = find_in(&p->ovf, m, ni, from, prev)) != NULL;
    return e;
}

/* Would an overflow entry's header exceed the NI's max_unexpected_headers? */
static bool no_header_room(const struct nni *n, const struct nle *le, bool overflow)
{
    if (!overflow || (le->options & PTL_LE_UNEXPECTED_HDR_DISABLE))
        return false;
    uint64_t held = 0;
    for (int i = 0; i < PTLX_MAX_PT; i++)
        held += n->pt[i].nuh;
    return held >= n->max_uh;
}

void ptln_target(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m)
{
    uint32_t ni = ptlx_ni(m->hlen), pt = ptlx_pt(m->hlen);
    struct nni *n = ptln_ni(nic, s, m->dst, ni);
    struct npt *p = n && n->live && pt < PTLX_MAX_PT && n->pt[pt].used ? &n->pt[pt] : NULL;
    struct nle **link = NULL;
    struct nle *le = NULL;
    int fail = PTL_NI_OK;
    ptl_process_t from = ptln_initiator(nic, n, ni, m->dst, m->src);
    bool overflow = false;
    if (!p) {
        fail = PTL_NI_DROPPED;
    } else if (!p->enabled) {
        fail = PTL_NI_PT_DISABLED;
    } else if (!(le = find_entry(p, m, ni, from, &link, &overflow))) {
        fail = PTL_NI_DROPPED; /* PTL_NI_NO_MATCH is the search's word */
    } else if ((needs_put(m->aop) && !(le->options & PTL_LE_OP_PUT)) ||
               (needs_get(m->aop) && !(le->options & PTL_LE_OP_GET))) {
        fail = PTL_NI_OP_VIOLATION;
        n->sr[PTL_SR_OPERATION_VIOLATIONS]++;
    } else if (le->uid != PTL_UID_ANY && le->uid != (uint32_t)getuid()) {
        fail = PTL_NI_PERM_VIOLATION;
        n->sr[PTL_SR_PERMISSION_VIOLATIONS]++;
    }
    bool no_room = fail == PTL_NI_OK && no_header_room(n, le, overflow);
    /* Flow control: no entry to take the operation, no room for its
     * unexpected header, or too little room left in the EQ to report it
     * (one slot stays free for the PT_DISABLED event itself), disables the
     * entry until PtlPTEnable. */
    if (p && p->enabled && (p->options & PTL_PT_FLOWCTRL) &&
        ((fail == PTL_NI_DROPPED && !le) || no_room ||
         (fail == PTL_NI_OK && ptln_eq_room(nic, m->dst, p->eq) < 3))) {
        p->enabled = false;
        fail = PTL_NI_PT_DISABLED;
        if (!le || !(le->options & PTL_LE_EVENT_FLOWCTRL_DISABLE)) {
            ptl_event_t ev;
            memset(&ev, 0, sizeof ev);
            ev.type = PTL_EVENT_PT_DISABLED;
            ev.pt_index = pt;
            ev.initiator = from;
            ev.ni_fail_type = PTL_NI_PT_DISABLED;
            ev.match_bits = (ni & 1) ? m->ext : 0;
            ev.rlength = m->len;
            ev.remote_offset = m->raddr;
            ptln_eq_post(nic, m->dst, p->eq, &ev);
        }
    }
    if (no_room && fail == PTL_NI_OK)
        fail = PTL_NI_DROPPED; /* no flow control: the NIC cannot keep it */
    if (fail != PTL_NI_OK) {
        if (n && fail != PTL_NI_OP_VIOLATION && fail != PTL_NI_PERM_VIOLATION)
            n->sr[PTL_SR_DROP_COUNT]++;
        reply(nic, m, fail, 0, m->raddr, false);
        return;
    }
    bool manage_local = le->me && (le->options & PTL_ME_MANAGE_LOCAL);
    uint64_t offset = manage_local ? le->local_offset : m->raddr;
    /* truncate to the entry; atomics to whole elements */
    uint64_t mlen = offset >= le->length ? 0 : le->length - offset;
    if (mlen > m->len)
        mlen = m->len;
    if (m->aop != PTLX_PUT && m->aop != PTLX_GET) {
        size_t es = emu_dtype_size((unsigned)ptlx_dtype(ptlx_type(m->hlen)));
        mlen -= es ? mlen % es : mlen;
    }
    /* where the data went, for events: the flat address of the offset */
    uint64_t addr = le->start + offset;
    if (le->iov_count) {
        struct span t = le_span(m, le);
        if (ptln_span_flat(nic, &t, offset, 0, &addr))
            addr = 0;
    }
    int st = execute(nic, m, le, offset, mlen);
    /* EMU_E_NORESULT: the target's part is done, counted and reported as
     * such; only the reply finds no one */
    fail = st == EMU_E_NORESULT ? PTL_NI_OK : fail_of(st);
    if (manage_local)
        le->local_offset += mlen;
    bool ok = fail == PTL_NI_OK;
    /* taken by an overflow entry: remember it for a later append/search */
    if (overflow && ok && !(le->options & PTL_LE_UNEXPECTED_HDR_DISABLE))
        ptln_uh_record(p, le, m, from, addr, mlen);
    if (le->ct && (le->options & PTL_LE_EVENT_CT_COMM))
        ptln_ct_add(nic, m->dst, le->ct, ok ? ((le->options & PTL_LE_EVENT_CT_BYTES) ? mlen : 1) : 0, ok ? 0 : 1);
    if (p->eq && !(le->options & PTL_LE_EVENT_COMM_DISABLE) &&
        !(ok && (le->options & PTL_LE_EVENT_SUCCESS_DISABLE))) {
        ptl_event_t ev;
        memset(&ev, 0, sizeof ev);
        ev.type = ptln_event_type(m->aop);
        ev.start = (void *)(uintptr_t)addr;
        ev.user_ptr = (void *)(uintptr_t)le->user_ptr;
        ev.hdr_data = m->imm;
        ev.match_bits = (ni & 1) ? m->ext : 0; /* no match bits without matching */
        ev.rlength = m->len;
        ev.mlength = mlen;
        ev.remote_offset = m->raddr;
        ev.initiator = from;
        ev.uid = (ptl_uid_t)getuid();
        ev.pt_index = pt;
        ev.ptl_list = overflow ? PTL_OVERFLOW_LIST : PTL_PRIORITY_LIST;
        ev.ni_fail_type = (ptl_ni_fail_t)fail;
        if (m->aop != PTLX_PUT && m->aop != PTLX_GET) {
            ev.atomic_operation = (ptl_op_t)ptlx_op(m->hlen);
            ev.atomic_type = (ptl_datatype_t)ptlx_type(m->hlen);
        }
        ptln_eq_post(nic, m->dst, p->eq, &ev);
    }
    /* used up: once, or (locally managed) less room left than min_free */
    if ((le->options & PTL_LE_USE_ONCE) ||
        (manage_local && le->length - le->local_offset < le->match.min_free)) {
        *link = le->next;
        ptln_le_used_up(nic, m->dst, p, pt, le, overflow);
    }
    reply(nic, m, st == EMU_E_NORESULT ? PTL_NI_UNDELIVERABLE : fail, mlen, offset, overflow);
}

/* Another daemon runs this for our rank under our node's lock
 * (nicd/fastpath.c), with our state. It takes only what it can finish
 * exactly as we would: an operation an entry takes. Drops and a disabled
 * PT (statistics, flow-control events) stay ours, and so does an entry
 * whose counter our held triggered operations wait on (firing them is
 * our work). Decided before anything changes. */
int ptln_peer_target(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m)
{
    uint32_t ni = ptlx_ni(m->hlen), pt = ptlx_pt(m->hlen);
    struct nni *n = ptln_ni(nic, s, m->dst, ni);
    if (!n || !n->live || pt >= PTLX_MAX_PT || !n->pt[pt].used || !n->pt[pt].enabled)
        return 0;
    struct nle **link = NULL;
    bool overflow = false;
    ptl_process_t from = ptln_initiator(nic, n, ni, m->dst, m->src);
    const struct nle *le = find_entry(&n->pt[pt], m, ni, from, &link, &overflow);
    if (!le || (le->ct && s->nheld[m->dst - s->first]))
        return 0;
    ptln_target(nic, s, m);
    return 1;
}
