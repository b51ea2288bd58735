/* Every full and counting event of the non-matching slice, field by field:
 * LINK; PUT/GET/ATOMIC/FETCH_ATOMIC at the target; SEND/ACK/REPLY at the
 * initiator; ACK vs CT_ACK vs OC_ACK vs none; SEND_DISABLE, CT_SEND,
 * SUCCESS_DISABLE (MD and LE), COMM_DISABLE, CT_BYTES; USE_ONCE with and
 * without AUTO_UNLINK; truncation (mlength < rlength); transfer sizes 0, 1,
 * 144, 145, 64 KiB and 16 MiB on private (malloc) memory. Every rank acts
 * on its right neighbour and checks what its left neighbour did. */
#include "ptest.h"

#define TB ((16u << 20) + 8192) /* every big buffer */
#define ROFF 64                 /* remote offset used by most ops */
#define LOFF 16                 /* local offset used by most ops */
#define LB 4096                 /* small LE buffer */

static uint32_t me, n, right, left;
static ptl_handle_ni_t ni;
static ptl_handle_eq_t teq, ieq;
static ptl_handle_ct_t tct, tct2, ict;
static ptl_pt_index_t pt, pt2, pt3;
static unsigned char *tbuf, *sbuf, *dbuf, *lbuf;
static ptl_handle_le_t main_le;
static uint64_t tct_expect;
static char tags[16];
#define TU ((void *)&tags[0]) /* main LE */
#define IU ((void *)&tags[1]) /* initiator ops */
#define U1 ((void *)&tags[2])
#define U2 ((void *)&tags[3])
#define U3 ((void *)&tags[4])

static ptl_hdr_data_t hdr_of(uint32_t sender, unsigned k)
{
    return 0xfeed000000000000ull | ((uint64_t)sender << 16) | k;
}

/* ---- LINK, and unlink by hand ---- */
static void t_link(void)
{
    ptl_le_t le = pt_le(lbuf, LB, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t h;
    OK(PtlLEAppend(ni, pt2, &le, PTL_PRIORITY_LIST, U1, &h));
    ptl_event_t ev;
    WAIT_EVENT(teq, &ev);
    struct evwant w = {0};
    w.type = PTL_EVENT_LINK;
    w.fields = EV_UPTR | EV_PT | EV_FAIL;
    w.user_ptr = U1;
    w.pt_index = pt2;
    w.ni_fail = PTL_NI_OK;
    CHECK_EVENT("LINK", &ev, &w);
    EXPECT_RC(PTL_OK, PtlLEUnlink(h));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h));
    le.options |= PTL_LE_EVENT_LINK_DISABLE;
    OK(PtlLEAppend(ni, pt2, &le, PTL_PRIORITY_LIST, U2, &h));
    EXPECT_RC(PTL_OK, PtlLEUnlink(h));
    EXPECT_EMPTY(teq, "LINK_DISABLE append and explicit unlinks post nothing");
}

/* ---- Put and Get at every size, ACK_REQ, full events ---- */
static const size_t sizes[] = {0, 1, 144, 145, 64u << 10, 16u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void t_put_sizes(ptl_handle_md_t md)
{
    for (unsigned k = 0; k < NSIZES; k++) {
        size_t len = sizes[k];
        char ctx[64];
        snprintf(ctx, sizeof ctx, "put %zu B", len);
        memset(tbuf, 0xee, ROFF + len + 64);
        pt_fill(sbuf + LOFF, me, 100 + k, len);
        BARRIER();
        OK(PtlPut(md, LOFF, len, PTL_ACK_REQ, pt_lrank(right), pt, 0xabcdull, ROFF, IU, hdr_of(me, k)));
        struct evset s;
        COLLECT(ieq, 2, &s);
        struct evwant w = want_send(IU);
        CHECK_EVENT(ctx, TAKE(&s, PTL_EVENT_SEND), &w);
        w = want_ack(IU, len, ROFF, pt, PTL_NI_OK);
        CHECK_EVENT(ctx, TAKE(&s, PTL_EVENT_ACK), &w);
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        w = want_target(PTL_EVENT_PUT, tbuf + ROFF, TU, hdr_of(left, k), len, len, ROFF, left, pt);
        CHECK_EVENT(ctx, &ev, &w);
        EXPECT_CT(tct, ++tct_expect, 0);
        CHECK_BYTES(tbuf, 0xee, ROFF, "%s: before the data", ctx);
        CHECK_PATTERN(tbuf + ROFF, left, 100 + k, len, "%s from %u", ctx, left);
        CHECK_BYTES(tbuf + ROFF + len, 0xee, 64, "%s: after the data", ctx);
        BARRIER();
        EXPECT_EMPTY(ieq, "%s: initiator", ctx);
        EXPECT_EMPTY(teq, "%s: target", ctx);
    }
}

static void t_get_sizes(ptl_handle_md_t md)
{
    for (unsigned k = 0; k < NSIZES; k++) {
        size_t len = sizes[k];
        char ctx[64];
        snprintf(ctx, sizeof ctx, "get %zu B", len);
        pt_fill(tbuf + ROFF, me, 200 + k, len);
        memset(dbuf, 0x5a, LOFF + len + 64);
        BARRIER();
        OK(PtlGet(md, LOFF, len, pt_lrank(right), pt, 0xabcdull, ROFF, IU));
        ptl_event_t ev;
        WAIT_EVENT(ieq, &ev);
        struct evwant w = want_reply(IU, len, PTL_NI_OK);
        CHECK_EVENT(ctx, &ev, &w);
        CHECK_BYTES(dbuf, 0x5a, LOFF, "%s: before the data", ctx);
        CHECK_PATTERN(dbuf + LOFF, right, 200 + k, len, "%s from %u", ctx, right);
        CHECK_BYTES(dbuf + LOFF + len, 0x5a, 64, "%s: after the data", ctx);
        WAIT_EVENT(teq, &ev);
        w = want_target(PTL_EVENT_GET, tbuf + ROFF, TU, 0, len, len, ROFF, left, pt);
        CHECK_EVENT(ctx, &ev, &w);
        EXPECT_CT(tct, ++tct_expect, 0);
        BARRIER();
        EXPECT_EMPTY(ieq, "%s: initiator", ctx);
        EXPECT_EMPTY(teq, "%s: target", ctx);
    }
}

/* ---- initiator-side options: which events and counts a put makes ---- */
struct put_variant {
    const char *name;
    unsigned md_opts;
    ptl_ack_req_t ack;
    int send_ev, ack_ev;  /* full events expected */
    ptl_size_t ct;        /* MD CT success expected */
    int small;            /* length max_volatile_size; 1: buffer reused at return (only a volatile MD promises it) */
};
static ptl_size_t vol_len; /* min(max_volatile_size, VLEN) */

#define VLEN 256
static void t_put_variants(void)
{
    static const struct put_variant v[] = {
        {"ACK_REQ, plain MD", 0, PTL_ACK_REQ, 1, 1, 0, 0},
        {"ACK_REQ, MD with CT_ACK (full event and count)", PTL_MD_EVENT_CT_ACK, PTL_ACK_REQ, 1, 1, 1, 0},
        {"CT_ACK_REQ", PTL_MD_EVENT_CT_ACK, PTL_CT_ACK_REQ, 1, 0, 1, 0},
        {"OC_ACK_REQ", PTL_MD_EVENT_CT_ACK, PTL_OC_ACK_REQ, 1, 0, 1, 0},
        {"CT_ACK_REQ, CT_BYTES", PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES, PTL_CT_ACK_REQ, 1, 0, VLEN, 0},
        {"OC_ACK_REQ, CT_BYTES", PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES, PTL_OC_ACK_REQ, 1, 0, VLEN, 0},
        {"CT_ACK_REQ, MD without CT_ACK", 0, PTL_CT_ACK_REQ, 1, 0, 0, 0},
        {"NO_ACK_REQ, MD with CT_ACK", PTL_MD_EVENT_CT_ACK, PTL_NO_ACK_REQ, 1, 0, 0, 0},
        {"SEND_DISABLE, ACK_REQ", PTL_MD_EVENT_SEND_DISABLE, PTL_ACK_REQ, 0, 1, 0, 0},
        {"CT_SEND, SEND_DISABLE, NO_ACK_REQ", PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_SEND_DISABLE, PTL_NO_ACK_REQ,
         0, 0, 1, 0},
        {"CT_SEND, CT_BYTES, NO_ACK_REQ", PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_BYTES, PTL_NO_ACK_REQ, 1, 0,
         VLEN, 0},
        {"CT_SEND and CT_ACK, ACK_REQ", PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK, PTL_ACK_REQ, 1, 1, 2, 0},
        {"SUCCESS_DISABLE, ACK_REQ", PTL_MD_EVENT_SUCCESS_DISABLE, PTL_ACK_REQ, 0, 0, 0, 0},
        {"SUCCESS_DISABLE, CT_ACK, CT_ACK_REQ", PTL_MD_EVENT_SUCCESS_DISABLE | PTL_MD_EVENT_CT_ACK,
         PTL_CT_ACK_REQ, 0, 0, 1, 0},
        {"VOLATILE, ACK_REQ, max_volatile_size", PTL_MD_VOLATILE, PTL_ACK_REQ, 1, 1, 0, 1},
        {"plain MD, ACK_REQ, max_volatile_size", 0, PTL_ACK_REQ, 1, 1, 0, 2},
        {"UNORDERED, OC_ACK_REQ", PTL_MD_UNORDERED | PTL_MD_EVENT_CT_ACK, PTL_OC_ACK_REQ, 1, 0, 1, 0},
    };
    for (unsigned k = 0; k < sizeof v / sizeof v[0]; k++) {
        char ctx[128];
        snprintf(ctx, sizeof ctx, "put variant '%s'", v[k].name);
        ptl_md_t d = pt_md(sbuf, TB, v[k].md_opts, ieq, ict);
        ptl_handle_md_t md;
        OK(PtlMDBind(ni, &d, &md));
        ptl_ct_event_t zero = {0, 0};
        OK(PtlCTSet(ict, zero));
        ptl_size_t len = v[k].small ? vol_len : VLEN;
        memset(tbuf, 0xee, ROFF + VLEN + 64);
        pt_fill(sbuf + LOFF, me, 300 + k, len);
        BARRIER();
        OK(PtlPut(md, LOFF, len, v[k].ack, pt_lrank(right), pt, 0, ROFF, IU, hdr_of(me, 300 + k)));
        if (v[k].small == 1)
            memset(sbuf + LOFF, 0x11, len); /* reusable at once */
        int nev = v[k].send_ev + v[k].ack_ev;
        struct evset s;
        if (nev)
            COLLECT(ieq, nev, &s);
        if (v[k].send_ev) {
            struct evwant w = want_send(IU);
            CHECK_EVENT(ctx, TAKE(&s, PTL_EVENT_SEND), &w);
        }
        if (v[k].ack_ev) {
            struct evwant w = want_ack(IU, len, ROFF, pt, PTL_NI_OK);
            CHECK_EVENT(ctx, TAKE(&s, PTL_EVENT_ACK), &w);
        }
        if (v[k].ct)
            EXPECT_CT(ict, v[k].ct, 0);
        /* target side */
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        struct evwant w = want_target(PTL_EVENT_PUT, tbuf + ROFF, TU, hdr_of(left, 300 + k), len, len,
                                      ROFF, left, pt);
        CHECK_EVENT(ctx, &ev, &w);
        EXPECT_CT(tct, ++tct_expect, 0);
        CHECK_PATTERN(tbuf + ROFF, left, 300 + k, len, "%s", ctx);
        CHECK_BYTES(tbuf + ROFF + len, 0xee, 64, "%s: after the data", ctx);
        BARRIER();
        EXPECT_CT_NOW(ict, v[k].ct, 0);
        EXPECT_EMPTY(ieq, "%s: no further initiator event", ctx);
        EXPECT_EMPTY(teq, "%s: no further target event", ctx);
        OK(PtlMDRelease(md));
    }

    /* A failed op still posts its full event with SUCCESS_DISABLE: pt3
     * has no LE, so the puts find no match. */
    ptl_md_t d = pt_md(sbuf, TB, PTL_MD_EVENT_SUCCESS_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t md, ctmd;
    OK(PtlMDBind(ni, &d, &md));
    d = pt_md(sbuf, TB, PTL_MD_EVENT_SUCCESS_DISABLE | PTL_MD_EVENT_CT_ACK, ieq, ict);
    OK(PtlMDBind(ni, &d, &ctmd));
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(ict, zero));
    BARRIER();
    OK(PtlPut(md, LOFF, VLEN, PTL_ACK_REQ, pt_lrank(right), pt3, 0, 0, IU, 0));
    ptl_event_t ev;
    WAIT_EVENT(ieq, &ev);
    struct evwant w = want_ack(IU, 0, 0, pt3, PTL_NI_DROPPED);
    CHECK_EVENT("SUCCESS_DISABLE MD, put that finds no LE", &ev, &w);
    OK(PtlPut(ctmd, LOFF, VLEN, PTL_CT_ACK_REQ, pt_lrank(right), pt3, 0, 0, IU, 0));
    EXPECT_CT(ict, 0, 1);
    BARRIER();
    EXPECT_EMPTY(ieq, "after the failed puts");
    EXPECT_EMPTY(teq, "target of the failed puts");
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(ctmd));
}

/* Get with CT_REPLY / CT_BYTES / SUCCESS_DISABLE */
static void t_get_variants(void)
{
    static const struct {
        const char *name;
        unsigned opts;
        int reply_ev;
        ptl_size_t ct;
    } v[] = {
        {"plain", 0, 1, 0},
        {"CT_REPLY", PTL_MD_EVENT_CT_REPLY, 1, 1},
        {"CT_REPLY, CT_BYTES", PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_BYTES, 1, VLEN},
        {"CT_REPLY, SUCCESS_DISABLE", PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_SUCCESS_DISABLE, 0, 1},
        {"CT_ACK only (a Get is not counted)", PTL_MD_EVENT_CT_ACK, 1, 0},
    };
    for (unsigned k = 0; k < sizeof v / sizeof v[0]; k++) {
        char ctx[128];
        snprintf(ctx, sizeof ctx, "get variant '%s'", v[k].name);
        ptl_md_t d = pt_md(dbuf, TB, v[k].opts, ieq, ict);
        ptl_handle_md_t md;
        OK(PtlMDBind(ni, &d, &md));
        ptl_ct_event_t zero = {0, 0};
        OK(PtlCTSet(ict, zero));
        pt_fill(tbuf + ROFF, me, 400 + k, VLEN);
        memset(dbuf, 0x5a, LOFF + VLEN + 64);
        BARRIER();
        OK(PtlGet(md, LOFF, VLEN, pt_lrank(right), pt, 0, ROFF, IU));
        if (v[k].reply_ev) {
            ptl_event_t ev;
            WAIT_EVENT(ieq, &ev);
            struct evwant w = want_reply(IU, VLEN, PTL_NI_OK);
            CHECK_EVENT(ctx, &ev, &w);
        }
        if (v[k].ct)
            EXPECT_CT(ict, v[k].ct, 0);
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        struct evwant w = want_target(PTL_EVENT_GET, tbuf + ROFF, TU, 0, VLEN, VLEN, ROFF, left, pt);
        CHECK_EVENT(ctx, &ev, &w);
        EXPECT_CT(tct, ++tct_expect, 0);
        BARRIER();
        CHECK_PATTERN(dbuf + LOFF, right, 400 + k, VLEN, "%s", ctx);
        CHECK_BYTES(dbuf + LOFF + VLEN, 0x5a, 64, "%s: after the data", ctx);
        EXPECT_CT_NOW(ict, v[k].ct, 0);
        EXPECT_EMPTY(ieq, "%s", ctx);
        EXPECT_EMPTY(teq, "%s", ctx);
        OK(PtlMDRelease(md));
    }
}

/* ---- target-side LE options ---- */
static void t_le_variants(void)
{
    static const struct {
        const char *name;
        unsigned opts;
        int ev;
        ptl_size_t ct;
    } v[] = {
        {"LE SUCCESS_DISABLE", PTL_LE_EVENT_SUCCESS_DISABLE | PTL_LE_EVENT_CT_COMM, 0, 1},
        {"LE COMM_DISABLE", PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_CT_COMM, 0, 1},
        {"LE CT_BYTES", PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_CT_BYTES, 1, 100},
        {"LE with a CT but no CT_COMM", 0, 1, 0},
        {"LE uid = my uid", PTL_LE_EVENT_CT_COMM, 1, 1},
    };
    ptl_md_t d = pt_md(sbuf, TB, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, ieq, ict);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    for (unsigned k = 0; k < sizeof v / sizeof v[0]; k++) {
        char ctx[128];
        snprintf(ctx, sizeof ctx, "'%s'", v[k].name);
        ptl_ct_event_t zero = {0, 0};
        OK(PtlCTSet(ict, zero));
        OK(PtlCTSet(tct2, zero));
        memset(lbuf, 0xee, LB);
        ptl_le_t le = pt_le(lbuf, LB, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE | v[k].opts, tct2,
                            k == 4 ? (ptl_uid_t)getuid() : PTL_UID_ANY);
        ptl_handle_le_t h;
        OK(PtlLEAppend(ni, pt2, &le, PTL_PRIORITY_LIST, U3, &h));
        pt_fill(sbuf + LOFF, me, 500 + k, 100);
        BARRIER();
        OK(PtlPut(md, LOFF, 100, PTL_CT_ACK_REQ, pt_lrank(right), pt2, 0, 8, IU, hdr_of(me, 500 + k)));
        EXPECT_CT(ict, 1, 0);
        if (v[k].ev) {
            ptl_event_t ev;
            WAIT_EVENT(teq, &ev);
            struct evwant w = want_target(PTL_EVENT_PUT, lbuf + 8, U3, hdr_of(left, 500 + k), 100, 100, 8,
                                          left, pt2);
            CHECK_EVENT(ctx, &ev, &w);
        }
        BARRIER();
        EXPECT_CT_NOW(tct2, v[k].ct, 0);
        CHECK_BYTES(lbuf, 0xee, 8, "%s: before the data", ctx);
        CHECK_PATTERN(lbuf + 8, left, 500 + k, 100, "%s", ctx);
        CHECK_BYTES(lbuf + 108, 0xee, 64, "%s: after the data", ctx);
        EXPECT_EMPTY(teq, "%s", ctx);
        EXPECT_EMPTY(ieq, "%s", ctx);
        EXPECT_RC(PTL_OK, PtlLEUnlink(h));
    }
    OK(PtlMDRelease(md));
}

/* ---- truncation: mlength = min(length, le.length - remote_offset) ---- */
static void t_truncation(void)
{
    ptl_md_t d = pt_md(sbuf, TB, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t md, ctmd, gmd;
    OK(PtlMDBind(ni, &d, &md));
    d = pt_md(sbuf, TB, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES | PTL_MD_EVENT_SEND_DISABLE, ieq, ict);
    OK(PtlMDBind(ni, &d, &ctmd));
    d = pt_md(dbuf, TB, PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_BYTES, ieq, ict);
    OK(PtlMDBind(ni, &d, &gmd));
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(ict, zero));
    OK(PtlCTSet(tct2, zero));
    memset(lbuf, 0xee, LB);
    /* the LE exposes lbuf[0..100) only */
    ptl_le_t le = pt_le(lbuf, 100,
                        PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE | PTL_LE_EVENT_CT_COMM |
                            PTL_LE_EVENT_CT_BYTES,
                        tct2, PTL_UID_ANY);
    ptl_handle_le_t h;
    OK(PtlLEAppend(ni, pt2, &le, PTL_PRIORITY_LIST, U3, &h));
    pt_fill(sbuf + LOFF, me, 600, 144);
    BARRIER();

    /* 144 bytes at offset 40: 60 land (full ACK, then counted in bytes) */
    OK(PtlPut(md, LOFF, 144, PTL_ACK_REQ, pt_lrank(right), pt2, 0, 40, IU, 1));
    ptl_event_t ev;
    WAIT_EVENT(ieq, &ev);
    struct evwant w = want_ack(IU, 60, 40, pt2, PTL_NI_OK);
    CHECK_EVENT("truncated put", &ev, &w);
    OK(PtlPut(ctmd, LOFF, 144, PTL_CT_ACK_REQ, pt_lrank(right), pt2, 0, 40, IU, 2));
    EXPECT_CT(ict, 60, 0); /* CT_BYTES counts mlength */
    /* offset past the LE's end: nothing lands, no error */
    OK(PtlPut(md, LOFF, 144, PTL_ACK_REQ, pt_lrank(right), pt2, 0, 120, IU, 3));
    WAIT_EVENT(ieq, &ev);
    w = want_ack(IU, 0, 120, pt2, PTL_NI_OK);
    CHECK_EVENT("put past the LE end", &ev, &w);
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, lbuf + 40, U3, 1, 144, 60, 40, left, pt2);
    CHECK_EVENT("truncated put", &ev, &w);
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, lbuf + 40, U3, 2, 144, 60, 40, left, pt2);
    CHECK_EVENT("truncated put (counted)", &ev, &w);
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, lbuf + 120, U3, 3, 144, 0, 120, left, pt2);
    CHECK_EVENT("put past the LE end", &ev, &w);
    EXPECT_CT(tct2, 120, 0);
    BARRIER();
    EXPECT_CT_NOW(ict, 60, 0);
    EXPECT_CT_NOW(tct2, 120, 0);
    CHECK_BYTES(lbuf, 0xee, 40, "before the truncated put");
    CHECK_PATTERN(lbuf + 40, left, 600, 60, "truncated put");
    CHECK_BYTES(lbuf + 100, 0xee, LB - 100, "beyond the LE");

    /* truncated Get */
    pt_fill(lbuf, me, 601, 100);
    memset(dbuf, 0x5a, 256);
    OK(PtlCTSet(ict, zero));
    BARRIER();
    OK(PtlGet(gmd, LOFF, 144, pt_lrank(right), pt2, 0, 40, IU));
    EXPECT_CT(ict, 60, 0);
    WAIT_EVENT(ieq, &ev);
    w = want_reply(IU, 60, PTL_NI_OK);
    CHECK_EVENT("truncated get", &ev, &w);
    CHECK_BYTES(dbuf, 0x5a, LOFF, "before the truncated get");
    for (int i = 0; i < 60; i++)
        CHECK(dbuf[LOFF + i] == pt_pattern(right, 601, 40 + (uint64_t)i), "truncated get byte %d is 0x%02x",
              i, dbuf[LOFF + i]);
    CHECK_BYTES(dbuf + LOFF + 60, 0x5a, 256 - LOFF - 60, "beyond the truncated get's mlength");
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_GET, lbuf + 40, U3, 0, 144, 60, 40, left, pt2);
    CHECK_EVENT("truncated get", &ev, &w);
    EXPECT_CT(tct2, 180, 0);
    BARRIER();
    EXPECT_EMPTY(ieq, "truncation");
    EXPECT_EMPTY(teq, "truncation");
    EXPECT_RC(PTL_OK, PtlLEUnlink(h));
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(ctmd));
    OK(PtlMDRelease(gmd));
}

/* ---- USE_ONCE, AUTO_UNLINK, first-LE delivery ---- */
static void t_use_once(void)
{
    ptl_md_t d = pt_md(sbuf, TB, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    memset(lbuf, 0xee, LB);
    ptl_le_t le1 = pt_le(lbuf, 256, PTL_LE_OP_PUT | PTL_LE_USE_ONCE, PTL_CT_NONE, PTL_UID_ANY);
    ptl_le_t le2 = pt_le(lbuf + 1024, 256, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t h1, h2;
    OK(PtlLEAppend(ni, pt2, &le1, PTL_PRIORITY_LIST, U1, &h1));
    OK(PtlLEAppend(ni, pt2, &le2, PTL_PRIORITY_LIST, U2, &h2));
    ptl_event_t ev;
    struct evwant w = {0};
    w.type = PTL_EVENT_LINK;
    w.fields = EV_UPTR | EV_PT | EV_FAIL;
    w.pt_index = pt2;
    w.user_ptr = U1;
    WAIT_EVENT(teq, &ev);
    CHECK_EVENT("LINK of the first LE", &ev, &w);
    w.user_ptr = U2;
    WAIT_EVENT(teq, &ev);
    CHECK_EVENT("LINK of the second LE", &ev, &w);
    pt_fill(sbuf + LOFF, me, 700, 64);
    pt_fill(sbuf + LOFF + 64, me, 701, 64);
    BARRIER();
    /* one op at a time so the order at the target is certain */
    OK(PtlPut(md, LOFF, 64, PTL_ACK_REQ, pt_lrank(right), pt2, 0, 0, IU, 1));
    WAIT_EVENT(ieq, &ev);
    w = want_ack(IU, 64, 0, pt2, PTL_NI_OK);
    CHECK_EVENT("put to the USE_ONCE LE", &ev, &w);
    OK(PtlPut(md, LOFF + 64, 64, PTL_ACK_REQ, pt_lrank(right), pt2, 0, 0, IU, 2));
    WAIT_EVENT(ieq, &ev);
    CHECK_EVENT("put after the USE_ONCE LE is gone", &ev, &w);
    /* target: PUT(U1), AUTO_UNLINK(U1), PUT(U2) */
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, lbuf, U1, 1, 64, 64, 0, left, pt2);
    CHECK_EVENT("first put lands in the USE_ONCE LE", &ev, &w);
    WAIT_EVENT(teq, &ev);
    w.type = PTL_EVENT_AUTO_UNLINK;
    w.fields = EV_UPTR | EV_PT | EV_FAIL;
    w.user_ptr = U1;
    CHECK_EVENT("AUTO_UNLINK after the first put", &ev, &w);
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, lbuf + 1024, U2, 2, 64, 64, 0, left, pt2);
    CHECK_EVENT("second put lands in the next LE", &ev, &w);
    CHECK_PATTERN(lbuf, left, 700, 64, "USE_ONCE LE");
    CHECK_BYTES(lbuf + 64, 0xee, 1024 - 64, "after the USE_ONCE LE's data");
    CHECK_PATTERN(lbuf + 1024, left, 701, 64, "second LE");
    BARRIER();
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h1)); /* unlinked by the NIC already */
    EXPECT_RC(PTL_OK, PtlLEUnlink(h2));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h2));

    /* USE_ONCE with UNLINK_DISABLE, alone on the PT: no AUTO_UNLINK event,
     * and the next op finds no LE */
    memset(lbuf, 0xee, LB);
    le1.options = PTL_LE_OP_PUT | PTL_LE_USE_ONCE | PTL_LE_EVENT_UNLINK_DISABLE | PTL_LE_EVENT_LINK_DISABLE;
    OK(PtlLEAppend(ni, pt2, &le1, PTL_PRIORITY_LIST, U1, &h1));
    BARRIER();
    OK(PtlPut(md, LOFF, 64, PTL_ACK_REQ, pt_lrank(right), pt2, 0, 0, IU, 3));
    WAIT_EVENT(ieq, &ev);
    w = want_ack(IU, 64, 0, pt2, PTL_NI_OK);
    CHECK_EVENT("put to USE_ONCE + UNLINK_DISABLE", &ev, &w);
    OK(PtlPut(md, LOFF + 64, 64, PTL_ACK_REQ, pt_lrank(right), pt2, 0, 0, IU, 4));
    WAIT_EVENT(ieq, &ev);
    w = want_ack(IU, 0, 0, pt2, PTL_NI_DROPPED);
    CHECK_EVENT("put after the only USE_ONCE LE was used", &ev, &w);
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, lbuf, U1, 3, 64, 64, 0, left, pt2);
    CHECK_EVENT("put to USE_ONCE + UNLINK_DISABLE", &ev, &w);
    BARRIER();
    EXPECT_EMPTY(teq, "USE_ONCE + UNLINK_DISABLE: no AUTO_UNLINK, nothing for the unmatched put");
    EXPECT_EMPTY(ieq, "USE_ONCE");
    CHECK_PATTERN(lbuf, left, 700, 64, "USE_ONCE + UNLINK_DISABLE");
    CHECK_BYTES(lbuf + 64, 0xee, LB - 64, "nothing else written");
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h1));
    OK(PtlMDRelease(md));
}

/* ---- a long list of USE_ONCE LEs: pipelined puts from one initiator
 * consume them in order, then find none ---- */
#define NONCE 200
static void t_use_once_many(void)
{
    static uint64_t slots[NONCE], vals[NONCE + 1];
    static ptl_handle_le_t h[NONCE];
    memset(slots, 0xee, sizeof slots);
    for (int i = 0; i < NONCE; i++) {
        ptl_le_t le = pt_le(&slots[i], 8, PTL_LE_OP_PUT | PTL_LE_USE_ONCE | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE,
                            PTL_UID_ANY);
        OK(PtlLEAppend(ni, pt2, &le, PTL_PRIORITY_LIST, (void *)(uintptr_t)(0x10000 + i), &h[i]));
    }
    for (int i = 0; i <= NONCE; i++)
        vals[i] = ((uint64_t)me << 32) | (uint64_t)i;
    ptl_md_t d = pt_md(vals, sizeof vals, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, ieq, ict);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(ict, zero));
    BARRIER();
    for (int i = 0; i <= NONCE; i++)
        OK(PtlPut(md, (ptl_size_t)i * 8, 8, PTL_CT_ACK_REQ, pt_lrank(right), pt2, 0, 0, NULL, (ptl_hdr_data_t)i));
    EXPECT_CT(ict, NONCE, 1); /* the last one finds no LE */
    int order_ok = 1;
    for (int i = 0; i < NONCE && order_ok; i++) {
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        if (ev.type != PTL_EVENT_PUT || ev.user_ptr != (void *)(uintptr_t)(0x10000 + i) || ev.hdr_data != (uint64_t)i ||
            ev.start != &slots[i] || ev.mlength != 8) {
            FAILED("USE_ONCE list: event %d is %s user_ptr %p hdr %llu start %p mlength %llu, want PUT %p %d %p 8",
                   2 * i, pt_evname(ev.type), ev.user_ptr, (unsigned long long)ev.hdr_data, ev.start,
                   (unsigned long long)ev.mlength, (void *)(uintptr_t)(0x10000 + i), i, (void *)&slots[i]);
            order_ok = 0;
            break;
        }
        WAIT_EVENT(teq, &ev);
        if (ev.type != PTL_EVENT_AUTO_UNLINK || ev.user_ptr != (void *)(uintptr_t)(0x10000 + i)) {
            FAILED("USE_ONCE list: event %d is %s user_ptr %p, want AUTO_UNLINK %p", 2 * i + 1, pt_evname(ev.type),
                   ev.user_ptr, (void *)(uintptr_t)(0x10000 + i));
            order_ok = 0;
        }
    }
    for (int i = 0; i < NONCE; i++)
        CHECK(slots[i] == (((uint64_t)left << 32) | (uint64_t)i), "USE_ONCE list: slot %d holds 0x%llx", i,
              (unsigned long long)slots[i]);
    BARRIER();
    if (order_ok)
        EXPECT_EMPTY(teq, "USE_ONCE list");
    else
        while (PtlEQGet(teq, &(ptl_event_t){0}) != PTL_EQ_EMPTY)
            ;
    EXPECT_EMPTY(ieq, "USE_ONCE list");
    for (int i = 0; i < NONCE; i++)
        EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h[i]));
    OK(PtlMDRelease(md));
}

/* ---- atomic events ---- */
static void t_atomic_events(void)
{
    ptl_md_t d = pt_md(sbuf, TB, 0, ieq, PTL_CT_NONE);
    ptl_handle_md_t pmd, gmd;
    OK(PtlMDBind(ni, &d, &pmd));
    d = pt_md(dbuf, TB, 0, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gmd));
    /* target values */
    int64_t t64[2] = {1000 + me, -2000 - (int64_t)me};
    int32_t t32[4] = {10 + (int32_t)me, 20, -30, 40};
    int32_t c32 = 77 + (int32_t)me;
    double td = 1.5 + me;
    memset(tbuf, 0, 256);
    memcpy(tbuf + ROFF, t64, 16);
    memcpy(tbuf + ROFF + 16, t32, 16);
    memcpy(tbuf + ROFF + 32, &c32, 4);
    memcpy(tbuf + ROFF + 40, &td, 8);
    /* operands */
    int64_t o64[2] = {5 + me, 7};
    int32_t o32[4] = {1, 2, 3, 4 + (int32_t)me};
    int32_t n32 = 500 + (int32_t)me, cmp32 = 77 + (int32_t)right;
    double nd = -0.25 * (me + 1);
    memcpy(sbuf, o64, 16);
    memcpy(sbuf + 16, o32, 16);
    memcpy(sbuf + 32, &n32, 4);
    memcpy(sbuf + 40, &nd, 8);
    memset(dbuf, 0x5a, 128);
    BARRIER();

    struct evset s;
    ptl_event_t ev;
    struct evwant w;
    /* Atomic SUM on two int64 */
    OK(PtlAtomic(pmd, 0, 16, PTL_ACK_REQ, pt_lrank(right), pt, 0, ROFF, IU, 11, PTL_SUM, PTL_INT64_T));
    COLLECT(ieq, 2, &s);
    w = want_send(IU);
    CHECK_EVENT("atomic", TAKE(&s, PTL_EVENT_SEND), &w);
    w = want_ack(IU, 16, ROFF, pt, PTL_NI_OK);
    CHECK_EVENT("atomic", TAKE(&s, PTL_EVENT_ACK), &w);
    /* FetchAtomic SUM on four int32 */
    OK(PtlFetchAtomic(gmd, 0, pmd, 16, 16, pt_lrank(right), pt, 0, ROFF + 16, IU, 12, PTL_SUM, PTL_INT32_T));
    COLLECT(ieq, 2, &s);
    w = want_send(IU);
    CHECK_EVENT("fetch-atomic (put MD)", TAKE(&s, PTL_EVENT_SEND), &w);
    w = want_reply(IU, 16, PTL_NI_OK);
    CHECK_EVENT("fetch-atomic (get MD)", TAKE(&s, PTL_EVENT_REPLY), &w);
    /* Swap CSWAP on one int32 (matches) */
    OK(PtlSwap(gmd, 16, pmd, 32, 4, pt_lrank(right), pt, 0, ROFF + 32, IU, 13, &cmp32, PTL_CSWAP,
               PTL_INT32_T));
    COLLECT(ieq, 2, &s);
    w = want_send(IU);
    CHECK_EVENT("cswap (put MD)", TAKE(&s, PTL_EVENT_SEND), &w);
    w = want_reply(IU, 4, PTL_NI_OK);
    CHECK_EVENT("cswap (get MD)", TAKE(&s, PTL_EVENT_REPLY), &w);
    /* Swap SWAP on one double */
    OK(PtlSwap(gmd, 24, pmd, 40, 8, pt_lrank(right), pt, 0, ROFF + 40, IU, 14, NULL, PTL_SWAP, PTL_DOUBLE));
    COLLECT(ieq, 2, &s);
    w = want_send(IU);
    CHECK_EVENT("swap (put MD)", TAKE(&s, PTL_EVENT_SEND), &w);
    w = want_reply(IU, 8, PTL_NI_OK);
    CHECK_EVENT("swap (get MD)", TAKE(&s, PTL_EVENT_REPLY), &w);

    /* fetched values: the right neighbour's initial ones */
    int32_t f32[4], fc;
    double fd;
    memcpy(f32, dbuf, 16);
    memcpy(&fc, dbuf + 16, 4);
    memcpy(&fd, dbuf + 24, 8);
    int32_t r32[4] = {10 + (int32_t)right, 20, -30, 40};
    CHECK(memcmp(f32, r32, 16) == 0, "fetch-atomic fetched %d %d %d %d", f32[0], f32[1], f32[2], f32[3]);
    CHECK(fc == 77 + (int32_t)right, "cswap fetched %d, want %d", fc, 77 + (int32_t)right);
    CHECK(fd == 1.5 + right, "swap fetched %g, want %g", fd, 1.5 + right);
    CHECK_BYTES(dbuf + 32, 0x5a, 96, "beyond the fetched values");

    /* target events, in issue order */
    const int types[4] = {PTL_EVENT_ATOMIC, PTL_EVENT_FETCH_ATOMIC, PTL_EVENT_FETCH_ATOMIC,
                          PTL_EVENT_FETCH_ATOMIC};
    const ptl_size_t lens[4] = {16, 16, 4, 8}, offs[4] = {ROFF, ROFF + 16, ROFF + 32, ROFF + 40};
    const int ops[4] = {PTL_SUM, PTL_SUM, PTL_CSWAP, PTL_SWAP};
    const int dts[4] = {PTL_INT64_T, PTL_INT32_T, PTL_INT32_T, PTL_DOUBLE};
    for (int i = 0; i < 4; i++) {
        WAIT_EVENT(teq, &ev);
        w = want_target(types[i], tbuf + offs[i], TU, 11 + (uint64_t)i, lens[i], lens[i], offs[i], left, pt);
        w.fields |= EV_AOP;
        w.op = ops[i];
        w.dt = dts[i];
        char ctx[32];
        snprintf(ctx, sizeof ctx, "target atomic event %d", i);
        CHECK_EVENT(ctx, &ev, &w);
    }
    tct_expect += 4;
    EXPECT_CT(tct, tct_expect, 0);
    int64_t g64[2];
    int32_t g32[4], gc;
    double gd;
    memcpy(g64, tbuf + ROFF, 16);
    memcpy(g32, tbuf + ROFF + 16, 16);
    memcpy(&gc, tbuf + ROFF + 32, 4);
    memcpy(&gd, tbuf + ROFF + 40, 8);
    CHECK(g64[0] == 1000 + (int64_t)me + 5 + left && g64[1] == -2000 - (int64_t)me + 7,
          "atomic SUM int64 result %lld %lld", (long long)g64[0], (long long)g64[1]);
    CHECK(g32[0] == 10 + (int32_t)me + 1 && g32[1] == 22 && g32[2] == -27 && g32[3] == 44 + (int32_t)left,
          "fetch-atomic SUM int32 result %d %d %d %d", g32[0], g32[1], g32[2], g32[3]);
    CHECK(gc == 500 + (int32_t)left, "cswap result %d, want %d", gc, 500 + (int32_t)left);
    CHECK(gd == -0.25 * (left + 1), "swap result %g, want %g", gd, -0.25 * (left + 1));
    BARRIER();
    EXPECT_EMPTY(ieq, "atomics");
    EXPECT_EMPTY(teq, "atomics");
    OK(PtlMDRelease(pmd));
    OK(PtlMDRelease(gmd));
}

int main(void)
{
    pt_env();
    me = pt_me;
    n = pt_n;
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    tbuf = pt_xmalloc(TB);
    sbuf = pt_xmalloc(TB);
    dbuf = pt_xmalloc(TB);
    lbuf = pt_xmalloc(LB);

    OK(PtlInit());
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni));
    REQUIRE(lim.max_msg_size >= (16u << 20), "max_msg_size %llu", (unsigned long long)lim.max_msg_size);
    vol_len = lim.max_volatile_size < VLEN ? lim.max_volatile_size : VLEN;
    pt_barrier_init(ni, 1);
    OK(PtlEQAlloc(ni, 1024, &teq));
    OK(PtlEQAlloc(ni, 1024, &ieq));
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlCTAlloc(ni, &tct2));
    OK(PtlCTAlloc(ni, &ict));
    OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &pt));
    CHECK(pt == 0, "first PTL_PT_ANY gave %u, want 0 (lowest free)", pt);
    OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &pt2));
    CHECK(pt2 == 1, "second PTL_PT_ANY gave %u, want 1", pt2);
    OK(PtlPTAlloc(ni, 0, teq, PTL_PT_ANY, &pt3));
    CHECK(pt3 == 2, "third PTL_PT_ANY gave %u, want 2", pt3);

    t_link();

    ptl_le_t le = pt_le(tbuf, TB, PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE,
                        tct, (ptl_uid_t)getuid());
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, TU, &main_le));
    ptl_md_t d = pt_md(sbuf, TB, 0, ieq, PTL_CT_NONE);
    ptl_handle_md_t smd, dmd;
    OK(PtlMDBind(ni, &d, &smd));
    d = pt_md(dbuf, TB, 0, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &dmd));

    t_put_sizes(smd);
    t_get_sizes(dmd);
    t_put_variants();
    t_get_variants();
    t_le_variants();
    t_truncation();
    t_use_once();
    t_use_once_many();
    t_atomic_events();

    BARRIER();
    OK(PtlMDRelease(smd));
    OK(PtlMDRelease(dmd));
    OK(PtlLEUnlink(main_le));
    OK(PtlPTFree(ni, pt));
    OK(PtlPTFree(ni, pt2));
    OK(PtlPTFree(ni, pt3));
    OK(PtlCTFree(tct));
    OK(PtlCTFree(tct2));
    OK(PtlCTFree(ict));
    OK(PtlEQFree(teq));
    OK(PtlEQFree(ieq));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_events");
}
