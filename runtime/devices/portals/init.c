/* Bringing the Portals device up and down: the NI, the rank's identity and
 * node map (from the NI's logical map), the contexts, the barrier. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pdev.h"

static int node_map(void)
{
    ptl_size_t n = 0;
    ptl_process_t dummy;
    if (PtlGetMap(pdev.ni, 0, &dummy, &n) != PTL_OK || n == 0)
        return -EIO;
    ptl_process_t *map = calloc(n, sizeof *map);
    pdev.node_of = calloc(n, sizeof *pdev.node_of);
    if (!map || !pdev.node_of) {
        free(map);
        return -ENOMEM;
    }
    int rc = PtlGetMap(pdev.ni, n, map, &n);
    pdev.nproc = (int)n;
    /* nids need not be dense: number the nodes in order of first appearance */
    ptl_nid_t *nids = calloc(n, sizeof *nids);
    int nnodes = 0;
    for (ptl_size_t r = 0; rc == PTL_OK && nids && r < n; r++) {
        int k = 0;
        while (k < nnodes && nids[k] != map[r].phys.nid)
            k++;
        if (k == nnodes)
            nids[nnodes++] = map[r].phys.nid;
        pdev.node_of[r] = k;
    }
    free(nids);
    free(map);
    return rc == PTL_OK ? nnodes : -EIO;
}

int pdev_init(struct adev_job *job, const struct adev_handlers *h, int helper)
{
    memset(&pdev, 0, sizeof pdev);
    pdev.h = *h;
    pdev.alloc = job->alloc;
    pdev.release = job->release;
    if (PtlInit() != PTL_OK)
        return -ENODEV; /* not a Portals job: PtlInit said why */
    int rc = PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL,
                       &pdev.limits, &pdev.ni);
    if (rc != PTL_OK) {
        fprintf(stderr, "armci portals device: PtlNIInit failed (%d)\n", rc);
        PtlFini();
        return -ENODEV;
    }
    if (pdev.limits.max_volatile_size < armcii_dev_portals.small_max ||
        pdev.limits.max_pt_index < PDEV_PT_BOOT) {
        fprintf(stderr, "armci portals device: the NI is too small (volatile %llu, pt %d)\n",
                (unsigned long long)pdev.limits.max_volatile_size, pdev.limits.max_pt_index);
        return -ENODEV;
    }
    ptl_process_t id;
    if (PtlGetId(pdev.ni, &id) != PTL_OK)
        return -EIO;
    pdev.me = (int)id.rank;
    int nnodes = node_map();
    if (nnodes < 0)
        return nnodes;
    pdev.members = job->members;
    pdev.nmembers = job->members ? job->nmembers : pdev.nproc;
    if (PtlPTAlloc(pdev.ni, 0, PTL_EQ_NONE, PDEV_PT_DATA, &(ptl_pt_index_t){0}) != PTL_OK)
        return -EIO;
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.length = PTL_SIZE_MAX;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE |
                 PTL_ME_EVENT_COMM_DISABLE | PTL_ME_UNEXPECTED_HDR_DISABLE;
    me.match_id.rank = PTL_RANK_ANY;
    me.ignore_bits = ~(ptl_match_bits_t)0;
    if (PtlMEAppend(pdev.ni, PDEV_PT_DATA, &me, PTL_PRIORITY_LIST, NULL, &pdev.data_me) != PTL_OK)
        return -EIO;
    if ((rc = pdev_open_ctx(ADEV_CTX_RANK)) != 0 ||
        (helper && (rc = pdev_open_ctx(ADEV_CTX_HELPER)) != 0) ||
        (rc = pdev_boot_init()) != 0 || (rc = pdev_boot_barrier()) != 0)
        return rc;
    job->me = pdev.me;
    job->nproc = pdev.nproc;
    job->nnodes = nnodes;
    job->node_of = pdev.node_of;
    return 0;
}

void pdev_finalize(void)
{
    /* nobody sends after this: then every entry can go */
    pdev_boot_barrier();
    pdev_close_ctx(ADEV_CTX_HELPER);
    pdev_close_ctx(ADEV_CTX_RANK);
    pdev_boot_fini();
    PtlMEUnlink(pdev.data_me);
    PtlPTFree(pdev.ni, PDEV_PT_DATA);
    PtlNIFini(pdev.ni);
    PtlFini();
    free(pdev.node_of);
    pdev.node_of = NULL;
}
