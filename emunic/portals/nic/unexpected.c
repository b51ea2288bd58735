/* The overflow side of a portal table entry: operations an overflow entry
 * took are remembered as unexpected headers, oldest first, until a
 * priority append or a search claims them (the MPI "unexpected message"
 * path). A claim posts the *_OVERFLOW event that tells the application
 * where the data already is. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptl_nic.h"

void ptln_uh_record(struct npt *p, const struct emu_msg *m, ptl_process_t from, uint64_t start, uint64_t mlen)
{
    struct nuh *h = calloc(1, sizeof *h);
    if (!h)
        return;
    h->kind = m->aop;
    h->aop = (uint8_t)ptlx_op(m->hlen);
    h->atype = (uint8_t)ptlx_type(m->hlen);
    h->from = from;
    h->match_bits = m->ext;
    h->rlength = m->len;
    h->mlength = mlen;
    h->remote_offset = m->raddr;
    h->hdr_data = m->imm;
    h->start = start;
    struct nuh **t = &p->uh;
    while (*t)
        t = &(*t)->next;
    *t = h;
}

void ptln_uh_clear(struct npt *p)
{
    while (p->uh) {
        struct nuh *n = p->uh->next;
        free(p->uh);
        p->uh = n;
    }
}

static bool claims(const struct nle *e, const struct nuh *h, uint32_t ni)
{
    return !(ni & 1) || ptln_me_matches(e, h->match_bits, h->remote_offset, h->rlength, ni, h->from);
}

static void post(struct emu_nic *nic, uint32_t rank, const struct npt *p, uint32_t pt, const struct nuh *h,
                 uint8_t type, uint64_t user_ptr, int fail)
{
    ptl_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.user_ptr = (void *)(uintptr_t)user_ptr;
    ev.pt_index = pt;
    ev.ptl_list = PTL_OVERFLOW_LIST;
    ev.ni_fail_type = (ptl_ni_fail_t)fail;
    ev.uid = (ptl_uid_t)getuid();
    if (h) {
        ev.start = (void *)(uintptr_t)h->start;
        ev.hdr_data = h->hdr_data;
        ev.match_bits = h->match_bits;
        ev.rlength = h->rlength;
        ev.mlength = h->mlength;
        ev.remote_offset = h->remote_offset;
        ev.initiator = h->from;
        if (h->kind != PTLX_PUT && h->kind != PTLX_GET) {
            ev.atomic_operation = h->aop;
            ev.atomic_type = h->atype;
        }
    }
    ptln_eq_post(nic, rank, p->eq, &ev);
}

/* Claim (post the overflow event and forget) every header e matches, or
 * only the first when stop_after_one. Returns how many. */
static int claim(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, const struct nle *e,
                 bool stop_after_one)
{
    int n = 0;
    for (struct nuh **l = &p->uh; *l;) {
        struct nuh *h = *l;
        if (!claims(e, h, ni)) {
            l = &h->next;
            continue;
        }
        post(nic, rank, p, pt, h, (uint8_t)(ptln_event_type(h->kind) + 1), e->user_ptr, PTL_NI_OK);
        *l = h->next;
        free(h);
        n++;
        if (stop_after_one)
            break;
    }
    return n;
}

bool ptln_uh_claim(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, const struct nle *e)
{
    bool once = (e->options & PTL_LE_USE_ONCE) != 0;
    return claim(nic, rank, p, pt, ni, e, once) > 0 && once;
}

int ptln_search(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, const struct nle *e,
                int delete_op)
{
    if (delete_op) {
        if (claim(nic, rank, p, pt, ni, e, false) == 0)
            post(nic, rank, p, pt, NULL, PTL_EVENT_SEARCH, e->user_ptr, PTL_NI_NO_MATCH);
        return PTL_OK;
    }
    for (const struct nuh *h = p->uh; h; h = h->next)
        if (claims(e, h, ni)) {
            post(nic, rank, p, pt, h, PTL_EVENT_SEARCH, e->user_ptr, PTL_NI_OK);
            return PTL_OK;
        }
    post(nic, rank, p, pt, NULL, PTL_EVENT_SEARCH, e->user_ptr, PTL_NI_NO_MATCH);
    return PTL_OK;
}
