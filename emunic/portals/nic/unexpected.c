/* The overflow side of a portal table entry: operations an overflow entry
 * took are remembered as unexpected headers, oldest first, until a
 * priority append or a search claims them (the MPI "unexpected message"
 * path). A claim posts the *_OVERFLOW event that tells the application
 * where the data already is. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptl_nic.h"

void ptln_uh_record(struct npt *p, struct nle *owner, const struct emu_msg *m, ptl_process_t from, uint64_t start,
                    uint64_t mlen)
{
    struct nuh *h = emu_shared_alloc_near(p, sizeof *h);
    if (!h)
        return;
    h->owner = owner;
    owner->uh_refs++;
    p->nuh++;
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

void ptln_le_free(struct nle *e)
{
    if (e->uh_refs)
        e->gone = true;
    else
        emu_shared_free(e);
}

void ptln_entry_event(struct emu_nic *nic, uint32_t rank, const struct npt *p, uint32_t pt, const struct nle *e,
                      uint8_t type, bool overflow)
{
    ptl_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.user_ptr = (void *)(uintptr_t)e->user_ptr;
    ev.pt_index = pt;
    ev.ptl_list = overflow ? PTL_OVERFLOW_LIST : PTL_PRIORITY_LIST;
    ev.ni_fail_type = PTL_NI_OK;
    ptln_eq_post(nic, rank, p->eq, &ev);
}

void ptln_le_used_up(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, struct nle *e, bool overflow)
{
    if (p->eq && !(e->options & PTL_LE_EVENT_UNLINK_DISABLE)) {
        ptln_entry_event(nic, rank, p, pt, e, PTL_EVENT_AUTO_UNLINK, overflow);
        e->auto_free = overflow;
    }
    if (e->auto_free && !e->uh_refs)
        ptln_entry_event(nic, rank, p, pt, e, PTL_EVENT_AUTO_FREE, true);
    ptln_le_free(e);
}

/* A header is gone: the last one of a gone entry frees it. nic NULL: the
 * PT is being torn down, no events. */
static void release(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, struct nuh *h)
{
    struct nle *e = h->owner;
    emu_shared_free(h);
    p->nuh--;
    if (!e || --e->uh_refs || !e->gone)
        return;
    if (nic && e->auto_free)
        ptln_entry_event(nic, rank, p, pt, e, PTL_EVENT_AUTO_FREE, true);
    emu_shared_free(e);
}

void ptln_uh_clear(struct npt *p)
{
    while (p->uh) {
        struct nuh *n = p->uh->next;
        release(NULL, 0, p, 0, p->uh);
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

/* PTL_LE_EVENT_CT_OVERFLOW: a counter on the claiming or searching entry
 * counts each header it finds (events or bytes) and, as Portals 4.3 has
 * it, one failure when a search has looked through the whole list (a
 * use-once entry: only when it found nothing), so that a program can
 * wait for the search to be over. */
static bool counts(const struct nle *e)
{
    return e->ct && (e->options & PTL_LE_EVENT_CT_OVERFLOW);
}

static void count_found(struct emu_nic *nic, uint32_t rank, const struct nle *e, const struct nuh *h)
{
    if (counts(e))
        ptln_ct_add(nic, rank, e->ct, (e->options & PTL_LE_EVENT_CT_BYTES) ? h->mlength : 1, 0);
}

static void count_end(struct emu_nic *nic, uint32_t rank, const struct nle *e, int found)
{
    if (counts(e) && (found == 0 || !(e->options & PTL_LE_USE_ONCE)))
        ptln_ct_add(nic, rank, e->ct, 0, 1);
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
        if (!(e->options & PTL_LE_EVENT_OVER_DISABLE))
            post(nic, rank, p, pt, h, (uint8_t)(ptln_event_type(h->kind) + 1), e->user_ptr, PTL_NI_OK);
        count_found(nic, rank, e, h);
        *l = h->next;
        release(nic, rank, p, pt, h);
        n++;
        if (stop_after_one)
            break;
    }
    return n;
}

bool ptln_uh_claim(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, struct nle *e)
{
    bool once = (e->options & PTL_LE_USE_ONCE) != 0;
    if (claim(nic, rank, p, pt, ni, e, once) == 0 || !once)
        return false;
    ptln_le_used_up(nic, rank, p, pt, e, false);
    return true;
}

/* PtlLESearch/PtlMESearch: a PTL_EVENT_SEARCH for every header found
 * (the first only, use-once), or one saying none was; PTL_SEARCH_DELETE
 * claims what it finds as an append would. */
int ptln_search(struct emu_nic *nic, uint32_t rank, struct npt *p, uint32_t pt, uint32_t ni, const struct nle *e,
                int delete_op)
{
    bool once = (e->options & PTL_LE_USE_ONCE) != 0;
    bool report = !(e->options & PTL_LE_EVENT_COMM_DISABLE);
    int found = 0;
    if (delete_op) {
        found = claim(nic, rank, p, pt, ni, e, once);
    } else {
        for (const struct nuh *h = p->uh; h; h = h->next) {
            if (!claims(e, h, ni))
                continue;
            if (report)
                post(nic, rank, p, pt, h, PTL_EVENT_SEARCH, e->user_ptr, PTL_NI_OK);
            count_found(nic, rank, e, h);
            if (++found && once)
                break;
        }
    }
    if (!found && report)
        post(nic, rank, p, pt, NULL, PTL_EVENT_SEARCH, e->user_ptr, PTL_NI_NO_MATCH);
    count_end(nic, rank, e, found);
    return PTL_OK;
}
