/* First contact: every task sends to its right neighbour (short and long,
 * with local and remote completion), puts and gets by address and by
 * memory region, fetch-and-adds a counter on task 0, and fences. */
#include "ptest.h"

#define LONG_BYTES (64 * 1024 + 5)
#define DISPATCH_DATA 7

static atomic_long received, recv_done;
static unsigned char *long_buf;
static unsigned char short_buf[64];

static void on_data(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen,
                    const void *pipe, size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie;
    pami_task_t from;
    size_t off;
    CHECK_RC(PAMI_Endpoint_query(origin, &from, &off), PAMI_SUCCESS);
    CHECK(hlen == sizeof(uint32_t), "header %zu bytes", hlen);
    uint32_t h;
    memcpy(&h, hdr, sizeof h);
    CHECK(h == from, "header says %u, origin %u", h, from);
    if (dlen <= sizeof short_buf) {
        CHECK(pipe && !recv, "a short message should be immediate");
        memcpy(short_buf, pipe, dlen);
        atomic_fetch_add(&received, 1);
        return;
    }
    CHECK(!pipe && recv, "a long message should be asynchronous");
    CHECK(dlen == LONG_BYTES, "long message of %zu bytes", dlen);
    recv->local_fn = pt_count_cb;
    recv->cookie = &recv_done;
    recv->addr = long_buf;
    recv->type = PAMI_TYPE_BYTE;
    recv->data_fn = PAMI_DATA_COPY;
    atomic_fetch_add(&received, 1);
}

int main(void)
{
    pt_init(1);
    pami_context_t ctx = pt_ctx[0];
    size_t right = (pt_task + 1) % pt_size, left = (pt_task + pt_size - 1) % pt_size;
    pami_endpoint_t rep;
    CHECK_RC(PAMI_Endpoint_create(pt_client, (pami_task_t)right, 0, &rep), PAMI_SUCCESS);
    long_buf = calloc(1, LONG_BYTES);
    unsigned char *src = malloc(LONG_BYTES);
    for (size_t i = 0; i < LONG_BYTES; i++)
        src[i] = pt_pat(pt_task, i);
    pami_dispatch_callback_function fn = {.p2p = on_data};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(ctx, DISPATCH_DATA, fn, NULL, h), PAMI_SUCCESS);
    pt_barrier();

    /* send: short then long, both with local and remote completion */
    atomic_long local = 0, remote = 0;
    uint32_t me = (uint32_t)pt_task;
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.dest = rep;
    s.send.dispatch = DISPATCH_DATA;
    s.send.header.iov_base = &me;
    s.send.header.iov_len = sizeof me;
    s.send.data.iov_base = src;
    s.send.data.iov_len = 40;
    s.events.cookie = &local;
    s.events.local_fn = pt_count_cb;
    CHECK_RC(PAMI_Send(ctx, &s), PAMI_SUCCESS);
    pt_wait(ctx, &received, 1, 30);
    for (size_t i = 0; i < 40; i++)
        CHECK(short_buf[i] == pt_pat(left, i), "short byte %zu", i);
    s.send.data.iov_len = LONG_BYTES;
    s.events.remote_fn = pt_count_cb;
    s.events.cookie = &remote;
    s.events.local_fn = NULL;
    CHECK_RC(PAMI_Send(ctx, &s), PAMI_SUCCESS);
    pt_wait(ctx, &recv_done, 1, 30);
    pt_wait(ctx, &remote, 1, 30);
    pt_wait(ctx, &local, 1, 30);
    for (size_t i = 0; i < LONG_BYTES; i++)
        CHECK(long_buf[i] == pt_pat(left, i), "long byte %zu: %u", i, long_buf[i]);
    pt_barrier();

    /* put by address into the right neighbour's long_buf, then get it back */
    uint64_t addrs[PT_MAX_TASKS];
    uint64_t mine = (uint64_t)(uintptr_t)long_buf;
    pt_allgather(&mine, sizeof mine, addrs);
    for (size_t i = 0; i < LONG_BYTES; i++)
        src[i] = pt_pat(pt_task + 100, i);
    atomic_long pdone = 0, prdone = 0;
    pami_put_simple_t put;
    memset(&put, 0, sizeof put);
    put.rma.dest = rep;
    put.rma.bytes = LONG_BYTES;
    put.rma.cookie = &pdone;
    put.rma.done_fn = pt_count_cb;
    put.addr.local = src;
    put.addr.remote = (void *)(uintptr_t)addrs[right];
    put.put.rdone_fn = pt_count_cb;
    CHECK_RC(PAMI_Put(ctx, &put), PAMI_SUCCESS);
    put.rma.cookie = &prdone;
    pt_wait(ctx, &pdone, 2, 30); /* local and remote, same counter */
    pt_barrier();
    for (size_t i = 0; i < LONG_BYTES; i++)
        CHECK(long_buf[i] == pt_pat(left + 100, i), "put byte %zu", i);
    unsigned char *back = calloc(1, LONG_BYTES);
    atomic_long gdone = 0;
    pami_get_simple_t get;
    memset(&get, 0, sizeof get);
    get.rma.dest = rep;
    get.rma.bytes = LONG_BYTES;
    get.rma.cookie = &gdone;
    get.rma.done_fn = pt_count_cb;
    get.addr.local = back;
    get.addr.remote = (void *)(uintptr_t)addrs[right];
    CHECK_RC(PAMI_Get(ctx, &get), PAMI_SUCCESS);
    pt_wait(ctx, &gdone, 1, 30);
    for (size_t i = 0; i < LONG_BYTES; i++)
        CHECK(back[i] == pt_pat(pt_task + 100, i), "get byte %zu", i);
    pt_barrier();

    /* rput/rget through exchanged memory regions */
    pami_memregion_t mr, lmr, all_mr[PT_MAX_TASKS];
    size_t got;
    CHECK_RC(PAMI_Memregion_create(ctx, long_buf, LONG_BYTES, &got, &mr), PAMI_SUCCESS);
    CHECK(got == LONG_BYTES, "memregion covers %zu", got);
    CHECK_RC(PAMI_Memregion_create(ctx, src, LONG_BYTES, &got, &lmr), PAMI_SUCCESS);
    pt_allgather(&mr, sizeof mr, all_mr);
    for (size_t i = 0; i < LONG_BYTES; i++)
        src[i] = pt_pat(pt_task + 200, i);
    atomic_long rdone = 0;
    pami_rput_simple_t rput;
    memset(&rput, 0, sizeof rput);
    rput.rma.dest = rep;
    rput.rma.bytes = 1000;
    rput.rma.cookie = &rdone;
    rput.rma.done_fn = pt_count_cb;
    rput.rdma.local.mr = &lmr;
    rput.rdma.local.offset = 10;
    rput.rdma.remote.mr = &all_mr[right];
    rput.rdma.remote.offset = 20;
    rput.put.rdone_fn = pt_count_cb;
    CHECK_RC(PAMI_Rput(ctx, &rput), PAMI_SUCCESS);
    pt_wait(ctx, &rdone, 2, 30);
    rput.rdma.remote.offset = LONG_BYTES - 10; /* past the end */
    CHECK_RC(PAMI_Rput(ctx, &rput), PAMI_INVAL);
    pt_barrier();
    for (size_t i = 0; i < 1000; i++)
        CHECK(long_buf[20 + i] == pt_pat(left + 200, 10 + i), "rput byte %zu", i);

    /* fetch-and-add on task 0's counter: the old values are a permutation */
    static uint64_t counter;
    uint64_t caddr = (uint64_t)(uintptr_t)&counter, c0;
    pt_allgather(&caddr, sizeof caddr, addrs);
    c0 = addrs[0];
    pami_endpoint_t ep0;
    CHECK_RC(PAMI_Endpoint_create(pt_client, 0, 0, &ep0), PAMI_SUCCESS);
    uint64_t one = 1, old = 99;
    atomic_long adone = 0;
    pami_rmw_t rmw;
    memset(&rmw, 0, sizeof rmw);
    rmw.dest = ep0;
    rmw.cookie = &adone;
    rmw.done_fn = pt_count_cb;
    rmw.local = &old;
    rmw.remote = (void *)(uintptr_t)c0;
    rmw.value = &one;
    rmw.operation = PAMI_ATOMIC_FETCH_ADD;
    rmw.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
    CHECK_RC(PAMI_Rmw(ctx, &rmw), PAMI_SUCCESS);
    pt_wait(ctx, &adone, 1, 30);
    CHECK(old < pt_size, "fetched %llu", (unsigned long long)old);
    uint64_t olds[PT_MAX_TASKS];
    pt_allgather(&old, sizeof old, olds);
    unsigned char seen[PT_MAX_TASKS] = {0};
    for (size_t t = 0; t < pt_size; t++) {
        CHECK(olds[t] < pt_size && !seen[olds[t]], "fetched values not a permutation");
        seen[olds[t]] = 1;
    }
    if (pt_task == 0)
        CHECK(counter == pt_size, "counter %llu", (unsigned long long)counter);

    /* fence after a put */
    atomic_long fdone = 0;
    put.rma.done_fn = NULL;
    put.put.rdone_fn = NULL;
    put.rma.bytes = 16;
    CHECK_RC(PAMI_Fence_begin(ctx), PAMI_SUCCESS);
    CHECK_RC(PAMI_Put(ctx, &put), PAMI_SUCCESS);
    CHECK_RC(PAMI_Fence_all(ctx, pt_count_cb, &fdone), PAMI_SUCCESS);
    pt_wait(ctx, &fdone, 1, 30);
    CHECK_RC(PAMI_Fence_end(ctx), PAMI_SUCCESS);

    CHECK_RC(PAMI_Memregion_destroy(ctx, &mr), PAMI_SUCCESS);
    CHECK_RC(PAMI_Memregion_destroy(ctx, &lmr), PAMI_SUCCESS);
    pt_finish("pami_smoke");
    free(src);
    free(back);
    free(long_buf);
    return 0;
}
