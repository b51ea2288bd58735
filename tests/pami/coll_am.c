/* Active-message collectives: "I0:AMLinear:P2P:P2P" of PAMI_XFER_AMBROADCAST,
 * _AMSCATTER, _AMGATHER and _AMREDUCE, with the semantics of IBM's
 * implementation (only the root calls PAMI_Collective; the members hear of
 * it through the dispatch set with PAMI_AMCollective_dispatch_set):
 *   broadcast  every member but the root gets its dispatch (user_header,
 *              data_size = stypecount x type size, origin = the root, the
 *              geometry) and names a receive; the root gets no dispatch and
 *              completes by xfer.cb_done
 *   scatter    every member, the root too, gets its dispatch with
 *              headers + idx * headerlen and its block; the root completes by
 *              the local_fn its own dispatch gave (xfer.cb_done unused)
 *   gather     every member, the root too, gets its dispatch and names the
 *              data it sends; the root's rcvbuf takes the blocks in geometry
 *              order; the root completes by its own dispatch's local_fn
 *   reduce     as gather; the blocks are reduced with the op and type the
 *              ROOT's dispatch gave (whatever the others say)
 * Every root of the world geometry in turn, byte, typed and non-contiguous
 * buffers on both sides, zero bytes, a reversed task-list geometry (indices
 * are geometry ranks, not tasks), callbacks counted exactly, and the error
 * paths: a non-AM algorithm or NULL function to PAMI_AMCollective_dispatch_set
 * (PAMI_INVAL), a member without the dispatch id (one stderr line there; a
 * gather or reduce completes at the root with PAMI_INVAL), a root without
 * its own dispatch (one line, no completion), bad arguments.
 *
 * "FAIL task <t> <file>:<line> ..." and exit 1 on the first mismatch; every
 * wait is bounded. */
#include <sys/stat.h>

#include "coll_test.h"
#include "../common/errcap.h"

/* coll_test.h's FAIL, but with stderr put back first (CHECK_ERR and the
 * captures below redirect it) */
#undef FAIL
#define FAIL(...)                                                              \
    do {                                                                       \
        errcap_restore();                                                      \
        fprintf(stderr, "FAIL task %zu %s:%d ", ct_task, __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
        fflush(stderr);                                                        \
        exit(1);                                                               \
    } while (0)

enum { BC, SC, GA, RE, NK };
static const pami_xfer_type_t KIND[NK] = {PAMI_XFER_AMBROADCAST, PAMI_XFER_AMSCATTER, PAMI_XFER_AMGATHER,
                                          PAMI_XFER_AMREDUCE};
static const char *const KNAME[NK] = {"ambroadcast", "amscatter", "amgather", "amreduce"};

/* dispatch ids: MAIN set everywhere, PART everywhere but the last task of
 * the world, ROOTLESS everywhere but task 0 (one id per kind: k added) */
#define ID_MAIN 10
#define ID_PART 20
#define ID_ROOTLESS 30
#define ID_NEVER 90

struct geo {
    pami_geometry_t g;
    size_t n, me;
    size_t *tasks; /* geometry order */
    pami_algorithm_t alg[NK];
};

/* the round in progress, set on every task before the root starts */
static struct {
    struct geo *G;
    int kind;
    size_t root; /* geometry rank */
    size_t bytes, hlen;
    unsigned seq;
    int variant;
    pami_result_t want_local; /* what my local_fn must report */
    unsigned char *rbuf;      /* broadcast, scatter: my receive buffer */
    unsigned char *sbuf;      /* gather, reduce: the data I send */
} R;

static int cookies[NK];
static atomic_long n_disp[NK], n_local[NK], n_rootdone;
static long x_disp[NK], x_local[NK], x_rootdone; /* expected */
static pami_type_t T_STRIDE2; /* 1 byte of every 2 */
static pami_type_t T_INT8;    /* one 4-byte int of every 8 bytes */
static pami_type_t T_DBL16;   /* one double of every 16 bytes (a typed double) */

static void am_count_cb(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    if (r != PAMI_SUCCESS)
        FAIL("completion with result %d (%s round %u, %zu bytes, variant %d)", (int)r, R.G ? KNAME[R.kind] : "-", R.seq, R.bytes, R.variant);
    atomic_fetch_add((atomic_long *)cookie, 1);
}

static void am_wait(atomic_long *flag, long target, const char *what)
{
    double end = ct_now() + 60;
    while (atomic_load(flag) < target) {
        PAMI_Context_advance(ct_ctx, 16);
        if (ct_now() > end)
            FAIL("timed out waiting for %s (%ld of %ld)", what, atomic_load(flag), target);
    }
}

static pami_algorithm_t bar_alg;
static void am_barrier(void)
{
    atomic_long done = 0;
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = bar_alg;
    x.cb_done = am_count_cb;
    x.cookie = &done;
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_SUCCESS);
    am_wait(&done, 1, "barrier");
}

static pami_endpoint_t ep_of(size_t task)
{
    pami_endpoint_t e;
    CHECK_RC(PAMI_Endpoint_create(ct_client, (pami_task_t)task, 0, &e), PAMI_SUCCESS);
    return e;
}

static unsigned char pat(unsigned seq, size_t key, size_t i)
{
    return (unsigned char)(seq * 37 + key * 101 + i * 7 + (i >> 8) + 1);
}
static unsigned char hpat(unsigned seq, size_t key, size_t i)
{
    return (unsigned char)(seq * 13 + key * 29 + i * 3 + 5);
}

static void check_hdr(const void *h, size_t hl, size_t key)
{
    CHECK(hl == R.hlen, "%s: header of %zu bytes, %zu sent", KNAME[R.kind], hl, R.hlen);
    CHECK(!hl || h, "%s: header_addr NULL with %zu bytes", KNAME[R.kind], hl);
    const unsigned char *b = h;
    for (size_t i = 0; i < hl; i++)
        CHECK(b[i] == hpat(R.seq, key, i), "%s round %u: header byte %zu is %u, want %u (key %zu)",
              KNAME[R.kind], R.seq, i, b[i], hpat(R.seq, key, i), key);
}

static void check_common(pami_context_t ctx, void *cookie, int kind, size_t data_size, pami_endpoint_t origin,
                         pami_geometry_t geometry)
{
    CHECK(R.G && R.kind == kind, "%s dispatch ran during a round of %s", KNAME[kind], KNAME[R.kind]);
    CHECK(ctx == ct_ctx, "%s dispatch: context %p", KNAME[kind], (void *)ctx);
    CHECK(cookie == &cookies[kind], "%s dispatch: cookie %p, registered %p", KNAME[kind], cookie,
          (void *)&cookies[kind]);
    CHECK(geometry == R.G->g, "%s dispatch: geometry %p, want %p", KNAME[kind], (void *)geometry, (void *)R.G->g);
    CHECK(origin == ep_of(R.G->tasks[R.root]), "%s dispatch: origin %u, want the root task %zu", KNAME[kind],
          (unsigned)origin, R.G->tasks[R.root]);
    CHECK(data_size == R.bytes, "%s dispatch: data_size %zu, want %zu", KNAME[kind], data_size, R.bytes);
}

static void fill_recv(pami_recv_t *recv, int kind)
{
    CHECK(recv, "%s dispatch: recv is NULL", KNAME[kind]);
    recv->cookie = &n_local[kind];
    recv->local_fn = am_count_cb;
    recv->addr = R.rbuf;
    recv->type = R.variant ? T_STRIDE2 : PAMI_TYPE_BYTE;
    recv->offset = 0;
    recv->data_fn = PAMI_DATA_COPY;
    recv->data_cookie = NULL;
}

static void on_bcast(pami_context_t ctx, void *cookie, const void *h, size_t hl, const void *pipe, size_t dsize,
                     pami_endpoint_t origin, pami_geometry_t geometry, pami_recv_t *recv)
{
    (void)pipe;
    check_common(ctx, cookie, BC, dsize, origin, geometry);
    CHECK(R.G->me != R.root, "the root's own ambroadcast dispatch ran");
    check_hdr(h, hl, R.root);
    atomic_fetch_add(&n_disp[BC], 1);
    fill_recv(recv, BC);
}

static void on_scatter(pami_context_t ctx, void *cookie, const void *h, size_t hl, const void *pipe, size_t dsize,
                       pami_endpoint_t origin, pami_geometry_t geometry, pami_recv_t *recv)
{
    (void)pipe;
    check_common(ctx, cookie, SC, dsize, origin, geometry);
    check_hdr(h, hl, R.G->me);
    atomic_fetch_add(&n_disp[SC], 1);
    fill_recv(recv, SC);
}

/* the root's completion of a gather or reduce may carry an error */
static void on_root_local(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    if (r != R.want_local)
        FAIL("%s round %u: the root's completion reported %d, want %d", KNAME[R.kind], R.seq, (int)r,
             (int)R.want_local);
    atomic_fetch_add((atomic_long *)cookie, 1);
}

static void on_gather(pami_context_t ctx, void *cookie, const void *h, size_t hl, size_t dsize,
                      pami_endpoint_t origin, pami_geometry_t geometry, pami_recv_t *send)
{
    check_common(ctx, cookie, GA, dsize, origin, geometry);
    check_hdr(h, hl, R.G->me);
    CHECK(send, "amgather dispatch: send is NULL");
    atomic_fetch_add(&n_disp[GA], 1);
    send->cookie = &n_local[GA];
    send->local_fn = R.G->me == R.root ? on_root_local : am_count_cb;
    send->addr = R.sbuf;
    send->type = R.variant ? T_STRIDE2 : PAMI_TYPE_BYTE;
    send->offset = 0;
    send->data_fn = PAMI_DATA_COPY;
}

static void on_reduce(pami_context_t ctx, void *cookie, const void *h, size_t hl, size_t dsize,
                      pami_endpoint_t origin, pami_geometry_t geometry, pami_data_function *op, pami_recv_t *send)
{
    check_common(ctx, cookie, RE, dsize, origin, geometry);
    check_hdr(h, hl, R.root);
    CHECK(op && send, "amreduce dispatch: op %p send %p", (void *)op, (void *)send);
    atomic_fetch_add(&n_disp[RE], 1);
    int root = R.G->me == R.root;
    send->cookie = &n_local[RE];
    send->local_fn = root ? on_root_local : am_count_cb;
    send->addr = R.sbuf;
    send->offset = 0;
    send->data_fn = PAMI_DATA_COPY;
    switch (R.variant) {
    case 0: /* everyone: SUM of doubles */
        *op = PAMI_DATA_SUM;
        send->type = PAMI_TYPE_DOUBLE;
        break;
    case 1: /* the root: SUM of ints; the others say MAX of bytes */
        *op = root ? PAMI_DATA_SUM : PAMI_DATA_MAX;
        send->type = root ? PAMI_TYPE_SIGNED_INT : PAMI_TYPE_BYTE;
        break;
    default: /* the root: MIN of one double every 16 bytes; the others MAX */
        *op = root ? PAMI_DATA_MIN : PAMI_DATA_MAX;
        send->type = root ? T_DBL16 : PAMI_TYPE_DOUBLE;
        break;
    }
}

static void never_cb(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx, (void)cookie;
    FAIL("%s round %u: xfer.cb_done ran (result %d); the root's own dispatch names the completion",
         KNAME[R.kind], R.seq, (int)r);
}

static void on_bcast_done(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx, (void)cookie;
    if (r != PAMI_SUCCESS)
        FAIL("ambroadcast round %u: cb_done with %d", R.seq, (int)r);
    atomic_fetch_add(&n_rootdone, 1);
}

/* ---- one round ---- */

/* reduce operands: member idx's element i */
static double rval_d(unsigned seq, size_t idx, size_t i)
{
    return (double)((idx + 1) * (i % 7 + 1)) + (double)(seq % 3) * 0.5;
}
static int32_t rval_i(unsigned seq, size_t idx, size_t i)
{
    return (int32_t)(idx * 3) - (int32_t)(i % 5) + (int32_t)(seq % 4);
}

static void set_hdr(unsigned char *h, size_t key)
{
    for (size_t i = 0; i < R.hlen; i++)
        h[i] = hpat(R.seq, key, i);
}

static void check_counts(const char *when)
{
    for (int k = 0; k < NK; k++) {
        CHECK(atomic_load(&n_disp[k]) == x_disp[k], "%s: %s dispatch ran %ld times, want %ld", when, KNAME[k],
              atomic_load(&n_disp[k]), x_disp[k]);
        CHECK(atomic_load(&n_local[k]) == x_local[k], "%s: %s local_fn ran %ld times, want %ld", when, KNAME[k],
              atomic_load(&n_local[k]), x_local[k]);
    }
    CHECK(atomic_load(&n_rootdone) == x_rootdone, "%s: ambroadcast cb_done ran %ld times, want %ld", when,
          atomic_load(&n_rootdone), x_rootdone);
}

/* Capture stderr and advance until a line arrives (bounded); then exactly
 * one line containing `want`. */
static void expect_line(const char *want)
{
    double end = ct_now() + 60;
    struct stat st;
    for (;;) {
        PAMI_Context_advance(ct_ctx, 16);
        fflush(stderr);
        if (fstat(fileno(errcap_tmp), &st) == 0 && st.st_size > 0)
            break;
        if (ct_now() > end)
            FAIL("timed out waiting for the library's line \"%s\"", want);
    }
    /* the rest of a line written in pieces */
    double more = ct_now() + 0.2;
    while (ct_now() < more)
        PAMI_Context_advance(ct_ctx, 16);
    char line[512];
    int n = errcap_end(line, sizeof line);
    CHECK(n == 1 && strstr(line, want), "expected one stderr line with \"%s\", got %d: \"%s\"", want, n, line);
}

/* One collective of `kind` on G from geometry rank `root`. The task of
 * geometry rank `silent` (or none: (size_t)-1) has no dispatch `id`. */
static void am_round(struct geo *G, int kind, size_t root, size_t bytes, size_t hlen, int variant, size_t id,
                     size_t silent)
{
    static unsigned seqno;
    size_t n = G->n, me = G->me;
    int is_root = me == root, am_silent = me == silent;
    memset(&R, 0, sizeof R);
    R.G = G;
    R.kind = kind;
    R.root = root;
    R.bytes = bytes;
    R.hlen = hlen;
    R.seq = ++seqno;
    R.variant = variant;
    /* a member without the dispatch makes the root's gather/reduce fail */
    R.want_local = is_root && (kind == GA || kind == RE) && silent < n ? PAMI_INVAL : PAMI_SUCCESS;
    size_t span = variant ? 2 * bytes : bytes; /* T_STRIDE2 buffers */
    R.rbuf = malloc(span + 1);
    R.sbuf = malloc(span + 1);
    memset(R.rbuf, 0xEE, span + 1);
    memset(R.sbuf, 0x77, span + 1);
    if (kind == GA)
        for (size_t i = 0; i < bytes; i++)
            R.sbuf[variant ? 2 * i : i] = pat(R.seq, me, i);
    if (kind == RE) {
        size_t cnt = bytes / 8;
        if (variant == 1) {
            for (size_t i = 0; i < bytes / 4; i++) {
                int32_t v = rval_i(R.seq, me, i);
                memcpy(R.sbuf + 4 * i, &v, 4);
            }
        } else if (variant == 2 && is_root) { /* T_DBL16: one double of every 16 bytes */
            free(R.sbuf);
            R.sbuf = malloc(16 * cnt + 1);
            memset(R.sbuf, 0x77, 16 * cnt + 1);
            for (size_t i = 0; i < cnt; i++) {
                double v = rval_d(R.seq, me, i);
                memcpy(R.sbuf + 16 * i, &v, 8);
            }
        } else {
            for (size_t i = 0; i < cnt; i++) {
                double v = rval_d(R.seq, me, i);
                memcpy(R.sbuf + 8 * i, &v, 8);
            }
        }
    }
    /* expected callbacks on this task */
    int gets = !am_silent && !(kind == BC && is_root);
    int completes = gets || (kind == BC && is_root);
    if (gets)
        x_disp[kind]++;
    if (completes && !(kind == BC && is_root))
        x_local[kind]++;
    if (kind == BC && is_root)
        x_rootdone++;
    if (am_silent && errcap_begin() != 0)
        FAIL("cannot redirect stderr");

    am_barrier(); /* R is set everywhere */

    unsigned char *root_buf = NULL;
    size_t root_len = 0;
    if (is_root) {
        pami_xfer_t x;
        memset(&x, 0, sizeof x);
        x.algorithm = G->alg[kind];
        x.cb_done = kind == BC ? on_bcast_done : never_cb;
        x.cookie = NULL;
        unsigned char *hdrs = malloc(n * hlen + 1);
        switch (kind) {
        case BC: {
            set_hdr(hdrs, root);
            root_len = variant ? 2 * bytes : bytes;
            root_buf = malloc(root_len + 1);
            memset(root_buf, 0x77, root_len + 1);
            for (size_t i = 0; i < bytes; i++) /* T_INT8: 4 bytes of every 8 */
                root_buf[variant ? (i / 4) * 8 + i % 4 : i] = pat(R.seq, root, i);
            pami_ambroadcast_t *a = &x.cmd.xfer_ambroadcast;
            a->dispatch = id;
            a->user_header = hdrs;
            a->headerlen = hlen;
            a->sndbuf = root_buf;
            a->stype = variant ? T_INT8 : PAMI_TYPE_BYTE;
            a->stypecount = variant ? bytes / 4 : bytes;
            break;
        }
        case SC: {
            for (size_t m = 0; m < n; m++)
                for (size_t i = 0; i < hlen; i++)
                    hdrs[m * hlen + i] = hpat(R.seq, m, i);
            root_len = n * bytes;
            root_buf = malloc(root_len + 1);
            for (size_t m = 0; m < n; m++)
                for (size_t i = 0; i < bytes; i++)
                    root_buf[m * bytes + i] = pat(R.seq, m, i);
            pami_amscatter_t *a = &x.cmd.xfer_amscatter;
            a->dispatch = id;
            a->headers = hdrs;
            a->headerlen = hlen;
            a->sndbuf = root_buf;
            a->stype = variant ? PAMI_TYPE_SIGNED_INT : PAMI_TYPE_BYTE;
            a->stypecount = variant ? bytes / 4 : bytes; /* per member */
            break;
        }
        case GA: {
            for (size_t m = 0; m < n; m++)
                for (size_t i = 0; i < hlen; i++)
                    hdrs[m * hlen + i] = hpat(R.seq, m, i);
            root_len = n * bytes;
            root_buf = malloc(root_len + 1);
            memset(root_buf, 0xEE, root_len + 1);
            pami_amgather_t *a = &x.cmd.xfer_amgather;
            a->dispatch = id;
            a->headers = hdrs;
            a->headerlen = hlen;
            a->rcvbuf = root_buf;
            a->rtype = variant ? PAMI_TYPE_DOUBLE : PAMI_TYPE_BYTE;
            a->rtypecount = variant ? bytes / 8 : bytes;
            break;
        }
        default: {
            set_hdr(hdrs, root);
            root_len = bytes;
            root_buf = malloc(root_len + 1);
            memset(root_buf, 0xEE, root_len + 1);
            pami_amreduce_t *a = &x.cmd.xfer_amreduce;
            a->dispatch = id;
            a->user_header = hdrs;
            a->headerlen = hlen;
            a->rcvbuf = root_buf;
            /* the root's rtype is only the layout: bytes will do */
            a->rtype = variant == 2 ? PAMI_TYPE_DOUBLE : variant == 1 ? PAMI_TYPE_SIGNED_INT : PAMI_TYPE_BYTE;
            a->rtypecount = variant == 2 ? bytes / 8 : variant == 1 ? bytes / 4 : bytes;
            a->commutative = 1;
            break;
        }
        }
        CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_SUCCESS);
        free(hdrs);
    }

    if (am_silent) {
        expect_line("no active-message collective dispatch");
    } else {
        am_wait(&n_local[kind], x_local[kind], KNAME[kind]);
        am_wait(&n_disp[kind], x_disp[kind], KNAME[kind]);
        am_wait(&n_rootdone, x_rootdone, "ambroadcast cb_done");
    }

    /* data */
    if (!am_silent && (kind == BC ? !is_root : kind == SC)) {
        size_t key = kind == BC ? root : me;
        for (size_t i = 0; i < bytes; i++) {
            size_t at = variant ? 2 * i : i;
            CHECK(R.rbuf[at] == pat(R.seq, key, i), "%s round %u (%zu bytes, variant %d): byte %zu is %u, want %u",
                  KNAME[kind], R.seq, bytes, variant, i, R.rbuf[at], pat(R.seq, key, i));
            CHECK(!variant || R.rbuf[at + 1] == 0xEE, "%s round %u: gap after byte %zu written", KNAME[kind], R.seq,
                  i);
        }
        CHECK(R.rbuf[span] == 0xEE, "%s round %u: byte past the receive buffer written", KNAME[kind], R.seq);
    }
    if (is_root && kind == GA && R.want_local == PAMI_SUCCESS && !am_silent) {
        for (size_t m = 0; m < n; m++)
            for (size_t i = 0; i < bytes; i++)
                CHECK(root_buf[m * bytes + i] == pat(R.seq, m, i),
                      "amgather round %u (%zu bytes, variant %d): block %zu byte %zu is %u, want %u", R.seq, bytes,
                      variant, m, i, root_buf[m * bytes + i], pat(R.seq, m, i));
        CHECK(root_buf[root_len] == 0xEE, "amgather: byte past rcvbuf written");
    }
    if (is_root && kind == RE && R.want_local == PAMI_SUCCESS && !am_silent) {
        if (variant == 1) {
            for (size_t i = 0; i < bytes / 4; i++) {
                int32_t want = 0, got;
                for (size_t m = 0; m < n; m++)
                    want += rval_i(R.seq, m, i);
                memcpy(&got, root_buf + 4 * i, 4);
                CHECK(got == want, "amreduce round %u (ints, the root's SUM): element %zu is %d, want %d", R.seq, i,
                      got, want);
            }
        } else {
            for (size_t i = 0; i < bytes / 8; i++) {
                double want = variant ? 1e300 : 0, got;
                for (size_t m = 0; m < n; m++) {
                    double v = rval_d(R.seq, m, i);
                    want = variant ? (v < want ? v : want) : want + v;
                }
                memcpy(&got, root_buf + 8 * i, 8);
                CHECK(got == want, "amreduce round %u (variant %d): element %zu is %g, want %g", R.seq, variant, i, got,
                      want);
            }
        }
        CHECK(root_buf[root_len] == 0xEE, "amreduce: byte past rcvbuf written");
    }
    if (is_root && kind == BC)
        CHECK(atomic_load(&n_disp[BC]) == x_disp[BC], "the root got its own ambroadcast dispatch");

    am_barrier();
    char when[64];
    snprintf(when, sizeof when, "after %s round %u", KNAME[kind], R.seq);
    check_counts(when);
    free(root_buf);
    free(R.rbuf);
    free(R.sbuf);
    R.rbuf = R.sbuf = NULL;
    R.G = NULL;
}

/* ---- set-up ---- */

static void geo_algs(struct geo *G)
{
    for (int k = 0; k < NK; k++) {
        pami_metadata_t md;
        int list = -1;
        CHECK(ct_find(G->g, KIND[k], "I0:AMLinear:P2P:P2P", &G->alg[k], &md, &list), "%s: no I0:AMLinear:P2P:P2P",
              KNAME[k]);
        CHECK(list == 0, "%s: I0:AMLinear:P2P:P2P is in list %d, not the always-works list", KNAME[k], list);
        CHECK(!strcmp(md.name, "I0:AMLinear:P2P:P2P"), "%s: algorithm named \"%s\"", KNAME[k], md.name);
    }
}

static void set_dispatch(struct geo *G, size_t id, int k)
{
    pami_dispatch_callback_function fn;
    memset(&fn, 0, sizeof fn);
    switch (k) {
    case BC: fn.ambroadcast = on_bcast; break;
    case SC: fn.amscatter = on_scatter; break;
    case GA: fn.amgather = on_gather; break;
    default: fn.amreduce = on_reduce; break;
    }
    pami_collective_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_AMCollective_dispatch_set(ct_ctx, G->alg[k], id, fn, &cookies[k], h), PAMI_SUCCESS);
}

static void all_roots(struct geo *G)
{
    static const size_t bsizes[] = {0, 1, 100, 1000, 5000, 70001};
    static const size_t tsizes[] = {0, 8, 800, 65536};
    static const size_t hlens[] = {0, 16, 100};
    for (int k = 0; k < NK; k++)
        for (size_t root = 0; root < G->n; root++) {
            int nvar = k == RE ? 3 : 2;
            for (int v = 0; v < nvar; v++) {
                int typed = v > 0 || k == RE;
                size_t ns = typed ? sizeof tsizes / sizeof tsizes[0] : sizeof bsizes / sizeof bsizes[0];
                for (size_t s = 0; s < ns; s++) {
                    if (ct_quick && s % 2)
                        continue;
                    size_t bytes = typed ? tsizes[s] : bsizes[s];
                    am_round(G, k, root, bytes, hlens[(root + s) % 3], v, ID_MAIN + k, (size_t)-1);
                }
            }
        }
}

static void errors(struct geo *W)
{
    size_t n = W->n;
    pami_collective_hint_t h;
    memset(&h, 0, sizeof h);
    pami_dispatch_callback_function fn = {.ambroadcast = on_bcast}, none;
    memset(&none, 0, sizeof none);
    /* not an active-message algorithm; no function */
    CHECK_ERR(PAMI_AMCollective_dispatch_set(ct_ctx, bar_alg, ID_NEVER, fn, NULL, h), PAMI_INVAL,
              "PAMI_AMCollective_dispatch_set");
    pami_algorithm_t bc;
    CHECK(ct_find(ct_world, PAMI_XFER_BROADCAST, "Binomial", &bc, NULL, NULL), "no binomial broadcast");
    CHECK_ERR(PAMI_AMCollective_dispatch_set(ct_ctx, bc, ID_NEVER, fn, NULL, h), PAMI_INVAL,
              "PAMI_AMCollective_dispatch_set");
    CHECK_ERR(PAMI_AMCollective_dispatch_set(ct_ctx, W->alg[BC], ID_NEVER, none, NULL, h), PAMI_INVAL,
              "PAMI_AMCollective_dispatch_set");
    /* bad arguments at the root: a header length without a header, data
     * without a buffer */
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = W->alg[BC];
    x.cmd.xfer_ambroadcast = (pami_ambroadcast_t){ID_MAIN + BC, NULL, 8, NULL, PAMI_TYPE_BYTE, 0};
    CHECK_ERR(PAMI_Collective(ct_ctx, &x), PAMI_INVAL, "PAMI_Collective");
    x.algorithm = W->alg[GA];
    x.cmd.xfer_amgather = (pami_amgather_t){ID_MAIN + GA, NULL, 0, NULL, PAMI_TYPE_BYTE, 16};
    CHECK_ERR(PAMI_Collective(ct_ctx, &x), PAMI_INVAL, "PAMI_Collective");
    check_counts("after refused calls");
    am_barrier();

    /* a member without the dispatch id: it says so (one line) and takes no
     * part; broadcast and scatter complete elsewhere, a gather or reduce
     * completes at the root with PAMI_INVAL */
    if (n > 1)
        for (int k = 0; k < NK; k++) {
            am_round(W, k, 0, k == RE ? 64 : 100, 16, 0, ID_PART + k, n - 1);
            if (n > 2)
                am_round(W, k, n - 2, 0, 0, 0, ID_PART + k, n - 1);
        }

    /* a root without its own dispatch: a broadcast does not need it; a
     * scatter, gather or reduce reaches the root's own dispatch, which is
     * missing: one line there, no completion at the root (nothing names
     * one), the members complete their part */
    am_round(W, BC, 0, 100, 16, 0, ID_ROOTLESS + BC, (size_t)-1);
    for (int k = SC; k < NK; k++)
        am_round(W, k, 0, k == RE ? 64 : 100, 16, 0, ID_ROOTLESS + k, 0);
    /* let late replies of the rootless rounds land; nothing may run */
    double end = ct_now() + 0.5;
    while (ct_now() < end)
        PAMI_Context_advance(ct_ctx, 16);
    am_barrier();
    check_counts("after the error rounds");
}

int main(int argc, char **argv)
{
    ct_init(argc, argv);
    CHECK(ct_find(ct_world, PAMI_XFER_BARRIER, "Dissemination", &bar_alg, NULL, NULL), "no barrier");
    CHECK_RC(PAMI_Type_create(&T_STRIDE2), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(T_STRIDE2, 1, 0, 1, 2), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(T_STRIDE2, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_create(&T_INT8), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(T_INT8, 4, 0, 1, 8), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(T_INT8, 4), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_create(&T_DBL16), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_typed(T_DBL16, PAMI_TYPE_DOUBLE, 0, 1, 16), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(T_DBL16, 8), PAMI_SUCCESS);

    /* the world */
    struct geo W = {ct_world, ct_size, ct_task, malloc(ct_size * sizeof(size_t)), {0}};
    for (size_t i = 0; i < ct_size; i++)
        W.tasks[i] = i;
    geo_algs(&W);
    for (int k = 0; k < NK; k++) {
        set_dispatch(&W, ID_MAIN + k, k);
        if (ct_task != ct_size - 1)
            set_dispatch(&W, ID_PART + k, k);
        if (ct_task != 0)
            set_dispatch(&W, ID_ROOTLESS + k, k);
    }
    /* re-setting an id replaces it (same function here) */
    set_dispatch(&W, ID_MAIN + GA, GA);
    am_barrier();
    all_roots(&W);
    errors(&W);

    /* every task, reversed: geometry rank = n - 1 - task */
    {
        struct geo V = {NULL, ct_size, ct_size - 1 - ct_task, malloc(ct_size * sizeof(size_t)), {0}};
        pami_task_t *tl = malloc(ct_size * sizeof *tl);
        for (size_t i = 0; i < ct_size; i++) {
            V.tasks[i] = ct_size - 1 - i;
            tl[i] = (pami_task_t)V.tasks[i];
        }
        atomic_long created = 0;
        CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &V.g, NULL, 41, tl, ct_size, ct_ctx,
                                               am_count_cb, &created),
                 PAMI_SUCCESS);
        am_wait(&created, 1, "reversed geometry");
        geo_algs(&V);
        for (int k = 0; k < NK; k++)
            set_dispatch(&V, ID_MAIN + k, k);
        am_barrier();
        for (int k = 0; k < NK; k++) {
            am_round(&V, k, 0, k == RE ? 80 : 300, 16, 0, ID_MAIN + k, (size_t)-1);
            if (ct_size > 2)
                am_round(&V, k, 1, k == RE ? 80 : 320, 24, 1, ID_MAIN + k, (size_t)-1);
        }
        CHECK_RC(PAMI_Geometry_destroy(ct_client, &V.g, NULL, NULL, NULL), PAMI_SUCCESS);
        free(tl);
        free(V.tasks);
    }

    free(W.tasks);
    PAMI_Type_destroy(&T_STRIDE2);
    PAMI_Type_destroy(&T_INT8);
    PAMI_Type_destroy(&T_DBL16);
    ct_fini();
    if (ct_task == 0)
        printf("coll_am: %zu tasks ok\n", ct_size);
    return 0;
}
