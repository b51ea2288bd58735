/* Target work that the initiator's daemon does for another node's rank
 * (nicd/fastpath.c, portals/nic ptln_peer_target); run at 2x1, where
 * every operation below crosses nodes, with and without the path
 * (tests/portals/fastpath.sh). Rank 1 initiates, rank 0 is the target.
 *  1. the target holds a triggered put on its own LE's counter: a put
 *     from the other node bumps that counter and the operation fires;
 *  2. a stream of puts posts its target events in order, field by field;
 *  3. fetch-atomics fetch each value once. */
#include "ptest.h"

#define PT_C 6 /* LE with a counter, no events */
#define PT_E 7 /* LE with events */
#define NPUT 200
#define NFETCH 100

static uint64_t cbox[4];
static uint64_t ebox[NPUT];
static uint64_t total;

int main(void)
{
    pt_env();
    REQUIRE(pt_n == 2, "ptl_peer needs 2 ranks, has %u", pt_n);
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_ct_t cct, ack;
    ptl_handle_eq_t eq;
    OK(PtlCTAlloc(ni, &cct));
    OK(PtlCTAlloc(ni, &ack));
    OK(PtlEQAlloc(ni, 1024, &eq));
    ptl_pt_index_t idx;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_C, &idx));
    OK(PtlPTAlloc(ni, 0, eq, PT_E, &idx));
    ptl_le_t c = {.start = cbox, .length = sizeof cbox, .ct_handle = cct, .uid = PTL_UID_ANY,
                  .options = PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE};
    ptl_handle_le_t cle, ele, tle;
    OK(PtlLEAppend(ni, PT_C, &c, PTL_PRIORITY_LIST, NULL, &cle));
    ptl_le_t e = {.start = ebox, .length = sizeof ebox, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                  .options = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE};
    OK(PtlLEAppend(ni, PT_E, &e, PTL_PRIORITY_LIST, (void *)0x5eed, &ele));
    ptl_le_t t = {.start = &total, .length = sizeof total, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                  .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE | PTL_LE_EVENT_COMM_DISABLE};
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_C + 2, &idx));
    OK(PtlLEAppend(ni, PT_C + 2, &t, PTL_PRIORITY_LIST, NULL, &tle));
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, ack);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    static uint64_t v[NPUT], got;
    BARRIER();

    /* 1. rank 0's triggered put waits on its own LE's counter */
    if (pt_me == 0) {
        v[0] = 0xa0;
        OK(PtlTriggeredPut(md, (ptl_size_t)(uintptr_t)&v[0], 8, PTL_CT_ACK_REQ, pt_lrank(1), PT_C, 0, 0, NULL, 0,
                           cct, 1));
    }
    BARRIER();
    if (pt_me == 1) {
        v[1] = 0xb1;
        OK(PtlPut(md, (ptl_size_t)(uintptr_t)&v[1], 8, PTL_CT_ACK_REQ, pt_lrank(0), PT_C, 0, 8, NULL, 0));
        EXPECT_CT(cct, 1, 0); /* the fired put landed here */
        CHECK(cbox[0] == 0xa0, "case 1: the target's triggered put brought %#llx", (unsigned long long)cbox[0]);
    } else {
        EXPECT_CT(ack, 1, 0); /* its triggered put was acked */
        CHECK(cbox[1] == 0xb1, "case 1: the put brought %#llx", (unsigned long long)cbox[1]);
    }
    BARRIER();

    /* 2. NPUT puts, each with its own header data, events in order */
    if (pt_me == 1) {
        for (uint64_t i = 0; i < NPUT; i++) {
            v[i] = 0x1000 + i;
            OK(PtlPut(md, (ptl_size_t)(uintptr_t)&v[i], 8, PTL_CT_ACK_REQ, pt_lrank(0), PT_E, 0, i * 8, NULL,
                      i + 7));
        }
        EXPECT_CT(ack, NPUT + 1, 0);
    } else {
        for (uint64_t i = 0; i < NPUT; i++) {
            ptl_event_t x;
            WAIT_EVENT(eq, &x);
            struct evwant w = want_target(PTL_EVENT_PUT, &ebox[i], (void *)0x5eed, i + 7, 8, 8, i * 8, 1, PT_E);
            CHECK_EVENT("case 2", &x, &w);
            CHECK(ebox[i] == 0x1000 + i, "case 2: slot %llu holds %#llx", (unsigned long long)i,
                  (unsigned long long)ebox[i]);
        }
        EXPECT_EMPTY(eq, "case 2: no event beyond the puts'");
    }
    BARRIER();

    /* 3. fetch-and-add, one at a time: each fetches the value before it */
    if (pt_me == 1) {
        static uint64_t one = 1;
        for (uint64_t i = 0; i < NFETCH; i++) {
            OK(PtlFetchAtomic(md, (ptl_size_t)(uintptr_t)&got, md, (ptl_size_t)(uintptr_t)&one, 8, pt_lrank(0),
                              PT_C + 2, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
            EXPECT_CT(ack, NPUT + 2 + i, 0);
            CHECK(got == i, "case 3: fetch %llu returned %llu", (unsigned long long)i, (unsigned long long)got);
        }
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(total == NFETCH, "case 3: the target holds %llu, want %u", (unsigned long long)total, NFETCH);
    BARRIER();
    OK(PtlMDRelease(md));
    OK(PtlLEUnlink(cle));
    OK(PtlLEUnlink(ele));
    OK(PtlLEUnlink(tle));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_peer");
}
