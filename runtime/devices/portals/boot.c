/* Start-up and shutdown barrier among the ranks that run ARMCI (struct
 * adev_job's members). Before it nothing may be sent: a put that reaches a
 * rank whose entries are not linked yet is dropped, as on real hardware.
 * Arrivals at the first member ask for counting acks, and the first one is
 * resent until it finds that member ready. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "pdev.h"

int pdev_boot_init(void)
{
    int rc = PtlCTAlloc(pdev.ni, &pdev.boot_ct);
    if (rc == PTL_OK)
        rc = PtlCTAlloc(pdev.ni, &pdev.boot_mdct);
    ptl_pt_index_t got = 0;
    if (rc == PTL_OK)
        rc = PtlPTAlloc(pdev.ni, 0, PTL_EQ_NONE, PDEV_PT_BOOT, &got);
    if (rc == PTL_OK && got != PDEV_PT_BOOT)
        rc = PTL_FAIL;
    if (rc == PTL_OK) {
        ptl_me_t me;
        memset(&me, 0, sizeof me);
        me.start = pdev.boot_sink;
        me.length = sizeof pdev.boot_sink;
        me.ct_handle = pdev.boot_ct;
        me.uid = PTL_UID_ANY;
        me.options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_LINK_DISABLE |
                     PTL_ME_EVENT_COMM_DISABLE | PTL_ME_UNEXPECTED_HDR_DISABLE;
        me.match_id.rank = PTL_RANK_ANY;
        me.ignore_bits = ~(ptl_match_bits_t)0;
        rc = PtlMEAppend(pdev.ni, PDEV_PT_BOOT, &me, PTL_PRIORITY_LIST, NULL, &pdev.boot_me);
    }
    if (rc == PTL_OK) {
        ptl_md_t md = {.start = &pdev.boot_src, .length = sizeof pdev.boot_src,
                       .options = PTL_MD_EVENT_CT_ACK, .eq_handle = PTL_EQ_NONE,
                       .ct_handle = pdev.boot_mdct};
        rc = PtlMDBind(pdev.ni, &md, &pdev.boot_md);
    }
    return pdev_rc(rc);
}

static int knock(int to)
{
    return PtlPut(pdev.boot_md, 0, sizeof pdev.boot_src, PTL_CT_ACK_REQ, pdev_proc(to),
                  PDEV_PT_BOOT, 0, 0, NULL, 0);
}

/* Until success + failure reaches test. PtlCTWait ends at success >= test
 * or at any failure, and a boot counter keeps its failures (the knocks
 * that found rank 0 not yet listening), so after one this rechecks every
 * millisecond; it happens only at start-up. */
static int ct_wait(ptl_handle_ct_t ct, ptl_size_t test, ptl_ct_event_t *ev)
{
    for (;;) {
        int rc = PtlCTWait(ct, test, ev);
        if (rc != PTL_OK || ev->success + ev->failure >= test)
            return rc;
        usleep(1000);
    }
}

/* Among the members only; the first of them counts the others in. */
int pdev_boot_barrier(void)
{
    int n = pdev.nmembers, root = pdev_member(0);
    if (n == 1)
        return 0;
    ptl_ct_event_t ev;
    int rc;
    pdev.boot_epoch++;
    if (pdev.me != root) {
        for (int tries = 0;; tries++) {
            if ((rc = knock(root)) != PTL_OK ||
                (rc = ct_wait(pdev.boot_mdct, pdev.boot_acks + pdev.boot_fails + 1, &ev)) != PTL_OK)
                return pdev_rc(rc);
            if (ev.failure == pdev.boot_fails) {
                pdev.boot_acks++;
                break;
            }
            pdev.boot_fails = ev.failure;
            if (pdev.boot_epoch != 1 || tries > 10000) {
                fprintf(stderr, "armci portals device: rank %d: rank %d never became reachable\n",
                        pdev.me, root);
                return -ETIMEDOUT;
            }
            usleep(1000);
        }
        rc = ct_wait(pdev.boot_ct, pdev.boot_epoch, &ev);
        return pdev_rc(rc);
    }
    if ((rc = ct_wait(pdev.boot_ct, pdev.boot_epoch * (uint64_t)(n - 1), &ev)) != PTL_OK)
        return pdev_rc(rc);
    for (int i = 1; i < n; i++)
        if ((rc = knock(pdev_member(i))) != PTL_OK)
            return pdev_rc(rc);
    pdev.boot_acks += (uint64_t)(n - 1);
    rc = ct_wait(pdev.boot_mdct, pdev.boot_acks + pdev.boot_fails, &ev);
    if (rc == PTL_OK && ev.failure != pdev.boot_fails)
        return -EIO;
    return pdev_rc(rc);
}

void pdev_boot_fini(void)
{
    PtlMDRelease(pdev.boot_md);
    PtlMEUnlink(pdev.boot_me);
    PtlPTFree(pdev.ni, PDEV_PT_BOOT);
    PtlCTFree(pdev.boot_ct);
    PtlCTFree(pdev.boot_mdct);
}
