/* Portals 4 put/get ping-pong between rank 0 and rank 1, set up the way
 * Sandia OpenSHMEM sets up its transport: a logical non-matching NI, one
 * persistent list entry over a static buffer, and MDs that span the whole
 * address space so local offsets are plain addresses.
 *   emunic-run -N 2 -n 1 --nic portals -- ./put_get_pingpong */
#include <portals4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT 8
#define ROUNDS 1000

static uint64_t inbox[64]; /* what peers put into and get from */

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
    ptl_ni_limits_t lim;
    ptl_process_t me;
    check(PtlInit(), "PtlInit");
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni), "PtlNIInit");
    check(PtlGetId(ni, &me), "PtlGetId");
    ptl_size_t n;
    check(PtlGetMap(ni, 0, NULL, &n), "PtlGetMap");
    if (n < 2) {
        fprintf(stderr, "needs two ranks\n");
        return 1;
    }

    ptl_handle_ct_t target_ct, put_ct, get_ct;
    check(PtlCTAlloc(ni, &target_ct), "PtlCTAlloc");
    check(PtlCTAlloc(ni, &put_ct), "PtlCTAlloc");
    check(PtlCTAlloc(ni, &get_ct), "PtlCTAlloc");
    ptl_pt_index_t pt;
    check(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt), "PtlPTAlloc");
    ptl_le_t le = {.start = inbox, .length = sizeof inbox, .ct_handle = target_ct, .uid = PTL_UID_ANY,
                   .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM};
    ptl_handle_le_t leh;
    check(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh), "PtlLEAppend");
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = PTL_MD_EVENT_CT_ACK,
                   .eq_handle = PTL_EQ_NONE, .ct_handle = put_ct};
    ptl_handle_md_t put_md, get_md;
    check(PtlMDBind(ni, &md, &put_md), "PtlMDBind");
    md.options = PTL_MD_EVENT_CT_REPLY;
    md.ct_handle = get_ct;
    check(PtlMDBind(ni, &md, &get_md), "PtlMDBind");

    ptl_process_t peer = {.rank = me.rank ^ 1};
    ptl_ct_event_t ev, zero = {0, 0};
    if (me.rank < 2) {
        /* The peer may not have linked its entry yet: an operation that
         * arrives before then is dropped and counts as a failure on our
         * counter. Knock (0 bytes) until one gets in; the peer's target
         * counter then holds 1 before the first ping. A wait ends at the
         * first failure, so the counter starts from zero for each knock
         * (nothing else is in flight on it). */
        for (;;) {
            check(PtlCTSet(put_ct, zero), "PtlCTSet");
            check(PtlPut(put_md, 0, 0, PTL_OC_ACK_REQ, peer, pt, 0, 40, NULL, 0), "PtlPut");
            check(PtlCTWait(put_ct, 1, &ev), "PtlCTWait");
            if (ev.failure == 0)
                break;
        }
        check(PtlCTSet(put_ct, zero), "PtlCTSet");
        /* ping-pong: wait for the peer's put (target counter), put back */
        for (uint64_t i = 1; i <= ROUNDS; i++) {
            {
                if (me.rank == 1)
                    check(PtlCTWait(target_ct, i + 1, &ev), "PtlCTWait");
                uint64_t v = i * 10 + me.rank;
                check(PtlPut(put_md, (ptl_size_t)(uintptr_t)&v, sizeof v, PTL_OC_ACK_REQ, peer, pt, 0,
                             me.rank * 8, NULL, 0), "PtlPut");
                if (me.rank == 0)
                    check(PtlCTWait(target_ct, i + 1, &ev), "PtlCTWait");
            }
        }
        check(PtlCTWait(put_ct, ROUNDS, &ev), "PtlCTWait");
        uint64_t want = ROUNDS * 10 + (me.rank ^ 1);
        if (inbox[me.rank ^ 1] != want || ev.failure) {
            fprintf(stderr, "rank %u: inbox %llu, want %llu\n", me.rank, (unsigned long long)inbox[me.rank ^ 1],
                    (unsigned long long)want);
            return 1;
        }
        /* and read the peer's copy of what we put there */
        uint64_t back = 0;
        check(PtlGet(get_md, (ptl_size_t)(uintptr_t)&back, sizeof back, peer, pt, 0, me.rank * 8, NULL), "PtlGet");
        check(PtlCTWait(get_ct, 1, &ev), "PtlCTWait");
        if (back != ROUNDS * 10 + me.rank) {
            fprintf(stderr, "rank %u: got back %llu\n", me.rank, (unsigned long long)back);
            return 1;
        }
        /* the peer may still be reading our inbox: say goodbye and wait
         * for its goodbye (it comes after its get) before tearing down */
        uint64_t bye = 0;
        check(PtlPut(put_md, (ptl_size_t)(uintptr_t)&bye, sizeof bye, PTL_OC_ACK_REQ, peer, pt, 0, 32, NULL, 0),
              "PtlPut");
        check(PtlCTWait(target_ct, ROUNDS + 2, &ev), "PtlCTWait");
        printf("rank %u: %d put round trips and a get: ok\n", me.rank, ROUNDS);
    }
    check(PtlMDRelease(put_md), "PtlMDRelease");
    check(PtlMDRelease(get_md), "PtlMDRelease");
    check(PtlLEUnlink(leh), "PtlLEUnlink");
    check(PtlPTFree(ni, pt), "PtlPTFree");
    PtlCTFree(target_ct);
    PtlCTFree(put_ct);
    PtlCTFree(get_ct);
    check(PtlNIFini(ni), "PtlNIFini");
    PtlFini();
    return 0;
}
