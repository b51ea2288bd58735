/* Geometries and the collectives over them. A geometry's rank list is
 * copied into a malloc'd group (DCMF_Geometry_t holds a mark and a
 * pointer); member i is ranks[i], and trees are built over member order.
 *
 * Every protocol value of each configuration maps onto the algorithms of
 * coll_algo.c (dissemination barrier, binomial broadcast, binomial
 * reduce + broadcast); the value only decides where the protocol may run,
 * which is what DCMF_Geometry_analyze reports, following BG/P:
 *   GI barrier, TREE allreduce/broadcast/reduce (the global interrupt and
 *     tree networks span the partition): only on a globalflag geometry;
 *   LOCKBOX and LOCKBOX_BINOMIAL barriers (node-local lockbox): only if
 *     every member is on the caller's emulated node;
 *   binomial and torus protocols (rectangle, ring and async ones too): on
 *     any geometry.
 * A reduce is the allreduce's binomial reduce without the broadcast back.
 * DCMF_Allreduce, DCMF_Broadcast and DCMF_Reduce refuse (DCMF_INVAL) a
 * protocol that analyze rejects; DCMF_Barrier uses the first of the geometry's barrier
 * protocols that analyze accepts. The configurations' geometry callbacks
 * are kept but not needed: early messages wait in the unexpected list.
 * Messages name a geometry by its id, so two live geometries of a rank
 * may not share one (DCMF_INVAL), and an id may be given to a new
 * geometry only once no member can still have traffic of the old one. */
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"

#define CPROTO_MAGIC 0xc011ec70u
#define GEOM_MAGIC 0x6e0e7a11u

enum cproto_kind { CP_BARRIER = 1, CP_ALLREDUCE, CP_BROADCAST, CP_REDUCE };

/* Lives inside DCMF_CollectiveProtocol_t. */
struct coll_cproto {
    uint32_t magic, kind, algo, reuse_storage;
    DCMF_Geometry_callback cb_geometry;
};
_Static_assert(sizeof(struct coll_cproto) <= sizeof(DCMF_CollectiveProtocol_t), "protocol storage");

/* Lives inside DCMF_Geometry_t. */
struct coll_geomobj {
    uint32_t magic, pad_;
    struct coll_group *g;
};
_Static_assert(sizeof(struct coll_geomobj) <= sizeof(DCMF_Geometry_t), "geometry storage");

static struct coll_group *live;

static const char *const kind_names[] = {"?", "barrier", "allreduce", "broadcast", "reduce"};

static struct coll_cproto *cproto_of(const char *fn, DCMF_CollectiveProtocol_t *p, enum cproto_kind kind)
{
    struct coll_cproto *c = (struct coll_cproto *)p;
    if (!c) {
        dcmfl_fail(DCMF_INVAL, fn, "the protocol registration is NULL");
        return NULL;
    }
    if (c->magic != CPROTO_MAGIC || c->kind < CP_BARRIER || c->kind > CP_REDUCE) {
        dcmfl_fail(DCMF_INVAL, fn, "the collective protocol was never registered");
        return NULL;
    }
    if (c->kind != kind) {
        dcmfl_fail(DCMF_INVAL, fn, "a %s protocol was passed where a %s protocol belongs",
                   kind_names[c->kind], kind_names[kind]);
        return NULL;
    }
    return c;
}

/* Only a geometry on the live list counts: a stale or freed object is
 * recognised without dereferencing its pointer. */
static struct coll_group *group_of(const char *fn, DCMF_Geometry_t *geometry)
{
    struct coll_geomobj *o = (struct coll_geomobj *)geometry;
    if (!o)
        return dcmfl_fail(DCMF_INVAL, fn, "geometry is NULL"), NULL;
    if (o->magic == GEOM_MAGIC)
        for (struct coll_group *g = live; g; g = g->next)
            if (g == o->g)
                return g;
    dcmfl_fail(DCMF_INVAL, fn, "the geometry is not initialised (or was freed)");
    return NULL;
}

static int analyze(const struct coll_group *g, const struct coll_cproto *p)
{
    switch (p->kind) {
    case CP_BARRIER:
        if (p->algo == DCMF_GI_BARRIER_PROTOCOL)
            return g->globalflag;
        if (p->algo == DCMF_LOCKBOX_BARRIER_PROTOCOL || p->algo == DCMF_LOCKBOX_BINOMIAL_BARRIER_PROTOCOL)
            return g->node_local;
        return 1;
    case CP_ALLREDUCE:
        if (p->algo == DCMF_TREE_ALLREDUCE_PROTOCOL || p->algo == DCMF_TREE_PIPELINED_ALLREDUCE_PROTOCOL ||
            p->algo == DCMF_TREE_DPUT_PIPELINED_ALLREDUCE_PROTOCOL)
            return g->globalflag;
        return 1;
    case CP_BROADCAST:
        return p->algo == DCMF_TREE_BROADCAST_PROTOCOL ? (int)g->globalflag : 1;
    case CP_REDUCE:
        return p->algo == DCMF_TREE_REDUCE_PROTOCOL ? (int)g->globalflag : 1;
    default:
        return 0;
    }
}

/* ---- registration ---- */

static DCMF_Result cregister(const char *fn, DCMF_CollectiveProtocol_t *registration, int have_cfg,
                             unsigned algo, unsigned nalgos, enum cproto_kind kind,
                             DCMF_Geometry_callback cbg, unsigned reuse)
{
    DCMF_Result rc = coll_register_begin(fn, registration, have_cfg, algo, nalgos);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct coll_cproto *p = (struct coll_cproto *)registration;
    memset(registration, 0, sizeof *registration);
    p->magic = CPROTO_MAGIC;
    p->kind = kind;
    p->algo = algo;
    p->reuse_storage = reuse;
    p->cb_geometry = cbg;
    dcmfl_unlock();
    return DCMF_SUCCESS;
}

int DCMF_Collective_initialize(void)
{
    dcmfl_lock();
    DCMF_Result rc = coll_ensure("DCMF_Collective_initialize");
    dcmfl_unlock();
    return rc == DCMF_SUCCESS ? 0 : 1;
}

DCMF_Result DCMF_Barrier_register(DCMF_CollectiveProtocol_t *registration,
                                  DCMF_Barrier_Configuration_t *cfg)
{
    return cregister("DCMF_Barrier_register", registration, cfg != NULL,
                     cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_BARRIER_PROTOCOLS, CP_BARRIER,
                     cfg ? cfg->cb_geometry : NULL, 0);
}

DCMF_Result DCMF_Allreduce_register(DCMF_CollectiveProtocol_t *registration,
                                    DCMF_Allreduce_Configuration_t *cfg)
{
    return cregister("DCMF_Allreduce_register", registration, cfg != NULL,
                     cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_ALLREDUCE_PROTOCOLS, CP_ALLREDUCE,
                     cfg ? cfg->cb_geometry : NULL, cfg ? cfg->reuse_storage : 0);
}

DCMF_Result DCMF_Broadcast_register(DCMF_CollectiveProtocol_t *registration,
                                    DCMF_Broadcast_Configuration_t *cfg)
{
    return cregister("DCMF_Broadcast_register", registration, cfg != NULL,
                     cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_BROADCAST_PROTOCOLS, CP_BROADCAST,
                     cfg ? cfg->cb_geometry : NULL, 0);
}

DCMF_Result DCMF_Reduce_register(DCMF_CollectiveProtocol_t *registration,
                                 DCMF_Reduce_Configuration_t *cfg)
{
    return cregister("DCMF_Reduce_register", registration, cfg != NULL,
                     cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_REDUCE_PROTOCOLS, CP_REDUCE,
                     cfg ? cfg->cb_geometry : NULL, cfg ? cfg->reuse_storage : 0);
}

/* ---- geometries ---- */

static DCMF_Result check_barriers(const char *fn, DCMF_CollectiveProtocol_t **list, unsigned n,
                                  const char *what)
{
    if (n && !list)
        return dcmfl_fail(DCMF_INVAL, fn, "%s is NULL with %u entries", what, n);
    for (unsigned i = 0; i < n; i++)
        if (!cproto_of(fn, list[i], CP_BARRIER))
            return DCMF_INVAL;
    return DCMF_SUCCESS;
}

static DCMF_Result check_ranks(const char *fn, const unsigned *ranks, unsigned nranks, uint32_t *me)
{
    if (!ranks || !nranks)
        return dcmfl_fail(DCMF_INVAL, fn, "the rank list is empty");
    uint8_t *seen = calloc(dcmfl.size, 1);
    if (!seen)
        return dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    DCMF_Result rc = DCMF_SUCCESS;
    *me = nranks;
    for (unsigned i = 0; i < nranks && rc == DCMF_SUCCESS; i++) {
        if (ranks[i] >= dcmfl.size)
            rc = dcmfl_fail(DCMF_INVAL, fn, "ranks[%u] = %u is out of range (size %u)", i, ranks[i], dcmfl.size);
        else if (seen[ranks[i]]++)
            rc = dcmfl_fail(DCMF_INVAL, fn, "rank %u is listed twice", ranks[i]);
        else if (ranks[i] == dcmfl.rank)
            *me = i;
    }
    free(seen);
    if (rc == DCMF_SUCCESS && *me == nranks)
        rc = dcmfl_fail(DCMF_INVAL, fn, "the calling rank %u is not in the geometry", dcmfl.rank);
    return rc;
}

static DCMF_Result geometry_init(const char *fn, DCMF_Geometry_t *geometry, unsigned id,
                                 unsigned *ranks, unsigned nranks, DCMF_CollectiveProtocol_t **bar,
                                 unsigned nbar, DCMF_CollectiveProtocol_t **lbar, unsigned nlbar,
                                 unsigned globalflag)
{
    uint32_t me = 0;
    DCMF_Result rc;
    if (!geometry)
        return dcmfl_fail(DCMF_INVAL, fn, "geometry is NULL");
    struct coll_geomobj *o = (struct coll_geomobj *)geometry;
    for (struct coll_group *g = live; g; g = g->next) {
        if (o->magic == GEOM_MAGIC && o->g == g)
            return dcmfl_fail(DCMF_INVAL, fn, "the geometry is already initialised (free it first)");
        if (g->id == id)
            return dcmfl_fail(DCMF_INVAL, fn, "geometry id %u is in use by another live geometry", id);
    }
    if ((rc = check_ranks(fn, ranks, nranks, &me)) != DCMF_SUCCESS ||
        (rc = check_barriers(fn, bar, nbar, "barriers")) != DCMF_SUCCESS ||
        (rc = check_barriers(fn, lbar, nlbar, "local_barriers")) != DCMF_SUCCESS)
        return rc;
    if (globalflag && nranks != dcmfl.size)
        return dcmfl_fail(DCMF_INVAL, fn, "globalflag is set but the geometry has %u of %u ranks",
                          nranks, dcmfl.size);
    struct coll_group *g = calloc(1, sizeof *g);
    if (g) {
        g->ranks = malloc(nranks * sizeof *g->ranks);
        g->bar = malloc((nbar ? nbar : 1) * sizeof *g->bar);
        g->lbar = malloc((nlbar ? nlbar : 1) * sizeof *g->lbar);
    }
    if (!g || !g->ranks || !g->bar || !g->lbar) {
        if (g) {
            free(g->ranks);
            free(g->bar);
            free(g->lbar);
        }
        free(g);
        return dcmfl_fail(DCMF_ERROR, fn, "out of memory");
    }
    uint32_t per = emunic_local_size();
    g->node_local = 1;
    for (unsigned i = 0; i < nranks; i++) {
        g->ranks[i] = ranks[i];
        if (ranks[i] / per != dcmfl.rank / per)
            g->node_local = 0;
    }
    if (nbar)
        memcpy(g->bar, bar, nbar * sizeof *bar);
    if (nlbar)
        memcpy(g->lbar, lbar, nlbar * sizeof *lbar);
    g->nbar = nbar;
    g->nlbar = nlbar;
    g->refs = 1;
    g->id = id;
    g->n = nranks;
    g->me = me;
    g->globalflag = globalflag != 0;
    g->next = live;
    live = g;
    memset(geometry, 0, sizeof *geometry);
    o->magic = GEOM_MAGIC;
    o->g = g;
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Geometry_initialize(DCMF_Geometry_t *geometry, unsigned id, unsigned *ranks,
                                     unsigned nranks, DCMF_CollectiveProtocol_t **barriers,
                                     unsigned nbarriers, DCMF_CollectiveProtocol_t **local_barriers,
                                     unsigned nlocal_barriers, DCMF_CollectiveRequest_t *request,
                                     unsigned numcolors, unsigned globalflag)
{
    const char *fn = "DCMF_Geometry_initialize";
    (void)request;   /* the geometry needs no request of its own here */
    (void)numcolors; /* one tree; colours are a torus-routing matter */
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    rc = coll_ensure(fn);
    if (rc == DCMF_SUCCESS)
        rc = geometry_init(fn, geometry, id, ranks, nranks, barriers, nbarriers, local_barriers,
                           nlocal_barriers, globalflag);
    dcmfl_unlock();
    return rc;
}

int DCMF_Geometry_analyze(DCMF_Geometry_t *geometry, DCMF_CollectiveProtocol_t *protocol)
{
    const char *fn = "DCMF_Geometry_analyze";
    if (dcmfl_need_init(fn) != DCMF_SUCCESS)
        return 0;
    dcmfl_lock();
    int ok = 0;
    struct coll_group *g = group_of(fn, geometry);
    struct coll_cproto *p = (struct coll_cproto *)protocol;
    if (g && (!p || p->magic != CPROTO_MAGIC))
        dcmfl_fail(DCMF_INVAL, fn, "the collective protocol was never registered");
    else if (g)
        ok = analyze(g, p);
    dcmfl_unlock();
    return ok;
}

DCMF_Result DCMF_Geometry_free(DCMF_Geometry_t *geometry)
{
    const char *fn = "DCMF_Geometry_free";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    struct coll_group *g = group_of(fn, geometry);
    if (g) {
        for (struct coll_group **pp = &live; *pp; pp = &(*pp)->next)
            if (*pp == g) {
                *pp = g->next;
                break;
            }
        memset(geometry, 0, sizeof *geometry);
        coll_group_put(g); /* running collectives keep their own reference */
    }
    dcmfl_unlock();
    return g ? DCMF_SUCCESS : DCMF_INVAL;
}

void coll_geometry_fini(void)
{
    while (live) {
        struct coll_group *g = live;
        live = g->next;
        g->refs = 1;
        coll_group_put(g);
    }
}

/* ---- the collectives ---- */

/* Common checks; on success the lock is held and coll_enter done. */
static DCMF_Result geo_begin(const char *fn, DCMF_Geometry_t *geometry, DCMF_Consistency cons,
                             struct coll_group **g)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    rc = coll_ensure(fn);
    if (rc == DCMF_SUCCESS && !(*g = group_of(fn, geometry)))
        rc = DCMF_INVAL;
    if (rc == DCMF_SUCCESS)
        rc = dcmfl_check_consistency(fn, cons);
    if (rc != DCMF_SUCCESS) {
        dcmfl_unlock();
        return rc;
    }
    coll_enter();
    return DCMF_SUCCESS;
}

/* The protocol, checked for its kind and against the geometry. */
static DCMF_Result usable(const char *fn, DCMF_CollectiveProtocol_t *registration,
                          enum cproto_kind kind, struct coll_group *g)
{
    struct coll_cproto *p = cproto_of(fn, registration, kind);
    if (!p)
        return DCMF_INVAL;
    if (!analyze(g, p))
        return dcmfl_fail(DCMF_INVAL, fn, "%s protocol %u cannot run on geometry %u (see DCMF_Geometry_analyze)",
                          kind_names[kind], p->algo, g->id);
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Barrier(DCMF_Geometry_t *geometry, DCMF_Callback_t cb_done, DCMF_Consistency consistency)
{
    const char *fn = "DCMF_Barrier";
    struct coll_group *g;
    DCMF_Result rc = geo_begin(fn, geometry, consistency, &g);
    if (rc != DCMF_SUCCESS)
        return rc;
    int found = 0;
    for (unsigned i = 0; i < g->nbar && !found; i++) {
        struct coll_cproto *p = (struct coll_cproto *)g->bar[i];
        found = p->magic == CPROTO_MAGIC && p->kind == CP_BARRIER && analyze(g, p);
    }
    if (!found)
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "none of geometry %u's %u barrier protocols can run on it",
                                  g->id, g->nbar));
    struct coll_inst *in = coll_inst_new(g, CK_BARRIER, cb_done, consistency, NULL, 0);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    return coll_end(coll_launch(fn, in, coll_setup_barrier(in)));
}

DCMF_Result DCMF_Allreduce(DCMF_CollectiveProtocol_t *registration, DCMF_CollectiveRequest_t *request,
                           DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                           DCMF_Geometry_t *geometry, char *sbuffer, char *rbuffer, unsigned count,
                           DCMF_Dt dt, DCMF_Op op)
{
    const char *fn = "DCMF_Allreduce";
    struct coll_group *g;
    DCMF_Result rc = geo_begin(fn, geometry, consistency, &g);
    if (rc != DCMF_SUCCESS)
        return rc;
    if ((rc = usable(fn, registration, CP_ALLREDUCE, g)) != DCMF_SUCCESS ||
        (rc = coll_check_request(fn, request, sizeof *request)) != DCMF_SUCCESS ||
        (rc = coll_check_op(fn, op, dt)) != DCMF_SUCCESS)
        return coll_end(rc);
    if (count && (!sbuffer || !rbuffer))
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "%s is NULL with count %u",
                                  sbuffer ? "rbuffer" : "sbuffer", count));
    struct coll_inst *in = coll_inst_new(g, CK_ALLREDUCE, cb_done, consistency, request, sizeof *request);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    return coll_end(coll_launch(fn, in, coll_setup_reduce(in, 0, sbuffer, rbuffer, count, dt, op, 1)));
}

/* A root rank's member index (the tree is built over members), or g->n. */
static uint32_t member_of(const struct coll_group *g, unsigned rank)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->ranks[i] == rank)
            return i;
    return g->n;
}

DCMF_Result DCMF_Broadcast(DCMF_CollectiveProtocol_t *registration, DCMF_CollectiveRequest_t *request,
                           DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                           DCMF_Geometry_t *geometry, unsigned root, char *src, unsigned bytes)
{
    const char *fn = "DCMF_Broadcast";
    struct coll_group *g;
    DCMF_Result rc = geo_begin(fn, geometry, consistency, &g);
    if (rc != DCMF_SUCCESS)
        return rc;
    if ((rc = usable(fn, registration, CP_BROADCAST, g)) != DCMF_SUCCESS ||
        (rc = coll_check_request(fn, request, sizeof *request)) != DCMF_SUCCESS)
        return coll_end(rc);
    uint32_t rm = member_of(g, root);
    if (rm == g->n)
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "root rank %u is not in geometry %u", root, g->id));
    if (bytes && !src)
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "src is NULL with %u bytes", bytes));
    struct coll_inst *in = coll_inst_new(g, CK_BCAST, cb_done, consistency, request, sizeof *request);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    return coll_end(coll_launch(fn, in, coll_setup_bcast(in, rm, src, bytes)));
}

DCMF_Result DCMF_Reduce(DCMF_CollectiveProtocol_t *registration, DCMF_CollectiveRequest_t *request,
                        DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                        DCMF_Geometry_t *geometry, unsigned root, char *sbuffer, char *rbuffer,
                        unsigned count, DCMF_Dt dt, DCMF_Op op)
{
    const char *fn = "DCMF_Reduce";
    struct coll_group *g;
    DCMF_Result rc = geo_begin(fn, geometry, consistency, &g);
    if (rc != DCMF_SUCCESS)
        return rc;
    if ((rc = usable(fn, registration, CP_REDUCE, g)) != DCMF_SUCCESS ||
        (rc = coll_check_request(fn, request, sizeof *request)) != DCMF_SUCCESS ||
        (rc = coll_check_op(fn, op, dt)) != DCMF_SUCCESS)
        return coll_end(rc);
    uint32_t rm = member_of(g, root);
    if (rm == g->n)
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "root rank %u is not in geometry %u", root, g->id));
    if (count && (!sbuffer || (rm == g->me && !rbuffer)))
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "%s is NULL with count %u",
                                  sbuffer ? "the root's rbuffer" : "sbuffer", count));
    /* numbered with the allreduces: every member calls both in one order */
    struct coll_inst *in = coll_inst_new(g, CK_ALLREDUCE, cb_done, consistency, request, sizeof *request);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    return coll_end(coll_launch(fn, in, coll_setup_reduce(in, rm, sbuffer, rbuffer, count, dt, op, 0)));
}
