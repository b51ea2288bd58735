/* State and helpers shared by the PAMI rank half's files (not installed).
 *
 * client.c   clients, attributes, time, errors, extensions
 * context.c  contexts: locks, posted work, advance, the CQ demultiplexer
 * async.c    EXT_async_progress: a progress thread per context
 * endpoint.c endpoints; memregion.c memory regions
 * send.c     Send, Send_immediate, Send_typed, dispatch, internal messages
 * rma.c      Put/Get by address, Rput/Rget by memory region (+ typed)
 * rmw.c      Rmw (executed by the NIC's PAMI module)
 * fence.c    Fence_begin/end/all/endpoint
 * types.c    PAMI_Type_*, predefined types (types_int.h shared with)
 * data_ops.c data functions, PAMI_Type_transform_data, reductions
 * coll_*.c   geometries and collectives
 *
 * One rank has one completion queue in the core; every PAMI context has its
 * own inbox. Whichever context advances first moves the queue's entries to
 * their owners' inboxes (demux), so a context's callbacks run only inside
 * that context's advance, as PAMI requires, and contexts progress
 * independently (each from its own thread if the client wants). */
#ifndef EMUNIC_PAMI_LIB_H
#define EMUNIC_PAMI_LIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <pami.h>

#include "emunic/emunic.h"
#include "../proto.h"

#define PAMIL_MAX_CLIENTS 4
#define PAMIL_MAX_CONTEXTS 64 /* the endpoint's offset field has 6 bits */
#define PAMIL_DISPATCH_MAX 256
/* PAMI_Send_immediate: header + data (IBM's immediate_send_overflow);
 * copied at post like any eager send */
#define PAMIL_SEND_IMMEDIATE_MAX 256
#define PAMIL_RECV_IMMEDIATE_MAX 256 /* data bytes; what Send_immediate sends arrives immediate */
#define PAMIL_EAGER_MAX 4096 /* sends copied at post, complete locally at once */
#define PAMIL_INTERNAL_MAX 32

/* ---- routing words ----
 * Every message or completion for a context names it in a 64-bit word
 * (the AM handler id, or msg.imm of a module completion):
 *   bits  0-15  dispatch id / internal id / module sub-id
 *   bits 16-21  target context offset
 *   bits 22-27  origin context offset
 *   bits 28-29  client index
 *   bits 32-39  kind (enum pamil_kind), never 0: the word is >= 2^32 and so
 *               never one of the core's registered AM handlers (< 256)
 *   bit  40     the origin wants a remote-completion notice (PAMIL_K_SEND) */
enum pamil_kind {
    PAMIL_K_SEND = 1,     /* client dispatch (data inline or pulled) */
    PAMIL_K_LONGHDR = 2,  /* client dispatch, header too long for a slot */
    PAMIL_K_RACK = 3,     /* remote completion notice back to the origin */
    PAMIL_K_INTERNAL = 4, /* library-internal message (collectives) */
    PAMIL_K_MODULE = 5    /* completion from the NIC's PAMI module */
};
#define PAMIL_W_ACK (1ull << 40)

static inline uint64_t pamil_word(unsigned kind, unsigned client, unsigned tctx,
                                  unsigned octx, unsigned id)
{
    return ((uint64_t)kind << 32) | ((uint64_t)(client & 3) << 28) |
           ((uint64_t)(octx & 63) << 22) | ((uint64_t)(tctx & 63) << 16) | (id & 0xffffu);
}
static inline unsigned pamil_w_kind(uint64_t w) { return (unsigned)((w >> 32) & 0xff); }
static inline unsigned pamil_w_client(uint64_t w) { return (unsigned)((w >> 28) & 3); }
static inline unsigned pamil_w_tctx(uint64_t w) { return (unsigned)((w >> 16) & 63); }
static inline unsigned pamil_w_octx(uint64_t w) { return (unsigned)((w >> 22) & 63); }
static inline unsigned pamil_w_id(uint64_t w) { return (unsigned)(w & 0xffff); }

/* Endpoints: BG/Q's encoding. */
#define PAMIL_EP(task, off) (((pami_endpoint_t)(off) << 23) | (pami_endpoint_t)(task))
#define PAMIL_EP_TASK(ep) ((ep) & 0x7fffffu)
#define PAMIL_EP_OFF(ep) (((ep) >> 23) & 0x3fu)

struct pamil_context;
struct pamil_client;

/* ---- operations in flight ----
 * The cookie of every core command this library posts is a pamil_op; its
 * context says whose inbox the completion goes to. */
enum pamil_op_kind {
    PAMIL_O_SEND = 1, /* PAMI_Send: local (and maybe remote) completion */
    PAMIL_O_RECV,     /* async receive: pull of a long payload */
    PAMIL_O_RMA,      /* put/get/rput/rget (maybe several core commands) */
    PAMIL_O_RMW,
    PAMIL_O_FENCE,
    PAMIL_O_INTERNAL, /* internal send: local completion */
    PAMIL_O_PULL,     /* target: a long payload being pulled (send.c) */
    PAMIL_O_FREE      /* only frees its buffer (a temporary copy) */
};

/* What a pull (PAMIL_O_PULL) is for, i.e. what runs once the bytes are in. */
enum pamil_pull_stage {
    PAMIL_PULL_IMM = 1, /* immediate dispatch with the pulled bytes */
    PAMIL_PULL_RECV,    /* into the client's buffer: its local_fn next */
    PAMIL_PULL_TYPED,   /* into tmp, then transformed into the client's */
    PAMIL_PULL_LONGHDR, /* header and data into tmp, then dispatch */
    PAMIL_PULL_INTERNAL /* into tmp, then the internal handler */
};

#define PAMIL_OP_MAGIC 0x9a31c0deu

struct pamil_op {
    /* atomic, stored last by pamil_op_new: the thread that routes the op's
     * completion (any context's) reads ctx only after seeing it */
    _Atomic uint32_t magic;
    uint8_t kind;
    struct pamil_context *ctx;
    pami_event_function local_fn, remote_fn;
    void *cookie;
    uint32_t pend_local, pend_remote;
    int result;        /* first failure seen (pami_result_t) */
    void *tmp;         /* library buffer freed with the op */
    uint8_t unpulled;  /* counted in ctx->unpulled until freed */
    /* receive side */
    pami_recv_t recv;
    size_t bytes;
    uint32_t origin_task;
    unsigned origin_ctx, dispatch;
    uint8_t stage;       /* enum pamil_pull_stage */
    int ack;             /* send a remote-completion notice when done */
    uint64_t ack_cookie; /* the origin's op */
    /* rmw */
    void *fetch;
    size_t fetch_len;
    /* internal messages */
    unsigned internal_id;
    uint32_t hlen;
    uint8_t hdr[EMU_INLINE_MAX];
};

/* Completion bits (EMU_DONE_LOCAL / EMU_DONE_REMOTE) still expected: the
 * local (remote) callback runs when pend_local (pend_remote) drops to 0,
 * and the op is freed once both are 0. */
struct pamil_op *pamil_op_new(struct pamil_context *c, unsigned kind);
void pamil_op_free(struct pamil_op *op);
/* op's library buffer is the source of a message a peer still pulls: the
 * context may not go away before the op completes (a task that sends and
 * exits, as IBM's tests do, must not take the data with it). */
void pamil_op_pulled(struct pamil_op *op);
/* Events for op: flags say which completions (EMU_DONE_*) arrived, st is
 * an emu status, imm the NIC's word (RMW's old value) (context.c). */
void pamil_op_event(struct pamil_op *op, unsigned flags, unsigned st, uint64_t imm);

/* ---- contexts ---- */

struct pamil_work_item; /* lives inside the client's pami_work_t */

struct pamil_dispatch {
    pami_dispatch_p2p_function fn;
    void *cookie;
    pami_dispatch_hint_t hints;
    int set;
};

#define PAMIL_CTX_MAGIC 0xc0c7e47au

struct pamil_context {
    _Atomic uint32_t magic; /* 0 once destroyed; read by other threads */
    struct pamil_context *next_dead; /* the client's dead list */
    /* threads inside PAMI_Context_lock/trylock: a dead context is freed
     * only once none is (pamil_context_bury) */
    atomic_int lockers;
    struct pamil_client *client;
    unsigned offset;
    /* PAMI_Context_lock: not recursive; owner kept for clear errors */
    pthread_mutex_t lock;
    _Atomic(pthread_t) owner;
    atomic_int locked;
    /* entries the demultiplexer moved here, FIFO */
    pthread_mutex_t inbox_mu;
    struct emu_msg *inbox;
    size_t in_head, in_n, in_cap;
    atomic_size_t in_count; /* in_n, readable without the lock */
    /* sends whose data a peer has yet to pull out of a library buffer
     * (pamil_op_pulled): destroying the context waits for them */
    atomic_long unpulled;
    /* posted work (PAMI_Context_post), FIFO */
    pthread_mutex_t work_mu;
    struct pamil_work_item *work_head, *work_tail;
    atomic_int work_count;
    struct pamil_dispatch dispatch[PAMIL_DISPATCH_MAX];
    /* arrivals for dispatch ids not set yet, in order (send.c) */
    struct emu_msg *early;
    size_t nearly, early_cap;
    int in_callback;
    /* fences: tasks written to since the last fence */
    unsigned char *touched;
    uint32_t *touched_list;
    size_t ntouched;
    int fence_region;
    /* EXT_async_progress */
    struct pamil_async *async;
    /* collectives: owned by coll_*.c */
    void *coll;
    /* counters */
    _Atomic uint64_t events; /* callbacks and work run (read by the progress thread) */
    uint64_t advances, idle_sleeps;
    int64_t last_event_ns;
};

/* ---- clients ---- */

#define PAMIL_CLIENT_MAGIC 0xc11e47a1u

struct pamil_client {
    uint32_t magic;
    unsigned index;
    char name[64];
    uint32_t task, size;
    /* atomics: progress threads look contexts up while others are made
     * or destroyed */
    _Atomic size_t ncontexts;
    struct pamil_context *_Atomic ctx[PAMIL_MAX_CONTEXTS];
    int contexts_created;
    /* destroyed contexts, kept (lock and all) until the client goes: a
     * thread may still be blocked in PAMI_Context_lock on one (context.c) */
    struct pamil_context *dead;
    uint32_t space_key; /* this task's whole-address-space region */
    pami_geometry_t world;
    void *coll;         /* coll_*.c: client-wide collective state */
};

struct pamil_state {
    pthread_mutex_t mu;
    int emunic_refs;
    struct pamil_client *clients[PAMIL_MAX_CLIENTS];
    /* one thread at a time moves the rank's queue into inboxes */
    pthread_mutex_t demux_mu;
    int64_t idle_sleep_ns;
    int64_t poll_ns; /* how long an idle advance keeps polling before it sleeps */
};

extern struct pamil_state pamil;

/* One stderr line naming the call, then rc. */
pami_result_t pamil_fail(pami_result_t rc, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An integer setting from the environment: dflt when unset; a value
 * outside lo..hi (or not a number) says so on stderr and gives dflt. */
long pamil_env_long(const char *name, long lo, long hi, long dflt, const char *unit);
/* An event function from the caller's parameters. A pointer into the
 * first 64 KiB, below any mapping Linux allows, cannot be code: it is a
 * field the caller never set (IBM's test/api barrier() sends with a stack
 * pami_send_t whose remote_fn holds whatever the stack held). It is taken
 * as NULL, with one warning per task, instead of being called
 * when the completion comes. */
pami_event_function pamil_event_fn(const char *fn, const char *field, pami_event_function f);
/* Record an error for PAMI_Error_text without printing it (a probe that
 * callers expect to fail, such as an extension they may do without). */
void pamil_note(const char *fn, const char *what);
/* Map an emunic -errno from posting to a PAMI result (with a message). */
pami_result_t pamil_post_result(const char *fn, int rc);
/* Map a completion's emu status to a PAMI result. */
pami_result_t pamil_status_result(unsigned st);

/* Answer one attribute (client, context and dispatch attributes alike). */
pami_result_t pamil_attr_query(const char *fn, struct pamil_client *cl, pami_configuration_t *a);
/* The *_query calls: every attribute answered, PAMI_INVAL if any was not.
 * The *_update calls: nothing is writable. */
pami_result_t pamil_attr_query_all(const char *fn, struct pamil_client *cl, pami_configuration_t cfg[], size_t n);
pami_result_t pamil_attr_update_none(const char *fn, const pami_configuration_t cfg[], size_t n);

/* Handle lookups: NULL after a one-line message. */
struct pamil_client *pamil_client_of(const char *fn, pami_client_t c);
struct pamil_context *pamil_context_of(const char *fn, pami_context_t c);
/* Check an endpoint of c's client: task in range, offset < ncontexts.
 * Returns PAMI_SUCCESS or PAMI_INVAL (with a message). */
pami_result_t pamil_check_ep(const char *fn, struct pamil_context *c, pami_endpoint_t ep);

/* Key of task's whole address space (waits for it briefly if the task
 * has not published yet); 0 after a message if it never does. */
uint32_t pamil_space_key(const char *fn, uint32_t task);

/* Remember that c wrote to task (fence.c). */
void pamil_touch(struct pamil_context *c, uint32_t task);

/* Advance c once: run posted work, demultiplex the rank's queue, run the
 * callbacks of c's inbox. Returns how many events ran (context.c). */
size_t pamil_advance_once(struct pamil_context *c);
/* Whether c has anything to do (inbox, posted work, or the rank's queue). */
int pamil_has_work(struct pamil_context *c);
/* Move the rank's completion queue into the contexts' inboxes now. A
 * caller posting many commands calls it now and then: a queue nobody
 * empties stalls the NIC, and then the command queue behind it. */
void pamil_drain(struct pamil_context *self);
/* Put a synthesized entry into c's inbox (and wake its thread). */
void pamil_inbox_push(struct pamil_context *c, const struct emu_msg *m);

/* An asynchronous receive whose len bytes are in memory at src: into r's
 * buffer by its type and data function, then r's local_fn (send.c). */
void pamil_finish_recv(struct pamil_context *c, const pami_recv_t *r, const void *src, size_t len);

/* Dispatch of inbox entries by kind (send.c). */
void pamil_on_am(struct pamil_context *c, const struct emu_msg *am);

/* ---- internal messages (for collectives) ----
 * A handler registered for id runs inside the target context's advance
 * with the whole payload in memory (the library pulls long payloads first).
 * hdr <= PAMIL_INTERNAL_HDR_MAX bytes; any payload length. */
#define PAMIL_INTERNAL_HDR_MAX 64
typedef void (*pamil_internal_fn)(struct pamil_context *c, uint32_t origin_task,
                                  const void *hdr, size_t hlen,
                                  const void *data, size_t len);
void pamil_internal_register(unsigned id, pamil_internal_fn fn);
/* Run id's handler (send.c; also for messages a task sends itself). */
void pamil_internal_deliver(struct pamil_context *c, unsigned id, uint32_t origin,
                            const void *hdr, size_t hlen, const void *data, size_t len);
/* Send to the same client's context with c's offset on task dst. done (may
 * be NULL) runs in c's advance once data may be reused; with data of at
 * most EMU_INLINE_MAX - hlen bytes it is copied and done runs at
 * the next advance. */
pami_result_t pamil_internal_send(struct pamil_context *c, uint32_t dst, unsigned id,
                                  const void *hdr, size_t hlen, const void *data,
                                  size_t len, pami_event_function done, void *cookie);

/* Module completions (EMU_CQ_MODULE, routed by msg.imm's word) for the
 * collectives' NIC unit (coll_*.c provides it). */
void pamil_coll_on_module(struct pamil_context *c, const struct emu_msg *m);
/* Client-wide collective set-up and tear-down (world geometry etc.). */
pami_result_t pamil_coll_client_init(struct pamil_client *cl);
void pamil_coll_client_fini(struct pamil_client *cl);
/* Per-context collective state (after the client's contexts exist). */
pami_result_t pamil_coll_context_init(struct pamil_context *c);
void pamil_coll_context_fini(struct pamil_context *c);

/* ---- types (types.c) ---- */
struct pamil_type;
/* The type behind t, complete; NULL after a message. */
const struct pamil_type *pamil_type_of(const char *fn, pami_type_t t);
size_t pamil_type_size(const struct pamil_type *t);   /* data bytes per element */
size_t pamil_type_extent(const struct pamil_type *t);
int pamil_type_is_contig(const struct pamil_type *t); /* one run, size == extent */
/* Call fn(arg, buffer offset, length) for each contiguous run of the bytes
 * [offset, offset + bytes) of the data stream of a buffer laid out as
 * repetitions of t; stops at the first non-zero return and returns it. */
typedef int (*pamil_run_fn)(void *arg, size_t buf_off, size_t len);
int pamil_type_walk(const struct pamil_type *t, size_t offset, size_t bytes,
                    pamil_run_fn fn, void *arg);
/* Whether fn is PAMI_DATA_COPY (or NULL, which receives treat as a copy). */
int pamil_data_is_copy(pami_data_function fn);
/* Reductions. A reduction is a type made of one primitive (a predefined
 * type, or a user type of typed pieces) with a predefined data function
 * (PAMI_DATA_SUM ...). pamil_reduce: dst[i] = dst[i] op src[i] for count
 * elements of t, dst and src holding packed data; PAMI_INVAL (no message) if op is not a
 * reduction or not defined on t (bitwise ops on floats, MAXLOC on a
 * non-LOC type, ...). The emu mappings give the core's element type and op
 * for reductions the NIC's atomic arithmetic can execute (emu_atomic_apply),
 * or -1. */
pami_result_t pamil_reduce(pami_data_function op, const struct pamil_type *t,
                           void *dst, const void *src, size_t count);
int pamil_type_emu_dtype(const struct pamil_type *t);
int pamil_data_emu_aop(pami_data_function op);
/* RMW operand types (signed/unsigned int, long, long long): the emu dtype
 * (EMU_INT32 ... EMU_UINT64) or -1. */
int pamil_type_rmw_dtype(pami_type_t t);

/* PAMI_Client_destroy: free the client's destroyed contexts. */
void pamil_context_bury(struct pamil_client *cl);

/* ---- async progress (async.c) ---- */
/* PAMI_Context_destroyv: pause stops c's progress thread, keeping its
 * registration (1 if one was running); resume restarts a paused one (an
 * error if it cannot); stop also drops the registration. */
int pamil_async_pause(struct pamil_context *c);
pami_result_t pamil_async_resume(struct pamil_context *c);
void pamil_async_stop(struct pamil_context *c);
void *pamil_async_symbol(const char *name);
/* extension.c: the torus and test extensions' symbols */
void *pamil_torus_symbol(const char *name);
void *pamil_test_symbol(const char *name);
void *pamil_collsel_symbol(const char *name);

#endif
