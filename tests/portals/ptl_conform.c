/* What the Portals 4 reference's conformance tests found, pinned:
 *  1. before PtlInit, and after the last PtlFini, every call (but
 *     PtlHandleIsEqual) returns PTL_NO_INIT at once, waits included;
 *     PtlInit/PtlFini are counted;
 *  2. an MD's EQ and counter, and an LE's or ME's counter, belong to the
 *     NI they are bound or appended on: another NI's are PTL_ARG_INVALID;
 *  3. an ack needs a place to land: PTL_ACK_REQ on an MD without an EQ,
 *     PTL_CT_ACK_REQ on one without a counter, are PTL_ARG_INVALID;
 *  4. an operation that finds no entry is PTL_NI_DROPPED (PTL_NI_NO_MATCH
 *     is the search's word), counts as a failure on a counting ack, and
 *     raises PTL_SR_DROP_COUNT;
 *  5. ACK and REPLY events report the list whose entry took the operation;
 *  6. max_unexpected_headers: agreed, and enforced per NI: past it, a
 *     PTL_PT_FLOWCTRL entry disables itself (PTL_EVENT_PT_DISABLED at the
 *     target, PTL_NI_PT_DISABLED at the initiator) until the headers are
 *     claimed and PtlPTEnable; without flow control the operation is
 *     dropped.
 * Every rank is its own target (logical NIs, identity map). */
#include "ptest.h"

#define LEN 8    /* every put, get and atomic: 8 bytes */
#define TAG 0x5a /* match bits of the matching NI's entries */

static ptl_process_t self;
static ptl_ni_limits_t ours; /* what a NULL desired gets */

/* Distinct user_ptrs. */
static char tags[32];
#define UP(k) ((void *)&tags[k])
enum { U_OVF, U_PRI, U_A, U_B, U_C, U_D, U_E, U_F, U_G, U_H };

#define NI_NM (PTL_NI_NO_MATCHING | PTL_NI_LOGICAL)
#define NI_M (PTL_NI_MATCHING | PTL_NI_LOGICAL)

/* The next event of eq: an ACK or REPLY, waited for as long as the
 * harness waits for anything. */
static ptl_event_t next_ev(ptl_handle_eq_t eq)
{
    ptl_event_t ev;
    memset(&ev, 0, sizeof ev);
    WAIT_EVENT(eq, &ev);
    return ev;
}

/* An event the target posted before it answered (the operation's ACK or
 * REPLY is in), or that a synchronous call (append) posted: it is there,
 * or comes within POSTED_MS (a missing one fails here, not at the job's
 * timeout). 0 and a failure if not. */
#define POSTED_MS 5000u
static int posted_(int line, ptl_handle_eq_t eq, ptl_event_t *ev, const char *what)
{
    unsigned int which = 99;
    memset(ev, 0, sizeof *ev);
    int rc = PtlEQPoll(&eq, 1, POSTED_MS, ev, &which);
    if (rc == PTL_OK)
        return 1;
    pt_fail(0, __FILE__, line, what, "PtlEQPoll returned %s: the event is not there (%u ms)", pt_rcname(rc),
            POSTED_MS);
    return 0;
}

static const char *list_name(int l)
{
    return l == PTL_PRIORITY_LIST ? "PTL_PRIORITY_LIST" : l == PTL_OVERFLOW_LIST ? "PTL_OVERFLOW_LIST" : "?";
}

/* The next event of eq must be w, field by field, and (list >= 0) report
 * that list. posted: an event already posted (posted_), else waited for. */
static void expect_ev_(int line, ptl_handle_eq_t eq, struct evwant w, int list, const char *what, int posted)
{
    ptl_event_t ev;
    const char *ctx = pt_ctx("line %d: %s", line, what);
    if (posted) {
        if (!posted_(line, eq, &ev, ctx))
            return;
    } else {
        ev = next_ev(eq);
    }
    w.fields &= ~(unsigned)EV_LIST; /* EV_LIST means priority: checked here */
    CHECK_EVENT(ctx, &ev, &w);
    if (ev.type == w.type && list >= 0)
        CHECK(ev.ptl_list == list, "%s: %s event ptl_list %d, want %s", ctx, pt_evname(ev.type), ev.ptl_list,
              list_name(list));
}
#define EXPECT_EV(eq, w, list, what) expect_ev_(__LINE__, (eq), (w), (list), (what), 0)
#define EXPECT_POSTED(eq, w, list, what) expect_ev_(__LINE__, (eq), (w), (list), (what), 1)

/* A failed ACK / REPLY: type, user_ptr, ni_fail_type (and the PT of an ACK). */
static struct evwant fail_ack(void *uptr, ptl_pt_index_t pt, int fail)
{
    struct evwant w = want_ack(uptr, 0, 0, pt, fail);
    w.fields |= EV_PT;
    return w;
}

/* A target event on this rank from this rank; matching: match bits TAG. */
static struct evwant tgt(int type, void *start, void *uptr, ptl_size_t roff, ptl_pt_index_t pt, int matching)
{
    struct evwant w = want_target(type, start, uptr, 0, LEN, LEN, roff, pt_me, pt);
    if (matching) {
        w.fields = (w.fields & ~(unsigned)EV_MATCH) | EV_MBITS;
        w.match_bits = TAG;
    }
    if (type == PTL_EVENT_ATOMIC || type == PTL_EVENT_FETCH_ATOMIC || type == PTL_EVENT_ATOMIC_OVERFLOW ||
        type == PTL_EVENT_FETCH_ATOMIC_OVERFLOW) {
        w.fields |= EV_AOP;
        w.op = PTL_SUM;
        w.dt = PTL_UINT64_T;
    }
    return w;
}

static ptl_sr_value_t drops(ptl_handle_ni_t ni)
{
    ptl_sr_value_t v = -1;
    OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &v));
    return v;
}

/* An LE (non-matching NI) or an ME with match bits TAG (matching NI). */
static int append(ptl_handle_ni_t ni, int matching, ptl_pt_index_t pt, void *buf, ptl_size_t len, unsigned opts,
                  ptl_handle_ct_t ct, ptl_list_t list, void *uptr, ptl_handle_any_t *h)
{
    if (!matching) {
        ptl_le_t le = pt_le(buf, len, opts, ct, PTL_UID_ANY);
        return PtlLEAppend(ni, pt, &le, list, uptr, h);
    }
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = buf;
    me.length = len;
    me.ct_handle = ct;
    me.uid = PTL_UID_ANY;
    me.options = opts;
    me.match_id.rank = PTL_RANK_ANY;
    me.match_bits = TAG;
    return PtlMEAppend(ni, pt, &me, list, uptr, h);
}

static int unlink_entry(int matching, ptl_handle_any_t h) { return matching ? PtlMEUnlink(h) : PtlLEUnlink(h); }

/* ---- 1. PTL_NO_INIT ---- */

/* Handles to pass: zero before PtlInit, once-valid ones after PtlFini. */
struct stale {
    ptl_handle_ni_t ni, mni;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_handle_md_t md;
    ptl_handle_le_t le;
    ptl_handle_me_t me;
    ptl_pt_index_t pt;
};

#define NOINIT(call) EXPECT_RC(PTL_NO_INIT, call)
/* a wait must return at once: the watchdog ends the program if not */
#define NOINIT_WAIT(call)                                                      \
    do {                                                                       \
        pt_watch(#call " without PtlInit");                                    \
        long t0_ = pt_now_ms();                                                \
        NOINIT(call);                                                          \
        pt_unwatch();                                                          \
        CHECK(pt_now_ms() - t0_ < 2000, "%s took %ld ms, want at once", #call, pt_now_ms() - t0_); \
    } while (0)

static void t_no_init(const char *when, const struct stale *s)
{
    static uint64_t buf[4];
    uint64_t operand = 0;
    ptl_process_t id, map[1] = {pt_phys(pt_me)};
    ptl_uid_t uid;
    ptl_pt_index_t pti;
    ptl_handle_ni_t nih;
    ptl_handle_md_t mdh;
    ptl_handle_le_t leh;
    ptl_handle_eq_t eqh = s->eq;
    ptl_handle_ct_t cth = s->ct;
    ptl_ni_limits_t lim;
    ptl_sr_value_t sr;
    ptl_size_t msz, test = 1;
    ptl_event_t ev;
    ptl_ct_event_t cte = {0, 0}, one = {1, 0};
    unsigned int which;
    ptl_md_t md = pt_md(buf, sizeof buf, 0, PTL_EQ_NONE, PTL_CT_NONE);
    ptl_le_t le = pt_le(buf, sizeof buf, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = buf;
    me.length = sizeof buf;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT;
    me.match_id.rank = PTL_RANK_ANY;

    NOTE("%s: every call must return PTL_NO_INIT", when);
    NOINIT(PtlNIInit(PTL_IFACE_DEFAULT, NI_NM, PTL_PID_ANY, NULL, &lim, &nih));
    NOINIT(PtlNIFini(s->ni));
    NOINIT(PtlNIStatus(s->ni, PTL_SR_DROP_COUNT, &sr));
    NOINIT(PtlNIHandle(s->md, &nih));
    NOINIT(PtlSetMap(s->ni, 1, map));
    NOINIT(PtlGetMap(s->ni, 1, map, &msz));
    NOINIT(PtlGetUid(s->ni, &uid));
    NOINIT(PtlGetId(s->ni, &id));
    NOINIT(PtlGetPhysId(s->ni, &id));
    NOINIT(PtlPTAlloc(s->ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &pti));
    NOINIT(PtlPTDisable(s->ni, s->pt));
    NOINIT(PtlPTEnable(s->ni, s->pt));
    NOINIT(PtlPTFree(s->ni, s->pt));
    NOINIT(PtlMDBind(s->ni, &md, &mdh));
    NOINIT(PtlMDRelease(s->md));
    NOINIT(PtlLEAppend(s->ni, s->pt, &le, PTL_PRIORITY_LIST, NULL, &leh));
    NOINIT(PtlMEAppend(s->mni, s->pt, &me, PTL_PRIORITY_LIST, NULL, &leh));
    NOINIT(PtlLESearch(s->ni, s->pt, &le, PTL_SEARCH_ONLY, NULL));
    NOINIT(PtlMESearch(s->mni, s->pt, &me, PTL_SEARCH_DELETE, NULL));
    NOINIT(PtlLEUnlink(s->le));
    NOINIT(PtlMEUnlink(s->me));
    NOINIT(PtlEQAlloc(s->ni, 8, &eqh));
    NOINIT(PtlEQFree(s->eq));
    NOINIT(PtlEQGet(s->eq, &ev));
    NOINIT_WAIT(PtlEQWait(s->eq, &ev));
    NOINIT_WAIT(PtlEQPoll(&eqh, 1, PTL_TIME_FOREVER, &ev, &which));
    NOINIT(PtlCTAlloc(s->ni, &cth));
    NOINIT(PtlCTFree(s->ct));
    NOINIT(PtlCTGet(s->ct, &cte));
    NOINIT_WAIT(PtlCTWait(s->ct, 1, &cte));
    NOINIT_WAIT(PtlCTPoll(&cth, &test, 1, PTL_TIME_FOREVER, &cte, &which));
    NOINIT(PtlCTSet(s->ct, cte));
    NOINIT(PtlCTInc(s->ct, one));
    NOINIT(PtlCTCancelTriggered(s->ct));
    NOINIT(PtlPut(s->md, 0, LEN, PTL_NO_ACK_REQ, self, s->pt, 0, 0, NULL, 0));
    NOINIT(PtlGet(s->md, 0, LEN, self, s->pt, 0, 0, NULL));
    NOINIT(PtlAtomic(s->md, 0, LEN, PTL_NO_ACK_REQ, self, s->pt, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    NOINIT(PtlFetchAtomic(s->md, 0, s->md, 8, LEN, self, s->pt, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    NOINIT(PtlSwap(s->md, 0, s->md, 8, LEN, self, s->pt, 0, 0, NULL, 0, &operand, PTL_CSWAP, PTL_UINT64_T));
    NOINIT(PtlTriggeredPut(s->md, 0, LEN, PTL_NO_ACK_REQ, self, s->pt, 0, 0, NULL, 0, s->ct, 1));
    NOINIT(PtlTriggeredGet(s->md, 0, LEN, self, s->pt, 0, 0, NULL, s->ct, 1));
    NOINIT(PtlTriggeredAtomic(s->md, 0, LEN, PTL_NO_ACK_REQ, self, s->pt, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T,
                              s->ct, 1));
    NOINIT(PtlTriggeredFetchAtomic(s->md, 0, s->md, 8, LEN, self, s->pt, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T,
                                   s->ct, 1));
    NOINIT(PtlTriggeredSwap(s->md, 0, s->md, 8, LEN, self, s->pt, 0, 0, NULL, 0, &operand, PTL_CSWAP,
                            PTL_UINT64_T, s->ct, 1));
    NOINIT(PtlTriggeredCTInc(s->ct, one, s->ct, 1));
    NOINIT(PtlTriggeredCTSet(s->ct, one, s->ct, 1));
    NOINIT(PtlStartBundle(s->ni));
    NOINIT(PtlEndBundle(s->ni));
    NOINIT(PtlAtomicSync());
    /* needs no library state */
    CHECK(PtlHandleIsEqual(PTL_EQ_NONE, PTL_EQ_NONE), "%s: PtlHandleIsEqual(h, h) is 0", when);
    CHECK(PtlHandleIsEqual(s->md, s->md), "%s: PtlHandleIsEqual(md, md) is 0", when);
    CHECK(!PtlHandleIsEqual(PTL_EQ_NONE, PTL_CT_NONE), "%s: PTL_EQ_NONE equals PTL_CT_NONE", when);
    CHECK(!PtlHandleIsEqual(PTL_INVALID_HANDLE, s->ni), "%s: PTL_INVALID_HANDLE equals an NI handle", when);
    /* nothing was written through the output arguments */
    CHECK(eqh == s->eq && cth == s->ct, "%s: PtlEQAlloc/PtlCTAlloc wrote a handle", when);
}

/* PtlInit twice, PtlFini once: still initialised; a working session whose
 * handles are kept; the last PtlFini: PTL_NO_INIT again. */
static void t_init_fini(void)
{
    struct stale s;
    memset(&s, 0, sizeof s);
    PtlFini(); /* before any PtlInit: nothing to end, and no count below zero */
    t_no_init("before PtlInit", &s);

    OK(PtlInit());
    OK(PtlInit());
    PtlFini(); /* counted: one PtlInit still holds */
    static uint64_t buf[8];
    OK(PtlNIInit(PTL_IFACE_DEFAULT, NI_NM, PTL_PID_ANY, NULL, &ours, &s.ni));
    OK(PtlNIInit(PTL_IFACE_DEFAULT, NI_M, PTL_PID_ANY, NULL, NULL, &s.mni));
    OK(PtlEQAlloc(s.ni, 8, &s.eq));
    OK(PtlCTAlloc(s.ni, &s.ct));
    OK(PtlPTAlloc(s.ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &s.pt));
    ptl_pt_index_t mpt;
    OK(PtlPTAlloc(s.mni, 0, PTL_EQ_NONE, s.pt, &mpt));
    ptl_md_t md = pt_md(buf, sizeof buf, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, s.eq, s.ct);
    OK(PtlMDBind(s.ni, &md, &s.md));
    OK(append(s.ni, 0, s.pt, buf, sizeof buf, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE,
              PTL_PRIORITY_LIST, NULL, &s.le));
    OK(append(s.mni, 1, mpt, buf, sizeof buf, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL, &s.me));
    /* the session works: a put to myself and its ack */
    OK(PtlPut(s.md, 0, LEN, PTL_ACK_REQ, self, s.pt, 0, 0, UP(U_A), 0));
    EXPECT_EV(s.eq, want_ack(UP(U_A), LEN, 0, s.pt, PTL_NI_OK), PTL_PRIORITY_LIST, "put in the first session");
    EXPECT_CT(s.ct, 1, 0);
    OK(PtlLEUnlink(s.le));
    OK(PtlMEUnlink(s.me));
    OK(PtlMDRelease(s.md));
    OK(PtlPTFree(s.ni, s.pt));
    OK(PtlPTFree(s.mni, mpt));
    OK(PtlCTFree(s.ct));
    OK(PtlEQFree(s.eq));
    OK(PtlNIFini(s.mni));
    OK(PtlNIFini(s.ni));
    PtlFini();
    t_no_init("after the last PtlFini", &s);
    PtlFini(); /* one too many: harmless */
    NOINIT(PtlGetUid(s.ni, &(ptl_uid_t){0}));

    /* one PtlInit starts it all again */
    OK(PtlInit());
}

/* ---- 2. objects of another NI ---- */
static void t_other_ni(ptl_handle_ni_t ni, ptl_handle_ni_t mni)
{
    static uint64_t src[8], dst[8];
    ptl_handle_eq_t eq, meq;
    ptl_handle_ct_t ct, mct;
    OK(PtlEQAlloc(ni, 8, &eq));
    OK(PtlEQAlloc(mni, 8, &meq));
    OK(PtlCTAlloc(ni, &ct));
    OK(PtlCTAlloc(mni, &mct));
    ptl_handle_md_t md, mmd, x;
    const unsigned o = PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE;

    /* MDs: EQ and counter of the NI they are bound on */
    ptl_md_t d = pt_md(src, sizeof src, o, meq, PTL_CT_NONE);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &x)); /* EQ of the matching NI */
    d = pt_md(src, sizeof src, o, PTL_EQ_NONE, mct);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &x)); /* counter of the matching NI */
    d = pt_md(src, sizeof src, o, eq, mct);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &x)); /* own EQ, other counter */
    d = pt_md(src, sizeof src, o, meq, ct);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &x)); /* other EQ, own counter */
    d = pt_md(src, sizeof src, o, eq, PTL_CT_NONE);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(mni, &d, &x)); /* and the other way round */
    d = pt_md(src, sizeof src, o, PTL_EQ_NONE, ct);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(mni, &d, &x));
    d = pt_md(src, sizeof src, o, eq, ct);
    OK(PtlMDBind(ni, &d, &md));
    d = pt_md(src, sizeof src, o, meq, mct);
    OK(PtlMDBind(mni, &d, &mmd));

    /* a portal table entry's EQ, and a searching entry's counter, are of
     * its own NI too */
    ptl_pt_index_t p, mp;
    EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, meq, PTL_PT_ANY, &p));
    EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(mni, PTL_PT_FLOWCTRL, eq, PTL_PT_ANY, &mp));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    {
        ptl_le_t sle = pt_le(dst, sizeof dst, PTL_LE_OP_PUT | PTL_LE_EVENT_CT_OVERFLOW, mct, PTL_UID_ANY);
        EXPECT_RC(PTL_ARG_INVALID, PtlLESearch(ni, p, &sle, PTL_SEARCH_ONLY, NULL));
        EXPECT_CT_NOW(mct, 0, 0); /* and the other NI's counter was not touched */
    }

    /* LEs and MEs: a counter of the NI they are appended on */
    OK(PtlPTAlloc(mni, 0, PTL_EQ_NONE, PTL_PT_ANY, &mp));
    const unsigned lo = PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM;
    ptl_handle_any_t le, me, h;
    for (ptl_list_t l = PTL_PRIORITY_LIST; l <= PTL_OVERFLOW_LIST; l++) {
        EXPECT_RC(PTL_ARG_INVALID, append(ni, 0, p, dst, sizeof dst, lo, mct, l, NULL, &h));
        EXPECT_RC(PTL_ARG_INVALID, append(mni, 1, mp, dst, sizeof dst, lo, ct, l, NULL, &h));
    }
    OK(append(ni, 0, p, dst, sizeof dst, lo, ct, PTL_PRIORITY_LIST, NULL, &le));
    OK(append(mni, 1, mp, dst, sizeof dst, lo, mct, PTL_PRIORITY_LIST, NULL, &me));

    /* the accepted ones work: a counting-ack put on each NI counts the
     * entry's delivery and the ack on the NI's own counter */
    OK(PtlPut(md, 0, LEN, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0));
    OK(PtlPut(mmd, 0, LEN, PTL_CT_ACK_REQ, self, mp, TAG, 0, NULL, 0));
    EXPECT_CT(ct, 2, 0);
    EXPECT_CT(mct, 2, 0);
    EXPECT_EMPTY(eq, "counting acks post no event");
    EXPECT_EMPTY(meq, "counting acks post no event");

    OK(PtlLEUnlink(le));
    OK(PtlMEUnlink(me));
    OK(PtlPTFree(ni, p));
    OK(PtlPTFree(mni, mp));
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(mmd));
    OK(PtlCTFree(ct));
    OK(PtlCTFree(mct));
    OK(PtlEQFree(eq));
    OK(PtlEQFree(meq));
}

/* ---- 3. an ack needs a place to land ---- */
static void t_ack_place(ptl_handle_ni_t ni)
{
    static uint64_t src[4], dst[16];
    ptl_handle_eq_t eq;
    ptl_handle_ct_t lct, mct, tct;
    OK(PtlEQAlloc(ni, 16, &eq));
    OK(PtlCTAlloc(ni, &lct));
    OK(PtlCTAlloc(ni, &mct));
    OK(PtlCTAlloc(ni, &tct));
    ptl_pt_index_t p;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    ptl_handle_le_t le;
    OK(append(ni, 0, p, dst, sizeof dst, PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM, lct, PTL_PRIORITY_LIST, NULL, &le));
    ptl_handle_md_t bare, witheq, withct;
    ptl_md_t d = pt_md(src, sizeof src, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &bare));
    d = pt_md(src, sizeof src, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &witheq));
    d = pt_md(src, sizeof src, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, mct);
    OK(PtlMDBind(ni, &d, &withct));
#define PUT(md, ack, roff, u) PtlPut((md), 0, LEN, (ack), self, p, 0, (roff), (u), 0)
#define ATOM(md, ack, roff, u) PtlAtomic((md), 0, LEN, (ack), self, p, 0, (roff), (u), 0, PTL_SUM, PTL_UINT64_T)

    /* neither EQ nor counter: only PTL_NO_ACK_REQ */
    EXPECT_RC(PTL_ARG_INVALID, PUT(bare, PTL_ACK_REQ, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, ATOM(bare, PTL_ACK_REQ, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, PUT(bare, PTL_CT_ACK_REQ, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, ATOM(bare, PTL_CT_ACK_REQ, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID,
              PtlTriggeredPut(bare, 0, LEN, PTL_ACK_REQ, self, p, 0, 0, NULL, 0, tct, 1)); /* checked when posted */
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredAtomic(bare, 0, LEN, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0, PTL_SUM,
                                                  PTL_UINT64_T, tct, 1));
    OK(PUT(bare, PTL_NO_ACK_REQ, 0, NULL));
    OK(ATOM(bare, PTL_NO_ACK_REQ, 8, NULL));
    EXPECT_CT(lct, 2, 0); /* the two accepted ones, and only they, arrived */

    /* an EQ, no counter: full acks, and they arrive */
    OK(PUT(witheq, PTL_ACK_REQ, 16, UP(U_A)));
    EXPECT_EV(eq, want_ack(UP(U_A), LEN, 16, p, PTL_NI_OK), PTL_PRIORITY_LIST, "put, full ack");
    OK(ATOM(witheq, PTL_ACK_REQ, 24, UP(U_B)));
    EXPECT_EV(eq, want_ack(UP(U_B), LEN, 24, p, PTL_NI_OK), PTL_PRIORITY_LIST, "atomic, full ack");
    EXPECT_RC(PTL_ARG_INVALID, PUT(witheq, PTL_CT_ACK_REQ, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, ATOM(witheq, PTL_CT_ACK_REQ, 0, NULL));
    OK(PUT(witheq, PTL_NO_ACK_REQ, 32, UP(U_C)));
    EXPECT_CT(lct, 5, 0);
    EXPECT_EMPTY(eq, "no ack was asked for");

    /* a counter, no EQ: counting acks */
    OK(PUT(withct, PTL_CT_ACK_REQ, 40, NULL));
    EXPECT_CT(mct, 1, 0);
    OK(ATOM(withct, PTL_CT_ACK_REQ, 48, NULL));
    EXPECT_CT(mct, 2, 0);
    EXPECT_RC(PTL_ARG_INVALID, PUT(withct, PTL_ACK_REQ, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, ATOM(withct, PTL_ACK_REQ, 0, NULL));
    OK(PUT(withct, PTL_NO_ACK_REQ, 56, NULL));
    EXPECT_CT(lct, 8, 0);
    EXPECT_CT_NOW(mct, 2, 0);
    EXPECT_CT_NOW(tct, 0, 0);
    EXPECT_EMPTY(eq, "at the end");
#undef PUT
#undef ATOM
    OK(PtlCTCancelTriggered(tct)); /* nothing may be held on it */
    OK(PtlLEUnlink(le));
    OK(PtlPTFree(ni, p));
    OK(PtlMDRelease(bare));
    OK(PtlMDRelease(witheq));
    OK(PtlMDRelease(withct));
    OK(PtlCTFree(lct));
    OK(PtlCTFree(mct));
    OK(PtlCTFree(tct));
    OK(PtlEQFree(eq));
}

/* ---- 4. no entry: dropped ---- */
static void t_dropped(ptl_handle_ni_t ni, int matching)
{
    static uint64_t src[4], dst[4];
    const char *nik = matching ? "matching NI" : "non-matching NI";
    ptl_handle_eq_t teq, ieq;
    ptl_handle_ct_t mct;
    OK(PtlEQAlloc(ni, 16, &teq));
    OK(PtlEQAlloc(ni, 16, &ieq));
    OK(PtlCTAlloc(ni, &mct));
    ptl_pt_index_t p;
    OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &p));
    ptl_handle_any_t le = PTL_INVALID_HANDLE;
    /* matching: an ME that takes other match bits; non-matching: none */
    if (matching) {
        OK(append(ni, 1, p, dst, sizeof dst, PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                  PTL_PRIORITY_LIST, UP(U_PRI), &le));
    }
    const ptl_match_bits_t bits = matching ? TAG + 1 : 0;
    ptl_handle_md_t md;
    ptl_md_t d = pt_md(src, sizeof src, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_SEND_DISABLE, ieq,
                       mct);
    OK(PtlMDBind(ni, &d, &md));
    ptl_sr_value_t d0 = drops(ni);

    /* a full ack: PTL_NI_DROPPED, and the MD's counter counts it failed */
    OK(PtlPut(md, 0, LEN, PTL_ACK_REQ, self, p, bits, 0, UP(U_A), 0));
    EXPECT_EV(ieq, fail_ack(UP(U_A), p, PTL_NI_DROPPED), -1, pt_ctx("%s: put, full ack", nik));
    EXPECT_CT(mct, 0, 1);
    CHECK(drops(ni) == d0 + 1, "%s: PTL_SR_DROP_COUNT %d, want %d", nik, drops(ni), d0 + 1);
    /* a counting ack: one failure, no event */
    OK(PtlPut(md, 0, LEN, PTL_CT_ACK_REQ, self, p, bits, 0, UP(U_B), 0));
    EXPECT_CT(mct, 0, 2);
    CHECK(drops(ni) == d0 + 2, "%s: PTL_SR_DROP_COUNT %d, want %d", nik, drops(ni), d0 + 2);
    EXPECT_EMPTY(ieq, "%s: a counting ack posts no event", nik);
    /* a get and an atomic the same */
    OK(PtlGet(md, 8, LEN, self, p, bits, 0, UP(U_C)));
    EXPECT_EV(ieq, want_reply(UP(U_C), 0, PTL_NI_DROPPED), -1, pt_ctx("%s: get", nik));
    EXPECT_CT(mct, 0, 3);
    OK(PtlAtomic(md, 0, LEN, PTL_ACK_REQ, self, p, bits, 0, UP(U_D), 0, PTL_SUM, PTL_UINT64_T));
    EXPECT_EV(ieq, fail_ack(UP(U_D), p, PTL_NI_DROPPED), -1, pt_ctx("%s: atomic", nik));
    EXPECT_CT(mct, 0, 4);
    CHECK(drops(ni) == d0 + 4, "%s: PTL_SR_DROP_COUNT %d, want %d", nik, drops(ni), d0 + 4);
    EXPECT_EMPTY(teq, "%s: a dropped operation leaves the target no event", nik);
    CHECK_BYTES(dst, 0, sizeof dst, "%s: the entry of other match bits", nik);

    if (matching) { /* the ME takes its own bits */
        src[0] = 77;
        OK(PtlPut(md, 0, LEN, PTL_ACK_REQ, self, p, TAG, 0, UP(U_E), 0));
        EXPECT_EV(ieq, want_ack(UP(U_E), LEN, 0, p, PTL_NI_OK), PTL_PRIORITY_LIST, "matching put");
        EXPECT_POSTED(teq, tgt(PTL_EVENT_PUT, dst, UP(U_PRI), 0, p, 1), PTL_PRIORITY_LIST, "matching put");
        EXPECT_CT(mct, 1, 4);
        CHECK(dst[0] == 77, "matching put: %llu", (unsigned long long)dst[0]);
        CHECK(drops(ni) == d0 + 4, "%s: PTL_SR_DROP_COUNT %d after a delivery, want %d", nik, drops(ni), d0 + 4);
        OK(PtlMEUnlink(le));
    }
    EXPECT_EMPTY(teq, "%s: at the end", nik);
    EXPECT_EMPTY(ieq, "%s: at the end", nik);
    OK(PtlMDRelease(md));
    OK(PtlPTFree(ni, p));
    OK(PtlCTFree(mct));
    OK(PtlEQFree(teq));
    OK(PtlEQFree(ieq));
}

/* ---- 5. the list that took it ---- */
static void t_list(ptl_handle_ni_t ni, int matching)
{
    static uint64_t src[8], got[8], ovf[8], pri[8];
    const char *nik = matching ? "matching NI" : "non-matching NI";
    const ptl_match_bits_t bits = matching ? TAG : 0;
    ptl_handle_eq_t teq, ieq;
    OK(PtlEQAlloc(ni, 32, &teq));
    OK(PtlEQAlloc(ni, 32, &ieq));
    ptl_pt_index_t p;
    OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &p));
    const unsigned lo = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE;
    ptl_handle_any_t oh, ph;
    OK(append(ni, matching, p, ovf, sizeof ovf, lo, PTL_CT_NONE, PTL_OVERFLOW_LIST, UP(U_OVF), &oh));
    ptl_handle_md_t md;
    ptl_md_t d = pt_md(src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &md));
    ptl_handle_md_t gmd;
    d = pt_md(got, sizeof got, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gmd));

    /* round 0: only the overflow entry; round 1: the priority entry */
    for (int round = 0; round < 2; round++) {
        int list = round ? PTL_PRIORITY_LIST : PTL_OVERFLOW_LIST;
        uint64_t *buf = round ? pri : ovf;
        void *uptr = round ? UP(U_PRI) : UP(U_OVF);
        char lk[64]; /* not a pt_ctx buffer: those rotate */
        snprintf(lk, sizeof lk, "%s, %s entry", nik, round ? "priority" : "overflow");
        for (int k = 0; k < 8; k++) {
            src[k] = 100 * (uint64_t)(round + 1) + (uint64_t)k;
            buf[k] = 1000 + (uint64_t)k;
            got[k] = 0;
        }
        OK(PtlPut(md, 0, LEN, PTL_ACK_REQ, self, p, bits, 0, UP(U_A), 0));
        EXPECT_EV(ieq, want_ack(UP(U_A), LEN, 0, p, PTL_NI_OK), list, pt_ctx("%s: put's ACK", lk));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_PUT, &buf[0], uptr, 0, p, matching), list, pt_ctx("%s: put", lk));
        OK(PtlGet(gmd, 0, LEN, self, p, bits, 16, UP(U_B)));
        EXPECT_EV(ieq, want_reply(UP(U_B), LEN, PTL_NI_OK), list, pt_ctx("%s: get's REPLY", lk));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_GET, &buf[2], uptr, 16, p, matching), list, pt_ctx("%s: get", lk));
        OK(PtlAtomic(md, 8, LEN, PTL_ACK_REQ, self, p, bits, 32, UP(U_C), 0, PTL_SUM, PTL_UINT64_T));
        EXPECT_EV(ieq, want_ack(UP(U_C), LEN, 32, p, PTL_NI_OK), list, pt_ctx("%s: atomic's ACK", lk));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_ATOMIC, &buf[4], uptr, 32, p, matching), list, pt_ctx("%s: atomic", lk));
        OK(PtlFetchAtomic(gmd, 8, md, 16, LEN, self, p, bits, 40, UP(U_D), 0, PTL_SUM, PTL_UINT64_T));
        EXPECT_EV(ieq, want_reply(UP(U_D), LEN, PTL_NI_OK), list, pt_ctx("%s: fetch-atomic's REPLY", lk));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_FETCH_ATOMIC, &buf[5], uptr, 40, p, matching), list,
                      pt_ctx("%s: fetch-atomic", lk));
        CHECK(buf[0] == src[0], "%s: put wrote %llu", lk, (unsigned long long)buf[0]);
        CHECK(got[0] == 1002, "%s: get read %llu", lk, (unsigned long long)got[0]);
        CHECK(buf[4] == 1004 + src[1], "%s: atomic left %llu", lk, (unsigned long long)buf[4]);
        CHECK(buf[5] == 1005 + src[2] && got[1] == 1005, "%s: fetch-atomic left %llu, fetched %llu", lk,
              (unsigned long long)buf[5], (unsigned long long)got[1]);
        EXPECT_EMPTY(teq, "%s", lk);
        EXPECT_EMPTY(ieq, "%s", lk);
        if (round)
            break;
        /* the priority entry claims the four unexpected headers first */
        OK(append(ni, matching, p, pri, sizeof pri, lo, PTL_CT_NONE, PTL_PRIORITY_LIST, UP(U_PRI), &ph));
        struct evwant w = tgt(PTL_EVENT_PUT_OVERFLOW, &ovf[0], UP(U_PRI), 0, p, matching);
        EXPECT_POSTED(teq, w, PTL_OVERFLOW_LIST, pt_ctx("%s: claim the put", nik));
        w = tgt(PTL_EVENT_GET_OVERFLOW, &ovf[2], UP(U_PRI), 16, p, matching);
        w.fields &= ~(unsigned)EV_HDR;
        EXPECT_POSTED(teq, w, PTL_OVERFLOW_LIST, pt_ctx("%s: claim the get", nik));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_ATOMIC_OVERFLOW, &ovf[4], UP(U_PRI), 32, p, matching), PTL_OVERFLOW_LIST,
                      pt_ctx("%s: claim the atomic", nik));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_FETCH_ATOMIC_OVERFLOW, &ovf[5], UP(U_PRI), 40, p, matching),
                      PTL_OVERFLOW_LIST, pt_ctx("%s: claim the fetch-atomic", nik));
        EXPECT_EMPTY(teq, "%s: after the claims", nik);
    }
    OK(unlink_entry(matching, ph));
    OK(unlink_entry(matching, oh));
    OK(PtlPTFree(ni, p));
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(gmd));
    OK(PtlEQFree(teq));
    OK(PtlEQFree(ieq));
}

/* ---- 6. max_unexpected_headers ---- */
#define UH 4

static ptl_handle_ni_t uh_ni(void)
{
    ptl_ni_limits_t d, a;
    memset(&d, 0, sizeof d);
    d.max_unexpected_headers = UH; /* the rest 0: ours */
    memset(&a, 0, sizeof a);
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, NI_NM, PTL_PID_ANY, &d, &a, &ni));
    CHECK(a.max_unexpected_headers == UH, "max_unexpected_headers %d, want %d", a.max_unexpected_headers, UH);
    /* the rest are ours; features: none desired, none granted */
    CHECK(a.max_entries == ours.max_entries && a.max_mds == ours.max_mds && a.max_cts == ours.max_cts &&
              a.max_eqs == ours.max_eqs && a.max_pt_index == ours.max_pt_index &&
              a.max_iovecs == ours.max_iovecs && a.max_list_size == ours.max_list_size &&
              a.max_triggered_ops == ours.max_triggered_ops && a.max_msg_size == ours.max_msg_size &&
              a.max_atomic_size == ours.max_atomic_size &&
              a.max_fetch_atomic_size == ours.max_fetch_atomic_size &&
              a.max_waw_ordered_size == ours.max_waw_ordered_size &&
              a.max_war_ordered_size == ours.max_war_ordered_size &&
              a.max_volatile_size == ours.max_volatile_size && a.features == 0,
          "the other limits: entries %d mds %d cts %d eqs %d msg %llu features 0x%x, want ours (%d %d %d %d %llu 0)",
          a.max_entries, a.max_mds, a.max_cts, a.max_eqs, (unsigned long long)a.max_msg_size, a.features,
          ours.max_entries, ours.max_mds, ours.max_cts, ours.max_eqs, (unsigned long long)ours.max_msg_size);
    return ni;
}

/* Put k (8 bytes of value 500 + k) at offset 8 k; the ACK's ni_fail_type. */
static uint64_t uh_src[16];
static ptl_event_t uh_put(ptl_handle_md_t md, ptl_handle_eq_t ieq, ptl_pt_index_t p, int k)
{
    uh_src[k] = 500 + (uint64_t)k;
    OK(PtlPut(md, (ptl_size_t)k * LEN, LEN, PTL_ACK_REQ, self, p, 0, (ptl_size_t)k * LEN, UP(U_A + (k % 8)), 0));
    ptl_event_t ev = next_ev(ieq);
    CHECK(ev.type == PTL_EVENT_ACK && ev.user_ptr == UP(U_A + (k % 8)), "put %d: %s user_ptr %p", k,
          pt_evname(ev.type), ev.user_ptr);
    return ev;
}

static void expect_uh_ok(ptl_event_t ack, ptl_pt_index_t p, int k, int list, const char *what)
{
    CHECK(ack.ni_fail_type == PTL_NI_OK && ack.mlength == LEN && ack.remote_offset == (ptl_size_t)k * LEN &&
              ack.pt_index == p && ack.ptl_list == list,
          "%s: put %d's ACK: %s mlength %llu offset %llu pt %u list %d, want PTL_NI_OK %d %llu %u %s", what, k,
          pt_failname(ack.ni_fail_type), (unsigned long long)ack.mlength, (unsigned long long)ack.remote_offset,
          ack.pt_index, ack.ptl_list, LEN, (unsigned long long)k * LEN, p, list_name(list));
}

static void expect_uh_fail(ptl_event_t ack, int k, int fail, const char *what)
{
    CHECK(ack.ni_fail_type == fail, "%s: put %d's ACK %s, want %s", what, k, pt_failname(ack.ni_fail_type),
          pt_failname(fail));
}

/* The target's PTL_EVENT_PT_DISABLED: posted before the refused put's
 * ACK came back. */
static void expect_pt_disabled_(int line, ptl_handle_eq_t teq, ptl_pt_index_t p, const char *what)
{
    ptl_event_t ev;
    const char *ctx = pt_ctx("line %d: %s", line, what);
    if (!posted_(line, teq, &ev, ctx))
        return;
    CHECK(ev.type == PTL_EVENT_PT_DISABLED && ev.pt_index == p && ev.ni_fail_type == PTL_NI_PT_DISABLED &&
              ev.initiator.rank == pt_me,
          "%s: %s pt %u ni_fail %s initiator %u, want PT_DISABLED %u PTL_NI_PT_DISABLED %u", ctx,
          pt_evname(ev.type), ev.pt_index, pt_failname(ev.ni_fail_type), ev.initiator.rank, p, pt_me);
}
#define EXPECT_PT_DISABLED(teq, p, what) expect_pt_disabled_(__LINE__, (teq), (p), (what))

/* flow: with PTL_PT_FLOWCTRL (the entry disables itself) or without (the
 * header is dropped). */
static void t_uh(int flow)
{
    static uint64_t ovf[16], pri[16];
    const char *fk = flow ? "PTL_PT_FLOWCTRL" : "no flow control";
    ptl_handle_ni_t ni = uh_ni();
    ptl_handle_eq_t teq, ieq;
    OK(PtlEQAlloc(ni, 64, &teq));
    OK(PtlEQAlloc(ni, 64, &ieq));
    ptl_pt_index_t p;
    OK(PtlPTAlloc(ni, flow ? PTL_PT_FLOWCTRL : 0, teq, flow ? 3 : 9, &p));
    ptl_handle_le_t oh, ph;
    OK(append(ni, 0, p, ovf, sizeof ovf, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_OVERFLOW_LIST,
              UP(U_OVF), &oh));
    ptl_handle_md_t md;
    ptl_md_t d = pt_md(uh_src, sizeof uh_src, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &md));
    memset(ovf, 0xee, sizeof ovf);
    memset(pri, 0xee, sizeof pri);
    ptl_sr_value_t d0 = drops(ni);

    /* UH puts land in the overflow entry */
    for (int k = 0; k < UH; k++) {
        ptl_event_t ack = uh_put(md, ieq, p, k);
        expect_uh_ok(ack, p, k, PTL_OVERFLOW_LIST, fk);
        EXPECT_POSTED(teq, tgt(PTL_EVENT_PUT, &ovf[k], UP(U_OVF), (ptl_size_t)k * LEN, p, 0), PTL_OVERFLOW_LIST,
                      pt_ctx("%s: unexpected put %d", fk, k));
        CHECK(ovf[k] == 500 + (uint64_t)k, "%s: put %d wrote %llu", fk, k, (unsigned long long)ovf[k]);
    }
    EXPECT_EMPTY(teq, "%s: %d unexpected puts", fk, UH);
    CHECK(drops(ni) == d0, "%s: PTL_SR_DROP_COUNT moved by %d with room for the headers", fk, drops(ni) - d0);

    /* the next has no room for its header */
    ptl_event_t ack = uh_put(md, ieq, p, UH);
    if (flow) {
        expect_uh_fail(ack, UH, PTL_NI_PT_DISABLED, fk);
        EXPECT_PT_DISABLED(teq, p, pt_ctx("%s: put %d at the target", fk, UH));
        /* it stays disabled */
        ack = uh_put(md, ieq, p, UH + 1);
        expect_uh_fail(ack, UH + 1, PTL_NI_PT_DISABLED, fk);
        EXPECT_EMPTY(teq, "%s: no second PT_DISABLED while disabled", fk);
        /* enabled while the headers are still held: the next one
         * disables it again */
        OK(PtlPTEnable(ni, p));
        ack = uh_put(md, ieq, p, UH + 2);
        expect_uh_fail(ack, UH + 2, PTL_NI_PT_DISABLED, pt_ctx("%s, enabled with %d headers held", fk, UH));
        EXPECT_PT_DISABLED(teq, p, pt_ctx("%s: put %d, enabled with the headers held", fk, UH + 2));
    } else {
        expect_uh_fail(ack, UH, PTL_NI_DROPPED, fk);
        CHECK(drops(ni) == d0 + 1, "%s: PTL_SR_DROP_COUNT %d, want %d", fk, drops(ni), d0 + 1);
        ack = uh_put(md, ieq, p, UH + 1);
        expect_uh_fail(ack, UH + 1, PTL_NI_DROPPED, fk);
        CHECK(drops(ni) == d0 + 2, "%s: PTL_SR_DROP_COUNT %d, want %d", fk, drops(ni), d0 + 2);
    }
    EXPECT_EMPTY(teq, "%s: the refused puts", fk);
    CHECK_BYTES(&ovf[UH], 0xee, sizeof ovf - UH * sizeof ovf[0], "%s: the refused puts wrote", fk);

    /* a persistent priority entry claims the UH headers (and stays) */
    OK(append(ni, 0, p, pri, sizeof pri, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_PRIORITY_LIST,
              UP(U_PRI), &ph));
    for (int k = 0; k < UH; k++)
        EXPECT_POSTED(teq, tgt(PTL_EVENT_PUT_OVERFLOW, &ovf[k], UP(U_PRI), (ptl_size_t)k * LEN, p, 0),
                      PTL_OVERFLOW_LIST, pt_ctx("%s: claim header %d", fk, k));
    EXPECT_EMPTY(teq, "%s: after the claims", fk);
    if (flow) {
        /* still disabled until enabled */
        ack = uh_put(md, ieq, p, UH + 3);
        expect_uh_fail(ack, UH + 3, PTL_NI_PT_DISABLED, pt_ctx("%s, headers claimed, not enabled", fk));
        EXPECT_EMPTY(teq, "%s: disabled, headers claimed", fk);
        OK(PtlPTEnable(ni, p));
    }
    /* a put lands again, in the priority entry */
    int k = UH + 4;
    ack = uh_put(md, ieq, p, k);
    expect_uh_ok(ack, p, k, PTL_PRIORITY_LIST, pt_ctx("%s, headers claimed", fk));
    EXPECT_POSTED(teq, tgt(PTL_EVENT_PUT, &pri[k], UP(U_PRI), (ptl_size_t)k * LEN, p, 0), PTL_PRIORITY_LIST,
                  pt_ctx("%s: put after the claims", fk));
    CHECK(pri[k] == 500 + (uint64_t)k, "%s: put %d wrote %llu", fk, k, (unsigned long long)pri[k]);

    /* the claims gave the room back: without the priority entry, UH more
     * land in the overflow entry, and the next is refused again */
    OK(PtlLEUnlink(ph));
    for (k = UH + 5; k < 2 * UH + 5; k++) {
        ack = uh_put(md, ieq, p, k);
        expect_uh_ok(ack, p, k, PTL_OVERFLOW_LIST, pt_ctx("%s, after the claims", fk));
        EXPECT_POSTED(teq, tgt(PTL_EVENT_PUT, &ovf[k], UP(U_OVF), (ptl_size_t)k * LEN, p, 0), PTL_OVERFLOW_LIST,
                      pt_ctx("%s: unexpected put %d after the claims", fk, k));
    }
    ack = uh_put(md, ieq, p, k);
    expect_uh_fail(ack, k, flow ? PTL_NI_PT_DISABLED : PTL_NI_DROPPED, pt_ctx("%s, again full", fk));
    if (flow)
        EXPECT_PT_DISABLED(teq, p, pt_ctx("%s: put %d, again full", fk, k));
    CHECK(ovf[k] == 0xeeeeeeeeeeeeeeeeull, "%s: refused put %d wrote %llu", fk, k, (unsigned long long)ovf[k]);
    EXPECT_EMPTY(teq, "%s: at the end", fk);
    EXPECT_EMPTY(ieq, "%s: at the end", fk);

    OK(PtlLEUnlink(oh));
    OK(PtlMDRelease(md));
    OK(PtlPTFree(ni, p));
    OK(PtlEQFree(teq));
    OK(PtlEQFree(ieq));
    OK(PtlNIFini(ni));
}

int main(void)
{
    pt_env();
    self = pt_lrank(pt_me);
    t_init_fini();

    ptl_handle_ni_t ni, mni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, NI_NM, PTL_PID_ANY, NULL, NULL, &ni));
    OK(PtlNIInit(PTL_IFACE_DEFAULT, NI_M, PTL_PID_ANY, NULL, NULL, &mni));
    t_other_ni(ni, mni);
    t_ack_place(ni);
    t_dropped(ni, 0);
    t_dropped(mni, 1);
    t_list(ni, 0);
    t_list(mni, 1);
    OK(PtlNIFini(mni));
    OK(PtlNIFini(ni)); /* the next PtlNIInit agrees limits anew */

    t_uh(1);
    t_uh(0);
    PtlFini();
    return pt_done("ptl_conform");
}
