/* Portals over emunic's registered heap (the NIC copies with one memcpy)
 * next to private memory (process_vm_readv/writev): puts, gets and
 * fetch-adds of 8 B, 4 KiB and 1 MiB in every direction between the two
 * kinds, byte for byte. Rank 1 initiates, rank 0 is the target. */
#include "emunic/emunic.h"
#include "ptest.h"

#define PT_H 10
#define PT_P 11
#define BIG (1u << 20)

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    pt_barrier_init(ni, 1);
    /* [0, BIG+64): the target entry (data, then the counter); then sources */
    unsigned char *heap = emunic_malloc(2 * BIG + 128), *priv = pt_xmalloc(2 * BIG + 128);
    REQUIRE(heap && emunic_in_heap(heap, 2 * BIG + 128), "a heap buffer");
    memset(heap, 0, 2 * BIG + 128); /* the counters start at 0 */
    memset(priv, 0, 2 * BIG + 128);
    ptl_handle_ct_t ack, rep;
    OK(PtlCTAlloc(ni, &ack));
    OK(PtlCTAlloc(ni, &rep));
    ptl_pt_index_t idx;
    ptl_handle_le_t lh, lp;
    if (pt_me == 0) {
        OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_H, &idx));
        OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_P, &idx));
        ptl_le_t e = {.start = heap, .length = BIG + 64, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                      .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE};
        OK(PtlLEAppend(ni, PT_H, &e, PTL_PRIORITY_LIST, NULL, &lh));
        e.start = priv;
        OK(PtlLEAppend(ni, PT_P, &e, PTL_PRIORITY_LIST, NULL, &lp));
    }
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, ack);
    ptl_handle_md_t md, gmd;
    OK(PtlMDBind(ni, &d, &md));
    d.ct_handle = rep;
    OK(PtlMDBind(ni, &d, &gmd));
    ptl_process_t target = pt_lrank(0);
    BARRIER();
    static const size_t sizes[] = {8, 4096, BIG};
    uint64_t acks = 0, reps = 0;
    for (int src_heap = 0; src_heap < 2; src_heap++)
        for (int dst_heap = 0; dst_heap < 2; dst_heap++)
            for (int k = 0; k < 3; k++) {
                size_t n = sizes[k];
                unsigned salt = (unsigned)(src_heap * 2 + dst_heap + k * 4);
                unsigned char *src = (src_heap ? heap : priv) + BIG + 64, *tgt = dst_heap ? heap : priv;
                ptl_pt_index_t pt = dst_heap ? PT_H : PT_P;
                if (pt_me == 1) {
                    pt_fill(src, 1, salt, n);
                    ptl_ct_event_t ev;
                    OK(PtlPut(md, (ptl_size_t)(uintptr_t)src, n, PTL_CT_ACK_REQ, target, pt, 0, 0, NULL, 0));
                    OK(PtlCTWait(ack, ++acks, &ev));
                    CHECK(ev.failure == 0, "put %zu failed", n);
                    memset(src, 0, n);
                    OK(PtlGet(gmd, (ptl_size_t)(uintptr_t)src, n, target, pt, 0, 0, NULL));
                    OK(PtlCTWait(rep, ++reps, &ev));
                    CHECK_PATTERN(src, 1, salt, n, "get back %zu bytes (src %s, target %s)", n,
                                  src_heap ? "heap" : "private", dst_heap ? "heap" : "private");
                    int64_t one = 1, old = -1;
                    OK(PtlFetchAtomic(gmd, (ptl_size_t)(uintptr_t)&old, md, (ptl_size_t)(uintptr_t)&one, 8, target,
                                      pt, 0, n, NULL, 0, PTL_SUM, PTL_INT64_T));
                    OK(PtlCTWait(rep, ++reps, &ev));
                    CHECK(old == 0 && ev.failure == 0, "fetch-add after %zu bytes: old %lld", n, (long long)old);
                }
                BARRIER();
                if (pt_me == 0) {
                    CHECK_PATTERN(tgt, 1, salt, n, "target %zu bytes (%s)", n, dst_heap ? "heap" : "private");
                    int64_t v;
                    memcpy(&v, tgt + n, 8);
                    CHECK(v == 1, "counter after %zu bytes: %lld", n, (long long)v);
                    memset(tgt, 0, n + 8);
                }
                BARRIER();
            }
    if (pt_me == 0) {
        OK(PtlLEUnlink(lh));
        OK(PtlLEUnlink(lp));
    }
    BARRIER();
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(gmd));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    free(priv);
    return pt_done("ptl_heapmem");
}
