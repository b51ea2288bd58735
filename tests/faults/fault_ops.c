/* One write + read-back after another for SECONDS, to the same rank of the
 * next node, each checked; for the time-windowed faults (linkdown, hang)
 * and for kills and crashes.
 *
 *   fault_ops SECONDS [lossy] [min=N]
 *
 * min=N: go on past SECONDS until N operations are done, so a rank reaches
 * a message-count fault (kill=rR,after=M) however slow the host is.
 * Prints "ops: rank R ok K lost L maxwait_ms W" (W: the longest single
 * operation, which shows a link outage being ridden out). A peer that is
 * gone (EMU_E_DEAD: killed, or done before us) ends the loop early; no
 * final barrier, so ranks survive a killed peer (--keep-going). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emunic/emunic.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 1;
    int lossy = 0;
    uint64_t min_ops = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "lossy"))
            lossy = 1;
        else if (!strncmp(argv[i], "min=", 4))
            min_ops = strtoull(argv[i] + 4, NULL, 10);
    }
    if (emunic_init())
        return 1;
    uint32_t me = emunic_rank(), n = emunic_size(), per = emunic_local_size();
    uint32_t peer = (me + per) % n;
    uint8_t *area = emunic_malloc(4096);
    uint8_t src[300], back[300];
    if (!area || (uint64_t)(uintptr_t)area != emunic_heap_addr(me))
        return 1;
    if (emunic_barrier())
        return 1;
    uint64_t ok = 0, lost = 0, c = 1;
    int gone = 0;
    double t0 = now_s(), maxw = 0;
    while (now_s() - t0 < secs || ok + lost < min_ops) {
        size_t len = 1 + (size_t)(c % sizeof src);
        for (size_t i = 0; i < len; i++)
            src[i] = (uint8_t)(c * 31 + i + me);
        uint64_t raddr = emunic_heap_addr(peer) + 1024 * (me % per);
        struct emu_msg m;
        double ts = now_s();
        if (emunic_write(peer, EMU_KEY_HEAP, raddr, src, len, EMU_F_REMOTE_CQ, ++c, 0))
            return 1;
        int st = emunic_wait_cookie(c, &m);
        if (st < 0) {
            fprintf(stderr, "ops: rank %u: NIC gone (%d)\n", me, st);
            return 3;
        }
        if (st == EMU_E_LOST && lossy) {
            lost++;
            continue;
        }
        if (st == EMU_E_DEAD) {
            gone = 1;
            break;
        }
        if (st) {
            fprintf(stderr, "FAIL rank %u: write: %s\n", me, emu_status_str((unsigned)st));
            return 1;
        }
        if (emunic_read(peer, EMU_KEY_HEAP, raddr, back, len, EMU_F_REMOTE_CQ, ++c))
            return 1;
        st = emunic_wait_cookie(c, &m);
        if (st < 0)
            return 3;
        if (st == EMU_E_LOST && lossy) {
            lost++;
            continue;
        }
        if (st == EMU_E_DEAD) {
            gone = 1;
            break;
        }
        if (st || memcmp(src, back, len)) {
            fprintf(stderr, "FAIL rank %u: read-back: %s\n", me, st ? emu_status_str((unsigned)st) : "wrong data");
            return 1;
        }
        ok += 2;
        if (now_s() - ts > maxw)
            maxw = now_s() - ts;
    }
    printf("ops: rank %u ok %llu lost %llu maxwait_ms %.0f%s\n", me, (unsigned long long)ok,
           (unsigned long long)lost, maxw * 1e3, gone ? " peer_gone" : "");
    emunic_finalize();
    return 0;
}
