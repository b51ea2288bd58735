/* Every collective with every algorithm of a geometry, checked against a
 * reference computed locally (shared by coll_basic.c and coll_geom.c). */
#ifndef COLL_SUITE_H
#define COLL_SUITE_H

#include "coll_test.h"

struct cs_geom {
    pami_geometry_t g;
    size_t n;          /* members */
    const size_t *tasks;
    size_t me;         /* my geometry rank */
};

static inline int32_t cs_val(size_t rank, size_t i)
{
    return (int32_t)((rank * 131 + i * 7 + 3) % 1000);
}

static pami_endpoint_t cs_ep(size_t task)
{
    pami_endpoint_t e;
    CHECK_RC(PAMI_Endpoint_create(ct_client, (pami_task_t)task, 0, &e), PAMI_SUCCESS);
    return e;
}

static void cs_barrier(const struct cs_geom *G)
{
    struct ct_algs A;
    ct_algs(G->g, PAMI_XFER_BARRIER, &A);
    for (size_t a = 0; a < A.n; a++)
        for (int k = 0; k < 3; k++) {
            pami_xfer_t x;
            memset(&x, 0, sizeof x);
            x.algorithm = A.a[a];
            ct_run(&x, A.md[a].name);
        }
}

static void cs_bcast(const struct cs_geom *G)
{
    static const size_t sizes[] = {1, 8, 64, 1000, 20000};
    struct ct_algs A;
    ct_algs(G->g, PAMI_XFER_BROADCAST, &A);
    char *buf = malloc(20000);
    for (size_t a = 0; a < A.n; a++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            if (ct_quick && s == 3)
                continue;
            for (size_t root = 0; root < G->n; root++) {
                if ((ct_quick || G->n > 8) && root != 0 && root != G->n - 1 && root != G->n / 2)
                    continue;
                pami_xfer_t x;
                memset(&x, 0, sizeof x);
                x.algorithm = A.a[a];
                x.cmd.xfer_broadcast.root = cs_ep(G->tasks[root]);
                x.cmd.xfer_broadcast.buf = buf;
                x.cmd.xfer_broadcast.type = PAMI_TYPE_BYTE;
                x.cmd.xfer_broadcast.typecount = sizes[s];
                if (!ct_allowed(&A.md[a], A.list[a], &x, sizes[s]))
                    continue;
                for (size_t i = 0; i < sizes[s]; i++)
                    buf[i] = G->me == root ? (char)cs_val(root, i) : (char)0x5a;
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < sizes[s]; i++)
                    CHECK(buf[i] == (char)cs_val(root, i), "bcast %s %zu bytes root %zu: byte %zu", A.md[a].name,
                          sizes[s], root, i);
            }
        }
    free(buf);
}

static void cs_allreduce(const struct cs_geom *G)
{
    static const size_t counts[] = {1, 16, 3000};
    struct ct_algs A;
    ct_algs(G->g, PAMI_XFER_ALLREDUCE, &A);
    int32_t *s = malloc(3000 * 4), *r = malloc(3000 * 4);
    double *ds = malloc(3000 * 8), *dr = malloc(3000 * 8);
    for (size_t a = 0; a < A.n; a++)
        for (size_t c = 0; c < (ct_quick ? 2u : 3u); c++) {
            size_t n = counts[c];
            pami_xfer_t x;
            memset(&x, 0, sizeof x);
            x.algorithm = A.a[a];
            pami_allreduce_t *ar = &x.cmd.xfer_allreduce;
            ar->sndbuf = (char *)s;
            ar->rcvbuf = (char *)r;
            ar->stype = ar->rtype = PAMI_TYPE_SIGNED_INT;
            ar->stypecount = ar->rtypecount = n;
            ar->op = PAMI_DATA_SUM;
            if (ct_allowed(&A.md[a], A.list[a], &x, n * 4)) {
                for (size_t i = 0; i < n; i++) {
                    s[i] = cs_val(G->me, i);
                    r[i] = -1;
                }
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < n; i++) {
                    int32_t want = 0;
                    for (size_t t = 0; t < G->n; t++)
                        want += cs_val(t, i);
                    CHECK(r[i] == want, "allreduce %s sum count %zu [%zu]: %d, want %d", A.md[a].name, n, i, r[i],
                          want);
                }
                /* in place */
                for (size_t i = 0; i < n; i++)
                    r[i] = cs_val(G->me, i);
                ar->sndbuf = (char *)r;
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < n; i++) {
                    int32_t want = 0;
                    for (size_t t = 0; t < G->n; t++)
                        want += cs_val(t, i);
                    CHECK(r[i] == want, "in-place allreduce %s [%zu]", A.md[a].name, i);
                }
            }
            ar->sndbuf = (char *)ds;
            ar->rcvbuf = (char *)dr;
            ar->stype = ar->rtype = PAMI_TYPE_DOUBLE;
            ar->op = PAMI_DATA_MAX;
            if (!ct_allowed(&A.md[a], A.list[a], &x, n * 8))
                continue;
            for (size_t i = 0; i < n; i++)
                ds[i] = (double)cs_val(G->me, i) * 0.5;
            ct_run(&x, A.md[a].name);
            for (size_t i = 0; i < n; i++) {
                double want = -1;
                for (size_t t = 0; t < G->n; t++)
                    if (cs_val(t, i) * 0.5 > want)
                        want = cs_val(t, i) * 0.5;
                CHECK(dr[i] == want, "allreduce %s max double [%zu]", A.md[a].name, i);
            }
        }
    free(s);
    free(r);
    free(ds);
    free(dr);
}

static void cs_reduce_scan(const struct cs_geom *G)
{
    struct ct_algs A;
    size_t n = 100;
    int32_t s[100], r[100];
    ct_algs(G->g, PAMI_XFER_REDUCE, &A);
    for (size_t a = 0; a < A.n; a++)
        for (size_t root = 0; root < G->n; root++) {
            if (G->n > 8 && root != 0 && root != G->n - 1 && root != G->n / 3)
                continue;
            pami_xfer_t x;
            memset(&x, 0, sizeof x);
            x.algorithm = A.a[a];
            pami_reduce_t *rd = &x.cmd.xfer_reduce;
            rd->root = cs_ep(G->tasks[root]);
            rd->sndbuf = (char *)s;
            rd->rcvbuf = (char *)r;
            rd->stype = rd->rtype = PAMI_TYPE_SIGNED_INT;
            rd->stypecount = rd->rtypecount = n;
            rd->op = PAMI_DATA_MIN;
            for (size_t i = 0; i < n; i++) {
                s[i] = cs_val(G->me, i);
                r[i] = -7;
            }
            ct_run(&x, A.md[a].name);
            for (size_t i = 0; i < n; i++) {
                int32_t want = 1 << 30;
                for (size_t t = 0; t < G->n; t++)
                    want = cs_val(t, i) < want ? cs_val(t, i) : want;
                if (G->me == root)
                    CHECK(r[i] == want, "reduce %s root %zu [%zu]: %d want %d", A.md[a].name, root, i, r[i], want);
            }
        }
    ct_algs(G->g, PAMI_XFER_SCAN, &A);
    for (size_t a = 0; a < A.n; a++)
        for (int excl = 0; excl < 2; excl++) {
            pami_xfer_t x;
            memset(&x, 0, sizeof x);
            x.algorithm = A.a[a];
            pami_scan_t *sc = &x.cmd.xfer_scan;
            sc->sndbuf = (char *)s;
            sc->rcvbuf = (char *)r;
            sc->stype = sc->rtype = PAMI_TYPE_SIGNED_INT;
            sc->stypecount = sc->rtypecount = n;
            sc->op = PAMI_DATA_SUM;
            sc->exclusive = excl;
            for (size_t i = 0; i < n; i++)
                s[i] = cs_val(G->me, i);
            ct_run(&x, A.md[a].name);
            if (excl && G->me == 0)
                continue;
            for (size_t i = 0; i < n; i++) {
                int32_t want = 0;
                for (size_t t = 0; t < G->me + !excl; t++)
                    want += cs_val(t, i);
                CHECK(r[i] == want, "scan excl=%d [%zu]: %d want %d", excl, i, r[i], want);
            }
        }
    ct_algs(G->g, PAMI_XFER_REDUCE_SCATTER, &A);
    for (size_t a = 0; a < A.n; a++) {
        size_t *rc = calloc(G->n, sizeof *rc), tot = 0;
        for (size_t t = 0; t < G->n; t++)
            tot += rc[t] = t % 3 + 1;
        int32_t *ss = malloc(tot * 4), rr[4];
        for (size_t i = 0; i < tot; i++)
            ss[i] = cs_val(G->me, i);
        pami_xfer_t x;
        memset(&x, 0, sizeof x);
        x.algorithm = A.a[a];
        pami_reduce_scatter_t *rs = &x.cmd.xfer_reduce_scatter;
        rs->sndbuf = (char *)ss;
        rs->rcvbuf = (char *)rr;
        rs->stype = rs->rtype = PAMI_TYPE_SIGNED_INT;
        rs->stypecount = tot;
        rs->rcounts = rc;
        rs->op = PAMI_DATA_SUM;
        ct_run(&x, A.md[a].name);
        size_t off = 0;
        for (size_t t = 0; t < G->me; t++)
            off += rc[t];
        for (size_t i = 0; i < rc[G->me]; i++) {
            int32_t want = 0;
            for (size_t t = 0; t < G->n; t++)
                want += cs_val(t, off + i);
            CHECK(rr[i] == want, "reduce_scatter [%zu]: %d want %d", i, rr[i], want);
        }
        free(rc);
        free(ss);
    }
}

/* gather/scatter/allgather/alltoall and their v variants */
static void cs_moves(const struct cs_geom *G)
{
    size_t n = G->n, me = G->me, blk = 37;
    int32_t *s = malloc(n * blk * 4), *r = malloc(n * blk * 4 + 64);
    size_t *cnt = malloc(n * sizeof *cnt), *dsp = malloc(n * sizeof *dsp);
    int *icnt = malloc(n * sizeof *icnt), *idsp = malloc(n * sizeof *idsp);
    size_t tot = 0;
    for (size_t t = 0; t < n; t++) { /* v layout: rank t has t%4+1 elements, gaps of 1 */
        cnt[t] = t % 4 + 1;
        dsp[t] = tot + t;
        icnt[t] = (int)cnt[t];
        idsp[t] = (int)dsp[t];
        tot += cnt[t];
    }
    size_t vspan = tot + n;
    static const pami_xfer_type_t kinds[] = {PAMI_XFER_ALLGATHER, PAMI_XFER_GATHER, PAMI_XFER_SCATTER,
                                             PAMI_XFER_ALLTOALL, PAMI_XFER_ALLGATHERV, PAMI_XFER_ALLGATHERV_INT,
                                             PAMI_XFER_GATHERV, PAMI_XFER_GATHERV_INT, PAMI_XFER_SCATTERV,
                                             PAMI_XFER_SCATTERV_INT, PAMI_XFER_ALLTOALLV, PAMI_XFER_ALLTOALLV_INT};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        pami_xfer_type_t kind = kinds[k];
        struct ct_algs A;
        ct_algs(G->g, kind, &A);
        for (size_t a = 0; a < A.n; a++) {
            size_t root = (k * 5 + 1) % n;
            pami_endpoint_t rep = cs_ep(G->tasks[root]);
            pami_xfer_t x;
            memset(&x, 0, sizeof x);
            x.algorithm = A.a[a];
            memset(r, 0xee, n * blk * 4 + 64);
            pami_type_t I = PAMI_TYPE_SIGNED_INT;
            switch (kind) {
            case PAMI_XFER_ALLGATHER:
            case PAMI_XFER_GATHER:
                for (size_t i = 0; i < blk; i++)
                    s[i] = cs_val(me, i);
                if (kind == PAMI_XFER_ALLGATHER)
                    x.cmd.xfer_allgather = (pami_allgather_t){(char *)s, I, blk, (char *)r, I, blk};
                else
                    x.cmd.xfer_gather = (pami_gather_t){rep, (char *)s, I, blk, (char *)r, I, blk};
                ct_run(&x, A.md[a].name);
                if (kind == PAMI_XFER_GATHER && me != root)
                    break;
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < blk; i++)
                        CHECK(r[t * blk + i] == cs_val(t, i), "%s kind %d block %zu [%zu]", A.md[a].name, (int)kind,
                              t, i);
                break;
            case PAMI_XFER_SCATTER:
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < blk; i++)
                        s[t * blk + i] = cs_val(t + 1000, i);
                x.cmd.xfer_scatter = (pami_scatter_t){rep, (char *)s, I, blk, (char *)r, I, blk};
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < blk; i++)
                    CHECK(r[i] == cs_val(me + 1000, i), "scatter [%zu]", i);
                break;
            case PAMI_XFER_ALLTOALL:
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < blk; i++)
                        s[t * blk + i] = cs_val(me * 100 + t, i);
                x.cmd.xfer_alltoall = (pami_alltoall_t){(char *)s, I, blk, (char *)r, I, blk};
                ct_run(&x, A.md[a].name);
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < blk; i++)
                        CHECK(r[t * blk + i] == cs_val(t * 100 + me, i), "alltoall from %zu [%zu]", t, i);
                break;
            case PAMI_XFER_ALLGATHERV:
            case PAMI_XFER_ALLGATHERV_INT:
            case PAMI_XFER_GATHERV:
            case PAMI_XFER_GATHERV_INT:
                for (size_t i = 0; i < cnt[me]; i++)
                    s[i] = cs_val(me, i);
                if (kind == PAMI_XFER_ALLGATHERV)
                    x.cmd.xfer_allgatherv = (pami_allgatherv_t){(char *)s, I, cnt[me], (char *)r, I, cnt, dsp};
                else if (kind == PAMI_XFER_ALLGATHERV_INT)
                    x.cmd.xfer_allgatherv_int =
                        (pami_allgatherv_int_t){(char *)s, I, icnt[me], (char *)r, I, icnt, idsp};
                else if (kind == PAMI_XFER_GATHERV)
                    x.cmd.xfer_gatherv = (pami_gatherv_t){rep, (char *)s, I, cnt[me], (char *)r, I, cnt, dsp};
                else
                    x.cmd.xfer_gatherv_int =
                        (pami_gatherv_int_t){rep, (char *)s, I, icnt[me], (char *)r, I, icnt, idsp};
                ct_run(&x, A.md[a].name);
                if ((kind == PAMI_XFER_GATHERV || kind == PAMI_XFER_GATHERV_INT) && me != root)
                    break;
                for (size_t t = 0; t < n; t++) {
                    for (size_t i = 0; i < cnt[t]; i++)
                        CHECK(r[dsp[t] + i] == cs_val(t, i), "kind %d from %zu [%zu]", (int)kind, t, i);
                    CHECK(r[dsp[t] + cnt[t]] == (int32_t)0xeeeeeeee, "kind %d wrote a gap", (int)kind);
                }
                break;
            case PAMI_XFER_SCATTERV:
            case PAMI_XFER_SCATTERV_INT:
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < cnt[t]; i++)
                        s[dsp[t] + i] = cs_val(t + 7, i);
                if (vspan > n * blk)
                    break;
                if (kind == PAMI_XFER_SCATTERV)
                    x.cmd.xfer_scatterv = (pami_scatterv_t){rep, (char *)s, I, cnt, dsp, (char *)r, I, cnt[me]};
                else
                    x.cmd.xfer_scatterv_int =
                        (pami_scatterv_int_t){rep, (char *)s, I, icnt, idsp, (char *)r, I, icnt[me]};
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < cnt[me]; i++)
                    CHECK(r[i] == cs_val(me + 7, i), "scatterv [%zu]", i);
                CHECK(r[cnt[me]] == (int32_t)0xeeeeeeee, "scatterv wrote too much");
                break;
            case PAMI_XFER_ALLTOALLV:
            case PAMI_XFER_ALLTOALLV_INT: {
                /* I send (me+t)%3+1 elements to t at displacement 4t */
                size_t sc[256], sd[256], rc[256], rd[256];
                int isc[256], isd[256], irc[256], ird[256];
                CHECK(n <= 256, "too many tasks");
                for (size_t t = 0; t < n; t++) {
                    sc[t] = (me + t) % 3 + 1;
                    sd[t] = 4 * t;
                    rc[t] = (t + me) % 3 + 1;
                    rd[t] = 4 * t;
                    isc[t] = (int)sc[t];
                    isd[t] = (int)sd[t];
                    irc[t] = (int)rc[t];
                    ird[t] = (int)rd[t];
                    for (size_t i = 0; i < sc[t]; i++)
                        s[sd[t] + i] = cs_val(me * 50 + t, i);
                }
                if (4 * n > n * blk)
                    break;
                if (kind == PAMI_XFER_ALLTOALLV)
                    x.cmd.xfer_alltoallv = (pami_alltoallv_t){(char *)s, I, sc, sd, (char *)r, I, rc, rd};
                else
                    x.cmd.xfer_alltoallv_int = (pami_alltoallv_int_t){(char *)s, I, isc, isd, (char *)r, I, irc, ird};
                ct_run(&x, A.md[a].name);
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < rc[t]; i++)
                        CHECK(r[rd[t] + i] == cs_val(t * 50 + me, i), "alltoallv from %zu [%zu]", t, i);
                break;
            }
            default:
                break;
            }
        }
    }
    free(s);
    free(r);
    free(cnt);
    free(dsp);
    free(icnt);
    free(idsp);
}

/* three collectives issued back to back on one geometry, then waited for */
static void cs_back_to_back(const struct cs_geom *G)
{
    pami_xfer_t b, r, bar;
    memset(&b, 0, sizeof b);
    memset(&r, 0, sizeof r);
    memset(&bar, 0, sizeof bar);
    CHECK(ct_find(G->g, PAMI_XFER_BROADCAST, "Hybrid:SHMEM:P2P", &b.algorithm, NULL, NULL), "no hybrid bcast");
    CHECK(ct_find(G->g, PAMI_XFER_ALLREDUCE, "RecursiveDoubling", &r.algorithm, NULL, NULL), "no rd allreduce");
    CHECK(ct_find(G->g, PAMI_XFER_BARRIER, "Hybrid:SHMEM:P2P", &bar.algorithm, NULL, NULL), "no hybrid barrier");
    for (int rep = 0; rep < 5; rep++) {
        int64_t v[4] = {0}, s = (int64_t)G->me + rep, out = 0;
        size_t root = (size_t)rep % G->n;
        if (G->me == root)
            for (int i = 0; i < 4; i++)
                v[i] = rep * 10 + i;
        atomic_long done = 0;
        b.cmd.xfer_broadcast = (pami_broadcast_t){cs_ep(G->tasks[root]), (char *)v, PAMI_TYPE_BYTE, sizeof v};
        r.cmd.xfer_allreduce = (pami_allreduce_t){(char *)&s, PAMI_TYPE_SIGNED_LONG_LONG, 1, (char *)&out,
                                                  PAMI_TYPE_SIGNED_LONG_LONG, 1, PAMI_DATA_SUM, NULL, 1};
        pami_xfer_t *xs[3] = {&b, &r, &bar};
        for (int i = 0; i < 3; i++) {
            xs[i]->cb_done = ct_done;
            xs[i]->cookie = &done;
            CHECK_RC(PAMI_Collective(ct_ctx, xs[i]), PAMI_SUCCESS);
        }
        ct_wait(&done, 3, 180, "back-to-back collectives");
        for (int i = 0; i < 4; i++)
            CHECK(v[i] == rep * 10 + i, "back-to-back bcast rep %d [%d]", rep, i);
        int64_t want = 0;
        for (size_t t = 0; t < G->n; t++)
            want += (int64_t)t + rep;
        CHECK(out == want, "back-to-back allreduce rep %d: %lld want %lld", rep, (long long)out, (long long)want);
    }
}

/* Non-contiguous types (packed and unpacked around the schedule): a
 * vector type of 4 bytes every 12 (extent 12, size 4), for broadcast,
 * allgather (contiguous send, strided receive), gather, scatter, alltoall. */
static void cs_noncontig(const struct cs_geom *G)
{
    pami_type_t v;
    CHECK_RC(PAMI_Type_create(&v), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_add_simple(v, 4, 0, 1, 12), PAMI_SUCCESS);
    CHECK_RC(PAMI_Type_complete(v, 4), PAMI_SUCCESS);
    size_t n = G->n, cnt = 5, me = G->me;
    int32_t *buf = malloc(n * cnt * 12 + 16), *s = malloc(n * cnt * 4 + 16);
    pami_xfer_type_t kinds[] = {PAMI_XFER_BROADCAST, PAMI_XFER_ALLGATHER, PAMI_XFER_GATHER, PAMI_XFER_SCATTER,
                                PAMI_XFER_ALLTOALL};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        struct ct_algs A;
        ct_algs(G->g, kinds[k], &A);
        for (size_t a = 0; a < A.n; a++) {
            pami_xfer_t x;
            memset(&x, 0, sizeof x);
            x.algorithm = A.a[a];
            size_t root = (a + k) % n;
            pami_endpoint_t rep = cs_ep(G->tasks[root]);
            memset(buf, 0xee, n * cnt * 12 + 16);
            /* element i of the strided buffer is buf[3 i] */
            switch (kinds[k]) {
            case PAMI_XFER_BROADCAST:
                if (me == root)
                    for (size_t i = 0; i < cnt; i++)
                        buf[3 * i] = cs_val(root, i);
                x.cmd.xfer_broadcast = (pami_broadcast_t){rep, (char *)buf, v, cnt};
                if (!ct_allowed(&A.md[a], A.list[a], &x, cnt * 4))
                    continue;
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < cnt; i++) {
                    CHECK(buf[3 * i] == cs_val(root, i), "strided bcast %s [%zu]", A.md[a].name, i);
                    if (me != root)
                        CHECK(buf[3 * i + 1] == (int32_t)0xeeeeeeee, "strided bcast wrote a gap");
                }
                break;
            case PAMI_XFER_ALLGATHER:
            case PAMI_XFER_GATHER:
                for (size_t i = 0; i < cnt; i++)
                    s[i] = cs_val(me, i);
                if (kinds[k] == PAMI_XFER_ALLGATHER)
                    x.cmd.xfer_allgather = (pami_allgather_t){(char *)s, PAMI_TYPE_SIGNED_INT, cnt, (char *)buf, v, cnt};
                else
                    x.cmd.xfer_gather = (pami_gather_t){rep, (char *)s, PAMI_TYPE_SIGNED_INT, cnt, (char *)buf, v, cnt};
                ct_run(&x, A.md[a].name);
                if (kinds[k] == PAMI_XFER_GATHER && me != root)
                    break;
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < cnt; i++)
                        CHECK(buf[3 * (t * cnt + i)] == cs_val(t, i), "strided %s from %zu [%zu]", A.md[a].name, t, i);
                break;
            case PAMI_XFER_SCATTER:
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < cnt; i++)
                        buf[3 * (t * cnt + i)] = cs_val(t + 9, i);
                x.cmd.xfer_scatter = (pami_scatter_t){rep, (char *)buf, v, cnt, (char *)s, PAMI_TYPE_SIGNED_INT, cnt};
                ct_run(&x, A.md[a].name);
                for (size_t i = 0; i < cnt; i++)
                    CHECK(s[i] == cs_val(me + 9, i), "strided scatter [%zu]", i);
                break;
            default: /* alltoall: strided send, contiguous receive */
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < cnt; i++)
                        buf[3 * (t * cnt + i)] = cs_val(me * 100 + t, i);
                x.cmd.xfer_alltoall = (pami_alltoall_t){(char *)buf, v, cnt, (char *)s, PAMI_TYPE_SIGNED_INT, cnt};
                ct_run(&x, A.md[a].name);
                for (size_t t = 0; t < n; t++)
                    for (size_t i = 0; i < cnt; i++)
                        CHECK(s[t * cnt + i] == cs_val(t * 100 + me, i), "strided alltoall from %zu [%zu]", t, i);
            }
        }
    }
    free(buf);
    free(s);
    CHECK_RC(PAMI_Type_destroy(&v), PAMI_SUCCESS);
}

static void cs_all(const struct cs_geom *G)
{
    cs_noncontig(G);
    cs_barrier(G);
    cs_bcast(G);
    cs_allreduce(G);
    cs_reduce_scan(G);
    cs_moves(G);
    cs_back_to_back(G);
}

#endif
