/* Collectives on non-contiguous types and in place.
 *   moves   allgatherv (and _int), gatherv, scatterv, alltoallv with a type
 *           of one double every 16 bytes (PAMI_Type_add_simple(8, 0, 1, 16):
 *           size 8, extent 16); counts in elements, displacements in the
 *           type's extent; blocks with gaps between them; alltoallv with a
 *           contiguous send and the strided receive
 *   reduce  allreduce (every algorithm the metadata allows), reduce, scan
 *           (inclusive and exclusive) and reduce_scatter with a type of two
 *           doubles 24 bytes apart, extent 48, built by
 *           PAMI_Type_add_typed(PAMI_TYPE_DOUBLE, ...): the reduction works
 *           on the packed doubles; also a strided send into a contiguous
 *           receive
 *   in place alltoall and alltoallv with sndbuf == rcvbuf, bytes, doubles
 *           and the strided type
 * Every element is checked, and every byte of a receive buffer that is not
 * an element (the gaps) must keep its fill. "FAIL task <t> <file>:<line>
 * ..." and exit 1 on the first mismatch; every wait is bounded. */
#include "coll_test.h"

static pami_type_t T_D16; /* one double every 16 bytes */
static pami_type_t T_RD;  /* two doubles 24 bytes apart, extent 48 (typed) */
#define FILL 0xEE

/* ---- a receive buffer and the image it must end up as ---- */

struct img {
    unsigned char *got, *want;
    size_t len;
};

static void img_new(struct img *m, size_t len)
{
    m->len = len;
    m->got = malloc(len + 1);
    m->want = malloc(len + 1);
    memset(m->got, FILL, len + 1);
    memset(m->want, FILL, len + 1);
}

static void img_put(struct img *m, size_t off, double v)
{
    CHECK(off + 8 <= m->len, "image offset %zu of %zu", off, m->len);
    memcpy(m->want + off, &v, 8);
}

/* the element at off may hold anything (not pinned) */
static void img_any(struct img *m, size_t off)
{
    memcpy(m->want + off, m->got + off, 8);
}

static void img_check(struct img *m, const char *what)
{
    for (size_t i = 0; i <= m->len; i++)
        if (m->got[i] != m->want[i]) {
            size_t e = i / 8 * 8;
            double g = 0, w = 0;
            if (e + 8 <= m->len) {
                memcpy(&g, m->got + e, 8);
                memcpy(&w, m->want + e, 8);
            }
            FAIL("%s: byte %zu of %zu is %#x, want %#x (%s; 8 bytes at %zu: %g, want %g)", what, i, m->len,
                 m->got[i], m->want[i], m->want[i] == FILL ? "a gap was written" : "wrong element", e, g, w);
        }
    free(m->got);
    free(m->want);
}

static unsigned char *sbuf_new(size_t len)
{
    unsigned char *p = malloc(len + 1);
    memset(p, 0x55, len + 1);
    return p;
}
static void put_d(unsigned char *p, size_t off, double v)
{
    memcpy(p + off, &v, 8);
}

static pami_endpoint_t ep_of(size_t task)
{
    pami_endpoint_t e;
    CHECK_RC(PAMI_Endpoint_create(ct_client, (pami_task_t)task, 0, &e), PAMI_SUCCESS);
    return e;
}

static pami_algorithm_t alg(pami_xfer_type_t t, const char *name)
{
    pami_algorithm_t a;
    int list;
    CHECK(ct_find(ct_world, t, name, &a, NULL, &list), "xfer %d: no %s", (int)t, name);
    CHECK(list == 0, "xfer %d: %s is not in list 0", (int)t, name);
    return a;
}

static double mval(size_t from, size_t to, size_t e)
{
    return (double)(from * 1000 + to * 100 + e) + 0.25;
}

/* ---- moves with T_D16 ---- */

static size_t cnt_of(size_t t) { return t % 3 + 1; }

/* block t at displacement (elements of T_D16) sum of earlier counts + t + 1 */
static void gapped(size_t n, size_t *cnt, size_t *dsp, size_t *slots)
{
    size_t s = 0;
    for (size_t t = 0; t < n; t++) {
        cnt[t] = cnt_of(t);
        dsp[t] = s + t + 1;
        s += cnt[t];
    }
    *slots = s + n + 1;
}

static void allgatherv(int as_int)
{
    size_t n = ct_size, me = ct_task, slots;
    size_t *cnt = calloc(n, sizeof *cnt), *dsp = calloc(n, sizeof *dsp);
    int *icnt = calloc(n, sizeof *icnt), *idsp = calloc(n, sizeof *idsp);
    gapped(n, cnt, dsp, &slots);
    for (size_t t = 0; t < n; t++) {
        icnt[t] = (int)cnt[t];
        idsp[t] = (int)dsp[t];
    }
    unsigned char *sb = sbuf_new(16 * cnt[me]);
    for (size_t e = 0; e < cnt[me]; e++)
        put_d(sb, 16 * e, mval(me, 0, e));
    struct img r;
    img_new(&r, 16 * slots);
    for (size_t t = 0; t < n; t++)
        for (size_t e = 0; e < cnt[t]; e++)
            img_put(&r, 16 * (dsp[t] + e), mval(t, 0, e));
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    if (as_int) {
        x.algorithm = alg(PAMI_XFER_ALLGATHERV_INT, "I0:Ring:P2P:P2P");
        x.cmd.xfer_allgatherv_int = (pami_allgatherv_int_t){(char *)sb, T_D16, (int)cnt[me], (char *)r.got, T_D16,
                                                            icnt, idsp};
    } else {
        x.algorithm = alg(PAMI_XFER_ALLGATHERV, "I0:Ring:P2P:P2P");
        x.cmd.xfer_allgatherv = (pami_allgatherv_t){(char *)sb, T_D16, cnt[me], (char *)r.got, T_D16, cnt, dsp};
    }
    ct_run(&x, as_int ? "allgatherv_int" : "allgatherv");
    img_check(&r, as_int ? "allgatherv_int, strided" : "allgatherv, strided");
    free(sb);
    free(cnt), free(dsp), free(icnt), free(idsp);
}

static void gatherv(size_t root)
{
    size_t n = ct_size, me = ct_task, slots;
    size_t *cnt = calloc(n, sizeof *cnt), *dsp = calloc(n, sizeof *dsp);
    gapped(n, cnt, dsp, &slots);
    unsigned char *sb = sbuf_new(16 * cnt[me]);
    for (size_t e = 0; e < cnt[me]; e++)
        put_d(sb, 16 * e, mval(me, root, e));
    struct img r;
    img_new(&r, me == root ? 16 * slots : 0);
    if (me == root)
        for (size_t t = 0; t < n; t++)
            for (size_t e = 0; e < cnt[t]; e++)
                img_put(&r, 16 * (dsp[t] + e), mval(t, root, e));
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_GATHERV, "I0:Linear:P2P:P2P");
    x.cmd.xfer_gatherv = (pami_gatherv_t){ep_of(root), (char *)sb, T_D16, cnt[me], me == root ? (char *)r.got : NULL,
                                          T_D16, cnt, dsp};
    ct_run(&x, "gatherv");
    img_check(&r, "gatherv, strided");
    free(sb), free(cnt), free(dsp);
}

static void scatterv(size_t root)
{
    size_t n = ct_size, me = ct_task, slots;
    size_t *cnt = calloc(n, sizeof *cnt), *dsp = calloc(n, sizeof *dsp);
    gapped(n, cnt, dsp, &slots);
    unsigned char *sb = NULL;
    if (me == root) {
        sb = sbuf_new(16 * slots);
        for (size_t t = 0; t < n; t++)
            for (size_t e = 0; e < cnt[t]; e++)
                put_d(sb, 16 * (dsp[t] + e), mval(root, t, e));
    }
    /* my elements start one extent into the buffer */
    struct img r;
    img_new(&r, 16 * (cnt[me] + 2));
    for (size_t e = 0; e < cnt[me]; e++)
        img_put(&r, 16 * (1 + e), mval(root, me, e));
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_SCATTERV, "I0:Linear:P2P:P2P");
    x.cmd.xfer_scatterv = (pami_scatterv_t){ep_of(root), (char *)sb, T_D16, cnt, dsp, (char *)r.got + 16, T_D16,
                                            cnt[me]};
    ct_run(&x, "scatterv");
    img_check(&r, "scatterv, strided");
    free(sb), free(cnt), free(dsp);
}

/* count from task i to task j */
static size_t a2a_cnt(size_t i, size_t j) { return (i + 2 * j) % 3 + 1; }

/* strided: T_D16 both sides; otherwise a contiguous double send */
static void alltoallv(int strided_send)
{
    size_t n = ct_size, me = ct_task;
    size_t *sc = calloc(n, sizeof *sc), *sd = calloc(n, sizeof *sd);
    size_t *rc = calloc(n, sizeof *rc), *rd = calloc(n, sizeof *rd);
    size_t ss = 0, rs = 0;
    for (size_t j = 0; j < n; j++) {
        sc[j] = a2a_cnt(me, j);
        sd[j] = ss + (strided_send ? j + 1 : 0);
        ss += sc[j];
        rc[j] = a2a_cnt(j, me);
        rd[j] = rs + j + 1;
        rs += rc[j];
    }
    size_t sext = strided_send ? 16 : 8, sslots = strided_send ? ss + n + 1 : ss;
    unsigned char *sb = sbuf_new(sext * sslots);
    for (size_t j = 0; j < n; j++)
        for (size_t e = 0; e < sc[j]; e++)
            put_d(sb, sext * (sd[j] + e), mval(me, j, e));
    struct img r;
    img_new(&r, 16 * (rs + n + 1));
    for (size_t i = 0; i < n; i++)
        for (size_t e = 0; e < rc[i]; e++)
            img_put(&r, 16 * (rd[i] + e), mval(i, me, e));
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_ALLTOALLV, "I0:Pairwise:P2P:P2P");
    x.cmd.xfer_alltoallv = (pami_alltoallv_t){(char *)sb, strided_send ? T_D16 : PAMI_TYPE_DOUBLE, sc, sd,
                                              (char *)r.got, T_D16, rc, rd};
    ct_run(&x, "alltoallv");
    img_check(&r, strided_send ? "alltoallv, strided both sides" : "alltoallv, contiguous into strided");
    free(sb), free(sc), free(sd), free(rc), free(rd);
}

/* ---- in place ---- */

static unsigned char ipat(size_t from, size_t to, size_t i)
{
    return (unsigned char)(from * 41 + to * 7 + i * 3 + 1);
}

static void alltoall_inplace(int strided)
{
    size_t n = ct_size, me = ct_task, B = 96; /* bytes per block; 6 doubles strided */
    size_t per = strided ? 2 * B : B;         /* buffer bytes per block */
    struct img r;
    img_new(&r, n * per);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < B; i++) {
            size_t at = strided ? j * per + (i / 8) * 16 + i % 8 : j * B + i;
            r.got[at] = ipat(me, j, i);
            r.want[at] = ipat(j, me, i);
        }
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_ALLTOALL, "I0:Pairwise:P2P:P2P");
    pami_type_t t = strided ? T_D16 : PAMI_TYPE_BYTE;
    size_t c = strided ? B / 8 : B;
    x.cmd.xfer_alltoall = (pami_alltoall_t){(char *)r.got, t, c, (char *)r.got, t, c};
    ct_run(&x, "alltoall in place");
    img_check(&r, strided ? "alltoall in place, strided" : "alltoall in place, bytes");
}

/* counts symmetric (i to j as j to i), so one set of displacements */
static size_t sym_cnt(size_t i, size_t j) { return (i + j) % 3 + 1; }

static void alltoallv_inplace(int strided)
{
    size_t n = ct_size, me = ct_task, s = 0;
    size_t *c = calloc(n, sizeof *c), *d = calloc(n, sizeof *d);
    for (size_t j = 0; j < n; j++) {
        c[j] = sym_cnt(me, j);
        d[j] = s + j + 1;
        s += c[j];
    }
    size_t ext = strided ? 16 : 8;
    struct img r;
    img_new(&r, ext * (s + n + 1));
    for (size_t j = 0; j < n; j++)
        for (size_t e = 0; e < c[j]; e++) {
            put_d(r.got, ext * (d[j] + e), mval(me, j, e));
            img_put(&r, ext * (d[j] + e), mval(j, me, e));
        }
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_ALLTOALLV, "I0:Pairwise:P2P:P2P");
    pami_type_t t = strided ? T_D16 : PAMI_TYPE_DOUBLE;
    x.cmd.xfer_alltoallv = (pami_alltoallv_t){(char *)r.got, t, c, d, (char *)r.got, t, c, d};
    ct_run(&x, "alltoallv in place");
    img_check(&r, strided ? "alltoallv in place, strided" : "alltoallv in place, doubles");
    free(c), free(d);
}

/* ---- reductions on T_RD ---- */

static double rv(size_t t, size_t e, size_t j)
{
    return (double)(t + 1) * (double)(2 * e + j + 1);
}

/* element e of T_RD, part j, in a buffer */
static size_t rd_off(size_t e, size_t j) { return 48 * e + 24 * j; }

static unsigned char *rd_send(size_t count)
{
    unsigned char *p = sbuf_new(48 * count);
    for (size_t e = 0; e < count; e++)
        for (size_t j = 0; j < 2; j++)
            put_d(p, rd_off(e, j), rv(ct_task, e, j));
    return p;
}

/* the reduction over tasks [lo, hi] of element e, part j */
static double rd_want(int max, size_t lo, size_t hi, size_t e, size_t j)
{
    double w = max ? -1e300 : 0;
    for (size_t t = lo; t <= hi; t++)
        w = max ? (rv(t, e, j) > w ? rv(t, e, j) : w) : w + rv(t, e, j);
    return w;
}

/* contig_recv: the result into count*2 plain doubles */
static void rd_expect(struct img *r, size_t count, int max, size_t lo, size_t hi, int contig_recv)
{
    img_new(r, contig_recv ? 16 * count : 48 * count);
    for (size_t e = 0; e < count; e++)
        for (size_t j = 0; j < 2; j++)
            img_put(r, contig_recv ? 16 * e + 8 * j : rd_off(e, j), rd_want(max, lo, hi, e, j));
}

static void allreduces(void)
{
    static const size_t counts[] = {1, 5, 300};
    struct ct_algs A;
    ct_algs(ct_world, PAMI_XFER_ALLREDUCE, &A);
    size_t ran = 0;
    for (size_t a = 0; a < A.n; a++)
        for (size_t ci = 0; ci < 3; ci++)
            for (int max = 0; max < 2; max++)
                for (int contig = 0; contig < 2; contig++) {
                    size_t count = counts[ci];
                    unsigned char *sb = rd_send(count);
                    struct img r;
                    rd_expect(&r, count, max, 0, ct_size - 1, contig);
                    pami_xfer_t x;
                    memset(&x, 0, sizeof x);
                    x.algorithm = A.a[a];
                    x.cmd.xfer_allreduce = (pami_allreduce_t){
                        (char *)sb, T_RD, count, (char *)r.got, contig ? PAMI_TYPE_DOUBLE : T_RD,
                        contig ? 2 * count : count, max ? PAMI_DATA_MAX : PAMI_DATA_SUM, NULL, 1};
                    if (!ct_allowed(&A.md[a], A.list[a], &x, 16 * count)) {
                        free(r.got), free(r.want), free(sb);
                        continue;
                    }
                    ct_run(&x, A.md[a].name);
                    char what[160];
                    snprintf(what, sizeof what, "allreduce %s, %s of %zu strided pairs%s", A.md[a].name,
                             max ? "MAX" : "SUM", count, contig ? " into plain doubles" : "");
                    img_check(&r, what);
                    free(sb);
                    ran++;
                }
    CHECK(ran >= 3 * 12, "only %zu strided allreduces ran", ran);
}

static void reduce(size_t root)
{
    size_t count = 7;
    unsigned char *sb = rd_send(count);
    struct img r;
    if (ct_task == root)
        rd_expect(&r, count, 0, 0, ct_size - 1, 0);
    else
        img_new(&r, 0);
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_REDUCE, "I0:Binomial:P2P:P2P");
    x.cmd.xfer_reduce = (pami_reduce_t){ep_of(root), (char *)sb, T_RD, count,
                                        ct_task == root ? (char *)r.got : NULL, T_RD, count, PAMI_DATA_SUM, NULL, 1};
    ct_run(&x, "reduce");
    img_check(&r, "reduce, strided SUM");
    free(sb);
}

static void scan(int exclusive)
{
    size_t count = 6, me = ct_task;
    unsigned char *sb = rd_send(count);
    struct img r;
    if (exclusive && me == 0) {
        /* nothing before task 0: its elements are not pinned, its gaps are */
        img_new(&r, 48 * count);
    } else {
        rd_expect(&r, count, 0, 0, exclusive ? me - 1 : me, 0);
    }
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_SCAN, "I0:RecursiveDoubling:P2P:P2P");
    x.cmd.xfer_scan = (pami_scan_t){(char *)sb, T_RD, count, (char *)r.got, T_RD, count, PAMI_DATA_SUM, NULL,
                                    exclusive};
    ct_run(&x, "scan");
    if (exclusive && me == 0)
        for (size_t e = 0; e < count; e++)
            for (size_t j = 0; j < 2; j++)
                img_any(&r, rd_off(e, j));
    img_check(&r, exclusive ? "exclusive scan, strided SUM" : "scan, strided SUM");
    free(sb);
}

static void reduce_scatter(void)
{
    size_t n = ct_size, me = ct_task, total = 0, mine_at = 0;
    size_t *rcounts = calloc(n, sizeof *rcounts);
    for (size_t t = 0; t < n; t++) {
        rcounts[t] = t % 2 + 1;
        if (t < me)
            mine_at += rcounts[t];
        total += rcounts[t];
    }
    unsigned char *sb = rd_send(total);
    struct img r;
    img_new(&r, 48 * rcounts[me]);
    for (size_t k = 0; k < rcounts[me]; k++)
        for (size_t j = 0; j < 2; j++)
            img_put(&r, rd_off(k, j), rd_want(0, 0, n - 1, mine_at + k, j));
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    x.algorithm = alg(PAMI_XFER_REDUCE_SCATTER, "I0:ReduceScatterv:P2P:P2P");
    x.cmd.xfer_reduce_scatter = (pami_reduce_scatter_t){(char *)sb, T_RD, total, (char *)r.got, T_RD, rcounts,
                                                        PAMI_DATA_SUM, NULL, 1};
    ct_run(&x, "reduce_scatter");
    img_check(&r, "reduce_scatter, strided SUM");
    free(sb), free(rcounts);
}

int main(int argc, char **argv)
{
    ct_init(argc, argv);
    CHECK_RC(PAMI_Type_create(&T_D16), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(T_D16, 8, 0, 1, 16), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(T_D16, 8), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_create(&T_RD), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_typed(T_RD, PAMI_TYPE_DOUBLE, 0, 2, 24), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(T_RD, 8), PAMI_SUCCESS);
    /* the types are what the test assumes */
    pami_configuration_t q[2] = {{.name = PAMI_TYPE_DATA_SIZE}, {.name = PAMI_TYPE_DATA_EXTENT}};
    CHECK_RC(PAMI_Type_query(T_D16, q, 2), PAMI_SUCCESS);
    CHECK(q[0].value.intval == 8 && q[1].value.intval == 16, "T_D16: size %zu extent %zu", q[0].value.intval,
          q[1].value.intval);
    CHECK_RC(PAMI_Type_query(T_RD, q, 2), PAMI_SUCCESS);
    CHECK(q[0].value.intval == 16 && q[1].value.intval == 48, "T_RD: size %zu extent %zu", q[0].value.intval,
          q[1].value.intval);

    allgatherv(0);
    allgatherv(1);
    for (size_t root = 0; root < ct_size; root++) {
        gatherv(root);
        scatterv(root);
        reduce(root);
    }
    alltoallv(1);
    alltoallv(0);
    alltoall_inplace(0);
    alltoall_inplace(1);
    alltoallv_inplace(0);
    alltoallv_inplace(1);
    allreduces();
    scan(0);
    scan(1);
    reduce_scatter();

    CHECK_RC(PAMI_Type_destroy(&T_D16), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_destroy(&T_RD), PAMI_SUCCESS);
    ct_fini();
    if (ct_task == 0)
        printf("coll_types: %zu tasks ok\n", ct_size);
    return 0;
}
