/* Strided (1..9 dimensions: ARMCI_MAX_STRIDE_LEVEL levels), contiguous
 * and vector put, get and accumulate, blocking and non-blocking, to self,
 * to a rank on the same node and to a rank on another node. Each source
 * owns one slot of every target's memory and keeps a private reference
 * copy of it: every operation is applied to the reference locally, then
 * the slot is read back (fence + contiguous get) and compared byte by
 * byte, gaps included.
 * Gets are compared against a local strided copy of the reference.
 *
 * Accumulates: every ARMCI_ACC_* type with scale 1 and a non-trivial
 * scale, on small integers times 2, 0.5 or (2-i) so float results are
 * exact. A fixed-seed generator adds shapes nobody picked. The whole pass
 * runs on heap memory (ARMCI_Malloc) and on process-private memory
 * (ARMCI_Malloc_memdev "private"). Then every rank
 * accumulates concurrently into shared areas at rank 0 and the last rank,
 * and finally each owner hashes its memory so sources can check that the
 * target itself holds what they expect.
 *
 * Prints one summary line from rank 0; a mismatch prints
 * "FAIL rank R file:line what" and exits 1. */
#include <armci.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define SLOT (64 * 1024)   /* one source's area at each target */
#define COMMON (16 * 1024) /* the area every rank accumulates into */
#define MAXT 3             /* self, same node, other node */

static int nproc, rpn, nnodes;
static long ncases;
static const char *region; /* "heap" or "private", for messages */

static void **base;                     /* the current region's parts */
static int tproc[MAXT], ntarget;        /* targets */
static unsigned char *ref[MAXT];        /* my slot at each target, as it should be */
static unsigned char *lbuf[2], *expect; /* local buffers: heap, private; a scratch copy */
static unsigned char *readback;

static unsigned char pat(int a, int b, size_t i)
{
    return (unsigned char)(i * 151 + (size_t)a * 37 + (size_t)b * 101 + (i >> 8) * 7 + 1);
}

static void fill(unsigned char *p, size_t n, int a, int b)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(a, b, i);
}

static unsigned char *slot_at(int proc, int src)
{
    return (unsigned char *)base[proc] + (size_t)src * SLOT;
}

/* ---- shapes ---- */

#define ML ARMCI_MAX_STRIDE_LEVEL

struct shape {
    int levels;
    int count[ML + 1];
    int lstride[ML], rstride[ML]; /* local and remote side, in bytes */
};

/* count[0] and the gaps between blocks in units (1 byte, or one element
 * for an accumulate); each stride clears the block below it plus its gap. */
struct shape_def {
    int levels;
    int count[ML + 1];
    int lgap[ML], rgap[ML];
};

static void strides_of(const struct shape_def *d, const int *gap, int unit, int *stride)
{
    for (int i = 0; i < d->levels; i++) {
        int below = i == 0 ? d->count[0] * unit : stride[i - 1] * d->count[i];
        stride[i] = below + gap[i] * unit;
    }
}

static struct shape make_shape(const struct shape_def *d, int unit)
{
    struct shape s = {.levels = d->levels};
    for (int i = 0; i <= d->levels; i++)
        s.count[i] = d->count[i];
    s.count[0] *= unit;
    strides_of(d, d->lgap, unit, s.lstride);
    strides_of(d, d->rgap, unit, s.rstride);
    return s;
}

static size_t nruns(const struct shape *s)
{
    size_t n = 1;
    for (int k = 1; k <= s->levels; k++)
        n *= (size_t)s->count[k];
    return n;
}

static size_t run_off(const struct shape *s, const int *stride, size_t r)
{
    size_t off = 0;
    for (int k = 1; k <= s->levels; k++) {
        off += (r % (size_t)s->count[k]) * (size_t)stride[k - 1];
        r /= (size_t)s->count[k];
    }
    return off;
}

/* One past the farthest byte the section touches. */
static size_t extent(const struct shape *s, const int *stride)
{
    size_t n = nruns(s);
    return n && s->count[0] ? run_off(s, stride, n - 1) + (size_t)s->count[0] : 0;
}

/* Put and get: odd counts, count[0] not a multiple of 8, gaps on one side
 * or both, runs long enough for the RDMA path, a flow of many buffers, an
 * empty section. */
static const struct shape_def rma_shapes[] = {
    {0, {13}, {0}, {0}},
    {0, {2051}, {0}, {0}},
    {0, {1}, {0}, {0}},
    {1, {5, 7}, {3}, {11}},
    {1, {2100, 3}, {0}, {37}},
    {1, {40, 900}, {8}, {1}},
    {2, {3, 4, 5}, {1, 2}, {0, 7}},
    {2, {2049, 2, 2}, {3, 0}, {0, 5}},
    {3, {7, 3, 2, 3}, {1, 0, 5}, {2, 3, 0}},
    {4, {9, 2, 3, 2, 2}, {0, 1, 2, 3}, {3, 2, 1, 0}},
    {5, {3, 2, 2, 2, 3, 2}, {1, 1, 1, 1, 1}, {2, 0, 3, 0, 4}},
    {6, {5, 2, 2, 2, 2, 2, 2}, {1, 0, 2, 0, 3, 0}, {0, 3, 0, 2, 0, 1}},
    {6, {1, 3, 2, 3, 2, 2, 3}, {7, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}},
    {7, {3, 2, 2, 2, 2, 2, 2, 2}, {1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0}},
    {8, {2, 2, 2, 2, 2, 2, 2, 2, 2}, {1, 0, 0, 1, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1, 0, 2}},
    {2, {4, 0, 3}, {1, 1}, {1, 1}},
};

/* Accumulate, in elements. */
static const struct shape_def acc_shapes[] = {
    {0, {5}, {0}, {0}},
    {1, {3, 4}, {1}, {2}},
    {1, {300, 3}, {0}, {5}},
    {1, {20, 100}, {2}, {1}},
    {2, {2, 3, 2}, {1, 0}, {0, 1}},
    {3, {1, 2, 3, 2}, {2, 1, 0}, {0, 1, 2}},
    {4, {3, 2, 2, 1, 2}, {1, 0, 1, 0}, {0, 2, 0, 1}},
    {5, {2, 2, 1, 2, 2, 2}, {0, 1, 0, 1, 0}, {1, 0, 1, 0, 1}},
    {6, {1, 2, 2, 2, 2, 2, 2}, {1, 0, 1, 0, 1, 0}, {0, 1, 0, 1, 0, 1}},
    {8, {1, 2, 2, 2, 2, 2, 2, 2, 2}, {0, 1, 0, 1, 0, 1, 0, 1}, {1, 0, 1, 0, 1, 0, 1, 0}},
};

#define NELEM(a) (sizeof(a) / sizeof *(a))

/* ---- the local reference ---- */

static void ref_copy(unsigned char *dst, const int *dstride, const unsigned char *src,
                     const int *sstride, const struct shape *s)
{
    for (size_t r = 0; r < nruns(s); r++)
        memcpy(dst + run_off(s, dstride, r), src + run_off(s, sstride, r), (size_t)s->count[0]);
}

static size_t elem_size(int type)
{
    static const size_t sz[] = {sizeof(int),   sizeof(long),      sizeof(float),
                                sizeof(double), 2 * sizeof(float), 2 * sizeof(double)};
    return sz[type];
}

#define ACC_REAL(T)                                                            \
    do {                                                                       \
        T x, y, a;                                                             \
        memcpy(&x, d, sizeof x);                                               \
        memcpy(&y, s, sizeof y);                                               \
        memcpy(&a, scale, sizeof a);                                           \
        x += a * y;                                                            \
        memcpy(d, &x, sizeof x);                                               \
    } while (0)
#define ACC_CPLX(T)                                                            \
    do {                                                                       \
        T x[2], y[2], a[2];                                                    \
        memcpy(x, d, sizeof x);                                                \
        memcpy(y, s, sizeof y);                                                \
        memcpy(a, scale, sizeof a);                                            \
        x[0] += a[0] * y[0] - a[1] * y[1];                                     \
        x[1] += a[0] * y[1] + a[1] * y[0];                                     \
        memcpy(d, x, sizeof x);                                                \
    } while (0)

static void acc_elem(int type, const void *scale, unsigned char *d, const unsigned char *s)
{
    switch (type) {
    case ARMCI_ACC_INT: ACC_REAL(int); break;
    case ARMCI_ACC_LNG: ACC_REAL(long); break;
    case ARMCI_ACC_FLT: ACC_REAL(float); break;
    case ARMCI_ACC_DBL: ACC_REAL(double); break;
    case ARMCI_ACC_CPL: ACC_CPLX(float); break;
    default: ACC_CPLX(double); break;
    }
}

static void ref_acc_run(int type, const void *scale, unsigned char *d, const unsigned char *s,
                        size_t bytes)
{
    size_t es = elem_size(type);
    for (size_t o = 0; o < bytes; o += es)
        acc_elem(type, scale, d + o, s + o);
}

static void ref_acc(int type, const void *scale, unsigned char *dst, const int *dstride,
                    const unsigned char *src, const int *sstride, const struct shape *s)
{
    for (size_t r = 0; r < nruns(s); r++)
        ref_acc_run(type, scale, dst + run_off(s, dstride, r), src + run_off(s, sstride, r),
                    (size_t)s->count[0]);
}

/* Small integers of the type's base scalar (complex: both parts), so
 * every product and sum below is exact. */
static void fill_typed(unsigned char *p, size_t bytes, int type, int salt, int mod)
{
    size_t n = bytes / (type >= ARMCI_ACC_CPL ? elem_size(type) / 2 : elem_size(type));
    for (size_t j = 0; j < n; j++) {
        int v = (int)((j * 7 + (size_t)salt) % (size_t)mod) - mod / 2;
        switch (type) {
        case ARMCI_ACC_INT: ((int *)p)[j] = v; break;
        case ARMCI_ACC_LNG: ((long *)p)[j] = v; break;
        case ARMCI_ACC_FLT:
        case ARMCI_ACC_CPL: ((float *)p)[j] = (float)v; break;
        default: ((double *)p)[j] = v; break;
        }
    }
}

struct scales {
    int i;
    long l;
    float f;
    double d;
    float c[2];
    double z[2];
};
static const struct scales unit_scale = {1, 1L, 1.0f, 1.0, {1.0f, 0.0f}, {1.0, 0.0}};
static const struct scales odd_scale = {3, -2L, 0.5f, 2.0, {2.0f, -1.0f}, {0.5, 2.0}};

static const void *scale_of(const struct scales *s, int type)
{
    const void *p[] = {&s->i, &s->l, &s->f, &s->d, s->c, s->z};
    return p[type];
}

static const char *const type_name[] = {"INT", "LNG", "FLT", "DBL", "CPL", "DCP"};

/* ---- remote state ---- */

/* Fence, read [0, len) of my slot at target k back and compare it with the
 * reference. */
static void verify(int k, size_t len, const char *what)
{
    int p = tproc[k];
    CHECK(len <= SLOT, "test bug: %s reaches %zu bytes", what, len);
    ARMCI_Fence(p);
    CHECK(ARMCI_Get(slot_at(p, me), readback, (int)len, p) == 0, "%s: ARMCI_Get failed", what);
    for (size_t i = 0; i < len; i++)
        if (readback[i] != ref[k][i])
            FAIL("%s (%s memory) to rank %d: byte %zu of %zu is 0x%02x, want 0x%02x", what,
                 region, p, i, len, readback[i], ref[k][i]);
    ncases++;
}

/* A plain contiguous put that also updates the reference. */
static void put_ref(int k, const unsigned char *src, size_t len)
{
    CHECK(ARMCI_Put((void *)src, slot_at(tproc[k], me), (int)len, tproc[k]) == 0,
          "ARMCI_Put failed");
    memcpy(ref[k], src, len);
}

/* ---- one operation, every way of calling it ---- */

enum { OP_PUT, OP_GET, OP_ACC };
static const char *const op_name[] = {"put", "get", "acc"};

/* How the call is made and completed. The contiguous variants apply to
 * 0-level shapes only. */
enum { V_BLOCKING, V_NB_WAIT, V_NB_TEST, V_NB_IMPLICIT, V_CONTIG, V_CONTIG_NB };
static const char *const variant_name[] = {"blocking",          "nb+Wait", "nb+Test",
                                           "nb(NULL)+WaitProc", "contig",
                                           "contig nb(NULL)+WaitAll"};

static int call_strided(int op, int type, const void *scale, const struct shape *s, void *loc,
                        void *rem, int proc, armci_hdl_t *h, int nb)
{
    int *cnt = (int *)s->count, *ls = (int *)s->lstride, *rs = (int *)s->rstride, l = s->levels;
    void *sc = (void *)scale;
    if (op == OP_PUT)
        return nb ? ARMCI_NbPutS(loc, ls, rem, rs, cnt, l, proc, h)
                  : ARMCI_PutS(loc, ls, rem, rs, cnt, l, proc);
    if (op == OP_GET)
        return nb ? ARMCI_NbGetS(rem, rs, loc, ls, cnt, l, proc, h)
                  : ARMCI_GetS(rem, rs, loc, ls, cnt, l, proc);
    return nb ? ARMCI_NbAccS(type, sc, loc, ls, rem, rs, cnt, l, proc, h)
              : ARMCI_AccS(type, sc, loc, ls, rem, rs, cnt, l, proc);
}

static int call_contig(int op, int type, const void *scale, int bytes, void *loc, void *rem,
                       int proc, int nb)
{
    void *sc = (void *)scale;
    if (op == OP_PUT)
        return nb ? ARMCI_NbPut(loc, rem, bytes, proc, NULL) : ARMCI_Put(loc, rem, bytes, proc);
    if (op == OP_GET)
        return nb ? ARMCI_NbGet(rem, loc, bytes, proc, NULL) : ARMCI_Get(rem, loc, bytes, proc);
    return nb ? ARMCI_NbAcc(type, sc, loc, rem, bytes, proc, NULL)
              : ARMCI_Acc(type, sc, loc, rem, bytes, proc);
}

static void issue(int op, int type, const void *scale, const struct shape *s, void *loc, int k,
                  int variant)
{
    int p = tproc[k], rc;
    void *rem = slot_at(p, me);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    if (variant >= V_CONTIG)
        rc = call_contig(op, type, scale, s->count[0], loc, rem, p, variant == V_CONTIG_NB);
    else
        rc = call_strided(op, type, scale, s, loc, rem, p,
                          variant == V_NB_IMPLICIT ? NULL : &h, variant != V_BLOCKING);
    CHECK(rc == 0, "%s %s returned %d", op_name[op], variant_name[variant], rc);
    switch (variant) {
    case V_NB_WAIT: CHECK(ARMCI_Wait(&h) == 0, "ARMCI_Wait failed"); break;
    case V_NB_TEST:
        while (ARMCI_Test(&h) != 0)
            ;
        CHECK(ARMCI_Wait(&h) == 0, "ARMCI_Wait after Test failed");
        break;
    case V_NB_IMPLICIT: ARMCI_WaitProc(p); break;
    case V_CONTIG_NB: ARMCI_WaitAll(); break;
    default: break;
    }
}

static void run_put(const struct shape *s, int k, int variant, int salt)
{
    unsigned char *loc = lbuf[salt & 1];
    fill(loc, extent(s, s->lstride), me, salt);
    issue(OP_PUT, 0, NULL, s, loc, k, variant);
    ref_copy(ref[k], s->rstride, loc, s->lstride, s);
    char what[128];
    snprintf(what, sizeof what, "put levels %d count[0] %d %s", s->levels, s->count[0],
             variant_name[variant]);
    verify(k, extent(s, s->rstride), what);
}

static void run_get(const struct shape *s, int k, int variant, int salt)
{
    unsigned char *loc = lbuf[salt & 1];
    size_t len = extent(s, s->lstride);
    fill(loc, len, me, 1000 + salt);
    memcpy(expect, loc, len);
    issue(OP_GET, 0, NULL, s, loc, k, variant);
    ref_copy(expect, s->lstride, ref[k], s->rstride, s);
    for (size_t i = 0; i < len; i++)
        if (loc[i] != expect[i])
            FAIL("get levels %d count[0] %d %s (%s memory) from rank %d: local byte %zu of %zu "
                 "is 0x%02x, want 0x%02x",
                 s->levels, s->count[0], variant_name[variant], region, tproc[k], i, len,
                 loc[i], expect[i]);
    ncases++;
}

/* Typed values at the destination first (the slot's bytes may not be
 * valid floats), then the accumulate. */
static void run_acc(const struct shape *s, int type, const struct scales *sc, int k, int variant,
                    int salt)
{
    unsigned char *loc = lbuf[salt & 1];
    size_t rlen = extent(s, s->rstride);
    fill_typed(expect, rlen, type, salt + me, 23);
    put_ref(k, expect, rlen);
    fill_typed(loc, extent(s, s->lstride), type, salt * 3 + tproc[k], 17);
    issue(OP_ACC, type, scale_of(sc, type), s, loc, k, variant);
    ref_acc(type, scale_of(sc, type), ref[k], s->rstride, loc, s->lstride, s);
    char what[160];
    snprintf(what, sizeof what, "acc %s scale %s levels %d count[0] %d %s", type_name[type],
             sc == &unit_scale ? "1" : "odd", s->levels, s->count[0], variant_name[variant]);
    verify(k, rlen, what);
}

/* Blocking, one non-blocking way (rotating), and for a single run the
 * contiguous calls too. */
static int variants_of(const struct shape *s, int i, int *v)
{
    int n = 0;
    v[n++] = V_BLOCKING;
    v[n++] = V_NB_WAIT + i % 3;
    if (s->levels == 0) {
        v[n++] = V_CONTIG;
        v[n++] = V_CONTIG_NB;
    }
    return n;
}

static void strided_rma(int k)
{
    for (size_t i = 0; i < NELEM(rma_shapes); i++) {
        struct shape s = make_shape(&rma_shapes[i], 1);
        int v[4], nv = variants_of(&s, (int)i, v);
        for (int j = 0; j < nv; j++) {
            run_put(&s, k, v[j], (int)i * 8 + j);
            run_get(&s, k, v[j], (int)i * 8 + j);
        }
    }
}

static void strided_acc(int k)
{
    for (int type = ARMCI_ACC_INT; type <= ARMCI_ACC_DCP; type++)
        for (size_t i = 0; i < NELEM(acc_shapes); i++) {
            struct shape s = make_shape(&acc_shapes[i], (int)elem_size(type));
            int v[4], nv = variants_of(&s, (int)i + type, v);
            for (int j = 0; j < nv; j++)
                run_acc(&s, type, j % 2 ? &odd_scale : &unit_scale, k, v[j],
                        type * 100 + (int)i * 8 + j);
            run_acc(&s, type, &odd_scale, k, V_BLOCKING, type * 100 + (int)i * 8 + 7);
        }
}

/* Shapes nobody picked: a fixed-seed generator (the same on every run),
 * sized to fit the slot. unit 1 for put/get, an element for acc. */
static unsigned rnd(unsigned *state, unsigned n)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) % n;
}

static struct shape random_shape(unsigned *state, int unit)
{
    for (;;) {
        struct shape_def d = {.levels = (int)rnd(state, 7)};
        d.count[0] = 1 + (int)rnd(state, d.levels < 2 ? 3000 / unit : 64 / unit + 1);
        for (int i = 1; i <= d.levels; i++)
            d.count[i] = 1 + (int)rnd(state, i == 1 ? 12 : 3);
        for (int i = 0; i < d.levels; i++) {
            d.lgap[i] = (int)rnd(state, 3) ? (int)rnd(state, 9) : 0;
            d.rgap[i] = (int)rnd(state, 3) ? (int)rnd(state, 9) : 0;
        }
        struct shape s = make_shape(&d, unit);
        if (extent(&s, s.lstride) <= SLOT && extent(&s, s.rstride) <= SLOT)
            return s;
    }
}

#define NRANDOM 12

static void random_cases(int k)
{
    unsigned state = 12345u + (unsigned)me * 7919u + (unsigned)k;
    for (int i = 0; i < NRANDOM; i++) {
        struct shape s = random_shape(&state, 1);
        int v = (int)rnd(&state, 4);
        run_put(&s, k, v, 3000 + i);
        run_get(&s, k, v, 3000 + i);
        int type = (int)rnd(&state, 6);
        s = random_shape(&state, (int)elem_size(type));
        run_acc(&s, type, i % 2 ? &odd_scale : &unit_scale, k, v, 3000 + i);
    }
}

/* ---- vector ---- */

/* Descriptors in units (bytes, or elements for an accumulate): units per
 * piece, pieces, and where piece i starts on the local and the remote side
 * (remote pieces in reverse order). */
struct vdesc {
    int units, n, loff, lstep, roff, rstep;
};
#define NVD 4
#define VMAXN 6
static const struct vdesc rma_vdescs[NVD] = {
    {11, 6, 0, 29, 3, 17},
    {700, 3, 200, 750, 300, 701},
    {2500, 2, 3000, 2600, 3000, 2503},
    {1, 5, 9000, 3, 9000, 2},
};
static const struct vdesc acc_vdescs[NVD] = {
    {1, 6, 0, 3, 1, 2},
    {37, 3, 20, 40, 20, 38},
    {130, 2, 200, 140, 200, 131},
    {2, 4, 500, 3, 500, 5},
};

struct vset {
    armci_giov_t iov[NVD];
    void *src[NVD][VMAXN], *dst[NVD][VMAXN];
    size_t lend, rend; /* extents, bytes */
};

/* The local and remote address of piece i of descriptor d, in bytes. */
static size_t vloc(const struct vdesc *d, int i, int unit)
{
    return (size_t)(d->loff + i * d->lstep) * (size_t)unit;
}

static size_t vrem(const struct vdesc *d, int i, int unit)
{
    return (size_t)(d->roff + (d->n - 1 - i) * d->rstep) * (size_t)unit;
}

static const struct vdesc *vdescs_of(int op)
{
    return op == OP_ACC ? acc_vdescs : rma_vdescs;
}

static void vset_build(struct vset *v, int op, unsigned char *loc, unsigned char *rem, int unit)
{
    v->lend = v->rend = 0;
    for (size_t d = 0; d < NVD; d++) {
        const struct vdesc *vd = &vdescs_of(op)[d];
        size_t len = (size_t)vd->units * (size_t)unit;
        for (int i = 0; i < vd->n; i++) {
            unsigned char *l = loc + vloc(vd, i, unit), *r = rem + vrem(vd, i, unit);
            v->src[d][i] = op == OP_GET ? (void *)r : (void *)l;
            v->dst[d][i] = op == OP_GET ? (void *)l : (void *)r;
            if (vloc(vd, i, unit) + len > v->lend)
                v->lend = vloc(vd, i, unit) + len;
            if (vrem(vd, i, unit) + len > v->rend)
                v->rend = vrem(vd, i, unit) + len;
        }
        v->iov[d] = (armci_giov_t){v->src[d], v->dst[d], (int)len, vd->n};
    }
    CHECK(v->lend <= SLOT && v->rend <= SLOT, "test bug: vector extents %zu, %zu", v->lend,
          v->rend);
}

/* Apply the vector operation to the reference: copy or accumulate piece
 * by piece between loc and the reference. */
static void vset_ref(int op, int type, const void *scale, unsigned char *loc, unsigned char *refm,
                     int unit)
{
    for (size_t d = 0; d < NVD; d++) {
        const struct vdesc *vd = &vdescs_of(op)[d];
        size_t len = (size_t)vd->units * (size_t)unit;
        for (int i = 0; i < vd->n; i++) {
            unsigned char *l = loc + vloc(vd, i, unit), *r = refm + vrem(vd, i, unit);
            if (op == OP_PUT)
                memcpy(r, l, len);
            else if (op == OP_GET)
                memcpy(l, r, len);
            else
                ref_acc_run(type, scale, r, l, len);
        }
    }
}

static void vector_call(int op, int type, const void *scale, struct vset *v, int p, int nb)
{
    armci_hdl_t h;
    int rc;
    ARMCI_INIT_HANDLE(&h);
    if (op == OP_PUT)
        rc = nb ? ARMCI_NbPutV(v->iov, NVD, p, &h) : ARMCI_PutV(v->iov, NVD, p);
    else if (op == OP_GET)
        rc = nb ? ARMCI_NbGetV(v->iov, NVD, p, &h) : ARMCI_GetV(v->iov, NVD, p);
    else
        rc = nb ? ARMCI_NbAccV(type, (void *)scale, v->iov, NVD, p, &h)
                : ARMCI_AccV(type, (void *)scale, v->iov, NVD, p);
    CHECK(rc == 0, "vector %s returned %d", op_name[op], rc);
    if (nb)
        CHECK(ARMCI_Wait(&h) == 0, "ARMCI_Wait on a vector %s failed", op_name[op]);
}

static void vector_rma(int k, int nb, int salt)
{
    struct vset v;
    unsigned char *loc = lbuf[salt & 1];
    char what[64];
    snprintf(what, sizeof what, "%sPutV", nb ? "Nb" : "");
    vset_build(&v, OP_PUT, loc, slot_at(tproc[k], me), 1);
    fill(loc, v.lend, me, 500 + salt);
    vector_call(OP_PUT, 0, NULL, &v, tproc[k], nb);
    vset_ref(OP_PUT, 0, NULL, loc, ref[k], 1);
    verify(k, v.rend, what);

    vset_build(&v, OP_GET, loc, slot_at(tproc[k], me), 1);
    fill(loc, v.lend, me, 600 + salt);
    memcpy(expect, loc, v.lend);
    vector_call(OP_GET, 0, NULL, &v, tproc[k], nb);
    vset_ref(OP_GET, 0, NULL, expect, ref[k], 1);
    for (size_t i = 0; i < v.lend; i++)
        if (loc[i] != expect[i])
            FAIL("%sGetV (%s memory) from rank %d: local byte %zu is 0x%02x, want 0x%02x",
                 nb ? "Nb" : "", region, tproc[k], i, loc[i], expect[i]);
    ncases++;
}

static void vector_acc(int k, int type, const struct scales *sc, int nb, int salt)
{
    struct vset v;
    unsigned char *loc = lbuf[salt & 1];
    int unit = (int)elem_size(type);
    const void *scale = scale_of(sc, type);
    vset_build(&v, OP_ACC, loc, slot_at(tproc[k], me), unit);
    fill_typed(expect, v.rend, type, salt, 23);
    put_ref(k, expect, v.rend);
    fill_typed(loc, v.lend, type, salt + 5, 17);
    vector_call(OP_ACC, type, scale, &v, tproc[k], nb);
    vset_ref(OP_ACC, type, scale, loc, ref[k], unit);
    char what[96];
    snprintf(what, sizeof what, "%sAccV %s scale %s", nb ? "Nb" : "", type_name[type],
             sc == &unit_scale ? "1" : "odd");
    verify(k, v.rend, what);
}

/* ---- local pack/unpack ---- */

/* armci_write_strided packs a section into a buffer, armci_read_strided
 * unpacks it: both against the reference copy. */
static void local_pack(void)
{
    for (size_t i = 0; i < NELEM(rma_shapes); i++) {
        struct shape s = make_shape(&rma_shapes[i], 1);
        size_t ext = extent(&s, s.lstride), bytes = nruns(&s) * (size_t)s.count[0];
        struct shape packed = s;
        for (int l = 0; l < s.levels; l++) /* a contiguous layout of the same runs */
            packed.rstride[l] = l == 0 ? s.count[0] : packed.rstride[l - 1] * s.count[l];
        fill(lbuf[0], ext, me, 77);
        memset(lbuf[1], 0, bytes + 1);
        armci_write_strided(lbuf[0], s.levels, s.lstride, s.count, (char *)lbuf[1]);
        memset(expect, 0, bytes + 1);
        ref_copy(expect, packed.rstride, lbuf[0], s.lstride, &s);
        CHECK(!memcmp(lbuf[1], expect, bytes + 1), "armci_write_strided shape %zu differs", i);
        fill(lbuf[0], ext, me, 78);
        memcpy(expect, lbuf[0], ext);
        armci_read_strided(lbuf[0], s.levels, s.lstride, s.count, (char *)lbuf[1]);
        ref_copy(expect, s.lstride, lbuf[1], packed.rstride, &s);
        CHECK(!memcmp(lbuf[0], expect, ext), "armci_read_strided shape %zu differs", i);
    }
}

/* ---- one region ---- */

static void pick_targets(void)
{
    int node = me / rpn, local = me % rpn;
    int cand[MAXT] = {me, rpn > 1 ? node * rpn + (local + 1) % rpn : me,
                      nnodes > 1 ? ((node + 1) % nnodes) * rpn + local : me};
    ntarget = 0;
    for (int i = 0; i < MAXT; i++) {
        int dup = 0;
        for (int j = 0; j < ntarget; j++)
            dup |= tproc[j] == cand[i];
        if (!dup)
            tproc[ntarget++] = cand[i];
    }
}

/* Each owner fills its slots with a pattern only it and the slot's source
 * know, so gets and untouched gaps are checked from the first operation. */
static void region_init(void)
{
    for (int s = 0; s < nproc; s++)
        fill(slot_at(me, s), SLOT, me, s);
    memset((unsigned char *)base[me] + (size_t)nproc * SLOT, 0, COMMON);
    for (int k = 0; k < ntarget; k++)
        fill(ref[k], SLOT, tproc[k], me);
    ARMCI_Barrier();
}

static uint64_t hash(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h & 0x3fffffffffffffffULL; /* a non-negative long, summed exactly below */
}

/* What each owner holds, seen by the owner: the sum of one row per rank
 * gives everybody every owner's slot hashes. */
static void check_owner_view(void)
{
    long *h = calloc((size_t)nproc * (size_t)nproc, sizeof *h);
    CHECK(h, "calloc");
    ARMCI_Barrier();
    for (int s = 0; s < nproc; s++)
        h[me * nproc + s] = (long)hash(slot_at(me, s), SLOT);
    armci_msg_lgop(h, nproc * nproc, "+");
    for (int k = 0; k < ntarget; k++)
        CHECK(h[tproc[k] * nproc + me] == (long)hash(ref[k], SLOT),
              "%s memory: rank %d's own view of my slot differs from what its gets showed",
              region, tproc[k]);
    free(h);
    ARMCI_Barrier();
}

/* All ranks accumulate into the same areas at rank 0 and the last rank;
 * each owner checks the sum of every rank's contribution. */
#define CROUNDS 3
#define CCOUNT 8  /* elements per run */
#define CRUNS 6   /* runs, with a one-element gap between them */
#define CAREA 2048 /* bytes per type */

static void contribution(int type, int r, unsigned char *src, struct scales *sc)
{
    *sc = (struct scales){r % 3 + 1, -(long)(r % 4) - 1, 0.5f * (float)(r % 3 + 1),
                          0.25 * (r % 5 + 1), {1.0f, (float)(r % 2)}, {0.5, -(double)(r % 3)}};
    fill_typed(src, CCOUNT * CRUNS * elem_size(type), type, r, 9);
}

static void concurrent_acc(void)
{
    int owners[2] = {0, nproc - 1};
    _Alignas(16) unsigned char src[CCOUNT * CRUNS * 16];
    unsigned char *common = (unsigned char *)base[me] + (size_t)nproc * SLOT;
    int nowners = nproc == 1 ? 2 : 1; /* rank 0 is also the last rank: it gets both */
    for (int type = ARMCI_ACC_INT; type <= ARMCI_ACC_DCP; type++) {
        size_t es = elem_size(type);
        int count[2] = {CCOUNT * (int)es, CRUNS}, lstr[1] = {CCOUNT * (int)es},
            rstr[1] = {(CCOUNT + 1) * (int)es};
        struct scales sc;
        contribution(type, me, src, &sc);
        for (int round = 0; round < CROUNDS; round++)
            for (int o = 0; o < 2; o++) {
                unsigned char *rem = (unsigned char *)base[owners[o]] + (size_t)nproc * SLOT +
                                     (size_t)type * CAREA;
                CHECK(ARMCI_AccS(type, (void *)scale_of(&sc, type), src, lstr, rem, rstr, count,
                                 1, owners[o]) == 0,
                      "concurrent AccS failed");
            }
    }
    ARMCI_Barrier();
    if (me != 0 && me != nproc - 1)
        return;
    unsigned char want[CAREA];
    struct shape s = {.levels = 1};
    for (int type = ARMCI_ACC_INT; type <= ARMCI_ACC_DCP; type++) {
        size_t es = elem_size(type);
        s.count[0] = CCOUNT * (int)es, s.count[1] = CRUNS;
        s.lstride[0] = CCOUNT * (int)es, s.rstride[0] = (CCOUNT + 1) * (int)es;
        memset(want, 0, sizeof want);
        for (int r = 0; r < nproc; r++) {
            struct scales sc;
            contribution(type, r, src, &sc);
            for (int round = 0; round < CROUNDS * nowners; round++)
                ref_acc(type, scale_of(&sc, type), want, s.rstride, src, s.lstride, &s);
        }
        const unsigned char *got = common + (size_t)type * CAREA;
        for (size_t i = 0; i < CAREA; i++)
            if (got[i] != want[i])
                FAIL("concurrent acc %s: byte %zu (element %zu) of the common area is 0x%02x, "
                     "want 0x%02x",
                     type_name[type], i, i / es, got[i], want[i]);
    }
}

static void run_region(const char *device)
{
    region = device;
    CHECK(ARMCI_Malloc_memdev(base, (armci_size_t)nproc * SLOT + COMMON, device) == 0,
          "ARMCI_Malloc_memdev(%s) failed", device);
    region_init();
    for (int k = 0; k < ntarget; k++) {
        strided_rma(k);
        strided_acc(k);
        random_cases(k);
        for (int nb = 0; nb < 2; nb++) {
            vector_rma(k, nb, k * 2 + nb);
            for (int type = ARMCI_ACC_INT; type <= ARMCI_ACC_DCP; type++)
                vector_acc(k, type, nb ? &unit_scale : &odd_scale, nb, type * 3 + nb);
        }
    }
    check_owner_view();
    concurrent_acc();
    ARMCI_Barrier();
    CHECK(ARMCI_Free_memdev(base[me]) == 0, "ARMCI_Free_memdev failed");
}

int main(void)
{
    ARMCI_Init();
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    nnodes = armci_domain_count(ARMCI_DOMAIN_SMP);
    rpn = armci_domain_nprocs(ARMCI_DOMAIN_SMP, 0);
    base = calloc((size_t)nproc, sizeof *base);
    lbuf[0] = ARMCI_Malloc_local(SLOT);
    lbuf[1] = malloc(SLOT);
    expect = malloc(SLOT);
    readback = malloc(SLOT);
    for (int k = 0; k < MAXT; k++)
        ref[k] = malloc(SLOT);
    CHECK(base && lbuf[0] && lbuf[1] && expect && readback && ref[0] && ref[1] && ref[2],
          "out of memory");
    pick_targets();
    local_pack();
    run_region("heap");
    run_region("private");
    armci_msg_lgop(&ncases, 1, "+");
    if (me == 0)
        printf("strided: %ld checks OK on %d ranks (%d nodes)\n", ncases, nproc, nnodes);
    for (int k = 0; k < MAXT; k++)
        free(ref[k]);
    free(readback);
    free(expect);
    free(lbuf[1]);
    ARMCI_Free_local(lbuf[0]);
    free(base);
    ARMCI_Finalize();
    return 0;
}
