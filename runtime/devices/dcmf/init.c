/* Bringing the DCMF device up and down: the messager and its thread
 * level, the protocols, the whole-space region, the node map, the
 * contexts, the start-up exchange. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ddev.h"

/* Ranks with the same torus coordinates share a node; nodes are numbered
 * in order of first appearance. */
static int node_map(void)
{
    int n = ddev.nproc, nnodes = 0;
    size_t(*xyz)[3] = calloc((size_t)n, sizeof *xyz);
    ddev.node_of = calloc((size_t)n, sizeof *ddev.node_of);
    if (!xyz || !ddev.node_of) {
        free(xyz);
        return -ENOMEM;
    }
    for (int r = 0; r < n; r++) {
        DCMF_NetworkCoord_t a;
        DCMF_CriticalSection_enter(0);
        DCMF_Result rc = DCMF_Messager_rank2network((size_t)r, DCMF_TORUS_NETWORK, &a);
        DCMF_CriticalSection_exit(0);
        if (rc != DCMF_SUCCESS) {
            free(xyz);
            return -EIO;
        }
        int k = 0;
        while (k < nnodes && (xyz[k][0] != a.torus.x || xyz[k][1] != a.torus.y ||
                              xyz[k][2] != a.torus.z))
            k++;
        if (k == nnodes) {
            xyz[k][0] = a.torus.x;
            xyz[k][1] = a.torus.y;
            xyz[k][2] = a.torus.z;
            nnodes++;
        }
        ddev.node_of[r] = k;
    }
    free(xyz);
    return nnodes;
}

/* Two threads progress the messager when there is a helper: DCMF's
 * critical section must then be a real lock. Interrupts (DCMF_INTERRUPTS=1)
 * are held off until the protocols are registered, so that the interrupt
 * thread does not drop an early peer's hello; *irq says to turn them back
 * on. Not called inside the critical section: configuring may turn it on,
 * and the exit would then release a lock the enter never took. */
static int configure(int helper, int *irq)
{
    DCMF_Configure_t cfg;
    if (DCMF_Messager_configure(NULL, &cfg) != DCMF_SUCCESS)
        return -EIO;
    *irq = cfg.interrupts == DCMF_INTERRUPTS_ON;
    cfg.interrupts = DCMF_INTERRUPTS_OFF;
    if (helper)
        cfg.thread_level = DCMF_THREAD_MULTIPLE;
    if (DCMF_Messager_configure(&cfg, &cfg) != DCMF_SUCCESS)
        return -EIO;
    if (helper && (cfg.thread_level != DCMF_THREAD_MULTIPLE || !DCMF_CriticalSection_flag)) {
        fprintf(stderr, "armci dcmf device: the messager cannot run at DCMF_THREAD_MULTIPLE\n");
        return -EIO;
    }
    return 0;
}

static int interrupts_on(void)
{
    DCMF_Configure_t cfg;
    if (DCMF_Messager_configure(NULL, &cfg) != DCMF_SUCCESS)
        return -EIO;
    cfg.interrupts = DCMF_INTERRUPTS_ON;
    return DCMF_Messager_configure(&cfg, &cfg) == DCMF_SUCCESS ? 0 : -EIO;
}

int ddev_init(struct adev_job *job, const struct adev_handlers *h, int helper)
{
    memset(&ddev, 0, sizeof ddev);
    ddev.h = *h;
    pthread_mutex_init(&ddev.qlock, NULL);
    DCMF_Messager_initialize(); /* ends the process, saying why, when this is no DCMF job */
    int irq = 0, rc = configure(helper, &irq);
    if (rc)
        return rc;
    DCMF_CriticalSection_enter(0);
    ddev.me = (int)DCMF_Messager_rank();
    ddev.nproc = (int)DCMF_Messager_size();
    size_t whole = 0;
    DCMF_Result mr = DCMF_Memregion_create(&ddev.mine, &whole, (size_t)-1, NULL, 0);
    DCMF_CriticalSection_exit(0);
    if (mr != DCMF_SUCCESS) {
        fprintf(stderr, "armci dcmf device: rank %d: no memory region over the address space\n",
                ddev.me);
        return -EIO;
    }
    int nnodes = node_map();
    if (nnodes < 0)
        return nnodes;
    ddev.regions = calloc((size_t)ddev.nproc, sizeof *ddev.regions);
    ddev.have = calloc((size_t)ddev.nproc, 1);
    ddev.acked = calloc((size_t)ddev.nproc, 1);
    ddev.in = calloc((size_t)ddev.nproc, 1);
    if (!ddev.regions || !ddev.have || !ddev.acked || !ddev.in)
        return -ENOMEM;
    ddev.members = job->members;
    ddev.nmembers = job->members ? job->nmembers : ddev.nproc;
    for (int i = 0; i < ddev.nmembers; i++)
        ddev.in[ddev_member(i)] = 1;
    /* the queues exist before any protocol: a peer's message may come
     * in while we are still exchanging regions */
    if ((rc = ddev_open_ctx(ADEV_CTX_RANK)) != 0 ||
        (helper && (rc = ddev_open_ctx(ADEV_CTX_HELPER)) != 0) ||
        (rc = ddev_boot_register()) != 0 || (irq && (rc = interrupts_on()) != 0) ||
        (rc = ddev_boot_exchange()) != 0)
        return rc;
    job->me = ddev.me;
    job->nproc = ddev.nproc;
    job->nnodes = nnodes;
    job->node_of = ddev.node_of;
    return 0;
}

void ddev_finalize(void)
{
    ddev_boot_goodbye();
    ddev_close_ctx(ADEV_CTX_HELPER);
    ddev_close_ctx(ADEV_CTX_RANK);
    /* the section is recursive and the interrupt thread, if any, is
     * stopped with a timed lock: finalizing inside it is allowed */
    DCMF_CriticalSection_enter(0);
    DCMF_Memregion_destroy(&ddev.mine);
    DCMF_Messager_finalize();
    DCMF_CriticalSection_exit(0);
    while (ddev.all_msgs) {
        struct ddev_msg *n = ddev.all_msgs->all_next;
        free(ddev.all_msgs);
        ddev.all_msgs = n;
    }
    ddev.free_msgs = NULL;
    free(ddev.regions);
    free(ddev.have);
    free(ddev.acked);
    free(ddev.in);
    ddev.in = NULL;
    free(ddev.node_of);
    ddev.regions = NULL;
    ddev.have = ddev.acked = NULL;
    ddev.node_of = NULL;
    pthread_mutex_destroy(&ddev.qlock);
}
