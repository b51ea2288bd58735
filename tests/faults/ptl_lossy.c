/* Portals under --unreliable: rank 0 puts to rank 1 (on another node) with
 * PTL_ACK_REQ, WIN at a time; every put must yield exactly one ACK event,
 * with ni_fail_type PTL_NI_OK or, when the network lost the put or its
 * ack, PTL_NI_UNDELIVERABLE. Prints "ptl: ok K undeliverable U".
 *
 *   ptl_lossy PUTS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emunic/emunic.h"
#include "portals4.h"

#define WIN 64

#define DIE(...)                                                                    \
    do {                                                                            \
        fprintf(stderr, "FAIL ptl_lossy: " __VA_ARGS__);                            \
        fputc('\n', stderr);                                                        \
        exit(1);                                                                    \
    } while (0)
#define OK(call)                                                                    \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != PTL_OK)                                                          \
            DIE("%s returned %d", #call, rc_);                                      \
    } while (0)

int main(int argc, char **argv)
{
    unsigned puts = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    ptl_handle_ni_t ni;
    ptl_pt_index_t pt;
    static uint64_t buf[1024], src[WIN];
    static uint8_t seen[1 << 20];
    if (puts > sizeof seen)
        DIE("too many puts");
    OK(PtlInit());
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    uint32_t me = emunic_rank();
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &pt));
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = buf;
    le.length = sizeof buf;
    le.ct_handle = PTL_CT_NONE;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_LINK_DISABLE;
    ptl_handle_le_t leh;
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh));
    if (emunic_barrier())
        DIE("barrier");
    if (me == 0) {
        ptl_handle_eq_t eq;
        ptl_handle_md_t md;
        OK(PtlEQAlloc(ni, 4 * WIN, &eq));
        ptl_md_t d;
        memset(&d, 0, sizeof d);
        d.start = src;
        d.length = sizeof src;
        d.options = PTL_MD_EVENT_SEND_DISABLE;
        d.eq_handle = eq;
        d.ct_handle = PTL_CT_NONE;
        OK(PtlMDBind(ni, &d, &md));
        ptl_process_t to = {.rank = emunic_size() - 1};
        unsigned ok = 0, undeliverable = 0, next = 0, done = 0;
        while (done < puts) {
            while (next < puts && next - done < WIN) {
                OK(PtlPut(md, (next % WIN) * 8, 8, PTL_ACK_REQ, to, pt, 0, (next % 1024) * 8,
                          (void *)(uintptr_t)(next + 1), 0));
                next++;
            }
            ptl_event_t ev;
            int rc = PtlEQWait(eq, &ev);
            if (rc != PTL_OK)
                DIE("PtlEQWait returned %d", rc);
            if (ev.type != PTL_EVENT_ACK)
                DIE("unexpected event type %d", (int)ev.type);
            uintptr_t i = (uintptr_t)ev.user_ptr;
            if (i == 0 || i > puts || seen[i - 1]++)
                DIE("ACK event for put %lu seen twice or unknown", (unsigned long)i);
            if (ev.ni_fail_type == PTL_NI_OK)
                ok++;
            else if (ev.ni_fail_type == PTL_NI_UNDELIVERABLE)
                undeliverable++;
            else
                DIE("put %lu: ni_fail_type %d", (unsigned long)i, (int)ev.ni_fail_type);
            done++;
        }
        printf("ptl: ok %u undeliverable %u\n", ok, undeliverable);
    }
    if (emunic_barrier())
        DIE("barrier");
    PtlNIFini(ni);
    PtlFini();
    return 0;
}
