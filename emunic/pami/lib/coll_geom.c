/* Geometries, algorithm lists and metadata, PAMI_Collective. */
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"

pami_geometry_t PAMI_GEOMETRY_NULL = NULL;
pami_algorithm_t PAMI_ALGORITHM_NULL = 0;
size_t PAMI_ALL_CONTEXTS = (size_t)-1;

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static struct cg_client *cl_state(struct pamil_client *cl)
{
    return cl->coll;
}

/* ---- geometry objects ---- */

static uint32_t node_of(uint32_t task)
{
    uint32_t per = emunic_local_size();
    return per ? task / per : 0;
}

static struct cg_geom *geom_new(struct pamil_client *cl, unsigned id, const uint32_t *tasks, uint32_t n)
{
    struct cg_geom *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->magic = CG_GEOM_MAGIC;
    g->cl = cl;
    g->id = id;
    g->n = n;
    g->tasks = malloc(n * sizeof *g->tasks);
    g->leaders = malloc(n * sizeof *g->leaders);
    g->node_idx = malloc(n * sizeof *g->node_idx);
    g->local = malloc(n * sizeof *g->local);
    g->algs = calloc(cg_ndescs, sizeof *g->algs);
    if (!g->tasks || !g->leaders || !g->node_idx || !g->local || !g->algs) {
        free(g->tasks);
        free(g->leaders);
        free(g->node_idx);
        free(g->local);
        free(g->algs);
        free(g);
        return NULL;
    }
    memcpy(g->tasks, tasks, n * sizeof *tasks);
    g->me = -1;
    uint32_t mynode = node_of(cl->task);
    for (uint32_t i = 0; i < n; i++) {
        if (tasks[i] == cl->task)
            g->me = (int)i;
        uint32_t nd = node_of(tasks[i]), j;
        for (j = 0; j < g->nleaders; j++)
            if (node_of(tasks[g->leaders[j]]) == nd)
                break;
        if (j == g->nleaders)
            g->leaders[g->nleaders++] = i;
        g->node_idx[i] = j;
        if (nd == mynode) {
            if (tasks[i] == cl->task)
                g->lme = (int)g->nlocal;
            g->local[g->nlocal++] = i;
        }
    }
    g->nalgs = cg_ndescs;
    for (size_t k = 0; k < cg_ndescs; k++) {
        g->algs[k].magic = CG_ALG_MAGIC;
        g->algs[k].g = g;
        g->algs[k].d = &cg_descs[k];
    }
    return g;
}

static void geom_free(struct cg_geom *g)
{
    if (g->shm_own) {
        cg_shm_quiesce(g->shm_own, g->nlocal, g->shm_bseq);
        emunic_free(g->shm_own);
    }
    g->magic = 0;
    free(g->tasks);
    free(g->leaders);
    free(g->node_idx);
    free(g->local);
    free(g->algs);
    cg_am_geom_free(g);
    free(g);
}

struct cg_geom *cg_geom_find(struct pamil_client *cl, unsigned id)
{
    struct cg_client *s = cl_state(cl);
    for (struct cg_geom *g = s->geoms; g; g = g->next)
        if (g->id == id)
            return g;
    return NULL;
}

/* The live geometry behind h (of any client), or NULL after a message. */
static struct cg_geom *geom_of(const char *fn, pami_geometry_t h)
{
    if (!h) {
        pamil_fail(PAMI_INVAL, fn, "the geometry is PAMI_GEOMETRY_NULL");
        return NULL;
    }
    pthread_mutex_lock(&pamil.mu);
    for (int i = 0; i < PAMIL_MAX_CLIENTS; i++) {
        struct pamil_client *cl = pamil.clients[i];
        if (!cl || !cl->coll)
            continue;
        for (struct cg_geom *g = cl_state(cl)->geoms; g; g = g->next)
            if ((void *)g == h) {
                pthread_mutex_unlock(&pamil.mu);
                return g->destroying ? (pamil_fail(PAMI_INVAL, fn, "geometry %u is being destroyed", g->id), NULL)
                                     : g;
            }
    }
    pthread_mutex_unlock(&pamil.mu);
    pamil_fail(PAMI_INVAL, fn, "%p is not a live geometry", h);
    return NULL;
}

static void geom_link(struct pamil_client *cl, struct cg_geom *g)
{
    struct cg_client *s = cl_state(cl);
    pthread_mutex_lock(&pamil.mu);
    g->next = s->geoms;
    s->geoms = g;
    pthread_mutex_unlock(&pamil.mu);
}

static void geom_unlink(struct cg_geom *g)
{
    struct cg_client *s = cl_state(g->cl);
    pthread_mutex_lock(&pamil.mu);
    for (struct cg_geom **pp = &s->geoms; *pp; pp = &(*pp)->next)
        if (*pp == g) {
            *pp = g->next;
            break;
        }
    pthread_mutex_unlock(&pamil.mu);
}

/* ---- library hooks ---- */

static void register_handlers(void)
{
    cg_engine_register();
    cg_am_register();
}

pami_result_t pamil_coll_client_init(struct pamil_client *cl)
{
    pthread_once(&reg_once, register_handlers);
    struct cg_client *s = calloc(1, sizeof *s);
    uint32_t *all = malloc(cl->size * sizeof *all);
    if (!s || !all) {
        free(s);
        free(all);
        return pamil_fail(PAMI_ENOMEM, "PAMI_Client_create", "out of memory");
    }
    for (uint32_t i = 0; i < cl->size; i++)
        all[i] = i;
    cl->coll = s;
    struct cg_geom *w = geom_new(cl, 0, all, cl->size);
    free(all);
    if (!w) {
        cl->coll = NULL;
        free(s);
        return pamil_fail(PAMI_ENOMEM, "PAMI_Client_create", "out of memory");
    }
    geom_link(cl, w);
    cl->world = w;
    return PAMI_SUCCESS;
}

void pamil_coll_client_fini(struct pamil_client *cl)
{
    struct cg_client *s = cl_state(cl);
    if (!s)
        return;
    pthread_mutex_lock(&pamil.mu);
    struct cg_geom *g = s->geoms;
    s->geoms = NULL;
    cl->coll = NULL;
    pthread_mutex_unlock(&pamil.mu);
    while (g) {
        struct cg_geom *nx = g->next;
        geom_free(g);
        g = nx;
    }
    for (size_t i = 0; i < s->ngrave; i++) {
        cg_shm_quiesce(s->grave[i].shm, s->grave[i].nlocal, s->grave[i].bseq);
        emunic_free(s->grave[i].shm);
    }
    free(s->grave);
    free(s);
    cl->world = NULL;
}

pami_result_t pamil_coll_context_init(struct pamil_context *c)
{
    c->coll = calloc(1, sizeof(struct cg_ctx));
    return c->coll ? PAMI_SUCCESS : pamil_fail(PAMI_ENOMEM, "PAMI_Context_createv", "out of memory");
}

void pamil_coll_context_fini(struct pamil_context *c)
{
    cg_ctx_fini(c);
}

void pamil_coll_on_module(struct pamil_context *c, const struct emu_msg *m)
{
    cg_on_module(c, m);
}

/* ---- internal collectives: agreement rounds for create/update/destroy ---- */

struct agree {
    pami_event_function fn;
    void *cookie;
    struct cg_geom *free_me;
};

static void agree_done(struct cg_coll *x)
{
    struct agree *a = x->arg;
    if (a->fn)
        a->fn(x->c, a->cookie, x->result);
    if (a->free_me) {
        geom_unlink(a->free_me);
        x->g = NULL;
        a->free_me->q_head = NULL;
        geom_free(a->free_me);
    }
    free(a);
}

/* Queue a dissemination barrier (barrier != 0) or an empty step on g;
 * fn runs in c's advance when it completes. */
static pami_result_t agree(struct pamil_context *c, struct cg_geom *g, int barrier, pami_event_function fn,
                           void *cookie, struct cg_geom *free_me)
{
    struct cg_coll *x = calloc(1, sizeof *x);
    struct agree *a = calloc(1, sizeof *a);
    if (!x || !a) {
        free(x);
        free(a);
        return pamil_fail(PAMI_ENOMEM, "PAMI_Geometry", "out of memory");
    }
    a->fn = fn;
    a->cookie = cookie;
    a->free_me = free_me;
    x->c = c;
    x->g = g;
    x->d = &cg_descs[0];
    x->arg = a;
    x->internal_done = agree_done;
    if (barrier) {
        struct cg_group gr;
        uint32_t *r = cg_tmp(x, g->n * sizeof *r);
        for (uint32_t i = 0; i < g->n; i++)
            r[i] = i;
        gr.n = g->n;
        gr.r = r;
        gr.me = g->me;
        cg_add_barrier_dissem(x, 0, &gr);
    }
    x->seq = g->seq++;
    cg_submit(x);
    return PAMI_SUCCESS;
}

/* ---- geometry API ---- */

static pami_result_t create(const char *fn, pami_client_t client, size_t ctxoff, pami_configuration_t cfg[],
                            size_t ncfg, pami_geometry_t *geometry, pami_geometry_t parent, unsigned id,
                            uint32_t *tasks, size_t n, pami_context_t context, pami_event_function done,
                            void *cookie)
{
    struct pamil_client *cl = pamil_client_of(fn, client);
    if (!cl)
        return PAMI_INVAL;
    if (!geometry)
        return pamil_fail(PAMI_INVAL, fn, "geometry is NULL");
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (c->client != cl)
        return pamil_fail(PAMI_INVAL, fn, "the context belongs to another client");
    if (ctxoff != c->offset && ctxoff != PAMI_ALL_CONTEXTS)
        return pamil_fail(PAMI_INVAL, fn, "context offset %zu but the context given has offset %u", ctxoff,
                          c->offset);
    if (ncfg && !cfg)
        return pamil_fail(PAMI_INVAL, fn, "%zu configurations but the array is NULL", ncfg);
    for (size_t i = 0; i < ncfg; i++)
        if (cfg[i].name != PAMI_GEOMETRY_OPTIMIZE && cfg[i].name != PAMI_GEOMETRY_NONCONTIG &&
            cfg[i].name != PAMI_GEOMETRY_MEMORY_OPTIMIZE)
            return pamil_fail(PAMI_INVAL, fn, "attribute %d is not a geometry attribute", (int)cfg[i].name);
    if (id == 0)
        return pamil_fail(PAMI_INVAL, fn, "geometry id 0 is the world geometry");
    if (!n)
        return pamil_fail(PAMI_INVAL, fn, "no tasks");
    struct cg_geom *pg = NULL;
    if (parent) {
        pg = geom_of(fn, parent);
        if (!pg)
            return PAMI_INVAL;
        if (pg->cl != cl)
            return pamil_fail(PAMI_INVAL, fn, "the parent geometry belongs to another client");
    }
    int member = 0;
    unsigned char *seen = calloc(cl->size, 1);
    if (!seen)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (tasks[i] >= cl->size || seen[tasks[i]]) {
            uint32_t t = tasks[i];
            free(seen);
            return pamil_fail(PAMI_INVAL, fn, t >= cl->size ? "task %u is out of range" : "task %u is listed twice",
                              t);
        }
        seen[tasks[i]] = 1;
        if (pg) {
            int in = 0;
            for (uint32_t k = 0; k < pg->n && !in; k++)
                in = pg->tasks[k] == tasks[i];
            if (!in) {
                free(seen);
                return pamil_fail(PAMI_INVAL, fn, "task %u is not in the parent geometry", tasks[i]);
            }
        }
        member |= tasks[i] == cl->task;
    }
    free(seen);
    if (pg && pg->me < 0)
        return pamil_fail(PAMI_INVAL, fn, "this task is not in the parent geometry");
    if (!pg && !member)
        return pamil_fail(PAMI_INVAL, fn, "this task is not in the task list (and there is no parent)");
    struct cg_geom *g = NULL;
    if (member) {
        pthread_mutex_lock(&pamil.mu);
        struct cg_geom *old = cg_geom_find(cl, id);
        pthread_mutex_unlock(&pamil.mu);
        if (old)
            return pamil_fail(PAMI_INVAL, fn, "geometry id %u is in use on this task", id);
        g = geom_new(cl, id, tasks, (uint32_t)n);
        if (!g)
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        geom_link(cl, g);
    }
    *geometry = g ? (pami_geometry_t)g : PAMI_GEOMETRY_NULL;
    /* agreement: over the parent when there is one, else over the members */
    return agree(c, pg ? pg : g, 1, done, cookie, NULL);
}

pami_result_t PAMI_Geometry_create_taskrange(pami_client_t client, size_t context_offset,
                                             pami_configuration_t configuration[], size_t num_configs,
                                             pami_geometry_t *geometry, pami_geometry_t parent, unsigned id,
                                             pami_geometry_range_t *task_slices, size_t slice_count,
                                             pami_context_t context, pami_event_function fn, void *cookie)
{
    static const char fnn[] = "PAMI_Geometry_create_taskrange";
    if (!task_slices || !slice_count)
        return pamil_fail(PAMI_INVAL, fnn, "no task ranges");
    size_t n = 0;
    for (size_t i = 0; i < slice_count; i++) {
        if (task_slices[i].hi < task_slices[i].lo)
            return pamil_fail(PAMI_INVAL, fnn, "range %zu is empty (%u..%u)", i, task_slices[i].lo,
                              task_slices[i].hi);
        n += (size_t)task_slices[i].hi - task_slices[i].lo + 1;
        if (n > (1u << 23))
            return pamil_fail(PAMI_INVAL, fnn, "too many tasks");
    }
    uint32_t *t = malloc(n * sizeof *t);
    if (!t)
        return pamil_fail(PAMI_ENOMEM, fnn, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < slice_count; i++)
        for (uint64_t v = task_slices[i].lo; v <= task_slices[i].hi; v++)
            t[k++] = (uint32_t)v;
    pami_result_t r = create(fnn, client, context_offset, configuration, num_configs, geometry, parent, id, t, n,
                             context, fn, cookie);
    free(t);
    return r;
}

pami_result_t PAMI_Geometry_create_tasklist(pami_client_t client, size_t context_offset,
                                            pami_configuration_t configuration[], size_t num_configs,
                                            pami_geometry_t *geometry, pami_geometry_t parent, unsigned id,
                                            pami_task_t *tasks, size_t task_count, pami_context_t context,
                                            pami_event_function fn, void *cookie)
{
    static const char fnn[] = "PAMI_Geometry_create_tasklist";
    if (!tasks && task_count)
        return pamil_fail(PAMI_INVAL, fnn, "tasks is NULL");
    return create(fnn, client, context_offset, configuration, num_configs, geometry, parent, id, tasks, task_count,
                  context, fn, cookie);
}

pami_result_t PAMI_Geometry_create_endpointlist(pami_client_t client, pami_configuration_t configuration[],
                                                size_t num_configs, pami_geometry_t *geometry, unsigned id,
                                                pami_endpoint_t *endpoints, size_t endpoint_count,
                                                pami_context_t context, pami_event_function fn, void *cookie)
{
    static const char fnn[] = "PAMI_Geometry_create_endpointlist";
    /* One endpoint per task, all on the given context's offset: the same
     * as a task list. Several endpoints of one task are not supported. */
    struct pamil_context *c = pamil_context_of(fnn, context);
    if (!c)
        return PAMI_INVAL;
    if (!endpoints || !endpoint_count)
        return pamil_fail(PAMI_INVAL, fnn, "no endpoints");
    uint32_t *t = malloc(endpoint_count * sizeof *t);
    if (!t)
        return pamil_fail(PAMI_ENOMEM, fnn, "out of memory");
    for (size_t i = 0; i < endpoint_count; i++) {
        if (PAMIL_EP_OFF(endpoints[i]) != c->offset) {
            free(t);
            return pamil_fail(PAMI_UNIMPL, fnn,
                              "endpoint %zu has context offset %u; only geometries of one endpoint per task, on "
                              "the given context's offset (%u), are supported",
                              i, PAMIL_EP_OFF(endpoints[i]), c->offset);
        }
        t[i] = PAMIL_EP_TASK(endpoints[i]);
    }
    pami_result_t r = create(fnn, client, c->offset, configuration, num_configs, geometry, NULL, id, t,
                             endpoint_count, context, fn, cookie);
    free(t);
    return r;
}

pami_result_t PAMI_Geometry_world(pami_client_t client, pami_geometry_t *world_geometry)
{
    static const char fn[] = "PAMI_Geometry_world";
    struct pamil_client *cl = pamil_client_of(fn, client);
    if (!cl)
        return PAMI_INVAL;
    if (!world_geometry)
        return pamil_fail(PAMI_INVAL, fn, "world_geometry is NULL");
    *world_geometry = cl->world;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Geometry_destroy(pami_client_t client, pami_geometry_t *geometry, pami_context_t context,
                                    pami_event_function fn, void *cookie)
{
    static const char fnn[] = "PAMI_Geometry_destroy";
    struct pamil_client *cl = pamil_client_of(fnn, client);
    if (!cl)
        return PAMI_INVAL;
    if (!geometry)
        return pamil_fail(PAMI_INVAL, fnn, "geometry is NULL");
    struct cg_geom *g = geom_of(fnn, *geometry);
    if (!g)
        return PAMI_INVAL;
    if (g->cl != cl)
        return pamil_fail(PAMI_INVAL, fnn, "the geometry belongs to another client");
    if (g == cl->world)
        return pamil_fail(PAMI_INVAL, fnn, "the world geometry lives as long as its client");
    struct pamil_context *c = NULL;
    if (context) {
        c = pamil_context_of(fnn, context);
        if (!c)
            return PAMI_INVAL;
        if (c->client != cl)
            return pamil_fail(PAMI_INVAL, fnn, "the context belongs to another client");
    }
    if (!c) {
        if (g->q_head)
            return pamil_fail(PAMI_EAGAIN, fnn, "collectives on geometry %u are still running; pass a context",
                              g->id);
        struct cg_client *s = cl_state(cl);
        if (g->shm_own) {
            struct cg_grave *gr = realloc(s->grave, (s->ngrave + 1) * sizeof *gr);
            if (!gr)
                return pamil_fail(PAMI_ENOMEM, fnn, "out of memory");
            s->grave = gr;
            s->grave[s->ngrave++] = (struct cg_grave){g->shm_own, g->nlocal, g->shm_bseq};
            g->shm_own = NULL;
        }
        geom_unlink(g);
        geom_free(g);
        *geometry = PAMI_GEOMETRY_NULL;
        return PAMI_SUCCESS;
    }
    /* Collective over the members: a barrier after every earlier
     * collective on it, so that no member still uses the node's shared
     * area when its leader frees it. */
    pami_result_t r = agree(c, g, 1, fn, cookie, g);
    if (r == PAMI_SUCCESS) {
        g->destroying = 1;
        *geometry = PAMI_GEOMETRY_NULL;
    }
    return r;
}

pami_result_t PAMI_Geometry_query(pami_geometry_t geometry, pami_configuration_t configuration[],
                                  size_t num_configs)
{
    static const char fn[] = "PAMI_Geometry_query";
    struct cg_geom *g = geom_of(fn, geometry);
    if (!g)
        return PAMI_INVAL;
    if (num_configs && !configuration)
        return pamil_fail(PAMI_INVAL, fn, "%zu configurations but the array is NULL", num_configs);
    for (size_t i = 0; i < num_configs; i++) {
        switch (configuration[i].name) {
        case PAMI_GEOMETRY_OPTIMIZE:
        case PAMI_GEOMETRY_MEMORY_OPTIMIZE:
            configuration[i].value.intval = 1; /* the algorithm lists are always built */
            break;
        case PAMI_GEOMETRY_NONCONTIG:
            configuration[i].value.intval = 0;
            break;
        default:
            return pamil_fail(PAMI_INVAL, fn, "attribute %d is not a geometry attribute", (int)configuration[i].name);
        }
    }
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Geometry_update(pami_geometry_t geometry, pami_configuration_t configuration[],
                                   size_t num_configs, pami_context_t context, pami_event_function fn,
                                   void *cookie)
{
    static const char fnn[] = "PAMI_Geometry_update";
    struct cg_geom *g = geom_of(fnn, geometry);
    if (!g)
        return PAMI_INVAL;
    struct pamil_context *c = pamil_context_of(fnn, context);
    if (!c)
        return PAMI_INVAL;
    if (c->client != g->cl)
        return pamil_fail(PAMI_INVAL, fnn, "the context belongs to another client");
    if (num_configs && !configuration)
        return pamil_fail(PAMI_INVAL, fnn, "%zu configurations but the array is NULL", num_configs);
    for (size_t i = 0; i < num_configs; i++)
        if (configuration[i].name != PAMI_GEOMETRY_OPTIMIZE &&
            configuration[i].name != PAMI_GEOMETRY_MEMORY_OPTIMIZE)
            return pamil_fail(PAMI_INVAL, fnn, "attribute %d cannot be updated", (int)configuration[i].name);
    /* nothing to change: the lists are always optimised; collective all the same */
    return agree(c, g, 1, fn, cookie, NULL);
}

/* ---- algorithm lists ---- */

static int listed(const struct cg_geom *g, const struct cg_desc *d, pami_xfer_type_t xfer, int list)
{
    if (d->xfer != xfer || d->list != list)
        return 0;
    if ((d->need & CG_NEED_ONENODE) && g->nleaders != 1)
        return 0;
    return 1;
}

static metadata_result_t check_cau_allreduce(struct pami_xfer_t *in)
{
    metadata_result_t r = {0};
    pami_allreduce_t *a = &in->cmd.xfer_allreduce;
    const struct pamil_type *t = pamil_type_of("check_fn", a->stype);
    if (!t) {
        r.check.datatype_op = 1;
        return r;
    }
    size_t bytes = a->stypecount * pamil_type_size(t);
    if (bytes > CG_CAU_MAX)
        r.check.range = 1;
    if (!cg_cau_ok(a->op, t, 0))
        r.check.datatype_op = 1;
    return r;
}

static metadata_result_t check_small_bcast(struct pami_xfer_t *in)
{
    metadata_result_t r = {0};
    pami_broadcast_t *a = &in->cmd.xfer_broadcast;
    const struct pamil_type *t = pamil_type_of("check_fn", a->type);
    if (!t || a->typecount * pamil_type_size(t) > CG_CAU_MAX)
        r.check.range = 1;
    return r;
}

static void fill_md(pami_metadata_t *md, const struct cg_desc *d)
{
    memset(md, 0, sizeof *md);
    md->name = (char *)d->name;
    md->version = 1;
    md->range_hi = SIZE_MAX;
    md->range_hi_perf = SIZE_MAX;
    md->check_correct.values.alldtop = 1;
    md->check_correct.values.global_order = 1;
    if (d->need & (CG_NEED_CAU | CG_NEED_SMALL)) {
        md->check_correct.values.checkrequired = 1;
        md->check_correct.values.rangeminmax = 1;
        md->range_hi = CG_CAU_MAX;
        md->range_hi_perf = CG_CAU_MAX;
        md->check_perf.values.hw_accel = 1;
        md->check_fn = d->xfer == PAMI_XFER_BROADCAST ? check_small_bcast : check_cau_allreduce;
        if (d->need & CG_NEED_CAU)
            md->check_correct.values.alldtop = 0;
    }
}

static int xfer_ok(const char *fn, pami_xfer_type_t t)
{
    if ((int)t < 0 || t >= PAMI_XFER_COUNT) {
        pamil_fail(PAMI_INVAL, fn, "collective type %d is out of range", (int)t);
        return 0;
    }
    return 1;
}

pami_result_t PAMI_Geometry_algorithms_num(pami_geometry_t geometry, pami_xfer_type_t coll_type,
                                           size_t *lists_lengths)
{
    static const char fn[] = "PAMI_Geometry_algorithms_num";
    struct cg_geom *g = geom_of(fn, geometry);
    if (!g)
        return PAMI_INVAL;
    if (!lists_lengths)
        return pamil_fail(PAMI_INVAL, fn, "lists_lengths is NULL");
    if (!xfer_ok(fn, coll_type))
        return PAMI_INVAL;
    lists_lengths[0] = lists_lengths[1] = 0;
    for (size_t k = 0; k < cg_ndescs; k++)
        for (int l = 0; l < 2; l++)
            lists_lengths[l] += (size_t)listed(g, &cg_descs[k], coll_type, l);
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Geometry_algorithms_query(pami_geometry_t geometry, pami_xfer_type_t colltype,
                                             pami_algorithm_t *algs0, pami_metadata_t *mdata0, size_t num0,
                                             pami_algorithm_t *algs1, pami_metadata_t *mdata1, size_t num1)
{
    static const char fn[] = "PAMI_Geometry_algorithms_query";
    struct cg_geom *g = geom_of(fn, geometry);
    if (!g)
        return PAMI_INVAL;
    if (!xfer_ok(fn, colltype))
        return PAMI_INVAL;
    size_t i0 = 0, i1 = 0;
    for (size_t k = 0; k < cg_ndescs; k++) {
        const struct cg_desc *d = &cg_descs[k];
        if (listed(g, d, colltype, 0) && i0 < num0) {
            if (algs0)
                algs0[i0] = (pami_algorithm_t)(uintptr_t)&g->algs[k];
            if (mdata0)
                fill_md(&mdata0[i0], d);
            i0++;
        } else if (listed(g, d, colltype, 1) && i1 < num1) {
            if (algs1)
                algs1[i1] = (pami_algorithm_t)(uintptr_t)&g->algs[k];
            if (mdata1)
                fill_md(&mdata1[i1], d);
            i1++;
        }
    }
    return PAMI_SUCCESS;
}

/* ---- PAMI_Collective ---- */

/* The geometry algorithm behind a, or NULL (other: it belongs to a live
 * geometry of another client). */
static struct cg_alg *alg_of(pami_algorithm_t a, struct pamil_client **other)
{
    *other = NULL;
    uintptr_t p = (uintptr_t)a;
    struct cg_alg *found = NULL;
    pthread_mutex_lock(&pamil.mu);
    for (int i = 0; i < PAMIL_MAX_CLIENTS && !found; i++) {
        struct pamil_client *cl = pamil.clients[i];
        if (!cl || !cl->coll)
            continue;
        for (struct cg_geom *g = cl_state(cl)->geoms; g && !found; g = g->next) {
            uintptr_t lo = (uintptr_t)g->algs, hi = (uintptr_t)(g->algs + g->nalgs);
            if (p >= lo && p < hi && (p - lo) % sizeof(struct cg_alg) == 0) {
                found = (struct cg_alg *)p;
                *other = cl;
            }
        }
    }
    pthread_mutex_unlock(&pamil.mu);
    return found;
}

pami_result_t PAMI_AMCollective_dispatch_set(pami_context_t context, pami_algorithm_t algorithm, size_t dispatch,
                                             pami_dispatch_callback_function fn, void *cookie,
                                             pami_collective_hint_t options)
{
    static const char fnm[] = "PAMI_AMCollective_dispatch_set";
    (void)options;
    struct pamil_context *c = pamil_context_of(fnm, context);
    if (!c)
        return PAMI_INVAL;
    struct pamil_client *owner;
    struct cg_alg *a = alg_of(algorithm, &owner);
    if (!a || a->magic != CG_ALG_MAGIC || owner != c->client)
        return pamil_fail(PAMI_INVAL, fnm, "algorithm %#zx is not one of this client's live geometries' algorithms",
                          (size_t)algorithm);
    if (!cg_is_am(a->d->xfer))
        return pamil_fail(PAMI_INVAL, fnm, "%s is not an active-message collective algorithm", a->d->name);
    if (!fn.ambroadcast)
        return pamil_fail(PAMI_INVAL, fnm, "the dispatch function is NULL");
    return cg_am_set(a->g, c, a->d->xfer, dispatch, fn, cookie);
}

pami_result_t PAMI_Collective(pami_context_t context, pami_xfer_t *cmd)
{
    static const char fn[] = "PAMI_Collective";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (!cmd)
        return pamil_fail(PAMI_INVAL, fn, "the transfer is NULL");
    struct pamil_client *owner;
    struct cg_alg *a = alg_of(cmd->algorithm, &owner);
    if (!a || a->magic != CG_ALG_MAGIC)
        return pamil_fail(PAMI_INVAL, fn, "algorithm %#zx is not one of a live geometry's algorithms",
                          (size_t)cmd->algorithm);
    if (owner != c->client)
        return pamil_fail(PAMI_INVAL, fn, "the algorithm's geometry belongs to another client than the context");
    struct cg_geom *g = a->g;
    if (g->destroying)
        return pamil_fail(PAMI_INVAL, fn, "geometry %u is being destroyed", g->id);
    if (!listed(g, a->d, a->d->xfer, a->d->list))
        return pamil_fail(PAMI_INVAL, fn, "%s is not available on geometry %u", a->d->name, g->id);
    if (g->me < 0)
        return pamil_fail(PAMI_INVAL, fn, "this task is not in geometry %u", g->id);
    if (!a->d->build)
        return cg_am_start(c, g, a->d->xfer, cmd);
    struct cg_coll *x = calloc(1, sizeof *x);
    if (!x)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    x->c = c;
    x->g = g;
    x->d = a->d;
    x->xfer = *cmd;
    int rc = a->d->build(x);
    if (rc) {
        for (size_t i = 0; i < x->ntmps; i++)
            free(x->tmps[i]);
        free(x->tmps);
        free(x->ops);
        free(x);
        return (pami_result_t)rc;
    }
    x->seq = g->seq++;
    cg_submit(x);
    return PAMI_SUCCESS;
}
