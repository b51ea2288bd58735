/* Tagged messages on a matching NI: rank 0 posts one receive buffer per
 * tag (use-once MEs), rank 1 sends the tags in the opposite order, and
 * every message lands in the buffer with its tag, reported by PUT events.
 *   emunic-run -N 2 -n 1 --nic portals -- ./matched_send_recv */
#include <portals4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT 4
#define TAGS 3
#define KNOCK_TAG 0x4b4e4f434bull /* a persistent entry that says "ready" */

static void check(int rc, const char *what)
{
    if (rc != PTL_OK) {
        fprintf(stderr, "%s failed: %d\n", what, rc);
        exit(1);
    }
}

static ptl_me_t entry(void *buf, size_t len, ptl_match_bits_t bits, unsigned options)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = buf;
    me.length = len;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = options;
    me.match_id.rank = PTL_RANK_ANY;
    me.match_bits = bits;
    me.ignore_bits = 0;
    return me;
}

int main(void)
{
    ptl_handle_ni_t ni;
    ptl_process_t me;
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    check(PtlInit(), "PtlInit");
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni), "PtlNIInit");
    check(PtlGetId(ni, &me), "PtlGetId");
    check(PtlEQAlloc(ni, 64, &eq), "PtlEQAlloc");
    check(PtlPTAlloc(ni, 0, eq, PT, &pt), "PtlPTAlloc");
    static char box[TAGS + 1][64];
    ptl_handle_me_t knock;
    if (me.rank == 0) {
        /* receives first, then the knock entry: once a knock gets in,
         * every receive is posted */
        for (int t = 1; t <= TAGS; t++) {
            ptl_me_t e = entry(box[t], sizeof box[t], (ptl_match_bits_t)t,
                               PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE);
            ptl_handle_me_t h;
            check(PtlMEAppend(ni, pt, &e, PTL_PRIORITY_LIST, (void *)(intptr_t)t, &h), "PtlMEAppend");
        }
        ptl_me_t k = entry(box[0], 0, KNOCK_TAG,
                           PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE);
        check(PtlMEAppend(ni, pt, &k, PTL_PRIORITY_LIST, NULL, &knock), "PtlMEAppend");
        for (int got = 0; got < TAGS;) {
            ptl_event_t ev;
            check(PtlEQWait(eq, &ev), "PtlEQWait");
            if (ev.type == PTL_EVENT_AUTO_UNLINK)
                continue;
            int tag = (int)(intptr_t)ev.user_ptr;
            if (ev.type != PTL_EVENT_PUT || ev.ni_fail_type != PTL_NI_OK || (int)ev.match_bits != tag ||
                ev.start != box[tag]) {
                fprintf(stderr, "unexpected event type %d bits %llu for the tag-%d buffer\n", ev.type,
                        (unsigned long long)ev.match_bits, tag);
                return 1;
            }
            printf("rank 0: tag %d: \"%s\" (from rank %u, %llu bytes)\n", tag, box[tag], ev.initiator.rank,
                   (unsigned long long)ev.mlength);
            char want[64];
            snprintf(want, sizeof want, "message for tag %d", tag);
            if (strcmp(box[tag], want) != 0)
                return 1;
            got++;
        }
        check(PtlMEUnlink(knock), "PtlMEUnlink");
    } else if (me.rank == 1) {
        ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = PTL_MD_EVENT_SEND_DISABLE,
                       .eq_handle = eq, .ct_handle = PTL_CT_NONE};
        ptl_handle_md_t mdh;
        check(PtlMDBind(ni, &md, &mdh), "PtlMDBind");
        ptl_process_t peer = {.rank = 0};
        ptl_event_t ev;
        do { /* until rank 0's entries are posted */
            check(PtlPut(mdh, 0, 0, PTL_ACK_REQ, peer, pt, KNOCK_TAG, 0, NULL, 0), "PtlPut");
            check(PtlEQWait(eq, &ev), "PtlEQWait");
        } while (ev.ni_fail_type != PTL_NI_OK);
        for (int t = TAGS; t >= 1; t--) {
            char msg[64];
            snprintf(msg, sizeof msg, "message for tag %d", t);
            check(PtlPut(mdh, (ptl_size_t)(uintptr_t)msg, strlen(msg) + 1, PTL_ACK_REQ, peer, pt,
                         (ptl_match_bits_t)t, 0, NULL, 0), "PtlPut");
            check(PtlEQWait(eq, &ev), "PtlEQWait");
            if (ev.type != PTL_EVENT_ACK || ev.ni_fail_type != PTL_NI_OK) {
                fprintf(stderr, "tag %d: ack type %d fail %d\n", t, ev.type, ev.ni_fail_type);
                return 1;
            }
        }
        printf("rank 1: sent tags %d..1, each acknowledged\n", TAGS);
        check(PtlMDRelease(mdh), "PtlMDRelease");
    }
    check(PtlNIFini(ni), "PtlNIFini");
    PtlFini();
    return 0;
}
