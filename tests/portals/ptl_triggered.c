/* Triggered operations: held by the NIC until their counter reaches the
 * threshold, whoever moves the counter (the rank with PtlCTInc/PtlCTSet,
 * the NIC counting acks, another triggered counter operation); the buffer
 * is read when the operation fires; PtlCTCancelTriggered drops what is
 * held. Rank 1 triggers, rank 0 is the target. */
#include <unistd.h>

#include "ptest.h"

#define PT_T 6
#define SLOTS 8

static uint64_t inbox[SLOTS];

static void settle(void) { usleep(50000); } /* long enough for a wrongly fired op to land */

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_ct_t tct, ack, c[9];
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlCTAlloc(ni, &ack));
    for (int k = 0; k < 9; k++)
        OK(PtlCTAlloc(ni, &c[k]));
    ptl_pt_index_t idx;
    ptl_handle_le_t le;
    if (pt_me == 0) {
        OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_T, &idx));
        ptl_le_t e = {.start = inbox, .length = sizeof inbox, .ct_handle = tct, .uid = PTL_UID_ANY,
                      .options = PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE};
        OK(PtlLEAppend(ni, PT_T, &e, PTL_PRIORITY_LIST, NULL, &le));
    }
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ack);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    static uint64_t v[SLOTS];
    ptl_process_t target = pt_lrank(0);
    ptl_ct_event_t one = {1, 0}, ev;
#define TPUT(slot, trig, thr) \
    OK(PtlTriggeredPut(md, (ptl_size_t)(uintptr_t)&v[slot], 8, PTL_CT_ACK_REQ, target, PT_T, 0, (slot) * 8, NULL, 0, (trig), (thr)))
    BARRIER();

    /* 1. not before the threshold; exactly at it */
    if (pt_me == 1) {
        v[0] = 111;
        TPUT(0, c[0], 2);
        OK(PtlCTInc(c[0], one));
        settle();
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[0] == 0, "fired below its threshold: %llu", (unsigned long long)inbox[0]);
    BARRIER();
    if (pt_me == 1) {
        OK(PtlCTInc(c[0], one));
        OK(PtlCTWait(ack, 1, &ev));
        CHECK(ev.success == 1 && ev.failure == 0, "ack after firing: %llu/%llu", (unsigned long long)ev.success,
              (unsigned long long)ev.failure);
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[0] == 111, "case 1: inbox %llu", (unsigned long long)inbox[0]);

    /* 2. the buffer is read when the operation fires, not when posted */
    if (pt_me == 1) {
        v[1] = 1;
        TPUT(1, c[1], 1);
        v[1] = 2;
        OK(PtlCTInc(c[1], one));
        OK(PtlCTWait(ack, 2, &ev));
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[1] == 2, "case 2: the put sent %llu, the buffer held 2 when it fired", (unsigned long long)inbox[1]);

    /* 3. a chain: c3 set -> triggered CT increment of c4 -> triggered put */
    if (pt_me == 1) {
        v[2] = 333;
        OK(PtlTriggeredCTInc(c[4], one, c[3], 1));
        TPUT(2, c[4], 1);
        ptl_ct_event_t s = {1, 0};
        OK(PtlCTSet(c[3], s));
        OK(PtlCTWait(ack, 3, &ev));
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[2] == 333, "case 3: chained put sent %llu", (unsigned long long)inbox[2]);

    /* 4. the NIC's own counting fires it: the ack of a plain put */
    if (pt_me == 1) {
        v[3] = 444;
        v[4] = 4;
        TPUT(3, ack, 4); /* ack is 3 now */
        OK(PtlPut(md, (ptl_size_t)(uintptr_t)&v[4], 8, PTL_CT_ACK_REQ, target, PT_T, 0, 4 * 8, NULL, 0));
        OK(PtlCTWait(ack, 5, &ev));
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[3] == 444 && inbox[4] == 4, "case 4: %llu %llu", (unsigned long long)inbox[3],
              (unsigned long long)inbox[4]);

    /* 5. cancelled: reaching the threshold later fires nothing */
    if (pt_me == 1) {
        v[5] = 555;
        TPUT(5, c[5], 5);
        OK(PtlCTCancelTriggered(c[5]));
        ptl_ct_event_t s = {10, 0};
        OK(PtlCTSet(c[5], s));
        settle();
        OK(PtlCTGet(ack, &ev));
        CHECK(ev.success == 5, "case 5: ack count %llu after a cancelled put", (unsigned long long)ev.success);
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[5] == 0, "case 5: cancelled put landed %llu", (unsigned long long)inbox[5]);

    /* 6. already due when posted: fires at once */
    if (pt_me == 1) {
        ptl_ct_event_t s = {3, 0};
        OK(PtlCTSet(c[6], s));
        v[6] = 666;
        TPUT(6, c[6], 2);
        OK(PtlCTWait(ack, 6, &ev));
    }
    BARRIER();
    if (pt_me == 0)
        CHECK(inbox[6] == 666, "case 6: %llu", (unsigned long long)inbox[6]);

    /* 7. triggered counter set */
    if (pt_me == 1) {
        ptl_ct_event_t s = {42, 1};
        OK(PtlTriggeredCTSet(c[7], s, c[8], 1));
        OK(PtlCTGet(c[7], &ev));
        CHECK(ev.success == 0, "case 7: set before its trigger");
        OK(PtlCTInc(c[8], one));
        OK(PtlCTWait(c[7], 43, &ev));
        CHECK(ev.success == 42 && ev.failure == 1, "case 7: counter %llu/%llu", (unsigned long long)ev.success,
              (unsigned long long)ev.failure);
    }
    BARRIER();
    if (pt_me == 0) {
        OK(PtlCTGet(tct, &ev));
        CHECK(ev.success == 6 && ev.failure == 0, "target counted %llu/%llu, want 6/0", (unsigned long long)ev.success,
              (unsigned long long)ev.failure);
        OK(PtlLEUnlink(le));
        OK(PtlPTFree(ni, PT_T));
    }
    BARRIER();
    OK(PtlMDRelease(md));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_triggered");
}
