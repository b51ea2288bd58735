/* Geometries: task ranges with a parent (non-members get
 * PAMI_GEOMETRY_NULL), task lists without one (reversed, odd sizes), the
 * comm-split pattern (one id, disjoint lists), collectives outstanding on
 * several geometries at once, destroy; then every error case (one stderr
 * line each, no hang). */
#include "coll_suite.h"

static atomic_long created;

static void run_suite(pami_geometry_t g, const size_t *tasks, size_t n)
{
    size_t me = n;
    for (size_t i = 0; i < n; i++)
        if (tasks[i] == ct_task)
            me = i;
    CHECK(me < n, "not a member");
    struct cs_geom G = {g, n, tasks, me};
    if (ct_quick) {
        cs_barrier(&G);
        cs_back_to_back(&G);
    } else {
        cs_all(&G);
    }
}

static void errors(void)
{
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    size_t num[2];
    CHECK_RC(PAMI_Geometry_algorithms_num(NULL, PAMI_XFER_BARRIER, num), PAMI_INVAL);
    CHECK_RC(PAMI_Geometry_algorithms_num(ct_world, (pami_xfer_type_t)99, num), PAMI_INVAL);
    CHECK_RC(PAMI_Geometry_algorithms_num((pami_geometry_t)&x, PAMI_XFER_BARRIER, num), PAMI_INVAL);
    x.algorithm = 12345;
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
    CHECK_RC(PAMI_Collective(ct_ctx, NULL), PAMI_INVAL);
    CHECK_RC(PAMI_Collective(NULL, &x), PAMI_INVAL);
    /* NULL buffer with a count; mismatched counts; bad op for the type */
    CHECK(ct_find(ct_world, PAMI_XFER_ALLREDUCE, "RecursiveDoubling", &x.algorithm, NULL, NULL), "no rd");
    int v = 1, w = 0;
    x.cmd.xfer_allreduce = (pami_allreduce_t){NULL, PAMI_TYPE_SIGNED_INT, 4, (char *)&w, PAMI_TYPE_SIGNED_INT, 4,
                                              PAMI_DATA_SUM, NULL, 1};
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
    x.cmd.xfer_allreduce = (pami_allreduce_t){(char *)&v, PAMI_TYPE_SIGNED_INT, 1, (char *)&w, PAMI_TYPE_SIGNED_INT, 2,
                                              PAMI_DATA_SUM, NULL, 1};
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
    x.cmd.xfer_allreduce = (pami_allreduce_t){(char *)&v, PAMI_TYPE_FLOAT, 1, (char *)&w, PAMI_TYPE_FLOAT, 1,
                                              PAMI_DATA_BXOR, NULL, 1};
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
    /* the CAU refuses more than 64 bytes (and its check_fn says so) */
    pami_metadata_t md;
    int list;
    CHECK(ct_find(ct_world, PAMI_XFER_ALLREDUCE, "Hybrid:SHMEM:CAU", &x.algorithm, &md, &list), "no cau");
    CHECK(list == 1 && md.check_correct.values.rangeminmax && md.range_hi == 64 && md.check_fn, "cau metadata");
    double big[16] = {0}, bigr[16];
    x.cmd.xfer_allreduce = (pami_allreduce_t){(char *)big, PAMI_TYPE_DOUBLE, 16, (char *)bigr, PAMI_TYPE_DOUBLE, 16,
                                              PAMI_DATA_SUM, NULL, 1};
    CHECK(md.check_fn(&x).check.range, "check_fn accepts 128 bytes");
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
    x.cmd.xfer_allreduce.stypecount = x.cmd.xfer_allreduce.rtypecount = 2;
    x.cmd.xfer_allreduce.op = PAMI_DATA_BAND; /* no bitwise ops on doubles */
    CHECK(md.check_fn(&x).check.datatype_op, "check_fn accepts BAND on doubles");
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
    /* root outside the geometry: a geometry of task 0 only */
    if (ct_task == 0) {
        pami_geometry_t g0;
        pami_task_t t0 = 0;
        atomic_long done = 0;
        CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &g0, NULL, 77, &t0, 1, ct_ctx, ct_done, &done),
                 PAMI_SUCCESS);
        ct_wait(&done, 1, 30, "one-task geometry");
        if (ct_size > 1) {
            CHECK(ct_find(g0, PAMI_XFER_BROADCAST, "Binomial", &x.algorithm, NULL, NULL), "no binomial");
            char b[4];
            x.cmd.xfer_broadcast = (pami_broadcast_t){0, b, PAMI_TYPE_BYTE, 4};
            PAMI_Endpoint_create(ct_client, 1, 0, &x.cmd.xfer_broadcast.root);
            CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_INVAL);
        }
        /* the same id twice on one task */
        pami_geometry_t g1;
        CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &g1, NULL, 77, &t0, 1, ct_ctx, NULL, NULL),
                 PAMI_INVAL);
        done = 0;
        CHECK_RC(PAMI_Geometry_destroy(ct_client, &g0, ct_ctx, ct_done, &done), PAMI_SUCCESS);
        CHECK(g0 == PAMI_GEOMETRY_NULL, "destroy leaves the handle");
        ct_wait(&done, 1, 30, "destroy");
    }
    /* geometry arguments */
    pami_geometry_t g;
    pami_task_t dup[2] = {0, 0}, oob = (pami_task_t)ct_size;
    CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &g, NULL, 0, dup, 1, ct_ctx, NULL, NULL), PAMI_INVAL);
    CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &g, NULL, 5, dup, 2, ct_ctx, NULL, NULL), PAMI_INVAL);
    CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &g, NULL, 5, &oob, 1, ct_ctx, NULL, NULL), PAMI_INVAL);
    pami_geometry_range_t bad = {3, 1};
    CHECK_RC(PAMI_Geometry_create_taskrange(ct_client, 0, NULL, 0, &g, NULL, 5, &bad, 1, ct_ctx, NULL, NULL),
             PAMI_INVAL);
    CHECK_RC(PAMI_Geometry_destroy(ct_client, &ct_world, ct_ctx, NULL, NULL), PAMI_INVAL);
    pami_configuration_t q = {.name = PAMI_GEOMETRY_OPTIMIZE};
    CHECK_RC(PAMI_Geometry_query(ct_world, &q, 1), PAMI_SUCCESS);
    q.name = PAMI_CLIENT_TASK_ID;
    CHECK_RC(PAMI_Geometry_query(ct_world, &q, 1), PAMI_INVAL);
    pami_dispatch_callback_function fn = {0};
    pami_collective_hint_t h = {0};
    /* not an active-message algorithm */
    CHECK_RC(PAMI_AMCollective_dispatch_set(ct_ctx, x.algorithm, 1, fn, NULL, h), PAMI_INVAL);
    /* an algorithm of one client on another client's context */
    pami_client_t c2;
    pami_context_t x2;
    CHECK_RC(PAMI_Client_create("coll2", &c2, NULL, 0), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_createv(c2, NULL, 0, &x2, 1), PAMI_SUCCESS);
    memset(&x, 0, sizeof x);
    CHECK(ct_find(ct_world, PAMI_XFER_BARRIER, "Dissemination", &x.algorithm, NULL, NULL), "no barrier");
    CHECK_RC(PAMI_Collective(x2, &x), PAMI_INVAL);
    CHECK_RC(PAMI_Context_destroyv(&x2, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&c2), PAMI_SUCCESS);
}

int main(int argc, char **argv)
{
    ct_init(argc, argv);
    size_t n = ct_size;
    size_t *tasks = malloc(n * sizeof *tasks);

    /* 1. a task range with the world as parent: tasks 1..n-1 */
    if (n > 1) {
        pami_geometry_t g;
        pami_geometry_range_t rg = {1, (pami_task_t)(n - 1)};
        created = 0;
        CHECK_RC(PAMI_Geometry_create_taskrange(ct_client, 0, NULL, 0, &g, ct_world, 10, &rg, 1, ct_ctx, ct_done,
                                                &created),
                 PAMI_SUCCESS);
        ct_wait(&created, 1, 60, "taskrange geometry");
        if (ct_task == 0) {
            CHECK(g == PAMI_GEOMETRY_NULL, "task 0 is not in the range");
        } else {
            for (size_t i = 0; i < n - 1; i++)
                tasks[i] = i + 1;
            run_suite(g, tasks, n - 1);
            atomic_long d = 0;
            CHECK_RC(PAMI_Geometry_destroy(ct_client, &g, ct_ctx, ct_done, &d), PAMI_SUCCESS);
            ct_wait(&d, 1, 60, "destroy");
        }
    }
    ct_barrier(ct_world);

    /* 2. a task list without parent: the even tasks, reversed */
    {
        size_t m = 0;
        for (size_t t = n; t-- > 0;)
            if (t % 2 == 0)
                tasks[m++] = t;
        if (ct_task % 2 == 0) {
            pami_task_t *tl = malloc(m * sizeof *tl);
            for (size_t i = 0; i < m; i++)
                tl[i] = (pami_task_t)tasks[i];
            pami_geometry_t g;
            created = 0;
            CHECK_RC(PAMI_Geometry_create_tasklist(ct_client, 0, NULL, 0, &g, NULL, 20, tl, m, ct_ctx, ct_done,
                                                   &created),
                     PAMI_SUCCESS);
            ct_wait(&created, 1, 60, "tasklist geometry");
            run_suite(g, tasks, m);
            CHECK_RC(PAMI_Geometry_destroy(ct_client, &g, NULL, NULL, NULL), PAMI_SUCCESS);
            free(tl);
        }
    }
    ct_barrier(ct_world);

    /* 3. comm split: halves with one id, then collectives outstanding on the
     *    half and on the world at once */
    if (n > 1) {
        size_t half = n / 2, lo = ct_task < half ? 0 : half, hi = ct_task < half ? half - 1 : n - 1;
        pami_geometry_range_t rg = {(pami_task_t)lo, (pami_task_t)hi};
        pami_geometry_t g;
        created = 0;
        CHECK_RC(PAMI_Geometry_create_taskrange(ct_client, 0, NULL, 0, &g, ct_world, 30, &rg, 1, ct_ctx, ct_done,
                                                &created),
                 PAMI_SUCCESS);
        ct_wait(&created, 1, 60, "split geometry");
        CHECK(g != PAMI_GEOMETRY_NULL, "member got no geometry");
        for (int rep = 0; rep < (ct_quick ? 3 : 10); rep++) {
            pami_xfer_t a, b, c;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            memset(&c, 0, sizeof c);
            const char *an = rep % 2 ? "Hybrid:SHMEM:P2P" : "RecursiveDoubling";
            CHECK(ct_find(g, PAMI_XFER_ALLREDUCE, an, &a.algorithm, NULL, NULL), "no %s", an);
            CHECK(ct_find(ct_world, PAMI_XFER_BROADCAST, rep % 2 ? "Binomial" : "Hybrid:SHMEM:P2P", &b.algorithm,
                          NULL, NULL), "no bcast");
            CHECK(ct_find(g, PAMI_XFER_BARRIER, "Hybrid:SHMEM:CAU", &c.algorithm, NULL, NULL), "no cau barrier");
            long long s = (long long)ct_task, r = -1, bv = ct_task == (size_t)rep % n ? 1000 + rep : -1;
            a.cmd.xfer_allreduce = (pami_allreduce_t){(char *)&s, PAMI_TYPE_SIGNED_LONG_LONG, 1, (char *)&r,
                                                      PAMI_TYPE_SIGNED_LONG_LONG, 1, PAMI_DATA_SUM, NULL, 1};
            b.cmd.xfer_broadcast = (pami_broadcast_t){0, (char *)&bv, PAMI_TYPE_BYTE, sizeof bv};
            PAMI_Endpoint_create(ct_client, (pami_task_t)((size_t)rep % n), 0, &b.cmd.xfer_broadcast.root);
            atomic_long done = 0;
            pami_xfer_t *xs[3] = {&b, &a, &c};
            for (int i = 0; i < 3; i++) {
                xs[i]->cb_done = ct_done;
                xs[i]->cookie = &done;
                CHECK_RC(PAMI_Collective(ct_ctx, xs[i]), PAMI_SUCCESS);
            }
            ct_wait(&done, 3, 180, "outstanding collectives");
            long long want = 0;
            for (size_t t = lo; t <= hi; t++)
                want += (long long)t;
            CHECK(r == want, "split allreduce: %lld want %lld", r, want);
            CHECK(bv == 1000 + rep, "world bcast during split: %lld", bv);
        }
        atomic_long d = 0;
        CHECK_RC(PAMI_Geometry_destroy(ct_client, &g, ct_ctx, ct_done, &d), PAMI_SUCCESS);
        ct_wait(&d, 1, 60, "destroy split");
    }
    ct_barrier(ct_world);
    errors();
    free(tasks);
    ct_fini();
    if (ct_task == 0)
        printf("coll_geom: %zu tasks ok\n", n);
    return 0;
}
