/* Source-driven accumulate (ARMCI_ACC=source), the protocol [BGQ-PAMI]
 * compares its target-driven one against: the origin locks the target,
 * gets each piece, adds its contribution locally and puts the piece back.
 * Two pieces are in flight, so the get of one overlaps the add and put of
 * the other. The lock is the target's internal mutex at its server, which
 * makes the read-modify-write atomic against every other accumulate; the
 * fence before the unlock lets the next holder read our sums. */
#include <stdlib.h>
#include "chan.h"
#include "order.h"
#include "xfer.h"

#define PIECE (32 * 1024)

/* Walks a strided section's runs in pieces of at most PIECE bytes. */
struct cursor {
    const struct armcii_strided *lsec, *rsec;
    size_t run, runs, off;
};

struct stage {
    char *buf, *local, *remote;
    size_t n;
    struct armcii_req get, put;
};

static int next_piece(struct cursor *c, char *local, char *remote, struct stage *st)
{
    size_t len = (size_t)c->lsec->count[0];
    if (!len || c->run >= c->runs)
        return 0;
    st->local = local + armcii_strided_offset(c->lsec, c->run) + c->off;
    st->remote = remote + armcii_strided_offset(c->rsec, c->run) + c->off;
    st->n = len - c->off < PIECE ? len - c->off : PIECE;
    c->off += st->n;
    if (c->off == len) {
        c->off = 0;
        c->run++;
    }
    return 1;
}

static void post_get(int proc, struct stage *st, const char *fn)
{
    struct armcii_cmpl *c = armcii_cmpl_new(&st->get);
    ARMCII_POST(fn, armcii_dev->get(ADEV_CTX_RANK, proc, st->remote, st->buf, st->n, &c->c));
}

static void post_put(int proc, struct stage *st, const char *fn)
{
    struct armcii_cmpl *c = armcii_cmpl_new(&st->put);
    struct adev_cmpl *ack = armcii_order_ack(proc); /* once: POST may retry */
    ARMCII_POST(fn, armcii_dev->put(ADEV_CTX_RANK, proc, st->buf, st->remote, st->n, &c->c, ack));
}

static void check(const struct armcii_req *r, const char *fn, int proc)
{
    if (r->status)
        armcii_error(1, "%s: source-driven accumulate at rank %d: transfer failed (%d)", fn, proc,
                     r->status);
}

void armcii_acc_source(int proc, int acc_type, const void *scale, char *local,
                       const struct armcii_strided *lsec, char *remote,
                       const struct armcii_strided *rsec, struct armcii_seg *seg, const char *fn)
{
    struct stage st[2] = {0};
    for (int i = 0; i < 2; i++)
        if (!(st[i].buf = malloc(PIECE)))
            armcii_error(1, "%s: out of memory", fn);
    struct cursor cur = {lsec, rsec, 0, armcii_strided_runs(lsec), 0};
    armcii_srv_lock(proc, ARMCII_MUTEX_ACC);
    armcii_order_before(proc, seg, ARMCII_OP_GET, ARMCII_RDMA);
    int more = next_piece(&cur, local, remote, &st[0]);
    if (more)
        post_get(proc, &st[0], fn);
    for (int k = 0; more; k++) {
        struct stage *now = &st[k & 1], *after = &st[(k + 1) & 1];
        armcii_req_wait(&now->get);
        check(&now->get, fn, proc);
        armcii_req_wait(&after->put); /* its buffer is about to be reused */
        check(&after->put, fn, proc);
        if ((more = next_piece(&cur, local, remote, after)))
            post_get(proc, after, fn);
        armcii_acc(acc_type, scale, now->buf, now->local, now->n);
        post_put(proc, now, fn);
    }
    for (int i = 0; i < 2; i++) {
        armcii_req_wait(&st[i].put);
        check(&st[i].put, fn, proc);
        free(st[i].buf);
    }
    armcii_order_after(proc, seg, ARMCII_OP_ACC, ARMCII_RDMA);
    armcii_fence(proc);
    armcii_srv_unlock(proc, ARMCII_MUTEX_ACC);
}
