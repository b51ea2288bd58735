/* PtlNIInit's desired limits: each field is capped at ours (a field <= 0
 * asks for nothing and gets ours), reported in actual, kept by a second
 * PtlNIInit of the same NI, and enforced per NI: PTL_NO_SPACE past
 * max_entries, max_list_size (each list of each PT), max_mds, max_cts,
 * max_eqs and max_triggered_ops; PTL_PT_FULL past max_pt_index with
 * PTL_PT_ANY (PTL_ARG_INVALID for an explicit index); PTL_ARG_INVALID past
 * max_iovecs, max_msg_size, max_atomic_size and max_fetch_atomic_size.
 * Freeing an object, the NIC using up a use-once entry, and the NIC firing
 * or cancelling triggered operations all make room again. One rank, its
 * own target. */
#include "ptest.h"

static ptl_handle_ni_t ni;   /* non-matching logical, small limits */
static ptl_ni_limits_t ours; /* what a NULL desired gets */
static ptl_process_t self;
static uint64_t src[32], dst[32];

static void t_agree(void)
{
    ptl_handle_ni_t mni, h;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &ours, &mni));
    CHECK(ours.max_pt_index == 63, "max_pt_index %d", ours.max_pt_index);
    CHECK(ours.max_fetch_atomic_size <= ours.max_atomic_size, "fetch %llu > atomic %llu",
          (unsigned long long)ours.max_fetch_atomic_size, (unsigned long long)ours.max_atomic_size);
    CHECK(ours.features == (PTL_TARGET_BIND_INACCESSIBLE | PTL_TOTAL_DATA_ORDERING | PTL_COHERENT_ATOMICS),
          "features 0x%x", ours.features);

    ptl_ni_limits_t d, a, a2;
    memset(&d, 0, sizeof d);
    d.max_entries = 6;
    d.max_mds = 3;
    d.max_cts = 3;
    d.max_eqs = 2;
    d.max_pt_index = 3;
    d.max_iovecs = 4;
    d.max_list_size = 4;
    d.max_triggered_ops = 3;
    d.max_msg_size = 64;
    d.max_atomic_size = 16; /* max_fetch_atomic_size 0: capped at this */
    d.max_unexpected_headers = INT_MAX; /* more than we have */
    d.max_volatile_size = 8;
    d.features = PTL_TOTAL_DATA_ORDERING | 0x100; /* 0x100: no such feature */
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &d, &a, &ni));
    CHECK(a.max_entries == 6 && a.max_mds == 3 && a.max_cts == 3 && a.max_eqs == 2 && a.max_pt_index == 3 &&
              a.max_iovecs == 4 && a.max_list_size == 4 && a.max_triggered_ops == 3,
          "entries %d mds %d cts %d eqs %d pt_index %d iovecs %d list %d triggered %d", a.max_entries, a.max_mds,
          a.max_cts, a.max_eqs, a.max_pt_index, a.max_iovecs, a.max_list_size, a.max_triggered_ops);
    CHECK(a.max_msg_size == 64 && a.max_atomic_size == 16 && a.max_fetch_atomic_size == 16 &&
              a.max_volatile_size == 8,
          "msg %llu atomic %llu fetch %llu volatile %llu", (unsigned long long)a.max_msg_size,
          (unsigned long long)a.max_atomic_size, (unsigned long long)a.max_fetch_atomic_size,
          (unsigned long long)a.max_volatile_size);
    CHECK(a.max_unexpected_headers == ours.max_unexpected_headers, "unexpected headers %d, want ours %d",
          a.max_unexpected_headers, ours.max_unexpected_headers);
    CHECK(a.max_waw_ordered_size == ours.max_waw_ordered_size, "waw %llu: 0 asks for nothing",
          (unsigned long long)a.max_waw_ordered_size);
    CHECK(a.features == PTL_TOTAL_DATA_ORDERING, "features 0x%x", a.features);

    /* a second init of the NI: its first limits, whatever is desired now */
    ptl_ni_limits_t d2 = d;
    d2.max_mds = 100;
    d2.max_entries = 1;
    memset(&a2, 0, sizeof a2);
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &d2, &a2, &h));
    CHECK(PtlHandleIsEqual(h, ni), "another handle");
    CHECK(memcmp(&a, &a2, sizeof a) == 0, "second PtlNIInit: mds %d entries %d", a2.max_mds, a2.max_entries);
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &a2, &h));
    CHECK(memcmp(&a, &a2, sizeof a) == 0, "second PtlNIInit, desired NULL: mds %d", a2.max_mds);
    OK(PtlNIFini(h));
    OK(PtlNIFini(h));
    OK(PtlNIFini(mni));
}

static void t_pt(void)
{
    ptl_pt_index_t i;
    EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 4, &i));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 3, &i));
    for (ptl_pt_index_t k = 0; k < 3; k++) {
        OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
        CHECK(i == k, "PTL_PT_ANY gave %u, want %u", i, k);
    }
    EXPECT_RC(PTL_PT_FULL, PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
    OK(PtlPTFree(ni, 1));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
    CHECK(i == 1, "PTL_PT_ANY gave %u, want the freed 1", i);
    for (ptl_pt_index_t k = 0; k <= 3; k++)
        OK(PtlPTFree(ni, k));
}

/* max_eqs, max_cts, max_mds and max_iovecs; another NI is not limited */
static void t_objects(void)
{
    ptl_handle_ni_t pni; /* non-matching physical, our limits */
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &pni));
    ptl_handle_eq_t eq[2], xeq;
    for (int k = 0; k < 2; k++)
        OK(PtlEQAlloc(ni, 8, &eq[k]));
    EXPECT_RC(PTL_NO_SPACE, PtlEQAlloc(ni, 8, &xeq));
    OK(PtlEQAlloc(pni, 8, &xeq));
    OK(PtlEQFree(eq[0]));
    OK(PtlEQAlloc(ni, 8, &eq[0]));
    EXPECT_RC(PTL_NO_SPACE, PtlEQAlloc(ni, 8, &xeq));

    ptl_handle_ct_t ct[3], xct;
    for (int k = 0; k < 3; k++)
        OK(PtlCTAlloc(ni, &ct[k]));
    EXPECT_RC(PTL_NO_SPACE, PtlCTAlloc(ni, &xct));
    OK(PtlCTAlloc(pni, &xct));
    OK(PtlCTFree(ct[1]));
    OK(PtlCTAlloc(ni, &ct[1]));
    EXPECT_RC(PTL_NO_SPACE, PtlCTAlloc(ni, &xct));

    ptl_handle_md_t md[3], xmd;
    ptl_md_t m = pt_md(src, sizeof src, 0, PTL_EQ_NONE, PTL_CT_NONE);
    for (int k = 0; k < 3; k++)
        OK(PtlMDBind(ni, &m, &md[k]));
    EXPECT_RC(PTL_NO_SPACE, PtlMDBind(ni, &m, &xmd));
    OK(PtlMDBind(pni, &m, &xmd));
    OK(PtlMDRelease(md[2]));
    ptl_iovec_t iov[5];
    for (int k = 0; k < 5; k++)
        iov[k] = (ptl_iovec_t){&src[k], 8};
    ptl_md_t vm = pt_md(iov, 5, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &vm, &md[2]));
    OK(PtlMDBind(pni, &vm, &xmd)); /* ours: 1024 */
    vm.length = 4;
    OK(PtlMDBind(ni, &vm, &md[2]));
    EXPECT_RC(PTL_NO_SPACE, PtlMDBind(ni, &m, &xmd));

    ptl_pt_index_t p;
    ptl_handle_le_t le;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    ptl_le_t vl = pt_le(iov, 5, PTL_IOVEC | PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    EXPECT_RC(PTL_ARG_INVALID, PtlLEAppend(ni, p, &vl, PTL_PRIORITY_LIST, NULL, &le));
    vl.length = 4;
    OK(PtlLEAppend(ni, p, &vl, PTL_PRIORITY_LIST, NULL, &le));
    OK(PtlLEUnlink(le));
    OK(PtlPTFree(ni, p));

    for (int k = 0; k < 3; k++) {
        OK(PtlMDRelease(md[k]));
        OK(PtlCTFree(ct[k]));
    }
    for (int k = 0; k < 2; k++)
        OK(PtlEQFree(eq[k]));
    OK(PtlNIFini(pni)); /* its objects go with it */
}

/* max_list_size per list, max_entries per NI; entries the NIC used up
 * leave both */
static void t_entries(void)
{
    ptl_pt_index_t p, q;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &q));
    ptl_handle_ct_t lct;
    OK(PtlCTAlloc(ni, &lct));
    ptl_le_t e = pt_le(dst, sizeof dst, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t pri[4], ovf[2], x;
    for (int k = 0; k < 4; k++)
        OK(PtlLEAppend(ni, p, &e, PTL_PRIORITY_LIST, NULL, &pri[k]));
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, p, &e, PTL_PRIORITY_LIST, NULL, &x)); /* list */
    for (int k = 0; k < 2; k++)
        OK(PtlLEAppend(ni, p, &e, PTL_OVERFLOW_LIST, NULL, &ovf[k])); /* counted apart */
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, p, &e, PTL_OVERFLOW_LIST, NULL, &x)); /* entries */
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, q, &e, PTL_PRIORITY_LIST, NULL, &x));
    OK(PtlLEUnlink(pri[0]));
    OK(PtlLEAppend(ni, q, &e, PTL_PRIORITY_LIST, NULL, &pri[0]));
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, p, &e, PTL_OVERFLOW_LIST, NULL, &x));
    for (int k = 0; k < 4; k++)
        OK(PtlLEUnlink(pri[k]));
    for (int k = 0; k < 2; k++)
        OK(PtlLEUnlink(ovf[k]));

    /* four use-once entries fill p's list; four puts use them up */
    ptl_le_t once = pt_le(dst, 8, PTL_LE_OP_PUT | PTL_LE_USE_ONCE | PTL_LE_EVENT_CT_COMM, lct, PTL_UID_ANY);
    ptl_handle_le_t used[4], fresh[4];
    for (int k = 0; k < 4; k++)
        OK(PtlLEAppend(ni, p, &once, PTL_PRIORITY_LIST, NULL, &used[k]));
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, p, &once, PTL_PRIORITY_LIST, NULL, &x));
    ptl_md_t m = pt_md(src, sizeof src, 0, PTL_EQ_NONE, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &m, &md));
    for (int k = 0; k < 4; k++)
        OK(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, self, p, 0, 0, NULL, 0));
    EXPECT_CT(lct, 4, 0);
    /* the list is empty again and the NI holds no entry */
    for (int k = 0; k < 4; k++)
        OK(PtlLEAppend(ni, p, &once, PTL_PRIORITY_LIST, NULL, &fresh[k]));
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, p, &once, PTL_PRIORITY_LIST, NULL, &x));
    OK(PtlLEAppend(ni, q, &e, PTL_PRIORITY_LIST, NULL, &pri[0]));
    OK(PtlLEAppend(ni, q, &e, PTL_PRIORITY_LIST, NULL, &pri[1]));
    EXPECT_RC(PTL_NO_SPACE, PtlLEAppend(ni, q, &e, PTL_PRIORITY_LIST, NULL, &x));
    for (int k = 0; k < 4; k++) {
        EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(used[k])); /* gone by itself */
        OK(PtlLEUnlink(fresh[k]));
    }
    OK(PtlLEUnlink(pri[0]));
    OK(PtlLEUnlink(pri[1]));
    OK(PtlMDRelease(md));
    OK(PtlCTFree(lct));
    OK(PtlPTFree(ni, p));
    OK(PtlPTFree(ni, q));
}

/* max_msg_size, max_atomic_size, max_fetch_atomic_size; at the limit the
 * operations go through */
static void t_sizes(void)
{
    ptl_pt_index_t p;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    ptl_handle_ct_t lct, mct, tct;
    OK(PtlCTAlloc(ni, &lct));
    OK(PtlCTAlloc(ni, &mct));
    OK(PtlCTAlloc(ni, &tct));
    ptl_le_t e = pt_le(dst, sizeof dst, PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM, lct, PTL_UID_ANY);
    ptl_handle_le_t le;
    OK(PtlLEAppend(ni, p, &e, PTL_PRIORITY_LIST, NULL, &le));
    ptl_md_t m = pt_md(src, sizeof src, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, mct);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &m, &md));
    uint64_t opnd = 0;

    OK(PtlPut(md, 0, 64, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlPut(md, 0, 65, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0));
    OK(PtlGet(md, 64, 64, self, p, 0, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, PtlGet(md, 0, 65, self, p, 0, 0, NULL));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredPut(md, 0, 65, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0, tct, 1));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredGet(md, 0, 65, self, p, 0, 0, NULL, tct, 1));

    OK(PtlAtomic(md, 0, 16, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(md, 0, 24, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    OK(PtlFetchAtomic(md, 128, md, 0, 16, self, p, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(md, 128, md, 0, 24, self, p, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    OK(PtlSwap(md, 128, md, 0, 8, self, p, 0, 0, NULL, 0, &opnd, PTL_CSWAP, PTL_UINT64_T));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredAtomic(md, 0, 24, PTL_CT_ACK_REQ, self, p, 0, 0, NULL, 0, PTL_SUM,
                                                  PTL_UINT64_T, tct, 1));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredFetchAtomic(md, 128, md, 0, 24, self, p, 0, 0, NULL, 0, PTL_SUM,
                                                       PTL_UINT64_T, tct, 1));
    EXPECT_CT(mct, 5, 0); /* ack, reply, ack, reply, reply */
    EXPECT_CT(lct, 5, 0);

    /* max_fetch_atomic_size below max_atomic_size */
    ptl_ni_limits_t d, a;
    memset(&d, 0, sizeof d);
    d.max_atomic_size = 32;
    d.max_fetch_atomic_size = 8;
    ptl_handle_ni_t pni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &d, &a, &pni));
    CHECK(a.max_atomic_size == 32 && a.max_fetch_atomic_size == 8 && a.max_mds == ours.max_mds,
          "atomic %llu fetch %llu mds %d", (unsigned long long)a.max_atomic_size,
          (unsigned long long)a.max_fetch_atomic_size, a.max_mds);
    ptl_handle_ct_t pct;
    ptl_handle_md_t pmd;
    ptl_handle_le_t ple;
    OK(PtlCTAlloc(pni, &pct));
    OK(PtlPTAlloc(pni, 0, PTL_EQ_NONE, p, &p));
    e.ct_handle = pct;
    OK(PtlLEAppend(pni, p, &e, PTL_PRIORITY_LIST, NULL, &ple));
    m.ct_handle = PTL_CT_NONE;
    OK(PtlMDBind(pni, &m, &pmd));
    ptl_process_t me_phys = pt_phys(pt_me);
    OK(PtlAtomic(pmd, 0, 32, PTL_NO_ACK_REQ, me_phys, p, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    OK(PtlFetchAtomic(pmd, 128, pmd, 0, 8, me_phys, p, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(pmd, 128, pmd, 0, 16, me_phys, p, 0, 0, NULL, 0, PTL_SUM,
                                              PTL_UINT64_T));
    EXPECT_CT(pct, 2, 0);
    OK(PtlNIFini(pni));

    OK(PtlMDRelease(md));
    OK(PtlLEUnlink(le));
    OK(PtlCTFree(lct));
    OK(PtlCTFree(mct));
    OK(PtlCTFree(tct));
    OK(PtlPTFree(ni, p));
}

/* max_triggered_ops: what the NI's counters hold unfired; firing and
 * cancelling make room */
static void t_triggered(void)
{
    ptl_pt_index_t p;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &p));
    ptl_handle_ct_t lct, t1, t2;
    OK(PtlCTAlloc(ni, &lct));
    OK(PtlCTAlloc(ni, &t1));
    OK(PtlCTAlloc(ni, &t2));
    ptl_le_t e = pt_le(dst, sizeof dst, PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM, lct, PTL_UID_ANY);
    ptl_handle_le_t le;
    OK(PtlLEAppend(ni, p, &e, PTL_PRIORITY_LIST, NULL, &le));
    ptl_md_t m = pt_md(src, sizeof src, 0, PTL_EQ_NONE, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &m, &md));
    ptl_ct_event_t one = {1, 0};
#define TPUT(t, thr) PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, self, p, 0, 0, NULL, 0, (t), (thr))

    OK(TPUT(t1, 1));
    OK(TPUT(t1, 1));
    OK(PtlTriggeredCTInc(t2, one, t2, 5)); /* held too */
    EXPECT_RC(PTL_NO_SPACE, TPUT(t2, 1));
    EXPECT_RC(PTL_NO_SPACE, PtlTriggeredCTSet(t1, one, t1, 9));
    OK(PtlCTInc(t1, one)); /* fires t1's two */
    EXPECT_CT(lct, 2, 0);
    OK(TPUT(t1, 2));
    OK(TPUT(t1, 2));
    EXPECT_RC(PTL_NO_SPACE, TPUT(t2, 1));
    OK(PtlCTCancelTriggered(t1)); /* drops t1's two */
    OK(TPUT(t2, 9));
    OK(TPUT(t2, 9));
    EXPECT_RC(PTL_NO_SPACE, TPUT(t1, 9));
    OK(PtlCTCancelTriggered(t2));
    for (int k = 0; k < 3; k++)
        OK(TPUT(t1, 9));
    EXPECT_RC(PTL_NO_SPACE, TPUT(t1, 9));
    OK(PtlCTCancelTriggered(t1));
    EXPECT_CT_NOW(lct, 2, 0);
#undef TPUT
    OK(PtlMDRelease(md));
    OK(PtlLEUnlink(le));
    OK(PtlCTFree(lct));
    OK(PtlCTFree(t1));
    OK(PtlCTFree(t2));
    OK(PtlPTFree(ni, p));
}

int main(void)
{
    pt_env();
    self = pt_lrank(pt_me);
    OK(PtlInit());
    t_agree();
    t_pt();
    t_objects();
    t_entries();
    t_sizes();
    t_triggered();

    /* once the NI is gone, the next init agrees anew */
    OK(PtlNIFini(ni));
    ptl_ni_limits_t d, a;
    memset(&d, 0, sizeof d);
    d.max_mds = 5;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &d, &a, &ni));
    CHECK(a.max_mds == 5 && a.max_entries == ours.max_entries, "mds %d entries %d", a.max_mds, a.max_entries);
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_limits");
}
