/* EXT_collsel: IBM Parallel Environment's collective-selection tuner.
 * Collsel_table_generate times every algorithm a geometry offers, for each
 * collective, message size and geometry size asked for, and task 0 writes
 * the ranking as a pami_tune XML table (IBM's element names). emunic picks
 * its algorithms itself and does not read such a table back, so
 * Collsel_table_load, _unload, _query and _advise return PAMI_UNIMPL.
 *
 * The tuner is an ordinary client of the API: the world geometry, a
 * sub-geometry of tasks 0..g-1 per geometry size, the caller's first
 * context. Every task takes every decision from the same inputs, and
 * whatever may differ between tasks (task 0's file) is agreed by an
 * allreduce first, so that a bad argument fails everywhere, never hangs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collsel.h"
#include "pami_lib.h"

#define ADV_MAGIC 0xc0115e1au
#define MAX_ADV 16

struct advisor {
    uint32_t magic;
    pami_client_t client;
    pami_context_t ctx;
};

static struct advisor *live_adv[MAX_ADV];

static int adv_live(const struct advisor *a)
{
    int live = 0;
    pthread_mutex_lock(&pamil.mu);
    for (int i = 0; i < MAX_ADV && !live; i++)
        live = a && live_adv[i] == a;
    pthread_mutex_unlock(&pamil.mu);
    return live;
}

static pami_result_t collsel_init(pami_client_t client, collsel_config_t configuration[], size_t num_configs,
                                  pami_context_t contexts[], size_t num_contexts, collsel_advisor_t *advisor)
{
    static const char fn[] = "EXT_collsel Collsel_init_fn";
    (void)configuration; /* IBM's advisor has no configuration attributes */
    if (!pamil_client_of(fn, client))
        return PAMI_INVAL;
    if (!advisor || !contexts || !num_contexts || (num_configs && !configuration))
        return pamil_fail(PAMI_INVAL, fn, "advisor or contexts is NULL, or no context");
    struct pamil_context *c = pamil_context_of(fn, contexts[0]);
    if (!c)
        return PAMI_INVAL;
    if (c->client != pamil_client_of(fn, client))
        return pamil_fail(PAMI_INVAL, fn, "the context belongs to another client");
    struct advisor *a = calloc(1, sizeof *a);
    if (!a)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    *a = (struct advisor){ADV_MAGIC, client, contexts[0]};
    int slot = -1;
    pthread_mutex_lock(&pamil.mu);
    for (int i = 0; i < MAX_ADV && slot < 0; i++)
        if (!live_adv[i])
            live_adv[slot = i] = a;
    pthread_mutex_unlock(&pamil.mu);
    if (slot < 0) {
        free(a);
        return pamil_fail(PAMI_EAGAIN, fn, "at most %d advisors may exist", MAX_ADV);
    }
    *advisor = a;
    return PAMI_SUCCESS;
}

static pami_result_t collsel_destroy(collsel_advisor_t *advisor)
{
    static const char fn[] = "EXT_collsel Collsel_destroy_fn";
    if (!advisor)
        return pamil_fail(PAMI_INVAL, fn, "advisor is NULL");
    struct advisor *a = *advisor;
    int live = 0;
    pthread_mutex_lock(&pamil.mu);
    for (int i = 0; i < MAX_ADV; i++)
        if (a && live_adv[i] == a) {
            live_adv[i] = NULL;
            live = 1;
        }
    pthread_mutex_unlock(&pamil.mu);
    if (!live)
        return pamil_fail(PAMI_INVAL, fn, "not a live advisor (destroyed already?)");
    a->magic = 0;
    free(a);
    *advisor = NULL;
    return PAMI_SUCCESS;
}

static pami_result_t collsel_generate(collsel_advisor_t advisor, char *filename, collsel_params_t *params, int mode)
{
    static const char fn[] = "EXT_collsel Collsel_table_generate_fn";
    struct advisor *a = advisor;
    if (!adv_live(a))
        return pamil_fail(PAMI_INVAL, fn, "not a live advisor");
    if (!params)
        return pamil_fail(PAMI_INVAL, fn, "params is NULL");
    if (mode == 0)
        return pamil_fail(PAMI_UNIMPL, fn, "updating an existing table (mode 0) is not supported; use mode 1");
    if (mode != 1)
        return pamil_fail(PAMI_INVAL, fn, "mode %d is neither 0 (update) nor 1 (create)", mode);
    return collsel_tune(a->client, a->ctx, filename, params);
}

static pami_result_t collsel_unimpl(const char *what)
{
    return pamil_fail(PAMI_UNIMPL, "EXT_collsel", "%s: emunic does not load selection tables (it picks its "
                                                  "algorithms itself)",
                      what);
}

static pami_result_t collsel_load(collsel_advisor_t a, char *f, void **t)
{
    (void)a, (void)f, (void)t;
    return collsel_unimpl("Collsel_table_load_fn");
}

static pami_result_t collsel_unload(void **t)
{
    (void)t;
    return collsel_unimpl("Collsel_table_unload_fn");
}

static pami_result_t collsel_query(void **t, pami_geometry_t g, void **q)
{
    (void)t, (void)g, (void)q;
    return collsel_unimpl("Collsel_query_fn");
}

static pami_result_t collsel_advise(void *q, pami_xfer_type_t x, pami_xfer_t *xf, void *algs, size_t n)
{
    (void)q, (void)x, (void)xf, (void)algs, (void)n;
    return collsel_unimpl("Collsel_advise_fn");
}

/* IBM matches these names without regard to case. */
void *pamil_collsel_symbol(const char *name)
{
    static const struct {
        const char *name;
        void *fn;
    } syms[] = {
        {"Collsel_init_fn", (void *)(uintptr_t)collsel_init},
        {"Collsel_destroy_fn", (void *)(uintptr_t)collsel_destroy},
        {"Collsel_table_generate_fn", (void *)(uintptr_t)collsel_generate},
        {"Collsel_table_load_fn", (void *)(uintptr_t)collsel_load},
        {"Collsel_table_unload_fn", (void *)(uintptr_t)collsel_unload},
        {"Collsel_query_fn", (void *)(uintptr_t)collsel_query},
        {"Collsel_advise_fn", (void *)(uintptr_t)collsel_advise},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (!strcasecmp(name, syms[i].name))
            return syms[i].fn;
    return NULL;
}
