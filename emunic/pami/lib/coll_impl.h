/* Geometries and collectives (coll_*.c), after [P7IH-COLL].
 *
 * coll_geom.c    geometries, algorithm lists and metadata, PAMI_Collective
 * coll_engine.c  the phase state machine: rounds of internal messages,
 *                shared-memory steps (counters polled from posted work),
 *                CAU steps (NIC module commands), unexpected arrivals
 * coll_algo.c    schedule builders: binomial, butterfly, Bruck, ring,
 *                pairwise, linear; shared-memory and CAU compositions
 *
 * Every collective instance is a schedule: an array of ops, each tagged
 * with a round. A round runs its local ops (copy, reduce, pack), posts its
 * sends, and completes when its sends are locally complete, its receives
 * have arrived and its shared-memory or CAU step has finished; completion
 * of a round starts the next one (the paper's phases and continuations).
 * Hybrid algorithms are schedules whose rounds come from different
 * components: shm reduce on the node, p2p or CAU among node leaders, shm
 * broadcast on the node. */
#ifndef EMUNIC_PAMI_COLL_IMPL_H
#define EMUNIC_PAMI_COLL_IMPL_H

#include "pami_lib.h"

#define CG_GEOM_MAGIC 0x6e0e7a11u
#define CG_ALG_MAGIC 0xa1602177u
#define CG_MSG_ID 0       /* internal message id: collective data */
#define CG_AM_ID 1        /* internal message id: active-message collectives */
#define CG_SHM_CHUNK 8192 /* shared-memory buffer per member (pipelined) */
#define CG_SHM_FANOUT 4   /* n-ary shm reduce tree */
#define CG_CAU_MAX 64     /* CAU payload limit */
#define CG_CAU_FANOUT 8
#define CG_CAU_SUBID 1

/* CAU commands (m->aop) */
enum {
    CAU_ALLREDUCE = PAMIX_CAU_FIRST, /* task -> own NIC: contribution */
    CAU_BCAST,                       /* task -> own NIC: join / root data */
    CAU_UP,                          /* NIC -> parent NIC: partial result */
    CAU_DOWN,                        /* NIC -> child NIC: final result */
    CAU_BFWD                         /* NIC -> neighbour NIC: broadcast data */
};
/* In every CAU message: m->key = client << 8 | context offset, m->ext =
 * geometry id << 32 | sequence, m->len = payload bytes (data[0..len)),
 * data[64..) = struct cau_tree for commands from a task. */
struct cau_tree {
    uint32_t parent;   /* rank of the parent node's leader, or UINT32_MAX */
    uint32_t nchild;
    uint32_t child[CG_CAU_FANOUT];
    uint32_t root;     /* broadcast: whether this task's node has the data */
};

struct cg_geom;
struct cg_coll;

/* An algorithm: one entry of the static table (coll_geom.c). */
typedef int (*cg_build_fn)(struct cg_coll *x);
struct cg_desc {
    pami_xfer_type_t xfer;
    const char *name;
    int list;      /* 0: always works; 1: must query */
    unsigned need; /* CG_NEED_* */
    cg_build_fn build;
};
#define CG_NEED_ONENODE 1u /* every member on one node */
#define CG_NEED_CAU 2u     /* <= 64 bytes, CAU op and type */
#define CG_NEED_SMALL 4u   /* <= 64 bytes */

struct cg_alg {
    uint32_t magic;
    struct cg_geom *g;
    const struct cg_desc *d;
};

struct cg_geom {
    uint32_t magic;
    struct pamil_client *cl;
    unsigned id;
    uint32_t n;         /* members */
    uint32_t *tasks;    /* geometry rank -> task */
    int me;             /* my geometry rank */
    /* topology: nodes in order of first appearance */
    uint32_t nleaders;
    uint32_t *leaders;  /* geometry ranks of each node's first member */
    uint32_t *node_idx; /* geometry rank -> index into leaders */
    uint32_t nlocal;
    uint32_t *local;    /* geometry ranks on my node, ascending */
    int lme;            /* my index in local */
    /* shared memory: the leader's region */
    void *shm_own;      /* leader: emunic_malloc'd */
    char *shm;          /* everyone's mapping */
    uint64_t shm_raddr; /* leader's address (received) */
    int shm_setup;      /* the attach round has been scheduled */
    uint64_t shm_seq;   /* shm reduce instances so far */
    uint64_t shm_bseq;  /* shm broadcast instances so far */
    /* sequencing: collectives on a geometry run one after the other */
    uint32_t seq;
    struct cg_coll *q_head, *q_tail;
    int destroying;
    struct cg_alg *algs;
    size_t nalgs;
    /* active-message collective dispatch (coll_am.c), under pamil.mu */
    struct cg_amd *amd;
    size_t namd;
    struct cg_geom *next;
};

/* one op of a schedule */
enum cg_opk {
    OP_SEND = 1, OP_RECV, OP_COPY, OP_REDUCE, OP_PACK, OP_UNPACK,
    OP_ATTACH, OP_SHM_REDUCE, OP_SHM_BCAST, OP_CAU_ALLREDUCE, OP_CAU_BCAST
};
struct cg_op {
    struct cg_coll *x;
    uint8_t kind;
    uint8_t done;
    uint32_t round;
    uint32_t peer;    /* geometry rank (send/recv), root local idx (shm bcast) */
    void *dst;
    const void *src;
    size_t len;       /* bytes */
    size_t count;     /* reduce: elements */
    const struct pamil_type *type; /* pack/unpack/reduce */
    uint64_t inst;    /* shm: first instance number */
    size_t nchunk, chunk_i;
    int state;
};

struct cg_coll {
    struct pamil_context *c;
    struct cg_geom *g;
    const struct cg_desc *d;
    pami_xfer_t xfer;
    uint32_t seq;
    struct cg_op *ops;
    size_t nops, cap;
    uint32_t round, nrounds;
    size_t pending; /* unfinished ops of the current round */
    int started, finished;
    pami_result_t result;
    void **tmps;    /* freed at the end */
    size_t ntmps;
    /* reduction of this instance */
    pami_data_function op;
    const struct pamil_type *rt;
    int polling;    /* has shm ops in the current round */
    /* internal completions (geometry create/destroy) */
    void (*internal_done)(struct cg_coll *x);
    pami_event_function user_fn;
    void *user_cookie;
    void *arg;
    struct cg_coll *qnext;   /* geometry FIFO */
    struct cg_coll *anext;   /* context's active list */
    struct cg_coll *snext;   /* context's list of instances to start */
};

/* per-context state */
struct cg_umsg {
    unsigned gid;
    uint32_t seq, round, src;
    size_t len;
    struct cg_umsg *next;
    unsigned char data[];
};
struct cg_ctx {
    struct cg_coll *active;
    /* instances to start at the next advance: PAMI_Collective only
     * queues, so that every callback runs inside an advance */
    struct cg_coll *start_head, *start_tail;
    struct cg_umsg *unexp, *unexp_tail;
    pami_work_t work;
    int work_posted;
    int npolling;
};

/* per-client state */
struct cg_client {
    struct cg_geom *geoms;
    /* shared areas of geometries destroyed without an agreement round:
     * a slower member may still read them, so they live until the client */
    struct cg_grave *grave;
    size_t ngrave;
};
struct cg_grave {
    void *shm;
    uint32_t nlocal;
    uint64_t bseq; /* broadcasts the members must have read */
};

/* coll_geom.c */
struct cg_geom *cg_geom_find(struct pamil_client *cl, unsigned id);

/* coll_am.c: active-message collectives (their descs have no builder) */
int cg_is_am(pami_xfer_type_t k);
void cg_am_register(void);
pami_result_t cg_am_set(struct cg_geom *g, struct pamil_context *c, pami_xfer_type_t kind, size_t id,
                        pami_dispatch_callback_function fn, void *cookie);
pami_result_t cg_am_start(struct pamil_context *c, struct cg_geom *g, pami_xfer_type_t kind, const pami_xfer_t *x);
void cg_am_geom_free(struct cg_geom *g);

/* coll_engine.c */
void cg_engine_register(void);
struct cg_op *cg_add(struct cg_coll *x, unsigned kind, uint32_t round);
void *cg_tmp(struct cg_coll *x, size_t len);
/* Queue x on its geometry; starts it when it is first in line. */
void cg_submit(struct cg_coll *x);
void cg_ctx_fini(struct pamil_context *c);
void cg_on_module(struct pamil_context *c, const struct emu_msg *m);
/* shm region size for n local members */
size_t cg_shm_size(uint32_t nlocal);
void cg_shm_quiesce(char *shm, uint32_t nlocal, uint64_t bseq);

/* coll_algo.c: builders (return 0 or a pami_result_t) */
/* A group: a list of geometry ranks; me = my index or -1. */
struct cg_group {
    uint32_t n;
    const uint32_t *r;
    int me;
};
uint32_t cg_add_barrier_dissem(struct cg_coll *x, uint32_t round, const struct cg_group *gr);
uint32_t cg_add_bcast_binomial(struct cg_coll *x, uint32_t round, const struct cg_group *gr,
                               uint32_t root, void *buf, size_t len);
uint32_t cg_add_reduce_binomial(struct cg_coll *x, uint32_t round, const struct cg_group *gr,
                                uint32_t root, void *acc, size_t count, size_t bytes);
uint32_t cg_add_allreduce_rd(struct cg_coll *x, uint32_t round, const struct cg_group *gr,
                             void *acc, size_t count, size_t bytes);
extern const struct cg_desc cg_descs[];
extern const size_t cg_ndescs;
int cg_cau_ok(pami_data_function op, const struct pamil_type *t, size_t bytes);

#endif
