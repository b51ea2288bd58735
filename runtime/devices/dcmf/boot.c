/* Protocols, start-up and shut-down.
 *
 * Start-up: every rank sends its whole-space memory region to every other
 * rank by DCMF_Control (hello) and each hello is acknowledged. A hello
 * only goes out once its sender has registered every protocol, so holding
 * every peer's hello means every peer can receive; holding every peer's
 * acknowledgement means every peer holds our region. A rank returns when
 * it has both. Control keeps no order and DCMF drops a message for a
 * protocol its receiver has not registered yet, so unacknowledged hellos
 * are sent again, less and less often (a receiver keeps what it got first
 * and acknowledges every copy).
 *
 * Shut-down: every rank sends a "bye" on the sequential short protocol to
 * every other rank, behind everything it sent before, and waits for
 * everyone's; after that nothing is on its way to it.
 *
 * "Every rank" is every rank that runs ARMCI (struct adev_job's members):
 * the others' messagers may never start. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ddev.h"

#define BOOT_FIRST_RETRY_NS 2000000LL
#define BOOT_MAX_RETRY_NS 100000000LL
#define BOOT_TIMEOUT_NS 60000000000LL
#define BYE_TIMEOUT_NS 60000000000LL

_Static_assert(sizeof(DCMF_Memregion_t) <= sizeof(DCMF_Control_t),
               "a memory region travels in one control message");

static void on_hello(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    if (peer >= (size_t)ddev.nproc || (int)peer == ddev.me || !ddev.in[peer])
        return;
    if (!ddev.have[peer]) {
        memcpy(&ddev.regions[peer], info, sizeof(DCMF_Memregion_t));
        ddev.have[peer] = 1;
        ddev.nhave++;
    }
    DCMF_Control_t nothing;
    memset(&nothing, 0, sizeof nothing);
    DCMF_CriticalSection_enter(0);
    DCMF_Result rc = DCMF_Control(&ddev.ack_p, DCMF_SEQUENTIAL_CONSISTENCY, peer, &nothing);
    DCMF_CriticalSection_exit(0);
    if (rc != DCMF_SUCCESS)
        fprintf(stderr, "armci dcmf device: rank %d: acknowledging rank %zu's region failed\n",
                ddev.me, peer);
}

static void on_ack(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd, (void)info;
    /* from ourselves: a wake-up (ddev_wakeup), nothing to record */
    if (peer >= (size_t)ddev.nproc || (int)peer == ddev.me || !ddev.in[peer] || ddev.acked[peer])
        return;
    ddev.acked[peer] = 1;
    ddev.nacked++;
}

/* The same order on every rank: DCMF knows a protocol by its number. */
int ddev_boot_register(void)
{
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                    ddev_on_small, NULL, ddev_on_small_long, NULL};
    DCMF_Send_Configuration_t nc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                    ddev_on_notice, NULL, NULL, NULL};
    DCMF_Send_Configuration_t mc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                    ddev_on_amo, NULL, ddev_on_amo_long, NULL};
    DCMF_Send_Configuration_t dc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                    ddev_on_amo_done, NULL, NULL, NULL};
    DCMF_Control_Configuration_t hc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                       on_hello, NULL};
    DCMF_Control_Configuration_t ac = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK,
                                       on_ack, NULL};
    DCMF_CriticalSection_enter(0);
    int ok = DCMF_Put_register(&ddev.put_p, &pc) == DCMF_SUCCESS &&
             DCMF_Get_register(&ddev.get_p, &gc) == DCMF_SUCCESS &&
             DCMF_Send_register(&ddev.small_p, &sc) == DCMF_SUCCESS &&
             DCMF_Send_register(&ddev.notify_p, &nc) == DCMF_SUCCESS &&
             DCMF_Send_register(&ddev.amo_p, &mc) == DCMF_SUCCESS &&
             DCMF_Send_register(&ddev.amo_done_p, &dc) == DCMF_SUCCESS &&
             DCMF_Control_register(&ddev.hello_p, &hc) == DCMF_SUCCESS &&
             DCMF_Control_register(&ddev.ack_p, &ac) == DCMF_SUCCESS;
    DCMF_CriticalSection_exit(0);
    return ok ? 0 : -EIO;
}

static int send_hellos(void)
{
    DCMF_Control_t info;
    memset(&info, 0, sizeof info);
    memcpy(&info, &ddev.mine, sizeof ddev.mine);
    /* inside the section: the interrupt thread's callbacks write acked[] */
    DCMF_Result rc = DCMF_SUCCESS;
    DCMF_CriticalSection_enter(0);
    for (int i = 0; i < ddev.nmembers && rc == DCMF_SUCCESS; i++) {
        int q = ddev_member(i);
        if (q != ddev.me && !ddev.acked[q])
            rc = DCMF_Control(&ddev.hello_p, DCMF_SEQUENTIAL_CONSISTENCY, (size_t)q, &info);
    }
    DCMF_CriticalSection_exit(0);
    return rc == DCMF_SUCCESS ? 0 : -EIO;
}

static void name_missing(const uint8_t *got, const char *what)
{
    fprintf(stderr, "armci dcmf device: rank %d: no %s from rank(s)", ddev.me, what);
    for (int i = 0, n = 0; i < ddev.nmembers && n < 16; i++)
        if (ddev_member(i) != ddev.me && !got[ddev_member(i)]) {
            fprintf(stderr, " %d", ddev_member(i));
            n++;
        }
    fprintf(stderr, " after %lld s\n", BOOT_TIMEOUT_NS / 1000000000LL);
}

/* Every region and every acknowledgement arrived (read inside the
 * section: in interrupt mode the callbacks that count them run on the
 * interrupt thread). */
static int boot_complete(int others)
{
    DCMF_CriticalSection_enter(0);
    int done = ddev.nhave >= others && ddev.nacked >= others;
    DCMF_CriticalSection_exit(0);
    return done;
}

int ddev_boot_exchange(void)
{
    memcpy(&ddev.regions[ddev.me], &ddev.mine, sizeof ddev.mine);
    int others = ddev.nmembers - 1;
    if (others == 0)
        return 0;
    int rc = send_hellos();
    int64_t start = ddev_now_ns(), last = start, gap = BOOT_FIRST_RETRY_NS;
    while (rc == 0 && !boot_complete(others)) {
        DCMF_Messager_advance();
        int64_t now = ddev_now_ns();
        if (now - last >= gap) {
            rc = send_hellos();
            last = now;
            gap = gap * 2 < BOOT_MAX_RETRY_NS ? gap * 2 : BOOT_MAX_RETRY_NS;
        }
        if (now - start > BOOT_TIMEOUT_NS) {
            DCMF_CriticalSection_enter(0);
            if (ddev.nhave < others)
                name_missing(ddev.have, "memory region");
            if (ddev.nacked < others)
                name_missing(ddev.acked, "acknowledgement");
            DCMF_CriticalSection_exit(0);
            return -ETIMEDOUT;
        }
    }
    if (rc)
        fprintf(stderr, "armci dcmf device: rank %d: sending the memory region failed\n", ddev.me);
    return rc;
}

void ddev_boot_goodbye(void)
{
    int others = ddev.nmembers - 1;
    for (int i = 0; i < ddev.nmembers; i++) {
        int q = ddev_member(i);
        if (q == ddev.me)
            continue;
        int rc;
        while ((rc = ddev_send_bye(q)) == -ENOMEM) {
            DCMF_Messager_advance();
            ddev_drain_quiet(ADEV_CTX_RANK);
        }
        if (rc)
            fprintf(stderr, "armci dcmf device: rank %d: saying goodbye to rank %d failed\n",
                    ddev.me, q);
    }
    /* then every peer's bye, and our own requests back (DCMF must be done
     * with them before the pool goes) */
    int64_t start = ddev_now_ns();
    for (;;) {
        int busy = 0;
        for (int c = 0; c < ADEV_NCTX; c++) {
            ddev_drain_quiet(c);
            busy += atomic_load(&ddev.ctx[c].inflight);
        }
        if (atomic_load(&ddev.byes) >= others && busy == 0)
            break;
        if (ddev_now_ns() - start > BYE_TIMEOUT_NS) {
            fprintf(stderr, "armci dcmf device: rank %d: shutting down with %d of %d goodbyes and "
                    "%d requests in flight\n", ddev.me, atomic_load(&ddev.byes), others, busy);
            break;
        }
        DCMF_Messager_advance();
    }
}
