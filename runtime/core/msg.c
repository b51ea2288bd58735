/* armci_msg_* (message.h): two-sided messages over p2p and collectives over
 * a group's scoped views (group.h, coll.c).
 *
 * Why these conventions: GA passes armci_msg_snd/rcv world ranks (it gets
 * them from armci_msg_me and ARMCI_Absolute_id), so messages and
 * armci_msg_me/nproc are in world ranks. The collectives without a group
 * argument run over the default group (ARMCI_Group_set_default), a root is
 * a rank of that group (or of the group given), and it must lie in the
 * scope: SCOPE_NODE is the group's members on the caller's node,
 * SCOPE_MASTERS the first member on each node -- other ranks return at
 * once with their buffer untouched. armci_msg_reduce has allreduce
 * semantics: every rank of the scope gets the result, not just a root.
 *
 * Types and scopes are GA's values (message.h); ARMCI-MPI's 0..4 and 0..2
 * are taken too, for binaries built against its header. Ops are matched
 * by prefix, as GA's ARMCI matches them (reduce_op.c). */
#include "message.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "armcii.h"
#include "group.h"
#include "kernels.h"
#include "p2p.h"
#include "serial.h"

static const char *type_name(int type)
{
    switch (type) {
    case ARMCI_INT: return "int";
    case ARMCI_LONG: return "long";
    case ARMCI_LONG_LONG: return "long long";
    case ARMCI_FLOAT: return "float";
    case ARMCI_DOUBLE: return "double";
    default: return "unknown";
    }
}

int armci_msg_me(void)
{
    ARMCII_SERIAL;
    armcii_need_init("armci_msg_me");
    return armcii_me();
}

int armci_msg_nproc(void)
{
    ARMCII_SERIAL;
    armcii_need_init("armci_msg_nproc");
    return armcii_nproc();
}

void armci_msg_abort(int code)
{
    armcii_error(code, "armci_msg_abort(%d)", code);
}

double armci_timer(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- two-sided ---- */

static void check_len(const char *fn, const char *name, const void *buf, int len)
{
    if (len < 0)
        armcii_error(1, "%s: %s = %d < 0", fn, name, len);
    if (!buf && len > 0)
        armcii_error(1, "%s: buf is NULL with %s = %d", fn, name, len);
}

static void check_proc(const char *fn, const char *name, int proc)
{
    if (proc < 0 || proc >= armcii_nproc())
        armcii_error(1, "%s: %s = %d out of range 0..%d", fn, name, proc, armcii_nproc() - 1);
}

void armci_msg_snd(int tag, void *buf, int len, int to)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_snd";
    armcii_p2p_t r;
    armcii_need_init(fn);
    check_len(fn, "len", buf, len);
    check_proc(fn, "to", to);
    r = armcii_p2p_isend(to, ARMCII_TAG_USER(tag), buf, (size_t)len);
    if (!r)
        armcii_error(1, "%s: out of memory sending %d bytes to rank %d", fn, len, to);
    armcii_p2p_wait(r, NULL, NULL);
}

static int rcv(const char *fn, int tag, void *buf, int buflen, int *msglen, int from)
{
    armcii_p2p_t r;
    size_t len;
    int src;
    armcii_need_init(fn);
    check_len(fn, "buflen", buf, buflen);
    if (from != ARMCII_ANY_SOURCE)
        check_proc(fn, "from", from);
    r = armcii_p2p_irecv(from, ARMCII_TAG_USER(tag), buf, (size_t)buflen);
    if (!r)
        armcii_error(1, "%s: out of memory posting a receive", fn);
    armcii_p2p_wait(r, &len, &src);
    if (len > (size_t)buflen)
        armcii_error(1, "%s: message of %zu bytes from rank %d (tag %d) is longer than buflen = %d",
                     fn, len, src, tag, buflen);
    if (msglen)
        *msglen = (int)len;
    return src;
}

void armci_msg_rcv(int tag, void *buf, int buflen, int *msglen, int from)
{
    ARMCII_SERIAL;
    rcv("armci_msg_rcv", tag, buf, buflen, msglen, from);
}

int armci_msg_rcvany(int tag, void *buf, int buflen, int *msglen)
{
    ARMCII_SERIAL;
    return rcv("armci_msg_rcvany", tag, buf, buflen, msglen, ARMCII_ANY_SOURCE);
}

/* ---- scopes ---- */

/* The group of a call: the default group, or the handle given. */
static struct armcii_grp *grp(const char *fn, struct armci_group_s *g, int explicit_group)
{
    struct armcii_grp *r;
    armcii_need_init(fn);
    r = explicit_group ? armcii_grp_of(g, fn) : armcii_grp_default();
    if (r->pub.rank < 0)
        armcii_error(1, "%s: the caller (rank %d) is not a member of the group", fn,
                     armcii_me());
    return r;
}

/* The view of scope in r that the caller is in, or NULL (a non-master
 * under SCOPE_MASTERS). */
static struct armcii_grp *view(const char *fn, struct armcii_grp *r, int scope)
{
    struct armcii_grp *v = armcii_grp_scope(r, scope, fn);
    return v->pub.rank < 0 ? NULL : v;
}

/* ---- barrier, tree, broadcast ---- */

void armci_msg_barrier(void)
{
    ARMCII_SERIAL;
    armcii_gcoll_wait(armcii_gcoll_ibarrier(grp("armci_msg_barrier", NULL, 0)));
}

void armci_msg_group_barrier(struct armci_group_s *group)
{
    ARMCII_SERIAL;
    armcii_gcoll_wait(armcii_gcoll_ibarrier(grp("armci_msg_group_barrier", group, 1)));
}

/* A binary heap over the scope's members of the default group, in their
 * order, as world ranks (for armci_msg_snd); -1 where there is no such
 * rank, and Up/Left/Right all -1 for a caller outside the scope. */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_bintree";
    struct armcii_grp *v = armcii_grp_scope(grp(fn, NULL, 0), scope, fn);
    const int *set = v->pub.grp_to_abs;
    int i = v->pub.rank, n = v->pub.size;

    if (!Root || !Up || !Left || !Right)
        armcii_error(1, "%s: a NULL result pointer (Root %p, Up %p, Left %p, Right %p)", fn,
                     (void *)Root, (void *)Up, (void *)Left, (void *)Right);
    *Root = set[0];
    if (i < 0) {
        *Up = *Left = *Right = -1;
        return;
    }
    *Up = i ? set[(i - 1) / 2] : -1;
    *Left = 2 * i + 1 < n ? set[2 * i + 1] : -1;
    *Right = 2 * i + 2 < n ? set[2 * i + 2] : -1;
}

static void bcast(const char *fn, int scope, void *buf, int len, int root,
                  struct armcii_grp *r)
{
    struct armcii_grp *v;
    int vroot;
    scope = armcii_scope_canon(scope);
    check_len(fn, "len", buf, len);
    if (root < 0 || root >= r->pub.size)
        armcii_error(1, "%s: root = %d out of range 0..%d", fn, root, r->pub.size - 1);
    v = armcii_grp_scope(r, scope, fn);
    if (v->pub.rank < 0)
        return;
    vroot = armcii_grp_find(v, r->pub.grp_to_abs[root]);
    if (vroot < 0)
        armcii_error(1, "%s: root = %d (world rank %d) is not in the caller's %s", fn, root,
                     r->pub.grp_to_abs[root],
                     scope == SCOPE_NODE ? "node (SCOPE_NODE)" : "masters (SCOPE_MASTERS)");
    armcii_gcoll_wait(armcii_gcoll_ibcast(v, buf, (size_t)len, vroot));
}

void armci_msg_bcast(void *buf, int len, int root)
{
    ARMCII_SERIAL;
    bcast("armci_msg_bcast", SCOPE_ALL, buf, len, root, grp("armci_msg_bcast", NULL, 0));
}

void armci_msg_brdcst(void *buf, int len, int root)
{
    ARMCII_SERIAL;
    bcast("armci_msg_brdcst", SCOPE_ALL, buf, len, root, grp("armci_msg_brdcst", NULL, 0));
}

void armci_msg_bcast_scope(int scope, void *buf, int len, int root)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_bcast_scope";
    bcast(fn, scope, buf, len, root, grp(fn, NULL, 0));
}

/* root is a world rank, as GA's ARMCI compares it with armci_me and GA
 * passes it (collect.c: the group's root mapped to its absolute id). */
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root,
                                 struct armci_group_s *group)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_group_bcast_scope";
    struct armcii_grp *r = grp(fn, group, 1);
    int groot = armcii_grp_find(r, root);
    if (groot < 0)
        armcii_error(1, "%s: root = %d (a world rank) is not a member of the group", fn, root);
    bcast(fn, scope, buf, len, groot, r);
}

/* ---- reductions ---- */

static void gop(const char *fn, int scope, void *x, int n, const char *op, int type,
                struct armcii_grp *r)
{
    struct armcii_grp *v;
    int opcode;
    type = armcii_type_canon(type);
    if (armcii_type_size(type) == 0)
        armcii_error(1, "%s: unknown type %d", fn, type);
    if (n < 0)
        armcii_error(1, "%s: n = %d < 0", fn, n);
    if (!x && n > 0)
        armcii_error(1, "%s: x is NULL with n = %d", fn, n);
    if (!op)
        armcii_error(1, "%s: op is NULL", fn);
    opcode = armcii_reduce_op(op, type);
    if (opcode < 0)
        armcii_error(1, "%s: unknown op \"%s\" for type %s", fn, op, type_name(type));
    v = view(fn, r, scope);
    if (!v)
        return;
    /* absmax/absmin give magnitudes, also where nothing is combined (one
     * member): folding x with itself takes |x| elementwise. */
    if (armcii_reduce_op_is_abs(opcode))
        armcii_reduce(opcode, type, x, x, (size_t)n);
    armcii_gcoll_wait(armcii_gcoll_iallreduce(v, x, (size_t)n, type, opcode));
}

#define GOP(name, T, type)                                                      \
    void armci_msg_##name(T *x, int n, char *op)                                \
    {                                                                           \
        ARMCII_SERIAL;                                                          \
        const char *fn = "armci_msg_" #name;                                    \
        gop(fn, SCOPE_ALL, x, n, op, type, grp(fn, NULL, 0));                   \
    }                                                                           \
    void armci_msg_group_##name(T *x, int n, char *op, struct armci_group_s *g) \
    {                                                                           \
        ARMCII_SERIAL;                                                          \
        const char *fn = "armci_msg_group_" #name;                              \
        gop(fn, SCOPE_ALL, x, n, op, type, grp(fn, g, 1));                      \
    }

GOP(igop, int, ARMCI_INT)
GOP(lgop, long, ARMCI_LONG)
GOP(llgop, long long, ARMCI_LONG_LONG)
GOP(fgop, float, ARMCI_FLOAT)
GOP(dgop, double, ARMCI_DOUBLE)

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_gop_scope";
    gop(fn, scope, x, n, op, type, grp(fn, NULL, 0));
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type,
                               struct armci_group_s *group)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_group_gop_scope";
    gop(fn, scope, x, n, op, type, grp(fn, group, 1));
}

void armci_msg_reduce(void *x, int n, char *op, int type)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_reduce";
    gop(fn, SCOPE_ALL, x, n, op, type, grp(fn, NULL, 0));
}

void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    ARMCII_SERIAL;
    const char *fn = "armci_msg_reduce_scope";
    gop(fn, scope, x, n, op, type, grp(fn, NULL, 0));
}

/* ---- selection ---- */

/* Everyone's (contribute flag, n bytes) are gathered; each rank then picks
 * the same winner scanning in rank order, so ties go to the lowest rank. */
static void sel(const char *fn, int scope, void *x, int n, const char *op, int type,
                int contribute)
{
    struct armcii_grp *v;
    size_t es, slot;
    unsigned char *mine, *all, *best = NULL;

    type = armcii_type_canon(type);
    es = armcii_type_size(type);
    armcii_need_init(fn);
    if (es == 0)
        armcii_error(1, "%s: unknown type %d", fn, type);
    if (!armcii_sel_op(op))
        armcii_error(1, "%s: unknown op \"%s\" (min or max)", fn, op ? op : "(null)");
    if (n < 0 || (size_t)n < es)
        armcii_error(1, "%s: n = %d bytes, less than one %s (%zu)", fn, n, type_name(type), es);
    if (!x)
        armcii_error(1, "%s: x is NULL with n = %d", fn, n);
    v = view(fn, grp(fn, NULL, 0), scope);
    if (!v)
        return;
    slot = 8 + ((size_t)n + 7) / 8 * 8; /* flag, then the bytes 8-aligned */
    mine = calloc(1, slot);
    all = malloc(slot * (size_t)v->pub.size);
    if (!mine || !all)
        armcii_error(1, "%s: out of memory (%zu bytes)", fn, slot * (size_t)v->pub.size);
    mine[0] = contribute != 0;
    memcpy(mine + 8, x, (size_t)n);
    armcii_gcoll_wait(armcii_gcoll_iallgather(v, mine, slot, all));
    for (int i = 0; i < v->pub.size; i++) {
        unsigned char *s = all + (size_t)i * slot;
        if (s[0] && (!best || armcii_sel_better(op, type, best + 8, s + 8)))
            best = s;
    }
    if (best)
        memcpy(x, best + 8, (size_t)n);
    free(mine);
    free(all);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    ARMCII_SERIAL;
    sel("armci_msg_sel", SCOPE_ALL, x, n, op, type, contribute);
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    ARMCII_SERIAL;
    sel("armci_msg_sel_scope", scope, x, n, op, type, contribute);
}
