/* Collectives as non-blocking state machines (coll.h, group.h).
 *
 * Why schedules: following [P7IH-COLL]'s phases, a collective is laid out
 * at its start as a list of rounds, each a set of p2p sends and receives
 * that may all be in flight together; a round's end may run a local step
 * (the reduction). armcii_coll_test posts a round, tests its transfers and
 * moves on as far as completions allow, never blocking, so several
 * collectives (on different groups) can be driven at once. Peers are
 * resolved to world ranks when the schedule is built, so a request never
 * looks at its group again.
 *
 * Trees are binomial over root-relative ranks v: the parent of v is v with
 * its lowest set bit cleared; its children are v + k for each power of two
 * k below that bit (below the group size for the root). The subtree of v
 * is then the contiguous range [v, v + lowbit(v)), which the allgather's
 * gather relies on. Tags: ARMCII_TAG_COLL(group id, sequence number,
 * view kind << 6 | phase), the phase naming the step a message belongs to
 * (a barrier round, up or down the tree) -- not the local round, which
 * differs between sender and receiver. */
#include "coll.h"

#include <stdlib.h>
#include <string.h>

#include "armcii.h"
#include "chan.h"
#include "group.h"
#include "kernels.h"
#include "p2p.h"

enum { K_BARRIER, K_BCAST, K_ALLREDUCE, K_ALLGATHER };
static const char *const kind_name[] = {"barrier", "bcast", "allreduce", "allgather"};

/* Tag phases of the tree messages (the barrier's are its rounds, < 32). */
enum { PH_UP = 40, PH_DOWN = 41 };

#define MAX_ROUNDS 40 /* dissemination barrier: ceil(log2(2^31)) rounds */
#define MAX_XFERS 72  /* 2 per barrier round; tree: <= 31 children + parent */

struct xfer {
    int peer;  /* world rank */
    int send;  /* 1: send, 0: receive */
    int phase; /* the message's step, the same at sender and receiver */
    void *buf;
    size_t len; /* bytes sent, or expected */
    armcii_p2p_t req;
};

struct armcii_coll {
    int kind, gid, gkind;
    uint32_t seq;
    int round, nrounds, posted;
    int first[MAX_ROUNDS + 1]; /* round i: xfers first[i] .. first[i+1]-1 */
    int nx;
    struct xfer x[MAX_XFERS];
    /* allreduce: after round 0, fold the children's vectors into data */
    void *data;
    size_t n;
    int type, opcode, nchild;
    char *tmp;
};

static char dummy; /* the buffer of zero-byte messages */

static void add(struct armcii_coll *c, int send, int phase, int peer, void *buf, size_t len)
{
    if (c->nx == MAX_XFERS)
        armcii_error(1, "armcii_coll: internal: schedule of %s too long", kind_name[c->kind]);
    c->x[c->nx++] = (struct xfer){peer, send, phase, buf ? buf : &dummy, len, NULL};
}

static void end_round(struct armcii_coll *c)
{
    if (c->nrounds == MAX_ROUNDS)
        armcii_error(1, "armcii_coll: internal: too many rounds in %s", kind_name[c->kind]);
    c->first[++c->nrounds] = c->nx;
}

static struct armcii_coll *start(struct armcii_grp *g, int kind, const char *fn)
{
    struct armcii_coll *c;
    if (g->pub.rank < 0)
        armcii_error(1, "%s: the caller (rank %d) is not a member of the group", fn,
                     armcii_me());
    c = calloc(1, sizeof *c);
    if (!c)
        armcii_error(1, "%s: out of memory", fn);
    c->kind = kind;
    c->gid = g->pub.id;
    c->gkind = g->kind;
    c->seq = g->seq++; /* members start collectives on g in the same order */
    return c;
}

static int lowbit(int v) { return v & -v; }

/* Children of root-relative rank v among n, nearest first. */
static int children(int v, int n, int *kids)
{
    int limit = v ? lowbit(v) : n, cnt = 0;
    for (int k = 1; k < limit && v + k < n; k <<= 1)
        kids[cnt++] = v + k;
    return cnt;
}

/* World rank of root-relative rank v. */
static int wr(const struct armcii_grp *g, int v, int root)
{
    return g->pub.grp_to_abs[(v + root) % g->pub.size];
}

armcii_coll_t armcii_gcoll_ibarrier(struct armcii_grp *g)
{
    struct armcii_coll *c = start(g, K_BARRIER, "armcii_coll_ibarrier");
    int n = g->pub.size, r = g->pub.rank;
    /* Dissemination: in round k everyone signals r + 2^k and hears from
     * r - 2^k; after ceil(log2 n) rounds everyone has heard from all. */
    for (int d = 1, k = 0; d < n; d <<= 1, k++) {
        add(c, 1, k, g->pub.grp_to_abs[(r + d) % n], NULL, 0);
        add(c, 0, k, g->pub.grp_to_abs[(r - d + n) % n], NULL, 0);
        end_round(c);
    }
    return c;
}

/* Receive buf from the parent (round a), send it to the children (round
 * a+1), farthest child first: its subtree is the largest. */
static void tree_down(struct armcii_coll *c, const struct armcii_grp *g, int root, void *buf,
                      size_t len)
{
    int n = g->pub.size, v = (g->pub.rank - root + n) % n, kids[32];
    int nk = children(v, n, kids);
    if (v)
        add(c, 0, PH_DOWN, wr(g, v & (v - 1), root), buf, len);
    end_round(c);
    for (int i = nk - 1; i >= 0; i--)
        add(c, 1, PH_DOWN, wr(g, kids[i], root), buf, len);
    end_round(c);
}

armcii_coll_t armcii_gcoll_ibcast(struct armcii_grp *g, void *buf, size_t len, int root)
{
    struct armcii_coll *c = start(g, K_BCAST, "armcii_coll_ibcast");
    if (len > 0 && g->pub.size > 1)
        tree_down(c, g, root, buf, len);
    return c;
}

armcii_coll_t armcii_gcoll_iallreduce(struct armcii_grp *g, void *x, size_t n, int type,
                                      int opcode)
{
    struct armcii_coll *c = start(g, K_ALLREDUCE, "armcii_coll_iallreduce");
    int size = g->pub.size, v = g->pub.rank, kids[32];
    size_t bytes = n * armcii_type_size(type);

    if (bytes == 0 || size == 1)
        return c;
    c->data = x;
    c->n = n;
    c->type = type;
    c->opcode = opcode;
    c->nchild = children(v, size, kids);
    if (c->nchild) {
        c->tmp = malloc((size_t)c->nchild * bytes);
        if (!c->tmp)
            armcii_error(1, "armcii_coll_iallreduce: out of memory (%zu bytes)",
                         (size_t)c->nchild * bytes);
    }
    /* Reduce to rank 0 (round 0: children's partial results; round 1: ours
     * to the parent), then broadcast the result back down the same tree. */
    for (int i = 0; i < c->nchild; i++)
        add(c, 0, PH_UP, wr(g, kids[i], 0), c->tmp + (size_t)i * bytes, bytes);
    end_round(c);
    if (v)
        add(c, 1, PH_UP, wr(g, v & (v - 1), 0), x, bytes);
    end_round(c);
    tree_down(c, g, 0, x, bytes);
    return c;
}

armcii_coll_t armcii_gcoll_iallgather(struct armcii_grp *g, const void *mine, size_t len,
                                      void *all)
{
    struct armcii_coll *c = start(g, K_ALLGATHER, "armcii_coll_iallgather");
    int size = g->pub.size, v = g->pub.rank, kids[32], nk;
    char *a = all;

    if (len == 0)
        return c;
    memmove(a + (size_t)v * len, mine, len);
    if (size == 1)
        return c;
    /* Gather to rank 0: each child brings its whole subtree's blocks, which
     * are contiguous; then rank 0 broadcasts the full array. */
    nk = children(v, size, kids);
    for (int i = 0; i < nk; i++) {
        int ch = kids[i], cnt = size - ch < lowbit(ch) ? size - ch : lowbit(ch);
        add(c, 0, PH_UP, wr(g, ch, 0), a + (size_t)ch * len, (size_t)cnt * len);
    }
    end_round(c);
    if (v) {
        int cnt = size - v < lowbit(v) ? size - v : lowbit(v);
        add(c, 1, PH_UP, wr(g, v & (v - 1), 0), a + (size_t)v * len, (size_t)cnt * len);
    }
    end_round(c);
    tree_down(c, g, 0, all, (size_t)size * len);
    return c;
}

int armcii_coll_test(armcii_coll_t c)
{
    if (!c)
        armcii_error(1, "armcii_coll_test: request is NULL");
    for (;;) {
        int pending = 0;
        if (c->round >= c->nrounds) {
            free(c->tmp);
            free(c);
            return 1;
        }
        int lo = c->first[c->round], hi = c->first[c->round + 1];
        if (!c->posted) {
            for (int i = lo; i < hi; i++) {
                struct xfer *x = &c->x[i];
                uint64_t tag = ARMCII_TAG_COLL(c->gid, c->seq, (c->gkind << 6) | x->phase);
                x->req = x->send ? armcii_p2p_isend(x->peer, tag, x->buf, x->len)
                                 : armcii_p2p_irecv(x->peer, tag, x->buf, x->len);
                if (!x->req)
                    armcii_error(1, "armcii_coll: %s: out of memory posting to rank %d",
                                 kind_name[c->kind], x->peer);
            }
            c->posted = 1;
        }
        for (int i = lo; i < hi; i++) {
            struct xfer *x = &c->x[i];
            size_t got;
            if (!x->req)
                continue;
            if (!armcii_p2p_test(x->req, &got, NULL)) {
                pending++;
                continue;
            }
            x->req = NULL;
            if (!x->send && got != x->len)
                armcii_error(1, "armcii_coll: %s on group %d: %zu bytes from rank %d, "
                             "expected %zu (members passed different lengths?)",
                             kind_name[c->kind], c->gid, got, x->peer, x->len);
        }
        if (pending)
            return 0;
        if (c->kind == K_ALLREDUCE && c->round == 0) {
            size_t bytes = c->n * armcii_type_size(c->type);
            for (int i = 0; i < c->nchild; i++)
                armcii_reduce(c->opcode, c->type, c->data, c->tmp + (size_t)i * bytes, c->n);
        }
        c->round++;
        c->posted = 0;
    }
}

void armcii_gcoll_wait(armcii_coll_t c)
{
    while (!armcii_coll_test(c))
        armcii_progress(1);
    armcii_server_sync(); /* what the helper served before the collective */
}

/* The public entry points: resolve and check the handle, then run. */
static struct armcii_grp *member(ARMCI_Group *g, const char *fn)
{
    struct armcii_grp *r;
    armcii_need_init(fn);
    r = armcii_grp_of(g, fn);
    if (r->pub.rank < 0)
        armcii_error(1, "%s: the caller (rank %d) is not a member of the group", fn,
                     armcii_me());
    return r;
}

static void check_buf(const char *fn, const char *name, const void *p, size_t len)
{
    if (!p && len > 0)
        armcii_error(1, "%s: %s is NULL with %zu bytes", fn, name, len);
}

static void check_root(const char *fn, const struct armcii_grp *g, int root)
{
    if (root < 0 || root >= g->pub.size)
        armcii_error(1, "%s: root %d out of range 0..%d", fn, root, g->pub.size - 1);
}

static void check_reduce(const char *fn, const void *x, size_t n, int type, int opcode)
{
    size_t es = armcii_type_size(type);
    if (es == 0)
        armcii_error(1, "%s: unknown type %d", fn, type);
    if (opcode < 0)
        armcii_error(1, "%s: invalid op code %d", fn, opcode);
    check_buf(fn, "x", x, n * es);
}

int armcii_coll_barrier(ARMCI_Group *g)
{
    armcii_gcoll_wait(armcii_gcoll_ibarrier(member(g, "armcii_coll_barrier")));
    return 0;
}

int armcii_coll_bcast(ARMCI_Group *g, void *buf, size_t len, int root)
{
    armcii_gcoll_wait(armcii_coll_ibcast(g, buf, len, root));
    return 0;
}

int armcii_coll_allgather(ARMCI_Group *g, const void *mine, size_t len, void *all)
{
    const char *fn = "armcii_coll_allgather";
    struct armcii_grp *r = member(g, fn);
    check_buf(fn, "mine", mine, len);
    check_buf(fn, "all", all, len);
    armcii_gcoll_wait(armcii_gcoll_iallgather(r, mine, len, all));
    return 0;
}

int armcii_coll_allreduce(ARMCI_Group *g, void *x, size_t n, int type, int opcode)
{
    armcii_gcoll_wait(armcii_coll_iallreduce(g, x, n, type, opcode));
    return 0;
}

armcii_coll_t armcii_coll_ibarrier(ARMCI_Group *g)
{
    return armcii_gcoll_ibarrier(member(g, "armcii_coll_ibarrier"));
}

armcii_coll_t armcii_coll_ibcast(ARMCI_Group *g, void *buf, size_t len, int root)
{
    const char *fn = "armcii_coll_bcast";
    struct armcii_grp *r = member(g, fn);
    check_root(fn, r, root);
    check_buf(fn, "buf", buf, len);
    return armcii_gcoll_ibcast(r, buf, len, root);
}

armcii_coll_t armcii_coll_iallreduce(ARMCI_Group *g, void *x, size_t n, int type, int opcode)
{
    const char *fn = "armcii_coll_allreduce";
    struct armcii_grp *r = member(g, fn);
    check_reduce(fn, x, n, type, opcode);
    return armcii_gcoll_iallreduce(r, x, n, type, opcode);
}

int armcii_coll_init(void)
{
    return armcii_group_init();
}

void armcii_coll_finalize(void)
{
    armcii_group_finalize();
}
