/* The runtime's PAMI device (Blue Gene/Q's messaging layer), following
 * [BGQ-PAMI]: state shared by its files. Written against <pami.h> alone.
 *
 * One client, two contexts: ADEV_CTX_RANK (offset 0) and ADEV_CTX_HELPER
 * (offset 1), created on every rank so that endpoints are symmetric. A
 * context is only ever used and advanced by the thread that drives it (the
 * application thread, the core's helper thread), so no context lock is
 * taken and the two threads never contend for one context ([BGQ-PAMI]
 * section III-D). PAMI runs a context's callbacks inside its own advance,
 * in that same thread; they only queue what they report (or, for the
 * device's own protocols, answer at once), and progress(ctx) runs the
 * queue outside PAMI, so a core handler may post and progress again.
 *
 * RMA goes by memory region (PAMI_Rput / PAMI_Rget) when the target's
 * region for the address is in this context's cache for that target, else
 * by virtual address (PAMI_Put / PAMI_Get), which in emunic reaches any
 * address of the target: that is the fallback [BGQ-PAMI] uses while a
 * region is missing. A miss asks the target for its region (a small
 * request / response active message); the answer fills the cache, which is
 * bounded per target and evicts the least frequently used entry. */
#ifndef PADEV_H
#define PADEV_H
#include <pami.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "device.h"

#define PADEV_SMALL_MAX 128     /* send_small payload */
#define PADEV_MR_CACHE_DEFAULT 16 /* regions cached per (context, target) */
#define PADEV_NEG_RETRY 64      /* uses of a "no region" answer before asking again */

/* dispatch ids of the device (the library's harness and clients use others) */
enum {
    PADEV_D_SMALL = 40,  /* send_small: header {chan, kind}, payload */
    PADEV_D_NOTICE,      /* put_notify's notice: header struct padev_notice */
    PADEV_D_MRREQ,       /* region request: header struct padev_mrreq */
    PADEV_D_MRREP,       /* region answer: header struct padev_mrrep */
    PADEV_D_AMO,         /* target-run atomic: header struct padev_amoreq, operand */
    PADEV_D_AMODONE,     /* its answer: header {cookie, status}, old value */
    PADEV_D_HELLO,       /* start-up: header {first local task, local tasks} */
    PADEV_D_BYE,         /* shut-down */
    PADEV_D_END
};

enum padev_ev_kind { PADEV_EV_LOCAL, PADEV_EV_REMOTE, PADEV_EV_SMALL, PADEV_EV_NOTIFY };

struct padev_ev {
    struct padev_ev *next;
    int kind;
    int status;
};

/* One posted operation: what its callbacks complete. */
struct padev_op {
    struct padev_ev local_ev, remote_ev;
    struct adev_cmpl *local, *remote;
    int ctx;
    int pending; /* events still to come */
    void *fetch; /* amo: where the old value goes */
    size_t fetch_len;
    _Alignas(16) char buf[16]; /* amo: the old value, the operand */
    struct padev_op *next_free;
};

/* An arrival copied out of PAMI's buffer. */
struct padev_msg {
    struct padev_ev ev;
    int src;
    size_t len;
    uint64_t imm;
    void *addr;
    struct padev_msg *next_free;
    char data[PADEV_SMALL_MAX];
};

struct padev_notice {
    uint64_t imm, addr, len;
    uint32_t chan, pad;
};

struct padev_mrreq {
    uint64_t addr, len;
};

struct padev_mrrep {
    uint64_t addr, len;  /* what was asked */
    uint64_t base, size; /* the region's span; size 0: no region */
    pami_memregion_t mr;
};

/* A cached region of one target (or, neg, an answer that it has none). */
struct padev_mr {
    uint64_t base, size;
    uint64_t hits;
    int used, neg;
    pami_memregion_t mr;
};

/* What one context knows of one target. */
struct padev_peer {
    pami_endpoint_t ep[ADEV_NCTX];
    uint8_t have_ep[ADEV_NCTX];
    int asking; /* a region request is on its way */
    struct padev_mr *mrs; /* padev.mr_cache entries, allocated on first use */
};

struct padev_ctx {
    pami_context_t pc;
    int open;
    /* event queue: written by PAMI callbacks, read by progress, both in
     * the context's own thread */
    struct padev_ev *head, *tail;
    struct padev_op *free_ops;
    struct padev_msg *free_msgs;
    int inflight;    /* ops not yet completed */
    int asking;      /* region requests without an answer */
    struct padev_peer *peers;
    /* wakeup: any thread */
    atomic_int wake;
    atomic_int posted;
    pami_work_t work;
    /* counters (ARMCI_PAMI_STATS) */
    uint64_t n_rput, n_rget, n_put_va, n_get_va, n_mrreq, n_mrevict, n_mrneg, n_rmw, n_amo_am;
};

/* A registered ARMCI segment of this rank and its region, created on the
 * first request for it. Retired (deregistered) ones keep their region
 * until finalize: an origin may still hold it in its cache. */
struct padev_seg {
    uint64_t base, len;
    int has_mr, live;
    pami_memregion_t mr;
};

struct padev {
    int me, nproc, nnodes;
    int *node_of;
    int *first_of; /* each rank's node's first task (start-up) */
    struct adev_handlers h;
    pami_client_t client;
    struct padev_ctx ctx[ADEV_NCTX];
    int helper;
    size_t mr_cache; /* ARMCI_PAMI_MR_CACHE */
    int stats;       /* ARMCI_PAMI_STATS */
    int use_regions; /* ARMCI_PAMI_RDMA (default 1): 0 = always by address */
    /* the local side of Rput/Rget: a region over the address space */
    int has_space_mr;
    pami_memregion_t space_mr;
    uint64_t space_base, space_len;
    /* own segments (rank thread only: mem_register and the region
     * requests, which arrive on ADEV_CTX_RANK) */
    struct padev_seg *segs;
    size_t nsegs, segs_cap;
    /* start-up / shut-down, counted on ADEV_CTX_RANK */
    int nhello;
    int nbye;
};

extern struct padev padev;

int padev_status(pami_result_t r);
int64_t padev_now_ns(void);

/* progress.c */
void padev_push(int ctx, struct padev_ev *ev);
struct padev_op *padev_op_get(int ctx);
void padev_op_put(int ctx, struct padev_op *op);
void padev_cb_local(pami_context_t pc, void *cookie, pami_result_t r);
void padev_cb_remote(pami_context_t pc, void *cookie, pami_result_t r);
void padev_cb_both(pami_context_t pc, void *cookie, pami_result_t r);
struct padev_msg *padev_msg_get(int ctx);
void padev_msg_put(int ctx, struct padev_msg *m);
int padev_drain(int ctx, int call_core);
void padev_ctx_free(int ctx);
int padev_progress(int ctx, int64_t timeout_ns);
void padev_wakeup(int ctx);
int padev_register_dispatch(int ctx);

/* ops.c */
pami_endpoint_t padev_ep(int ctx, int proc, int off);
void padev_on_mrreq(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                    const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv);
void padev_on_mrrep(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                    const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv);
int padev_mem_register(void *base, size_t len);
void padev_mem_deregister(void *base, size_t len);
void padev_segs_free(void);

/* amo.c */
int padev_amo(int ctx, int proc, int op, int type, void *dst, const void *operand, size_t len,
              void *fetch, struct adev_cmpl *done);
void padev_on_amo(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                  const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv);
void padev_on_amodone(pami_context_t pc, void *cookie, const void *hdr, size_t hlen,
                      const void *pipe, size_t len, pami_endpoint_t origin, pami_recv_t *recv);
#endif
