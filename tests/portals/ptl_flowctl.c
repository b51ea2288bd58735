/* Flow control (PTL_PT_FLOWCTRL): a portal table entry whose EQ runs out
 * of room, or that has no entry for an operation, disables itself; the
 * target sees PTL_EVENT_PT_DISABLED, initiators see PTL_NI_PT_DISABLED on
 * everything that follows, until PtlPTEnable. Rank 0 is the target, rank 1
 * the initiator. */
#include "ptest.h"

#define PT_FC 7
#define TEQ 8   /* target EQ slots: disables when fewer than 3 are free */
#define PUTS 10

static uint64_t inbox[PUTS + 2];

static int put_and_ack(ptl_handle_md_t md, ptl_handle_eq_t eq, uint64_t *v, int k)
{
    OK(PtlPut(md, (ptl_size_t)(uintptr_t)v, sizeof *v, PTL_ACK_REQ, pt_lrank(0), PT_FC, 0, (ptl_size_t)k * 8, v, 0));
    ptl_event_t ev;
    WAIT_EVENT(eq, &ev);
    CHECK(ev.type == PTL_EVENT_ACK && ev.user_ptr == v, "put %d: event %s", k, pt_evname(ev.type));
    return ev.ni_fail_type;
}

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_eq_t teq, ieq;
    OK(PtlEQAlloc(ni, TEQ, &teq));
    OK(PtlEQAlloc(ni, 64, &ieq));
    ptl_pt_index_t idx;
    ptl_handle_le_t le;
    if (pt_me == 0) {
        OK(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, teq, PT_FC, &idx));
        ptl_le_t e = {.start = inbox, .length = sizeof inbox, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                      .options = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE};
        OK(PtlLEAppend(ni, PT_FC, &e, PTL_PRIORITY_LIST, NULL, &le));
    }
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    static uint64_t vals[PUTS + 2];
    BARRIER();
    /* the harness barrier may have had knocks dropped at start-up: count
     * from here */
    ptl_sr_value_t drops0 = 0;
    OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops0));
    BARRIER(); /* before rank 1's puts, or some of their drops land in drops0 */

    /* 1. the target never reads its EQ: puts 1..6 land, the 7th finds 2
     * free slots and disables the entry, the rest fail the same way */
    if (pt_me == 1) {
        for (int k = 0; k < PUTS; k++) {
            vals[k] = 1000 + (uint64_t)k;
            int fail = put_and_ack(md, ieq, &vals[k], k);
            int want = k < TEQ - 2 ? PTL_NI_OK : PTL_NI_PT_DISABLED;
            CHECK(fail == want, "put %d: ni_fail %s, want %s", k, pt_failname(fail), pt_failname(want));
        }
    }
    BARRIER();
    if (pt_me == 0) {
        for (int k = 0; k < TEQ - 2; k++) {
            ptl_event_t ev;
            WAIT_EVENT(teq, &ev);
            CHECK(ev.type == PTL_EVENT_PUT && ev.ni_fail_type == PTL_NI_OK && ev.remote_offset == (ptl_size_t)k * 8,
                  "event %d: %s offset %llu", k, pt_evname(ev.type), (unsigned long long)ev.remote_offset);
            CHECK(inbox[k] == 1000 + (uint64_t)k, "inbox[%d] = %llu", k, (unsigned long long)inbox[k]);
        }
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        CHECK(ev.type == PTL_EVENT_PT_DISABLED && ev.ni_fail_type == PTL_NI_PT_DISABLED && ev.pt_index == PT_FC &&
                  ev.initiator.rank == 1,
              "flow-control event: %s fail %s pt %u", pt_evname(ev.type), pt_failname(ev.ni_fail_type), ev.pt_index);
        EXPECT_EMPTY(teq, "nothing after PT_DISABLED");
        for (int k = TEQ - 2; k < PUTS; k++)
            CHECK(inbox[k] == 0, "inbox[%d] written while disabled", k);
        OK(PtlPTEnable(ni, PT_FC));
    }
    BARRIER();

    /* 2. re-enabled: the next put lands */
    if (pt_me == 1) {
        vals[PUTS] = 4242;
        CHECK(put_and_ack(md, ieq, &vals[PUTS], PUTS) == PTL_NI_OK, "put after PtlPTEnable failed");
    }
    BARRIER();
    if (pt_me == 0) {
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        CHECK(ev.type == PTL_EVENT_PUT && inbox[PUTS] == 4242, "after enable: %s, inbox %llu", pt_evname(ev.type),
              (unsigned long long)inbox[PUTS]);
        OK(PtlLEUnlink(le)); /* 3. now nothing matches */
    }
    BARRIER();

    /* 3. no entry on a flow-controlled PT: disabled, not "no match" */
    if (pt_me == 1) {
        vals[PUTS + 1] = 7;
        int fail = put_and_ack(md, ieq, &vals[PUTS + 1], PUTS + 1);
        CHECK(fail == PTL_NI_PT_DISABLED, "put without an entry: %s", pt_failname(fail));
    }
    BARRIER();
    if (pt_me == 0) {
        ptl_event_t ev;
        WAIT_EVENT(teq, &ev);
        CHECK(ev.type == PTL_EVENT_PT_DISABLED, "no-entry flow control: %s", pt_evname(ev.type));
        ptl_sr_value_t drops = 0;
        OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops));
        CHECK(drops - drops0 == PUTS - (TEQ - 2) + 1, "drops while disabled: %d", drops - drops0);
        OK(PtlPTFree(ni, PT_FC));
    }
    BARRIER();
    OK(PtlMDRelease(md));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_flowctl");
}
