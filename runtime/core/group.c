/* Process groups: ARMCI_Group_* and the records behind them (group.h).
 *
 * Why ids are agreed this way: a collective's tag carries its group's
 * 16-bit id, so two live groups that share a member must not share an id.
 * Every member of a parent counts the groups created over it identically,
 * so hashing (parent id, count) gives all of them the same candidate with
 * no traffic; but only one small allreduce over the parent can tell that
 * the candidate is free at every member. That allreduce (max of each
 * rank's lowest locally free id >= candidate, and of its negation) also
 * compares the pid lists, and repeats with the larger proposal until all
 * proposals agree -- usually once. */
#include "group.h"
#include "mpi_comm.h"

#include <stdlib.h>
#include <string.h>

#include "armcii.h"
#include "kernels.h"
#include "serial.h"

static struct armcii_grp world;
static struct armcii_grp *registry; /* created groups, live handles */
static struct armcii_grp *dflt = &world;

static void *xcalloc(size_t n, size_t size, const char *fn)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        armcii_error(1, "%s: out of memory (%zu bytes)", fn, n * size);
    return p;
}

static struct armcii_grp *lookup(const ARMCI_Group *g)
{
    struct armcii_grp *r;
    if (!g || g->magic != ARMCII_GROUP_MAGIC || world.pub.magic != ARMCII_GROUP_MAGIC)
        return NULL;
    if (g->id == ARMCII_GROUP_ID_WORLD) {
        r = &world;
    } else {
        for (r = registry; r && r->pub.id != g->id; r = r->next)
            ;
        if (!r)
            return NULL;
    }
    if (g == &r->pub)
        return r;
    /* A copy: it must still describe the record (a stale copy of a freed
     * group whose id was reused has another member array). */
    if (r->pub.grp_to_abs != g->grp_to_abs || r->pub.size != g->size ||
        r->pub.rank != g->rank)
        return NULL;
    return r;
}

int armcii_group_valid(const ARMCI_Group *g)
{
    return lookup(g) != NULL;
}

struct armcii_grp *armcii_grp_of(const ARMCI_Group *g, const char *fn)
{
    struct armcii_grp *r;
    if (!g)
        armcii_error(1, "%s: group is NULL", fn);
    if (g->magic == ARMCII_GROUP_FREED)
        armcii_error(1, "%s: group has been freed (ARMCI_Group_free)", fn);
    r = lookup(g);
    if (!r)
        armcii_error(1, "%s: not a valid group handle (magic 0x%x, id %d)", fn, g->magic,
                     g->id);
    return r;
}

ARMCI_Group *armcii_group_world(void) { return &world.pub; }
ARMCI_Group *armcii_group_default(void) { return &dflt->pub; }
struct armcii_grp *armcii_grp_default(void) { return dflt; }

int armcii_grp_find(const struct armcii_grp *v, int abs)
{
    for (int i = 0; i < v->pub.size; i++)
        if (v->pub.grp_to_abs[i] == abs)
            return i;
    return -1;
}

/* SCOPE_NODE: members on the caller's node; SCOPE_MASTERS: the lowest
 * group rank on each node. Both keep group-rank order. */
static struct armcii_grp *make_view(const struct armcii_grp *g, int kind)
{
    const char *fn = "armcii_grp_scope";
    struct armcii_grp *v = xcalloc(1, sizeof *v, fn);
    int *abs = xcalloc((size_t)g->pub.size, sizeof(int), fn);
    char *seen = xcalloc((size_t)armcii_nnodes(), 1, fn);
    int me = armcii_me(), mynode = armcii_node_of(me), cnt = 0, rank = -1;

    for (int i = 0; i < g->pub.size; i++) {
        int a = g->pub.grp_to_abs[i], nd = armcii_node_of(a);
        if (kind == ARMCII_GKIND_NODE ? nd != mynode : seen[nd])
            continue;
        seen[nd] = 1;
        if (a == me)
            rank = cnt;
        abs[cnt++] = a;
    }
    free(seen);
    v->pub.magic = ARMCII_GROUP_MAGIC;
    v->pub.id = g->pub.id;
    v->pub.rank = rank;
    v->pub.size = cnt;
    v->pub.grp_to_abs = abs;
    armcii_mpi_none(&v->pub); /* an internal view has no communicator */
    v->kind = kind;
    return v;
}

/* ARMCI-MPI's message.h numbers the scopes 0..2 in this order; a binary
 * built against it (Debian's libga-mpich) passes those numbers. */
int armcii_scope_canon(int scope)
{
    static const int ga[] = {SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS};
    return scope >= 0 && scope < 3 ? ga[scope] : scope;
}

struct armcii_grp *armcii_grp_scope(struct armcii_grp *g, int scope, const char *fn)
{
    int c = armcii_scope_canon(scope);
    if (c == SCOPE_ALL)
        return g;
    if (c != SCOPE_NODE && c != SCOPE_MASTERS)
        armcii_error(1, "%s: unknown scope %d (SCOPE_ALL %d, SCOPE_NODE %d, SCOPE_MASTERS %d)",
                     fn, scope, SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS);
    if (g->kind != ARMCII_GKIND_PLAIN)
        armcii_error(1, "%s: internal: scope of a scoped view", fn);
    int v = c == SCOPE_NODE ? 0 : 1;
    if (!g->view[v])
        g->view[v] = make_view(g, c == SCOPE_NODE ? ARMCII_GKIND_NODE : ARMCII_GKIND_MASTERS);
    return g->view[v];
}

static void free_rec(struct armcii_grp *r)
{
    for (int s = 0; s < 2; s++) {
        if (r->view[s]) {
            free(r->view[s]->pub.grp_to_abs);
            free(r->view[s]);
            r->view[s] = NULL;
        }
    }
    armcii_mpi_free(&r->pub);
    free(r->pub.grp_to_abs);
    r->pub.grp_to_abs = NULL;
    r->pub.magic = ARMCII_GROUP_FREED;
    if (r != &world)
        free(r);
}

int armcii_group_init(void)
{
    int n = armcii_nproc();
    int *abs = xcalloc((size_t)n, sizeof(int), "ARMCI_Init");
    for (int i = 0; i < n; i++)
        abs[i] = i;
    memset(&world, 0, sizeof world);
    world.pub.magic = ARMCII_GROUP_MAGIC;
    world.pub.id = ARMCII_GROUP_ID_WORLD;
    world.pub.rank = armcii_me();
    world.pub.size = n;
    world.pub.grp_to_abs = abs;
    world.kind = ARMCII_GKIND_PLAIN;
    registry = NULL;
    dflt = &world;
    armcii_grp_scope(&world, SCOPE_NODE, "ARMCI_Init");
    armcii_grp_scope(&world, SCOPE_MASTERS, "ARMCI_Init");
    armcii_mpi_init();
    armcii_mpi_world(&world.pub);
    return 0;
}

void armcii_group_finalize(void)
{
    while (registry) {
        struct armcii_grp *r = registry;
        registry = r->next;
        free_rec(r);
    }
    if (world.pub.magic == ARMCII_GROUP_MAGIC)
        free_rec(&world);
    world.pub.magic = 0;
    dflt = &world;
    armcii_mpi_finalize();
}

/* A 64-bit mix (xorshift-multiply), to spread (parent, count) over ids. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

static int id_used(int id)
{
    if (id == ARMCII_GROUP_ID_WORLD)
        return 1;
    for (struct armcii_grp *r = registry; r; r = r->next)
        if (r->pub.id == id)
            return 1;
    return 0;
}

/* Lowest id >= cand free here, or ARMCII_GROUP_ID_MAX + 1. */
static int free_id_from(int cand)
{
    while (cand <= ARMCII_GROUP_ID_MAX && id_used(cand))
        cand++;
    return cand;
}

/* The id every member of the parent agrees on, and the check that the
 * lists are consistent: callers may pass different lists (disjoint groups,
 * as MPI_Comm_create allows and Global Arrays uses for its node groups),
 * but every member of a list must have passed that same list. One
 * reduction over the parent carries the id candidates and each caller's
 * list hash in its own slot. */
static int agree_id(struct armcii_grp *parent, uint64_t listhash, int n, const int *pid_list,
                    const char *fn)
{
    uint64_t key = ((uint64_t)(uint16_t)parent->pub.id << 32) | parent->nchildren;
    int cand = 1 + (int)(mix64(key) % ARMCII_GROUP_ID_MAX), wraps = 0;
    int opcode = armcii_reduce_op("max", ARMCI_LONG_LONG), psize = parent->pub.size;

    if (opcode < 0)
        armcii_error(1, "%s: internal: no \"max\" reduction for long long", fn);
    long long *v = xcalloc((size_t)psize + 2, sizeof *v, fn);
    for (int checked = 0;;) {
        long long p = free_id_from(cand);
        memset(v, 0, ((size_t)psize + 2) * sizeof *v);
        v[0] = p;
        v[1] = -p;
        if (!checked)
            v[2 + parent->pub.rank] = (long long)(listhash >> 1) | 1; /* never 0 */
        if (psize > 1)
            armcii_gcoll_wait(armcii_gcoll_iallreduce(parent, v, checked ? 2 : psize + 2,
                                                      ARMCI_LONG_LONG, opcode));
        if (!checked) {
            for (int i = 0; i < n; i++)
                if (v[2 + pid_list[i]] != ((long long)(listhash >> 1) | 1))
                    armcii_error(1, "%s: member %d of pid_list passed a different list "
                                 "(lists may differ only between disjoint groups)", fn, pid_list[i]);
            checked = 1;
        }
        if (v[0] > ARMCII_GROUP_ID_MAX) {
            if (++wraps > 1)
                armcii_error(1, "%s: no free group id (all %d in use)", fn,
                             ARMCII_GROUP_ID_MAX);
            cand = 1;
            continue;
        }
        if (v[0] == -v[1]) {
            int id = (int)v[0];
            free(v);
            return id;
        }
        cand = (int)v[0];
    }
}

static uint64_t hash_list(int n, const int *pid_list)
{
    uint64_t h = mix64((uint64_t)n + 1);
    for (int i = 0; i < n; i++)
        h = mix64(h ^ (uint32_t)pid_list[i]);
    return h;
}

static void create(const char *fn, int n, int *pid_list, ARMCI_Group *out,
                   struct armcii_grp *parent)
{
    int psize = parent->pub.size, me = armcii_me(), *first, *abs, rank = -1;
    struct armcii_grp *r;

    if (!out)
        armcii_error(1, "%s: group_out is NULL", fn);
    if (n < 0)
        armcii_error(1, "%s: n = %d < 0", fn, n);
    if (n > psize)
        armcii_error(1, "%s: n = %d > %d, the size of the parent group", fn, n, psize);
    if (n > 0 && !pid_list)
        armcii_error(1, "%s: pid_list is NULL with n = %d", fn, n);
    if (parent->pub.rank < 0)
        armcii_error(1, "%s: the caller is not a member of the parent group", fn);
    first = xcalloc((size_t)psize, sizeof(int), fn);
    for (int i = 0; i < n; i++) {
        int p = pid_list[i];
        if (p < 0 || p >= psize)
            armcii_error(1, "%s: pid_list[%d] = %d out of range 0..%d", fn, i, p, psize - 1);
        if (first[p])
            armcii_error(1, "%s: pid_list[%d] = %d repeats pid_list[%d]", fn, i, p,
                         first[p] - 1);
        first[p] = i + 1;
    }
    free(first);

    parent->nchildren++;
    abs = xcalloc((size_t)n, sizeof(int), fn);
    for (int i = 0; i < n; i++) {
        abs[i] = parent->pub.grp_to_abs[pid_list[i]];
        if (abs[i] == me)
            rank = i;
    }
    r = xcalloc(1, sizeof *r, fn);
    r->pub.magic = ARMCII_GROUP_MAGIC;
    r->pub.id = agree_id(parent, hash_list(n, pid_list), n, pid_list, fn);
    r->pub.rank = rank;
    r->pub.size = n;
    r->pub.grp_to_abs = abs;
    r->kind = ARMCII_GKIND_PLAIN;
    armcii_mpi_group(&r->pub);
    r->next = registry;
    registry = r;
    *out = r->pub;
}

void ARMCI_Group_create(int n, int *pid_list, ARMCI_Group *group_out)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Group_create");
    create("ARMCI_Group_create", n, pid_list, group_out, dflt);
}

void ARMCI_Group_create_child(int n, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent)
{
    ARMCII_SERIAL;
    const char *fn = "ARMCI_Group_create_child";
    armcii_need_init(fn);
    create(fn, n, pid_list, group_out, armcii_grp_of(group_parent, fn));
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    ARMCII_SERIAL;
    const char *fn = "ARMCI_Group_free";
    struct armcii_grp *r, **pp;
    int copy;

    armcii_need_init(fn);
    r = armcii_grp_of(group, fn);
    copy = group != &r->pub;
    if (r == &world)
        armcii_error(1, "%s: the world group cannot be freed", fn);
    if (r == dflt)
        dflt = &world; /* freeing the default group makes the world the default */
    for (pp = &registry; *pp != r; pp = &(*pp)->next)
        ;
    *pp = r->next;
    free_rec(r); /* marks r's own handle freed */
    if (copy) {
        group->magic = ARMCII_GROUP_FREED;
        group->grp_to_abs = NULL;
        group->rank = -1;
        group->size = 0;
    }
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Group_rank");
    struct armcii_grp *r = armcii_grp_of(group, "ARMCI_Group_rank");
    if (!rank)
        armcii_error(1, "ARMCI_Group_rank: rank is NULL");
    *rank = r->pub.rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Group_size");
    struct armcii_grp *r = armcii_grp_of(group, "ARMCI_Group_size");
    if (!size)
        armcii_error(1, "ARMCI_Group_size: size is NULL");
    *size = r->pub.size;
}

void ARMCI_Group_set_default(ARMCI_Group *group)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Group_set_default");
    struct armcii_grp *r = armcii_grp_of(group, "ARMCI_Group_set_default");
    if (r->pub.rank < 0)
        armcii_error(1, "ARMCI_Group_set_default: the caller (rank %d) is not a member of "
                     "the group", armcii_me());
    dflt = r;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Group_get_default");
    if (!group_out)
        armcii_error(1, "ARMCI_Group_get_default: group_out is NULL");
    *group_out = dflt->pub;
}

void ARMCI_Group_get_world(ARMCI_Group *group_out)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Group_get_world");
    if (!group_out)
        armcii_error(1, "ARMCI_Group_get_world: group_out is NULL");
    *group_out = world.pub;
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Absolute_id");
    struct armcii_grp *r = armcii_grp_of(group, "ARMCI_Absolute_id");
    if (group_rank < 0 || group_rank >= r->pub.size)
        armcii_error(1, "ARMCI_Absolute_id: group_rank = %d out of range 0..%d", group_rank,
                     r->pub.size - 1);
    return r->pub.grp_to_abs[group_rank];
}
