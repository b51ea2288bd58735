/* Harness of the PAMI collective tests (coll_*.c): one client, one
 * context, bounded waits, algorithm lookup, and "FAIL task <t> file:line"
 * on the first mismatch. */
#ifndef COLL_TEST_H
#define COLL_TEST_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pami.h>

#define CT_UNUSED __attribute__((unused))

static pami_client_t ct_client;
static pami_context_t ct_ctx;
static size_t ct_task, ct_size;
static pami_geometry_t ct_world;
static int ct_quick;

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "FAIL task %zu %s:%d ", ct_task, __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
        fflush(stderr);                                                        \
        exit(1);                                                               \
    } while (0)
#define CHECK(cond, ...)     \
    do {                     \
        if (!(cond))         \
            FAIL(__VA_ARGS__); \
    } while (0)
#define CHECK_RC(call, want)                                                              \
    do {                                                                                  \
        pami_result_t r_ = (call);                                                        \
        if (r_ != (want))                                                                 \
            FAIL("%s returned %d, expected %d", #call, (int)r_, (int)(want));             \
    } while (0)

CT_UNUSED static double ct_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

CT_UNUSED static void ct_done(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    if (r != PAMI_SUCCESS)
        FAIL("completion with result %d", (int)r);
    atomic_fetch_add((atomic_long *)cookie, 1);
}

/* advance until *flag reaches target, for at most `seconds` */
CT_UNUSED static void ct_wait(atomic_long *flag, long target, double seconds, const char *what)
{
    double end = ct_now() + seconds;
    while (atomic_load(flag) < target) {
        PAMI_Context_advance(ct_ctx, 16);
        if (ct_now() > end)
            FAIL("timed out waiting for %s (%ld of %ld)", what, atomic_load(flag), target);
    }
}

/* Algorithm of xfer on g whose name contains `name` (list 0 first, then
 * list 1); found: its metadata in *md and list in *list. */
CT_UNUSED static int ct_find(pami_geometry_t g, pami_xfer_type_t t, const char *name, pami_algorithm_t *alg,
                             pami_metadata_t *md, int *list)
{
    size_t num[2];
    CHECK_RC(PAMI_Geometry_algorithms_num(g, t, num), PAMI_SUCCESS);
    pami_algorithm_t a[2][32];
    pami_metadata_t m[2][32];
    CHECK(num[0] <= 32 && num[1] <= 32, "too many algorithms");
    CHECK_RC(PAMI_Geometry_algorithms_query(g, t, a[0], m[0], num[0], a[1], m[1], num[1]), PAMI_SUCCESS);
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < num[l]; i++)
            if (strstr(m[l][i].name, name)) {
                *alg = a[l][i];
                if (md)
                    *md = m[l][i];
                if (list)
                    *list = l;
                return 1;
            }
    return 0;
}

/* Every algorithm of t on g: lists concatenated, list-1 entries flagged. */
struct ct_algs {
    size_t n;
    pami_algorithm_t a[32];
    pami_metadata_t md[32];
    int list[32];
};
CT_UNUSED static void ct_algs(pami_geometry_t g, pami_xfer_type_t t, struct ct_algs *out)
{
    size_t num[2];
    CHECK_RC(PAMI_Geometry_algorithms_num(g, t, num), PAMI_SUCCESS);
    CHECK(num[0] >= 1, "xfer %d: list 0 is empty", (int)t);
    CHECK(num[0] + num[1] <= 32, "too many algorithms");
    CHECK_RC(PAMI_Geometry_algorithms_query(g, t, out->a, out->md, num[0], out->a + num[0], out->md + num[0],
                                            num[1]),
             PAMI_SUCCESS);
    out->n = num[0] + num[1];
    for (size_t i = 0; i < out->n; i++)
        out->list[i] = i >= num[0];
}

/* run one collective to completion */
CT_UNUSED static void ct_run(pami_xfer_t *x, const char *what)
{
    atomic_long done = 0;
    x->cb_done = ct_done;
    x->cookie = &done;
    pami_result_t r = PAMI_Collective(ct_ctx, x);
    if (r != PAMI_SUCCESS)
        FAIL("PAMI_Collective(%s) returned %d", what, (int)r);
    ct_wait(&done, 1, 180, what);
}

CT_UNUSED static void ct_barrier(pami_geometry_t g)
{
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    CHECK(ct_find(g, PAMI_XFER_BARRIER, "Dissemination", &x.algorithm, NULL, NULL), "no barrier");
    ct_run(&x, "barrier");
}

CT_UNUSED static void ct_init(int argc, char **argv)
{
    ct_quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    CHECK_RC(PAMI_Client_create("coll", &ct_client, NULL, 0), PAMI_SUCCESS);
    pami_configuration_t q[2] = {{.name = PAMI_CLIENT_TASK_ID}, {.name = PAMI_CLIENT_NUM_TASKS}};
    CHECK_RC(PAMI_Client_query(ct_client, q, 2), PAMI_SUCCESS);
    ct_task = q[0].value.intval;
    ct_size = q[1].value.intval;
    CHECK_RC(PAMI_Context_createv(ct_client, NULL, 0, &ct_ctx, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Geometry_world(ct_client, &ct_world), PAMI_SUCCESS);
}

CT_UNUSED static void ct_fini(void)
{
    ct_barrier(ct_world);
    CHECK_RC(PAMI_Context_destroyv(&ct_ctx, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&ct_client), PAMI_SUCCESS);
}

/* does the metadata allow this call? */
CT_UNUSED static int ct_allowed(const pami_metadata_t *md, int list, pami_xfer_t *x, size_t bytes)
{
    if (!list)
        return 1;
    if (md->check_correct.values.rangeminmax && (bytes < md->range_lo || bytes > md->range_hi))
        return 0;
    if (md->check_fn && md->check_fn(x).bitmask)
        return 0;
    return 1;
}

#endif
