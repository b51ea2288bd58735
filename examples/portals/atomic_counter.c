/* A shared counter on rank 0, incremented by every rank with Portals
 * fetch-atomics; each rank gets its tickets back in REPLY events. Then
 * rank 1 claims a lock word with a compare-and-swap.
 *   emunic-run -N 2 -n 2 --nic portals -- ./atomic_counter */
#include <portals4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PT 9
#define ADDS 100

static struct {
    int64_t counter;   /* offset 0 */
    int64_t lock_word; /* offset 8 */
} cells; /* rank 0's are the target, exposed by one LE */

static void check(int rc, const char *what)
{
    if (rc != PTL_OK) {
        fprintf(stderr, "%s failed: %d\n", what, rc);
        exit(1);
    }
}

int main(void)
{
    ptl_handle_ni_t ni;
    ptl_process_t me, root = {.rank = 0};
    ptl_size_t n;
    check(PtlInit(), "PtlInit");
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni), "PtlNIInit");
    check(PtlGetId(ni, &me), "PtlGetId");
    check(PtlGetMap(ni, 0, NULL, &n), "PtlGetMap");

    ptl_handle_eq_t eq;
    ptl_handle_ct_t hits;
    ptl_pt_index_t pt;
    check(PtlEQAlloc(ni, 256, &eq), "PtlEQAlloc");
    check(PtlCTAlloc(ni, &hits), "PtlCTAlloc");
    check(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt), "PtlPTAlloc");
    /* every rank links the same entry; only rank 0's is the target */
    ptl_le_t le = {.start = &cells, .length = sizeof cells, .ct_handle = hits, .uid = PTL_UID_ANY,
                   .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM};
    ptl_handle_le_t leh;
    check(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh), "PtlLEAppend");
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t mdh;
    check(PtlMDBind(ni, &md, &mdh), "PtlMDBind");

    /* Rank 0 may not have linked its entry yet; an operation that arrives
     * before then is dropped and says so (PTL_NI_DROPPED). Knock until in. */
    for (;;) {
        ptl_event_t ev;
        check(PtlPut(mdh, 0, 0, PTL_ACK_REQ, root, pt, 0, 0, NULL, 0), "PtlPut");
        do
            check(PtlEQWait(eq, &ev), "PtlEQWait");
        while (ev.type != PTL_EVENT_ACK);
        if (ev.ni_fail_type == PTL_NI_OK)
            break;
    }

    int64_t one = 1, last = -1;
    for (int i = 0; i < ADDS; i++) {
        int64_t ticket = -1;
        check(PtlFetchAtomic(mdh, (ptl_size_t)(uintptr_t)&ticket, mdh, (ptl_size_t)(uintptr_t)&one, sizeof one,
                             root, pt, 0, 0, &ticket, 0, PTL_SUM, PTL_INT64_T), "PtlFetchAtomic");
        /* SEND (the operand was read) and REPLY (the ticket is here) */
        ptl_event_t ev;
        int reply = 0;
        while (!reply) {
            check(PtlEQWait(eq, &ev), "PtlEQWait");
            if (ev.ni_fail_type != PTL_NI_OK || ev.user_ptr != &ticket) {
                fprintf(stderr, "rank %u: event type %d fail %d\n", me.rank, ev.type, ev.ni_fail_type);
                return 1;
            }
            reply = ev.type == PTL_EVENT_REPLY;
        }
        if (ticket <= last || ticket >= (int64_t)n * ADDS) {
            fprintf(stderr, "rank %u: ticket %lld after %lld\n", me.rank, (long long)ticket, (long long)last);
            return 1;
        }
        last = ticket;
    }
    printf("rank %u: %d tickets, strictly increasing, last %lld\n", me.rank, ADDS, (long long)last);

    if (me.rank == 1) {
        int64_t mine = 1000 + me.rank, free_val = 0, old = -1;
        check(PtlSwap(mdh, (ptl_size_t)(uintptr_t)&old, mdh, (ptl_size_t)(uintptr_t)&mine, sizeof mine, root, pt, 0, 8,
                      NULL, 0, &free_val, PTL_CSWAP, PTL_INT64_T), "PtlSwap");
        ptl_event_t ev;
        do
            check(PtlEQWait(eq, &ev), "PtlEQWait");
        while (ev.type != PTL_EVENT_REPLY);
        printf("rank 1: compare-and-swap on the lock word saw %lld (free) and took it\n", (long long)old);
    }
    if (me.rank == 0) {
        /* every knock, add and the swap hit our entry: wait for all */
        ptl_ct_event_t ct;
        check(PtlCTWait(hits, (ptl_size_t)(n + n * ADDS + (n > 1)), &ct), "PtlCTWait");
        printf("rank 0: counter %lld (want %lld), lock word %lld\n", (long long)cells.counter,
               (long long)(n * ADDS), (long long)cells.lock_word);
        if (cells.counter != (int64_t)(n * ADDS) || ct.failure || (n > 1 && cells.lock_word != 1001))
            return 1;
    }
    /* rank 0 tears down last: it waited for every operation above */
    check(PtlMDRelease(mdh), "PtlMDRelease");
    check(PtlLEUnlink(leh), "PtlLEUnlink");
    check(PtlPTFree(ni, pt), "PtlPTFree");
    check(PtlCTFree(hits), "PtlCTFree");
    check(PtlEQFree(eq), "PtlEQFree");
    check(PtlNIFini(ni), "PtlNIFini");
    PtlFini();
    return 0;
}
