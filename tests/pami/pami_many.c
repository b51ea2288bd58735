/* 64 tasks (4 nodes x 16): every task sends a short (immediate) and a
 * long (asynchronous) message to every task, puts a block into every
 * task's window, fences, and checks what it received; then a
 * fetch-and-add from everyone on task 0. */
#include "ptest.h"

#define SHORT 40
#define LONG 3000
#define BLOCK 256

static atomic_long shorts, longs_done;
static unsigned char *long_in; /* pt_size x LONG */
static unsigned char *win;     /* pt_size x BLOCK */

static void on_msg(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe, size_t dlen,
                   pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)h, (void)hlen;
    pami_task_t from;
    size_t off;
    CHECK_RC(PAMI_Endpoint_query(origin, &from, &off), PAMI_SUCCESS);
    CHECK(from < pt_size, "origin %u", from);
    if (dlen == SHORT) {
        CHECK(pipe && !recv, "short message not immediate");
        for (size_t i = 0; i < SHORT; i++)
            CHECK(((const unsigned char *)pipe)[i] == pt_pat(from + 1000, i), "short from %u byte %zu", from, i);
        atomic_fetch_add(&shorts, 1);
        return;
    }
    CHECK(dlen == LONG && !pipe && recv, "long message from %u: %zu bytes", from, dlen);
    recv->addr = long_in + (size_t)from * LONG;
    recv->type = PAMI_TYPE_BYTE;
    recv->data_fn = PAMI_DATA_COPY;
    recv->local_fn = pt_count_cb;
    recv->cookie = &longs_done;
}

int main(void)
{
    pt_init(1);
    long_in = calloc(pt_size, LONG);
    win = calloc(pt_size, BLOCK);
    static uint64_t counter;
    uint64_t mine[2] = {(uint64_t)(uintptr_t)win, (uint64_t)(uintptr_t)&counter}, all[PT_MAX_TASKS][2];
    pt_allgather(mine, sizeof mine, all);
    pami_dispatch_callback_function fn = {.p2p = on_msg};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], 2, fn, NULL, h), PAMI_SUCCESS);
    pt_barrier();
    unsigned char s_short[SHORT], s_long[LONG], block[BLOCK];
    for (size_t i = 0; i < SHORT; i++)
        s_short[i] = pt_pat(pt_task + 1000, i);
    for (size_t i = 0; i < LONG; i++)
        s_long[i] = pt_pat(pt_task + 2000, i);
    for (size_t i = 0; i < BLOCK; i++)
        block[i] = pt_pat(pt_task + 3000, i);
    atomic_long sent = 0, put_done = 0;
    for (size_t k = 0; k < pt_size; k++) {
        size_t t = (pt_task + k) % pt_size; /* spread the load */
        pami_endpoint_t ep = pt_ep(t, 0);
        pami_send_t s;
        memset(&s, 0, sizeof s);
        s.send.dest = ep;
        s.send.dispatch = 2;
        s.send.data.iov_base = s_short;
        s.send.data.iov_len = SHORT;
        CHECK_RC(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS);
        s.send.data.iov_base = s_long;
        s.send.data.iov_len = LONG;
        s.events.cookie = &sent;
        s.events.local_fn = pt_count_cb;
        CHECK_RC(PAMI_Send(pt_ctx[0], &s), PAMI_SUCCESS);
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = ep;
        p.rma.bytes = BLOCK;
        p.rma.cookie = &put_done;
        p.rma.done_fn = pt_count_cb;
        p.addr.local = block;
        p.addr.remote = (void *)(uintptr_t)(all[t][0] + pt_task * BLOCK);
        CHECK_RC(PAMI_Put(pt_ctx[0], &p), PAMI_SUCCESS);
        PAMI_Context_advance(pt_ctx[0], 1);
    }
    atomic_long fence = 0;
    CHECK_RC(PAMI_Fence_all(pt_ctx[0], pt_count_cb, &fence), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &fence, 1, 60);
    pt_wait(pt_ctx[0], &put_done, (long)pt_size, 60);
    pt_wait(pt_ctx[0], &sent, (long)pt_size, 60);
    pt_wait(pt_ctx[0], &shorts, (long)pt_size, 60);
    pt_wait(pt_ctx[0], &longs_done, (long)pt_size, 60);
    pt_barrier();
    for (size_t f = 0; f < pt_size; f++) {
        for (size_t i = 0; i < LONG; i++)
            CHECK(long_in[f * LONG + i] == pt_pat(f + 2000, i), "long from %zu byte %zu", f, i);
        for (size_t i = 0; i < BLOCK; i++)
            CHECK(win[f * BLOCK + i] == pt_pat(f + 3000, i), "put from %zu byte %zu", f, i);
    }
    /* everyone increments task 0's counter */
    uint64_t one = 1, old = ~0ull;
    atomic_long done = 0;
    pami_rmw_t m;
    memset(&m, 0, sizeof m);
    m.dest = pt_ep(0, 0);
    m.cookie = &done;
    m.done_fn = pt_count_cb;
    m.local = &old;
    m.remote = (void *)(uintptr_t)all[0][1];
    m.value = &one;
    m.operation = PAMI_ATOMIC_FETCH_ADD;
    m.type = PAMI_TYPE_UNSIGNED_LONG;
    CHECK_RC(PAMI_Rmw(pt_ctx[0], &m), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &done, 1, 60);
    CHECK(old < pt_size, "fetched %llu", (unsigned long long)old);
    pt_barrier();
    if (pt_task == 0)
        CHECK(counter == pt_size, "counter %llu", (unsigned long long)counter);
    pt_finish("pami_many");
    free(long_in);
    free(win);
    return 0;
}
