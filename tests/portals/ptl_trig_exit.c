/* A triggered operation fires while its initiator is still there, and
 * must land even if the initiator finalizes and exits right after the
 * PtlCTInc that fired it (the Portals reference's
 * test_{LE,ME}_no_space_triggered* programs do this). A NIC sends the
 * data when the operation fires; emunic's target once read a small source
 * only when the message arrived, from a process that was gone.
 *
 * Run over a slow link (tests/portals/slow_link.yaml: 200 ms), so every
 * message arrives long after rank 1 has exited. Rank 1 holds a put of 8
 * and of 144 bytes (the largest inline source), an atomic sum, a swap and
 * a get, all triggered by one counter; rank 0 checks every byte that
 * lands, and counts five successes: the swap and the get did their part at
 * the target, only their results find no one. */
#include <unistd.h>

#include "ptest.h"

#define PT_X 7
#define BIG 144

static uint64_t inbox[4 + BIG / 8];
static uint64_t small_src = 0x1122334455667788ull, sum_src = 5, swap_src = 0xabcdef01u, swap_old, got;
static uint8_t big_src[BIG];

int main(void)
{
    pt_env();
    REQUIRE(pt_n == 2, "written for 2 ranks, not %u", pt_n);
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_ct_t tct, trig;
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlCTAlloc(ni, &trig));
    ptl_pt_index_t idx;
    ptl_handle_le_t le;
    if (pt_me == 0) {
        inbox[1] = 10;
        inbox[2] = 0x77;
        OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_X, &idx));
        ptl_le_t e = {.start = inbox, .length = sizeof inbox, .ct_handle = tct, .uid = PTL_UID_ANY,
                      .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM};
        OK(PtlLEAppend(ni, PT_X, &e, PTL_PRIORITY_LIST, NULL, &le));
    }
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, 0, PTL_EQ_NONE, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    BARRIER();

    if (pt_me == 1) {
        ptl_process_t t = pt_lrank(0);
        pt_fill(big_src, 1, 3, BIG);
#define AT(p) ((ptl_size_t)(uintptr_t)(p))
        OK(PtlTriggeredPut(md, AT(&small_src), 8, PTL_NO_ACK_REQ, t, PT_X, 0, 0, NULL, 0, trig, 1));
        OK(PtlTriggeredAtomic(md, AT(&sum_src), 8, PTL_NO_ACK_REQ, t, PT_X, 0, 8, NULL, 0, PTL_SUM, PTL_UINT64_T,
                              trig, 1));
        OK(PtlTriggeredSwap(md, AT(&swap_old), md, AT(&swap_src), 8, t, PT_X, 0, 16, NULL, 0, NULL, PTL_SWAP,
                            PTL_UINT64_T, trig, 1));
        OK(PtlTriggeredPut(md, AT(big_src), BIG, PTL_NO_ACK_REQ, t, PT_X, 0, 32, NULL, 0, trig, 1));
        OK(PtlTriggeredGet(md, AT(&got), 8, t, PT_X, 0, 24, NULL, trig, 1));
        ptl_ct_event_t one = {1, 0};
        OK(PtlCTInc(trig, one));
        /* gone at once: no barrier, no wait for anything to land */
        pt_barrier_fini();
        OK(PtlNIFini(ni));
        PtlFini();
        return pt_done("ptl_trig_exit");
    }

    EXPECT_CT(tct, 5, 0);
    CHECK(inbox[0] == 0x1122334455667788ull, "put of 8: %#llx", (unsigned long long)inbox[0]);
    CHECK(inbox[1] == 15, "atomic sum: %llu, want 15", (unsigned long long)inbox[1]);
    CHECK(inbox[2] == 0xabcdef01u, "swap: %#llx", (unsigned long long)inbox[2]);
    CHECK(inbox[3] == 0, "byte 24..31 written: %#llx", (unsigned long long)inbox[3]);
    CHECK_PATTERN(&inbox[4], 1, 3, BIG, "put of %d", BIG);
    OK(PtlLEUnlink(le));
    OK(PtlPTFree(ni, PT_X));
    OK(PtlMDRelease(md));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_trig_exit");
}
