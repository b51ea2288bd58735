/* The runtime's DCMF device (Blue Gene/P's messaging layer, the one OSPRI
 * was built on): state shared by its files. Written against <dcmf.h> alone.
 *
 * DCMF has one messager per process and runs every callback inside
 * DCMF_Messager_advance, in whichever thread advances. The device offers
 * two contexts on top of it, so its callbacks only queue what they report
 * on the context it belongs to (an arrival: the channel in its header; a
 * completion: the context that posted the operation), and progress(ctx)
 * advances the messager, then runs ctx's queue. With a helper thread the
 * messager runs at DCMF_THREAD_MULTIPLE and every DCMF call is made inside
 * the critical section, except DCMF_Messager_advance (it takes the section
 * itself and must leave it while it sleeps on the doorbell) and
 * DCMF_Messager_configure (it turns the section on, at start-up).
 *
 * Remote memory: as in OSPRI, each rank creates one memory region over
 * its whole address space and sends it to every other rank at start-up, so
 * an offset into a region is an address. */
#ifndef DDEV_H
#define DDEV_H
#include <dcmf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "device.h"

/* send_small's payload: with one quad of header it still fits DCMF's
 * one-packet (short) path of 144 bytes. */
#define DDEV_SMALL_MAX 128
#define DDEV_POOL_CHUNK 256  /* requests allocated at a time */
#define DDEV_POOL_MAX 8192   /* requests per context: then -ENOMEM */

/* msginfo word 0 of a message on the short protocol */
enum { DDEV_K_DATA = 1, DDEV_K_BYE = 2 };

enum ddev_ev_kind { DDEV_EV_DONE, DDEV_EV_ACK, DDEV_EV_SMALL, DDEV_EV_NOTIFY, DDEV_EV_AMO };

/* A queued event: a callback's report, waiting for progress(ctx). */
struct ddev_ev {
    struct ddev_ev *next;
    int kind;
    int status;
};

/* One posted operation: the request DCMF owns while it is active, and
 * what its callbacks complete. */
struct ddev_op {
    DCMF_Request_t req;
    struct ddev_ev done, ack;
    struct adev_cmpl *local, *remote;
    int ctx;
    int pending; /* callbacks still to run */
    struct ddev_op *next_free;
    void *fetch; /* amo: where the old value goes, fetch_len bytes from buf */
    size_t fetch_len;
    /* send_small's copy (DCMF reads it until cb_done); an amo's old value */
    char buf[DDEV_SMALL_MAX];
};

/* An arrival, copied out of DCMF's packet (valid only during its callback). */
struct ddev_msg {
    struct ddev_ev ev;
    int src;
    size_t len;
    uint64_t imm;
    void *addr;
    struct ddev_msg *next_free, *all_next;
    char data[DDEV_SMALL_MAX];
};

struct ddev_chunk {
    struct ddev_chunk *next;
    struct ddev_op ops[DDEV_POOL_CHUNK];
};

struct ddev_ctx {
    int open;
    /* the queue: under ddev.qlock */
    struct ddev_ev *head, *tail;
    pthread_cond_t cond;
    atomic_int waiting; /* threads in cond_wait on this context */
    atomic_int wake;
    /* request pool: used only by the thread driving this context */
    struct ddev_op *free_ops;
    struct ddev_chunk *chunks;
    int nops;
    atomic_int inflight; /* read by my_turn from the other thread */
};

struct ddev {
    int me, nproc, nnodes;
    int *node_of;
    const int *members; /* who runs ARMCI (struct adev_job), NULL: all */
    int nmembers;
    uint8_t *in;        /* by rank: a member */
    struct adev_handlers h;
    DCMF_Protocol_t put_p, get_p, small_p, notify_p, amo_p, amo_done_p, hello_p, ack_p;
    DCMF_Memregion_t mine;
    DCMF_Memregion_t *regions; /* every rank's, by rank */
    /* start-up exchange (written by control callbacks during init only) */
    uint8_t *have, *acked;
    int nhave, nacked;
    atomic_int byes;
    pthread_mutex_t qlock; /* the queues and the free messages */
    struct ddev_msg *free_msgs, *all_msgs;
    atomic_int advancing;  /* a thread is inside DCMF_Messager_advance */
    atomic_int rank_wants; /* the rank's thread waits for its turn to advance */
    /* the helper leaves the messager to the rank's thread until then
     * (INT64_MAX while that thread is in progress): see my_turn */
    _Atomic int64_t rank_until;
    struct ddev_ctx ctx[ADEV_NCTX];
};

extern struct ddev ddev;

/* the i-th rank that runs ARMCI */
static inline int ddev_member(int i) { return ddev.members ? ddev.members[i] : i; }

/* ops.c */
struct ddev_op *ddev_op_get(int ctx);
void ddev_op_put(int ctx, struct ddev_op *op);
void ddev_pool_free(int ctx);
int ddev_send_bye(int proc);

/* amo.c */
int ddev_amo(int ctx, int proc, int op, int type, void *dst, const void *operand, size_t len,
             void *fetch, struct adev_cmpl *done);
void ddev_on_amo(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                 size_t bytes);
DCMF_Request_t *ddev_on_amo_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                                 size_t sndlen, size_t *rcvlen, char **rcvbuf,
                                 DCMF_Callback_t *cb_done);
void ddev_on_amo_done(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                      size_t bytes);
/* Run (or at shut-down, with call_core 0, drop) an atomic queued at ctx. */
void ddev_amo_run(int ctx, struct ddev_ev *ev, int call_core);

/* queue.c */
void ddev_push(int ctx, struct ddev_ev *ev);
void ddev_cb_done(void *cd, DCMF_Error_t *e);
void ddev_cb_ack(void *cd, DCMF_Error_t *e);
void ddev_on_small(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                   size_t bytes);
DCMF_Request_t *ddev_on_small_long(void *cd, const DCQuad *mi, unsigned count, size_t peer,
                                   size_t sndlen, size_t *rcvlen, char **rcvbuf,
                                   DCMF_Callback_t *cb_done);
void ddev_on_notice(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                    size_t bytes);
int ddev_open_ctx(int ctx);
void ddev_close_ctx(int ctx);
/* Run ctx's queue without calling the core (shut-down): returns how many. */
int ddev_drain_quiet(int ctx);
int ddev_progress(int ctx, int64_t timeout_ns);
void ddev_wakeup(int ctx);
int64_t ddev_now_ns(void);

/* boot.c */
int ddev_boot_register(void);
int ddev_boot_exchange(void);
void ddev_boot_goodbye(void);
#endif
