/* The tuner behind Collsel_table_generate: for each geometry size, every
 * collective asked for, each message size and every algorithm the
 * geometry offers, time the collective on every member and rank the
 * algorithms by their average; task 0 prints the progress and writes the
 * table. Defaults follow IBM's: all collectives, messages of 1 byte to
 * 4 MiB capped per collective (1 MiB of data in flight at a task), 100
 * iterations scaled down above 64 KiB, geometries of 2, 4, ... tasks and
 * the whole job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collsel.h"
#include "pami_lib.h"

#define MAX_ALGS 32
#define CUTOFF 65536
#define GEOM_ID_BASE 0x5e1000u

static const char *const coll_names[PAMI_XFER_COUNT] = {
    [PAMI_XFER_BROADCAST] = "broadcast",       [PAMI_XFER_ALLREDUCE] = "allreduce",
    [PAMI_XFER_REDUCE] = "reduce",             [PAMI_XFER_ALLGATHER] = "allgather",
    [PAMI_XFER_ALLGATHERV] = "allgatherv",     [PAMI_XFER_ALLGATHERV_INT] = "allgatherv_int",
    [PAMI_XFER_SCATTER] = "scatter",           [PAMI_XFER_SCATTERV] = "scatterv",
    [PAMI_XFER_SCATTERV_INT] = "scatterv_int", [PAMI_XFER_GATHER] = "gather",
    [PAMI_XFER_GATHERV] = "gatherv",           [PAMI_XFER_GATHERV_INT] = "gatherv_int",
    [PAMI_XFER_BARRIER] = "barrier",           [PAMI_XFER_ALLTOALL] = "alltoall",
    [PAMI_XFER_ALLTOALLV] = "alltoallv",       [PAMI_XFER_ALLTOALLV_INT] = "alltoallv_int",
    [PAMI_XFER_SCAN] = "scan",                 [PAMI_XFER_REDUCE_SCATTER] = "reduce_scatter",
    [PAMI_XFER_AMBROADCAST] = "ambroadcast",   [PAMI_XFER_AMSCATTER] = "amscatter",
    [PAMI_XFER_AMGATHER] = "amgather",         [PAMI_XFER_AMREDUCE] = "amreduce",
};

struct row { /* task 0: one line of the table */
    size_t g;
    pami_xfer_type_t coll;
    size_t size;
    char rank[4 * MAX_ALGS]; /* algorithm ids, fastest first */
};

struct tuner {
    pami_client_t client;
    pami_context_t ctx;
    pami_geometry_t world;
    size_t task, ntasks, ppn;
    int iter, verify, verbose;
    size_t bad; /* failed data checks at this task */
    FILE *out;  /* task 0 */
    const char *names[PAMI_XFER_COUNT][MAX_ALGS];
    size_t nnames[PAMI_XFER_COUNT];
    struct row *rows;
    size_t nrows;
};

static void flag_cb(pami_context_t ctx, void *cookie, pami_result_t res)
{
    (void)ctx, (void)res;
    *(volatile int *)cookie = 1;
}

static void wait_flag(pami_context_t ctx, volatile int *f)
{
    while (!*f)
        PAMI_Context_advance(ctx, 1);
}

/* issue and wait; PAMI_EAGAIN (no room yet) is retried after an advance */
static pami_result_t run(pami_context_t ctx, pami_xfer_t *x)
{
    volatile int f = 0;
    x->cb_done = flag_cb;
    x->cookie = (void *)&f;
    pami_result_t r;
    while ((r = PAMI_Collective(ctx, x)) == PAMI_EAGAIN)
        PAMI_Context_advance(ctx, 1);
    if (r == PAMI_SUCCESS)
        wait_flag(ctx, &f);
    return r;
}

static pami_result_t always_works(pami_geometry_t g, pami_xfer_type_t type, pami_algorithm_t *a)
{
    size_t n[2];
    pami_metadata_t md;
    pami_result_t r = PAMI_Geometry_algorithms_num(g, type, n);
    if (r == PAMI_SUCCESS && !n[0])
        r = PAMI_ERROR;
    if (r == PAMI_SUCCESS)
        r = PAMI_Geometry_algorithms_query(g, type, a, &md, 1, NULL, NULL, 0);
    return r;
}

/* an allreduce of one value over geometry g */
static pami_result_t reduce1(pami_context_t ctx, pami_geometry_t g, pami_type_t type, pami_data_function op,
                             void *in, void *out)
{
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    pami_result_t r = always_works(g, PAMI_XFER_ALLREDUCE, &x.algorithm);
    if (r != PAMI_SUCCESS)
        return r;
    x.cmd.xfer_allreduce = (pami_allreduce_t){in, type, 1, out, type, 1, op, NULL, 1};
    return run(ctx, &x);
}

static pami_result_t barrier(pami_context_t ctx, pami_geometry_t g)
{
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    pami_result_t r = always_works(g, PAMI_XFER_BARRIER, &x.algorithm);
    return r == PAMI_SUCCESS ? run(ctx, &x) : r;
}

/* the most bytes per task worth timing: 1 MiB of data in flight at a task */
static size_t size_cap(pami_xfer_type_t c, size_t g)
{
    switch (c) {
    case PAMI_XFER_BROADCAST:
    case PAMI_XFER_AMBROADCAST:
        return 1u << 20;
    case PAMI_XFER_ALLREDUCE:
    case PAMI_XFER_REDUCE:
    case PAMI_XFER_SCAN:
    case PAMI_XFER_AMREDUCE:
        return 1u << 19;
    default:
        return (1u << 20) / (g + 1);
    }
}

static int iterations(const struct tuner *t, size_t bytes)
{
    int it = t->iter;
    if (bytes >= CUTOFF) {
        it = it < 640 ? it : 640;
        it /= (int)(bytes / CUTOFF);
    }
    return it > 0 ? it : 1;
}

/* one collective; AM collectives complete by this task's dispatch count,
 * except the broadcast root's, which completes by cb_done */
static int is_am(pami_xfer_type_t c)
{
    return c == PAMI_XFER_AMBROADCAST || c == PAMI_XFER_AMSCATTER || c == PAMI_XFER_AMGATHER ||
           c == PAMI_XFER_AMREDUCE;
}

static pami_result_t one(struct tuner *t, struct cs_run *r, pami_xfer_t *x, size_t *am_want)
{
    if (!is_am(r->coll))
        return run(t->ctx, x);
    pami_result_t res = PAMI_SUCCESS;
    if (r->me == 0 && r->coll == PAMI_XFER_AMBROADCAST)
        return run(t->ctx, x);
    if (r->me == 0) {
        x->cb_done = NULL;
        while ((res = PAMI_Collective(t->ctx, x)) == PAMI_EAGAIN)
            PAMI_Context_advance(t->ctx, 1);
    }
    ++*am_want;
    while (res == PAMI_SUCCESS && r->am_seen < *am_want)
        PAMI_Context_advance(t->ctx, 1);
    return res;
}

static size_t name_id(struct tuner *t, pami_xfer_type_t c, const char *name)
{
    for (size_t i = 0; i < t->nnames[c]; i++)
        if (!strcmp(t->names[c][i], name))
            return i;
    if (t->nnames[c] == MAX_ALGS)
        return MAX_ALGS - 1;
    t->names[c][t->nnames[c]] = name;
    return t->nnames[c]++;
}

struct timed {
    size_t id;
    double avg;
};

static int by_avg(const void *a, const void *b)
{
    const struct timed *x = a, *y = b;
    return (x->avg > y->avg) - (x->avg < y->avg);
}

static void add_row(struct tuner *t, size_t g, pami_xfer_type_t c, size_t size, struct timed *tm, size_t n)
{
    struct row *rows = realloc(t->rows, (t->nrows + 1) * sizeof *rows);
    if (!rows)
        return;
    t->rows = rows;
    struct row *w = &rows[t->nrows++];
    *w = (struct row){g, c, size, ""};
    qsort(tm, n, sizeof *tm, by_avg);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(w->rank + len, sizeof w->rank - len, "%s%zu", i ? "," : "", tm[i].id);
}

/* time every algorithm of one collective at one size on geometry geom */
static pami_result_t measure(struct tuner *t, pami_geometry_t geom, struct cs_run *r, pami_algorithm_t *algs,
                             pami_metadata_t *mds, size_t nalg)
{
    struct timed tm[MAX_ALGS];
    size_t ntm = 0, am_want = 0;
    pami_result_t res = PAMI_SUCCESS;
    for (size_t a = 0; a < nalg && res == PAMI_SUCCESS; a++) {
        pami_xfer_t x;
        memset(&x, 0, sizeof x);
        x.algorithm = algs[a];
        cs_fill(r, &x, 0);
        /* the same answer at every member: the inputs are the same */
        if (r->bytes < mds[a].range_lo || r->bytes > mds[a].range_hi)
            continue;
        if (mds[a].check_fn && mds[a].check_fn(&x).bitmask)
            continue;
        if (is_am(r->coll)) {
            pami_collective_hint_t h;
            memset(&h, 0, sizeof h);
            res = PAMI_AMCollective_dispatch_set(t->ctx, algs[a], AM_DISPATCH_ID, cs_am_dispatch(r->coll), r, h);
        }
        if (res == PAMI_SUCCESS)
            res = barrier(t->ctx, geom);
        int iters = iterations(t, r->bytes);
        double t0 = PAMI_Wtime(t->client);
        for (int i = 0; i < iters && res == PAMI_SUCCESS; i++)
            res = one(t, r, &x, &am_want);
        double avg = (PAMI_Wtime(t->client) - t0) * 1e6 / iters, mn = 0, mx = 0, sum = 0;
        if (res == PAMI_SUCCESS && t->verify == 1) {
            /* every member clears before anyone sends: an AM root does
             * not wait for its members */
            cs_fill(r, &x, 1);
            res = barrier(t->ctx, geom);
            if (res == PAMI_SUCCESS)
                res = one(t, r, &x, &am_want);
            size_t bad = res == PAMI_SUCCESS ? cs_check(r) : 0;
            if (bad) {
                fprintf(stderr, "emunic pami: EXT_collsel: task %zu: %s algorithm %s, %zu bytes, geometry of %zu: "
                                "wrong data at byte %zu\n",
                        t->task, coll_names[r->coll], mds[a].name, r->bytes, r->g, bad - 1);
                t->bad++;
            }
        }
        if (res == PAMI_SUCCESS)
            res = reduce1(t->ctx, geom, PAMI_TYPE_DOUBLE, PAMI_DATA_MIN, &avg, &mn);
        if (res == PAMI_SUCCESS)
            res = reduce1(t->ctx, geom, PAMI_TYPE_DOUBLE, PAMI_DATA_MAX, &avg, &mx);
        if (res == PAMI_SUCCESS)
            res = reduce1(t->ctx, geom, PAMI_TYPE_DOUBLE, PAMI_DATA_SUM, &avg, &sum);
        if (res != PAMI_SUCCESS || t->task != 0)
            continue;
        tm[ntm++] = (struct timed){name_id(t, r->coll, mds[a].name), sum / r->g};
        if (t->verbose == 1)
            printf("  %-35s %-15zu %-17f %-17f %-17f\n", mds[a].name, r->bytes, mn, mx, sum / r->g);
    }
    if (res == PAMI_SUCCESS && t->task == 0)
        add_row(t, r->g, r->coll, r->bytes, tm, ntm);
    return res;
}

static pami_result_t tune_coll(struct tuner *t, pami_geometry_t geom, size_t g, pami_xfer_type_t c,
                               const size_t *sizes, size_t nsizes)
{
    size_t n[2];
    pami_algorithm_t algs[MAX_ALGS];
    pami_metadata_t mds[MAX_ALGS];
    pami_result_t res = PAMI_Geometry_algorithms_num(geom, c, n);
    if (res != PAMI_SUCCESS)
        return res;
    n[0] = n[0] < MAX_ALGS ? n[0] : MAX_ALGS;
    n[1] = n[1] < MAX_ALGS - n[0] ? n[1] : MAX_ALGS - n[0];
    res = PAMI_Geometry_algorithms_query(geom, c, algs, mds, n[0], algs + n[0], mds + n[0], n[1]);
    if (res != PAMI_SUCCESS)
        return res;
    if (t->task == 0) {
        printf("# Collective: %-20s   Geometry Size: %-8zu\n", coll_names[c], g);
        if (t->verbose == 1)
            printf("# Algorithm                           Message Size    Min (usec)        Max (usec)        Avg (usec)\n");
        fflush(stdout);
    }
    size_t barrier_size = 0;
    if (c == PAMI_XFER_BARRIER)
        sizes = &barrier_size, nsizes = 1;
    for (size_t s = 0; s < nsizes && res == PAMI_SUCCESS; s++) {
        if (c != PAMI_XFER_BARRIER && sizes[s] > size_cap(c, g))
            continue;
        pami_endpoint_t root;
        PAMI_Endpoint_create(t->client, 0, 0, &root);
        struct cs_run r = {c, root, g, t->task, sizes[s], NULL, 0};
        int ok = cs_setup(&r), all = 0;
        res = reduce1(t->ctx, geom, PAMI_TYPE_SIGNED_INT, PAMI_DATA_MIN, &ok, &all);
        if (res == PAMI_SUCCESS && !all)
            res = pamil_fail(PAMI_ENOMEM, "EXT_collsel", "%s at %zu bytes: a task is out of memory",
                             coll_names[c], sizes[s]);
        if (res == PAMI_SUCCESS)
            res = measure(t, geom, &r, algs, mds, n[0] + n[1]);
        cs_free(&r);
    }
    return res;
}

static void geom_cb(pami_context_t ctx, void *cookie, pami_result_t res)
{
    (void)ctx;
    *(volatile int *)cookie = res == PAMI_SUCCESS ? 1 : 2;
}

/* tasks 0..g-1 of the world (the world itself when g is the job) */
static pami_result_t sub_geometry(struct tuner *t, size_t g, unsigned id, pami_geometry_t *geom)
{
    if (g == t->ntasks) {
        *geom = t->world;
        return PAMI_SUCCESS;
    }
    pami_geometry_range_t range = {0, (pami_task_t)(g - 1)};
    volatile int f = 0;
    pami_result_t r = PAMI_Geometry_create_taskrange(t->client, 0, NULL, 0, geom, t->world, id, &range, 1, t->ctx,
                                                     geom_cb, (void *)&f);
    if (r == PAMI_SUCCESS)
        wait_flag(t->ctx, &f);
    return r == PAMI_SUCCESS && f == 2 ? PAMI_ERROR : r;
}

static void write_table(struct tuner *t)
{
    FILE *f = t->out;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<pami_tune>\n");
    fprintf(f, "\t<pami_environment></pami_environment>\n\t<collective_selection>\n\t\t<version>1.0</version>\n");
    fprintf(f, "\t\t<collectives>\n");
    for (int c = 0; c < PAMI_XFER_COUNT; c++) {
        if (!t->nnames[c])
            continue;
        fprintf(f, "\t\t\t<collective>\n\t\t\t\t<collective_id>%d</collective_id>\n", c);
        for (size_t i = 0; i < t->nnames[c]; i++)
            fprintf(f, "\t\t\t\t<algorithm>\n\t\t\t\t\t<id>%zu</id>\n\t\t\t\t\t<name>%s</name>\n\t\t\t\t</algorithm>\n",
                    i, t->names[c][i]);
        fprintf(f, "\t\t\t</collective>\n");
    }
    fprintf(f, "\t\t</collectives>\n\t\t<geometries>\n\t\t\t<ppn>%zu</ppn>\n", t->ppn);
    /* rows come grouped by geometry, then collective, sizes ascending in
     * the order given; equal rankings of neighbouring sizes merge */
    for (size_t i = 0; i < t->nrows;) {
        size_t g = t->rows[i].g;
        fprintf(f, "\t\t\t<geometry>\n\t\t\t\t<geometry_size>%zu</geometry_size>\n", g);
        while (i < t->nrows && t->rows[i].g == g) {
            pami_xfer_type_t c = t->rows[i].coll;
            fprintf(f, "\t\t\t\t<coll>\n\t\t\t\t\t<coll_id>%d</coll_id>\n", (int)c);
            while (i < t->nrows && t->rows[i].g == g && t->rows[i].coll == c) {
                size_t j = i;
                while (j + 1 < t->nrows && t->rows[j + 1].g == g && t->rows[j + 1].coll == c &&
                       !strcmp(t->rows[j + 1].rank, t->rows[i].rank))
                    j++;
                fprintf(f, "\t\t\t\t\t<message>\n\t\t\t\t\t\t<size_min>%zu</size_min>\n\t\t\t\t\t\t<size_max>%zu"
                           "</size_max>\n\t\t\t\t\t\t<algorithms>%s</algorithms>\n\t\t\t\t\t</message>\n",
                        t->rows[i].size, t->rows[j].size, t->rows[i].rank);
                i = j + 1;
            }
            fprintf(f, "\t\t\t\t</coll>\n");
        }
        fprintf(f, "\t\t\t</geometry>\n");
    }
    fprintf(f, "\t\t</geometries>\n\t</collective_selection>\n</pami_tune>\n");
}

static size_t client_attr(pami_client_t client, pami_attribute_name_t name)
{
    pami_configuration_t q = {.name = name};
    return PAMI_Client_query(client, &q, 1) == PAMI_SUCCESS ? q.value.intval : 0;
}

/* the lists to run: the caller's, or the defaults; NULL on a bad list */
static const char *resolve(const struct tuner *t, const collsel_params_t *p, pami_xfer_type_t *colls, size_t *nc,
                           size_t *geoms, size_t *ng, size_t *sizes, size_t *ns)
{
    *nc = *ng = *ns = 0;
    if (p->num_collectives > PAMI_XFER_COUNT || (p->num_collectives && !p->collectives))
        return "collectives: NULL, or more than PAMI_XFER_COUNT";
    for (size_t i = 0; i < p->num_collectives; i++) {
        if ((int)p->collectives[i] < 0 || p->collectives[i] >= PAMI_XFER_COUNT)
            return "collectives: a value out of pami_xfer_type_t's range";
        colls[(*nc)++] = p->collectives[i];
    }
    for (int c = 0; !p->num_collectives && c < PAMI_XFER_COUNT; c++)
        colls[(*nc)++] = (pami_xfer_type_t)c;
    if (p->num_geometry_sizes > 64 || (p->num_geometry_sizes && !p->geometry_sizes))
        return "geometry_sizes: NULL, or more than 64";
    for (size_t i = 0; i < p->num_geometry_sizes; i++) {
        if (!p->geometry_sizes[i] || p->geometry_sizes[i] > t->ntasks)
            return "geometry_sizes: a size of 0 or more than the job's tasks";
        geoms[(*ng)++] = p->geometry_sizes[i];
    }
    for (size_t g = 2; !p->num_geometry_sizes && g < t->ntasks; g *= 2)
        geoms[(*ng)++] = g;
    if (!p->num_geometry_sizes)
        geoms[(*ng)++] = t->ntasks;
    if (p->num_message_sizes > 64 || (p->num_message_sizes && !p->message_sizes))
        return "message_sizes: NULL, or more than 64";
    for (size_t i = 0; i < p->num_message_sizes; i++) {
        if (!p->message_sizes[i] || p->message_sizes[i] > (1u << 30))
            return "message_sizes: a size of 0 or over 1 GiB";
        sizes[(*ns)++] = p->message_sizes[i];
    }
    for (size_t s = 1; !p->num_message_sizes && s <= (1u << 22); s *= 2)
        sizes[(*ns)++] = s;
    if (p->num_procs_per_node && !p->procs_per_node)
        return "procs_per_node: NULL";
    return NULL;
}

pami_result_t collsel_tune(pami_client_t client, pami_context_t ctx, const char *filename,
                           const collsel_params_t *p)
{
    static const char fn[] = "EXT_collsel Collsel_table_generate_fn";
    struct tuner t = {.client = client, .ctx = ctx};
    t.task = client_attr(client, PAMI_CLIENT_TASK_ID);
    t.ntasks = client_attr(client, PAMI_CLIENT_NUM_TASKS);
    t.ppn = client_attr(client, PAMI_CLIENT_NUM_LOCAL_TASKS);
    t.iter = p->iter > 0 ? p->iter : 100;
    t.verify = p->verify;
    t.verbose = p->verbose;
    pami_xfer_type_t colls[PAMI_XFER_COUNT];
    size_t geoms[64], sizes[64], nc, ng, ns;
    pami_result_t res = PAMI_Geometry_world(client, &t.world);
    if (res != PAMI_SUCCESS)
        return res;
    /* agree first: a bad list is bad everywhere, task 0's file is its own */
    const char *why = resolve(&t, p, colls, &nc, geoms, &ng, sizes, &ns);
    if (!why && t.task == 0 && !filename)
        why = "task 0 passed no file name";
    if (!why && t.task == 0 && !(t.out = fopen(filename, "w")))
        why = "task 0 cannot write the file";
    int ok = !why, all = 0;
    res = reduce1(ctx, t.world, PAMI_TYPE_SIGNED_INT, PAMI_DATA_MIN, &ok, &all);
    if (res == PAMI_SUCCESS && !all) {
        if (t.out)
            fclose(t.out);
        return pamil_fail(PAMI_INVAL, fn, "%s", why ? why : "another task's arguments are bad");
    }
    if (t.task == 0 && p->checkpoint == 1)
        printf("# EXT_collsel: checkpointing is not offered; the table is written once, at the end\n");
    for (size_t gi = 0; gi < ng && res == PAMI_SUCCESS; gi++) {
        size_t g = geoms[gi];
        pami_geometry_t geom = PAMI_GEOMETRY_NULL;
        res = sub_geometry(&t, g, GEOM_ID_BASE + (unsigned)gi, &geom);
        for (size_t c = 0; c < nc && res == PAMI_SUCCESS && t.task < g; c++)
            res = tune_coll(&t, geom, g, colls[c], sizes, ns);
        if (geom != t.world && t.task < g && res == PAMI_SUCCESS) {
            volatile int f = 0;
            res = PAMI_Geometry_destroy(client, &geom, ctx, flag_cb, (void *)&f);
            if (res == PAMI_SUCCESS)
                wait_flag(ctx, &f);
        }
        if (res == PAMI_SUCCESS)
            res = barrier(ctx, t.world);
    }
    unsigned long bad = t.bad, anybad = 0;
    if (res == PAMI_SUCCESS)
        res = reduce1(ctx, t.world, PAMI_TYPE_UNSIGNED_LONG, PAMI_DATA_MAX, &bad, &anybad);
    if (t.out) {
        if (res == PAMI_SUCCESS)
            write_table(&t);
        if (fclose(t.out) && res == PAMI_SUCCESS)
            res = pamil_fail(PAMI_ERROR, fn, "writing %s failed", filename);
    }
    free(t.rows);
    if (res == PAMI_SUCCESS && anybad)
        res = pamil_fail(PAMI_ERROR, fn, "%lu data checks failed (see the lines above)", anybad);
    return res;
}
