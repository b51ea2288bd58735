/* Control commands from this node's ranks: they change the NIC's view of
 * a rank's portal table, MDs and lists, and complete before the call in
 * the rank returns. */
#include <stdlib.h>
#include <string.h>

#include "ptl_nic.h"

struct nni *ptln_ni(struct emu_nic *nic, struct ptl_nic *s, uint32_t rank, uint32_t ni)
{
    (void)nic; /* s may be another node's (ptln_peer_target) */
    uint32_t l = rank - s->first;
    if (rank < s->first || l >= s->nlocal || ni >= PTLX_MAX_NI)
        return NULL;
    return &s->ni[l][ni];
}

ptl_process_t ptln_initiator(struct emu_nic *nic, const struct nni *n, uint32_t ni, uint32_t target,
                             uint32_t src)
{
    ptl_process_t id;
    if (ni & 2) {
        id.phys.nid = emu_nic_node_of(nic, src);
        id.phys.pid = src;
        return id;
    }
    id.rank = src;
    if (n && n->inv_map && src < n->inv_len) {
        const uint32_t *inv = emu_nic_rank_ptr(nic, target, n->inv_map + (uint64_t)src * sizeof *inv, sizeof *inv);
        if (inv)
            id.rank = *inv;
    }
    return id;
}

static void free_list(struct nle *e)
{
    while (e) {
        struct nle *nx = e->next;
        ptln_le_free(e);
        e = nx;
    }
}

void ptln_ni_clear(struct nni *n)
{
    for (int p = 0; p < PTLX_MAX_PT; p++) {
        free_list(n->pt[p].head);
        free_list(n->pt[p].ovf);
        ptln_uh_clear(&n->pt[p]);
    }
    emu_shared_free(n->md);
    memset(n, 0, sizeof *n);
}

/* An LE or ME as PTLX_LE_APPEND and PTLX_SEARCH describe it. */
static void entry_of(const struct emu_msg *m, struct nle *e)
{
    memset(e, 0, sizeof *e);
    e->id = m->key & 0x7fffffffu;
    e->start = m->laddr;
    e->length = m->len;
    e->ct = m->aux;
    e->user_ptr = m->imm;
    e->options = (uint32_t)m->raddr;
    e->uid = (uint32_t)m->ext;
    if (m->dtype == 1) {
        e->me = true;
        memcpy(&e->match, m->operand, sizeof e->match);
    }
}

static int le_append(struct emu_nic *nic, struct nni *n, const struct emu_msg *m)
{
    uint32_t pt = ptlx_pt(m->hlen);
    bool overflow = (m->key & 0x80000000u) != 0;
    /* max_list_size is counted here, where entries the NIC unlinks by
     * itself (use-once, min_free) have already left the list */
    struct nle **tail = overflow ? &n->pt[pt].ovf : &n->pt[pt].head;
    uint64_t len = 0;
    for (; *tail; tail = &(*tail)->next)
        len++;
    if (len >= n->max_list)
        return PTL_NO_SPACE;
    struct nle *e = emu_shared_alloc_near(n, sizeof *e);
    if (!e)
        return PTL_NO_SPACE;
    entry_of(m, e);
    if (e->options & PTL_IOVEC) {
        struct span s = {m->src, true, e->start, (uint32_t)m->len};
        e->iov_count = (uint32_t)m->len;
        e->length = m->len && m->len <= PTLX_MAX_IOV ? ptln_span_total(nic, &s) : 0;
        if (!e->length && m->len) {
            emu_shared_free(e);
            return PTL_ARG_INVALID; /* the segment table is not readable */
        }
    }
    /* a priority entry first takes what already arrived unexpected; a
     * use-once entry that did is used up and never linked */
    if (!overflow && ptln_uh_claim(nic, m->src, &n->pt[pt], pt, ptlx_ni(m->hlen), e))
        return PTL_OK;
    *tail = e;
    if (!(e->options & PTL_LE_EVENT_LINK_DISABLE))
        ptln_entry_event(nic, m->src, &n->pt[pt], pt, e, PTL_EVENT_LINK, overflow);
    return PTL_OK;
}

static int le_unlink(struct nni *n, const struct emu_msg *m)
{
    struct npt *pt = &n->pt[ptlx_pt(m->hlen)];
    struct nle **lists[2] = {&pt->head, &pt->ovf};
    for (int k = 0; k < 2; k++)
        for (struct nle **p = lists[k]; *p; p = &(*p)->next)
            if ((*p)->id == m->key) {
                struct nle *e = *p;
                *p = e->next;
                ptln_le_free(e);
                return PTL_OK;
            }
    return PTL_ARG_INVALID; /* already gone (a used-up PTL_LE_USE_ONCE entry) */
}

/* The ids of NI n's linked entries, as a bitmap of PTLX_MAX_LE bits in the
 * rank's heap at m->laddr: the rank frees the slots of the others. */
static int linked_map(struct emu_nic *nic, const struct nni *n, const struct emu_msg *m)
{
    uint64_t *map = emu_nic_rank_ptr(nic, m->src, m->laddr, PTLX_MAX_LE / 8);
    if (!map)
        return PTL_ARG_INVALID;
    memset(map, 0, PTLX_MAX_LE / 8);
    for (int p = 0; p < PTLX_MAX_PT; p++)
        for (int l = 0; l < 2; l++)
            for (const struct nle *e = l ? n->pt[p].ovf : n->pt[p].head; e; e = e->next)
                if (e->id < PTLX_MAX_LE)
                    map[e->id / 64] |= 1ull << (e->id % 64);
    return PTL_OK;
}

static int control(struct emu_nic *nic, struct ptl_nic *s, const struct emu_msg *m, uint64_t *imm)
{
    struct nni *n = ptln_ni(nic, s, m->src, ptlx_ni(m->hlen));
    uint32_t pt = ptlx_pt(m->hlen);
    if (!n || pt >= PTLX_MAX_PT)
        return PTL_ARG_INVALID;
    if (m->aop == PTLX_NI_INIT) {
        if (n->live)
            return PTL_OK;
        if (!(n->md = emu_shared_alloc_near(n, PTLX_MAX_MD * sizeof *n->md)))
            return PTL_NO_SPACE;
        n->live = true;
        /* the rank's agreed limits, never above the NIC's own */
        n->max_list = m->len < PTLX_MAX_LE ? m->len : PTLX_MAX_LE;
        n->max_uh = m->aux < PTLX_MAX_UH ? m->aux : PTLX_MAX_UH;
        return PTL_OK;
    }
    if (!n->live)
        return PTL_ARG_INVALID;
    struct npt *p = &n->pt[pt];
    switch (m->aop) {
    case PTLX_NI_FINI:
        ptln_ni_clear(n);
        return PTL_OK;
    case PTLX_NI_SETMAP:
        if (m->laddr && !emu_nic_rank_ptr(nic, m->src, m->laddr, m->len * sizeof(uint32_t)))
            return PTL_ARG_INVALID;
        n->inv_map = m->laddr;
        n->inv_len = m->len;
        return PTL_OK;
    case PTLX_NI_STATUS:
        if (m->raddr == PTLX_SR_LINKED)
            return linked_map(nic, n, m);
        if (m->raddr >= PTL_SR_LAST)
            return PTL_ARG_INVALID;
        *imm = n->sr[m->raddr];
        return PTL_OK;
    case PTLX_PT_ALLOC:
        if (p->used)
            return PTL_PT_IN_USE;
        p->used = true;
        p->options = (uint32_t)m->len;
        p->enabled = !(p->options & PTL_PT_ALLOC_DISABLED);
        p->eq = m->raddr;
        return PTL_OK;
    case PTLX_PT_FREE:
        if (!p->used)
            return PTL_ARG_INVALID;
        if (p->head || p->ovf)
            return PTL_PT_IN_USE;
        ptln_uh_clear(p);
        memset(p, 0, sizeof *p);
        return PTL_OK;
    case PTLX_PT_ENABLE:
    case PTLX_PT_DISABLE:
        if (!p->used)
            return PTL_ARG_INVALID;
        p->enabled = m->aop == PTLX_PT_ENABLE;
        return PTL_OK;
    case PTLX_MD_BIND:
    case PTLX_MD_RELEASE:
        if (m->key >= PTLX_MAX_MD)
            return PTL_ARG_INVALID;
        n->md[m->key] = (struct nmd){
            .live = m->aop == PTLX_MD_BIND, .options = (uint32_t)m->imm,
            .start = m->laddr, .length = m->len, .eq = m->raddr, .ct = m->aux};
        return PTL_OK;
    case PTLX_LE_APPEND:
        return p->used ? le_append(nic, n, m) : PTL_ARG_INVALID;
    case PTLX_LE_UNLINK:
        return le_unlink(n, m);
    case PTLX_SEARCH: {
        if (!p->used)
            return PTL_ARG_INVALID;
        struct nle e;
        entry_of(m, &e);
        return ptln_search(nic, m->src, p, pt, ptlx_ni(m->hlen), &e, m->key == PTL_SEARCH_DELETE);
    }
    default:
        return PTL_ARG_INVALID;
    }
}

void ptln_control(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m)
{
    uint64_t imm = 0;
    int st = control(nic, s, m, &imm);
    emu_nic_ack(nic, m, st, imm);
}
