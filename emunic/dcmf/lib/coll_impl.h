/* What the collective files share (not installed).
 * coll_engine.c: the internal send protocol, message headers, the active
 *   and unexpected lists, deferred completions;
 * coll_algo.c: the per-instance state machines (dissemination barrier,
 *   pipelined binomial broadcast, pipelined binomial reduce);
 * coll_ops.c: datatypes and reduction operators;
 * collectives.c: the Global* calls; coll_geometry.c: geometries and the
 *   geometry collectives.
 *
 * Every collective is an instance started by a public call and advanced
 * only by message arrivals and send completions inside
 * DCMF_Messager_advance. Instances are matched to messages by (scope,
 * geometry id, kind, sequence number); each member numbers the instances
 * of one kind on one group identically, so no agreement is needed. */
#ifndef EMUNIC_DCMF_COLL_IMPL_H
#define EMUNIC_DCMF_COLL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <dcmf_collectives.h>
#include <dcmf_globalcollectives.h>

#include "dcmf_lib.h"

/* Pipeline unit: broadcast and reduce move data in chunks this large so
 * that a tree's inner ranks forward while the rest is still arriving. */
#define COLL_CHUNK (32u * 1024)
/* Sends in flight per instance (a broadcast step to all children is never
 * split, so an inner rank may exceed this by its child count). */
#define COLL_WINDOW 16u
/* Our number in the library's internal send protocol space. */
#define COLL_PROTO_ID 0u

enum coll_kind { CK_BARRIER, CK_BCAST, CK_ALLREDUCE, CK_NKINDS };
enum coll_mtype { MT_BARRIER = 1, MT_DOWN, MT_UP, MT_KICK };

/* A set of ranks a collective runs over: the job (Global* calls) or a
 * geometry. Freed when the geometry is freed and no instance uses it. */
struct coll_group {
    struct coll_group *next; /* live geometries */
    unsigned refs;
    uint32_t global; /* the job-wide group of the Global* calls */
    uint32_t id;
    uint32_t n, me;       /* size, caller's member index */
    uint32_t *ranks;      /* member -> rank; NULL: identity */
    uint32_t seq[CK_NKINDS];
    uint32_t globalflag;  /* geometry spans the job */
    uint32_t node_local;  /* every member is on the caller's node */
    unsigned nbar, nlbar;
    DCMF_CollectiveProtocol_t **bar, **lbar;
};

/* Parsed message header. */
struct coll_hdr {
    uint32_t mtype, kind, global, id, seq;
    uint32_t index;  /* barrier round or chunk number */
    uint32_t sender; /* member index of the sender */
};

/* What lives in the caller's request storage (DCMF_Request_t or
 * DCMF_CollectiveRequest_t): a mark and the instance, for debugging only.
 * The instance itself is malloc'd (DCMF_Barrier has no request at all),
 * and whether a request is in use is decided by the live lists, never by
 * its contents, which may be stale stack memory. */
#define COLL_REQ_MAGIC 0x5ca1ab1eu
struct coll_reqobj {
    uint32_t magic, pad_;
    struct coll_inst *in;
};

struct coll_inst {
    struct coll_inst *next; /* active list */
    struct coll_group *g;
    uint32_t kind, seq;
    DCMF_Consistency cons;
    DCMF_Callback_t cb;
    struct coll_reqobj *req;
    size_t req_len; /* of the storage req points into */
    DCMF_Result err;
    unsigned inflight; /* sends not locally complete */
    /* trees: positions relative to the root member */
    uint32_t root, rel, nchild;
    /* barrier */
    uint32_t rounds, round, sent;
    uint64_t got;
    /* data: chunks of `chunk` bytes (the last may be shorter) */
    size_t bytes, chunk;
    uint32_t nchunks;
    /* down phase (broadcast, allreduce result): chunks land in buf */
    int down;
    char *buf;
    uint8_t *have;
    uint32_t nhave, fwd;
    /* up phase (reduce): children's chunks are combined into acc */
    int up;
    const char *sbuf;
    char *rbuf; /* root's result (NULL elsewhere for a reduce) */
    char *acc;  /* NULL on leaves, which send sbuf itself */
    DCMF_Dt dt;
    DCMF_Op op;
    size_t esz;
    void **parts;    /* [chunk][child] buffers not yet combined */
    uint8_t *nparts; /* per chunk */
    uint32_t red, upsent;
};

/* coll_engine.c */
extern struct coll_group coll_global;
/* Register the internal protocol and set up the job-wide group, once per
 * messager initialisation. Call under the lock. */
DCMF_Result coll_ensure(const char *fn);
/* Around every public call's body (under the lock): the library does not
 * dispatch from inside it, and instances finishing there complete through
 * a message to self, so callbacks always run inside advance. */
void coll_enter(void);
void coll_leave(void);
/* DCMF_INVAL (with a message) if the request is NULL or [req, req+len)
 * is still in use (dcmfl_busy_*). */
DCMF_Result coll_check_request(const char *fn, void *req, size_t len);
/* req (NULL: none) and the length of its storage; coll_launch records it
 * in use until just before the callback. */
struct coll_inst *coll_inst_new(struct coll_group *g, enum coll_kind kind, DCMF_Callback_t cb,
                                DCMF_Consistency cons, void *req, size_t req_len);
/* Number the instance, make it matchable, feed it what arrived early. */
void coll_start(struct coll_inst *in);
/* A send of the instance's (or, with in NULL, a kick to self). */
void coll_send(struct coll_inst *in, uint32_t member, enum coll_mtype t, uint32_t index,
               const char *data, size_t len);
/* Remove, release and run (or defer) the completion callback. */
void coll_finish(struct coll_inst *in);
void coll_inst_free(struct coll_inst *in);
void coll_group_put(struct coll_group *g);
uint32_t coll_rank_of(const struct coll_group *g, uint32_t member);
void coll_engine_fini(void);

/* coll_algo.c */
DCMF_Result coll_setup_barrier(struct coll_inst *in);
DCMF_Result coll_setup_bcast(struct coll_inst *in, uint32_t root, char *buf, size_t bytes);
/* down: every member gets the result (allreduce), else only root's rbuf. */
DCMF_Result coll_setup_reduce(struct coll_inst *in, uint32_t root, const char *sbuf, char *rbuf,
                              size_t count, DCMF_Dt dt, DCMF_Op op, int down);
/* Where a chunk arriving for a running instance may be received in
 * place (NULL: receive into a temporary buffer). */
char *coll_direct_buffer(struct coll_inst *in, const struct coll_hdr *h, size_t len);
/* Take an arrival; owned (if not NULL) is a malloc'd buffer holding data
 * that the instance now owns. Does not advance the instance. */
void coll_deliver(struct coll_inst *in, const struct coll_hdr *h, const char *data, size_t len,
                  char *owned);
/* Do everything now possible; may finish (and free) the instance. */
void coll_progress(struct coll_inst *in);

/* coll_ops.c */
/* DCMF_SUCCESS, DCMF_INVAL or DCMF_UNIMPL (with a message). */
DCMF_Result coll_check_op(const char *fn, DCMF_Op op, DCMF_Dt dt);
size_t coll_dt_size(DCMF_Dt dt);
/* acc[i] = acc[i] op in[i] for n elements (a valid pair only). */
void coll_apply(DCMF_Op op, DCMF_Dt dt, void *acc, const void *in, size_t n);

/* coll_geometry.c */
void coll_geometry_fini(void);

/* The end of a public collective call: leave the engine and the lock. */
DCMF_Result coll_end(DCMF_Result rc);
/* Start a set-up instance, or release it if its set-up failed. */
DCMF_Result coll_launch(const char *fn, struct coll_inst *in, DCMF_Result setup);

/* The checks every collective *_register makes (messager up, arguments
 * there, algo < nalgos), then the lock and the engine; on DCMF_SUCCESS the
 * caller holds the lock and fills the registration. */
DCMF_Result coll_register_begin(const char *fn, const void *registration, int have_cfg,
                                unsigned algo, unsigned nalgos);

#endif
