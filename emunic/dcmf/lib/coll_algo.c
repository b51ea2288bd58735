/* The algorithms, as state machines over one instance.
 *
 * Barrier: dissemination. In round k a member tells member me + 2^k and
 * waits to hear from member me - 2^k; after ceil(log2 n) rounds everyone
 * has (transitively) heard from everyone.
 *
 * Trees: binomial, over member positions relative to the root (rel). The
 * children of rel are rel + 2^k for every 2^k below rel's lowest set bit
 * (below n for the root); its parent is rel minus that bit.
 *
 * Broadcast (down phase): data moves in COLL_CHUNK chunks; a member sends
 * chunk c to its children (largest subtree first) as soon as chunk c is
 * in its buffer, so a long message flows down the tree as a pipeline.
 *
 * Reduce (up phase): a member combines chunk c of its own input with
 * chunk c from each child, in child order (so every run combines in the
 * same order), into a temporary accumulator and sends it to its parent;
 * leaves send their input as it is. The root copies each finished chunk
 * into its result buffer. An allreduce is a reduce to member 0 whose root
 * starts broadcasting chunk c the moment it is finished. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_impl.h"

static uint32_t tree_children(uint32_t rel, uint32_t n)
{
    uint64_t limit = rel ? (rel & (0u - rel)) : n;
    uint32_t k = 0;
    while ((1ull << k) < limit && rel + (1ull << k) < n)
        k++;
    return k;
}

static uint32_t member_of(const struct coll_inst *in, uint64_t rel)
{
    return (uint32_t)((in->root + rel) % in->g->n);
}

static size_t chunk_len(const struct coll_inst *in, uint32_t c)
{
    size_t off = (size_t)c * in->chunk;
    return in->bytes - off < in->chunk ? in->bytes - off : in->chunk;
}

static void tree_setup(struct coll_inst *in, uint32_t root)
{
    uint32_t n = in->g->n;
    in->root = root;
    in->rel = (in->g->me + n - root) % n;
    in->nchild = tree_children(in->rel, n);
}

DCMF_Result coll_setup_barrier(struct coll_inst *in)
{
    while ((1ull << in->rounds) < in->g->n)
        in->rounds++;
    return DCMF_SUCCESS;
}

DCMF_Result coll_setup_bcast(struct coll_inst *in, uint32_t root, char *buf, size_t bytes)
{
    tree_setup(in, root);
    in->bytes = bytes;
    in->chunk = COLL_CHUNK;
    in->nchunks = (uint32_t)((bytes + COLL_CHUNK - 1) / COLL_CHUNK);
    in->down = 1;
    in->buf = buf;
    in->have = calloc(in->nchunks ? in->nchunks : 1, 1);
    if (!in->have)
        return DCMF_ERROR;
    if (in->rel == 0) {
        memset(in->have, 1, in->nchunks);
        in->nhave = in->nchunks;
    }
    return DCMF_SUCCESS;
}

DCMF_Result coll_setup_reduce(struct coll_inst *in, uint32_t root, const char *sbuf, char *rbuf,
                              size_t count, DCMF_Dt dt, DCMF_Op op, int down)
{
    tree_setup(in, root);
    in->esz = coll_dt_size(dt);
    in->bytes = count * in->esz;
    in->chunk = COLL_CHUNK / in->esz * in->esz;
    in->nchunks = (uint32_t)((in->bytes + in->chunk - 1) / in->chunk);
    in->up = 1;
    in->sbuf = sbuf;
    in->rbuf = (in->rel == 0 || down) ? rbuf : NULL;
    in->dt = dt;
    in->op = op;
    size_t nc = in->nchunks ? in->nchunks : 1;
    if (in->nchild) {
        in->acc = malloc(in->bytes ? in->bytes : 1);
        in->parts = calloc(nc * in->nchild, sizeof *in->parts);
        in->nparts = calloc(nc, 1);
        if (!in->acc || !in->parts || !in->nparts)
            return DCMF_ERROR;
        if (in->bytes)
            memcpy(in->acc, sbuf, in->bytes);
    }
    if (down) {
        in->down = 1;
        in->buf = rbuf;
        in->have = calloc(nc, 1);
        if (!in->have)
            return DCMF_ERROR;
    }
    return DCMF_SUCCESS;
}

char *coll_direct_buffer(struct coll_inst *in, const struct coll_hdr *h, size_t len)
{
    if (h->mtype != MT_DOWN || !in->down || in->rel == 0 || !in->buf || h->index >= in->nchunks ||
        in->have[h->index] || len != chunk_len(in, h->index))
        return NULL;
    return in->buf + (size_t)h->index * in->chunk;
}

static void mismatch(struct coll_inst *in, const struct coll_hdr *h, const char *what)
{
    fprintf(stderr, "emunic dcmf: rank %u: collective message (type %u, index %u) from member %u: %s; "
                    "do all members pass the same arguments?\n",
            dcmfl.rank, h->mtype, h->index, h->sender, what);
    in->err = DCMF_ERROR;
}

/* The child slot of a sender, or -1. */
static int child_slot(const struct coll_inst *in, uint32_t sender)
{
    uint32_t n = in->g->n;
    if (sender >= n)
        return -1;
    uint32_t srel = (sender + n - in->root) % n;
    if (srel <= in->rel)
        return -1;
    uint32_t d = srel - in->rel;
    if (d & (d - 1))
        return -1;
    int k = __builtin_ctz(d);
    return (uint32_t)k < in->nchild ? k : -1;
}

static void deliver_up(struct coll_inst *in, const struct coll_hdr *h, const char *data, size_t len,
                       char *owned)
{
    int k = in->up ? child_slot(in, h->sender) : -1;
    if (k < 0 || h->index >= in->nchunks) {
        mismatch(in, h, "not a child's chunk of this reduction");
        free(owned);
        return;
    }
    void **slot = &in->parts[(size_t)h->index * in->nchild + (size_t)k];
    if (*slot) {
        mismatch(in, h, "the chunk came twice");
        free(owned);
        return;
    }
    size_t want = chunk_len(in, h->index);
    char *p = owned;
    if (len != want || !owned) {
        if (len != want)
            mismatch(in, h, "the chunk has the wrong length");
        p = calloc(want ? want : 1, 1);
        if (!p) {
            fprintf(stderr, "emunic dcmf: rank %u: out of memory in a reduction\n", dcmfl.rank);
            in->err = DCMF_ERROR;
            free(owned);
            return;
        }
        memcpy(p, data, len < want ? len : want);
        free(owned);
    }
    *slot = p;
    in->nparts[h->index]++;
}

void coll_deliver(struct coll_inst *in, const struct coll_hdr *h, const char *data, size_t len,
                  char *owned)
{
    switch (h->mtype) {
    case MT_BARRIER:
        if (in->kind == CK_BARRIER && h->index < in->rounds && !(in->got >> h->index & 1))
            in->got |= 1ull << h->index;
        else
            mismatch(in, h, "not a round of this barrier");
        break;
    case MT_DOWN:
        if (!in->down || in->rel == 0 || h->index >= in->nchunks || in->have[h->index]) {
            mismatch(in, h, "not an expected broadcast chunk");
        } else {
            size_t want = chunk_len(in, h->index);
            char *dst = in->buf + (size_t)h->index * in->chunk;
            if (len != want)
                mismatch(in, h, "the chunk has the wrong length");
            if (data != dst)
                memcpy(dst, data, len < want ? len : want);
            in->have[h->index] = 1;
            in->nhave++;
        }
        break;
    case MT_UP:
        deliver_up(in, h, data, len, owned);
        return;
    default:
        mismatch(in, h, "unknown message type");
        break;
    }
    free(owned);
}

static void barrier_progress(struct coll_inst *in)
{
    uint32_t n = in->g->n;
    while (in->round < in->rounds) {
        if (in->sent == in->round) {
            uint32_t to = (uint32_t)((in->g->me + (1ull << in->round)) % n);
            coll_send(in, to, MT_BARRIER, in->round, NULL, 0);
            in->sent++;
        }
        if (!(in->got >> in->round & 1))
            break;
        in->round++;
    }
}

static void up_progress(struct coll_inst *in)
{
    uint32_t nc = in->nchild;
    const char *src = in->acc ? in->acc : in->sbuf;
    while (in->red < in->nchunks && (nc == 0 || in->nparts[in->red] == nc)) {
        size_t off = (size_t)in->red * in->chunk, len = chunk_len(in, in->red);
        for (uint32_t k = 0; k < nc; k++) {
            void **p = &in->parts[(size_t)in->red * nc + k];
            coll_apply(in->op, in->dt, in->acc + off, *p, len / in->esz);
            free(*p);
            *p = NULL;
        }
        if (in->rel == 0) {
            if (in->rbuf + off != src + off)
                memmove(in->rbuf + off, src + off, len);
            if (in->down) {
                in->have[in->red] = 1;
                in->nhave++;
            }
        }
        in->red++;
    }
    if (in->rel == 0)
        return;
    uint32_t parent = member_of(in, in->rel - (in->rel & (0u - in->rel)));
    while (in->upsent < in->red && in->inflight < COLL_WINDOW) {
        size_t off = (size_t)in->upsent * in->chunk;
        coll_send(in, parent, MT_UP, in->upsent, src + off, chunk_len(in, in->upsent));
        in->upsent++;
    }
}

static void down_progress(struct coll_inst *in)
{
    while (in->fwd < in->nchunks && in->have[in->fwd] &&
           (in->inflight == 0 || in->inflight + in->nchild <= COLL_WINDOW)) {
        size_t off = (size_t)in->fwd * in->chunk, len = chunk_len(in, in->fwd);
        for (uint32_t k = in->nchild; k-- > 0;)
            coll_send(in, member_of(in, in->rel + (1ull << k)), MT_DOWN, in->fwd, in->buf + off, len);
        in->fwd++;
    }
}

void coll_progress(struct coll_inst *in)
{
    int done;
    if (in->kind == CK_BARRIER) {
        barrier_progress(in);
        done = in->round == in->rounds;
    } else {
        if (in->up)
            up_progress(in);
        if (in->down)
            down_progress(in);
        done = (!in->up || (in->red == in->nchunks && (in->rel == 0 || in->upsent == in->nchunks))) &&
               (!in->down || (in->nhave == in->nchunks && in->fwd == in->nchunks));
    }
    if (done && in->inflight == 0)
        coll_finish(in);
}
