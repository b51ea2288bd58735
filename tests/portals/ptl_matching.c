/* Matching network interfaces and their match list entries (MEs), run on
 * a logical and on a physical matching NI: tag matching (the list walked
 * in append order, 64-bit match bits, ignore bits); match_id (a specific
 * rank / nid / pid vs the wildcards); USE_ONCE consumption order;
 * NO_TRUNCATE skipping an ME too small for the op; MANAGE_LOCAL offsets,
 * truncation and auto-unlink at min_free; Get, Atomic, FetchAtomic and
 * Swap through MEs; operation and permission violations of the first
 * matching ME; no match; a logical match_id under a permuting PtlSetMap. Every byte of the target buffers and every
 * field of every event is checked, and no event may appear that should
 * not. Then the call-level rules: LEs on matching NIs and MEs on
 * non-matching ones refused, bad options and arguments, unlinking,
 * the not-yet-emulated overflow list, iovecs and searches.
 *
 * Every rank is the target of its left neighbour and the initiator of
 * its right neighbour; the match_id test also puts to itself. The
 * barrier runs over a separate non-matching logical NI, which also shows
 * that a matching NI has its own portal table. */
#include "ptest.h"

#define TBSZ 8192 /* target, source and get buffers */

static uint32_t me, n, right, left;
static ptl_handle_ni_t bni;  /* non-matching logical: the barrier */
static unsigned char *tbuf, *sbuf, *dbuf;
static char tags[32], itags[64];
#define U(i) ((void *)&tags[i])   /* target-side user_ptr of ME i */
#define IU(k) ((void *)&itags[k]) /* initiator-side user_ptr of op k */

/* One matching NI and what the tests need on it. */
struct side {
    const char *name;
    int phys;
    ptl_handle_ni_t ni;
    ptl_handle_eq_t teq, ieq;
    ptl_handle_ct_t tct, ict;
    ptl_handle_md_t smd, dmd, cmd; /* put source, get destination, put source counting acks */
    ptl_pt_index_t pt;
};
static struct side LG = {.name = "logical matching NI", .phys = 0}, PH = {.name = "physical matching NI", .phys = 1};

static ptl_hdr_data_t hdr_of(uint32_t sender, unsigned k)
{
    return 0xbeef000000000000ull | ((uint64_t)sender << 16) | k;
}

static ptl_process_t tgt_of(const struct side *s, uint32_t r) { return s->phys ? pt_phys(r) : pt_lrank(r); }

static ptl_process_t id_any(const struct side *s)
{
    ptl_process_t id;
    memset(&id, 0, sizeof id);
    if (s->phys) {
        id.phys.nid = PTL_NID_ANY;
        id.phys.pid = PTL_PID_ANY;
    } else {
        id.rank = PTL_RANK_ANY;
    }
    return id;
}
static ptl_process_t id_of(const struct side *s, uint32_t r) { return tgt_of(s, r); }
static ptl_process_t id_phys(ptl_nid_t nid, ptl_pid_t pid)
{
    ptl_process_t id;
    memset(&id, 0, sizeof id);
    id.phys.nid = nid;
    id.phys.pid = pid;
    return id;
}

static ptl_me_t mk_me(void *start, ptl_size_t len, unsigned opts, ptl_handle_ct_t ct, ptl_uid_t uid,
                      ptl_process_t id, ptl_match_bits_t bits, ptl_match_bits_t ign, ptl_size_t min_free)
{
    ptl_me_t e;
    memset(&e, 0, sizeof e);
    e.start = start;
    e.length = len;
    e.ct_handle = ct;
    e.uid = uid;
    e.options = opts;
    e.match_id = id;
    e.match_bits = bits;
    e.ignore_bits = ign;
    e.min_free = min_free;
    return e;
}

/* An ME with the usual choices: any initiator, any uid, no counter. */
static ptl_me_t simple_me(const struct side *s, void *start, ptl_size_t len, unsigned opts, ptl_match_bits_t bits)
{
    return mk_me(start, len, opts, PTL_CT_NONE, PTL_UID_ANY, id_any(s), bits, 0, 0);
}

/* PtlMEAppend on s's test PT; the LINK event (unless disabled) must come
 * at once, on the PT's EQ, with the ME's user_ptr. */
static ptl_handle_me_t append_(const char *file, int line, struct side *s, const ptl_me_t *e, void *up)
{
    ptl_handle_me_t h = PTL_INVALID_HANDLE;
    int rc = PtlMEAppend(s->ni, s->pt, e, PTL_PRIORITY_LIST, up, &h);
    if (rc != PTL_OK)
        pt_fail(1, file, line, "PtlMEAppend", "returned %s, want PTL_OK (%s)", pt_rcname(rc), s->name);
    if (!(e->options & PTL_ME_EVENT_LINK_DISABLE)) {
        ptl_event_t ev;
        pt_wait_event_(file, line, s->teq, &ev, "LINK after PtlMEAppend");
        struct evwant w = {0};
        w.type = PTL_EVENT_LINK;
        w.fields = EV_UPTR | EV_PT | EV_FAIL;
        w.user_ptr = up;
        w.pt_index = s->pt;
        w.ni_fail = PTL_NI_OK;
        pt_check_event_(file, line, "LINK after PtlMEAppend", &ev, &w);
    }
    return h;
}
#define APPEND(s, e, up) append_(__FILE__, __LINE__, (s), (e), (up))

/* A target event of an ME: like an LE's, with the op's match bits. */
static struct evwant want_m(const struct side *s, int type, void *start, void *up, ptl_hdr_data_t hdr,
                            ptl_size_t rlen, ptl_size_t mlen, ptl_size_t roff, ptl_match_bits_t bits,
                            uint32_t initiator)
{
    struct evwant w = want_target(type, start, up, hdr, rlen, mlen, roff, initiator, s->pt);
    w.fields &= ~(unsigned)EV_MATCH;
    w.fields |= EV_MBITS;
    w.match_bits = bits;
    if (s->phys) {
        w.fields &= ~(unsigned)EV_INIT;
        w.fields |= EV_INIT_PHYS;
    }
    return w;
}
static struct evwant want_unlink(const struct side *s, void *up)
{
    struct evwant w = {0};
    w.type = PTL_EVENT_AUTO_UNLINK;
    w.fields = EV_UPTR | EV_PT | EV_FAIL | EV_LIST;
    w.user_ptr = up;
    w.pt_index = s->pt;
    w.ni_fail = PTL_NI_OK;
    return w;
}

/* The next target event of s must be as wanted. */
#define TEV(s, ctx, wexpr)                                                     \
    do {                                                                       \
        ptl_event_t ev_;                                                       \
        WAIT_EVENT((s)->teq, &ev_);                                            \
        struct evwant w_ = (wexpr);                                            \
        CHECK_EVENT(pt_ctx("%s: %s", (s)->name, (ctx)), &ev_, &w_);            \
    } while (0)

/* Put len bytes of sbuf+loff to the right neighbour (or to = self) with an
 * ACK_REQ and check the ACK. */
static void put_ack_(const char *file, int line, struct side *s, uint32_t to, const char *ctx, ptl_size_t loff,
                     ptl_size_t len, ptl_match_bits_t bits, ptl_size_t roff, unsigned k, int fail, ptl_size_t mlen,
                     ptl_size_t aroff)
{
    int rc = PtlPut(s->smd, loff, len, PTL_ACK_REQ, tgt_of(s, to), s->pt, bits, roff, IU(k), hdr_of(me, k));
    if (rc != PTL_OK)
        pt_fail(1, file, line, "PtlPut", "returned %s (%s: %s)", pt_rcname(rc), s->name, ctx);
    ptl_event_t ev;
    pt_wait_event_(file, line, s->ieq, &ev, "ACK");
    struct evwant w = want_ack(IU(k), mlen, aroff, s->pt, fail);
    pt_check_event_(file, line, pt_ctx("%s: %s", s->name, ctx), &ev, &w);
}
#define PUT_ACK(s, ctx, loff, len, bits, roff, k, fail, mlen, aroff)                                      \
    put_ack_(__FILE__, __LINE__, (s), right, (ctx), (loff), (len), (bits), (roff), (k), (fail), (mlen), (aroff))

/* Get len bytes into dbuf+loff from the right neighbour; check the REPLY. */
static void get_reply_(const char *file, int line, struct side *s, const char *ctx, ptl_size_t loff, ptl_size_t len,
                       ptl_match_bits_t bits, ptl_size_t roff, unsigned k, int fail, ptl_size_t mlen)
{
    int rc = PtlGet(s->dmd, loff, len, tgt_of(s, right), s->pt, bits, roff, IU(k));
    if (rc != PTL_OK)
        pt_fail(1, file, line, "PtlGet", "returned %s (%s: %s)", pt_rcname(rc), s->name, ctx);
    ptl_event_t ev;
    pt_wait_event_(file, line, s->ieq, &ev, "REPLY");
    struct evwant w = want_reply(IU(k), mlen, fail);
    pt_check_event_(file, line, pt_ctx("%s: %s", s->name, ctx), &ev, &w);
}
#define GET_REPLY(s, ctx, loff, len, bits, roff, k, fail, mlen)                                           \
    get_reply_(__FILE__, __LINE__, (s), (ctx), (loff), (len), (bits), (roff), (k), (fail), (mlen))

/* End of a test: nothing more may be waiting on either side. */
static void quiet_(const char *file, int line, struct side *s, const char *what)
{
    ptl_event_t e;
    int rc;
    while ((rc = PtlEQGet(s->teq, &e)) != PTL_EQ_EMPTY)
        pt_fail(0, file, line, "no further target event",
                "PtlEQGet returned %s with a %s event (user_ptr %p ni_fail %s match_bits 0x%llx) (%s: %s)",
                pt_rcname(rc), pt_evname(e.type), e.user_ptr, pt_failname(e.ni_fail_type),
                (unsigned long long)e.match_bits, s->name, what);
    while ((rc = PtlEQGet(s->ieq, &e)) != PTL_EQ_EMPTY)
        pt_fail(0, file, line, "no further initiator event",
                "PtlEQGet returned %s with a %s event (user_ptr %p ni_fail %s) (%s: %s)", pt_rcname(rc),
                pt_evname(e.type), e.user_ptr, pt_failname(e.ni_fail_type), s->name, what);
}
#define QUIET(s, what) quiet_(__FILE__, __LINE__, (s), (what))


/* =================================================================== */

/* ---- tag matching: two MEs, the puts arrive in the opposite order ---- */
#define BA 0xa5a5000000001111ull
#define BB 0xa5a5000000002222ull
static void t_tags(struct side *s)
{
    memset(tbuf, 0xee, TBSZ);
    ptl_me_t a = simple_me(s, tbuf, 256, PTL_ME_OP_PUT, BA);
    ptl_me_t b = simple_me(s, tbuf + 1024, 256, PTL_ME_OP_PUT, BB);
    ptl_handle_me_t ha = APPEND(s, &a, U(1));
    ptl_handle_me_t hb = APPEND(s, &b, U(2));
    pt_fill(sbuf, me, 10, 100);
    pt_fill(sbuf + 512, me, 11, 60);
    BARRIER();
    PUT_ACK(s, "put with B's bits first", 0, 100, BB, 8, 1, PTL_NI_OK, 100, 8);
    PUT_ACK(s, "put with A's bits second", 512, 60, BA, 4, 2, PTL_NI_OK, 60, 4);
    PUT_ACK(s, "A's bits with the top bit flipped", 0, 16, BA ^ (1ull << 63), 0, 3, PTL_NI_DROPPED, 0, 0);
    PUT_ACK(s, "match bits 0", 0, 16, 0, 0, 4, PTL_NI_DROPPED, 0, 0);
    TEV(s, "B's put lands in B", want_m(s, PTL_EVENT_PUT, tbuf + 1024 + 8, U(2), hdr_of(left, 1), 100, 100, 8, BB, left));
    TEV(s, "A's put lands in A", want_m(s, PTL_EVENT_PUT, tbuf + 4, U(1), hdr_of(left, 2), 60, 60, 4, BA, left));
    CHECK_BYTES(tbuf, 0xee, 4, "%s: tags: before A's data", s->name);
    CHECK_PATTERN(tbuf + 4, left, 11, 60, "%s: tags: A's data", s->name);
    CHECK_BYTES(tbuf + 64, 0xee, 1032 - 64, "%s: tags: between", s->name);
    CHECK_PATTERN(tbuf + 1032, left, 10, 100, "%s: tags: B's data", s->name);
    CHECK_BYTES(tbuf + 1132, 0xee, TBSZ - 1132, "%s: tags: after B's data", s->name);
    BARRIER();
    QUIET(s, "tags");
    EXPECT_RC(PTL_OK, PtlMEUnlink(ha));
    EXPECT_RC(PTL_OK, PtlMEUnlink(hb));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(ha));
    QUIET(s, "explicit unlinks post nothing");
}

/* ---- ignore bits ---- */
#define M1 0xf0f0f0f0abcdef55ull /* has ones inside its ignored range */
#define I1 0x00000000ffffff00ull
static void t_ignore(struct side *s)
{
    static const struct {
        ptl_match_bits_t bits;
        int me1; /* lands in ME1 (else in the catch-all ME2) */
    } p[] = {
        {0xf0f0f0f000000055ull, 1}, /* differs only inside the ignored range */
        {0xf0f0f0f012345655ull, 1},
        {0xf0f0f0f000000054ull, 0}, /* bit 0 differs, not ignored */
        {0x70f0f0f000000055ull, 0}, /* bit 63 */
        {0xf0f0f0f100000055ull, 0}, /* bit 32, just above the ignored range */
        {0xf0f0f0f0ffffff55ull, 1},
    };
    const int np = (int)(sizeof p / sizeof p[0]);
    memset(tbuf, 0xee, TBSZ);
    ptl_me_t e1 = mk_me(tbuf, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY, id_any(s), M1, I1, 0);
    ptl_me_t e2 = mk_me(tbuf + 1024, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY, id_any(s), 0, ~0ull, 0);
    ptl_handle_me_t h1 = APPEND(s, &e1, U(1));
    ptl_handle_me_t h2 = APPEND(s, &e2, U(2));
    for (int k = 0; k < np; k++)
        pt_fill(sbuf + 32 * k, me, 20 + (uint64_t)k, 16);
    BARRIER();
    for (int k = 0; k < np; k++)
        PUT_ACK(s, pt_ctx("ignore bits, put %d (bits 0x%llx)", k, (unsigned long long)p[k].bits), 32 * (ptl_size_t)k,
                16, p[k].bits, 16 * (ptl_size_t)k, (unsigned)k, PTL_NI_OK, 16, 16 * (ptl_size_t)k);
    for (int k = 0; k < np; k++)
        TEV(s, pt_ctx("ignore bits, put %d lands in ME%d", k, p[k].me1 ? 1 : 2),
            want_m(s, PTL_EVENT_PUT, (p[k].me1 ? tbuf : tbuf + 1024) + 16 * k, p[k].me1 ? U(1) : U(2),
                   hdr_of(left, (unsigned)k), 16, 16, 16 * (ptl_size_t)k, p[k].bits, left));
    for (int k = 0; k < np; k++) {
        unsigned char *at = (p[k].me1 ? tbuf : tbuf + 1024) + 16 * k, *other = (p[k].me1 ? tbuf + 1024 : tbuf) + 16 * k;
        CHECK_PATTERN(at, left, 20 + (uint64_t)k, 16, "%s: ignore bits, put %d", s->name, k);
        CHECK_BYTES(other, 0xee, 16, "%s: ignore bits, put %d in the other ME", s->name, k);
    }
    CHECK_BYTES(tbuf + 16 * np, 0xee, 1024 - 16 * np, "%s: ignore bits: rest of ME1", s->name);
    CHECK_BYTES(tbuf + 1024 + 16 * np, 0xee, TBSZ - 1024 - 16 * np, "%s: ignore bits: after", s->name);
    /* without the catch-all, bits outside ME1's pattern find nothing */
    EXPECT_RC(PTL_OK, PtlMEUnlink(h2));
    BARRIER();
    PUT_ACK(s, "ignore bits: no catch-all ME", 0, 16, 0xf0f0f0f000000054ull, 0, 10, PTL_NI_DROPPED, 0, 0);
    PUT_ACK(s, "ignore bits: ME1 still matches", 32, 16, 0xf0f0f0f0000ab055ull, 200, 11, PTL_NI_OK, 16, 200);
    TEV(s, "ignore bits: ME1 still matches",
        want_m(s, PTL_EVENT_PUT, tbuf + 200, U(1), hdr_of(left, 11), 16, 16, 200, 0xf0f0f0f0000ab055ull, left));
    CHECK_PATTERN(tbuf + 200, left, 21, 16, "%s: ignore bits: last put", s->name);
    BARRIER();
    QUIET(s, "ignore bits");
    EXPECT_RC(PTL_OK, PtlMEUnlink(h1));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h2));
}

/* ---- match_id: a specific initiator vs the wildcards ---- */
#define BX 0x0123456789abcdefull
static void t_match_id(struct side *s)
{
    memset(tbuf, 0xee, TBSZ);
    ptl_handle_me_t ha, hb = PTL_INVALID_HANDLE, hb2 = PTL_INVALID_HANDLE, hc, hd;
    ptl_me_t e;
    /* A: only myself */
    e = mk_me(tbuf, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY,
              s->phys ? id_phys(PTL_NID_ANY, me) : id_of(s, me), BX, 0, 0);
    ha = APPEND(s, &e, U(1));
    /* B: someone else than my left neighbour, where the job has one */
    if (s->phys) { /* left's pid on another node (with one node: a node that does not exist) */
        e = mk_me(tbuf + 256, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY,
                  id_phys(pt_nnodes > 1 ? (pt_node_of(left) + 1) % pt_nnodes : 1, left), BX, 0, 0);
        hb = APPEND(s, &e, U(2));
    }
    if (right != left) {
        e = mk_me(tbuf + 1024, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY,
                  s->phys ? id_phys(PTL_NID_ANY, right) : id_of(s, right), BX, 0, 0);
        hb2 = APPEND(s, &e, U(5));
    }
    /* C: my left neighbour (physical: its node, any pid) */
    e = mk_me(tbuf + 512, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY,
              s->phys ? id_phys(pt_node_of(left), PTL_PID_ANY) : id_of(s, left), BX, 0, 0);
    hc = APPEND(s, &e, U(3));
    /* D: anyone */
    e = mk_me(tbuf + 768, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY, id_any(s), BX, 0, 0);
    hd = APPEND(s, &e, U(4));
    pt_fill(sbuf, me, 30, 16);
    pt_fill(sbuf + 32, me, 31, 16);
    pt_fill(sbuf + 64, me, 32, 16);
    BARRIER();
    PUT_ACK(s, "match_id: from the left neighbour", 0, 16, BX, 0, 1, PTL_NI_OK, 16, 0);
    TEV(s, "match_id: the put skips the MEs of other initiators",
        want_m(s, PTL_EVENT_PUT, tbuf + 512, U(3), hdr_of(left, 1), 16, 16, 0, BX, left));
    EXPECT_RC(PTL_OK, PtlMEUnlink(hc));
    BARRIER();
    PUT_ACK(s, "match_id: from the left neighbour again", 32, 16, BX, 16, 2, PTL_NI_OK, 16, 16);
    TEV(s, "match_id: with its own ME gone the put lands in the wildcard ME",
        want_m(s, PTL_EVENT_PUT, tbuf + 768 + 16, U(4), hdr_of(left, 2), 16, 16, 16, BX, left));
    BARRIER();
    put_ack_(__FILE__, __LINE__, s, me, "match_id: a put to myself", 64, 16, BX, 32, 3, PTL_NI_OK, 16, 32);
    TEV(s, "match_id: my own put lands in the ME for me",
        want_m(s, PTL_EVENT_PUT, tbuf + 32, U(1), hdr_of(me, 3), 16, 16, 32, BX, me));
    CHECK_BYTES(tbuf, 0xee, 32, "%s: match_id", s->name);
    CHECK_PATTERN(tbuf + 32, me, 32, 16, "%s: match_id: own put", s->name);
    CHECK_BYTES(tbuf + 48, 0xee, 512 - 48, "%s: match_id", s->name);
    CHECK_PATTERN(tbuf + 512, left, 30, 16, "%s: match_id: first put", s->name);
    CHECK_BYTES(tbuf + 528, 0xee, 784 - 528, "%s: match_id", s->name);
    CHECK_PATTERN(tbuf + 784, left, 31, 16, "%s: match_id: second put", s->name);
    CHECK_BYTES(tbuf + 800, 0xee, TBSZ - 800, "%s: match_id", s->name);
    BARRIER();
    QUIET(s, "match_id");
    EXPECT_RC(PTL_OK, PtlMEUnlink(ha));
    if (hb != PTL_INVALID_HANDLE)
        EXPECT_RC(PTL_OK, PtlMEUnlink(hb));
    if (hb2 != PTL_INVALID_HANDLE)
        EXPECT_RC(PTL_OK, PtlMEUnlink(hb2));
    EXPECT_RC(PTL_OK, PtlMEUnlink(hd));
}

/* ---- USE_ONCE: consumed in append order ---- */
#define BU 0x5555aaaa00000001ull
#define BU2 0x5555aaaa00000002ull
static void t_use_once(struct side *s)
{
    memset(tbuf, 0xee, TBSZ);
    ptl_me_t e = simple_me(s, tbuf + 3072, 256, PTL_ME_OP_PUT, BU2 ^ BU); /* matches neither */
    ptl_handle_me_t h0 = APPEND(s, &e, U(9)), h[3];
    for (int i = 0; i < 3; i++) {
        e = simple_me(s, tbuf + 256 * i, 256, PTL_ME_OP_PUT | PTL_ME_USE_ONCE, BU);
        h[i] = APPEND(s, &e, U(1 + i));
    }
    e = simple_me(s, tbuf + 1024, 256, PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE, BU2);
    ptl_handle_me_t h4 = APPEND(s, &e, U(4));
    for (int k = 0; k < 6; k++)
        pt_fill(sbuf + 128 * k, me, 40 + (uint64_t)k, 64);
    BARRIER();
    /* four puts in a row: three fill the three MEs, the fourth finds none */
    for (int k = 0; k < 4; k++)
        OK(PtlPut(s->smd, 128 * (ptl_size_t)k, 64, PTL_ACK_REQ, tgt_of(s, right), s->pt, BU, 0, IU(k),
                  hdr_of(me, (unsigned)k)));
    struct evset set;
    COLLECT(s->ieq, 4, &set);
    for (int k = 0; k < 4; k++) {
        const ptl_event_t *ev = NULL;
        for (int i = 0; i < set.n; i++)
            if (set.ev[i].user_ptr == IU(k))
                ev = &set.ev[i];
        CHECK(ev != NULL, "%s: USE_ONCE: no ACK for put %d", s->name, k);
        struct evwant w = want_ack(IU(k), 64, 0, s->pt, k < 3 ? PTL_NI_OK : PTL_NI_DROPPED);
        CHECK_EVENT(pt_ctx("%s: USE_ONCE put %d", s->name, k), ev, &w);
    }
    PUT_ACK(s, "USE_ONCE + UNLINK_DISABLE", 128 * 4, 64, BU2, 0, 4, PTL_NI_OK, 64, 0);
    PUT_ACK(s, "after the USE_ONCE + UNLINK_DISABLE ME", 128 * 5, 64, BU2, 0, 5, PTL_NI_DROPPED, 0, 0);
    for (int i = 0; i < 3; i++) {
        TEV(s, pt_ctx("USE_ONCE: put %d lands in ME %d", i, i + 1),
            want_m(s, PTL_EVENT_PUT, tbuf + 256 * i, U(1 + i), hdr_of(left, (unsigned)i), 64, 64, 0, BU, left));
        TEV(s, pt_ctx("USE_ONCE: AUTO_UNLINK of ME %d after its put", i + 1), want_unlink(s, U(1 + i)));
    }
    TEV(s, "USE_ONCE + UNLINK_DISABLE: the put (and no AUTO_UNLINK)",
        want_m(s, PTL_EVENT_PUT, tbuf + 1024, U(4), hdr_of(left, 4), 64, 64, 0, BU2, left));
    for (int i = 0; i < 3; i++) {
        CHECK_PATTERN(tbuf + 256 * i, left, 40 + (uint64_t)i, 64, "%s: USE_ONCE ME %d", s->name, i + 1);
        CHECK_BYTES(tbuf + 256 * i + 64, 0xee, 192, "%s: USE_ONCE ME %d after the data", s->name, i + 1);
    }
    CHECK_BYTES(tbuf + 768, 0xee, 256, "%s: USE_ONCE", s->name);
    CHECK_PATTERN(tbuf + 1024, left, 44, 64, "%s: USE_ONCE + UNLINK_DISABLE", s->name);
    CHECK_BYTES(tbuf + 1088, 0xee, TBSZ - 1088, "%s: USE_ONCE: nothing else (the non-matching ME)", s->name);
    BARRIER();
    QUIET(s, "USE_ONCE");
    for (int i = 0; i < 3; i++)
        EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h[i]));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h4));
    EXPECT_RC(PTL_OK, PtlMEUnlink(h0));
}

/* ---- NO_TRUNCATE: an ME too small for the op is skipped ---- */
#define BT 0x00000000deadbeefull
static void t_no_truncate(struct side *s)
{
    memset(tbuf, 0xee, TBSZ);
    ptl_me_t e = simple_me(s, tbuf, 32, PTL_ME_OP_PUT | PTL_ME_NO_TRUNCATE | PTL_ME_USE_ONCE, BT);
    ptl_handle_me_t h1 = APPEND(s, &e, U(1));
    e = simple_me(s, tbuf + 256, 128, PTL_ME_OP_PUT | PTL_ME_NO_TRUNCATE, BT);
    ptl_handle_me_t h2 = APPEND(s, &e, U(2));
    e = simple_me(s, tbuf + 512, 48, PTL_ME_OP_PUT, BT);
    ptl_handle_me_t h3 = APPEND(s, &e, U(3));
    for (int k = 0; k < 8; k++)
        pt_fill(sbuf + 256 * k, me, 50 + (uint64_t)k, 256);
    BARRIER();
    /* 40 B: too big for ME1 (skipped, not used up), fits ME2 */
    PUT_ACK(s, "NO_TRUNCATE: 40 B", 0, 40, BT, 0, 0, PTL_NI_OK, 40, 0);
    /* 32 B: fits ME1 exactly */
    PUT_ACK(s, "NO_TRUNCATE: 32 B", 256, 32, BT, 0, 1, PTL_NI_OK, 32, 0);
    /* 110 B at 20: 130 > 128 skips ME2, ME3 (may truncate) takes 28 */
    PUT_ACK(s, "NO_TRUNCATE: 110 B at 20", 512, 110, BT, 20, 2, PTL_NI_OK, 28, 20);
    /* 88 B at 40: fits ME2 exactly */
    PUT_ACK(s, "NO_TRUNCATE: 88 B at 40", 768, 88, BT, 40, 3, PTL_NI_OK, 88, 40);
    /* 10 B at 120: skips ME2; at ME3 the offset is past the end: 0 B */
    PUT_ACK(s, "NO_TRUNCATE: 10 B at 120", 1024, 10, BT, 120, 4, PTL_NI_OK, 0, 120);
    TEV(s, "NO_TRUNCATE: 40 B to ME2", want_m(s, PTL_EVENT_PUT, tbuf + 256, U(2), hdr_of(left, 0), 40, 40, 0, BT, left));
    TEV(s, "NO_TRUNCATE: 32 B to ME1", want_m(s, PTL_EVENT_PUT, tbuf, U(1), hdr_of(left, 1), 32, 32, 0, BT, left));
    TEV(s, "NO_TRUNCATE: ME1 used once", want_unlink(s, U(1)));
    TEV(s, "NO_TRUNCATE: 110 B to ME3",
        want_m(s, PTL_EVENT_PUT, tbuf + 512 + 20, U(3), hdr_of(left, 2), 110, 28, 20, BT, left));
    TEV(s, "NO_TRUNCATE: 88 B to ME2",
        want_m(s, PTL_EVENT_PUT, tbuf + 256 + 40, U(2), hdr_of(left, 3), 88, 88, 40, BT, left));
    TEV(s, "NO_TRUNCATE: 10 B to ME3",
        want_m(s, PTL_EVENT_PUT, tbuf + 512 + 120, U(3), hdr_of(left, 4), 10, 0, 120, BT, left));
    EXPECT_RC(PTL_OK, PtlMEUnlink(h3));
    BARRIER();
    /* with ME3 gone: 129 B fits nowhere; 1 B at 127 fits ME2 */
    PUT_ACK(s, "NO_TRUNCATE: 129 B, no ME large enough", 1280, 129, BT, 0, 5, PTL_NI_DROPPED, 0, 0);
    PUT_ACK(s, "NO_TRUNCATE: 1 B at 127", 1536, 1, BT, 127, 6, PTL_NI_OK, 1, 127);
    TEV(s, "NO_TRUNCATE: 1 B at 127", want_m(s, PTL_EVENT_PUT, tbuf + 256 + 127, U(2), hdr_of(left, 6), 1, 1, 127, BT, left));
    CHECK_PATTERN(tbuf, left, 51, 32, "%s: NO_TRUNCATE: ME1", s->name);
    CHECK_BYTES(tbuf + 32, 0xee, 224, "%s: NO_TRUNCATE: after ME1", s->name);
    CHECK_PATTERN(tbuf + 256, left, 50, 40, "%s: NO_TRUNCATE: ME2 first put", s->name);
    CHECK_PATTERN(tbuf + 296, left, 53, 87, "%s: NO_TRUNCATE: ME2 second put", s->name);
    CHECK(tbuf[383] == pt_pattern(left, 56, 0), "%s: NO_TRUNCATE: ME2 last byte 0x%02x, want 0x%02x", s->name,
          tbuf[383], pt_pattern(left, 56, 0));
    CHECK_BYTES(tbuf + 384, 0xee, 512 + 20 - 384, "%s: NO_TRUNCATE: between ME2 and ME3's data", s->name);
    CHECK_PATTERN(tbuf + 532, left, 52, 28, "%s: NO_TRUNCATE: ME3 (truncated)", s->name);
    CHECK_BYTES(tbuf + 560, 0xee, TBSZ - 560, "%s: NO_TRUNCATE: after ME3", s->name);
    BARRIER();
    QUIET(s, "NO_TRUNCATE");
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h1));
    EXPECT_RC(PTL_OK, PtlMEUnlink(h2));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h3));
}

/* ---- MANAGE_LOCAL: consecutive messages, min_free ---- */
#define BL 0x1000000000000001ull
#define BL2 0x1000000000000002ull
static void t_manage_local(struct side *s)
{
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(s->tct, zero));
    memset(tbuf, 0xee, TBSZ);
    /* 1: 256 B, min_free 56: five 50 B messages; after the fourth 56 B
     * are free (not below), after the fifth 6: unlinked */
    ptl_me_t e = mk_me(tbuf, 256, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_CT_BYTES,
                       s->tct, PTL_UID_ANY, id_any(s), BL, 0, 56);
    ptl_handle_me_t h1 = APPEND(s, &e, U(1));
    for (int k = 0; k < 6; k++)
        pt_fill(sbuf + 64 * k, me, 60 + (uint64_t)k, 50);
    BARRIER();
    for (int k = 0; k < 5; k++)
        PUT_ACK(s, pt_ctx("MANAGE_LOCAL: message %d (remote offset ignored)", k), 64 * (ptl_size_t)k, 50, BL,
                1000 + (ptl_size_t)k, (unsigned)k, PTL_NI_OK, 50, 50 * (ptl_size_t)k);
    PUT_ACK(s, "MANAGE_LOCAL: after the unlink at min_free", 64 * 5, 50, BL, 0, 5, PTL_NI_DROPPED, 0, 0);
    for (int k = 0; k < 5; k++)
        TEV(s, pt_ctx("MANAGE_LOCAL: message %d at local offset %d", k, 50 * k),
            want_m(s, PTL_EVENT_PUT, tbuf + 50 * k, U(1), hdr_of(left, (unsigned)k), 50, 50, 1000 + (ptl_size_t)k, BL,
                   left));
    TEV(s, "MANAGE_LOCAL: AUTO_UNLINK once free space < min_free", want_unlink(s, U(1)));
    EXPECT_CT(s->tct, 250, 0);
    for (int k = 0; k < 5; k++)
        CHECK_PATTERN(tbuf + 50 * k, left, 60 + (uint64_t)k, 50, "%s: MANAGE_LOCAL message %d", s->name, k);
    CHECK_BYTES(tbuf + 250, 0xee, TBSZ - 250, "%s: MANAGE_LOCAL: after the messages", s->name);
    BARRIER();
    QUIET(s, "MANAGE_LOCAL min_free");
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h1));

    /* 2: min_free 0, 100 B: 40 + 40 + 20 (truncated) + 0, stays linked */
    memset(tbuf, 0xee, TBSZ);
    e = mk_me(tbuf + 1024, 100, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL, PTL_CT_NONE, PTL_UID_ANY, id_any(s), BL, 0, 0);
    ptl_handle_me_t h2 = APPEND(s, &e, U(2));
    for (int k = 0; k < 4; k++)
        pt_fill(sbuf + 64 * k, me, 70 + (uint64_t)k, 40);
    BARRIER();
    static const ptl_size_t ml2[4] = {40, 40, 20, 0}, off2[4] = {0, 40, 80, 100};
    for (int k = 0; k < 4; k++)
        PUT_ACK(s, pt_ctx("MANAGE_LOCAL truncation: message %d", k), 64 * (ptl_size_t)k, 40, BL, 7, 10 + (unsigned)k,
                PTL_NI_OK, ml2[k], off2[k]);
    for (int k = 0; k < 4; k++)
        TEV(s, pt_ctx("MANAGE_LOCAL truncation: message %d", k),
            want_m(s, PTL_EVENT_PUT, tbuf + 1024 + off2[k], U(2), hdr_of(left, 10 + (unsigned)k), 40, ml2[k], 7, BL, left));
    CHECK_BYTES(tbuf, 0xee, 1024, "%s: MANAGE_LOCAL truncation: before", s->name);
    for (int k = 0; k < 3; k++)
        CHECK_PATTERN(tbuf + 1024 + off2[k], left, 70 + (uint64_t)k, ml2[k], "%s: MANAGE_LOCAL truncation %d", s->name, k);
    CHECK_BYTES(tbuf + 1124, 0xee, TBSZ - 1124, "%s: MANAGE_LOCAL truncation: after the ME", s->name);
    BARRIER();
    QUIET(s, "MANAGE_LOCAL truncation (no unlink with min_free 0)");
    EXPECT_RC(PTL_OK, PtlMEUnlink(h2));

    /* 3: MANAGE_LOCAL + NO_TRUNCATE: a message that does not fit in what
     * is left goes to the next ME; a later smaller one still fits */
    memset(tbuf, 0xee, TBSZ);
    e = mk_me(tbuf, 100, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_NO_TRUNCATE, PTL_CT_NONE, PTL_UID_ANY, id_any(s),
              BL2, 0, 0);
    ptl_handle_me_t h3 = APPEND(s, &e, U(3));
    e = simple_me(s, tbuf + 1024, 256, PTL_ME_OP_PUT, BL2);
    ptl_handle_me_t h4 = APPEND(s, &e, U(4));
    static const ptl_size_t len3[5] = {40, 40, 40, 20, 1}, roff3[5] = {0, 0, 8, 0, 100};
    static const int to3[5] = {3, 3, 4, 3, 4};
    static const ptl_size_t at3[5] = {0, 40, 8, 80, 100}; /* offset used in the ME it lands in */
    for (int k = 0; k < 5; k++)
        pt_fill(sbuf + 64 * k, me, 80 + (uint64_t)k, len3[k]);
    BARRIER();
    for (int k = 0; k < 5; k++)
        PUT_ACK(s, pt_ctx("MANAGE_LOCAL + NO_TRUNCATE: message %d", k), 64 * (ptl_size_t)k, len3[k], BL2, roff3[k],
                20 + (unsigned)k, PTL_NI_OK, len3[k], at3[k]);
    for (int k = 0; k < 5; k++)
        TEV(s, pt_ctx("MANAGE_LOCAL + NO_TRUNCATE: message %d to ME%d", k, to3[k]),
            want_m(s, PTL_EVENT_PUT, (to3[k] == 3 ? tbuf : tbuf + 1024) + at3[k], U(to3[k]), hdr_of(left, 20 + (unsigned)k),
                   len3[k], len3[k], roff3[k], BL2, left));
    for (int k = 0; k < 5; k++)
        CHECK_PATTERN((to3[k] == 3 ? tbuf : tbuf + 1024) + at3[k], left, 80 + (uint64_t)k, len3[k],
                      "%s: MANAGE_LOCAL + NO_TRUNCATE message %d", s->name, k);
    CHECK_BYTES(tbuf + 100, 0xee, 1024 + 8 - 100, "%s: MANAGE_LOCAL + NO_TRUNCATE", s->name);
    CHECK_BYTES(tbuf + 1024 + 48, 0xee, 52, "%s: MANAGE_LOCAL + NO_TRUNCATE", s->name);
    CHECK_BYTES(tbuf + 1024 + 101, 0xee, TBSZ - 1125, "%s: MANAGE_LOCAL + NO_TRUNCATE", s->name);
    BARRIER();
    QUIET(s, "MANAGE_LOCAL + NO_TRUNCATE");
    EXPECT_RC(PTL_OK, PtlMEUnlink(h3));
    EXPECT_RC(PTL_OK, PtlMEUnlink(h4));

    /* 4: Gets from a MANAGE_LOCAL ME read consecutive pieces */
    pt_fill(tbuf + 4096, me, 90, 96);
    e = mk_me(tbuf + 4096, 96, PTL_ME_OP_GET | PTL_ME_MANAGE_LOCAL, PTL_CT_NONE, PTL_UID_ANY, id_any(s), BL, 0, 32);
    ptl_handle_me_t h5 = APPEND(s, &e, U(5));
    memset(dbuf, 0x5a, TBSZ);
    BARRIER();
    for (int k = 0; k < 3; k++)
        GET_REPLY(s, pt_ctx("MANAGE_LOCAL get %d", k), 32 * (ptl_size_t)k, 32, BL, 500, 30 + (unsigned)k, PTL_NI_OK, 32);
    GET_REPLY(s, "MANAGE_LOCAL get after the unlink", 96, 32, BL, 500, 33, PTL_NI_DROPPED, 0);
    CHECK_PATTERN(dbuf, right, 90, 96, "%s: MANAGE_LOCAL gets", s->name);
    CHECK_BYTES(dbuf + 96, 0x5a, TBSZ - 96, "%s: MANAGE_LOCAL gets: after", s->name);
    for (int k = 0; k < 3; k++)
        TEV(s, pt_ctx("MANAGE_LOCAL get %d", k),
            want_m(s, PTL_EVENT_GET, tbuf + 4096 + 32 * k, U(5), 0, 32, 32, 500, BL, left));
    TEV(s, "MANAGE_LOCAL get: AUTO_UNLINK at min_free", want_unlink(s, U(5)));
    BARRIER();
    QUIET(s, "MANAGE_LOCAL gets");
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h5));

    /* 5: MANAGE_LOCAL + UNLINK_DISABLE: unlinked without an event */
    memset(tbuf, 0xee, TBSZ);
    e = mk_me(tbuf, 256, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_UNLINK_DISABLE | PTL_ME_EVENT_LINK_DISABLE,
              PTL_CT_NONE, PTL_UID_ANY, id_any(s), BL, 0, 200);
    ptl_handle_me_t h6 = APPEND(s, &e, U(6));
    pt_fill(sbuf, me, 95, 100);
    BARRIER();
    PUT_ACK(s, "MANAGE_LOCAL + UNLINK_DISABLE", 0, 100, BL, 0, 40, PTL_NI_OK, 100, 0);
    PUT_ACK(s, "MANAGE_LOCAL + UNLINK_DISABLE, after the unlink", 0, 100, BL, 0, 41, PTL_NI_DROPPED, 0, 0);
    TEV(s, "MANAGE_LOCAL + UNLINK_DISABLE", want_m(s, PTL_EVENT_PUT, tbuf, U(6), hdr_of(left, 40), 100, 100, 0, BL, left));
    CHECK_PATTERN(tbuf, left, 95, 100, "%s: MANAGE_LOCAL + UNLINK_DISABLE", s->name);
    CHECK_BYTES(tbuf + 100, 0xee, TBSZ - 100, "%s: MANAGE_LOCAL + UNLINK_DISABLE", s->name);
    BARRIER();
    QUIET(s, "MANAGE_LOCAL + UNLINK_DISABLE");
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h6));
}

/* ---- Get, Atomic, FetchAtomic, Swap through an ME ---- */
#define BG 0x7777000000000777ull
static void t_get_atomic(struct side *s)
{
    memset(tbuf, 0xee, TBSZ);
    pt_fill(tbuf, me, 100, 256);
    int64_t t64[2] = {1000 + (int64_t)me, -5};
    int32_t c32 = 77 + (int32_t)me;
    double td = 0.5 + me;
    memcpy(tbuf + 256, t64, 16);
    memcpy(tbuf + 272, &c32, 4);
    memcpy(tbuf + 280, &td, 8);
    ptl_me_t e = mk_me(tbuf, 512, PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM, s->tct, (ptl_uid_t)getuid(),
                       id_any(s), BG, 0, 0);
    ptl_handle_me_t h = APPEND(s, &e, U(1));
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(s->tct, zero));
    int64_t o64[2] = {5 + (int64_t)me, 7};
    int32_t n32 = 500 + (int32_t)me, cmp32 = 77 + (int32_t)right;
    double od = 1.5;
    memcpy(sbuf, o64, 16);
    memcpy(sbuf + 16, &n32, 4);
    memcpy(sbuf + 24, &od, 8);
    memset(dbuf, 0x5a, TBSZ);
    BARRIER();
    GET_REPLY(s, "get through an ME", 0, 100, BG, 24, 1, PTL_NI_OK, 100);
    GET_REPLY(s, "get with other bits", 128, 100, BG ^ 1, 24, 2, PTL_NI_DROPPED, 0);
    OK(PtlFetchAtomic(s->dmd, 256, s->smd, 0, 16, tgt_of(s, right), s->pt, BG, 256, IU(3), hdr_of(me, 3), PTL_SUM,
                      PTL_INT64_T));
    ptl_event_t ev;
    WAIT_EVENT(s->ieq, &ev);
    struct evwant w = want_reply(IU(3), 16, PTL_NI_OK);
    CHECK_EVENT(pt_ctx("%s: fetch-atomic through an ME", s->name), &ev, &w);
    OK(PtlSwap(s->dmd, 272, s->smd, 16, 4, tgt_of(s, right), s->pt, BG, 272, IU(4), hdr_of(me, 4), &cmp32, PTL_CSWAP,
               PTL_INT32_T));
    WAIT_EVENT(s->ieq, &ev);
    w = want_reply(IU(4), 4, PTL_NI_OK);
    CHECK_EVENT(pt_ctx("%s: cswap through an ME", s->name), &ev, &w);
    OK(PtlAtomic(s->smd, 24, 8, PTL_ACK_REQ, tgt_of(s, right), s->pt, BG, 280, IU(5), hdr_of(me, 5), PTL_SUM,
                 PTL_DOUBLE));
    WAIT_EVENT(s->ieq, &ev);
    w = want_ack(IU(5), 8, 280, s->pt, PTL_NI_OK);
    CHECK_EVENT(pt_ctx("%s: atomic through an ME", s->name), &ev, &w);
    /* what came back */
    for (int i = 0; i < 100; i++)
        CHECK(dbuf[i] == pt_pattern(right, 100, 24 + (uint64_t)i), "%s: get byte %d is 0x%02x, want 0x%02x", s->name,
              i, dbuf[i], pt_pattern(right, 100, 24 + (uint64_t)i));
    CHECK_BYTES(dbuf + 100, 0x5a, 156, "%s: after the get; the unmatched get wrote nothing", s->name);
    int64_t f64[2];
    int32_t f32;
    memcpy(f64, dbuf + 256, 16);
    memcpy(&f32, dbuf + 272, 4);
    CHECK(f64[0] == 1000 + (int64_t)right && f64[1] == -5, "%s: fetch-atomic fetched %lld %lld, want %lld -5", s->name,
          (long long)f64[0], (long long)f64[1], 1000 + (long long)right);
    CHECK(f32 == 77 + (int32_t)right, "%s: cswap fetched %d, want %d", s->name, f32, 77 + (int32_t)right);
    CHECK_BYTES(dbuf + 276, 0x5a, TBSZ - 276, "%s: after the fetched values", s->name);
    /* what the left neighbour did here */
    TEV(s, "GET event", want_m(s, PTL_EVENT_GET, tbuf + 24, U(1), 0, 100, 100, 24, BG, left));
    w = want_m(s, PTL_EVENT_FETCH_ATOMIC, tbuf + 256, U(1), hdr_of(left, 3), 16, 16, 256, BG, left);
    w.fields |= EV_AOP;
    w.op = PTL_SUM;
    w.dt = PTL_INT64_T;
    TEV(s, "FETCH_ATOMIC event (SUM)", w);
    w = want_m(s, PTL_EVENT_FETCH_ATOMIC, tbuf + 272, U(1), hdr_of(left, 4), 4, 4, 272, BG, left);
    w.fields |= EV_AOP;
    w.op = PTL_CSWAP;
    w.dt = PTL_INT32_T;
    TEV(s, "FETCH_ATOMIC event (CSWAP)", w);
    w = want_m(s, PTL_EVENT_ATOMIC, tbuf + 280, U(1), hdr_of(left, 5), 8, 8, 280, BG, left);
    w.fields |= EV_AOP;
    w.op = PTL_SUM;
    w.dt = PTL_DOUBLE;
    TEV(s, "ATOMIC event", w);
    EXPECT_CT(s->tct, 4, 0);
    int64_t g64[2];
    int32_t g32;
    double gd;
    memcpy(g64, tbuf + 256, 16);
    memcpy(&g32, tbuf + 272, 4);
    memcpy(&gd, tbuf + 280, 8);
    CHECK(g64[0] == 1000 + (int64_t)me + 5 + (int64_t)left && g64[1] == 2, "%s: SUM result %lld %lld", s->name,
          (long long)g64[0], (long long)g64[1]);
    CHECK(g32 == 500 + (int32_t)left, "%s: CSWAP result %d, want %d", s->name, g32, 500 + (int32_t)left);
    CHECK(gd == 2.0 + me, "%s: atomic SUM double result %g, want %g", s->name, gd, 2.0 + me);
    CHECK_PATTERN(tbuf, me, 100, 256, "%s: the get's source is unchanged", s->name);
    CHECK_BYTES(tbuf + 276, 0xee, 4, "%s: atomics", s->name);
    CHECK_BYTES(tbuf + 288, 0xee, TBSZ - 288, "%s: atomics", s->name);
    BARRIER();
    QUIET(s, "get and atomics");
    EXPECT_RC(PTL_OK, PtlMEUnlink(h));
}

/* ---- operation and permission violations ---- */
#define BV 0x0000000000000a01ull
#define BW 0x0000000000000a02ull
#define BP 0x0000000000000a03ull
#define BQ 0x0000000000000a04ull
#define BN 0x0000000000000a05ull
static void t_violations(struct side *s)
{
    memset(tbuf, 0xee, TBSZ);
    pt_fill(tbuf, me, 110, 64);
    memset(tbuf + 512, 0, 8);
    struct {
        ptl_match_bits_t bits;
        unsigned ops;
        ptl_uid_t uid;
    } m[6] = {
        {BV, PTL_ME_OP_GET, PTL_UID_ANY},             /* 1: first for V, Get only */
        {BV, PTL_ME_OP_PUT | PTL_ME_OP_GET, PTL_UID_ANY}, /* 2: second for V: never reached */
        {BW, PTL_ME_OP_PUT, PTL_UID_ANY},             /* 3 */
        {BP, PTL_ME_OP_PUT | PTL_ME_OP_GET, (ptl_uid_t)getuid() + 1}, /* 4: another user's */
        {BQ, PTL_ME_OP_PUT | PTL_ME_OP_GET, (ptl_uid_t)getuid()},     /* 5: mine */
        {BN, 0, PTL_UID_ANY},                         /* 6: no operations */
    };
    ptl_handle_me_t h[6];
    for (int i = 0; i < 6; i++) {
        ptl_me_t e = mk_me(tbuf + 256 * i, 256, m[i].ops, PTL_CT_NONE, m[i].uid, id_any(s), m[i].bits, 0, 0);
        h[i] = APPEND(s, &e, U(1 + i));
    }
    ptl_sr_value_t op0 = 0, perm0 = 0, op1 = 0, perm1 = 0;
    OK(PtlNIStatus(s->ni, PTL_SR_OPERATION_VIOLATIONS, &op0));
    OK(PtlNIStatus(s->ni, PTL_SR_PERMISSION_VIOLATIONS, &perm0));
    pt_fill(sbuf, me, 111, 64);
    pt_fill(sbuf + 64, me, 112, 64);
    uint64_t opnd = 0;
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(s->ict, zero));
    memset(dbuf, 0x5a, TBSZ);
    BARRIER();
    ptl_process_t t = tgt_of(s, right);
    ptl_event_t ev;
    struct evwant w;
    PUT_ACK(s, "put to the first matching ME, which allows Get only", 0, 16, BV, 0, 1, PTL_NI_OP_VIOLATION, 0, 0);
    GET_REPLY(s, "get from the Get-only ME", 0, 32, BV, 0, 2, PTL_NI_OK, 32);
    GET_REPLY(s, "get from a Put-only ME", 64, 16, BW, 0, 3, PTL_NI_OP_VIOLATION, 0);
    OK(PtlFetchAtomic(s->dmd, 64, s->smd, 0, 8, t, s->pt, BW, 0, IU(4), 0, PTL_SUM, PTL_UINT64_T));
    WAIT_EVENT(s->ieq, &ev);
    w = want_reply(IU(4), 8, PTL_NI_OP_VIOLATION);
    CHECK_EVENT(pt_ctx("%s: fetch-atomic to a Put-only ME", s->name), &ev, &w);
    OK(PtlSwap(s->dmd, 64, s->smd, 0, 8, t, s->pt, BW, 0, IU(5), 0, &opnd, PTL_SWAP, PTL_UINT64_T));
    WAIT_EVENT(s->ieq, &ev);
    w = want_reply(IU(5), 8, PTL_NI_OP_VIOLATION);
    CHECK_EVENT(pt_ctx("%s: swap to a Put-only ME", s->name), &ev, &w);
    OK(PtlAtomic(s->smd, 0, 8, PTL_ACK_REQ, t, s->pt, BW, 0, IU(6), hdr_of(me, 6), PTL_SUM, PTL_UINT64_T));
    WAIT_EVENT(s->ieq, &ev);
    w = want_ack(IU(6), 8, 0, s->pt, PTL_NI_OK);
    CHECK_EVENT(pt_ctx("%s: atomic to a Put-only ME", s->name), &ev, &w);
    PUT_ACK(s, "put to another user's ME", 0, 16, BP, 0, 7, PTL_NI_PERM_VIOLATION, 0, 0);
    GET_REPLY(s, "get from another user's ME", 64, 16, BP, 0, 8, PTL_NI_PERM_VIOLATION, 0);
    PUT_ACK(s, "put to my uid's ME", 64, 16, BQ, 0, 9, PTL_NI_OK, 16, 0);
    PUT_ACK(s, "put to an ME with no operations", 0, 16, BN, 0, 10, PTL_NI_OP_VIOLATION, 0, 0);
    GET_REPLY(s, "get from an ME with no operations", 64, 16, BN, 0, 11, PTL_NI_OP_VIOLATION, 0);
    /* counting acks: the failures are counted as failures */
    OK(PtlPut(s->cmd, 0, 8, PTL_CT_ACK_REQ, t, s->pt, BV, 0, NULL, 0));
    EXPECT_CT(s->ict, 0, 1);
    OK(PtlPut(s->cmd, 0, 8, PTL_CT_ACK_REQ, t, s->pt, BP, 0, NULL, 0));
    EXPECT_CT(s->ict, 0, 2);
    OK(PtlPut(s->cmd, 0, 8, PTL_CT_ACK_REQ, t, s->pt, BQ ^ 0x100, 0, NULL, 0));
    EXPECT_CT(s->ict, 0, 3);
    OK(PtlPut(s->cmd, 0, 8, PTL_CT_ACK_REQ, t, s->pt, BQ, 0, NULL, hdr_of(me, 12)));
    EXPECT_CT(s->ict, 1, 3);
    CHECK_PATTERN(dbuf, right, 110, 32, "%s: get from the Get-only ME", s->name);
    CHECK_BYTES(dbuf + 32, 0x5a, TBSZ - 32, "%s: the failed fetching ops wrote nothing", s->name);
    /* the target: events only for what succeeded */
    TEV(s, "get from the Get-only ME", want_m(s, PTL_EVENT_GET, tbuf, U(1), 0, 32, 32, 0, BV, left));
    w = want_m(s, PTL_EVENT_ATOMIC, tbuf + 512, U(3), hdr_of(left, 6), 8, 8, 0, BW, left);
    w.fields |= EV_AOP;
    w.op = PTL_SUM;
    w.dt = PTL_UINT64_T;
    TEV(s, "atomic to the Put-only ME", w);
    TEV(s, "put to my uid's ME", want_m(s, PTL_EVENT_PUT, tbuf + 1024, U(5), hdr_of(left, 9), 16, 16, 0, BQ, left));
    TEV(s, "counted put to my uid's ME", want_m(s, PTL_EVENT_PUT, tbuf + 1024, U(5), hdr_of(left, 12), 8, 8, 0, BQ, left));
    BARRIER();
    OK(PtlNIStatus(s->ni, PTL_SR_OPERATION_VIOLATIONS, &op1));
    OK(PtlNIStatus(s->ni, PTL_SR_PERMISSION_VIOLATIONS, &perm1));
    CHECK(op1 - op0 == 7, "%s: PtlNIStatus operation violations went up by %lld, want 7", s->name,
          (long long)(op1 - op0));
    CHECK(perm1 - perm0 == 3, "%s: PtlNIStatus permission violations went up by %lld, want 3", s->name,
          (long long)(perm1 - perm0));
    CHECK_PATTERN(tbuf, me, 110, 64, "%s: the Get-only ME after a refused put", s->name);
    CHECK_BYTES(tbuf + 64, 0xee, 512 - 64, "%s: the refused put reached neither ME", s->name);
    uint64_t a64;
    memcpy(&a64, tbuf + 512, 8);
    uint64_t want64;
    unsigned char lsrc[8];
    pt_fill(lsrc, left, 111, 8);
    memcpy(&want64, lsrc, 8);
    CHECK(a64 == want64, "%s: atomic SUM on the Put-only ME gave 0x%llx, want 0x%llx", s->name,
          (unsigned long long)a64, (unsigned long long)want64);
    CHECK_BYTES(tbuf + 520, 0xee, 1024 - 520, "%s: the refused ops on the Put-only and other user's MEs", s->name);
    CHECK_PATTERN(tbuf + 1024, left, 111, 8, "%s: counted put to my uid's ME", s->name);
    for (int i = 8; i < 16; i++)
        CHECK(tbuf[1024 + i] == pt_pattern(left, 112, (uint64_t)i), "%s: put to my uid's ME byte %d", s->name, i);
    CHECK_BYTES(tbuf + 1040, 0xee, TBSZ - 1040, "%s: the ME with no operations", s->name);
    QUIET(s, "violations");
    for (int i = 0; i < 6; i++)
        EXPECT_RC(PTL_OK, PtlMEUnlink(h[i]));
}

/* ---- match_id under a permuting PtlSetMap: a logical match_id names the
 * initiator's logical rank, not its process ---- */
static void t_map(struct side *s)
{
    ptl_process_t *map = pt_xmalloc(n * sizeof *map);
    uint32_t *inv = pt_xmalloc(n * sizeof *inv);
    for (uint32_t l = 0; l < n; l++) { /* logical rank l is process (l + 1) % n */
        map[l] = pt_phys((l + 1) % n);
        inv[(l + 1) % n] = l;
    }
    OK(PtlSetMap(s->ni, n, map));
    /* (not through pt_lrank_of: the barrier's NI keeps the identity map) */
    ptl_process_t lleft, lright;
    memset(&lleft, 0, sizeof lleft);
    memset(&lright, 0, sizeof lright);
    lleft.rank = inv[left];
    lright.rank = inv[right];
    memset(tbuf, 0xee, TBSZ);
    /* A: the number of my left neighbour's process, which under the map is
     * another logical rank (the one of my own process); B: its logical rank */
    ptl_me_t e = mk_me(tbuf, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY, id_of(s, left), BX, 0, 0);
    ptl_handle_me_t ha = APPEND(s, &e, U(1));
    e = mk_me(tbuf + 256, 256, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_UID_ANY, lleft, BX, 0, 0);
    ptl_handle_me_t hb = APPEND(s, &e, U(2));
    pt_fill(sbuf, me, 130, 16);
    BARRIER();
    OK(PtlPut(s->smd, 0, 16, PTL_ACK_REQ, lright, s->pt, BX, 0, IU(1), hdr_of(me, 1)));
    ptl_event_t ev;
    WAIT_EVENT(s->ieq, &ev);
    struct evwant w = want_ack(IU(1), 16, 0, s->pt, PTL_NI_OK);
    CHECK_EVENT("permuted map: put to my right neighbour's logical rank", &ev, &w);
    TEV(s, "permuted map: the put matches the ME naming the sender's logical rank",
        want_m(s, PTL_EVENT_PUT, tbuf + 256, U(2), hdr_of(left, 1), 16, 16, 0, BX, inv[left]));
    CHECK_BYTES(tbuf, 0xee, 256, "%s: permuted map: ME naming the process number", s->name);
    CHECK_PATTERN(tbuf + 256, left, 130, 16, "%s: permuted map", s->name);
    CHECK_BYTES(tbuf + 272, 0xee, TBSZ - 272, "%s: permuted map", s->name);
    BARRIER();
    QUIET(s, "permuted map");
    EXPECT_RC(PTL_OK, PtlMEUnlink(ha));
    EXPECT_RC(PTL_OK, PtlMEUnlink(hb));
    for (uint32_t l = 0; l < n; l++)
        map[l] = pt_phys(l);
    OK(PtlSetMap(s->ni, n, map));
    free(map);
    free(inv);
    BARRIER();
}

/* ---- the NIs: kinds, handles, own portal tables, separate delivery ---- */
static void t_nis(ptl_handle_eq_t beq)
{
    ptl_handle_ni_t h;
    ptl_ni_limits_t lim;
    CHECK(!PtlHandleIsEqual(bni, LG.ni), "the matching and non-matching logical NIs have the same handle");
    CHECK(!PtlHandleIsEqual(LG.ni, PH.ni), "the logical and physical matching NIs have the same handle");
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &h));
    CHECK(PtlHandleIsEqual(h, LG.ni), "a second matching logical PtlNIInit gave another handle");
    OK(PtlNIFini(h));
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &lim, &h));
    CHECK(PtlHandleIsEqual(h, PH.ni), "a second matching physical PtlNIInit gave another handle");
    OK(PtlNIFini(h));
    ptl_process_t id;
    OK(PtlGetId(LG.ni, &id));
    CHECK(id.rank == me, "PtlGetId on the matching logical NI: rank %u, want %u", id.rank, me);
    OK(PtlGetId(PH.ni, &id));
    CHECK(id.phys.nid == pt_node && id.phys.pid == me, "PtlGetId on the matching physical NI: {%u,%u}, want {%u,%u}",
          id.phys.nid, id.phys.pid, pt_node, me);

    /* own portal tables: the barrier holds index 63 of the non-matching
     * NI; the matching NIs' index 63 is free */
    ptl_pt_index_t i;
    OK(PtlPTAlloc(LG.ni, 0, PTL_EQ_NONE, PT_BARRIER_INDEX, &i));
    CHECK(i == PT_BARRIER_INDEX, "PtlPTAlloc(63) gave %u", i);
    OK(PtlPTFree(LG.ni, PT_BARRIER_INDEX));
    OK(PtlPTAlloc(PH.ni, 0, PTL_EQ_NONE, PT_BARRIER_INDEX, &i));
    OK(PtlPTFree(PH.ni, PT_BARRIER_INDEX));

    /* index 0 on all three NIs: an LE on the non-matching one, an ME on the
     * matching logical one; each put reaches its own NI's entry */
    ptl_pt_index_t bpt;
    OK(PtlPTAlloc(bni, 0, beq, 0, &bpt));
    REQUIRE(LG.pt == 0 && bpt == 0, "PT indexes %u and %u, want 0 and 0", LG.pt, bpt);
    memset(tbuf, 0xee, TBSZ);
    ptl_le_t le = pt_le(tbuf, 256, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t lh;
    OK(PtlLEAppend(bni, bpt, &le, PTL_PRIORITY_LIST, U(7), &lh));
    ptl_me_t e = mk_me(tbuf + 256, 256, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY,
                       id_any(&LG), 0, ~0ull, 0);
    ptl_handle_me_t mh = APPEND(&LG, &e, U(8));
    ptl_handle_eq_t bieq;
    OK(PtlEQAlloc(bni, 16, &bieq));
    static unsigned char bsrc[64];
    pt_fill(bsrc, me, 120, 64);
    ptl_md_t d = pt_md(bsrc, 64, PTL_MD_EVENT_SEND_DISABLE, bieq, PTL_CT_NONE);
    ptl_handle_md_t bmd;
    OK(PtlMDBind(bni, &d, &bmd));
    pt_fill(sbuf, me, 121, 64);
    BARRIER();
    OK(PtlPut(bmd, 0, 64, PTL_ACK_REQ, pt_lrank(right), bpt, 0x99, 8, IU(1), hdr_of(me, 1)));
    ptl_event_t ev;
    WAIT_EVENT(bieq, &ev);
    struct evwant w = want_ack(IU(1), 64, 8, bpt, PTL_NI_OK);
    CHECK_EVENT("put on the non-matching NI", &ev, &w);
    PUT_ACK(&LG, "put on the matching NI, same PT index", 0, 64, 0x99, 8, 2, PTL_NI_OK, 64, 8);
    WAIT_EVENT(beq, &ev);
    w = want_target(PTL_EVENT_PUT, tbuf + 8, U(7), hdr_of(left, 1), 64, 64, 8, left, bpt);
    CHECK_EVENT("the non-matching NI's event (no match bits)", &ev, &w);
    TEV(&LG, "the matching NI's event", want_m(&LG, PTL_EVENT_PUT, tbuf + 256 + 8, U(8), hdr_of(left, 2), 64, 64, 8, 0x99, left));
    CHECK_BYTES(tbuf, 0xee, 8, "separate NIs");
    CHECK_PATTERN(tbuf + 8, left, 120, 64, "put on the non-matching NI");
    CHECK_BYTES(tbuf + 72, 0xee, 256 - 72 + 8, "separate NIs");
    CHECK_PATTERN(tbuf + 264, left, 121, 64, "put on the matching NI");
    CHECK_BYTES(tbuf + 328, 0xee, TBSZ - 328, "separate NIs");
    BARRIER();
    QUIET(&LG, "separate NIs");
    EXPECT_EMPTY(beq, "separate NIs");
    EXPECT_EMPTY(bieq, "separate NIs");
    OK(PtlLEUnlink(lh));
    OK(PtlMEUnlink(mh));
    OK(PtlMDRelease(bmd));
    OK(PtlEQFree(bieq));
    OK(PtlPTFree(bni, bpt));
}

/* ---- call-level rules ---- */
static void t_args(struct side *s)
{
    static char buf[256];
    ptl_handle_me_t mh = PTL_INVALID_HANDLE;
    ptl_me_t e = simple_me(s, buf, sizeof buf, PTL_ME_OP_PUT, 1);
    ptl_le_t le = pt_le(buf, sizeof buf, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t lh = PTL_INVALID_HANDLE;

    /* an LE on a matching NI, an ME on a non-matching one */
    EXPECT_RC(PTL_ARG_INVALID, PtlLEAppend(s->ni, s->pt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    ptl_pt_index_t bpt;
    OK(PtlPTAlloc(bni, 0, PTL_EQ_NONE, PTL_PT_ANY, &bpt));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(bni, bpt, &e, PTL_PRIORITY_LIST, NULL, &mh));

    /* options */
    e.options = PTL_ME_OP_PUT | 0x80000; /* just outside PTL_ME_APPEND_OPTIONS_MASK */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, PTL_PRIORITY_LIST, NULL, &mh));
    e.options = PTL_ME_OP_PUT | 0x80000000u;
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, PTL_PRIORITY_LIST, NULL, &mh));
    e.options = PTL_ME_OP_PUT | PTL_IOVEC;
    void *keep = e.start;
    e.start = NULL; /* an iovec ME without a segment table */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, PTL_PRIORITY_LIST, NULL, &mh));
    e.start = keep;
    /* the overflow list is accepted (ptl_overflow tests what it does) */
    e.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    OK(PtlMEAppend(s->ni, s->pt, &e, PTL_OVERFLOW_LIST, NULL, &mh));
    OK(PtlMEUnlink(mh));
    e.options = PTL_ME_OP_PUT;
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, 2, NULL, &mh));

    /* other arguments */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, NULL, PTL_PRIORITY_LIST, NULL, &mh));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, PTL_PRIORITY_LIST, NULL, NULL));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, 64, &e, PTL_PRIORITY_LIST, NULL, &mh));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, 40, &e, PTL_PRIORITY_LIST, NULL, &mh)); /* not allocated */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(PTL_INVALID_HANDLE, s->pt, &e, PTL_PRIORITY_LIST, NULL, &mh));
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(s->ni, &ct));
    OK(PtlCTFree(ct));
    e.ct_handle = ct; /* freed */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, PTL_PRIORITY_LIST, NULL, &mh));
    e.ct_handle = PTL_CT_NONE;
    QUIET(s, "refused appends post no LINK event");

    /* a counter given as PTL_INVALID_HANDLE is refused (PTL_CT_NONE means
     * none); match_id, bits and min_free of any value are accepted */
    e = mk_me(buf, sizeof buf, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_INVALID_HANDLE, PTL_UID_ANY, id_any(s),
              ~0ull, ~0ull, 1u << 20);
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(s->ni, s->pt, &e, PTL_PRIORITY_LIST, NULL, &mh));
    QUIET(s, "an append refused for its counter posts no LINK event");
    e.ct_handle = PTL_CT_NONE;
    ptl_handle_me_t h1 = APPEND(s, &e, U(1));

    /* unlinking: handles of the other kind are refused and leave the entry */
    ptl_handle_me_t h2;
    e = simple_me(s, buf, sizeof buf, PTL_ME_OP_PUT, 2);
    h2 = APPEND(s, &e, U(2));
    EXPECT_RC(PTL_PT_IN_USE, PtlPTFree(s->ni, s->pt));
    OK(PtlLEAppend(bni, bpt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h2));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(lh));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(PTL_INVALID_HANDLE));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(s->ni));
    EXPECT_RC(PTL_OK, PtlMEUnlink(h2));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h2));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h2));
    EXPECT_RC(PTL_OK, PtlLEUnlink(lh));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(lh));
    EXPECT_RC(PTL_OK, PtlMEUnlink(h1));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h1));
    QUIET(s, "unlinks post no event");

    /* searches with nothing unexpected: one SEARCH event, PTL_NI_DROPPED */
    e = simple_me(s, buf, sizeof buf, PTL_ME_OP_PUT, 1);
    OK(PtlMESearch(s->ni, s->pt, &e, PTL_SEARCH_ONLY, U(21)));
    OK(PtlMESearch(s->ni, s->pt, &e, PTL_SEARCH_DELETE, U(22)));
    for (int k = 0; k < 2; k++) {
        ptl_event_t sev;
        WAIT_EVENT(s->teq, &sev);
        CHECK(sev.type == PTL_EVENT_SEARCH && sev.ni_fail_type == PTL_NI_NO_MATCH && sev.user_ptr == U(21 + k),
              "search %d: %s %s", k, pt_evname(sev.type), pt_failname(sev.ni_fail_type));
    }
    EXPECT_RC(PTL_ARG_INVALID, PtlMESearch(s->ni, s->pt, &e, 2, NULL));
    EXPECT_RC(PTL_ARG_INVALID, PtlLESearch(s->ni, s->pt, &le, PTL_SEARCH_ONLY, NULL)); /* LE on a matching NI */
    QUIET(s, "searches");
    OK(PtlPTFree(bni, bpt));
}

static void side_init(struct side *s)
{
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | (s->phys ? PTL_NI_PHYSICAL : PTL_NI_LOGICAL), PTL_PID_ANY, NULL,
                 &lim, &s->ni));
    OK(PtlEQAlloc(s->ni, 1024, &s->teq));
    OK(PtlEQAlloc(s->ni, 1024, &s->ieq));
    OK(PtlCTAlloc(s->ni, &s->tct));
    OK(PtlCTAlloc(s->ni, &s->ict));
    OK(PtlPTAlloc(s->ni, 0, s->teq, PTL_PT_ANY, &s->pt));
    CHECK(s->pt == 0, "%s: first PTL_PT_ANY gave %u, want 0 (own table)", s->name, s->pt);
    ptl_md_t d = pt_md(sbuf, TBSZ, PTL_MD_EVENT_SEND_DISABLE, s->ieq, PTL_CT_NONE);
    OK(PtlMDBind(s->ni, &d, &s->smd));
    d = pt_md(dbuf, TBSZ, PTL_MD_EVENT_SEND_DISABLE, s->ieq, PTL_CT_NONE);
    OK(PtlMDBind(s->ni, &d, &s->dmd));
    d = pt_md(sbuf, TBSZ, PTL_MD_EVENT_SEND_DISABLE | PTL_MD_EVENT_CT_ACK, s->ieq, s->ict);
    OK(PtlMDBind(s->ni, &d, &s->cmd));
}

static void side_fini(struct side *s)
{
    OK(PtlMDRelease(s->smd));
    OK(PtlMDRelease(s->dmd));
    OK(PtlMDRelease(s->cmd));
    OK(PtlPTFree(s->ni, s->pt));
    OK(PtlCTFree(s->tct));
    OK(PtlCTFree(s->ict));
    OK(PtlEQFree(s->teq));
    OK(PtlEQFree(s->ieq));
    OK(PtlNIFini(s->ni));
}

static void run(struct side *s)
{
    t_tags(s);
    t_ignore(s);
    t_match_id(s);
    t_use_once(s);
    t_no_truncate(s);
    t_manage_local(s);
    t_get_atomic(s);
    t_violations(s);
    if (!s->phys)
        t_map(s);
    BARRIER();
    t_args(s);
    BARRIER();
}

int main(void)
{
    pt_env();
    me = pt_me;
    n = pt_n;
    REQUIRE(n >= 2, "needs at least 2 ranks, has %u", n);
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    tbuf = pt_xmalloc(TBSZ);
    sbuf = pt_xmalloc(TBSZ);
    dbuf = pt_xmalloc(TBSZ);

    OK(PtlInit());
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &bni));
    pt_barrier_init(bni, 1);
    ptl_handle_eq_t beq;
    OK(PtlEQAlloc(bni, 64, &beq));
    side_init(&LG);
    side_init(&PH);

    t_nis(beq);
    run(&LG);
    run(&PH);

    BARRIER();
    side_fini(&LG);
    side_fini(&PH);
    OK(PtlEQFree(beq));
    pt_barrier_fini();
    OK(PtlNIFini(bni));
    PtlFini();
    return pt_done("ptl_matching");
}
