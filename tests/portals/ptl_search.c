/* PtlMESearch / PtlLESearch and the overflow events around them, as
 * Portals 4.3 (and its reference implementation) has them:
 *  - PTL_SEARCH_ONLY posts one PTL_EVENT_SEARCH per matching unexpected
 *    header, oldest first (the first only with a use-once entry), or one
 *    with PTL_NI_NO_MATCH; the headers stay;
 *  - PTL_ME_EVENT_CT_OVERFLOW on the searching entry counts each header
 *    found (or its bytes) and one failure when the whole list was looked
 *    through (use-once: only if nothing was found);
 *  - PTL_SEARCH_DELETE posts PTL_EVENT_PUT_OVERFLOW per header and
 *    forgets them;
 *  - a use-once priority append that claims a header is used up at once
 *    (PUT_OVERFLOW, AUTO_UNLINK, never linked);
 *  - a used-up overflow entry is AUTO_FREEd only when its last unexpected
 *    header is claimed.
 * Rank 1 puts, rank 0 is the target. */
#include "ptest.h"

#define PT_M 5   /* matching NI: search, delete, claim */
#define PT_F 6   /* matching NI: AUTO_UNLINK / AUTO_FREE of overflow entries */
#define PT_L 7   /* non-matching NI: PtlLESearch */
#define LEN 8    /* every put: 8 bytes */
#define NPUT 11

/* What rank 1 sends: puts 0..6 to PT_M, 7..8 to PT_F, 9..10 to PT_L. */
static const uint64_t tag_of[NPUT] = {1, 55, 1, 1, 55, 77, 77, 11, 12, 0, 0};
static int pt_of(int i) { return i < 7 ? PT_M : i < 9 ? PT_F : PT_L; }
/* the LE has no locally managed offset: the sender places its puts */
static ptl_size_t roff_of(int i) { return i < 9 ? 0 : (ptl_size_t)(i - 9) * LEN; }
static ptl_hdr_data_t hdr_of(int i) { return 0x1000u + (unsigned)i; }

static uint8_t src[NPUT][LEN];                  /* rank 1's payloads */
static uint8_t ovf[1024], ovu1[64], ovu2[64], lbuf[256], rbuf[64];

/* Where put i landed at rank 0. */
static void *at_of(int i)
{
    if (i < 7)
        return ovf + i * LEN; /* PTL_ME_MANAGE_LOCAL: one after the other */
    if (i == 7)
        return ovu1;
    if (i == 8)
        return ovu2;
    return lbuf + roff_of(i);
}

/* Distinct user_ptrs, one per entry or search. */
static char tags[32];
#define UP(k) ((void *)&tags[k])
enum { U_OVF, U_S, U_S1, U_S2, U_S3, U_CT, U_D, U_D2, U_P, U_U1, U_U2, U_C1, U_C2, U_L, U_LS, U_LD };

static ptl_me_t me_of(void *buf, size_t len, uint64_t bits, unsigned opts, ptl_handle_ct_t ct)
{
    ptl_me_t e;
    memset(&e, 0, sizeof e);
    e.start = buf;
    e.length = len;
    e.ct_handle = ct;
    e.uid = PTL_UID_ANY;
    e.options = opts | PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    e.match_id.rank = PTL_RANK_ANY;
    e.match_bits = bits;
    return e;
}

static ptl_event_t next_ev(ptl_handle_eq_t eq)
{
    ptl_event_t ev;
    memset(&ev, 0, sizeof ev);
    WAIT_EVENT(eq, &ev);
    return ev;
}

/* The next event must report header i: type, every field, and the bytes
 * at start must be what rank 1 sent. */
static void expect_hdr_(int line, ptl_handle_eq_t eq, int type, int list, void *uptr, int i, const char *what)
{
    ptl_event_t ev = next_ev(eq);
    const char *ctx = pt_ctx("line %d: %s (put %d, tag %llu)", line, what, i, (unsigned long long)tag_of[i]);
    struct evwant w = want_target(type, at_of(i), uptr, hdr_of(i), LEN, LEN, roff_of(i), 1, (ptl_pt_index_t)pt_of(i));
    w.fields = (w.fields & ~(unsigned)(EV_LIST | EV_MATCH)) | EV_MBITS; /* EV_LIST means priority */
    w.match_bits = tag_of[i];
    CHECK_EVENT(ctx, &ev, &w);
    if (ev.type != type)
        return;
    CHECK(ev.ptl_list == list, "%s: ptl_list %d, want %d", ctx, ev.ptl_list, list);
    if (ev.start == at_of(i))
        CHECK_PATTERN(ev.start, 1, (uint64_t)i, LEN, "%s", ctx);
}
#define EXPECT_HDR(eq, type, list, uptr, i, what) expect_hdr_(__LINE__, (eq), (type), (list), (uptr), (i), (what))

/* The next event must be a search that found nothing. */
static void expect_nomatch_(int line, ptl_handle_eq_t eq, void *uptr, ptl_pt_index_t pt, const char *what)
{
    ptl_event_t ev = next_ev(eq);
    CHECK(ev.type == PTL_EVENT_SEARCH && ev.ni_fail_type == PTL_NI_NO_MATCH && ev.user_ptr == uptr &&
              ev.pt_index == pt,
          "line %d: %s: got %s %s uptr %p pt %u, want SEARCH PTL_NI_NO_MATCH %p pt %u", line, what,
          pt_evname(ev.type), pt_failname(ev.ni_fail_type), ev.user_ptr, ev.pt_index, uptr, pt);
}
#define EXPECT_NOMATCH(eq, uptr, pt, what) expect_nomatch_(__LINE__, (eq), (uptr), (pt), (what))

/* The next event must be an entry event (AUTO_UNLINK, AUTO_FREE). */
static void expect_entry_(int line, ptl_handle_eq_t eq, int type, int list, void *uptr, ptl_pt_index_t pt,
                          const char *what)
{
    ptl_event_t ev = next_ev(eq);
    CHECK(ev.type == type && ev.ni_fail_type == PTL_NI_OK && ev.user_ptr == uptr && ev.ptl_list == list &&
              ev.pt_index == pt,
          "line %d: %s: got %s %s uptr %p list %d pt %u, want %s PTL_NI_OK %p list %d pt %u", line, what,
          pt_evname(ev.type), pt_failname(ev.ni_fail_type), ev.user_ptr, ev.ptl_list, ev.pt_index,
          pt_evname(type), uptr, list, pt);
}
#define EXPECT_ENTRY(eq, type, list, uptr, pt, what) expect_entry_(__LINE__, (eq), (type), (list), (uptr), (pt), (what))

/* The counter must read exactly (s, f). Search and append are
 * synchronous, so the values are final when the call returns; the short
 * bounded poll (it ends at success >= s + f or at the first failure) is
 * only a safety margin, and a counter that never moves fails here after
 * 3 s instead of hanging the job. PtlCTGet then reads both exactly. */
static void expect_ct_(int line, ptl_handle_ct_t ct, ptl_size_t s, ptl_size_t f, const char *what)
{
    ptl_ct_event_t c = {0, 0};
    ptl_size_t test = s + f;
    unsigned int which = 0;
    int rc = PtlCTPoll(&ct, &test, 1, 3000, &c, &which);
    CHECK(rc == PTL_OK || rc == PTL_CT_NONE_REACHED, "line %d: %s: PtlCTPoll %s", line, what, pt_rcname(rc));
    OK(PtlCTGet(ct, &c));
    CHECK(c.success == s && c.failure == f, "line %d: %s: counter success %llu failure %llu, want %llu and %llu",
          line, what, (unsigned long long)c.success, (unsigned long long)c.failure, (unsigned long long)s,
          (unsigned long long)f);
}
#define EXPECT_CTV(ct, s, f, what) expect_ct_(__LINE__, (ct), (s), (f), (what))

static void ct_zero(ptl_handle_ct_t ct)
{
    ptl_ct_event_t z = {0, 0};
    OK(PtlCTSet(ct, z));
}

/* Rank 1: put i and wait for its ack, so that rank 0's events are posted
 * before the next barrier. */
static void send_one(ptl_handle_md_t md, ptl_handle_eq_t eq, int i)
{
    OK(PtlPut(md, (ptl_size_t)i * LEN, LEN, PTL_ACK_REQ, pt_lrank(0), (ptl_pt_index_t)pt_of(i), tag_of[i],
              roff_of(i), NULL, hdr_of(i)));
    ptl_event_t ev = next_ev(eq);
    CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK && ev.mlength == LEN, "put %d: %s %s mlength %llu",
          i, pt_evname(ev.type), pt_failname(ev.ni_fail_type), (unsigned long long)ev.mlength);
}

/* Items 1-5: search, count, delete, claim on PT_M. Headers 0..6 carry
 * tags 1,55,1,1,55,77,77. */
static void matching_search(ptl_handle_ni_t ni, ptl_handle_eq_t eq, ptl_handle_me_t ovh)
{
    for (int i = 0; i < 7; i++)
        EXPECT_HDR(eq, PTL_EVENT_PUT, PTL_OVERFLOW_LIST, UP(U_OVF), i, "unexpected put");
    EXPECT_EMPTY(eq, "only the 7 unexpected puts");
    CHECK_BYTES(ovf + 7 * LEN, 0, sizeof ovf - 7 * LEN, "overflow buffer past the 7 puts");

    /* 2. search only, no counter: every tag-1 header, oldest first */
    ptl_me_t s = me_of(rbuf, sizeof rbuf, 1, 0, PTL_CT_NONE);
    for (int round = 0; round < 2; round++) { /* the second finds them again: they stay */
        OK(PtlMESearch(ni, PT_M, &s, PTL_SEARCH_ONLY, UP(U_S)));
        EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S), 0, "search tag 1");
        EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S), 2, "search tag 1");
        EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S), 3, "search tag 1");
        EXPECT_EMPTY(eq, "search tag 1: one event per header, nothing else");
    }
    ptl_me_t s55 = me_of(rbuf, sizeof rbuf, 55, 0, PTL_CT_NONE);
    OK(PtlMESearch(ni, PT_M, &s55, PTL_SEARCH_ONLY, UP(U_S1)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S1), 1, "search tag 55");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S1), 4, "search tag 55");
    EXPECT_EMPTY(eq, "search tag 55");
    /* ignore bits: every header, in arrival order across tags */
    ptl_me_t sall = me_of(rbuf, sizeof rbuf, 0, 0, PTL_CT_NONE);
    sall.ignore_bits = ~0ull;
    OK(PtlMESearch(ni, PT_M, &sall, PTL_SEARCH_ONLY, UP(U_S2)));
    for (int i = 0; i < 7; i++)
        EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S2), i, "search any tag");
    EXPECT_EMPTY(eq, "search any tag");
    /* use-once: the oldest only */
    ptl_me_t s1 = me_of(rbuf, sizeof rbuf, 1, PTL_ME_USE_ONCE, PTL_CT_NONE);
    OK(PtlMESearch(ni, PT_M, &s1, PTL_SEARCH_ONLY, UP(U_S3)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S3), 0, "use-once search tag 1");
    EXPECT_EMPTY(eq, "use-once search tag 1: the first header only");
    /* no match: one NO_MATCH event (use-once or not) */
    ptl_me_t s101 = me_of(rbuf, sizeof rbuf, 101, 0, PTL_CT_NONE);
    OK(PtlMESearch(ni, PT_M, &s101, PTL_SEARCH_ONLY, UP(U_S)));
    EXPECT_NOMATCH(eq, UP(U_S), PT_M, "search tag 101");
    EXPECT_EMPTY(eq, "search tag 101");
    s101.options |= PTL_ME_USE_ONCE;
    OK(PtlMESearch(ni, PT_M, &s101, PTL_SEARCH_ONLY, UP(U_S3)));
    EXPECT_NOMATCH(eq, UP(U_S3), PT_M, "use-once search tag 101");
    EXPECT_EMPTY(eq, "use-once search tag 101");
    /* the initiator must match too: nobody but rank 1 sent */
    ptl_me_t sr0 = me_of(rbuf, sizeof rbuf, 1, 0, PTL_CT_NONE);
    sr0.match_id.rank = 0;
    OK(PtlMESearch(ni, PT_M, &sr0, PTL_SEARCH_ONLY, UP(U_S)));
    EXPECT_NOMATCH(eq, UP(U_S), PT_M, "search tag 1 from rank 0");
    EXPECT_EMPTY(eq, "search tag 1 from rank 0");
    /* PTL_ME_EVENT_COMM_DISABLE: no search events, found or not */
    ptl_me_t sq = me_of(rbuf, sizeof rbuf, 1, PTL_ME_EVENT_COMM_DISABLE, PTL_CT_NONE);
    OK(PtlMESearch(ni, PT_M, &sq, PTL_SEARCH_ONLY, UP(U_S)));
    EXPECT_EMPTY(eq, "COMM_DISABLE search tag 1");
    sq.match_bits = 101;
    OK(PtlMESearch(ni, PT_M, &sq, PTL_SEARCH_ONLY, UP(U_S)));
    EXPECT_EMPTY(eq, "COMM_DISABLE search tag 101");

    /* 3. a counter on the searching entry: success per header found,
     * one failure once the whole list was looked through */
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(ni, &ct));
    ptl_me_t c1 = me_of(rbuf, sizeof rbuf, 1, PTL_ME_EVENT_CT_OVERFLOW, ct);
    OK(PtlMESearch(ni, PT_M, &c1, PTL_SEARCH_ONLY, UP(U_CT)));
    EXPECT_CTV(ct, 3, 1, "counting search tag 1");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_CT), 0, "counting search tag 1");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_CT), 2, "counting search tag 1");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_CT), 3, "counting search tag 1");
    EXPECT_EMPTY(eq, "counting search tag 1");
    ct_zero(ct);
    ptl_me_t cb = me_of(rbuf, sizeof rbuf, 1,
                        PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_EVENT_CT_BYTES | PTL_ME_EVENT_COMM_DISABLE, ct);
    OK(PtlMESearch(ni, PT_M, &cb, PTL_SEARCH_ONLY, UP(U_CT)));
    EXPECT_CTV(ct, 3 * LEN, 1, "byte-counting search tag 1");
    EXPECT_EMPTY(eq, "byte-counting search tag 1 with COMM_DISABLE");
    ct_zero(ct);
    ptl_me_t c1o = me_of(rbuf, sizeof rbuf, 1, PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_USE_ONCE, ct);
    OK(PtlMESearch(ni, PT_M, &c1o, PTL_SEARCH_ONLY, UP(U_CT)));
    EXPECT_CTV(ct, 1, 0, "use-once counting search tag 1");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_CT), 0, "use-once counting search tag 1");
    EXPECT_EMPTY(eq, "use-once counting search tag 1");
    for (int once = 0; once < 2; once++) {
        ct_zero(ct);
        ptl_me_t cn = me_of(rbuf, sizeof rbuf, 101, PTL_ME_EVENT_CT_OVERFLOW | (once ? PTL_ME_USE_ONCE : 0), ct);
        OK(PtlMESearch(ni, PT_M, &cn, PTL_SEARCH_ONLY, UP(U_CT)));
        EXPECT_CTV(ct, 0, 1, once ? "use-once counting search tag 101" : "counting search tag 101");
        EXPECT_NOMATCH(eq, UP(U_CT), PT_M, "counting search tag 101");
        EXPECT_EMPTY(eq, "counting search tag 101");
    }

    /* 4. search-delete tag 55: an overflow event per header, then gone */
    ct_zero(ct);
    ptl_me_t d55 = me_of(rbuf, sizeof rbuf, 55, PTL_ME_EVENT_CT_OVERFLOW, ct);
    OK(PtlMESearch(ni, PT_M, &d55, PTL_SEARCH_DELETE, UP(U_D)));
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_D), 1, "delete tag 55");
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_D), 4, "delete tag 55");
    EXPECT_EMPTY(eq, "delete tag 55");
    EXPECT_CTV(ct, 2, 1, "counting delete tag 55");
    /* same entry and counter, now a plain search */
    OK(PtlMESearch(ni, PT_M, &d55, PTL_SEARCH_ONLY, UP(U_D)));
    EXPECT_NOMATCH(eq, UP(U_D), PT_M, "tag 55 after delete");
    EXPECT_EMPTY(eq, "tag 55 after delete");
    EXPECT_CTV(ct, 2, 2, "search tag 55 after delete: one more failure");
    /* PTL_ME_EVENT_OVER_DISABLE: silent, but deletes all the same */
    ptl_me_t d77 = me_of(rbuf, sizeof rbuf, 77, PTL_ME_EVENT_OVER_DISABLE, PTL_CT_NONE);
    OK(PtlMESearch(ni, PT_M, &d77, PTL_SEARCH_DELETE, UP(U_D2)));
    EXPECT_EMPTY(eq, "OVER_DISABLE delete tag 77");
    d77.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    OK(PtlMESearch(ni, PT_M, &d77, PTL_SEARCH_ONLY, UP(U_D2)));
    EXPECT_NOMATCH(eq, UP(U_D2), PT_M, "tag 77 after silent delete");
    EXPECT_EMPTY(eq, "tag 77 after silent delete");
    OK(PtlMESearch(ni, PT_M, &sall, PTL_SEARCH_ONLY, UP(U_S2)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S2), 0, "what is left");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S2), 2, "what is left");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S2), 3, "what is left");
    EXPECT_EMPTY(eq, "only the tag-1 headers are left");

    /* 5. a use-once priority append claims the oldest tag-1 header and is
     * used up without ever being linked */
    ct_zero(ct);
    ptl_me_t p1 = me_of(rbuf, sizeof rbuf, 1, PTL_ME_USE_ONCE | PTL_ME_EVENT_CT_OVERFLOW, ct);
    ptl_handle_me_t ph;
    OK(PtlMEAppend(ni, PT_M, &p1, PTL_PRIORITY_LIST, UP(U_P), &ph));
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_P), 0, "use-once append tag 1");
    EXPECT_ENTRY(eq, PTL_EVENT_AUTO_UNLINK, PTL_PRIORITY_LIST, UP(U_P), PT_M, "use-once append tag 1");
    EXPECT_EMPTY(eq, "use-once append tag 1");
    EXPECT_CTV(ct, 1, 0, "counting use-once append tag 1");
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(ph)); /* already unlinked */
    OK(PtlMESearch(ni, PT_M, &s, PTL_SEARCH_ONLY, UP(U_S)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S), 2, "tag 1 after the claim");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S), 3, "tag 1 after the claim");
    EXPECT_EMPTY(eq, "tag 1 after the claim: the oldest is gone");

    OK(PtlCTFree(ct));
    OK(PtlMEUnlink(ovh));
    OK(PtlPTFree(ni, PT_M)); /* forgets headers 2 and 3 */
}

/* Item 6 on PT_F: overflow entry U1 (use-once) took put 7 (tag 11), U2
 * (use-once, UNLINK_DISABLE) took put 8 (tag 12). */
static void overflow_free(ptl_handle_ni_t ni, ptl_handle_eq_t eq, ptl_handle_me_t u1, ptl_handle_me_t u2)
{
    EXPECT_HDR(eq, PTL_EVENT_PUT, PTL_OVERFLOW_LIST, UP(U_U1), 7, "use-once overflow entry");
    EXPECT_ENTRY(eq, PTL_EVENT_AUTO_UNLINK, PTL_OVERFLOW_LIST, UP(U_U1), PT_F, "use-once overflow entry");
    EXPECT_HDR(eq, PTL_EVENT_PUT, PTL_OVERFLOW_LIST, UP(U_U2), 8, "UNLINK_DISABLE overflow entry");
    /* no AUTO_FREE yet: U1's unexpected header still points at it */
    EXPECT_EMPTY(eq, "no AUTO_FREE while the header is unclaimed");
    /* a search-only does not release the header either */
    ptl_me_t s11 = me_of(rbuf, sizeof rbuf, 11, 0, PTL_CT_NONE);
    OK(PtlMESearch(ni, PT_F, &s11, PTL_SEARCH_ONLY, UP(U_S)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_S), 7, "search tag 11");
    EXPECT_EMPTY(eq, "search tag 11: no AUTO_FREE");
    /* claiming it: the overflow event, then U1 is freed */
    ptl_me_t c1 = me_of(rbuf, sizeof rbuf, 11, 0, PTL_CT_NONE);
    ptl_handle_me_t h1, h2;
    OK(PtlMEAppend(ni, PT_F, &c1, PTL_PRIORITY_LIST, UP(U_C1), &h1));
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_C1), 7, "claim tag 11");
    EXPECT_ENTRY(eq, PTL_EVENT_AUTO_FREE, PTL_OVERFLOW_LIST, UP(U_U1), PT_F, "claim tag 11 frees U1");
    EXPECT_EMPTY(eq, "claim tag 11");
    /* U2 said PTL_ME_EVENT_UNLINK_DISABLE: neither AUTO_UNLINK nor AUTO_FREE */
    ptl_me_t c2 = me_of(rbuf, sizeof rbuf, 12, 0, PTL_CT_NONE);
    OK(PtlMEAppend(ni, PT_F, &c2, PTL_PRIORITY_LIST, UP(U_C2), &h2));
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_C2), 8, "claim tag 12");
    EXPECT_EMPTY(eq, "claim tag 12: no AUTO_FREE of an UNLINK_DISABLE entry");
    /* both were used up, so both are unlinked (UNLINK_DISABLE only
     * silences the event) */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(u1));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(u2));
    OK(PtlMEUnlink(h1));
    OK(PtlMEUnlink(h2));
    OK(PtlPTFree(ni, PT_F));
}

/* The same on a non-matching NI: every header matches every LE. Puts 9
 * and 10 landed in the overflow LE at offsets 0 and 8. */
static void nonmatching_search(ptl_handle_ni_t bni, ptl_handle_eq_t eq, ptl_handle_le_t lh)
{
    for (int i = 9; i < 11; i++)
        EXPECT_HDR(eq, PTL_EVENT_PUT, PTL_OVERFLOW_LIST, UP(U_L), i, "unexpected put (LE)");
    EXPECT_EMPTY(eq, "only the 2 unexpected puts (LE)");
    ptl_le_t s = pt_le(rbuf, sizeof rbuf, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    OK(PtlLESearch(bni, PT_L, &s, PTL_SEARCH_ONLY, UP(U_LS)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_LS), 9, "LE search");
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_LS), 10, "LE search");
    EXPECT_EMPTY(eq, "LE search");
    s.options |= PTL_LE_USE_ONCE;
    OK(PtlLESearch(bni, PT_L, &s, PTL_SEARCH_ONLY, UP(U_LS)));
    EXPECT_HDR(eq, PTL_EVENT_SEARCH, PTL_OVERFLOW_LIST, UP(U_LS), 9, "use-once LE search");
    EXPECT_EMPTY(eq, "use-once LE search");
    s.options = PTL_LE_OP_PUT | PTL_LE_EVENT_COMM_DISABLE;
    OK(PtlLESearch(bni, PT_L, &s, PTL_SEARCH_ONLY, UP(U_LS)));
    EXPECT_EMPTY(eq, "COMM_DISABLE LE search");
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(bni, &ct));
    ptl_le_t d = pt_le(rbuf, sizeof rbuf, PTL_LE_OP_PUT | PTL_LE_EVENT_CT_OVERFLOW, ct, PTL_UID_ANY);
    OK(PtlLESearch(bni, PT_L, &d, PTL_SEARCH_DELETE, UP(U_LD)));
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_LD), 9, "LE delete");
    EXPECT_HDR(eq, PTL_EVENT_PUT_OVERFLOW, PTL_OVERFLOW_LIST, UP(U_LD), 10, "LE delete");
    EXPECT_EMPTY(eq, "LE delete");
    EXPECT_CTV(ct, 2, 1, "counting LE delete");
    s.options = PTL_LE_OP_PUT;
    OK(PtlLESearch(bni, PT_L, &s, PTL_SEARCH_ONLY, UP(U_LS)));
    EXPECT_NOMATCH(eq, UP(U_LS), PT_L, "LE search after delete");
    EXPECT_EMPTY(eq, "LE search after delete");
    OK(PtlCTFree(ct));
    OK(PtlLEUnlink(lh));
    OK(PtlPTFree(bni, PT_L));
}

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t bni, ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &bni));
    pt_barrier_init(bni, 1);
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    /* one EQ per portal table entry keeps each one's order checkable */
    ptl_handle_eq_t eqm, eqf, eql;
    OK(PtlEQAlloc(ni, 64, &eqm));
    OK(PtlEQAlloc(ni, 64, &eqf));
    OK(PtlEQAlloc(bni, 64, &eql));
    ptl_pt_index_t idx;
    ptl_handle_me_t ovh = PTL_INVALID_HANDLE, u1 = PTL_INVALID_HANDLE, u2 = PTL_INVALID_HANDLE;
    ptl_handle_le_t lh = PTL_INVALID_HANDLE;
    if (pt_me == 0) {
        OK(PtlPTAlloc(ni, 0, eqm, PT_M, &idx));
        ptl_me_t o = me_of(ovf, sizeof ovf, 0, PTL_ME_MANAGE_LOCAL, PTL_CT_NONE);
        o.ignore_bits = ~0ull; /* takes anything */
        OK(PtlMEAppend(ni, PT_M, &o, PTL_OVERFLOW_LIST, UP(U_OVF), &ovh));
        OK(PtlPTAlloc(ni, 0, eqf, PT_F, &idx));
        ptl_me_t a = me_of(ovu1, sizeof ovu1, 0, PTL_ME_USE_ONCE, PTL_CT_NONE);
        a.ignore_bits = ~0ull;
        OK(PtlMEAppend(ni, PT_F, &a, PTL_OVERFLOW_LIST, UP(U_U1), &u1));
        ptl_me_t b = me_of(ovu2, sizeof ovu2, 0, PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE, PTL_CT_NONE);
        b.ignore_bits = ~0ull;
        OK(PtlMEAppend(ni, PT_F, &b, PTL_OVERFLOW_LIST, UP(U_U2), &u2));
        OK(PtlPTAlloc(bni, 0, eql, PT_L, &idx));
        ptl_le_t l = pt_le(lbuf, sizeof lbuf, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
        OK(PtlLEAppend(bni, PT_L, &l, PTL_OVERFLOW_LIST, UP(U_L), &lh));
    }
    for (int i = 0; i < NPUT; i++)
        pt_fill(src[i], 1, (uint64_t)i, LEN);
    ptl_md_t d = pt_md(src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, eqm, PTL_CT_NONE);
    ptl_handle_md_t md, bmd;
    OK(PtlMDBind(ni, &d, &md));
    d.eq_handle = eql;
    OK(PtlMDBind(bni, &d, &bmd));
    BARRIER();
    /* 1. rank 1: every put, each acked before the next */
    if (pt_me == 1)
        for (int i = 0; i < NPUT; i++)
            send_one(pt_of(i) == PT_L ? bmd : md, pt_of(i) == PT_L ? eql : eqm, i);
    BARRIER();
    if (pt_me == 0) {
        matching_search(ni, eqm, ovh);
        overflow_free(ni, eqf, u1, u2);
        nonmatching_search(bni, eql, lh);
    }
    BARRIER();
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(bmd));
    OK(PtlEQFree(eqm));
    OK(PtlEQFree(eqf));
    OK(PtlEQFree(eql));
    OK(PtlNIFini(ni));
    pt_barrier_fini();
    OK(PtlNIFini(bni));
    PtlFini();
    return pt_done("ptl_search");
}
