/* The tuner's buffers: for each collective, send data with a pattern that
 * names its source, receive space, counts and displacements, and the
 * check that a task's result is what the collective must give. The root
 * is always task 0; a geometry's rank is its task (tasks 0..g-1).
 * Reductions sum unsigned ints (unsigned chars under 4 bytes), so the
 * expected value is exact whatever the order of combination. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collsel.h"

struct cs_bufs {
    char *s, *r;
    size_t slen, rlen;
    size_t *cnt, *disp; /* per rank, in bytes (elements for reduce_scatter) */
    int *icnt, *idisp;
    pami_type_t et;     /* reductions: element type */
    size_t esz, n;      /* its size and the count per task */
};

static uint8_t pat(size_t src, size_t i)
{
    return (uint8_t)(src * 37 + i * 11 + 5);
}

static int is_reduction(pami_xfer_type_t c)
{
    return c == PAMI_XFER_ALLREDUCE || c == PAMI_XFER_REDUCE || c == PAMI_XFER_SCAN ||
           c == PAMI_XFER_REDUCE_SCATTER || c == PAMI_XFER_AMREDUCE;
}

static int rooted_out(pami_xfer_type_t c) /* the root sends g blocks */
{
    return c == PAMI_XFER_SCATTER || c == PAMI_XFER_SCATTERV || c == PAMI_XFER_SCATTERV_INT ||
           c == PAMI_XFER_AMSCATTER;
}

static int gathers(pami_xfer_type_t c) /* every rank's block lands in g blocks */
{
    return c == PAMI_XFER_ALLGATHER || c == PAMI_XFER_ALLGATHERV || c == PAMI_XFER_ALLGATHERV_INT ||
           c == PAMI_XFER_GATHER || c == PAMI_XFER_GATHERV || c == PAMI_XFER_GATHERV_INT ||
           c == PAMI_XFER_AMGATHER;
}

static int all_to_all(pami_xfer_type_t c)
{
    return c == PAMI_XFER_ALLTOALL || c == PAMI_XFER_ALLTOALLV || c == PAMI_XFER_ALLTOALLV_INT;
}

/* element j of rank s's contribution to a reduction */
static uint32_t elem(const struct cs_bufs *b, size_t s, size_t j)
{
    uint32_t v = (uint32_t)(s + j + 1);
    return b->esz == 1 ? (uint8_t)v : v;
}

static void put_elem(const struct cs_bufs *b, char *p, size_t j, uint32_t v)
{
    if (b->esz == 1)
        ((uint8_t *)p)[j] = (uint8_t)v;
    else
        memcpy(p + j * 4, &v, 4);
}

static uint32_t get_elem(const struct cs_bufs *b, const char *p, size_t j)
{
    uint32_t v;
    if (b->esz == 1)
        return ((const uint8_t *)p)[j];
    memcpy(&v, p + j * 4, 4);
    return v;
}

int cs_setup(struct cs_run *r)
{
    struct cs_bufs *b = calloc(1, sizeof *b);
    if (!b)
        return 0;
    size_t g = r->g, by = r->bytes;
    pami_xfer_type_t c = r->coll;
    if (is_reduction(c)) {
        b->esz = by >= 4 ? 4 : 1;
        b->et = by >= 4 ? PAMI_TYPE_UNSIGNED_INT : PAMI_TYPE_UNSIGNED_CHAR;
        b->n = by / b->esz;
        b->rlen = b->n * b->esz;
        b->slen = c == PAMI_XFER_REDUCE_SCATTER ? g * b->rlen : b->rlen;
    } else if (c == PAMI_XFER_BROADCAST) {
        b->rlen = by;
    } else if (c == PAMI_XFER_AMBROADCAST) {
        b->slen = b->rlen = by;
    } else if (rooted_out(c)) {
        b->slen = g * by;
        b->rlen = by;
    } else if (gathers(c)) {
        b->slen = by;
        b->rlen = g * by;
    } else if (all_to_all(c)) {
        b->slen = b->rlen = g * by;
    }
    b->s = malloc(b->slen + 1);
    b->r = malloc(b->rlen + 1);
    b->cnt = malloc(g * sizeof *b->cnt);
    b->disp = malloc(g * sizeof *b->disp);
    b->icnt = malloc(g * sizeof *b->icnt);
    b->idisp = malloc(g * sizeof *b->idisp);
    r->b = b;
    if (!b->s || !b->r || !b->cnt || !b->disp || !b->icnt || !b->idisp) {
        cs_free(r);
        return 0;
    }
    for (size_t i = 0; i < g; i++) {
        b->cnt[i] = c == PAMI_XFER_REDUCE_SCATTER ? b->n : by;
        b->disp[i] = i * by;
        b->icnt[i] = (int)by;
        b->idisp[i] = (int)(i * by);
    }
    /* the send side, written once: collectives do not change it */
    if (is_reduction(c)) {
        size_t nsend = b->slen / b->esz;
        for (size_t j = 0; j < nsend; j++)
            put_elem(b, b->s, j, elem(b, r->me, j));
    } else if (rooted_out(c) || all_to_all(c)) {
        for (size_t d = 0; d < g; d++)
            for (size_t i = 0; i < by; i++)
                b->s[d * by + i] = (char)pat(all_to_all(c) ? r->me * g + d : d, i);
    } else {
        for (size_t i = 0; i < b->slen; i++)
            b->s[i] = (char)pat(r->me, i);
    }
    if (c == PAMI_XFER_BROADCAST && r->me == 0)
        for (size_t i = 0; i < by; i++)
            b->r[i] = (char)pat(0, i);
    return 1;
}

void cs_free(struct cs_run *r)
{
    struct cs_bufs *b = r->b;
    if (!b)
        return;
    free(b->s);
    free(b->r);
    free(b->cnt);
    free(b->disp);
    free(b->icnt);
    free(b->idisp);
    free(b);
    r->b = NULL;
}

void cs_fill(struct cs_run *r, pami_xfer_t *x, int clear)
{
    struct cs_bufs *b = r->b;
    pami_collective_t *m = &x->cmd;
    size_t by = r->bytes;
    pami_type_t B = PAMI_TYPE_BYTE;
    if (clear && !(r->coll == PAMI_XFER_BROADCAST && r->me == 0))
        memset(b->r, 0, b->rlen);
    switch (r->coll) {
    case PAMI_XFER_BROADCAST:
        m->xfer_broadcast = (pami_broadcast_t){r->root, b->r, B, by};
        break;
    case PAMI_XFER_ALLREDUCE:
        m->xfer_allreduce = (pami_allreduce_t){b->s, b->et, b->n, b->r, b->et, b->n, PAMI_DATA_SUM, NULL, 1};
        break;
    case PAMI_XFER_REDUCE:
        m->xfer_reduce = (pami_reduce_t){r->root, b->s, b->et, b->n, b->r, b->et, b->n, PAMI_DATA_SUM, NULL, 1};
        break;
    case PAMI_XFER_SCAN:
        m->xfer_scan = (pami_scan_t){b->s, b->et, b->n, b->r, b->et, b->n, PAMI_DATA_SUM, NULL, 0};
        break;
    case PAMI_XFER_REDUCE_SCATTER:
        m->xfer_reduce_scatter =
            (pami_reduce_scatter_t){b->s, b->et, r->g * b->n, b->r, b->et, b->cnt, PAMI_DATA_SUM, NULL, 1};
        break;
    case PAMI_XFER_ALLGATHER:
        m->xfer_allgather = (pami_allgather_t){b->s, B, by, b->r, B, by};
        break;
    case PAMI_XFER_ALLGATHERV:
        m->xfer_allgatherv = (pami_allgatherv_t){b->s, B, by, b->r, B, b->cnt, b->disp};
        break;
    case PAMI_XFER_ALLGATHERV_INT:
        m->xfer_allgatherv_int = (pami_allgatherv_int_t){b->s, B, (int)by, b->r, B, b->icnt, b->idisp};
        break;
    case PAMI_XFER_GATHER:
        m->xfer_gather = (pami_gather_t){r->root, b->s, B, by, b->r, B, by};
        break;
    case PAMI_XFER_GATHERV:
        m->xfer_gatherv = (pami_gatherv_t){r->root, b->s, B, by, b->r, B, b->cnt, b->disp};
        break;
    case PAMI_XFER_GATHERV_INT:
        m->xfer_gatherv_int = (pami_gatherv_int_t){r->root, b->s, B, (int)by, b->r, B, b->icnt, b->idisp};
        break;
    case PAMI_XFER_SCATTER:
        m->xfer_scatter = (pami_scatter_t){r->root, b->s, B, by, b->r, B, by};
        break;
    case PAMI_XFER_SCATTERV:
        m->xfer_scatterv = (pami_scatterv_t){r->root, b->s, B, b->cnt, b->disp, b->r, B, by};
        break;
    case PAMI_XFER_SCATTERV_INT:
        m->xfer_scatterv_int = (pami_scatterv_int_t){r->root, b->s, B, b->icnt, b->idisp, b->r, B, (int)by};
        break;
    case PAMI_XFER_ALLTOALL:
        m->xfer_alltoall = (pami_alltoall_t){b->s, B, by, b->r, B, by};
        break;
    case PAMI_XFER_ALLTOALLV:
        m->xfer_alltoallv = (pami_alltoallv_t){b->s, B, b->cnt, b->disp, b->r, B, b->cnt, b->disp};
        break;
    case PAMI_XFER_ALLTOALLV_INT:
        m->xfer_alltoallv_int = (pami_alltoallv_int_t){b->s, B, b->icnt, b->idisp, b->r, B, b->icnt, b->idisp};
        break;
    case PAMI_XFER_AMBROADCAST:
        m->xfer_ambroadcast = (pami_ambroadcast_t){AM_DISPATCH_ID, NULL, 0, b->s, B, by};
        break;
    case PAMI_XFER_AMSCATTER:
        m->xfer_amscatter = (pami_amscatter_t){AM_DISPATCH_ID, NULL, 0, b->s, B, by};
        break;
    case PAMI_XFER_AMGATHER:
        m->xfer_amgather = (pami_amgather_t){AM_DISPATCH_ID, NULL, 0, b->r, B, by};
        break;
    case PAMI_XFER_AMREDUCE:
        m->xfer_amreduce = (pami_amreduce_t){AM_DISPATCH_ID, NULL, 0, b->r, b->et, b->n, NULL, 1};
        break;
    default:
        break;
    }
}

static size_t check_bytes(const char *p, size_t len, size_t src, size_t base)
{
    for (size_t i = 0; i < len; i++)
        if ((uint8_t)p[i] != pat(src, i))
            return base + i + 1;
    return 0;
}

/* element k of the result: the sum over ranks lo..hi of their element j */
static size_t check_sum(const struct cs_bufs *b, size_t lo, size_t hi, size_t j0)
{
    for (size_t k = 0; k < b->n; k++) {
        uint32_t want = 0;
        for (size_t s = lo; s <= hi; s++)
            want += elem(b, s, j0 + k);
        if (b->esz == 1)
            want = (uint8_t)want;
        if (get_elem(b, b->r, k) != want)
            return k * b->esz + 1;
    }
    return 0;
}

size_t cs_check(const struct cs_run *r)
{
    const struct cs_bufs *b = r->b;
    size_t g = r->g, by = r->bytes, bad = 0;
    int root = r->me == 0;
    switch (r->coll) {
    case PAMI_XFER_BROADCAST:
    case PAMI_XFER_AMBROADCAST:
        return root ? 0 : check_bytes(b->r, by, 0, 0);
    case PAMI_XFER_ALLREDUCE:
        return check_sum(b, 0, g - 1, 0);
    case PAMI_XFER_REDUCE:
    case PAMI_XFER_AMREDUCE:
        return root ? check_sum(b, 0, g - 1, 0) : 0;
    case PAMI_XFER_SCAN:
        return check_sum(b, 0, r->me, 0);
    case PAMI_XFER_REDUCE_SCATTER:
        return check_sum(b, 0, g - 1, r->me * b->n);
    case PAMI_XFER_SCATTER:
    case PAMI_XFER_SCATTERV:
    case PAMI_XFER_SCATTERV_INT:
    case PAMI_XFER_AMSCATTER:
        return check_bytes(b->r, by, r->me, 0);
    case PAMI_XFER_GATHER:
    case PAMI_XFER_GATHERV:
    case PAMI_XFER_GATHERV_INT:
    case PAMI_XFER_AMGATHER:
        if (!root)
            return 0;
        /* fall through */
    case PAMI_XFER_ALLGATHER:
    case PAMI_XFER_ALLGATHERV:
    case PAMI_XFER_ALLGATHERV_INT:
        for (size_t s = 0; s < g && !bad; s++)
            bad = check_bytes(b->r + s * by, by, s, s * by);
        return bad;
    case PAMI_XFER_ALLTOALL:
    case PAMI_XFER_ALLTOALLV:
    case PAMI_XFER_ALLTOALLV_INT:
        for (size_t s = 0; s < g && !bad; s++)
            bad = check_bytes(b->r + s * by, by, s * g + r->me, s * by);
        return bad;
    default:
        return 0;
    }
}

/* ---- AM collectives: where a member's data goes or comes from ---- */

static void am_done(pami_context_t ctx, void *cookie, pami_result_t res)
{
    (void)ctx, (void)res;
    ((struct cs_run *)cookie)->am_seen++;
}

/* broadcast and scatter: the data lands in r; immediate data is copied */
static void am_in(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, const void *pipe, size_t len,
                  pami_endpoint_t origin, pami_geometry_t geom, pami_recv_t *recv)
{
    (void)hdr, (void)hlen, (void)origin, (void)geom;
    struct cs_run *r = cookie;
    size_t n = len < r->b->rlen ? len : r->b->rlen;
    if (!recv) {
        memcpy(r->b->r, pipe, n);
        am_done(ctx, r, PAMI_SUCCESS);
        return;
    }
    *recv = (pami_recv_t){r, am_done, r->b->r, PAMI_TYPE_BYTE, 0, PAMI_DATA_COPY, NULL};
}

static void am_out(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, size_t len,
                   pami_endpoint_t origin, pami_geometry_t geom, pami_recv_t *send)
{
    (void)ctx, (void)hdr, (void)hlen, (void)len, (void)origin, (void)geom;
    struct cs_run *r = cookie;
    *send = (pami_recv_t){r, am_done, r->b->s, PAMI_TYPE_BYTE, 0, PAMI_DATA_COPY, NULL};
}

static void am_red(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, size_t len,
                   pami_endpoint_t origin, pami_geometry_t geom, pami_data_function *op, pami_recv_t *send)
{
    (void)ctx, (void)hdr, (void)hlen, (void)len, (void)origin, (void)geom;
    struct cs_run *r = cookie;
    *op = PAMI_DATA_SUM;
    *send = (pami_recv_t){r, am_done, r->b->s, r->b->et, 0, PAMI_DATA_COPY, NULL};
}

pami_dispatch_callback_function cs_am_dispatch(pami_xfer_type_t coll)
{
    pami_dispatch_callback_function f;
    memset(&f, 0, sizeof f);
    if (coll == PAMI_XFER_AMBROADCAST)
        f.ambroadcast = am_in;
    else if (coll == PAMI_XFER_AMSCATTER)
        f.amscatter = am_in;
    else if (coll == PAMI_XFER_AMGATHER)
        f.amgather = am_out;
    else if (coll == PAMI_XFER_AMREDUCE)
        f.amreduce = am_red;
    return f;
}
