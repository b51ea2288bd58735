/* Many ranks at once (64 as 8 nodes x 8 on a 2-core box): every rank puts
 * to both neighbours and fetch-adds one counter on rank 0 each round. Exact
 * results: every byte from each neighbour, every target count, the final
 * counter, and the fetched values, which across the job must be exactly
 * 0 .. ranks*rounds-1, each once, and increasing per rank. */
#include "ptest.h"

#define MSG 4096
#define ITERS 10

#define PT_INBOX 3
#define PT_COUNTER 4
#define PT_GATHER 5

static int64_t counter;

int main(void)
{
    pt_env();
    const uint32_t me = pt_me, n = pt_n, right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *inbox = pt_xmalloc(2 * MSG), *out = pt_xmalloc(2 * MSG);
    int64_t *gather = me == 0 ? pt_xmalloc((size_t)n * ITERS * 8) : NULL;
    int64_t fetched[ITERS], one = 1;
    memset(inbox, 0xee, 2 * MSG);
    memset(fetched, 0xff, sizeof fetched);

    OK(PtlInit());
    ptl_handle_ni_t ni;
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_ct_t tct, act, rct;
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlCTAlloc(ni, &act));
    OK(PtlCTAlloc(ni, &rct));
    ptl_pt_index_t idx;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_INBOX, &idx));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_COUNTER, &idx));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_GATHER, &idx));
    const unsigned lo = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE;
    ptl_le_t le = pt_le(inbox, 2 * MSG, lo | PTL_LE_EVENT_CT_COMM, tct, PTL_UID_ANY);
    ptl_handle_le_t l1, l2, l3 = PTL_INVALID_HANDLE;
    OK(PtlLEAppend(ni, PT_INBOX, &le, PTL_PRIORITY_LIST, NULL, &l1));
    le = pt_le(&counter, sizeof counter, lo, PTL_CT_NONE, PTL_UID_ANY);
    OK(PtlLEAppend(ni, PT_COUNTER, &le, PTL_PRIORITY_LIST, NULL, &l2));
    if (me == 0) {
        le = pt_le(gather, (size_t)n * ITERS * 8, lo, PTL_CT_NONE, PTL_UID_ANY);
        OK(PtlLEAppend(ni, PT_GATHER, &le, PTL_PRIORITY_LIST, NULL, &l3));
    }
    ptl_md_t d = pt_md(out, 2 * MSG, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, act);
    ptl_handle_md_t omd, onemd, fmd;
    OK(PtlMDBind(ni, &d, &omd));
    d = pt_md(&one, 8, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, act);
    OK(PtlMDBind(ni, &d, &onemd));
    d = pt_md(fetched, sizeof fetched, PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE,
              PTL_EQ_NONE, rct);
    OK(PtlMDBind(ni, &d, &fmd));

    for (int it = 0; it < ITERS; it++) {
        pt_fill(out, me, 2 * (uint64_t)it, MSG);
        pt_fill(out + MSG, me, 2 * (uint64_t)it + 1, MSG);
        BARRIER(); /* everyone checked the last round */
        OK(PtlPut(omd, 0, MSG, PTL_OC_ACK_REQ, pt_lrank(right), PT_INBOX, 0, 0, NULL, 0));
        OK(PtlPut(omd, MSG, MSG, PTL_OC_ACK_REQ, pt_lrank(left), PT_INBOX, 0, MSG, NULL, 0));
        OK(PtlFetchAtomic(fmd, (ptl_size_t)it * 8, onemd, 0, 8, pt_lrank(0), PT_COUNTER, 0, 0, NULL, 0, PTL_SUM,
                          PTL_INT64_T));
        EXPECT_CT(act, 2 * ((ptl_size_t)it + 1), 0);
        EXPECT_CT(rct, (ptl_size_t)it + 1, 0);
        BARRIER();
        CHECK_PATTERN(inbox, left, 2 * (uint64_t)it, MSG, "round %d from my left (%u)", it, left);
        CHECK_PATTERN(inbox + MSG, right, 2 * (uint64_t)it + 1, MSG, "round %d from my right (%u)", it, right);
        EXPECT_CT_NOW(tct, 2 * ((ptl_size_t)it + 1), 0);
        if (it > 0)
            CHECK(fetched[it] > fetched[it - 1], "round %d fetched %lld after %lld", it, (long long)fetched[it],
                  (long long)fetched[it - 1]);
    }
    /* hand my fetched values to rank 0 */
    OK(PtlPut(fmd, 0, sizeof fetched, PTL_CT_ACK_REQ, pt_lrank(0), PT_GATHER, 0, (ptl_size_t)me * sizeof fetched,
              NULL, 0));
    EXPECT_CT(rct, ITERS + 1, 0);
    BARRIER();
    if (me == 0) {
        const uint64_t total = (uint64_t)n * ITERS;
        CHECK(counter == (int64_t)total, "counter %lld, want %llu", (long long)counter, (unsigned long long)total);
        unsigned char *seen = calloc(total, 1);
        REQUIRE(seen, "calloc");
        for (uint64_t i = 0; i < total; i++) {
            int64_t v = gather[i];
            if (v < 0 || (uint64_t)v >= total) {
                FAILED("rank %llu fetched %lld, outside 0..%llu", (unsigned long long)(i / ITERS), (long long)v,
                      (unsigned long long)total - 1);
                continue;
            }
            CHECK(!seen[v], "value %lld fetched twice", (long long)v);
            seen[v] = 1;
        }
        free(seen);
        printf("ptl_many: %u ranks on %u nodes, %d rounds: counter %lld, fetched values a permutation\n", n,
               pt_nnodes, ITERS, (long long)counter);
    }
    BARRIER();
    OK(PtlMDRelease(omd));
    OK(PtlMDRelease(onemd));
    OK(PtlMDRelease(fmd));
    OK(PtlLEUnlink(l1));
    OK(PtlLEUnlink(l2));
    if (me == 0)
        OK(PtlLEUnlink(l3));
    OK(PtlPTFree(ni, PT_INBOX));
    OK(PtlPTFree(ni, PT_COUNTER));
    OK(PtlPTFree(ni, PT_GATHER));
    OK(PtlCTFree(tct));
    OK(PtlCTFree(act));
    OK(PtlCTFree(rct));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    free(inbox);
    free(out);
    free(gather);
    return pt_done("ptl_many");
}
