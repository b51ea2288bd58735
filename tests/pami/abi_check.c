/* Compile-time check of pami.h against the real API's facts
 * (../shared/api-facts/pami-api.txt): enum values, struct shapes, function
 * signatures, and that snippets written the way real clients write them
 * compile. Nothing here calls into the library, so it links on its own;
 * main() only re-checks the hint bit positions, which offsetof can't see. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <pami.h>

/* __extension__ lets the same file build with -std=gnu99 -pedantic too */
#define SAME(a, b) __extension__ _Static_assert((a) == (b), #a " != " #b)
#define TRUE(a) __extension__ _Static_assert((a), #a)
/* exact type of a declared object or function, without referencing it */
#define IS(expr, type) TRUE(__extension__ _Generic((expr), type: 1, default: 0))
/* a field follows another one (real field order) */
#define BEFORE(T, a, b) TRUE(offsetof(T, a) < offsetof(T, b))

/* ---- results ---- */
SAME(PAMI_SUCCESS, 0);
SAME(PAMI_NERROR, -1);
SAME(PAMI_ERROR, 1);
SAME(PAMI_INVAL, 2);
SAME(PAMI_UNIMPL, 3);
SAME(PAMI_EAGAIN, 4);
SAME(PAMI_ENOMEM, 5);
SAME(PAMI_SHUTDOWN, 6);
SAME(PAMI_CHECK_ERRNO, 7);
SAME(PAMI_OTHER, 8);
SAME(PAMI_RESULT_EXT, 1000);

/* ---- attribute names ---- */
SAME(PAMI_CLIENT_CLOCK_MHZ, 100);
SAME(PAMI_CLIENT_CONST_CONTEXTS, 101);
SAME(PAMI_CLIENT_HWTHREADS_AVAILABLE, 102);
SAME(PAMI_CLIENT_MEMREGION_SIZE, 103);
SAME(PAMI_CLIENT_MEM_SIZE, 104);
SAME(PAMI_CLIENT_NUM_TASKS, 105);
SAME(PAMI_CLIENT_NUM_LOCAL_TASKS, 106);
SAME(PAMI_CLIENT_LOCAL_TASKS, 107);
SAME(PAMI_CLIENT_NUM_CONTEXTS, 108);
SAME(PAMI_CLIENT_PROCESSOR_NAME, 109);
SAME(PAMI_CLIENT_TASK_ID, 110);
SAME(PAMI_CLIENT_WTIMEBASE_MHZ, 111);
SAME(PAMI_CLIENT_WTICK, 112);
SAME(PAMI_CLIENT_NONCONTIG, 113);
SAME(PAMI_CLIENT_MEMORY_OPTIMIZE, 114);
SAME(PAMI_CONTEXT_DISPATCH_ID_MAX, 200);
SAME(PAMI_DISPATCH_RECV_IMMEDIATE_MAX, 300);
SAME(PAMI_DISPATCH_SEND_IMMEDIATE_MAX, 301);
SAME(PAMI_DISPATCH_ATOM_SIZE_MAX, 302);
SAME(PAMI_GEOMETRY_OPTIMIZE, 400);
SAME(PAMI_GEOMETRY_NONCONTIG, 401);
SAME(PAMI_GEOMETRY_MEMORY_OPTIMIZE, 402);
SAME(PAMI_TYPE_DATA_SIZE, 500);
SAME(PAMI_TYPE_DATA_EXTENT, 501);
SAME(PAMI_TYPE_ATOM_SIZE, 502);
SAME(PAMI_ATTRIBUTE_NAME_EXT, 1000);

/* ---- hints ---- */
SAME(PAMI_HINT_DEFAULT, 0);
SAME(PAMI_HINT_ENABLE, 1);
SAME(PAMI_HINT_DISABLE, 2);
SAME(PAMI_HINT_INVALID, 3);

/* ---- atomics ---- */
SAME(PAMI_ATOMIC_FETCH, 1);
SAME(PAMI_ATOMIC_COMPARE, 2);
SAME(PAMI_ATOMIC_SET, 1 << 2);
SAME(PAMI_ATOMIC_ADD, 2 << 2);
SAME(PAMI_ATOMIC_OR, 3 << 2);
SAME(PAMI_ATOMIC_AND, 4 << 2);
SAME(PAMI_ATOMIC_XOR, 5 << 2);
SAME(PAMI_ATOMIC_FETCH_SET, 5);
SAME(PAMI_ATOMIC_FETCH_ADD, 9);
SAME(PAMI_ATOMIC_FETCH_OR, 13);
SAME(PAMI_ATOMIC_FETCH_AND, 17);
SAME(PAMI_ATOMIC_FETCH_XOR, 21);
SAME(PAMI_ATOMIC_COMPARE_SET, 6);
SAME(PAMI_ATOMIC_COMPARE_ADD, 10);
SAME(PAMI_ATOMIC_COMPARE_OR, 14);
SAME(PAMI_ATOMIC_COMPARE_AND, 18);
SAME(PAMI_ATOMIC_COMPARE_XOR, 22);
SAME(PAMI_ATOMIC_FETCH_COMPARE_SET, 7);
SAME(PAMI_ATOMIC_FETCH_COMPARE_ADD, 11);
SAME(PAMI_ATOMIC_FETCH_COMPARE_OR, 15);
SAME(PAMI_ATOMIC_FETCH_COMPARE_AND, 19);
SAME(PAMI_ATOMIC_FETCH_COMPARE_XOR, 23);

/* ---- collective transfer types ---- */
SAME(PAMI_XFER_BROADCAST, 0);
SAME(PAMI_XFER_ALLREDUCE, 1);
SAME(PAMI_XFER_REDUCE, 2);
SAME(PAMI_XFER_ALLGATHER, 3);
SAME(PAMI_XFER_ALLGATHERV, 4);
SAME(PAMI_XFER_ALLGATHERV_INT, 5);
SAME(PAMI_XFER_SCATTER, 6);
SAME(PAMI_XFER_SCATTERV, 7);
SAME(PAMI_XFER_SCATTERV_INT, 8);
SAME(PAMI_XFER_GATHER, 9);
SAME(PAMI_XFER_GATHERV, 10);
SAME(PAMI_XFER_GATHERV_INT, 11);
SAME(PAMI_XFER_BARRIER, 12);
SAME(PAMI_XFER_ALLTOALL, 13);
SAME(PAMI_XFER_ALLTOALLV, 14);
SAME(PAMI_XFER_ALLTOALLV_INT, 15);
SAME(PAMI_XFER_SCAN, 16);
SAME(PAMI_XFER_REDUCE_SCATTER, 17);
SAME(PAMI_XFER_AMBROADCAST, 18);
SAME(PAMI_XFER_AMSCATTER, 19);
SAME(PAMI_XFER_AMGATHER, 20);
SAME(PAMI_XFER_AMREDUCE, 21);
SAME(PAMI_XFER_COUNT, 22);
SAME(PAMI_XFER_TYPE_EXT, 1000);

/* ---- EXT_async_progress ---- */
SAME(PAMI_ASYNC_ALL, 0);
SAME(PAMI_ASYNC_RECV_INTERRUPT, 1);
SAME(PAMI_ASYNC_TIMER, 2);

/* ---- platform sizes and opaque storage ---- */
SAME(PAMI_CLIENT_MEMREGION_SIZE_STATIC, 8 * sizeof(uintptr_t));
SAME(PAMI_WORK_SIZE_STATIC, 8 * sizeof(uintptr_t));
SAME(PAMI_REQUEST_NQUADS, 512);
SAME(sizeof(pami_memregion_t), PAMI_CLIENT_MEMREGION_SIZE_STATIC);
SAME(sizeof(pami_work_t), PAMI_WORK_SIZE_STATIC);
SAME(sizeof(pami_task_t), 4);
SAME(sizeof(pami_endpoint_t), 4);
SAME(sizeof(pami_algorithm_t), sizeof(size_t));
SAME(sizeof(pami_client_t), sizeof(void *));
SAME(EMUNIC_PAMI, 1);

/* hint structs are one 32-bit word, as in the real header (22 bits used) */
SAME(sizeof(pami_send_hint_t), sizeof(unsigned));
SAME(sizeof(pami_dispatch_hint_t), sizeof(unsigned));
SAME(sizeof(pami_collective_hint_t), sizeof(unsigned));

/* ---- struct shapes ---- */
SAME(offsetof(pami_configuration_t, name), 0);
SAME(sizeof(pami_attribute_value_t), 8);

SAME(offsetof(pami_send_t, send), 0);        /* pami_send_t starts with */
SAME(offsetof(pami_send_t, events), sizeof(pami_send_immediate_t));
SAME(offsetof(pami_send_typed_t, send), 0);
SAME(offsetof(pami_send_typed_t, events), offsetof(pami_send_t, events));
SAME(offsetof(pami_send_immediate_t, header), 0);
BEFORE(pami_send_immediate_t, header, data);
BEFORE(pami_send_immediate_t, data, dispatch);
BEFORE(pami_send_immediate_t, dispatch, hints);
BEFORE(pami_send_immediate_t, hints, dest);
BEFORE(pami_send_event_t, cookie, local_fn);
BEFORE(pami_send_event_t, local_fn, remote_fn);
BEFORE(pami_send_typed_t, events, typed);

BEFORE(pami_recv_t, cookie, local_fn);
BEFORE(pami_recv_t, local_fn, addr);
BEFORE(pami_recv_t, addr, type);
BEFORE(pami_recv_t, type, offset);
BEFORE(pami_recv_t, offset, data_fn);
BEFORE(pami_recv_t, data_fn, data_cookie);

SAME(offsetof(pami_rma_t, dest), 0);
BEFORE(pami_rma_t, dest, hints);
BEFORE(pami_rma_t, hints, bytes);
BEFORE(pami_rma_t, bytes, cookie);
BEFORE(pami_rma_t, cookie, done_fn);
SAME(offsetof(pami_put_simple_t, rma), 0);
BEFORE(pami_put_simple_t, rma, addr);
BEFORE(pami_put_simple_t, addr, put);
BEFORE(pami_put_typed_t, addr, type);
BEFORE(pami_put_typed_t, type, put);
BEFORE(pami_get_typed_t, addr, type);
BEFORE(pami_rput_simple_t, rma, rdma);
BEFORE(pami_rput_simple_t, rdma, put);
BEFORE(pami_rput_typed_t, rdma, type);
BEFORE(pami_rput_typed_t, type, put);
BEFORE(pami_rget_typed_t, rdma, type);
BEFORE(pami_rdma_t, local, remote);
BEFORE(pami_rma_mr_t, mr, offset);

SAME(offsetof(pami_rmw_t, dest), 0);
BEFORE(pami_rmw_t, dest, hints);
BEFORE(pami_rmw_t, hints, cookie);
BEFORE(pami_rmw_t, cookie, done_fn);
BEFORE(pami_rmw_t, done_fn, local);
BEFORE(pami_rmw_t, local, remote);
BEFORE(pami_rmw_t, remote, value);
BEFORE(pami_rmw_t, value, test);
BEFORE(pami_rmw_t, test, operation);
BEFORE(pami_rmw_t, operation, type);

BEFORE(pami_xfer_t, cb_done, cookie);
BEFORE(pami_xfer_t, cookie, algorithm);
BEFORE(pami_xfer_t, algorithm, options);
BEFORE(pami_xfer_t, options, cmd);
SAME(offsetof(pami_broadcast_t, root), 0);
BEFORE(pami_broadcast_t, root, buf);
BEFORE(pami_broadcast_t, buf, type);
BEFORE(pami_broadcast_t, type, typecount);
SAME(offsetof(pami_allreduce_t, sndbuf), 0);
BEFORE(pami_allreduce_t, stypecount, rcvbuf);
BEFORE(pami_allreduce_t, rtypecount, op);
BEFORE(pami_allreduce_t, op, data_cookie);
BEFORE(pami_allreduce_t, data_cookie, commutative);
SAME(offsetof(pami_reduce_t, root), 0);
BEFORE(pami_reduce_t, root, sndbuf);
BEFORE(pami_scan_t, data_cookie, exclusive);
BEFORE(pami_reduce_scatter_t, rtype, rcounts);
BEFORE(pami_reduce_scatter_t, rcounts, op);
SAME(offsetof(pami_gather_t, root), 0);
SAME(offsetof(pami_scatter_t, root), 0);
BEFORE(pami_alltoallv_t, stypecounts, sdispls);
BEFORE(pami_alltoallv_t, rtypecounts, rdispls);
BEFORE(pami_ambroadcast_t, dispatch, user_header);
BEFORE(pami_amreduce_t, data_cookie, commutative);
SAME(sizeof(((pami_gatherv_int_t *)0)->stypecount), sizeof(int));
SAME(sizeof(*((pami_allgatherv_int_t *)0)->rdispls), sizeof(int));
SAME(sizeof(*((pami_scatterv_t *)0)->sdispls), sizeof(size_t));
SAME(sizeof(*((pami_alltoallv_int_t *)0)->stypecounts), sizeof(int));

BEFORE(pami_metadata_t, name, version);
BEFORE(pami_metadata_t, version, check_fn);
BEFORE(pami_metadata_t, check_fn, range_lo);
BEFORE(pami_metadata_t, range_lo, range_hi);
BEFORE(pami_metadata_t, range_hi, send_min_align);
BEFORE(pami_metadata_t, send_min_align, recv_min_align);
BEFORE(pami_metadata_t, recv_min_align, check_correct);
BEFORE(pami_metadata_t, check_correct, check_perf);
BEFORE(pami_metadata_t, check_perf, range_lo_perf);
BEFORE(pami_metadata_t, range_lo_perf, range_hi_perf);
BEFORE(pami_metadata_t, range_hi_perf, min_align_perf);
SAME(sizeof(((pami_metadata_t *)0)->check_correct), sizeof(unsigned));

BEFORE(pami_geometry_range_t, lo, hi);
SAME(sizeof(pami_geometry_range_t), 2 * sizeof(pami_task_t));

/* ---- predefined objects ---- */
IS(PAMI_CLIENT_NULL, pami_client_t);
IS(PAMI_CONTEXT_NULL, pami_context_t);
IS(PAMI_GEOMETRY_NULL, pami_geometry_t);
IS(PAMI_ALGORITHM_NULL, pami_algorithm_t);
IS(PAMI_ENDPOINT_NULL, pami_endpoint_t);
IS(PAMI_TYPE_NULL, pami_type_t);
IS(PAMI_ALL_CONTEXTS, size_t);
IS(PAMI_TYPE_BYTE, pami_type_t);
IS(PAMI_TYPE_UNSIGNED_LONG_LONG, pami_type_t);
IS(PAMI_TYPE_LOGICAL8, pami_type_t);
IS(PAMI_TYPE_LOC_LONGDOUBLE_INT, pami_type_t);
IS(PAMI_DATA_COPY, pami_data_function);
IS(PAMI_DATA_NOOP, pami_data_function);
IS(PAMI_DATA_SUM, pami_data_function);
IS(PAMI_DATA_MINLOC, pami_data_function);

/* ---- function signatures ---- */
typedef pami_configuration_t cfg_t;
IS(&PAMI_Client_create, pami_result_t (*)(const char *, pami_client_t *, cfg_t *, size_t));
IS(&PAMI_Client_destroy, pami_result_t (*)(pami_client_t *));
IS(&PAMI_Client_query, pami_result_t (*)(pami_client_t, cfg_t *, size_t));
IS(&PAMI_Client_update, pami_result_t (*)(pami_client_t, cfg_t *, size_t));
IS(&PAMI_Context_createv, pami_result_t (*)(pami_client_t, cfg_t *, size_t, pami_context_t *, size_t));
IS(&PAMI_Context_destroyv, pami_result_t (*)(pami_context_t *, size_t));
IS(&PAMI_Context_query, pami_result_t (*)(pami_context_t, cfg_t *, size_t));
IS(&PAMI_Context_update, pami_result_t (*)(pami_context_t, cfg_t *, size_t));
IS(&PAMI_Context_post, pami_result_t (*)(pami_context_t, pami_work_t *, pami_work_function, void *));
IS(&PAMI_Context_advance, pami_result_t (*)(pami_context_t, size_t));
IS(&PAMI_Context_advancev, pami_result_t (*)(pami_context_t *, size_t, size_t));
IS(&PAMI_Context_trylock_advancev, pami_result_t (*)(pami_context_t *, size_t, size_t));
IS(&PAMI_Context_lock, pami_result_t (*)(pami_context_t));
IS(&PAMI_Context_trylock, pami_result_t (*)(pami_context_t));
IS(&PAMI_Context_unlock, pami_result_t (*)(pami_context_t));
IS(&PAMI_Endpoint_create, pami_result_t (*)(pami_client_t, pami_task_t, size_t, pami_endpoint_t *));
IS(&PAMI_Endpoint_query, pami_result_t (*)(pami_endpoint_t, pami_task_t *, size_t *));
IS(&PAMI_Memregion_create, pami_result_t (*)(pami_context_t, void *, size_t, size_t *, pami_memregion_t *));
IS(&PAMI_Memregion_destroy, pami_result_t (*)(pami_context_t, pami_memregion_t *));
IS(&PAMI_Send, pami_result_t (*)(pami_context_t, pami_send_t *));
IS(&PAMI_Send_immediate, pami_result_t (*)(pami_context_t, pami_send_immediate_t *));
IS(&PAMI_Send_typed, pami_result_t (*)(pami_context_t, pami_send_typed_t *));
IS(&PAMI_Dispatch_set, pami_result_t (*)(pami_context_t, size_t, pami_dispatch_callback_function, void *, pami_dispatch_hint_t));
IS(&PAMI_Dispatch_query, pami_result_t (*)(pami_context_t, size_t, cfg_t *, size_t));
IS(&PAMI_Dispatch_update, pami_result_t (*)(pami_context_t, size_t, cfg_t *, size_t));
IS(&PAMI_AMCollective_dispatch_set, pami_result_t (*)(pami_context_t, pami_algorithm_t, size_t, pami_dispatch_callback_function, void *, pami_collective_hint_t));
IS(&PAMI_Put, pami_result_t (*)(pami_context_t, pami_put_simple_t *));
IS(&PAMI_Put_typed, pami_result_t (*)(pami_context_t, pami_put_typed_t *));
IS(&PAMI_Get, pami_result_t (*)(pami_context_t, pami_get_simple_t *));
IS(&PAMI_Get_typed, pami_result_t (*)(pami_context_t, pami_get_typed_t *));
IS(&PAMI_Rput, pami_result_t (*)(pami_context_t, pami_rput_simple_t *));
IS(&PAMI_Rput_typed, pami_result_t (*)(pami_context_t, pami_rput_typed_t *));
IS(&PAMI_Rget, pami_result_t (*)(pami_context_t, pami_rget_simple_t *));
IS(&PAMI_Rget_typed, pami_result_t (*)(pami_context_t, pami_rget_typed_t *));
IS(&PAMI_Rmw, pami_result_t (*)(pami_context_t, pami_rmw_t *));
IS(&PAMI_Fence_begin, pami_result_t (*)(pami_context_t));
IS(&PAMI_Fence_end, pami_result_t (*)(pami_context_t));
IS(&PAMI_Fence_all, pami_result_t (*)(pami_context_t, pami_event_function, void *));
IS(&PAMI_Fence_endpoint, pami_result_t (*)(pami_context_t, pami_event_function, void *, pami_endpoint_t));
IS(&PAMI_Purge, pami_result_t (*)(pami_context_t, pami_endpoint_t *, size_t));
IS(&PAMI_Resume, pami_result_t (*)(pami_context_t, pami_endpoint_t *, size_t));
IS(&PAMI_Type_create, pami_result_t (*)(pami_type_t *));
IS(&PAMI_Type_add_simple, pami_result_t (*)(pami_type_t, size_t, size_t, size_t, size_t));
IS(&PAMI_Type_add_typed, pami_result_t (*)(pami_type_t, pami_type_t, size_t, size_t, size_t));
IS(&PAMI_Type_complete, pami_result_t (*)(pami_type_t, size_t));
IS(&PAMI_Type_destroy, pami_result_t (*)(pami_type_t *));
IS(&PAMI_Type_serialize, pami_result_t (*)(pami_type_t, void **, size_t *));
IS(&PAMI_Type_deserialize, pami_result_t (*)(pami_type_t *, void *, size_t));
IS(&PAMI_Type_query, pami_result_t (*)(pami_type_t, cfg_t *, size_t));
IS(&PAMI_Type_transform_data, pami_result_t (*)(void *, pami_type_t, size_t, void *, pami_type_t, size_t, size_t, pami_data_function, void *));
IS(&PAMI_Geometry_world, pami_result_t (*)(pami_client_t, pami_geometry_t *));
IS(&PAMI_Geometry_create_taskrange, pami_result_t (*)(pami_client_t, size_t, cfg_t *, size_t, pami_geometry_t *, pami_geometry_t, unsigned, pami_geometry_range_t *, size_t, pami_context_t, pami_event_function, void *));
IS(&PAMI_Geometry_create_tasklist, pami_result_t (*)(pami_client_t, size_t, cfg_t *, size_t, pami_geometry_t *, pami_geometry_t, unsigned, pami_task_t *, size_t, pami_context_t, pami_event_function, void *));
IS(&PAMI_Geometry_create_endpointlist, pami_result_t (*)(pami_client_t, cfg_t *, size_t, pami_geometry_t *, unsigned, pami_endpoint_t *, size_t, pami_context_t, pami_event_function, void *));
IS(&PAMI_Geometry_destroy, pami_result_t (*)(pami_client_t, pami_geometry_t *, pami_context_t, pami_event_function, void *));
IS(&PAMI_Geometry_query, pami_result_t (*)(pami_geometry_t, cfg_t *, size_t));
IS(&PAMI_Geometry_update, pami_result_t (*)(pami_geometry_t, cfg_t *, size_t, pami_context_t, pami_event_function, void *));
IS(&PAMI_Geometry_algorithms_num, pami_result_t (*)(pami_geometry_t, pami_xfer_type_t, size_t *));
IS(&PAMI_Geometry_algorithms_query, pami_result_t (*)(pami_geometry_t, pami_xfer_type_t, pami_algorithm_t *, pami_metadata_t *, size_t, pami_algorithm_t *, pami_metadata_t *, size_t));
IS(&PAMI_Collective, pami_result_t (*)(pami_context_t, pami_xfer_t *));
IS(&PAMI_Extension_open, pami_result_t (*)(pami_client_t, const char *, pami_extension_t *));
IS(&PAMI_Extension_close, pami_result_t (*)(pami_extension_t));
IS(&PAMI_Extension_symbol, void *(*)(pami_extension_t, const char *));
IS(&PAMI_Error_text, size_t (*)(char *, size_t));
IS(&PAMI_Wtime, double (*)(pami_client_t));
IS(&PAMI_Wtimebase, unsigned long long (*)(pami_client_t));
IS(&PAMI_Wtick, double (*)(pami_client_t));

/* ---- snippets in the style of real clients ---- */

static void done_cb(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    (void)r;
    ++*(int *)cookie;
}

static void recv_cb(pami_context_t ctx, void *cookie, const void *hdr,
                    size_t hdr_bytes, const void *pipe, size_t data_bytes,
                    pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx; (void)cookie; (void)hdr; (void)hdr_bytes; (void)origin;
    if (pipe == NULL && recv != NULL) {       /* asynchronous receive */
        recv->local_fn = done_cb;
        recv->cookie = cookie;
        recv->addr = NULL;
        recv->offset = 0;
        recv->data_fn = NULL;
        (void)data_bytes;
    }
}

static void add_cb(void *target, void *source, size_t bytes, void *cookie)
{
    (void)target; (void)source; (void)bytes; (void)cookie;
}

/* GASNet-style designated initialiser of an active-message send */
static size_t snippet_send(pami_endpoint_t ep, int *counter)
{
    static char hdr[8], payload[64];
    pami_send_t s = {
        .send = {
            .header = { .iov_base = hdr, .iov_len = sizeof hdr },
            .data = { .iov_base = payload, .iov_len = sizeof payload },
            .dispatch = 3,
            .hints = { .use_shmem = PAMI_HINT_ENABLE },
            .dest = ep,
        },
        .events = { .cookie = counter, .local_fn = done_cb, .remote_fn = NULL },
    };
    pami_send_immediate_t *imm = &s.send;   /* IBM tests alias it this way */
    return imm->header.iov_len + s.send.data.iov_len + s.send.dispatch;
}

static size_t snippet_allreduce(pami_algorithm_t alg, pami_type_t dbl,
                                int *counter)
{
    static double in[4], out[4];
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.cb_done = done_cb;
    x.cookie = counter;
    x.algorithm = alg;
    x.options.multicontext = PAMI_HINT_DISABLE;
    x.cmd.xfer_allreduce.sndbuf = (char *)in;
    x.cmd.xfer_allreduce.stype = dbl;
    x.cmd.xfer_allreduce.stypecount = 4;
    x.cmd.xfer_allreduce.rcvbuf = (char *)out;
    x.cmd.xfer_allreduce.rtype = dbl;
    x.cmd.xfer_allreduce.rtypecount = 4;
    x.cmd.xfer_allreduce.op = add_cb;
    x.cmd.xfer_allreduce.data_cookie = NULL;
    x.cmd.xfer_allreduce.commutative = 1;
    /* the barrier member is addressable even though it has no fields */
    pami_barrier_t *b = &x.cmd.xfer_barrier;
    (void)b;
    return x.cmd.xfer_allreduce.rtypecount;
}

static int snippet_rmw(pami_endpoint_t ep, pami_type_t ull, int *counter)
{
    static unsigned long long local, remote, value = 1, test;
    pami_rmw_t r;
    memset(&r, 0, sizeof r);
    r.dest = ep;
    r.cookie = counter;
    r.done_fn = done_cb;
    r.local = &local;
    r.remote = &remote;
    r.value = &value;
    r.test = &test;
    r.operation = PAMI_ATOMIC_FETCH_COMPARE_XOR;
    r.type = ull;
    return (int)r.operation;
}

static size_t snippet_rput(pami_endpoint_t ep, pami_memregion_t *lmr,
                           pami_memregion_t *rmr, int *counter)
{
    pami_rput_simple_t p = {
        .rma = { .dest = ep, .bytes = 128, .cookie = counter,
                 .done_fn = done_cb },
        .rdma = { .local = { .mr = lmr, .offset = 0 },
                  .remote = { .mr = rmr, .offset = 64 } },
        .put = { .rdone_fn = done_cb },
    };
    p.rma.hints.buffer_registered = PAMI_HINT_ENABLE;
    return p.rma.bytes + p.rdma.remote.offset;
}

static int snippet_dispatch(void)
{
    pami_dispatch_callback_function fn = { .p2p = recv_cb };
    pami_dispatch_hint_t options;
    memset(&options, 0, sizeof options);
    options.recv_immediate = PAMI_HINT_DISABLE;
    options.long_header = PAMI_HINT_ENABLE;
    pami_configuration_t q = { .name = PAMI_DISPATCH_RECV_IMMEDIATE_MAX };
    q.value.intval = 0;
    return fn.p2p == recv_cb && q.name == 300;
}

/* which bit of the word a single 2-bit field lands in */
#define BITS_OF(T, f) (__extension__({ \
    union { T h; unsigned w; } u_; \
    memset(&u_, 0, sizeof u_); \
    u_.h.f = 3; \
    u_.w; }))

int main(void)
{
    int counter = 0;
    pami_memregion_t a, b;
    int bad = 0;

    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    bad |= snippet_send(1u << 23, &counter) != 8 + 64 + 3;
    bad |= snippet_allreduce(0, NULL, &counter) != 4;
    bad |= snippet_rmw(0, NULL, &counter) != 23;
    bad |= snippet_rput(0, &a, &b, &counter) != 192;
    bad |= !snippet_dispatch();
    bad |= PAMI_IN_PLACE != (void *)-1L;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* first-declared bitfield takes the low bits (GCC/little endian) */
    bad |= BITS_OF(pami_send_hint_t, buffer_registered) != (3u << 12);
    bad |= BITS_OF(pami_send_hint_t, use_shmem) != (3u << 18);
    bad |= BITS_OF(pami_dispatch_hint_t, multicontext) != 3u;
    bad |= BITS_OF(pami_dispatch_hint_t, buffer_registered) != (3u << 12);
    bad |= BITS_OF(pami_dispatch_hint_t, use_shmem) != (3u << 18);
    bad |= BITS_OF(pami_dispatch_hint_t, queue_immediate) != (3u << 20);
    bad |= BITS_OF(pami_collective_hint_t, multicontext) != 3u;
#endif

    if (bad) {
        printf("pami abi MISMATCH\n");
        return 1;
    }
    printf("pami abi ok\n");
    return 0;
}
