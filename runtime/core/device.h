/* The interface between the device-independent core and a device (one per
 * network API). A device is written against its personality's public
 * header only. It offers two contexts, each driven by one thread:
 * ADEV_CTX_RANK (the application's) and ADEV_CTX_HELPER (the node's
 * communication helper, opened only in the rank that hosts it). A message
 * sent to channel c of a rank is delivered by progress(c) on that rank;
 * completions of operations posted on context c are run by progress(c).
 *
 * Every posting function returns 0, or a negative errno (-ENOMEM when the
 * device is out of resources: the core makes progress and retries). */
#ifndef ARMCII_DEVICE_H
#define ARMCII_DEVICE_H
#include <stddef.h>
#include <stdint.h>

enum { ADEV_CTX_RANK = 0, ADEV_CTX_HELPER = 1, ADEV_NCTX = 2 };

/* A completion: the device calls fn(c, status) from progress, status 0 or
 * a negative errno (-EIO: the network reported a failure). */
struct adev_cmpl {
    void (*fn)(struct adev_cmpl *c, int status);
};

/* The core fills alloc/release (memory the network reaches fastest: the
 * device's receive buffers go there) and members; init fills the rest, in
 * the job's numbering. node_of has nproc entries, allocated by the device
 * and valid until finalize. members (NULL: every rank) lists the job ranks
 * that run ARMCI, this one included: start-up and shut-down exchange with
 * them only, since the others may never start a device, or start one of
 * their own for another set (core/subset.c numbers ARMCI's procs). */
struct adev_job {
    void *(*alloc)(size_t len);
    void (*release)(void *p);
    const int *members;
    int nmembers;
    int me, nproc, nnodes;
    const int *node_of;
};

/* Arrivals, run inside progress(ctx) of the receiving context. */
struct adev_handlers {
    /* send_small: buf valid only during the call */
    void (*small)(int ctx, int src, const void *buf, size_t len);
    /* put_notify: the len bytes at addr have landed; imm is the sender's */
    void (*notify)(int ctx, int src, uint64_t imm, void *addr, size_t len);
};

enum adev_amo { ADEV_AMO_SUM, ADEV_AMO_FADD, ADEV_AMO_SWAP };
enum adev_type { ADEV_INT32, ADEV_INT64, ADEV_FLOAT, ADEV_DOUBLE, ADEV_FCOMPLEX, ADEV_DCOMPLEX };

#define ADEV_CAP_AMO 0x1      /* amo() is the network's own atomics */
#define ADEV_CAP_ORDERED 0x2  /* puts (and put_notify) to one target land in posting order */

struct armci_device {
    const char *name;
    unsigned caps;
    size_t small_max; /* largest send_small payload (at least 128) */

    /* Bring the network up; returns 0, or -ENODEV when this device's
     * network is not there (the core then tries the next device). All
     * ranks return from init only when every rank can receive on
     * ADEV_CTX_RANK (and on ADEV_CTX_HELPER when helper != 0; the core
     * decides later which rank's helper context is used). */
    int (*init)(struct adev_job *job, const struct adev_handlers *h, int helper);
    void (*finalize)(void);
    /* Memory that remote ranks will address (ARMCI_Malloc segments); the
     * device may pin or register it. NULL: the network reaches every
     * address without registration (both devices so far). */
    int (*mem_register)(void *base, size_t len);
    void (*mem_deregister)(void *base, size_t len);

    /* RDMA put; local completes when src may be reused, remote (may be
     * NULL: not needed) when the data is in place at the target. */
    int (*put)(int ctx, int proc, const void *src, void *dst, size_t len,
               struct adev_cmpl *local, struct adev_cmpl *remote);
    int (*get)(int ctx, int proc, const void *src, void *dst, size_t len,
               struct adev_cmpl *done);
    /* RDMA put that also runs notify(chan, me, imm, dst, len) at proc once
     * the data is there. */
    int (*put_notify)(int ctx, int proc, int chan, const void *src, void *dst,
                      size_t len, uint64_t imm, struct adev_cmpl *local);
    /* A short message (<= small_max) for small(chan, ...) at proc; buf may
     * be reused on return. */
    int (*send_small)(int ctx, int proc, int chan, const void *buf, size_t len);
    /* Network atomic on one element (ADEV_CAP_AMO only); fetch may be NULL
     * for ADEV_AMO_SUM, operand has one element (len bytes for SUM). */
    int (*amo)(int ctx, int proc, int op, int type, void *dst, const void *operand,
               size_t len, void *fetch, struct adev_cmpl *done);

    /* Run completions and arrivals of ctx; returns how many. With nothing
     * to do, waits up to timeout_ns for something (0: just poll). */
    int (*progress)(int ctx, int64_t timeout_ns);
    /* Make a progress(ctx) blocked in another thread return soon. */
    void (*wakeup)(int ctx);
};

extern const struct armci_device armcii_dev_portals;
extern const struct armci_device armcii_dev_dcmf;
extern const struct armci_device armcii_dev_pami;
#endif
