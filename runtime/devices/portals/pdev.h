/* The runtime's Portals 4 device: state shared by its files. Written
 * against <portals4.h> alone.
 *
 * One matching logical NI. Remote memory is addressed by virtual address
 * through entries that span the whole address space, as real Portals
 * clients of ARMCI and SHMEM do:
 *   PT_DATA          silent entry: put, get, atomics, flushes
 *   PT_NOTIFY + ctx  same span, but every put raises an event at ctx
 *   PT_SMALL + ctx   receive buffers for short messages (locally managed
 *                    offsets, re-posted as they fill)
 *   PT_BOOT          start-up and shutdown barrier
 * Each context has its own event queue and memory descriptors, so the
 * application thread and the helper thread never share an EQ. */
#ifndef PDEV_H
#define PDEV_H
#include <portals4.h>
#include <stdint.h>
#include "device.h"

#define PDEV_PT_DATA 1
#define PDEV_PT_NOTIFY 2 /* + ctx */
#define PDEV_PT_SMALL 4  /* + ctx */
#define PDEV_PT_BOOT 6

#define PDEV_EQ_SIZE 32768
#define PDEV_MAX_INFLIGHT 8192 /* per context; keeps the EQ from overflowing */
#define PDEV_RBUF_COUNT 4
#define PDEV_RBUF_SIZE (256u << 10)
#define PDEV_HDR_WAKE 1ull /* hdr_data of a wake-up message */

/* One posted operation; the event's user_ptr points at it. */
struct pdev_op {
    struct adev_cmpl *local, *remote;
    int events;               /* events still expected */
    int status;
    struct pdev_op *next;     /* free list / ready list */
    struct pdev_op *all_next; /* every op the context allocated, for close */
};

struct pdev_ctx {
    int open;
    ptl_handle_eq_t eq;
    ptl_handle_md_t md;        /* events: SEND / ACK / REPLY */
    ptl_handle_md_t md_quiet;  /* volatile, success events off: short messages */
    ptl_handle_md_t md_acked;  /* volatile, SEND events off: short puts whose ACK is wanted */
    ptl_handle_me_t me_notify;
    ptl_handle_me_t me_small[PDEV_RBUF_COUNT];
    char *rbuf[PDEV_RBUF_COUNT];
    struct pdev_op *free_ops, *all_ops;
    struct pdev_op *ready, *ready_tail; /* completed at posting time */
    int inflight;
};

struct pdev {
    ptl_handle_ni_t ni;
    ptl_handle_me_t data_me;
    ptl_ni_limits_t limits;
    int me, nproc;
    const int *members; /* who runs ARMCI (struct adev_job), NULL: all */
    int nmembers;
    int *node_of;
    struct adev_handlers h;
    void *(*alloc)(size_t len);
    void (*release)(void *p);
    struct pdev_ctx ctx[ADEV_NCTX];
    /* start-up / shutdown barrier */
    ptl_handle_ct_t boot_ct, boot_mdct;
    ptl_handle_md_t boot_md;
    ptl_handle_me_t boot_me;
    uint64_t boot_epoch, boot_acks, boot_fails;
    uint64_t boot_src;
    char boot_sink[8];
};

extern struct pdev pdev;

/* the i-th rank that runs ARMCI */
static inline int pdev_member(int i) { return pdev.members ? pdev.members[i] : i; }

/* ops.c */
struct pdev_op *pdev_op_get(struct pdev_ctx *c);
void pdev_op_put(struct pdev_ctx *c, struct pdev_op *op);
void pdev_op_ready(struct pdev_ctx *c, struct pdev_op *op);
int pdev_rc(int ptl_rc); /* Portals return code -> -errno */
ptl_process_t pdev_proc(int rank);

/* progress.c */
int pdev_open_ctx(int ctx);
void pdev_close_ctx(int ctx);
int pdev_progress(int ctx, int64_t timeout_ns);
void pdev_wakeup(int ctx);

/* boot.c */
int pdev_boot_init(void);
int pdev_boot_barrier(void);
void pdev_boot_fini(void);
#endif
