/* PAMI_Extension_open/_symbol/_close and the extensions emunic offers:
 *   EXT_async_progress  progress threads (async.c)
 *   EXT_torus_network   the job's network as a torus (emunic_torus_*)
 *   EXT_test_extension  IBM's extension-mechanism test ("foo", "bar")
 *   EXT_collsel         PE's collective-selection tuner (collsel*.c)
 * Any other name is PAMI_UNIMPL, recorded but not printed: clients probe
 * for extensions and carry on without them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pami_lib.h"

struct ext_kind {
    const char *name;
    void *(*symbol)(const char *fn);
};

static const struct ext_kind kinds[] = {
    {"EXT_async_progress", pamil_async_symbol},
    {"EXT_torus_network", pamil_torus_symbol},
    {"EXT_test_extension", pamil_test_symbol},
    {"EXT_collsel", pamil_collsel_symbol},
};

struct pamil_ext {
    uint32_t magic;
    const struct ext_kind *kind;
};
#define PAMIL_EXT_MAGIC 0xe47e4510u

/* open extensions, so that a closed one is refused without touching it */
#define MAX_EXT 16
static struct pamil_ext *open_ext[MAX_EXT];

static int ext_live(struct pamil_ext *e)
{
    for (int i = 0; i < MAX_EXT; i++)
        if (e && open_ext[i] == e)
            return 1;
    return 0;
}

pami_result_t PAMI_Extension_open(pami_client_t client, const char *name, pami_extension_t *extension)
{
    static const char fn[] = "PAMI_Extension_open";
    if (!pamil_client_of(fn, client))
        return PAMI_INVAL;
    if (!name || !extension)
        return pamil_fail(PAMI_INVAL, fn, "name or extension is NULL");
    const struct ext_kind *k = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !k; i++)
        if (!strcmp(name, kinds[i].name))
            k = &kinds[i];
    if (!k) {
        char what[96];
        snprintf(what, sizeof what, "extension '%.48s' is not implemented by emunic", name);
        pamil_note(fn, what);
        return PAMI_UNIMPL;
    }
    struct pamil_ext *e = calloc(1, sizeof *e);
    if (!e)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    e->magic = PAMIL_EXT_MAGIC;
    e->kind = k;
    pthread_mutex_lock(&pamil.mu);
    int slot = -1;
    for (int i = 0; i < MAX_EXT && slot < 0; i++)
        if (!open_ext[i])
            slot = i;
    if (slot >= 0)
        open_ext[slot] = e;
    pthread_mutex_unlock(&pamil.mu);
    if (slot < 0) {
        free(e);
        return pamil_fail(PAMI_EAGAIN, fn, "at most %d extensions may be open", MAX_EXT);
    }
    *extension = e;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Extension_close(pami_extension_t extension)
{
    struct pamil_ext *e = extension;
    pthread_mutex_lock(&pamil.mu);
    int live = ext_live(e);
    for (int i = 0; live && i < MAX_EXT; i++)
        if (open_ext[i] == e)
            open_ext[i] = NULL;
    pthread_mutex_unlock(&pamil.mu);
    if (!live)
        return pamil_fail(PAMI_INVAL, "PAMI_Extension_close", "not an open extension");
    e->magic = 0;
    free(e);
    return PAMI_SUCCESS;
}

void *PAMI_Extension_symbol(pami_extension_t extension, const char *fn)
{
    struct pamil_ext *e = extension;
    pthread_mutex_lock(&pamil.mu);
    int live = ext_live(e);
    pthread_mutex_unlock(&pamil.mu);
    if (!live || !fn) {
        pamil_fail(PAMI_INVAL, "PAMI_Extension_symbol", "not an open extension, or no symbol name");
        return NULL;
    }
    void *sym = e->kind->symbol(fn);
    if (!sym)
        pamil_fail(PAMI_INVAL, "PAMI_Extension_symbol", "%s has no symbol '%s'", e->kind->name, fn);
    return sym;
}

/* ---- EXT_torus_network ---- */

/* The layout IBM's torus extension returns from "information". */
struct torus_info {
    size_t dims;
    size_t *coord;
    size_t *size;
    size_t *torus; /* 1: the dimension wraps around */
};

static struct torus_info tinfo;
static size_t tcoord[EMUNIC_TORUS_MAX_DIMS], tsize[EMUNIC_TORUS_MAX_DIMS], twrap[EMUNIC_TORUS_MAX_DIMS];
static pthread_once_t tonce = PTHREAD_ONCE_INIT;

static void torus_fill(void)
{
    struct emunic_torus t;
    uint32_t c[EMUNIC_TORUS_MAX_DIMS];
    if (emunic_torus_shape(&t) || emunic_torus_coords(emunic_rank(), c))
        return;
    for (uint32_t d = 0; d < t.ndims; d++) {
        tcoord[d] = c[d];
        tsize[d] = t.size[d];
        twrap[d] = t.wrap[d];
    }
    tinfo = (struct torus_info){t.ndims, tcoord, tsize, twrap};
}

static const struct torus_info *torus_information(void)
{
    pthread_once(&tonce, torus_fill);
    return &tinfo;
}

static pami_result_t torus_task2torus(pami_task_t task, size_t coord[])
{
    uint32_t c[EMUNIC_TORUS_MAX_DIMS];
    torus_information();
    if (!coord || emunic_torus_coords(task, c))
        return pamil_fail(PAMI_INVAL, "EXT_torus_network task2torus", "task %u is not in the job, or coord is NULL",
                          task);
    for (size_t d = 0; d < tinfo.dims; d++)
        coord[d] = c[d];
    return PAMI_SUCCESS;
}

static pami_result_t torus_torus2task(size_t coord[], pami_task_t *task)
{
    uint32_t c[EMUNIC_TORUS_MAX_DIMS], r;
    torus_information();
    if (!coord || !task)
        return pamil_fail(PAMI_INVAL, "EXT_torus_network torus2task", "coord or task is NULL");
    for (size_t d = 0; d < tinfo.dims; d++)
        c[d] = coord[d] > UINT32_MAX ? UINT32_MAX : (uint32_t)coord[d];
    if (emunic_torus_rank(c, &r))
        return pamil_fail(PAMI_INVAL, "EXT_torus_network torus2task", "no task at those coordinates");
    *task = r;
    return PAMI_SUCCESS;
}

void *pamil_torus_symbol(const char *name)
{
    if (!strcmp(name, "information"))
        return (void *)(uintptr_t)torus_information;
    if (!strcmp(name, "task2torus"))
        return (void *)(uintptr_t)torus_task2torus;
    if (!strcmp(name, "torus2task"))
        return (void *)(uintptr_t)torus_torus2task;
    return NULL;
}

/* ---- EXT_test_extension: proves the mechanism, as IBM's does ---- */

struct test_info {
    size_t line;
    char func[128];
};

static void test_foo(void)
{
    fprintf(stderr, "emunic pami: EXT_test_extension: function 'foo'\n");
}

static void test_bar(struct test_info *info)
{
    if (!info)
        return;
    info->line = __LINE__;
    snprintf(info->func, sizeof info->func, "%s", __func__);
}

void *pamil_test_symbol(const char *name)
{
    if (!strcmp(name, "foo"))
        return (void *)(uintptr_t)test_foo;
    if (!strcmp(name, "bar"))
        return (void *)(uintptr_t)test_bar;
    return NULL;
}
