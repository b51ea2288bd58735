/* Operations this NIC's ranks start: remember what the events will need,
 * send the operation on, and when its result comes back post SEND, ACK
 * and REPLY events and count them on the MDs' counters. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ptl_nic.h"

static uint64_t token_new(struct ptl_nic *s, const struct pending *p)
{
    uint32_t i;
    for (i = 0; i < s->npend && s->pend[i].live; i++)
        ;
    if (i == s->npend) {
        uint32_t n = s->npend ? 2 * s->npend : 256;
        struct pending *g = realloc(s->pend, n * sizeof *g);
        if (!g)
            return 0;
        memset(g + s->npend, 0, (n - s->npend) * sizeof *g);
        s->pend = g;
        s->npend = n;
    }
    uint32_t gen = s->pend[i].gen + 1;
    s->pend[i] = *p;
    s->pend[i].live = true;
    s->pend[i].gen = gen;
    return (uint64_t)gen << 32 | (i + 1);
}

static struct pending *token_find(struct ptl_nic *s, uint64_t t)
{
    uint32_t i = (uint32_t)t - 1;
    if ((uint32_t)t == 0 || i >= s->npend || !s->pend[i].live || s->pend[i].gen != (uint32_t)(t >> 32))
        return NULL;
    return &s->pend[i];
}

static struct nmd *md_of(struct nni *n, uint32_t idx)
{
    return n && n->md && idx < PTLX_MAX_MD && n->md[idx].live ? &n->md[idx] : NULL;
}

static void initiator_event(struct emu_nic *nic, const struct pending *p, const struct nmd *md,
                            uint8_t type, int fail, uint64_t mlen, uint64_t start)
{
    if (!md || !md->eq)
        return;
    bool ok = fail == PTL_NI_OK;
    if (ok && (md->options & PTL_MD_EVENT_SUCCESS_DISABLE))
        return;
    if (type == PTL_EVENT_SEND && (md->options & PTL_MD_EVENT_SEND_DISABLE))
        return;
    ptl_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.start = (void *)(uintptr_t)start;
    ev.user_ptr = (void *)(uintptr_t)p->user_ptr;
    ev.hdr_data = p->hdr_data;
    ev.rlength = p->length;
    ev.mlength = mlen;
    ev.remote_offset = p->remote_offset;
    ev.pt_index = p->pt;
    ev.ptl_list = type == PTL_EVENT_SEND ? PTL_PRIORITY_LIST : (ptl_list_t)p->list;
    ev.ni_fail_type = (ptl_ni_fail_t)fail;
    ptln_eq_post(nic, p->rank, md->eq, &ev);
}

static void count(struct emu_nic *nic, const struct pending *p, const struct nmd *md, unsigned flag,
                  int fail, uint64_t mlen)
{
    if (!md || !md->ct || !(md->options & flag))
        return;
    bool ok = fail == PTL_NI_OK;
    uint64_t success = ok ? ((md->options & PTL_MD_EVENT_CT_BYTES) ? mlen : 1) : 0;
    ptln_ct_add(nic, p->rank, md->ct, success, ok ? 0 : 1);
}

static void send_done(struct emu_nic *nic, const struct pending *p, struct nni *n)
{
    const struct nmd *md = md_of(n, p->put_md);
    initiator_event(nic, p, md, PTL_EVENT_SEND, PTL_NI_OK, p->length, p->put_addr);
    count(nic, p, md, PTL_MD_EVENT_CT_SEND, PTL_NI_OK, p->length);
}

/* A source the library copied into a bounce slot (msg.laddr is the
 * copy): the target reads the copy, the events name the MD's own
 * address, kept in the slot. The slot is the rank's to give: a wrong
 * address is refused by emu_nic_rank_ptr or reaches only the rank's own
 * memory. */
static struct ptlx_bounce *bounce_slot(struct emu_nic *nic, uint32_t rank, uint64_t data)
{
    const uint64_t at = offsetof(struct ptlx_bounce, data);
    if (data < at || (data - at) % _Alignof(struct ptlx_bounce))
        return NULL;
    return emu_nic_rank_ptr(nic, rank, data - at, sizeof(struct ptlx_bounce));
}

static void bounce_start(struct emu_nic *nic, struct pending *p, struct emu_msg *m)
{
    struct ptlx_bounce *b = bounce_slot(nic, p->rank, m->laddr);
    if (!b)
        return; /* not a slot: the target reads what laddr names */
    p->bounce = m->laddr;
    p->put_addr = b->laddr;
    m->dtype &= (uint8_t)~PTLX_D_PUT_IOV;
}

/* The target has read the copy (or never will): the rank may reuse it. */
static void bounce_free(struct emu_nic *nic, uint32_t rank, uint64_t data)
{
    struct ptlx_bounce *b = bounce_slot(nic, rank, data);
    if (!b)
        return;
    atomic_store_explicit(&b->busy, 0, memory_order_release);
    emu_nic_wake(nic, rank);
}

void ptln_start(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m)
{
    struct pending p;
    memset(&p, 0, sizeof p);
    p.kind = m->aop;
    p.rank = m->src;
    p.ni = ptlx_ni(m->hlen);
    p.pt = ptlx_pt(m->hlen);
    p.ack = (uint8_t)ptlx_ack(m->hlen);
    p.put_md = m->key & 0xffff;
    p.get_md = m->key >> 16;
    p.user_ptr = m->cookie;
    p.length = m->len;
    p.remote_offset = m->raddr;
    p.hdr_data = m->imm;
    p.put_addr = m->laddr;
    p.get_addr = m->aux;
    p.inline_data = (m->flags & EMU_F_INLINE) != 0;
    if (p.kind != PTLX_GET && !p.inline_data && (m->dtype & PTLX_D_BOUNCE))
        bounce_start(nic, &p, m);
    struct nni *n = ptln_ni(nic, s, m->src, p.ni);
    bool has_put = p.kind != PTLX_GET, has_get = p.kind == PTLX_GET || p.kind == PTLX_FETCH || p.kind == PTLX_SWAP;
    uint64_t t = 0;
    /* the library checked these; a forged command is dropped */
    if (!n || !n->live || (has_put && !md_of(n, p.put_md)) || (has_get && !md_of(n, p.get_md)) ||
        !(t = token_new(s, &p))) {
        if (p.bounce)
            bounce_free(nic, p.rank, p.bounce);
        return;
    }
    /* an inline payload is in the command already: the buffer is free */
    if (p.inline_data && has_put)
        send_done(nic, &p, n);
    m->cookie = t;
    emu_nic_route(nic, m);
}

void ptln_result(struct emu_nic *nic, struct ptl_nic *s, struct emu_msg *m)
{
    struct pending *p = token_find(s, m->cookie);
    if (!p || p->rank != m->dst)
        return;
    struct pending done = *p;
    p->live = false;
    struct nni *n = ptln_ni(nic, s, done.rank, done.ni);
    /* EMU_E_LOST: the link layer gave up on the operation (--unreliable) */
    int fail = m->status == EMU_E_LOST ? PTL_NI_UNDELIVERABLE : m->status;
    uint64_t mlen = m->len;
    done.remote_offset = m->raddr; /* the offset the target used */
    done.list = m->key == PTL_OVERFLOW_LIST ? PTL_OVERFLOW_LIST : PTL_PRIORITY_LIST;
    bool has_get = done.kind == PTLX_GET || done.kind == PTLX_FETCH || done.kind == PTLX_SWAP;
    if (done.kind != PTLX_GET && !done.inline_data)
        send_done(nic, &done, n); /* the target has read the source */
    if (done.bounce)
        bounce_free(nic, done.rank, done.bounce);
    if (has_get) {
        const struct nmd *md = md_of(n, done.get_md);
        initiator_event(nic, &done, md, PTL_EVENT_REPLY, fail, mlen, done.get_addr);
        count(nic, &done, md, PTL_MD_EVENT_CT_REPLY, fail, mlen);
    } else if (done.ack != PTL_NO_ACK_REQ) {
        const struct nmd *md = md_of(n, done.put_md);
        if (done.ack == PTL_ACK_REQ)
            initiator_event(nic, &done, md, PTL_EVENT_ACK, fail, mlen, done.put_addr);
        count(nic, &done, md, PTL_MD_EVENT_CT_ACK, fail, mlen);
    }
}
