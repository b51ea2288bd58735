/* Bringing the PAMI device up and down: the client and its two contexts,
 * the dispatch ids, the local region over the address space, the node
 * map, and the start-up and shut-down exchanges.
 *
 * Start-up: once both contexts have every dispatch id set, a rank sends a
 * hello {first task of its node} to every other rank on ADEV_CTX_RANK and
 * advances that context until it holds everybody's hello. Holding every
 * hello means every peer can receive on both contexts. (emunic's PAMI keeps
 * an arrival for a context or dispatch id that does not exist yet, so no
 * hello is lost and none is repeated.) The hellos give the node map: tasks
 * of a node are consecutive in emunic, and a node is known by its first.
 *
 * Shut-down: a bye to every other rank, behind all this rank's traffic to
 * it (one ordered queue per destination), then advance until every peer's
 * bye, every answer to our region requests and every operation of both
 * contexts is in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "padev.h"

#define BOOT_TIMEOUT_NS 60000000000LL
#define BYE_TIMEOUT_NS 60000000000LL

static size_t env_size(const char *name, size_t dflt, size_t lo, size_t hi)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return dflt;
    char *end;
    unsigned long long v = strtoull(e, &end, 10);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "armci pami device: %s=%s is not a number in %zu..%zu; using %zu\n", name,
                e, lo, hi, dflt);
        return dflt;
    }
    return (size_t)v;
}

static size_t query_client(pami_attribute_name_t name)
{
    pami_configuration_t q = {.name = name};
    if (PAMI_Client_query(padev.client, &q, 1) != PAMI_SUCCESS)
        return 0;
    return q.value.intval;
}

/* The local side of Rput / Rget: one region over the address space, as
 * the DCMF device and OSPRI make. Without it, every transfer goes by
 * address. */
static void space_region(void)
{
    size_t got = 0;
    void *lo = (void *)(uintptr_t)4096;
    size_t len = ((size_t)1 << 47) - 4096;
    if (PAMI_Memregion_create(padev.ctx[ADEV_CTX_RANK].pc, lo, len, &got, &padev.space_mr) ==
            PAMI_SUCCESS &&
        got == len) {
        padev.has_space_mr = 1;
        padev.space_base = (uint64_t)(uintptr_t)lo;
        padev.space_len = len;
    }
}

static int send_hello(int q)
{
    uint32_t first = (uint32_t)padev.first_of[padev.me];
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.header.iov_base = &first;
    s.header.iov_len = sizeof first;
    s.dispatch = PADEV_D_HELLO;
    s.dest = padev_ep(ADEV_CTX_RANK, q, ADEV_CTX_RANK);
    return padev_status(PAMI_Send_immediate(padev.ctx[ADEV_CTX_RANK].pc, &s));
}

static int boot(void)
{
    for (int q = 0; q < padev.nproc; q++) {
        int rc;
        if (q != padev.me && (rc = send_hello(q)) != 0)
            return rc;
    }
    int64_t start = padev_now_ns();
    while (padev.nhello < padev.nproc - 1) {
        pami_result_t r = PAMI_Context_advance(padev.ctx[ADEV_CTX_RANK].pc, 1);
        if (r != PAMI_SUCCESS && r != PAMI_EAGAIN)
            return -EIO;
        if (padev_now_ns() - start > BOOT_TIMEOUT_NS) {
            fprintf(stderr, "armci pami device: rank %d: %d of %d hellos after %lld s\n",
                    padev.me, padev.nhello, padev.nproc - 1, BOOT_TIMEOUT_NS / 1000000000LL);
            return -ETIMEDOUT;
        }
    }
    /* nodes numbered in order of their first task */
    int nnodes = 0;
    for (int r = 0; r < padev.nproc; r++) {
        int f = padev.first_of[r];
        if (f < 0 || f > r) {
            fprintf(stderr, "armci pami device: rank %d: rank %d says its node starts at %d\n",
                    padev.me, r, f);
            return -EIO;
        }
        padev.node_of[r] = f == r ? nnodes++ : padev.node_of[f];
    }
    padev.nnodes = nnodes;
    return 0;
}

static void undo(void)
{
    int n = 0;
    pami_context_t pcs[ADEV_NCTX] = {0};
    if (padev.has_space_mr && padev.ctx[ADEV_CTX_RANK].pc)
        PAMI_Memregion_destroy(padev.ctx[ADEV_CTX_RANK].pc, &padev.space_mr);
    padev.has_space_mr = 0;
    for (int i = 0; i < ADEV_NCTX; i++)
        if (padev.ctx[i].pc) {
            pcs[n++] = padev.ctx[i].pc;
            padev_ctx_free(i);
            free(padev.ctx[i].peers);
            padev.ctx[i].peers = NULL;
            padev.ctx[i].open = 0;
        }
    if (n)
        PAMI_Context_destroyv(pcs, (size_t)n);
    if (padev.client)
        PAMI_Client_destroy(&padev.client);
    free(padev.node_of);
    free(padev.first_of);
    padev.node_of = padev.first_of = NULL;
}

int padev_init(struct adev_job *job, const struct adev_handlers *h, int helper)
{
    memset(&padev, 0, sizeof padev);
    padev.h = *h;
    padev.helper = helper;
    padev.mr_cache = env_size("ARMCI_PAMI_MR_CACHE", PADEV_MR_CACHE_DEFAULT, 1, 1 << 16);
    padev.stats = (int)env_size("ARMCI_PAMI_STATS", 0, 0, 1);
    padev.use_regions = (int)env_size("ARMCI_PAMI_RDMA", 1, 0, 1);
    /* emunic's PAMI_Client_create returns once every task of the job has
     * created its client: over part of the job it would wait for ranks
     * that never come */
    if (job->members) {
        fprintf(stderr, "armci pami device: ARMCI over %d of the job's ranks is not supported: "
                "PAMI_Client_create is collective over the whole job\n", job->nmembers);
        return -ENOTSUP;
    }
    /* fails when this is no PAMI job: the core may try another device */
    if (PAMI_Client_create("armci", &padev.client, NULL, 0) != PAMI_SUCCESS) {
        padev.client = PAMI_CLIENT_NULL;
        return -ENODEV;
    }
    padev.me = (int)query_client(PAMI_CLIENT_TASK_ID);
    padev.nproc = (int)query_client(PAMI_CLIENT_NUM_TASKS);
    size_t nlocal = query_client(PAMI_CLIENT_NUM_LOCAL_TASKS);
    pami_configuration_t lt = {.name = PAMI_CLIENT_LOCAL_TASKS};
    pami_configuration_t imm = {.name = PAMI_DISPATCH_SEND_IMMEDIATE_MAX};
    int rc = -EIO;
    if (padev.nproc <= 0 || padev.me >= padev.nproc || !nlocal ||
        PAMI_Client_query(padev.client, &lt, 1) != PAMI_SUCCESS || !lt.value.intarray)
        goto fail;
    padev.node_of = calloc((size_t)padev.nproc, sizeof *padev.node_of);
    padev.first_of = malloc((size_t)padev.nproc * sizeof *padev.first_of);
    if (!padev.node_of || !padev.first_of) {
        rc = -ENOMEM;
        goto fail;
    }
    for (int r = 0; r < padev.nproc; r++)
        padev.first_of[r] = -1;
    padev.first_of[padev.me] = (int)lt.value.intarray[0];
    pami_context_t pcs[ADEV_NCTX];
    if (PAMI_Context_createv(padev.client, NULL, 0, pcs, ADEV_NCTX) != PAMI_SUCCESS)
        goto fail;
    for (int i = 0; i < ADEV_NCTX; i++) {
        padev.ctx[i].pc = pcs[i];
        padev.ctx[i].peers = calloc((size_t)padev.nproc, sizeof *padev.ctx[i].peers);
        if (!padev.ctx[i].peers) {
            rc = -ENOMEM;
            goto fail;
        }
    }
    /* send_small's header and payload must fit one immediate send */
    if (PAMI_Dispatch_query(pcs[0], PADEV_D_SMALL, &imm, 1) != PAMI_SUCCESS ||
        imm.value.intval < PADEV_SMALL_MAX + 2 * sizeof(uint32_t) ||
        imm.value.intval < sizeof(struct padev_mrreq) + sizeof(pami_memregion_t) + 32) {
        fprintf(stderr, "armci pami device: PAMI_DISPATCH_SEND_IMMEDIATE_MAX is %zu, too small\n",
                imm.value.intval);
        goto fail;
    }
    for (int i = 0; i < ADEV_NCTX; i++) {
        if ((rc = padev_register_dispatch(i)) != 0)
            goto fail;
        padev.ctx[i].open = 1;
    }
    if (padev.use_regions)
        space_region();
    if ((rc = boot()) != 0)
        goto fail;
    job->me = padev.me;
    job->nproc = padev.nproc;
    job->nnodes = padev.nnodes;
    job->node_of = padev.node_of;
    return 0;
fail:
    undo();
    return rc;
}

static void print_stats(void)
{
    for (int i = 0; i < ADEV_NCTX; i++) {
        struct padev_ctx *c = &padev.ctx[i];
        fprintf(stderr,
                "armci pami rank %d ctx %d: rput %llu rget %llu put_va %llu get_va %llu "
                "mr_requests %llu mr_evictions %llu mr_none %llu rmw %llu amo_am %llu\n",
                padev.me, i, (unsigned long long)c->n_rput, (unsigned long long)c->n_rget,
                (unsigned long long)c->n_put_va, (unsigned long long)c->n_get_va,
                (unsigned long long)c->n_mrreq, (unsigned long long)c->n_mrevict,
                (unsigned long long)c->n_mrneg, (unsigned long long)c->n_rmw,
                (unsigned long long)c->n_amo_am);
    }
}

static int quiet(void)
{
    for (int i = 0; i < ADEV_NCTX; i++)
        if (padev.ctx[i].inflight || padev.ctx[i].asking)
            return 0;
    return 1;
}

void padev_finalize(void)
{
    /* the helper thread is gone: this thread drives both contexts now */
    for (int q = 0; q < padev.nproc; q++) {
        if (q == padev.me)
            continue;
        pami_send_immediate_t s;
        memset(&s, 0, sizeof s);
        s.dispatch = PADEV_D_BYE;
        s.dest = padev_ep(ADEV_CTX_RANK, q, ADEV_CTX_RANK);
        if (PAMI_Send_immediate(padev.ctx[ADEV_CTX_RANK].pc, &s) != PAMI_SUCCESS)
            fprintf(stderr, "armci pami device: rank %d: saying goodbye to rank %d failed\n",
                    padev.me, q);
    }
    int64_t start = padev_now_ns();
    for (;;) {
        for (int i = 0; i < ADEV_NCTX; i++)
            padev_drain(i, 0);
        if (padev.nbye >= padev.nproc - 1 && quiet())
            break;
        if (padev_now_ns() - start > BYE_TIMEOUT_NS) {
            fprintf(stderr, "armci pami device: rank %d: shutting down with %d of %d goodbyes\n",
                    padev.me, padev.nbye, padev.nproc - 1);
            break;
        }
        for (int i = 0; i < ADEV_NCTX; i++)
            PAMI_Context_advance(padev.ctx[i].pc, 1);
    }
    for (int i = 0; i < ADEV_NCTX; i++)
        padev_drain(i, 0);
    if (padev.stats)
        print_stats();
    padev_segs_free();
    for (int i = 0; i < ADEV_NCTX; i++) {
        struct padev_ctx *c = &padev.ctx[i];
        for (int q = 0; c->peers && q < padev.nproc; q++)
            free(c->peers[q].mrs);
    }
    undo();
}
