/* EXT_collsel, the collective-selection tuner IBM's pami_tune drives.
 *
 *   symbols    all seven of IBM's names, matched without regard to case;
 *              an unknown name gives NULL
 *   init       bad arguments PAMI_INVAL with one line
 *   generate   bad arguments fail at every task with one line each, never
 *              hang: NULL params, mode 0 (update: PAMI_UNIMPL), mode 2, a
 *              collective or geometry size out of range, task 0 without a
 *              file; then a real run (data checks on) over eight
 *              collectives, four sizes, the default geometries, whose table
 *              task 0 reads back: every geometry and collective present,
 *              message ranges contiguous from the smallest size to the
 *              largest under the collective's cap, every ranking non-empty
 *              and naming listed algorithms
 *   unsupported Collsel_table_load/_unload/_query/_advise: PAMI_UNIMPL
 *   destroy    once; again (a stale copy) and NULL: PAMI_INVAL
 * Types as pami_tune declares them: IBM ships no C header for them. */
#include "ptest.h"

typedef void *advisor_t;
typedef struct {
    int name;
    union {
        size_t intval;
        double doubleval;
        const char *chararray;
        const size_t *intarray;
    } value;
} advisor_configuration_t;
typedef struct {
    pami_xfer_type_t *collectives;
    size_t num_collectives;
    size_t *procs_per_node;
    size_t num_procs_per_node;
    size_t *geometry_sizes;
    size_t num_geometry_sizes;
    size_t *message_sizes;
    size_t num_message_sizes;
    int iter, verify, verbose, checkpoint;
} advisor_params_t;

typedef pami_result_t (*init_fn)(pami_client_t, advisor_configuration_t[], size_t, pami_context_t[], size_t,
                                 advisor_t *);
typedef pami_result_t (*generate_fn)(advisor_t, char *, advisor_params_t *, int);
typedef pami_result_t (*destroy_fn)(advisor_t *);
typedef pami_result_t (*load_fn)(advisor_t, char *, void **);
typedef pami_result_t (*unload_fn)(void **);
typedef pami_result_t (*query_fn)(void **, pami_geometry_t, void **);
typedef pami_result_t (*advise_fn)(void *, pami_xfer_type_t, pami_xfer_t *, void *, size_t);

static const pami_xfer_type_t colls[] = {PAMI_XFER_BARRIER,       PAMI_XFER_BROADCAST,   PAMI_XFER_ALLREDUCE,
                                         PAMI_XFER_ALLTOALLV_INT, PAMI_XFER_AMREDUCE,    PAMI_XFER_REDUCE_SCATTER,
                                         PAMI_XFER_SCAN,          PAMI_XFER_GATHERV};
#define NCOLL (sizeof colls / sizeof colls[0])
static size_t sizes[] = {1, 8, 1000, 70000};
#define NSIZE (sizeof sizes / sizeof sizes[0])

static size_t cap(pami_xfer_type_t c, size_t g)
{
    if (c == PAMI_XFER_BROADCAST)
        return 1u << 20;
    if (c == PAMI_XFER_ALLREDUCE || c == PAMI_XFER_AMREDUCE || c == PAMI_XFER_SCAN)
        return 1u << 19;
    return (1u << 20) / (g + 1);
}

/* the number between <tag> and </tag> at or after *p; -1 when absent */
static long next_num(const char **p, const char *tag)
{
    char open[64];
    snprintf(open, sizeof open, "<%s>", tag);
    const char *q = strstr(*p, open);
    if (!q)
        return -1;
    *p = q + strlen(open);
    return strtol(*p, NULL, 10);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f, "cannot open the table %s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* algorithm names listed for collective c in the <collectives> section */
static long names_of(const char *doc, pami_xfer_type_t c)
{
    char key[64];
    snprintf(key, sizeof key, "<collective_id>%d</collective_id>", (int)c);
    const char *p = strstr(doc, key), *end = p ? strstr(p, "</collective>") : NULL;
    long n = 0;
    while (p && end && (p = strstr(p + 1, "<algorithm>")) && p < end)
        n++;
    return n;
}

static void check_table(const char *path, const size_t *geoms, size_t ng)
{
    const char *whole = slurp(path), *doc = whole;
    CHECK(!strncmp(doc, "<?xml version=\"1.0\"", 19), "the table does not start with an XML declaration");
    CHECK(strstr(doc, "<pami_tune>") && strstr(doc, "</pami_tune>"), "no <pami_tune> root");
    CHECK(next_num(&doc, "ppn") >= 1, "no <ppn>");
    for (size_t gi = 0; gi < ng; gi++) {
        const char *p = strstr(doc, "<geometry>");
        CHECK(p, "geometry %zu of %zu is missing", gi, ng);
        const char *gend = strstr(p, "</geometry>");
        CHECK(next_num(&p, "geometry_size") == (long)geoms[gi], "geometry %zu: size is not %zu", gi, geoms[gi]);
        for (size_t c = 0; c < NCOLL; c++) {
            CHECK(next_num(&p, "coll_id") == (long)colls[c], "g=%zu: collective %zu is not id %d", geoms[gi], c,
                  (int)colls[c]);
            const char *cend = strstr(p, "</coll>");
            size_t lo = colls[c] == PAMI_XFER_BARRIER ? 0 : sizes[0], hi = 0;
            for (size_t s = 0; s < NSIZE; s++)
                if (sizes[s] <= cap(colls[c], geoms[gi]))
                    hi = sizes[s];
            if (colls[c] == PAMI_XFER_BARRIER)
                hi = 0;
            long want = (long)lo, names = names_of(whole, colls[c]);
            while (1) {
                const char *m = strstr(p, "<message>");
                if (!m || m > cend)
                    break;
                p = m;
                long mn = next_num(&p, "size_min"), mx = next_num(&p, "size_max");
                CHECK(mn == want, "g=%zu coll %d: a range starts at %ld, expected %ld", geoms[gi], (int)colls[c], mn,
                      want);
                CHECK(mx >= mn, "g=%zu coll %d: range %ld..%ld", geoms[gi], (int)colls[c], mn, mx);
                const char *a = strstr(p, "<algorithms>");
                CHECK(a, "no <algorithms>");
                a += strlen("<algorithms>");
                CHECK(*a >= '0' && *a <= '9', "g=%zu coll %d size %ld: an empty ranking", geoms[gi], (int)colls[c], mn);
                for (char *e; *a >= '0' && *a <= '9'; a = *e == ',' ? e + 1 : e) {
                    long id = strtol(a, &e, 10);
                    CHECK(id >= 0 && id < names, "g=%zu coll %d: algorithm id %ld of %ld names", geoms[gi],
                          (int)colls[c], id, names);
                }
                want = -2; /* the next range starts after mx: the next requested size */
                for (size_t s = 0; s < NSIZE; s++)
                    if ((long)sizes[s] > mx) {
                        want = (long)sizes[s];
                        break;
                    }
                if (mx == (long)hi)
                    want = -1;
            }
            CHECK(want == -1, "g=%zu coll %d: the ranges do not end at %zu", geoms[gi], (int)colls[c], hi);
        }
        CHECK(p < gend, "g=%zu: more collectives than asked for", geoms[gi]);
        doc = gend;
    }
    CHECK(!strstr(doc, "<geometry>"), "more geometries than %zu", ng);
}

int main(void)
{
    pt_init(1);
    pami_extension_t ext;
    CHECK_RC(PAMI_Extension_open(pt_client, "EXT_collsel", &ext), PAMI_SUCCESS);
    init_fn init = (init_fn)PAMI_Extension_symbol(ext, "Collsel_init_fn");
    generate_fn gen = (generate_fn)PAMI_Extension_symbol(ext, "Collsel_table_generate_fn");
    destroy_fn destroy = (destroy_fn)PAMI_Extension_symbol(ext, "collsel_destroy_FN");
    load_fn load = (load_fn)PAMI_Extension_symbol(ext, "Collsel_table_load_fn");
    unload_fn unload = (unload_fn)PAMI_Extension_symbol(ext, "Collsel_table_unload_fn");
    query_fn query = (query_fn)PAMI_Extension_symbol(ext, "Collsel_query_fn");
    advise_fn advise = (advise_fn)PAMI_Extension_symbol(ext, "Collsel_advise_fn");
    CHECK(init && gen && destroy && load && unload && query && advise, "a Collsel symbol is missing");
    ERRCAP_BEGIN();
    void *none = PAMI_Extension_symbol(ext, "Collsel_nope");
    char said[256];
    errcap_end(said, sizeof said);
    CHECK(!none, "an unknown symbol was found");

    advisor_t adv = NULL;
    advisor_configuration_t cfg[1];
    CHECK_ERR(init(pt_client, cfg, 0, pt_ctx, 1, NULL), PAMI_INVAL, "Collsel_init_fn");
    CHECK_ERR(init(pt_client, cfg, 0, pt_ctx, 0, &adv), PAMI_INVAL, "Collsel_init_fn");
    CHECK_RC(init(pt_client, cfg, 0, pt_ctx, 1, &adv), PAMI_SUCCESS);
    CHECK(adv, "no advisor");

    char path[64];
    snprintf(path, sizeof path, "/tmp/emunic-collsel-%d.xml", (int)getpid());
    char *file = pt_task == 0 ? path : NULL;
    pami_xfer_type_t cl[NCOLL];
    memcpy(cl, colls, sizeof cl);
    advisor_params_t p = {cl, NCOLL, NULL, 0, NULL, 0, sizes, NSIZE, 3, 1, 0, 0};
    CHECK_ERR(gen(adv, file, NULL, 1), PAMI_INVAL, "Collsel_table_generate_fn");
    CHECK_ERR(gen(adv, file, &p, 0), PAMI_UNIMPL, "Collsel_table_generate_fn");
    CHECK_ERR(gen(adv, file, &p, 2), PAMI_INVAL, "Collsel_table_generate_fn");
    pami_xfer_type_t badc = (pami_xfer_type_t)99;
    advisor_params_t q = p;
    q.collectives = &badc, q.num_collectives = 1;
    CHECK_ERR(gen(adv, file, &q, 1), PAMI_INVAL, "Collsel_table_generate_fn");
    size_t badg = pt_size + 1;
    q = p;
    q.geometry_sizes = &badg, q.num_geometry_sizes = 1;
    CHECK_ERR(gen(adv, file, &q, 1), PAMI_INVAL, "Collsel_table_generate_fn");
    CHECK_ERR(gen(adv, NULL, &p, 1), PAMI_INVAL, "Collsel_table_generate_fn");

    CHECK_RC(gen(adv, file, &p, 1), PAMI_SUCCESS);
    if (pt_task == 0) {
        size_t geoms[16], ng = 0;
        for (size_t g = 2; g < pt_size; g *= 2)
            geoms[ng++] = g;
        geoms[ng++] = pt_size;
        check_table(path, geoms, ng);
        unlink(path);
    }

    void *table = NULL, *fq = NULL;
    CHECK_ERR(load(adv, path, &table), PAMI_UNIMPL, "Collsel_table_load_fn");
    CHECK_ERR(unload(&table), PAMI_UNIMPL, "Collsel_table_unload_fn");
    CHECK_ERR(query(&table, PAMI_GEOMETRY_NULL, &fq), PAMI_UNIMPL, "Collsel_query_fn");
    CHECK_ERR(advise(fq, PAMI_XFER_BARRIER, NULL, NULL, 0), PAMI_UNIMPL, "Collsel_advise_fn");

    advisor_t stale = adv;
    CHECK_RC(destroy(&adv), PAMI_SUCCESS);
    CHECK(adv == NULL, "destroy left the advisor set");
    CHECK_ERR(destroy(&stale), PAMI_INVAL, "Collsel_destroy_fn");
    CHECK_ERR(destroy(NULL), PAMI_INVAL, "Collsel_destroy_fn");
    CHECK_RC(PAMI_Extension_close(ext), PAMI_SUCCESS);
    pt_finish("collsel");
    return 0;
}
