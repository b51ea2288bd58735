/* The overflow list and unexpected headers on a matching NI: messages
 * nobody posted a receive for land in an overflow entry and are
 * remembered; a later search finds them, a priority append claims them
 * (PTL_EVENT_PUT_OVERFLOW saying where the data already is), a
 * search-delete forgets them. Rank 1 sends, rank 0 receives. */
#include "ptest.h"

#define PT_O 5
#define MSG 24

static char ovf[4096], rbuf[256];
static char tagsp[8];
#define UP(i) ((void *)&tagsp[i])

static ptl_me_t me_of(void *buf, size_t len, uint64_t bits, unsigned opts)
{
    ptl_me_t e;
    memset(&e, 0, sizeof e);
    e.start = buf;
    e.length = len;
    e.ct_handle = PTL_CT_NONE;
    e.uid = PTL_UID_ANY;
    e.options = opts | PTL_ME_EVENT_LINK_DISABLE;
    e.match_id.rank = PTL_RANK_ANY;
    e.match_bits = bits;
    return e;
}

static void send_tag(ptl_handle_md_t md, ptl_handle_eq_t eq, char *msg, uint64_t tag)
{
    snprintf(msg, MSG, "tag %llu payload", (unsigned long long)tag);
    OK(PtlPut(md, (ptl_size_t)(uintptr_t)msg, MSG, PTL_ACK_REQ, pt_lrank(0), PT_O, tag, 0, NULL, 0));
    ptl_event_t ev;
    WAIT_EVENT(eq, &ev);
    CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK, "tag %llu: %s %s", (unsigned long long)tag,
          pt_evname(ev.type), pt_failname(ev.ni_fail_type));
}

static void expect(ptl_handle_eq_t eq, int type, int fail, uint64_t bits, void *uptr, const char *what)
{
    ptl_event_t ev;
    WAIT_EVENT(eq, &ev);
    CHECK(ev.type == type && ev.ni_fail_type == fail && ev.user_ptr == uptr && (fail || ev.match_bits == bits),
          "%s: got %s %s bits %llu uptr %p", what, pt_evname(ev.type), pt_failname(ev.ni_fail_type),
          (unsigned long long)ev.match_bits, ev.user_ptr);
    if (type != PTL_EVENT_SEARCH || fail == PTL_NI_OK) {
        char want[MSG] = {0}; /* the sender's buffer is zeroed past the text too */
        snprintf(want, MSG, "tag %llu payload", (unsigned long long)bits);
        CHECK(!fail && ev.mlength == MSG && ev.rlength == MSG && ev.start && memcmp(ev.start, want, MSG) == 0 &&
                  ev.initiator.rank == 1,
              "%s: data or fields (mlength %llu)", what, (unsigned long long)ev.mlength);
    }
}

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t bni, ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &bni));
    pt_barrier_init(bni, 1);
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    ptl_handle_eq_t eq;
    OK(PtlEQAlloc(ni, 64, &eq));
    ptl_pt_index_t idx;
    ptl_handle_me_t ovh, h;
    if (pt_me == 0) {
        OK(PtlPTAlloc(ni, 0, eq, PT_O, &idx));
        ptl_me_t o = me_of(ovf, sizeof ovf, 0, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL);
        o.ignore_bits = ~0ull; /* takes anything */
        OK(PtlMEAppend(ni, PT_O, &o, PTL_OVERFLOW_LIST, UP(0), &ovh));
    }
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    static char msgs[8][MSG];
    BARRIER();
    /* 1. three messages nobody expects */
    if (pt_me == 1)
        for (uint64_t t = 1; t <= 3; t++)
            send_tag(md, eq, msgs[t], t);
    BARRIER();
    if (pt_me == 0) {
        for (uint64_t t = 1; t <= 3; t++) {
            ptl_event_t ev;
            WAIT_EVENT(eq, &ev);
            CHECK(ev.type == PTL_EVENT_PUT && ev.ptl_list == PTL_OVERFLOW_LIST && ev.match_bits == t &&
                      ev.user_ptr == UP(0) && ev.start == ovf + (t - 1) * MSG,
                  "unexpected %llu: %s list %d", (unsigned long long)t, pt_evname(ev.type), ev.ptl_list);
        }
        /* 2. search only: found, and still there */
        ptl_me_t s2 = me_of(rbuf, sizeof rbuf, 2, PTL_ME_OP_PUT);
        OK(PtlMESearch(ni, PT_O, &s2, PTL_SEARCH_ONLY, UP(2)));
        expect(eq, PTL_EVENT_SEARCH, PTL_NI_OK, 2, UP(2), "search tag 2");
        OK(PtlMESearch(ni, PT_O, &s2, PTL_SEARCH_ONLY, UP(2)));
        expect(eq, PTL_EVENT_SEARCH, PTL_NI_OK, 2, UP(2), "search tag 2 again");
        /* 3. a use-once receive for tag 1 claims the header and is used up */
        ptl_me_t r1 = me_of(rbuf, sizeof rbuf, 1, PTL_ME_OP_PUT | PTL_ME_USE_ONCE);
        OK(PtlMEAppend(ni, PT_O, &r1, PTL_PRIORITY_LIST, UP(1), &h));
        expect(eq, PTL_EVENT_PUT_OVERFLOW, PTL_NI_OK, 1, UP(1), "claim tag 1");
        {   /* used up at once: unlinked as if it had been linked */
            ptl_event_t ev;
            WAIT_EVENT(eq, &ev);
            CHECK(ev.type == PTL_EVENT_AUTO_UNLINK && ev.user_ptr == UP(1) && ev.ptl_list == PTL_PRIORITY_LIST,
                  "claim tag 1: got %s, not AUTO_UNLINK of the receive", pt_evname(ev.type));
        }
        EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h)); /* never linked */
        /* 4. search-delete tag 3: claimed once, then gone */
        ptl_me_t s3 = me_of(rbuf, sizeof rbuf, 3, PTL_ME_OP_PUT);
        OK(PtlMESearch(ni, PT_O, &s3, PTL_SEARCH_DELETE, UP(3)));
        expect(eq, PTL_EVENT_PUT_OVERFLOW, PTL_NI_OK, 3, UP(3), "delete tag 3");
        OK(PtlMESearch(ni, PT_O, &s3, PTL_SEARCH_ONLY, UP(3)));
        expect(eq, PTL_EVENT_SEARCH, PTL_NI_NO_MATCH, 3, UP(3), "tag 3 after delete");
        /* 5. a persistent receive for tag 2 claims it and stays linked */
        ptl_me_t r2 = me_of(rbuf, sizeof rbuf, 2, PTL_ME_OP_PUT);
        OK(PtlMEAppend(ni, PT_O, &r2, PTL_PRIORITY_LIST, UP(4), &h));
        expect(eq, PTL_EVENT_PUT_OVERFLOW, PTL_NI_OK, 2, UP(4), "claim tag 2");
        EXPECT_EMPTY(eq, "nothing else unexpected for tag 2");
    }
    BARRIER();
    /* 6. the next tag-2 message goes to the posted receive */
    if (pt_me == 1)
        send_tag(md, eq, msgs[4], 2);
    BARRIER();
    if (pt_me == 0) {
        ptl_event_t ev;
        WAIT_EVENT(eq, &ev);
        CHECK(ev.type == PTL_EVENT_PUT && ev.ptl_list == PTL_PRIORITY_LIST && ev.user_ptr == UP(4) &&
                  ev.start == rbuf && memcmp(rbuf, "tag 2 payload", 13) == 0,
              "expected tag 2: %s list %d", pt_evname(ev.type), ev.ptl_list);
        OK(PtlMEUnlink(h));
        OK(PtlMEUnlink(ovh));
        OK(PtlPTFree(ni, PT_O));
    }
    BARRIER();
    OK(PtlMDRelease(md));
    OK(PtlNIFini(ni));
    pt_barrier_fini();
    OK(PtlNIFini(bni));
    PtlFini();
    return pt_done("ptl_overflow");
}
