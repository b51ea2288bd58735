/* Fences: PAMI_Fence_begin/end bracketing (no nesting, no end without a
 * begin), Fence_all and Fence_endpoint with nothing outstanding (done_fn
 * at a later advance, not inside the call), and visibility: after many
 * puts and rmws without callbacks, the fence's done_fn means they are all
 * applied at the target, which a notice sent after it (or a get) shows. */
#include "ptest.h"

#define NPUT 64
#define PUTSZ 1000
#define NRMW 50

static unsigned char *win;
static uint64_t counter;
static uint64_t wins[PT_MAX_TASKS][2];
static atomic_long notices;

static size_t left, right;

static void on_notice(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                      size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)pipe, (void)dlen, (void)origin, (void)recv;
    uint32_t round;
    CHECK(hlen == sizeof round, "notice header %zu", hlen);
    memcpy(&round, h, sizeof round);
    /* everything the left neighbour wrote before its fence is here now */
    for (size_t k = 0; k < (size_t)NPUT * PUTSZ; k++)
        if (win[k] != pt_pat(left + round, k))
            FAIL("after the fence (round %u): byte %zu is %u, want %u", round, k, win[k], pt_pat(left + round, k));
    CHECK(counter == (uint64_t)NRMW * (round + 1), "after the fence (round %u): counter %llu, want %d", round,
          (unsigned long long)counter, NRMW * (int)(round + 1));
    atomic_fetch_add(&notices, 1);
}

static void notify(uint32_t round)
{
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.dest = pt_ep(right, 0);
    s.dispatch = 3;
    s.header.iov_base = &round;
    s.header.iov_len = sizeof round;
    CHECK_RC(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_SUCCESS);
}

static void write_round(uint32_t round, unsigned char *src)
{
    for (size_t k = 0; k < (size_t)NPUT * PUTSZ; k++)
        src[k] = pt_pat(pt_task + round, k);
    for (int i = 0; i < NPUT; i++) {
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pt_ep(right, 0);
        p.rma.bytes = PUTSZ;
        p.addr.local = src + (size_t)i * PUTSZ;
        p.addr.remote = (void *)(uintptr_t)(wins[right][0] + (size_t)i * PUTSZ);
        CHECK_RC(PAMI_Put(pt_ctx[0], &p), PAMI_SUCCESS);
    }
    static uint64_t one = 1;
    for (int i = 0; i < NRMW; i++) {
        pami_rmw_t m;
        memset(&m, 0, sizeof m);
        m.dest = pt_ep(right, 0);
        m.remote = (void *)(uintptr_t)wins[right][1];
        m.value = &one;
        m.operation = PAMI_ATOMIC_ADD;
        m.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
        CHECK_RC(PAMI_Rmw(pt_ctx[0], &m), PAMI_SUCCESS);
    }
}

int main(void)
{
    pt_init(1);
    right = (pt_task + 1) % pt_size;
    left = (pt_task + pt_size - 1) % pt_size;
    win = calloc(NPUT, PUTSZ);
    unsigned char *src = malloc((size_t)NPUT * PUTSZ);
    uint64_t mine[2] = {(uint64_t)(uintptr_t)win, (uint64_t)(uintptr_t)&counter};
    pt_allgather(mine, sizeof mine, wins);
    pami_dispatch_callback_function fn = {.p2p = on_notice};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], 3, fn, NULL, h), PAMI_SUCCESS);
    pami_context_t ctx = pt_ctx[0];

    /* bracketing */
    CHECK_ERR(PAMI_Fence_end(ctx), PAMI_INVAL, "PAMI_Fence_end");
    CHECK_RC(PAMI_Fence_begin(ctx), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Fence_begin(ctx), PAMI_INVAL, "PAMI_Fence_begin");
    CHECK_RC(PAMI_Fence_end(ctx), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Fence_end(ctx), PAMI_INVAL, "PAMI_Fence_end");
    CHECK_RC(PAMI_Fence_begin(ctx), PAMI_SUCCESS);

    /* nothing outstanding: done_fn later, in an advance */
    atomic_long f = 0;
    CHECK_RC(PAMI_Fence_all(ctx, pt_count_cb, &f), PAMI_SUCCESS);
    CHECK(atomic_load(&f) == 0, "Fence_all ran done_fn inside the call");
    pt_wait(ctx, &f, 1, 10);
    CHECK_RC(PAMI_Fence_endpoint(ctx, pt_count_cb, &f, pt_ep(right, 0)), PAMI_SUCCESS);
    CHECK(atomic_load(&f) == 1, "Fence_endpoint ran done_fn inside the call");
    pt_wait(ctx, &f, 2, 10);
    CHECK_RC(PAMI_Fence_all(ctx, NULL, NULL), PAMI_SUCCESS); /* no callback: fine */
    pt_barrier();

    /* visibility after Fence_all and after Fence_endpoint, alternating */
    const uint32_t rounds = 6;
    for (uint32_t r = 0; r < rounds; r++) {
        write_round(r, src);
        atomic_long done = 0;
        if (r % 2 == 0)
            CHECK_RC(PAMI_Fence_all(ctx, pt_count_cb, &done), PAMI_SUCCESS);
        else
            CHECK_RC(PAMI_Fence_endpoint(ctx, pt_count_cb, &done, pt_ep(right, 0)), PAMI_SUCCESS);
        pt_wait(ctx, &done, 1, 30);
        notify(r);
        pt_wait(ctx, &notices, (long)r + 1, 30);
        pt_barrier();
    }

    /* a get after a fence sees the puts, on every task */
    pt_barrier();
    for (size_t t = 0; t < pt_size; t++) {
        static unsigned char b[PUTSZ], back[PUTSZ];
        for (size_t k = 0; k < PUTSZ; k++)
            b[k] = (unsigned char)(k + t + pt_task);
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pt_ep(right, 0);
        p.rma.bytes = PUTSZ;
        p.addr.local = b;
        p.addr.remote = (void *)(uintptr_t)(wins[right][0] + (size_t)t * PUTSZ);
        if (t == pt_task)
            CHECK_RC(PAMI_Put(ctx, &p), PAMI_SUCCESS);
        atomic_long done = 0;
        CHECK_RC(PAMI_Fence_endpoint(ctx, pt_count_cb, &done, pt_ep(right, 0)), PAMI_SUCCESS);
        pt_wait(ctx, &done, 1, 30);
        if (t == pt_task) {
            atomic_long g = 0;
            pami_get_simple_t q;
            memset(&q, 0, sizeof q);
            q.rma.dest = pt_ep(right, 0);
            q.rma.bytes = PUTSZ;
            q.rma.cookie = &g;
            q.rma.done_fn = pt_count_cb;
            q.addr.local = back;
            q.addr.remote = (void *)(uintptr_t)(wins[right][0] + (size_t)t * PUTSZ);
            CHECK_RC(PAMI_Get(ctx, &q), PAMI_SUCCESS);
            pt_wait(ctx, &g, 1, 30);
            CHECK(!memcmp(b, back, PUTSZ), "a get after the fence missed the put");
        }
    }
    CHECK_RC(PAMI_Fence_end(ctx), PAMI_SUCCESS);
    pt_finish("pami_fence");
    free(win);
    free(src);
    return 0;
}
