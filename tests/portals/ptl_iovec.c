/* PTL_IOVEC: an MD or list entry made of segments. Puts gather from the
 * initiator's segments and scatter into the target's, small ones (inside
 * the command) and large ones (by the NIC, piecewise); gets do the
 * reverse; an atomic must fit in one segment. Rank 1 initiates, rank 0 is
 * the target. */
#include "ptest.h"

#define PT_V 9

/* target segments: 10, 1 and 5000 bytes; initiator: 7, 3, 4000, 1001 */
static unsigned char t0[10], t1[1], t2[5000];
static unsigned char s0[7], s1[3], s2[4000], s3[1001];
static unsigned char g0[100], g1[2900];
#define TTOTAL (10 + 1 + 5000)

static ptl_iovec_t tv[3] = {{t0, sizeof t0}, {t1, sizeof t1}, {t2, sizeof t2}};
static ptl_iovec_t sv[4] = {{s0, sizeof s0}, {s1, sizeof s1}, {s2, sizeof s2}, {s3, sizeof s3}};
static ptl_iovec_t gv[2] = {{g0, sizeof g0}, {g1, sizeof g1}};

static unsigned char *at(ptl_iovec_t *v, int n, size_t off)
{
    for (int k = 0; k < n; k++) {
        if (off < v[k].iov_len)
            return (unsigned char *)v[k].iov_base + off;
        off -= v[k].iov_len;
    }
    return NULL;
}

static void fill_src(unsigned salt)
{
    for (size_t i = 0; i < TTOTAL; i++)
        *at(sv, 4, i) = (unsigned char)(i * 7 + salt);
}

static void wait_ack(ptl_handle_eq_t eq, int want_fail, const char *what)
{
    ptl_event_t ev;
    do
        WAIT_EVENT(eq, &ev);
    while (ev.type == PTL_EVENT_SEND);
    CHECK((ev.type == PTL_EVENT_ACK || ev.type == PTL_EVENT_REPLY) && ev.ni_fail_type == want_fail,
          "%s: %s %s", what, pt_evname(ev.type), pt_failname(ev.ni_fail_type));
}

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_eq_t eq;
    OK(PtlEQAlloc(ni, 64, &eq));
    ptl_pt_index_t idx;
    ptl_handle_le_t le;
    if (pt_me == 0) {
        OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_V, &idx));
        ptl_le_t e = {.start = tv, .length = 3, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                      .options = PTL_IOVEC | PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE};
        OK(PtlLEAppend(ni, PT_V, &e, PTL_PRIORITY_LIST, NULL, &le));
    }
    ptl_md_t d = pt_md(sv, 4, PTL_IOVEC | PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    ptl_handle_md_t smd, gmd;
    OK(PtlMDBind(ni, &d, &smd));
    d = pt_md(gv, 2, PTL_IOVEC, eq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gmd));
    ptl_process_t target = pt_lrank(0);
    BARRIER();

    /* 1. the whole target, from the start of the source: by the NIC */
    if (pt_me == 1) {
        fill_src(1);
        OK(PtlPut(smd, 0, TTOTAL, PTL_ACK_REQ, target, PT_V, 0, 0, NULL, 0));
        wait_ack(eq, PTL_NI_OK, "large iovec put");
        EXPECT_RC(PTL_ARG_INVALID, PtlPut(smd, 2, 5010, PTL_ACK_REQ, target, PT_V, 0, 0, NULL, 0)); /* past the MD */
    }
    BARRIER();
    if (pt_me == 0)
        for (size_t i = 0; i < TTOTAL; i++)
            CHECK(*at(tv, 3, i) == (unsigned char)(i * 7 + 1), "large put: target byte %zu", i);
    BARRIER();

    /* 2. 20 bytes across segment edges on both sides: inside the command */
    if (pt_me == 1) {
        fill_src(2);
        OK(PtlPut(smd, 5, 20, PTL_ACK_REQ, target, PT_V, 0, 8, NULL, 0));
        wait_ack(eq, PTL_NI_OK, "small iovec put");
    }
    BARRIER();
    if (pt_me == 0)
        for (size_t i = 0; i < 20; i++)
            CHECK(*at(tv, 3, 8 + i) == (unsigned char)((5 + i) * 7 + 2), "small put: target byte %zu", 8 + i);
    BARRIER();

    /* 3. a get from the target's segments into ours, both misaligned */
    if (pt_me == 1) {
        memset(g0, 0, sizeof g0);
        memset(g1, 0, sizeof g1);
        OK(PtlGet(gmd, 2, 2990, target, PT_V, 0, 11, NULL));
        wait_ack(eq, PTL_NI_OK, "iovec get");
        for (size_t i = 0; i < 2990; i++) {
            size_t ti = 11 + i; /* what case 2 left there, else case 1 */
            unsigned char want = (ti >= 8 && ti < 28) ? (unsigned char)((ti - 3) * 7 + 2) : (unsigned char)(ti * 7 + 1);
            CHECK(*at(gv, 2, 2 + i) == want, "get: byte %zu", i);
        }
        CHECK(g0[0] == 0 && g0[1] == 0, "get wrote before its offset");
    }
    BARRIER();

    /* 4. atomics: inside one target segment fine, across two refused */
    if (pt_me == 0)
        memset(t2, 0, 64);
    BARRIER();
    if (pt_me == 1) {
        int64_t one[2] = {5, 6};
        memcpy(s2, one, sizeof one);
        /* source offset 10 is the start of s2; target offset 11 the start of t2 */
        OK(PtlAtomic(smd, 10, 16, PTL_ACK_REQ, target, PT_V, 0, 11, NULL, 0, PTL_SUM, PTL_INT64_T));
        wait_ack(eq, PTL_NI_OK, "atomic inside a segment");
        OK(PtlAtomic(smd, 10, 8, PTL_ACK_REQ, target, PT_V, 0, 6, NULL, 0, PTL_SUM, PTL_INT64_T));
        wait_ack(eq, PTL_NI_UNDELIVERABLE, "atomic across segments");
    }
    BARRIER();
    if (pt_me == 0) {
        int64_t got[2];
        memcpy(got, t2, sizeof got);
        CHECK(got[0] == 5 && got[1] == 6, "atomic into t2: %lld %lld", (long long)got[0], (long long)got[1]);
        OK(PtlLEUnlink(le));
        OK(PtlPTFree(ni, PT_V));
    }
    BARRIER();
    OK(PtlMDRelease(smd));
    OK(PtlMDRelease(gmd));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_iovec");
}
