/* One-sided transfers.
 *
 * PAMI_Put / PAMI_Get by virtual address and PAMI_Rput / PAMI_Rget by
 * memory region, 1 B .. 4 MiB, into the right neighbour (and the task
 * itself), with done_fn only, rdone_fn only, both, and neither (then a
 * fence); typed variants with PAMI_Type_* vectors on either side; region
 * offsets; bounds errors; a foreign local region, a remote region of
 * another task than the destination, a destroyed local region, and a
 * remote region its owner destroyed (the NIC refuses: done_fn reports an
 * error and the memory is untouched). */
#include "ptest.h"

#define WIN (4u << 20)
#define GUARD 64

static unsigned char *win;   /* the window peers write into (GUARD each side) */
static unsigned char *lbuf;  /* local source / destination */
static uint64_t wins[PT_MAX_TASKS];
static size_t left, right;
static uint32_t round_no;

static unsigned char *W(void) { return win + GUARD; }

static void fill(unsigned char *p, size_t n, size_t key)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pt_pat(key, i);
}

static void expect(const unsigned char *p, size_t n, size_t key, const char *what, size_t bytes)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pt_pat(key, i))
            FAIL("%s (%zu bytes): byte %zu is %u, want %u", what, bytes, i, p[i], pt_pat(key, i));
}

static void expect_guards(const char *what)
{
    for (size_t i = 0; i < GUARD; i++)
        CHECK(win[i] == 0xab && win[GUARD + WIN + i] == 0xab, "%s wrote outside the window", what);
}

static void reset_window(void)
{
    memset(win, 0xab, WIN + 2 * GUARD);
}

/* mode bits: 1 done_fn, 2 rdone_fn; 0 = neither (a fence completes it) */
static void do_put(size_t to, size_t bytes, size_t roff, int mode)
{
    atomic_long l = 0, r = 0, f = 0;
    pami_put_simple_t p;
    memset(&p, 0, sizeof p);
    p.rma.dest = pt_ep(to, 0);
    p.rma.bytes = bytes;
    p.rma.cookie = mode == 2 ? (void *)&r : (void *)&l;
    p.rma.done_fn = (mode & 1) ? pt_count_cb : NULL;
    p.put.rdone_fn = (mode & 2) ? pt_count_cb : NULL;
    p.addr.local = lbuf;
    p.addr.remote = (void *)(uintptr_t)(wins[to] + GUARD + roff);
    CHECK_RC(PAMI_Put(pt_ctx[0], &p), PAMI_SUCCESS);
    if (mode == 3) {
        pt_wait(pt_ctx[0], &l, 2, 30); /* one cookie, both events */
    } else if (mode == 1) {
        pt_wait(pt_ctx[0], &l, 1, 30);
        CHECK_RC(PAMI_Fence_endpoint(pt_ctx[0], pt_count_cb, &f, pt_ep(to, 0)), PAMI_SUCCESS);
        pt_wait(pt_ctx[0], &f, 1, 30);
    } else if (mode == 2) {
        pt_wait(pt_ctx[0], &r, 1, 30);
    } else {
        CHECK_RC(PAMI_Fence_all(pt_ctx[0], pt_count_cb, &f), PAMI_SUCCESS);
        pt_wait(pt_ctx[0], &f, 1, 30);
    }
    pt_advance_for(pt_ctx[0], 0.002);
    CHECK(atomic_load(&l) == (mode == 3 ? 2 : mode == 1) && atomic_load(&r) == (mode == 2),
          "put callbacks: %ld / %ld (mode %d)", atomic_load(&l), atomic_load(&r), mode);
}

static void do_get(size_t from, size_t bytes, size_t roff)
{
    atomic_long g = 0;
    pami_get_simple_t p;
    memset(&p, 0, sizeof p);
    p.rma.dest = pt_ep(from, 0);
    p.rma.bytes = bytes;
    p.rma.cookie = &g;
    p.rma.done_fn = pt_count_cb;
    p.addr.local = lbuf;
    p.addr.remote = (void *)(uintptr_t)(wins[from] + GUARD + roff);
    CHECK_RC(PAMI_Get(pt_ctx[0], &p), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &g, 1, 30);
}

static void by_address(void)
{
    const size_t sizes[] = {1, 7, 144, 145, 4096, 65537, 1 << 20, WIN};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        for (int mode = 0; mode < 4; mode++) {
            if (n >= (1 << 20) && mode != 0 && mode != 3)
                continue; /* the big ones: neither callback, and both */
            for (int self = 0; self < 2; self++) {
                size_t to = self ? pt_task : right, from = self ? pt_task : left;
                size_t off = n == WIN ? 0 : (size_t)mode * 3;
                uint32_t key = round_no++;
                reset_window();
                pt_barrier();
                fill(lbuf, n, pt_task + key);
                do_put(to, n, off, mode);
                pt_barrier();
                expect(W() + off, n, from + key, "put", n);
                for (size_t k = 0; k < off; k++)
                    CHECK(W()[k] == 0xab, "put wrote before its offset");
                if (off + n < WIN)
                    CHECK(W()[off + n] == 0xab, "put wrote past its end");
                expect_guards("put");
                /* and read the neighbour's window back */
                memset(lbuf, 0, n);
                do_get(to, n, off);
                expect(lbuf, n, pt_task + key, "get", n);
                pt_barrier();
            }
        }
    }
}

/* ---- typed ---- */

static pami_type_t vec4_12, vec8_20;

static size_t vec_at(size_t b, size_t blk, size_t stride) { return b / blk * stride + b % blk; }

static void typed_by_address(void)
{
    const size_t sizes[] = {8, 4000, 24000};
    for (size_t i = 0; i < 3; i++) {
        size_t n = sizes[i];
        for (int side = 0; side < 3; side++) { /* typed local, typed remote, both */
            pami_type_t lt = side != 1 ? vec4_12 : PAMI_TYPE_BYTE;
            pami_type_t rt = side != 0 ? vec8_20 : PAMI_TYPE_BYTE;
            size_t lblk = side != 1 ? 4 : n, lstr = side != 1 ? 12 : n;
            size_t rblk = side != 0 ? 8 : n, rstr = side != 0 ? 20 : n;
            uint32_t key = round_no++;
            reset_window();
            memset(lbuf, 0xcd, WIN);
            pt_barrier();
            for (size_t b = 0; b < n; b++)
                lbuf[vec_at(b, lblk, lstr)] = pt_pat(pt_task + key, b);
            atomic_long c = 0;
            pami_put_typed_t p;
            memset(&p, 0, sizeof p);
            p.rma.dest = pt_ep(right, 0);
            p.rma.bytes = n;
            p.rma.cookie = &c;
            p.rma.done_fn = pt_count_cb;
            p.put.rdone_fn = pt_count_cb;
            p.addr.local = lbuf;
            p.addr.remote = (void *)(uintptr_t)(wins[right] + GUARD);
            p.type.local = lt;
            p.type.remote = rt;
            CHECK_RC(PAMI_Put_typed(pt_ctx[0], &p), PAMI_SUCCESS);
            pt_wait(pt_ctx[0], &c, 2, 30);
            pt_barrier();
            size_t rext = n / rblk * rstr;
            for (size_t b = 0; b < n; b++) {
                size_t at = vec_at(b, rblk, rstr);
                CHECK(W()[at] == pt_pat(left + key, b), "put_typed side %d (%zu bytes): stream byte %zu at %zu",
                      side, n, b, at);
            }
            for (size_t at = 0; at < rext; at++)
                CHECK(at % rstr < rblk || W()[at] == 0xab, "put_typed wrote a gap at %zu", at);
            expect_guards("put_typed");
            /* get it back through the same pair of types */
            memset(lbuf, 0, WIN);
            atomic_long g = 0;
            pami_get_typed_t q;
            memset(&q, 0, sizeof q);
            q.rma.dest = pt_ep(right, 0);
            q.rma.bytes = n;
            q.rma.cookie = &g;
            q.rma.done_fn = pt_count_cb;
            q.addr.local = lbuf;
            q.addr.remote = (void *)(uintptr_t)(wins[right] + GUARD);
            q.type.local = lt;
            q.type.remote = rt;
            CHECK_RC(PAMI_Get_typed(pt_ctx[0], &q), PAMI_SUCCESS);
            pt_wait(pt_ctx[0], &g, 1, 30);
            for (size_t b = 0; b < n; b++)
                CHECK(lbuf[vec_at(b, lblk, lstr)] == pt_pat(pt_task + key, b), "get_typed side %d: byte %zu",
                      side, b);
            for (size_t at = 0; at < n / lblk * lstr; at++)
                CHECK(at % lstr < lblk || lbuf[at] == 0, "get_typed wrote a local gap at %zu", at);
            pt_barrier();
        }
    }
}

/* ---- memory regions ---- */

static pami_memregion_t my_mr, my_lmr, mrs[PT_MAX_TASKS];

struct outcome {
    atomic_long calls, failures;
};

static void outcome_cb(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    struct outcome *o = cookie;
    if (r != PAMI_SUCCESS)
        atomic_fetch_add(&o->failures, 1);
    atomic_fetch_add(&o->calls, 1);
}

static void rput(size_t to, size_t loff, size_t roff, size_t n, int typed, pami_result_t want_rc,
                 const char *want_fn)
{
    atomic_long c = 0;
    if (typed) {
        pami_rput_typed_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pt_ep(to, 0);
        p.rma.bytes = n;
        p.rma.cookie = &c;
        p.rma.done_fn = pt_count_cb;
        p.put.rdone_fn = pt_count_cb;
        p.rdma.local.mr = &my_lmr;
        p.rdma.local.offset = loff;
        p.rdma.remote.mr = &mrs[to];
        p.rdma.remote.offset = roff;
        p.type.local = vec4_12;
        p.type.remote = vec8_20;
        if (want_fn) {
            CHECK_ERR(PAMI_Rput_typed(pt_ctx[0], &p), want_rc, want_fn);
            return;
        }
        CHECK_RC(PAMI_Rput_typed(pt_ctx[0], &p), PAMI_SUCCESS);
    } else {
        pami_rput_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pt_ep(to, 0);
        p.rma.bytes = n;
        p.rma.cookie = &c;
        p.rma.done_fn = pt_count_cb;
        p.put.rdone_fn = pt_count_cb;
        p.rdma.local.mr = &my_lmr;
        p.rdma.local.offset = loff;
        p.rdma.remote.mr = &mrs[to];
        p.rdma.remote.offset = roff;
        if (want_fn) {
            CHECK_ERR(PAMI_Rput(pt_ctx[0], &p), want_rc, want_fn);
            return;
        }
        CHECK_RC(PAMI_Rput(pt_ctx[0], &p), PAMI_SUCCESS);
    }
    pt_wait(pt_ctx[0], &c, 2, 30);
}

static void rget(size_t from, size_t loff, size_t roff, size_t n, int typed)
{
    atomic_long c = 0;
    if (typed) {
        pami_rget_typed_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pt_ep(from, 0);
        p.rma.bytes = n;
        p.rma.cookie = &c;
        p.rma.done_fn = pt_count_cb;
        p.rdma.local.mr = &my_lmr;
        p.rdma.local.offset = loff;
        p.rdma.remote.mr = &mrs[from];
        p.rdma.remote.offset = roff;
        p.type.local = vec4_12;
        p.type.remote = vec8_20;
        CHECK_RC(PAMI_Rget_typed(pt_ctx[0], &p), PAMI_SUCCESS);
    } else {
        pami_rget_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = pt_ep(from, 0);
        p.rma.bytes = n;
        p.rma.cookie = &c;
        p.rma.done_fn = pt_count_cb;
        p.rdma.local.mr = &my_lmr;
        p.rdma.local.offset = loff;
        p.rdma.remote.mr = &mrs[from];
        p.rdma.remote.offset = roff;
        CHECK_RC(PAMI_Rget(pt_ctx[0], &p), PAMI_SUCCESS);
    }
    pt_wait(pt_ctx[0], &c, 1, 30);
}

static void by_region(void)
{
    size_t got;
    CHECK_RC(PAMI_Memregion_create(pt_ctx[0], W(), WIN, &got, &my_mr), PAMI_SUCCESS);
    CHECK(got == WIN, "region covers %zu", got);
    CHECK_RC(PAMI_Memregion_create(pt_ctx[0], lbuf, WIN, &got, &my_lmr), PAMI_SUCCESS);
    pami_configuration_t q = {.name = PAMI_CLIENT_MEMREGION_SIZE};
    CHECK_RC(PAMI_Client_query(pt_client, &q, 1), PAMI_SUCCESS);
    CHECK(q.value.intval <= sizeof(pami_memregion_t) && q.value.intval > 0, "MEMREGION_SIZE %zu", q.value.intval);
    /* regions travel by value (the all-gather copies q.value.intval bytes) */
    CHECK(sizeof(pami_memregion_t) <= PT_GATHER_MAX, "pami_memregion_t too big for the harness");
    pt_allgather(&my_mr, sizeof my_mr, mrs);

    const size_t sizes[] = {1, 144, 145, 65536, 1 << 20, WIN - 100};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        for (int self = 0; self < 2; self++) {
            size_t to = self ? pt_task : right, from = self ? pt_task : left;
            size_t loff = 13, roff = 100 - (n == WIN - 100 ? 100 : 0);
            uint32_t key = round_no++;
            reset_window();
            pt_barrier();
            fill(lbuf + loff, n, pt_task + key);
            rput(to, loff, roff, n, 0, 0, NULL);
            pt_barrier();
            expect(W() + roff, n, from + key, "rput", n);
            if (roff)
                CHECK(W()[roff - 1] == 0xab, "rput wrote before its offset");
            if (roff + n < WIN)
                CHECK(W()[roff + n] == 0xab, "rput wrote past its end");
            expect_guards("rput");
            memset(lbuf, 0, n + 100);
            rget(to, 7, roff, n, 0);
            expect(lbuf + 7, n, pt_task + key, "rget", n);
            CHECK(lbuf[6] == 0 && lbuf[7 + n] == 0, "rget wrote outside its range");
            pt_barrier();
        }
    }
    /* typed, by region */
    const size_t tsizes[] = {8, 4000, 16000};
    for (size_t i = 0; i < 3; i++) {
        size_t n = tsizes[i];
        uint32_t key = round_no++;
        reset_window();
        memset(lbuf, 0xcd, WIN);
        pt_barrier();
        for (size_t b = 0; b < n; b++)
            lbuf[16 + vec_at(b, 4, 12)] = pt_pat(pt_task + key, b);
        rput(right, 16, 40, n, 1, 0, NULL);
        pt_barrier();
        for (size_t b = 0; b < n; b++)
            CHECK(W()[40 + vec_at(b, 8, 20)] == pt_pat(left + key, b), "rput_typed (%zu bytes) byte %zu", n, b);
        for (size_t at = 0; at < n / 8 * 20; at++)
            CHECK(at % 20 < 8 || W()[40 + at] == 0xab, "rput_typed wrote a gap at %zu", at);
        memset(lbuf, 0, WIN);
        rget(right, 16, 40, n, 1);
        for (size_t b = 0; b < n; b++)
            CHECK(lbuf[16 + vec_at(b, 4, 12)] == pt_pat(pt_task + key, b), "rget_typed byte %zu", b);
        pt_barrier();
    }

    /* bounds: the remote range, the local range, typed spans */
    rput(right, 0, WIN - 10, 11, 0, PAMI_INVAL, "PAMI_Rput");
    rput(right, 0, WIN + 1, 1, 0, PAMI_INVAL, "PAMI_Rput");
    rput(right, WIN - 5, 0, 6, 0, PAMI_INVAL, "PAMI_Rput");
    rput(right, 0, (size_t)-1, 2, 0, PAMI_INVAL, "PAMI_Rput");
    rput(right, 0, WIN - 100, 80, 1, PAMI_INVAL, "PAMI_Rput_typed"); /* 80 B of vec8_20 span 200 */
    rput(right, 0, 0, WIN, 0, 0, NULL);                              /* exactly the region: fine */
    rput(right, 0, WIN, 0, 0, PAMI_INVAL, "PAMI_Rput");              /* 0 bytes */
    /* foreign local region; remote region of another task than dest */
    pami_rput_simple_t p;
    memset(&p, 0, sizeof p);
    p.rma.dest = pt_ep(right, 0);
    p.rma.bytes = 8;
    p.rdma.local.mr = &mrs[right];
    p.rdma.remote.mr = &mrs[right];
    if (right != pt_task) {
        CHECK_ERR(PAMI_Rput(pt_ctx[0], &p), PAMI_INVAL, "PAMI_Rput");
        p.rdma.local.mr = &my_lmr;
        p.rdma.remote.mr = &mrs[pt_task];
        CHECK_ERR(PAMI_Rput(pt_ctx[0], &p), PAMI_INVAL, "PAMI_Rput");
        pami_rget_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma.dest = pt_ep(right, 0);
        g.rma.bytes = 8;
        g.rdma.local.mr = &mrs[right];
        g.rdma.remote.mr = &mrs[right];
        CHECK_ERR(PAMI_Rget(pt_ctx[0], &g), PAMI_INVAL, "PAMI_Rget");
        /* and only the owner destroys a region */
        pami_memregion_t copy;
        memcpy(&copy, &mrs[right], sizeof copy);
        CHECK_ERR(PAMI_Memregion_destroy(pt_ctx[0], &copy), PAMI_INVAL, "PAMI_Memregion_destroy");
    }
    pt_barrier();

    /* a destroyed local region */
    pami_memregion_t tmp;
    CHECK_RC(PAMI_Memregion_create(pt_ctx[0], lbuf, 100, &got, &tmp), PAMI_SUCCESS);
    CHECK_RC(PAMI_Memregion_destroy(pt_ctx[0], &tmp), PAMI_SUCCESS);
    p.rdma.local.mr = &tmp;
    p.rdma.remote.mr = &mrs[right];
    CHECK_ERR(PAMI_Rput(pt_ctx[0], &p), PAMI_INVAL, "PAMI_Rput");
    CHECK_ERR(PAMI_Memregion_destroy(pt_ctx[0], &tmp), PAMI_INVAL, "PAMI_Memregion_destroy");

    /* a remote region destroyed by its owner: the peer's copy looks fine,
     * the NIC refuses the access and the completion says so */
    reset_window();
    CHECK_RC(PAMI_Memregion_destroy(pt_ctx[0], &my_mr), PAMI_SUCCESS);
    pt_barrier();
    fill(lbuf, 64, 999);
    /* done_fn (local) may succeed: the bytes left; rdone_fn must not */
    struct outcome res = {0};
    memset(&p, 0, sizeof p);
    p.rma.dest = pt_ep(right, 0);
    p.rma.bytes = 64;
    p.rma.cookie = &res;
    p.rma.done_fn = outcome_cb;
    p.put.rdone_fn = outcome_cb;
    p.rdma.local.mr = &my_lmr;
    p.rdma.remote.mr = &mrs[right];
    pami_result_t rc = PAMI_Rput(pt_ctx[0], &p);
    if (rc == PAMI_SUCCESS) {
        pt_wait(pt_ctx[0], &res.calls, 2, 30);
        CHECK(atomic_load(&res.failures) >= 1, "an rput into a destroyed region succeeded (both completions)");
    } else {
        CHECK(rc == PAMI_INVAL, "rput into a destroyed region returned %d", (int)rc);
    }
    atomic_long gres = 0;
    pami_rget_simple_t g;
    memset(&g, 0, sizeof g);
    g.rma.dest = pt_ep(right, 0);
    g.rma.bytes = 64;
    g.rma.cookie = &gres;
    g.rma.done_fn = pt_result_cb;
    g.rdma.local.mr = &my_lmr;
    g.rdma.remote.mr = &mrs[right];
    rc = PAMI_Rget(pt_ctx[0], &g);
    if (rc == PAMI_SUCCESS) {
        pt_wait(pt_ctx[0], &gres, 1, 30);
        CHECK(atomic_load(&gres) - 1 != PAMI_SUCCESS, "an rget from a destroyed region succeeded");
    }
    pt_barrier();
    for (size_t i = 0; i < WIN; i++)
        if (W()[i] != 0xab)
            FAIL("a put into a destroyed region changed byte %zu", i);
    CHECK_RC(PAMI_Memregion_destroy(pt_ctx[0], &my_lmr), PAMI_SUCCESS);
    pt_barrier();
}

/* bad arguments of the address forms */
static void address_errors(void)
{
    pami_put_simple_t p;
    memset(&p, 0, sizeof p);
    p.rma.dest = pt_ep(right, 0);
    p.rma.bytes = 0;
    p.addr.local = lbuf;
    p.addr.remote = (void *)(uintptr_t)wins[right];
    CHECK_ERR(PAMI_Put(pt_ctx[0], &p), PAMI_INVAL, "PAMI_Put");
    p.rma.bytes = 8;
    p.addr.remote = NULL;
    CHECK_ERR(PAMI_Put(pt_ctx[0], &p), PAMI_INVAL, "PAMI_Put");
    pami_get_simple_t g;
    memset(&g, 0, sizeof g);
    g.rma.dest = pt_ep(right, 0);
    g.rma.bytes = 8;
    g.addr.local = NULL;
    g.addr.remote = (void *)(uintptr_t)wins[right];
    CHECK_ERR(PAMI_Get(pt_ctx[0], &g), PAMI_INVAL, "PAMI_Get");
    g.rma.dest = (pami_endpoint_t)pt_size; /* task out of range */
    g.addr.local = lbuf;
    CHECK_ERR(PAMI_Get(pt_ctx[0], &g), PAMI_INVAL, "PAMI_Get");
    pami_put_typed_t t;
    memset(&t, 0, sizeof t);
    t.rma.dest = pt_ep(right, 0);
    t.rma.bytes = 8;
    t.addr.local = lbuf;
    t.addr.remote = (void *)(uintptr_t)wins[right];
    t.type.local = PAMI_TYPE_BYTE;
    t.type.remote = NULL;
    CHECK_ERR(PAMI_Put_typed(pt_ctx[0], &t), PAMI_INVAL, "PAMI_Put_typed");
    pami_type_t open;
    CHECK_RC(PAMI_Type_create(&open), PAMI_SUCCESS); /* never completed */
    CHECK_RC(PAMI_Type_add_simple(open, 4, 0, 2, 8), PAMI_SUCCESS);
    t.type.remote = open;
    CHECK_ERR(PAMI_Put_typed(pt_ctx[0], &t), PAMI_INVAL, "PAMI_Put_typed");
    pami_get_typed_t gt;
    memset(&gt, 0, sizeof gt);
    gt.rma.dest = pt_ep(right, 0);
    gt.rma.bytes = 8;
    gt.addr.local = lbuf;
    gt.addr.remote = (void *)(uintptr_t)wins[right];
    gt.type.local = open;
    gt.type.remote = PAMI_TYPE_BYTE;
    CHECK_ERR(PAMI_Get_typed(pt_ctx[0], &gt), PAMI_INVAL, "PAMI_Get_typed");
    CHECK_RC(PAMI_Type_destroy(&open), PAMI_SUCCESS);
}

int main(void)
{
    pt_init(1);
    right = (pt_task + 1) % pt_size;
    left = (pt_task + pt_size - 1) % pt_size;
    win = malloc(WIN + 2 * GUARD);
    lbuf = malloc(WIN + 64);
    reset_window();
    uint64_t mine = (uint64_t)(uintptr_t)win;
    pt_allgather(&mine, sizeof mine, wins);
    CHECK_RC(PAMI_Type_create(&vec4_12), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(vec4_12, 4, 0, 1, 12), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(vec4_12, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_create(&vec8_20), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(vec8_20, 8, 0, 1, 20), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(vec8_20, 4), PAMI_SUCCESS);
    by_address();
    typed_by_address();
    by_region();
    address_errors();
    CHECK_RC(PAMI_Type_destroy(&vec4_12), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_destroy(&vec8_20), PAMI_SUCCESS);
    pt_finish("pami_rma");
    free(win);
    free(lbuf);
    return 0;
}
