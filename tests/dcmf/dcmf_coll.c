/* DCMF_GlobalAllreduce for every valid (op, datatype) pair, as an
 * allreduce (root -1, in place for odd counts) and as a reduce to a
 * rotating root, against a reference each rank computes from every rank's
 * (regenerated) input, byte by byte; then large counts for some pairs.
 * Inputs are chosen so that the exact result does not depend on the
 * combination order (small integers, powers of two, ties for MAXLOC).
 * Usage: dcmf_coll [quick]   (quick: fewer and smaller counts) */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dcmf.h>
#include <dcmf_globalcollectives.h>

#include "coll_test.h"

/* ---- the reference: an element as numbers ---- */

struct loc_2int { int v, i; };
struct loc_short_int { short v; int i; };
struct loc_float_int { float v; int i; };
struct loc_double_int { double v; int i; };
struct loc_2float { float v, i; };
struct loc_2double { double v, i; };

enum cls { K_INT, K_FLT, K_LOGICAL, K_CPLX, K_LOC };

static enum cls cls_of(int dt)
{
    if (dt <= DCMF_UNSIGNED_LONG_LONG)
        return K_INT;
    if (dt <= DCMF_LONG_DOUBLE)
        return K_FLT;
    if (dt == DCMF_LOGICAL)
        return K_LOGICAL;
    if (dt <= DCMF_DOUBLE_COMPLEX)
        return K_CPLX;
    return K_LOC;
}

static size_t dt_size(int dt)
{
    static const size_t s[] = {
        [DCMF_SIGNED_CHAR] = 1, [DCMF_UNSIGNED_CHAR] = 1, [DCMF_SIGNED_SHORT] = 2,
        [DCMF_UNSIGNED_SHORT] = 2, [DCMF_SIGNED_INT] = 4, [DCMF_UNSIGNED_INT] = 4,
        [DCMF_SIGNED_LONG_LONG] = 8, [DCMF_UNSIGNED_LONG_LONG] = 8, [DCMF_FLOAT] = 4,
        [DCMF_DOUBLE] = 8, [DCMF_LONG_DOUBLE] = sizeof(long double), [DCMF_LOGICAL] = 4,
        [DCMF_SINGLE_COMPLEX] = 8, [DCMF_DOUBLE_COMPLEX] = 16,
        [DCMF_LOC_2INT] = sizeof(struct loc_2int), [DCMF_LOC_SHORT_INT] = sizeof(struct loc_short_int),
        [DCMF_LOC_FLOAT_INT] = sizeof(struct loc_float_int),
        [DCMF_LOC_DOUBLE_INT] = sizeof(struct loc_double_int),
        [DCMF_LOC_2FLOAT] = sizeof(struct loc_2float), [DCMF_LOC_2DOUBLE] = sizeof(struct loc_2double)};
    return s[dt];
}

static int valid(int op, int dt)
{
    switch (cls_of(dt)) {
    case K_INT: return op >= DCMF_NOOP && op <= DCMF_BXOR;
    case K_FLT: return op >= DCMF_NOOP && op <= DCMF_LXOR;
    case K_LOGICAL: return op == DCMF_NOOP || (op >= DCMF_LAND && op <= DCMF_LXOR);
    case K_CPLX: return op == DCMF_NOOP || op == DCMF_SUM || op == DCMF_PROD;
    default: return op == DCMF_NOOP || op == DCMF_MAXLOC || op == DCMF_MINLOC;
    }
}

/* u: integers (sign-extended), f/fi: real and imaginary or value, idx: LOC index */
struct el {
    uint64_t u;
    long double f, fi, idx;
};

static int is_signed(int dt)
{
    return dt == DCMF_SIGNED_CHAR || dt == DCMF_SIGNED_SHORT || dt == DCMF_SIGNED_INT ||
           dt == DCMF_SIGNED_LONG_LONG;
}

static struct el load(int dt, const void *p)
{
    struct el e = {0};
    switch (dt) {
    case DCMF_SIGNED_CHAR: e.u = (uint64_t)(int64_t) * (const signed char *)p; break;
    case DCMF_UNSIGNED_CHAR: e.u = *(const unsigned char *)p; break;
    case DCMF_SIGNED_SHORT: e.u = (uint64_t)(int64_t) * (const short *)p; break;
    case DCMF_UNSIGNED_SHORT: e.u = *(const unsigned short *)p; break;
    case DCMF_SIGNED_INT: case DCMF_LOGICAL: e.u = (uint64_t)(int64_t) * (const int *)p; break;
    case DCMF_UNSIGNED_INT: e.u = *(const unsigned *)p; break;
    case DCMF_SIGNED_LONG_LONG: case DCMF_UNSIGNED_LONG_LONG: e.u = *(const uint64_t *)p; break;
    case DCMF_FLOAT: e.f = *(const float *)p; break;
    case DCMF_DOUBLE: e.f = *(const double *)p; break;
    case DCMF_LONG_DOUBLE: e.f = *(const long double *)p; break;
    case DCMF_SINGLE_COMPLEX: e.f = ((const float *)p)[0]; e.fi = ((const float *)p)[1]; break;
    case DCMF_DOUBLE_COMPLEX: e.f = ((const double *)p)[0]; e.fi = ((const double *)p)[1]; break;
    case DCMF_LOC_2INT: e.f = ((const struct loc_2int *)p)->v; e.idx = ((const struct loc_2int *)p)->i; break;
    case DCMF_LOC_SHORT_INT: e.f = ((const struct loc_short_int *)p)->v; e.idx = ((const struct loc_short_int *)p)->i; break;
    case DCMF_LOC_FLOAT_INT: e.f = ((const struct loc_float_int *)p)->v; e.idx = ((const struct loc_float_int *)p)->i; break;
    case DCMF_LOC_DOUBLE_INT: e.f = ((const struct loc_double_int *)p)->v; e.idx = ((const struct loc_double_int *)p)->i; break;
    case DCMF_LOC_2FLOAT: e.f = ((const struct loc_2float *)p)->v; e.idx = ((const struct loc_2float *)p)->i; break;
    case DCMF_LOC_2DOUBLE: e.f = ((const struct loc_2double *)p)->v; e.idx = ((const struct loc_2double *)p)->i; break;
    }
    return e;
}

/* Field by field into zeroed memory, so padding stays zero. */
static void store(int dt, void *p, struct el e)
{
    switch (dt) {
    case DCMF_SIGNED_CHAR: case DCMF_UNSIGNED_CHAR: *(uint8_t *)p = (uint8_t)e.u; break;
    case DCMF_SIGNED_SHORT: case DCMF_UNSIGNED_SHORT: *(uint16_t *)p = (uint16_t)e.u; break;
    case DCMF_SIGNED_INT: case DCMF_UNSIGNED_INT: case DCMF_LOGICAL: *(uint32_t *)p = (uint32_t)e.u; break;
    case DCMF_SIGNED_LONG_LONG: case DCMF_UNSIGNED_LONG_LONG: *(uint64_t *)p = e.u; break;
    case DCMF_FLOAT: *(float *)p = (float)e.f; break;
    case DCMF_DOUBLE: *(double *)p = (double)e.f; break;
    case DCMF_LONG_DOUBLE: *(long double *)p = e.f; break;
    case DCMF_SINGLE_COMPLEX: ((float *)p)[0] = (float)e.f; ((float *)p)[1] = (float)e.fi; break;
    case DCMF_DOUBLE_COMPLEX: ((double *)p)[0] = (double)e.f; ((double *)p)[1] = (double)e.fi; break;
    case DCMF_LOC_2INT: ((struct loc_2int *)p)->v = (int)e.f; ((struct loc_2int *)p)->i = (int)e.idx; break;
    case DCMF_LOC_SHORT_INT: ((struct loc_short_int *)p)->v = (short)e.f; ((struct loc_short_int *)p)->i = (int)e.idx; break;
    case DCMF_LOC_FLOAT_INT: ((struct loc_float_int *)p)->v = (float)e.f; ((struct loc_float_int *)p)->i = (int)e.idx; break;
    case DCMF_LOC_DOUBLE_INT: ((struct loc_double_int *)p)->v = (double)e.f; ((struct loc_double_int *)p)->i = (int)e.idx; break;
    case DCMF_LOC_2FLOAT: ((struct loc_2float *)p)->v = (float)e.f; ((struct loc_2float *)p)->i = (float)e.idx; break;
    case DCMF_LOC_2DOUBLE: ((struct loc_2double *)p)->v = (double)e.f; ((struct loc_2double *)p)->i = (double)e.idx; break;
    }
}

static int truth(int dt, struct el e)
{
    enum cls c = cls_of(dt);
    return c == K_INT || c == K_LOGICAL ? e.u != 0 : e.f != 0;
}

static struct el logical(int dt, int v)
{
    struct el e = {0};
    e.u = (uint64_t)v;
    e.f = v;
    (void)dt;
    return e;
}

static struct el combine(int op, int dt, struct el a, struct el b)
{
    int sg = is_signed(dt);
    enum cls c = cls_of(dt);
    switch (op) {
    case DCMF_NOOP: return a;
    case DCMF_LAND: return logical(dt, truth(dt, a) && truth(dt, b));
    case DCMF_LOR: return logical(dt, truth(dt, a) || truth(dt, b));
    case DCMF_LXOR: return logical(dt, truth(dt, a) != truth(dt, b));
    case DCMF_BAND: a.u &= b.u; return a;
    case DCMF_BOR: a.u |= b.u; return a;
    case DCMF_BXOR: a.u ^= b.u; return a;
    case DCMF_MAX: case DCMF_MIN: {
        int bgt = c == K_INT ? (sg ? (int64_t)b.u > (int64_t)a.u : b.u > a.u) : b.f > a.f;
        int blt = c == K_INT ? (sg ? (int64_t)b.u < (int64_t)a.u : b.u < a.u) : b.f < a.f;
        return (op == DCMF_MAX ? bgt : blt) ? b : a;
    }
    case DCMF_SUM:
        if (c == K_INT) {
            a.u += b.u;
        } else {
            a.f += b.f;
            a.fi += b.fi;
        }
        return a;
    case DCMF_PROD:
        if (c == K_INT) {
            a.u *= b.u;
        } else if (c == K_CPLX) {
            long double re = a.f * b.f - a.fi * b.fi, im = a.f * b.fi + a.fi * b.f;
            a.f = re;
            a.fi = im;
        } else {
            a.f *= b.f;
        }
        return a;
    case DCMF_MAXLOC: case DCMF_MINLOC: {
        int better = op == DCMF_MAXLOC ? b.f > a.f : b.f < a.f;
        return better || (b.f == a.f && b.idx < a.idx) ? b : a;
    }
    }
    return a;
}

/* ---- inputs ---- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static struct el gen(int op, int dt, size_t r, size_t i, unsigned salt)
{
    uint64_t h = mix(((uint64_t)r << 40) ^ ((uint64_t)i << 12) ^ ((uint64_t)dt << 6) ^
                     (uint64_t)op ^ ((uint64_t)salt << 56));
    struct el e = {0};
    enum cls c = cls_of(dt);
    if (op == DCMF_LAND || op == DCMF_LOR || op == DCMF_LXOR) {
        /* LAND: one rank (or none) holds a zero; LOR: one (or none) a non-zero */
        int hit = r == i % (np + 1);
        int nz = op == DCMF_LAND ? !hit : op == DCMF_LOR ? hit : (int)(h & 1);
        e.u = nz ? 1 + (h >> 8) % 100 : 0;
        e.f = nz ? (long double)((h >> 8) % 7) - 3.5L : 0;
        return e;
    }
    switch (c) {
    case K_INT:
        e.u = h;
        break;
    case K_LOGICAL:
        e.u = h & 1;
        break;
    case K_FLT:
        if (op == DCMF_PROD) {
            static const long double f[] = {1, -1, 2, 0.5L};
            e.f = f[h % 4];
        } else if (op == DCMF_SUM) {
            e.f = (long double)(h % 101) - 50;
        } else {
            e.f = ((long double)(h % 2001) - 1000) / 8;
        }
        break;
    case K_CPLX:
        if (op == DCMF_PROD) { /* units and 1 +- i: products stay exact */
            static const int re[] = {1, 0, -1, 0, 1, 1}, im[] = {0, 1, 0, -1, 1, -1};
            e.f = re[h % 6];
            e.fi = im[h % 6];
        } else {
            e.f = (long double)(h % 41) - 20;
            e.fi = (long double)((h >> 8) % 41) - 20;
        }
        break;
    case K_LOC:
        e.f = (long double)(h % 5); /* many ties */
        e.idx = (long double)((h >> 8) % 1000);
        break;
    }
    /* as the datatype holds it (integers truncated and sign-extended) */
    long double tmp[2] = {0, 0};
    store(dt, tmp, e);
    return load(dt, tmp);
}

static void fill(int op, int dt, size_t r, size_t count, unsigned salt, char *buf)
{
    size_t es = dt_size(dt);
    memset(buf, 0, count * es);
    for (size_t i = 0; i < count; i++)
        store(dt, buf + i * es, gen(op, dt, r, i, salt));
}

/* The result of the reduction over all ranks; NOOP keeps the root's input. */
static void reference(int op, int dt, size_t count, size_t root, unsigned salt, char *out)
{
    size_t es = dt_size(dt);
    memset(out, 0, count * es);
    for (size_t i = 0; i < count; i++) {
        struct el acc = gen(op, dt, op == DCMF_NOOP ? root : 0, i, salt);
        if (op != DCMF_NOOP)
            for (size_t r = 1; r < np; r++)
                acc = combine(op, dt, acc, gen(op, dt, r, i, salt));
        store(dt, out + i * es, acc);
    }
}

/* ---- the runs ---- */

static DCMF_Protocol_t arp;
static volatile int ndone;
static unsigned salt_ctr;

/* IEEE leaves the sign of a zero component of a complex product to the
 * order of association, which a tree and a loop legitimately differ in:
 * for complex PROD both sides get +0 before the byte comparison. */
static void canon_zero(int op, int dt, size_t count, char *buf)
{
    if (op != DCMF_PROD || cls_of(dt) != K_CPLX)
        return;
    for (size_t k = 0; k < 2 * count; k++) {
        if (dt == DCMF_SINGLE_COMPLEX && ((float *)buf)[k] == 0)
            ((float *)buf)[k] = 0.0f;
        if (dt == DCMF_DOUBLE_COMPLEX && ((double *)buf)[k] == 0)
            ((double *)buf)[k] = 0.0;
    }
}

static void check_bytes(const char *what, int op, int dt, size_t count, char *got, char *want)
{
    size_t es = dt_size(dt), n = count * es;
    canon_zero(op, dt, count, got);
    canon_zero(op, dt, count, want);
    for (size_t b = 0; b < n; b++)
        if (got[b] != want[b]) {
            struct el g = load(dt, got + b / es * es), w = load(dt, want + b / es * es);
            FAIL("%s op %d dt %d count %zu: element %zu byte %zu is %02x, expected %02x "
                 "(as numbers: %llx/%Lg/%Lg/%Lg, expected %llx/%Lg/%Lg/%Lg)",
                 what, op, dt, count, b / es, b % es, (unsigned char)got[b], (unsigned char)want[b],
                 (unsigned long long)g.u, g.f, g.fi, g.idx, (unsigned long long)w.u, w.f, w.fi, w.idx);
        }
}

static void run_pair(int op, int dt, size_t count, char *sbuf, char *rbuf, char *ref)
{
    static const DCMF_Consistency cons[] = {DCMF_MATCH_CONSISTENCY, DCMF_RELAXED_CONSISTENCY,
                                            DCMF_SEQUENTIAL_CONSISTENCY, DCMF_WEAK_CONSISTENCY};
    unsigned salt = ++salt_ctr;
    size_t es = dt_size(dt);
    DCMF_Request_t req;
    DCMF_Callback_t cb = {coll_count_done, (void *)&ndone};
    int inplace = count % 2 == 1;

    /* allreduce: root -1 (NOOP: rank 0's input) */
    reference(op, dt, count, 0, salt, ref);
    fill(op, dt, me, count, salt, sbuf);
    if (!inplace)
        memset(rbuf, 0xa5, count * es);
    char *out = inplace ? sbuf : rbuf;
    int target = ndone + 1;
    if (DCMF_GlobalAllreduce(&arp, &req, cb, cons[salt % 4], -1, sbuf, out, (unsigned)count,
                             (DCMF_Dt)dt, (DCMF_Op)op) != DCMF_SUCCESS)
        FAIL("allreduce op %d dt %d count %zu refused", op, dt, count);
    coll_wait_count(&ndone, target);
    check_bytes(inplace ? "allreduce (in place)" : "allreduce", op, dt, count, out, ref);

    /* reduce to a root that moves with the pair */
    size_t root = (salt * 7u) % np;
    reference(op, dt, count, root, salt, ref);
    fill(op, dt, me, count, salt, sbuf);
    memset(rbuf, 0xa5, count * es);
    target = ndone + 1;
    if (DCMF_GlobalAllreduce(&arp, &req, cb, DCMF_MATCH_CONSISTENCY, (int)root, sbuf, rbuf,
                             (unsigned)count, (DCMF_Dt)dt, (DCMF_Op)op) != DCMF_SUCCESS)
        FAIL("reduce op %d dt %d count %zu refused", op, dt, count);
    coll_wait_count(&ndone, target);
    if (me == root) {
        check_bytes("reduce", op, dt, count, rbuf, ref);
    } else {
        for (size_t b = 0; b < count * es; b++)
            if ((unsigned char)rbuf[b] != 0xa5)
                FAIL("reduce op %d dt %d: non-root rank's rbuf byte %zu was written", op, dt, b);
    }
    /* the input is untouched */
    memcpy(ref, sbuf, count * es);
    fill(op, dt, me, count, salt, sbuf);
    check_bytes("reduce input", op, dt, count, ref, sbuf);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    DCMF_Messager_initialize();
    me = DCMF_Messager_rank();
    np = DCMF_Messager_size();
    DCMF_GlobalAllreduce_Configuration_t c = {DCMF_DEFAULT_GLOBALALLREDUCE_PROTOCOL};
    if (DCMF_GlobalAllreduce_register(&arp, &c) != DCMF_SUCCESS)
        FAIL("register");
    size_t maxn = 100000, maxb = (maxn + 16) * 16; /* big counts go a little past maxn */
    char *sbuf = malloc(maxb), *rbuf = malloc(maxb), *ref = malloc(maxb);
    if (!sbuf || !rbuf || !ref)
        FAIL("out of memory");

    static const size_t full_counts[] = {1, 7, 1000}, quick_counts[] = {1, 7, 64};
    const size_t *counts = quick ? quick_counts : full_counts;
    int pairs = 0;
    for (int dt = DCMF_SIGNED_CHAR; dt < DCMF_USERDEFINED_DT; dt++)
        for (int op = DCMF_NOOP; op < DCMF_USERDEFINED_OP; op++) {
            if (!valid(op, dt))
                continue;
            pairs++;
            for (int k = 0; k < 3; k++)
                run_pair(op, dt, counts[k], sbuf, rbuf, ref);
        }

    /* large counts: several chunks, so the pipeline really runs */
    static const int big[][2] = {
        {DCMF_SUM, DCMF_SIGNED_INT}, {DCMF_SUM, DCMF_DOUBLE}, {DCMF_MAXLOC, DCMF_LOC_DOUBLE_INT},
        {DCMF_BXOR, DCMF_UNSIGNED_CHAR}, {DCMF_PROD, DCMF_DOUBLE_COMPLEX}, {DCMF_MIN, DCMF_LONG_DOUBLE},
        {DCMF_LOR, DCMF_LOGICAL}, {DCMF_MINLOC, DCMF_LOC_SHORT_INT}};
    size_t nbig = quick ? 2 : sizeof big / sizeof big[0];
    size_t bigcount = quick ? 20000 : maxn;
    for (size_t k = 0; k < nbig; k++)
        run_pair(big[k][0], big[k][1], bigcount + k, sbuf, rbuf, ref);

    if (me == 0)
        printf("dcmf_coll: %d (op, datatype) pairs on %zu ranks: ok\n", pairs, np);
    free(sbuf);
    free(rbuf);
    free(ref);
    DCMF_Messager_finalize();
    return 0;
}
