/* emunic PAMI: public interface of the emulated IBM PAMI messaging layer.
 *
 * Written for emunic from the API facts (names, signatures, numeric values
 * and field order of the real interface, 2012 BG/Q release). Programs
 * written against IBM's header should compile against this one unchanged.
 * Layout of caller-visible structs follows the real interface because
 * clients initialise them positionally and by designated initialisers. */
#ifndef EMUNIC_PAMI_H
#define EMUNIC_PAMI_H

#include <stdlib.h>
#include <stdint.h>
#include <sys/uio.h>

#include "pami_sys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Basic handles, results and "null" objects
 * ------------------------------------------------------------------------ */

/* marker buffer address: "send buffer is the receive buffer" */
#define PAMI_IN_PLACE ((void *)-1L)

typedef enum {
    PAMI_SUCCESS = 0,
    PAMI_NERROR = -1,
    PAMI_ERROR = 1,
    PAMI_INVAL,        /* 2 */
    PAMI_UNIMPL,       /* 3 */
    PAMI_EAGAIN,       /* 4 */
    PAMI_ENOMEM,       /* 5 */
    PAMI_SHUTDOWN,     /* 6 */
    PAMI_CHECK_ERRNO,  /* 7 */
    PAMI_OTHER,        /* 8 */
    PAMI_RESULT_EXT = 1000
} pami_result_t;

typedef void *pami_client_t;
typedef void *pami_context_t;
typedef void *pami_type_t;
typedef uint32_t pami_task_t;
typedef uint32_t pami_endpoint_t;
typedef void *pami_geometry_t;
typedef size_t pami_algorithm_t;

/* Values meaning "not initialised"; defined by the library so that clients
 * can assign and compare them. */
extern pami_client_t PAMI_CLIENT_NULL;
extern pami_type_t PAMI_TYPE_NULL;
extern pami_context_t PAMI_CONTEXT_NULL;
extern pami_geometry_t PAMI_GEOMETRY_NULL;
extern pami_algorithm_t PAMI_ALGORITHM_NULL;
extern pami_endpoint_t PAMI_ENDPOINT_NULL;
/* context offset selecting every context of a task (geometry create) */
extern size_t PAMI_ALL_CONTEXTS;

/* ------------------------------------------------------------------------
 * Callback signatures and posted work
 * ------------------------------------------------------------------------ */

/* Completion/event notification, always run from inside an advance of
 * `context` (which is then already held by the caller of advance). */
typedef void (*pami_event_function)(pami_context_t context, void *cookie,
                                    pami_result_t result);

/* Produces or consumes `bytes` of contiguous data; also how reductions are
 * expressed (target op= source). */
typedef void (*pami_data_function)(void *target, void *source, size_t bytes,
                                   void *cookie);

/* Posted work: returning PAMI_EAGAIN keeps it queued for the next advance. */
typedef pami_result_t (*pami_work_function)(pami_context_t context,
                                            void *cookie);

/* Caller-owned storage for one posted work item. */
typedef uintptr_t pami_work_t[PAMI_WORK_SIZE_STATIC / sizeof(uintptr_t)];

/* ------------------------------------------------------------------------
 * Configuration attributes (query/update of client, context, dispatch,
 * geometry and type)
 * ------------------------------------------------------------------------ */

typedef char *pami_user_key_t;
typedef char *pami_user_value_t;

typedef struct {
    pami_user_key_t key;
    pami_user_value_t value;
} pami_user_config_t;

typedef enum {
    /* client */
    PAMI_CLIENT_CLOCK_MHZ = 100,
    PAMI_CLIENT_CONST_CONTEXTS,      /* 101 */
    PAMI_CLIENT_HWTHREADS_AVAILABLE, /* 102 */
    PAMI_CLIENT_MEMREGION_SIZE,      /* 103 */
    PAMI_CLIENT_MEM_SIZE,            /* 104 */
    PAMI_CLIENT_NUM_TASKS,           /* 105 */
    PAMI_CLIENT_NUM_LOCAL_TASKS,     /* 106 */
    PAMI_CLIENT_LOCAL_TASKS,         /* 107, value.intarray */
    PAMI_CLIENT_NUM_CONTEXTS,        /* 108 */
    PAMI_CLIENT_PROCESSOR_NAME,      /* 109, value.chararray */
    PAMI_CLIENT_TASK_ID,             /* 110 */
    PAMI_CLIENT_WTIMEBASE_MHZ,       /* 111 */
    PAMI_CLIENT_WTICK,               /* 112, value.doubleval */
    PAMI_CLIENT_NONCONTIG,           /* 113 */
    PAMI_CLIENT_MEMORY_OPTIMIZE,     /* 114 */
    /* context */
    PAMI_CONTEXT_DISPATCH_ID_MAX = 200,
    /* dispatch */
    PAMI_DISPATCH_RECV_IMMEDIATE_MAX = 300,
    PAMI_DISPATCH_SEND_IMMEDIATE_MAX, /* 301 */
    PAMI_DISPATCH_ATOM_SIZE_MAX,      /* 302 */
    /* geometry */
    PAMI_GEOMETRY_OPTIMIZE = 400,
    PAMI_GEOMETRY_NONCONTIG,          /* 401 */
    PAMI_GEOMETRY_MEMORY_OPTIMIZE,    /* 402 */
    /* type */
    PAMI_TYPE_DATA_SIZE = 500,
    PAMI_TYPE_DATA_EXTENT,            /* 501 */
    PAMI_TYPE_ATOM_SIZE,              /* 502 */
    PAMI_ATTRIBUTE_NAME_EXT = 1000
} pami_attribute_name_t;

typedef union {
    size_t intval;
    double doubleval;
    const char *chararray;
    const size_t *intarray;
} pami_attribute_value_t;

typedef struct {
    pami_attribute_name_t name;
    pami_attribute_value_t value;
} pami_configuration_t;

/* ------------------------------------------------------------------------
 * Collective algorithm metadata
 * ------------------------------------------------------------------------ */

/* Reasons a "must query" algorithm rejects a call site; 0 = usable. */
typedef union metadata_result_t {
    unsigned bitmask;
    struct {
        unsigned unspecified : 1;
        unsigned range : 1;
        unsigned align_send_buffer : 1;
        unsigned align_recv_buffer : 1;
        unsigned datatype_op : 1;
        unsigned contiguous_send : 1;
        unsigned contiguous_recv : 1;
        unsigned continuous_send : 1;
        unsigned continuous_recv : 1;
        unsigned nonlocal : 1;  /* result must be agreed across tasks */
    } check;
} metadata_result_t;

struct pami_xfer_t;
typedef struct pami_xfer_t *xfer_p;

typedef metadata_result_t (*pami_metadata_function)(struct pami_xfer_t *in);

typedef struct {
    char *name;                      /* clients print and match on this */
    unsigned version;
    pami_metadata_function check_fn; /* may be NULL */
    size_t range_lo;
    size_t range_hi;
    unsigned send_min_align;
    unsigned recv_min_align;
    union {
        unsigned bitmask_correct;
        struct {
            unsigned checkrequired : 1;
            unsigned nonlocal : 1;
            unsigned rangeminmax : 1;
            unsigned sendminalign : 1;
            unsigned recvminalign : 1;
            unsigned alldtop : 1;
            unsigned contigsflags : 1;
            unsigned contigrflags : 1;
            unsigned continsflags : 1;
            unsigned continrflags : 1;
            unsigned blocking : 1;
            unsigned inplace : 1;
            unsigned asyncflowctl : 1;
            unsigned oneatatime : 1;
            unsigned global_order : 4;
        } values;
    } check_correct;
    union {
        unsigned bitmask_perf;
        struct {
            unsigned hw_accel : 1;
        } values;
    } check_perf;
    size_t range_lo_perf;
    size_t range_hi_perf;
    unsigned min_align_perf;
} pami_metadata_t;

/* ------------------------------------------------------------------------
 * Hints (every hint field is 2 bits and takes a pami_hint_t value)
 * ------------------------------------------------------------------------ */

typedef enum {
    PAMI_HINT_DEFAULT = 0,
    PAMI_HINT_ENABLE = 1,
    PAMI_HINT_DISABLE = 2,
    PAMI_HINT_INVALID = 3
} pami_hint_t;

/* "hard" hints fixed when a dispatch id is registered */
typedef struct {
    unsigned multicontext : 2;
    unsigned long_header : 2;
    unsigned recv_contiguous : 2;
    unsigned recv_copy : 2;
    unsigned recv_immediate : 2;
    unsigned consistency : 2;
    unsigned buffer_registered : 2;
    unsigned remote_async_progress : 2;
    unsigned use_rdma : 2;
    unsigned use_shmem : 2;
    unsigned queue_immediate : 2;
} pami_dispatch_hint_t;

/* "soft" per-operation hints; the leading reserved bits keep the shared
 * fields at the same bit positions as in the dispatch hints */
typedef struct {
    unsigned reserved0 : 12;
    unsigned buffer_registered : 2;
    unsigned remote_async_progress : 2;
    unsigned use_rdma : 2;
    unsigned use_shmem : 2;
    unsigned reserved1 : 2;
} pami_send_hint_t;

typedef struct {
    unsigned multicontext : 2;
    unsigned reserved0 : 20;
} pami_collective_hint_t;

/* ------------------------------------------------------------------------
 * Active messages: send side
 * ------------------------------------------------------------------------ */

typedef struct {
    struct iovec header;
    struct iovec data;
    size_t dispatch;
    pami_send_hint_t hints;
    pami_endpoint_t dest;
} pami_send_immediate_t;

typedef struct {
    void *cookie;                  /* passed to both callbacks */
    pami_event_function local_fn;  /* buffers reusable */
    pami_event_function remote_fn; /* receiver has all the data */
} pami_send_event_t;

typedef struct {
    pami_send_immediate_t send;
    pami_send_event_t events;
} pami_send_t;

typedef struct {
    pami_send_immediate_t send;
    pami_send_event_t events;
    struct {
        pami_type_t type;
        size_t offset;
        pami_data_function data_fn;
        void *data_cookie;
    } typed;
} pami_send_typed_t;

pami_result_t PAMI_Send(pami_context_t context, pami_send_t *parameters);
/* buffers may be reused on return; size limited by
 * PAMI_DISPATCH_SEND_IMMEDIATE_MAX */
pami_result_t PAMI_Send_immediate(pami_context_t context,
                                  pami_send_immediate_t *parameters);
pami_result_t PAMI_Send_typed(pami_context_t context,
                              pami_send_typed_t *parameters);

/* ------------------------------------------------------------------------
 * Active messages: receive side
 * ------------------------------------------------------------------------ */

/* Filled in by a dispatch function for an asynchronous receive. */
typedef struct {
    void *cookie;
    pami_event_function local_fn;
    void *addr;
    pami_type_t type;   /* PAMI_TYPE_BYTE = contiguous */
    size_t offset;
    pami_data_function data_fn;
    void *data_cookie;
} pami_recv_t;

/* Immediate receive: pipe_addr != NULL (even for 0 bytes), recv == NULL.
 * Asynchronous receive: pipe_addr == NULL, the function fills *recv. */
typedef void (*pami_dispatch_p2p_function)(pami_context_t context,
                                           void *cookie,
                                           const void *header_addr,
                                           size_t header_size,
                                           const void *pipe_addr,
                                           size_t data_size,
                                           pami_endpoint_t origin,
                                           pami_recv_t *recv);

/* ------------------------------------------------------------------------
 * One-sided transfers by virtual address (Put / Get)
 * ------------------------------------------------------------------------ */

typedef struct {
    pami_endpoint_t dest;
    pami_send_hint_t hints;
    size_t bytes;                 /* must be non-zero */
    void *cookie;
    pami_event_function done_fn;  /* local completion */
} pami_rma_t;

typedef struct {
    void *local;
    void *remote;
} pami_rma_addr_t;

typedef struct {
    pami_type_t local;
    pami_type_t remote;
} pami_rma_typed_t;

typedef struct {
    pami_event_function rdone_fn; /* remote completion */
} pami_rma_put_t;

typedef struct {
    pami_rma_t rma;
    pami_rma_addr_t addr;
    pami_rma_put_t put;
} pami_put_simple_t;

typedef struct {
    pami_rma_t rma;
    pami_rma_addr_t addr;
    pami_rma_typed_t type;
    pami_rma_put_t put;
} pami_put_typed_t;

typedef struct {
    pami_rma_t rma;
    pami_rma_addr_t addr;
} pami_get_simple_t;

typedef struct {
    pami_rma_t rma;
    pami_rma_addr_t addr;
    pami_rma_typed_t type;
} pami_get_typed_t;

pami_result_t PAMI_Put(pami_context_t context, pami_put_simple_t *parameters);
pami_result_t PAMI_Put_typed(pami_context_t context,
                             pami_put_typed_t *parameters);
pami_result_t PAMI_Get(pami_context_t context, pami_get_simple_t *parameters);
pami_result_t PAMI_Get_typed(pami_context_t context,
                             pami_get_typed_t *parameters);

/* ------------------------------------------------------------------------
 * Remote atomics (read-modify-write)
 * ------------------------------------------------------------------------ */

/* bit 0 fetch, bit 1 compare, bits 2..4 the modify operation */
typedef enum {
    PAMI_ATOMIC_FETCH = 1 << 0,
    PAMI_ATOMIC_COMPARE = 1 << 1,

    PAMI_ATOMIC_SET = 1 << 2,
    PAMI_ATOMIC_ADD = 2 << 2,
    PAMI_ATOMIC_OR = 3 << 2,
    PAMI_ATOMIC_AND = 4 << 2,
    PAMI_ATOMIC_XOR = 5 << 2,

    PAMI_ATOMIC_FETCH_SET = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_SET,
    PAMI_ATOMIC_FETCH_ADD = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_ADD,
    PAMI_ATOMIC_FETCH_OR = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_OR,
    PAMI_ATOMIC_FETCH_AND = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_AND,
    PAMI_ATOMIC_FETCH_XOR = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_XOR,

    PAMI_ATOMIC_COMPARE_SET = PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_SET,
    PAMI_ATOMIC_COMPARE_ADD = PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_ADD,
    PAMI_ATOMIC_COMPARE_OR = PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_OR,
    PAMI_ATOMIC_COMPARE_AND = PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_AND,
    PAMI_ATOMIC_COMPARE_XOR = PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_XOR,

    PAMI_ATOMIC_FETCH_COMPARE_SET = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_COMPARE_SET,
    PAMI_ATOMIC_FETCH_COMPARE_ADD = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_COMPARE_ADD,
    PAMI_ATOMIC_FETCH_COMPARE_OR = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_COMPARE_OR,
    PAMI_ATOMIC_FETCH_COMPARE_AND = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_COMPARE_AND,
    PAMI_ATOMIC_FETCH_COMPARE_XOR = PAMI_ATOMIC_FETCH | PAMI_ATOMIC_COMPARE_XOR
} pami_atomic_t;

/* Semantics: if FETCH, *local = old *remote; if COMPARE, modify only when
 * *remote == *test; modify applies *value. Unordered w.r.t. everything. */
typedef struct {
    pami_endpoint_t dest;
    pami_send_hint_t hints;
    void *cookie;
    pami_event_function done_fn;
    void *local;
    void *remote;
    void *value;
    void *test;
    pami_atomic_t operation;
    pami_type_t type;   /* [UN]SIGNED_INT, _LONG, _LONG_LONG */
} pami_rmw_t;

pami_result_t PAMI_Rmw(pami_context_t context, pami_rmw_t *parameters);

/* ------------------------------------------------------------------------
 * Memory regions and one-sided transfers by region (Rput / Rget)
 * ------------------------------------------------------------------------ */

/* Opaque, caller-owned; may be copied by value to other tasks. */
typedef uintptr_t pami_memregion_t[PAMI_CLIENT_MEMREGION_SIZE_STATIC /
                                   sizeof(uintptr_t)];

pami_result_t PAMI_Memregion_create(pami_context_t context, void *address,
                                    size_t bytes_in, size_t *bytes_out,
                                    pami_memregion_t *memregion);
pami_result_t PAMI_Memregion_destroy(pami_context_t context,
                                     pami_memregion_t *memregion);

typedef struct {
    pami_memregion_t *mr;
    size_t offset;
} pami_rma_mr_t;

typedef struct {
    pami_rma_mr_t local;
    pami_rma_mr_t remote;
} pami_rdma_t;

typedef struct {
    pami_rma_t rma;
    pami_rdma_t rdma;
    pami_rma_put_t put;
} pami_rput_simple_t;

typedef struct {
    pami_rma_t rma;
    pami_rdma_t rdma;
    pami_rma_typed_t type;
    pami_rma_put_t put;
} pami_rput_typed_t;

typedef struct {
    pami_rma_t rma;
    pami_rdma_t rdma;
} pami_rget_simple_t;

typedef struct {
    pami_rma_t rma;
    pami_rdma_t rdma;
    pami_rma_typed_t type;
} pami_rget_typed_t;

pami_result_t PAMI_Rput(pami_context_t context,
                        pami_rput_simple_t *parameters);
pami_result_t PAMI_Rput_typed(pami_context_t context,
                              pami_rput_typed_t *parameters);
pami_result_t PAMI_Rget(pami_context_t context,
                        pami_rget_simple_t *parameters);
pami_result_t PAMI_Rget_typed(pami_context_t context,
                              pami_rget_typed_t *parameters);

/* ------------------------------------------------------------------------
 * Dynamic tasks and fences
 * ------------------------------------------------------------------------ */

pami_result_t PAMI_Purge(pami_context_t context, pami_endpoint_t *dest,
                         size_t count);
pami_result_t PAMI_Resume(pami_context_t context, pami_endpoint_t *dest,
                          size_t count);

/* A fence region brackets fence calls; regions do not nest. */
pami_result_t PAMI_Fence_begin(pami_context_t context);
pami_result_t PAMI_Fence_end(pami_context_t context);
pami_result_t PAMI_Fence_all(pami_context_t context,
                             pami_event_function done_fn, void *cookie);
pami_result_t PAMI_Fence_endpoint(pami_context_t context,
                                  pami_event_function done_fn, void *cookie,
                                  pami_endpoint_t target);

/* ------------------------------------------------------------------------
 * Geometries (task groups for collectives)
 * ------------------------------------------------------------------------ */

typedef enum {
    PAMI_XFER_BROADCAST = 0,
    PAMI_XFER_ALLREDUCE,        /* 1 */
    PAMI_XFER_REDUCE,           /* 2 */
    PAMI_XFER_ALLGATHER,        /* 3 */
    PAMI_XFER_ALLGATHERV,       /* 4 */
    PAMI_XFER_ALLGATHERV_INT,   /* 5 */
    PAMI_XFER_SCATTER,          /* 6 */
    PAMI_XFER_SCATTERV,         /* 7 */
    PAMI_XFER_SCATTERV_INT,     /* 8 */
    PAMI_XFER_GATHER,           /* 9 */
    PAMI_XFER_GATHERV,          /* 10 */
    PAMI_XFER_GATHERV_INT,      /* 11 */
    PAMI_XFER_BARRIER,          /* 12 */
    PAMI_XFER_ALLTOALL,         /* 13 */
    PAMI_XFER_ALLTOALLV,        /* 14 */
    PAMI_XFER_ALLTOALLV_INT,    /* 15 */
    PAMI_XFER_SCAN,             /* 16 */
    PAMI_XFER_REDUCE_SCATTER,   /* 17 */
    PAMI_XFER_AMBROADCAST,      /* 18 */
    PAMI_XFER_AMSCATTER,        /* 19 */
    PAMI_XFER_AMGATHER,         /* 20 */
    PAMI_XFER_AMREDUCE,         /* 21 */
    PAMI_XFER_COUNT,            /* 22 */
    PAMI_XFER_TYPE_EXT = 1000
} pami_xfer_type_t;

/* inclusive range of task ids */
typedef struct {
    pami_task_t lo;
    pami_task_t hi;
} pami_geometry_range_t;

/* Creation is non-blocking: fn runs on `context` when the geometry is
 * ready. Geometry id 0 is the world geometry. */
pami_result_t PAMI_Geometry_create_taskrange(pami_client_t client,
                                             size_t context_offset,
                                             pami_configuration_t configuration[],
                                             size_t num_configs,
                                             pami_geometry_t *geometry,
                                             pami_geometry_t parent,
                                             unsigned id,
                                             pami_geometry_range_t *task_slices,
                                             size_t slice_count,
                                             pami_context_t context,
                                             pami_event_function fn,
                                             void *cookie);
pami_result_t PAMI_Geometry_create_tasklist(pami_client_t client,
                                            size_t context_offset,
                                            pami_configuration_t configuration[],
                                            size_t num_configs,
                                            pami_geometry_t *geometry,
                                            pami_geometry_t parent,
                                            unsigned id,
                                            pami_task_t *tasks,
                                            size_t task_count,
                                            pami_context_t context,
                                            pami_event_function fn,
                                            void *cookie);
pami_result_t PAMI_Geometry_create_endpointlist(pami_client_t client,
                                                pami_configuration_t configuration[],
                                                size_t num_configs,
                                                pami_geometry_t *geometry,
                                                unsigned id,
                                                pami_endpoint_t *endpoints,
                                                size_t endpoint_count,
                                                pami_context_t context,
                                                pami_event_function fn,
                                                void *cookie);
pami_result_t PAMI_Geometry_world(pami_client_t client,
                                  pami_geometry_t *world_geometry);
/* lists_lengths[0]: "always works" list, [1]: "must query" list */
pami_result_t PAMI_Geometry_algorithms_num(pami_geometry_t geometry,
                                           pami_xfer_type_t coll_type,
                                           size_t *lists_lengths);
pami_result_t PAMI_Geometry_algorithms_query(pami_geometry_t geometry,
                                             pami_xfer_type_t colltype,
                                             pami_algorithm_t *algs0,
                                             pami_metadata_t *mdata0,
                                             size_t num0,
                                             pami_algorithm_t *algs1,
                                             pami_metadata_t *mdata1,
                                             size_t num1);
pami_result_t PAMI_Geometry_destroy(pami_client_t client,
                                    pami_geometry_t *geometry,
                                    pami_context_t context,
                                    pami_event_function fn, void *cookie);

/* ------------------------------------------------------------------------
 * Collective operation parameters
 * ------------------------------------------------------------------------ */

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t *stypecounts;
    size_t *sdispls;
    char *rcvbuf;
    pami_type_t rtype;
    size_t *rtypecounts;
    size_t *rdispls;
} pami_alltoallv_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    int *stypecounts;
    int *sdispls;
    char *rcvbuf;
    pami_type_t rtype;
    int *rtypecounts;
    int *rdispls;
} pami_alltoallv_int_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
} pami_alltoall_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
    pami_data_function op;
    void *data_cookie;
    int commutative;
} pami_reduce_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t *rcounts;
    pami_data_function op;
    void *data_cookie;
    int commutative;
} pami_reduce_scatter_t;

typedef struct {
    pami_endpoint_t root;
    char *buf;
    pami_type_t type;
    size_t typecount;
} pami_broadcast_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
} pami_allgather_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
} pami_gather_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t *rtypecounts;
    size_t *rdispls;
} pami_gatherv_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    int stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    int *rtypecounts;
    int *rdispls;
} pami_gatherv_int_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t *rtypecounts;
    size_t *rdispls;
} pami_allgatherv_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    int stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    int *rtypecounts;
    int *rdispls;
} pami_allgatherv_int_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
} pami_scatter_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    size_t *stypecounts;
    size_t *sdispls;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
} pami_scatterv_t;

typedef struct {
    pami_endpoint_t root;
    char *sndbuf;
    pami_type_t stype;
    int *stypecounts;
    int *sdispls;
    char *rcvbuf;
    pami_type_t rtype;
    int rtypecount;
} pami_scatterv_int_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
    pami_data_function op;
    void *data_cookie;
    int commutative;
} pami_allreduce_t;

typedef struct {
    char *sndbuf;
    pami_type_t stype;
    size_t stypecount;
    char *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
    pami_data_function op;
    void *data_cookie;
    int exclusive;
} pami_scan_t;

/* Barrier takes no parameters. The real interface uses an empty struct (a
 * GNU C extension); keep that where the compiler allows it, silently. */
#if defined(__cplusplus)
} /* outside extern "C": types have no linkage, and clang++ warns there */
typedef struct {
} pami_barrier_t;
extern "C" {
#elif defined(__GNUC__)
__extension__ typedef struct {
} pami_barrier_t;
#else
typedef struct {
    char unused_;
} pami_barrier_t;
#endif

/* Active-message collectives and their receive-side dispatch functions. */
typedef struct {
    size_t dispatch;
    void *user_header;
    size_t headerlen;
    void *sndbuf;
    pami_type_t stype;
    size_t stypecount;
} pami_ambroadcast_t;

typedef void (*pami_dispatch_ambroadcast_function)(pami_context_t context,
                                                   void *cookie,
                                                   const void *header_addr,
                                                   size_t header_size,
                                                   const void *pipe_addr,
                                                   size_t data_size,
                                                   pami_endpoint_t origin,
                                                   pami_geometry_t geometry,
                                                   pami_recv_t *recv);

typedef struct {
    size_t dispatch;
    void *headers;
    size_t headerlen;
    void *sndbuf;
    pami_type_t stype;
    size_t stypecount;
} pami_amscatter_t;

typedef void (*pami_dispatch_amscatter_function)(pami_context_t context,
                                                 void *cookie,
                                                 const void *header_addr,
                                                 size_t header_size,
                                                 const void *pipe_addr,
                                                 size_t data_size,
                                                 pami_endpoint_t origin,
                                                 pami_geometry_t geometry,
                                                 pami_recv_t *recv);

typedef struct {
    size_t dispatch;
    void *headers;
    size_t headerlen;
    void *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
} pami_amgather_t;

/* gather/reduce receivers describe the data they send back in *send */
typedef void (*pami_dispatch_amgather_function)(pami_context_t context,
                                                void *cookie,
                                                const void *header_addr,
                                                size_t header_size,
                                                size_t data_size,
                                                pami_endpoint_t origin,
                                                pami_geometry_t geometry,
                                                pami_recv_t *send);

typedef struct {
    size_t dispatch;
    void *user_header;
    size_t headerlen;
    void *rcvbuf;
    pami_type_t rtype;
    size_t rtypecount;
    void *data_cookie;
    int commutative;
} pami_amreduce_t;

typedef void (*pami_dispatch_amreduce_function)(pami_context_t context,
                                                void *cookie,
                                                const void *header_addr,
                                                size_t header_size,
                                                size_t data_size,
                                                pami_endpoint_t origin,
                                                pami_geometry_t geometry,
                                                pami_data_function *op,
                                                pami_recv_t *send);

typedef union {
    pami_allreduce_t xfer_allreduce;
    pami_broadcast_t xfer_broadcast;
    pami_reduce_t xfer_reduce;
    pami_allgather_t xfer_allgather;
    pami_allgatherv_t xfer_allgatherv;
    pami_allgatherv_int_t xfer_allgatherv_int;
    pami_scatter_t xfer_scatter;
    pami_scatterv_t xfer_scatterv;
    pami_scatterv_int_t xfer_scatterv_int;
    pami_gather_t xfer_gather;
    pami_gatherv_t xfer_gatherv;
    pami_gatherv_int_t xfer_gatherv_int;
    pami_alltoall_t xfer_alltoall;
    pami_alltoallv_t xfer_alltoallv;
    pami_alltoallv_int_t xfer_alltoallv_int;
    pami_ambroadcast_t xfer_ambroadcast;
    pami_amscatter_t xfer_amscatter;
    pami_amgather_t xfer_amgather;
    pami_amreduce_t xfer_amreduce;
    pami_scan_t xfer_scan;
    pami_barrier_t xfer_barrier;
    pami_reduce_scatter_t xfer_reduce_scatter;
} pami_collective_t;

typedef struct pami_xfer_t {
    pami_event_function cb_done;   /* run during advance when complete */
    void *cookie;
    pami_algorithm_t algorithm;    /* from PAMI_Geometry_algorithms_query */
    pami_collective_hint_t options;
    pami_collective_t cmd;
} pami_xfer_t;

/* Non-blocking; one call per participating endpoint. */
pami_result_t PAMI_Collective(pami_context_t context, pami_xfer_t *cmd);

/* ------------------------------------------------------------------------
 * Data types and data (reduction) functions
 * ------------------------------------------------------------------------ */

/* predefined contiguous types */
extern pami_type_t PAMI_TYPE_BYTE;
extern pami_type_t PAMI_TYPE_CONTIGUOUS; /* deprecated: the same type as PAMI_TYPE_BYTE */
extern pami_type_t PAMI_TYPE_SIGNED_CHAR;
extern pami_type_t PAMI_TYPE_UNSIGNED_CHAR;
extern pami_type_t PAMI_TYPE_SIGNED_SHORT;
extern pami_type_t PAMI_TYPE_UNSIGNED_SHORT;
extern pami_type_t PAMI_TYPE_SIGNED_INT;
extern pami_type_t PAMI_TYPE_UNSIGNED_INT;
extern pami_type_t PAMI_TYPE_SIGNED_LONG;
extern pami_type_t PAMI_TYPE_UNSIGNED_LONG;
extern pami_type_t PAMI_TYPE_SIGNED_LONG_LONG;
extern pami_type_t PAMI_TYPE_UNSIGNED_LONG_LONG;
extern pami_type_t PAMI_TYPE_FLOAT;
extern pami_type_t PAMI_TYPE_DOUBLE;
extern pami_type_t PAMI_TYPE_LONG_DOUBLE;
extern pami_type_t PAMI_TYPE_LOGICAL1;
extern pami_type_t PAMI_TYPE_LOGICAL2;
extern pami_type_t PAMI_TYPE_LOGICAL4;
extern pami_type_t PAMI_TYPE_LOGICAL8;
extern pami_type_t PAMI_TYPE_LOGICAL; /* deprecated: the same type as PAMI_TYPE_LOGICAL4 */
extern pami_type_t PAMI_TYPE_SINGLE_COMPLEX;
extern pami_type_t PAMI_TYPE_DOUBLE_COMPLEX;
/* (value, index) pairs for MAXLOC / MINLOC */
extern pami_type_t PAMI_TYPE_LOC_2INT;
extern pami_type_t PAMI_TYPE_LOC_2FLOAT;
extern pami_type_t PAMI_TYPE_LOC_2DOUBLE;
extern pami_type_t PAMI_TYPE_LOC_SHORT_INT;
extern pami_type_t PAMI_TYPE_LOC_FLOAT_INT;
extern pami_type_t PAMI_TYPE_LOC_DOUBLE_INT;
extern pami_type_t PAMI_TYPE_LOC_LONG_INT;
extern pami_type_t PAMI_TYPE_LOC_LONGDOUBLE_INT;

/* predefined data functions; a reduction is (type, data function) */
extern pami_data_function PAMI_DATA_COPY;
extern pami_data_function PAMI_DATA_NOOP;
extern pami_data_function PAMI_DATA_MAX;
extern pami_data_function PAMI_DATA_MIN;
extern pami_data_function PAMI_DATA_SUM;
extern pami_data_function PAMI_DATA_PROD;
extern pami_data_function PAMI_DATA_LAND;
extern pami_data_function PAMI_DATA_LOR;
extern pami_data_function PAMI_DATA_LXOR;
extern pami_data_function PAMI_DATA_BAND;
extern pami_data_function PAMI_DATA_BOR;
extern pami_data_function PAMI_DATA_BXOR;
extern pami_data_function PAMI_DATA_MAXLOC;
extern pami_data_function PAMI_DATA_MINLOC;

/* User types: create, append buffers at a moving cursor, complete; a
 * completed type is immutable and may be shared by concurrent transfers. */
pami_result_t PAMI_Type_create(pami_type_t *type);
pami_result_t PAMI_Type_add_simple(pami_type_t type, size_t bytes,
                                   size_t offset, size_t count, size_t stride);
pami_result_t PAMI_Type_add_typed(pami_type_t type, pami_type_t subtype,
                                  size_t offset, size_t count, size_t stride);
pami_result_t PAMI_Type_complete(pami_type_t type, size_t atom_size);
pami_result_t PAMI_Type_destroy(pami_type_t *type);
pami_result_t PAMI_Type_serialize(pami_type_t type, void **address,
                                  size_t *size);
pami_result_t PAMI_Type_deserialize(pami_type_t *type, void *address,
                                    size_t size);
pami_result_t PAMI_Type_query(pami_type_t type,
                              pami_configuration_t configuration[],
                              size_t num_configs);
pami_result_t PAMI_Type_transform_data(void *src_addr, pami_type_t src_type,
                                       size_t src_offset, void *dst_addr,
                                       pami_type_t dst_type, size_t dst_offset,
                                       size_t size, pami_data_function data_fn,
                                       void *cookie);

/* ------------------------------------------------------------------------
 * Dispatch registration
 * ------------------------------------------------------------------------ */

typedef union {
    pami_dispatch_p2p_function p2p;
    pami_dispatch_ambroadcast_function ambroadcast;
    pami_dispatch_amscatter_function amscatter;
    pami_dispatch_amgather_function amgather;
    pami_dispatch_amreduce_function amreduce;
} pami_dispatch_callback_function;

pami_result_t PAMI_Dispatch_set(pami_context_t context, size_t dispatch,
                                pami_dispatch_callback_function fn,
                                void *cookie, pami_dispatch_hint_t options);
pami_result_t PAMI_AMCollective_dispatch_set(pami_context_t context,
                                             pami_algorithm_t algorithm,
                                             size_t dispatch,
                                             pami_dispatch_callback_function fn,
                                             void *cookie,
                                             pami_collective_hint_t options);
pami_result_t PAMI_Dispatch_query(pami_context_t context, size_t dispatch,
                                  pami_configuration_t configuration[],
                                  size_t num_configs);
pami_result_t PAMI_Dispatch_update(pami_context_t context, size_t dispatch,
                                   pami_configuration_t configuration[],
                                   size_t num_configs);

/* ------------------------------------------------------------------------
 * Attribute query / update, error text, clocks
 * ------------------------------------------------------------------------ */

pami_result_t PAMI_Client_query(pami_client_t client,
                                pami_configuration_t configuration[],
                                size_t num_configs);
pami_result_t PAMI_Client_update(pami_client_t client,
                                 pami_configuration_t configuration[],
                                 size_t num_configs);
pami_result_t PAMI_Context_query(pami_context_t context,
                                 pami_configuration_t configuration[],
                                 size_t num_configs);
pami_result_t PAMI_Context_update(pami_context_t context,
                                  pami_configuration_t configuration[],
                                  size_t num_configs);
pami_result_t PAMI_Geometry_query(pami_geometry_t geometry,
                                  pami_configuration_t configuration[],
                                  size_t num_configs);
/* collective; fn runs on `context` when the update has taken effect */
pami_result_t PAMI_Geometry_update(pami_geometry_t geometry,
                                   pami_configuration_t configuration[],
                                   size_t num_configs, pami_context_t context,
                                   pami_event_function fn, void *cookie);

/* text for the calling thread's most recent result; returns chars written */
size_t PAMI_Error_text(char *string, size_t length);

double PAMI_Wtime(pami_client_t client);
unsigned long long PAMI_Wtimebase(pami_client_t client);

/* ------------------------------------------------------------------------
 * Clients, endpoints, contexts and context locks
 * ------------------------------------------------------------------------ */

pami_result_t PAMI_Client_create(const char *name, pami_client_t *client,
                                 pami_configuration_t configuration[],
                                 size_t num_configs);
pami_result_t PAMI_Client_destroy(pami_client_t *client);

/* emunic encodes an endpoint as (offset << 23) | task, as BG/Q does, but
 * provides real functions rather than BG/Q's macros. */
pami_result_t PAMI_Endpoint_create(pami_client_t client, pami_task_t task,
                                   size_t offset, pami_endpoint_t *endpoint);
pami_result_t PAMI_Endpoint_query(pami_endpoint_t endpoint, pami_task_t *task,
                                  size_t *offset);

pami_result_t PAMI_Context_createv(pami_client_t client,
                                   pami_configuration_t configuration[],
                                   size_t num_configs,
                                   pami_context_t context[],
                                   size_t ncontexts);
pami_result_t PAMI_Context_destroyv(pami_context_t *contexts,
                                    size_t ncontexts);
/* the one thread-safe context operation: needs no context lock */
pami_result_t PAMI_Context_post(pami_context_t context, pami_work_t *work,
                                pami_work_function fn, void *cookie);
/* PAMI_SUCCESS if at least one event was processed, else PAMI_EAGAIN */
pami_result_t PAMI_Context_advance(pami_context_t context, size_t maximum);
pami_result_t PAMI_Context_advancev(pami_context_t context[], size_t count,
                                    size_t maximum);
pami_result_t PAMI_Context_trylock_advancev(pami_context_t context[],
                                            size_t count, size_t maximum);
pami_result_t PAMI_Context_lock(pami_context_t context);
/* PAMI_EAGAIN when another thread holds the lock */
pami_result_t PAMI_Context_trylock(pami_context_t context);
pami_result_t PAMI_Context_unlock(pami_context_t context);

/* ------------------------------------------------------------------------
 * Extensions
 * ------------------------------------------------------------------------ */

typedef void *pami_extension_t;

/* PAMI_UNIMPL (or PAMI_ERROR) when the named extension is not provided */
pami_result_t PAMI_Extension_open(pami_client_t client, const char *name,
                                  pami_extension_t *extension);
pami_result_t PAMI_Extension_close(pami_extension_t extension);
void *PAMI_Extension_symbol(pami_extension_t extension, const char *name);

/* "EXT_async_progress": symbols "register", "enable", "disable". Names as
 * in IBM's published PE extension header. */
typedef void (*pami_async_function)(pami_context_t context, void *cookie);

typedef enum {
    PAMI_ASYNC_ALL = 0,
    PAMI_ASYNC_RECV_INTERRUPT = 1,
    PAMI_ASYNC_TIMER = 2,
    PAMI_ASYNC_EXT = 1000
} pami_async_t;

typedef pami_result_t (*async_progress_register_fn)(pami_context_t context,
                                                    pami_async_function progress_fn,
                                                    pami_async_function suspend_fn,
                                                    pami_async_function resume_fn,
                                                    void *cookie);
typedef pami_result_t (*async_progress_enable_fn)(pami_context_t context,
                                                  pami_async_t event_type);
typedef pami_result_t (*async_progress_disable_fn)(pami_context_t context,
                                                   pami_async_t event_type);

/* ------------------------------------------------------------------------
 * emunic additions (not part of IBM's interface)
 * ------------------------------------------------------------------------ */

#define EMUNIC_PAMI 1
#define EMUNIC_PAMI_VERSION "0.1"

/* PAMI_Wtime resolution in seconds, same value as PAMI_CLIENT_WTICK */
double PAMI_Wtick(pami_client_t client);

#ifdef __cplusplus
}
#endif

#endif /* EMUNIC_PAMI_H */
