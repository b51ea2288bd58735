/* State and helpers shared by the DCMF rank half's files (not installed).
 * messager.c: init, configuration, critical section, hardware, time;
 * advance.c: completions, dispatch, FIFO accounting, interrupt thread;
 * onesided.c: memory regions, Put, Get, Restart; send.c: Send, Control;
 * collectives.c: global and geometry collectives; mcast.c, m2m.c: the
 * multisend calls (multicast, many-to-many). */
#ifndef EMUNIC_DCMF_LIB_H
#define EMUNIC_DCMF_LIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <dcmf.h>
#include <dcmf_multisend.h>

#include "emunic/emunic.h"

#define DCMFL_MAX_PROTOCOLS 256 /* per kind */
#define DCMFL_MAX_QUADS 7

/* Handler ids (emu AM imm) say what an arriving AM is for. */
enum dcmfl_am_kind {
    DCMFL_AM_SEND = 1,    /* imm low 16 bits: send protocol number */
    DCMFL_AM_CONTROL = 2, /* control protocol number */
    DCMFL_AM_INTERNAL = 3, /* library-internal send protocol (collectives) */
    DCMFL_AM_MCAST = 4,    /* multicast protocol number */
    DCMFL_AM_M2M = 5       /* many-to-many protocol number */
};
#define DCMFL_AM_ID(kind, n) (((uint64_t)(kind) << 16) | (uint64_t)(n))

/* Internal protocol numbers (fixed, the same on every rank). */
enum { DCMFL_INTERNAL_MAX = 16 };

enum dcmfl_proto_kind {
    DCMFL_P_SEND = 1,
    DCMFL_P_CONTROL,
    DCMFL_P_PUT,
    DCMFL_P_GET,
    DCMFL_P_GBARRIER,
    DCMFL_P_GBCAST,
    DCMFL_P_GALLREDUCE,
    DCMFL_P_MCAST,
    DCMFL_P_M2M,
};

#define DCMFL_PROTO_MAGIC 0xdc3f9071u

/* Lives inside the client's DCMF_Protocol_t. */
struct dcmfl_proto {
    uint32_t magic;
    uint32_t kind;
    uint32_t id;    /* registration number within its kind */
    uint32_t algo;  /* the configuration's protocol enum */
    uint32_t space; /* the DCMFL_AM_* space of protocols that send */
    DCMF_Send_Configuration_t send; /* multisend: the library's own callbacks */
    DCMF_Control_Configuration_t ctl;
    DCMF_Multicast_Configuration_t mcast;
    DCMF_Manytomany_Configuration_t m2m;
    void *state; /* many-to-many: the receive side's open operations */
};
_Static_assert(sizeof(struct dcmfl_proto) <= sizeof(DCMF_Protocol_t), "protocol storage");

enum dcmfl_req_kind { DCMFL_R_PUT = 1, DCMFL_R_GET, DCMFL_R_SEND, DCMFL_R_RECV };

#define DCMFL_REQ_MAGIC 0x7e9a11d5u

/* Lives inside the client's DCMF_Request_t: everything needed to run the
 * callbacks and to post the same operation again (DCMF_Restart). */
struct dcmfl_req {
    uint32_t magic;
    uint8_t kind;
    uint8_t consistency;
    uint8_t count;   /* msginfo quads */
    uint8_t pending; /* EMU_DONE_* callbacks the client still expects */
    uint8_t pad_[2]; /* (whether it is in use is dcmfl_busy_*'s record) */
    uint32_t rank;
    uint32_t key;    /* remote region key (put, get) */
    uint64_t bytes;
    uint64_t laddr;  /* local address (source of put/send, sink of get) */
    uint64_t raddr;
    struct dcmfl_proto *proto;
    DCMF_Callback_t done, ack;
    DCQuad msginfo[DCMFL_MAX_QUADS];
};
_Static_assert(sizeof(struct dcmfl_req) <= sizeof(DCMF_Request_t), "request storage");

#define DCMFL_MR_MAGIC 0x3e6105a7u

/* Lives inside DCMF_Memregion_t and is copied to peers by value. */
struct dcmfl_mr {
    uint32_t magic;
    uint32_t rank;
    uint32_t key;
    uint32_t pad_;
    uint64_t base;
    uint64_t bytes;
};
_Static_assert(sizeof(struct dcmfl_mr) <= sizeof(DCMF_Memregion_t), "memregion storage");

struct dcmfl_state {
    int refs;
    uint32_t rank, size;
    DCMF_Configure_t cfg;
    pthread_mutex_t cs; /* the critical section (recursive) */
    /* registered protocols by number, per kind */
    struct dcmfl_proto *send[DCMFL_MAX_PROTOCOLS];
    unsigned nsend;
    struct dcmfl_proto *ctl[DCMFL_MAX_PROTOCOLS];
    unsigned nctl;
    struct dcmfl_proto *internal[DCMFL_INTERNAL_MAX];
    struct dcmfl_proto *mcast[DCMFL_MAX_PROTOCOLS];
    unsigned nmcast;
    struct dcmfl_proto *m2m[DCMFL_MAX_PROTOCOLS];
    unsigned nm2m;
    unsigned nput, nget;
    /* injection FIFO: descriptors posted and not yet read by the NIC */
    unsigned fifo_depth, fifo_used;
    uint64_t fifo_stalls;
    unsigned dispatch_depth; /* > 0 while callbacks run */
    int64_t idle_sleep_ns;
    DCMF_GlobalError on_error;
    /* interrupt mode */
    pthread_t irq;
    atomic_int irq_stop;
    int irq_running;
    atomic_uint_fast64_t irq_wakeups;
};

extern struct dcmfl_state dcmfl;

/* One stderr line naming the call, then the result to return. */
DCMF_Result dcmfl_fail(DCMF_Result rc, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* DCMF_ERROR (with a message) unless the messager is initialised. */
DCMF_Result dcmfl_need_init(const char *fn);
DCMF_Result dcmfl_check_consistency(const char *fn, DCMF_Consistency c);
DCMF_Result dcmfl_check_rank(const char *fn, size_t rank);
/* Any DCMF_Network but the socket one (DCMF_UNIMPL) is fine. */
DCMF_Result dcmfl_check_network(const char *fn, DCMF_Network net);
/* The protocol object behind a registration, or NULL after a message. */
struct dcmfl_proto *dcmfl_proto_of(const char *fn, DCMF_Protocol_t *p, enum dcmfl_proto_kind kind);

void dcmfl_lock(void);
void dcmfl_unlock(void);

/* Take an injection FIFO slot for r's operation, advancing while the FIFO
 * is full. From inside a callback it does not stall (that could recurse
 * without bound): the count then goes over the depth for a while. Returns
 * the cookie to post with (the slot's descriptor, which outlives the
 * client's request: the client may reuse a request after its last
 * callback, the slot frees only when the NIC is done), or 0 when out of
 * memory (fifo.c). */
uint64_t dcmfl_fifo_take(struct dcmfl_req *r);
/* Give the slot back for an operation the NIC refused. */
void dcmfl_fifo_undo(struct dcmfl_req *r, uint64_t cookie);
/* A completion whose cookie is a slot descriptor: runs the request's
 * callbacks; returns 0 if the cookie is not a descriptor (fifo.c). */
int dcmfl_fifo_done(const struct emu_msg *c);
void dcmfl_fifo_fini(void);

/* Request storage in use by operations that have not completed (busy.c):
 * [p, p+len) from the post until just before the last callback. The
 * record is the library's; the storage's contents are never trusted. */
int dcmfl_busy_add(const void *p, size_t len); /* -1: out of memory */
void dcmfl_busy_del(const void *p);
int dcmfl_busy_has(const void *p);             /* exactly p is in use */
int dcmfl_busy_overlaps(const void *p, size_t len);
void dcmfl_busy_clear(void);
/* DCMF_INVAL with "the request is still in use..." if [p, p+len)
 * overlaps storage in use, else DCMF_SUCCESS. */
DCMF_Result dcmfl_check_free(const char *fn, const void *p, size_t len);

/* Map an emunic -errno from posting to a DCMF result. */
DCMF_Result dcmfl_post_result(const char *fn, int rc);

/* Dispatch of arrivals and completions (advance.c). */
unsigned dcmfl_advance_locked(void);
void dcmfl_on_send(const struct emu_msg *am);    /* send.c */
void dcmfl_on_control(const struct emu_msg *am); /* send.c */
/* Arrivals for protocol numbers not registered yet wait (a fast peer may
 * send before this rank registers): dispatch those now registered, in
 * arrival order; returns how many (send.c). */
unsigned dcmfl_held_dispatch(void);
/* At finalize: release every held or still queued arrival, so that no
 * sender waits forever for a long payload to be taken (send.c). */
void dcmfl_release_arrivals(void);
void dcmfl_recv_done(struct dcmfl_req *r, int status); /* send.c */
/* Start the long receives waiting for their request storage to be free
 * again; returns how many started (send.c). */
unsigned dcmfl_waiting_dispatch(void);
/* Post a prepared request (first time or restart). */
DCMF_Result dcmfl_post_onesided(const char *fn, struct dcmfl_req *r); /* onesided.c */
DCMF_Result dcmfl_post_send(const char *fn, struct dcmfl_req *r);     /* send.c */

/* Library-internal send protocols (collectives): registered at a fixed
 * number in their own space, so they need no agreement on order with the
 * client's registrations; then used with DCMF_Send like any other. */
DCMF_Result dcmfl_internal_register(DCMF_Protocol_t *registration,
                                    DCMF_Send_Configuration_t *cfg, unsigned id);
/* Register registration as protocol id of AM space (DCMFL_AM_*): its
 * arrivals reach cfg's callbacks, and dcmfl_post_send sends on it. The
 * caller then sets the kind and its own fields. */
DCMF_Result dcmfl_space_register(const char *fn, DCMF_Protocol_t *registration,
                                 DCMF_Send_Configuration_t *cfg, uint32_t space, unsigned id);

/* A callback to run in the next DCMF_Messager_advance, for an operation
 * that completes inside its own call (DCMF calls back only from advance),
 * with err (DCMF_SUCCESS: no error); req (may be NULL) stays in use until
 * then (advance.c). */
void dcmfl_later(DCMF_Callback_t cb, const void *req, DCMF_Result err);
void dcmfl_later_fini(void);
/* The many-to-many receive side's state, at finalize (m2m.c). */
void dcmfl_m2m_fini(void);

void dcmfl_irq_start(void);
void dcmfl_irq_stop(void);
/* Registers the collectives' internal protocol (messager.c calls it
 * while initialising, so that no early collective message is dropped). */
void dcmfl_collectives_init(void);
void dcmfl_collectives_fini(void);

#endif
