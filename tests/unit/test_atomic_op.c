/* Unit tests of the NIC's element-wise atomic arithmetic
 * (emunic/atomic_op.h): validity table against the Portals 4 rules and, for
 * every valid (op, type) pair, byte-exact agreement with a plain C
 * reference computed here. */
#include <complex.h>
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emunic/atomic_op.h"
#include "emunic/msg.h"

typedef long double ldbl;
typedef float _Complex cflt;
typedef double _Complex cdbl;
typedef long double _Complex cldbl;

#define MAXE 32 /* largest element: long double complex */
#define NVEC 7  /* elements in a vector operation */

/* ------------------------------------------------------------------ */
/* expected tables                                                     */

static const size_t expect_size[EMU_DTYPE_COUNT_] = {
    [EMU_INT8] = 1, [EMU_UINT8] = 1, [EMU_INT16] = 2, [EMU_UINT16] = 2,
    [EMU_INT32] = 4, [EMU_UINT32] = 4, [EMU_INT64] = 8, [EMU_UINT64] = 8,
    [EMU_FLOAT] = 4, [EMU_DOUBLE] = 8, [EMU_LONG_DOUBLE] = sizeof(ldbl),
    [EMU_FLOAT_COMPLEX] = 8, [EMU_DOUBLE_COMPLEX] = 16,
    [EMU_LONG_DOUBLE_COMPLEX] = sizeof(cldbl),
};

enum kind { K_INT, K_REAL, K_CPLX };

static enum kind kind_of(unsigned dt)
{
    if (dt <= EMU_UINT64)
        return K_INT;
    if (dt <= EMU_LONG_DOUBLE)
        return K_REAL;
    return K_CPLX;
}

/* Portals 4: arithmetic and (c)swap/cswap_ne on every type; ordering ops
 * (min/max, cswap_le/lt/ge/gt) not on complex; logical, bitwise and masked
 * swap on integers only. */
static int expect_valid(unsigned aop, unsigned dt)
{
    if (aop >= EMU_AOP_COUNT_ || dt >= EMU_DTYPE_COUNT_)
        return 0;
    enum kind k = kind_of(dt);
    switch (aop) {
    case EMU_AOP_SUM:
    case EMU_AOP_PROD:
    case EMU_AOP_SWAP:
    case EMU_AOP_CSWAP:
    case EMU_AOP_CSWAP_NE:
        return 1;
    case EMU_AOP_MIN:
    case EMU_AOP_MAX:
    case EMU_AOP_CSWAP_LE:
    case EMU_AOP_CSWAP_LT:
    case EMU_AOP_CSWAP_GE:
    case EMU_AOP_CSWAP_GT:
        return k != K_CPLX;
    case EMU_AOP_LOR:
    case EMU_AOP_LAND:
    case EMU_AOP_LXOR:
    case EMU_AOP_BOR:
    case EMU_AOP_BAND:
    case EMU_AOP_BXOR:
    case EMU_AOP_MSWAP:
        return k == K_INT;
    }
    return 0;
}

static int expect_swap(unsigned aop)
{
    return aop == EMU_AOP_SWAP || aop == EMU_AOP_CSWAP ||
           aop == EMU_AOP_CSWAP_NE || aop == EMU_AOP_CSWAP_LE ||
           aop == EMU_AOP_CSWAP_LT || aop == EMU_AOP_CSWAP_GE ||
           aop == EMU_AOP_CSWAP_GT || aop == EMU_AOP_MSWAP;
}

/* Bytes of an element that carry its value. x87 long double keeps 10 of
 * its 16 bytes; the rest is padding whose contents C leaves unspecified. */
#define LD_VALUE_BYTES (LDBL_MANT_DIG == 64 ? 10 : sizeof(ldbl))

static int value_byte(unsigned dt, size_t i)
{
    if (dt == EMU_LONG_DOUBLE)
        return i < LD_VALUE_BYTES;
    if (dt == EMU_LONG_DOUBLE_COMPLEX)
        return (i % sizeof(ldbl)) < LD_VALUE_BYTES;
    return 1;
}

static void assert_values_equal(unsigned dt, const unsigned char *got,
                                const unsigned char *want, size_t len,
                                unsigned aop)
{
    size_t es = expect_size[dt];
    for (size_t i = 0; i < len; i++) {
        if (!value_byte(dt, i % es))
            continue;
        if (got[i] != want[i])
            fail_msg("%s/%s: element %zu byte %zu: got 0x%02x want 0x%02x",
                     emu_aop_name(aop), emu_dtype_name(dt), i / es, i % es,
                     got[i], want[i]);
    }
}

/* ------------------------------------------------------------------ */
/* values                                                              */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* A small exactly-representable real, so sums and products are exact in
 * every floating type and NaN never appears. */
static double small_real(void)
{
    return (double)((int)(rnd() % 2001) - 1000) / 8.0;
}

static void fill_padding(unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        p[i] = (unsigned char)rnd();
}

/* One element of type dt at p. style: 0 random, 1 zero, 2 small. */
static void gen_elem(unsigned dt, unsigned char *p, int style)
{
    switch (kind_of(dt)) {
    case K_INT: {
        uint64_t v = rnd();
        if (style == 1)
            v = 0;
        else if (style == 2)
            v = rnd() % 7 - 3; /* small, sometimes negative */
        memcpy(p, &v, expect_size[dt]); /* little-endian truncation */
        break;
    }
    case K_REAL: {
        double d = style == 1 ? 0.0 : small_real();
        if (dt == EMU_FLOAT) {
            float f = (float)d;
            memcpy(p, &f, sizeof f);
        } else if (dt == EMU_DOUBLE) {
            memcpy(p, &d, sizeof d);
        } else {
            ldbl l = d;
            memcpy(p, &l, LD_VALUE_BYTES);
            fill_padding(p, LD_VALUE_BYTES, sizeof(ldbl));
        }
        break;
    }
    case K_CPLX: {
        double re = style == 1 ? 0.0 : small_real();
        double im = style == 1 ? 0.0 : small_real();
        if (dt == EMU_FLOAT_COMPLEX) {
            float f[2] = {(float)re, (float)im};
            memcpy(p, f, sizeof f);
        } else if (dt == EMU_DOUBLE_COMPLEX) {
            double d[2] = {re, im};
            memcpy(p, d, sizeof d);
        } else {
            ldbl r = re, i = im;
            memcpy(p, &r, LD_VALUE_BYTES);
            fill_padding(p, LD_VALUE_BYTES, sizeof(ldbl));
            memcpy(p + sizeof(ldbl), &i, LD_VALUE_BYTES);
            fill_padding(p, sizeof(ldbl) + LD_VALUE_BYTES, 2 * sizeof(ldbl));
        }
        break;
    }
    }
}

/* ------------------------------------------------------------------ */
/* reference computation                                               */

/* Integers: wrap-around arithmetic done in uint64_t, logical results 0/1. */
#define REF_INT(T)                                                           \
    do {                                                                     \
        T a, b, c = 0, r;                                                    \
        memcpy(&a, t, sizeof a);                                             \
        memcpy(&b, o, sizeof b);                                             \
        if (o2)                                                              \
            memcpy(&c, o2, sizeof c);                                        \
        uint64_t ua = (uint64_t)a, ub = (uint64_t)b, uc = (uint64_t)c;       \
        switch (aop) {                                                       \
        case EMU_AOP_MIN: r = a < b ? a : b; break;                          \
        case EMU_AOP_MAX: r = a > b ? a : b; break;                          \
        case EMU_AOP_SUM: r = (T)(ua + ub); break;                           \
        case EMU_AOP_PROD: r = (T)(ua * ub); break;                          \
        case EMU_AOP_LOR: r = (a != 0 || b != 0) ? 1 : 0; break;             \
        case EMU_AOP_LAND: r = (a != 0 && b != 0) ? 1 : 0; break;            \
        case EMU_AOP_LXOR: r = ((a != 0) != (b != 0)) ? 1 : 0; break;        \
        case EMU_AOP_BOR: r = (T)(ua | ub); break;                           \
        case EMU_AOP_BAND: r = (T)(ua & ub); break;                          \
        case EMU_AOP_BXOR: r = (T)(ua ^ ub); break;                          \
        case EMU_AOP_SWAP: r = b; break;                                     \
        case EMU_AOP_CSWAP: if (c != a) return 0; r = b; break;                \
        case EMU_AOP_CSWAP_NE: if (c == a) return 0; r = b; break;             \
        case EMU_AOP_CSWAP_LE: if (!(c <= a)) return 0; r = b; break;          \
        case EMU_AOP_CSWAP_LT: if (!(c < a)) return 0; r = b; break;           \
        case EMU_AOP_CSWAP_GE: if (!(c >= a)) return 0; r = b; break;          \
        case EMU_AOP_CSWAP_GT: if (!(c > a)) return 0; r = b; break;           \
        case EMU_AOP_MSWAP: r = (T)((ua & ~uc) | (ub & uc)); break;          \
        default: fail_msg("no integer reference for op %u", aop); return 0; \
        }                                                                    \
        memcpy(t, &r, sizeof r);                                             \
        return 1;                                                            \
    } while (0)

#define REF_REAL(T)                                                          \
    do {                                                                     \
        T a, b, c = 0, r;                                                    \
        memcpy(&a, t, sizeof a);                                             \
        memcpy(&b, o, sizeof b);                                             \
        if (o2)                                                              \
            memcpy(&c, o2, sizeof c);                                        \
        switch (aop) {                                                       \
        case EMU_AOP_MIN: r = a < b ? a : b; break;                          \
        case EMU_AOP_MAX: r = a > b ? a : b; break;                          \
        case EMU_AOP_SUM: r = a + b; break;                                  \
        case EMU_AOP_PROD: r = a * b; break;                                 \
        case EMU_AOP_SWAP: r = b; break;                                     \
        case EMU_AOP_CSWAP: if (!(c == a)) return 0; r = b; break;             \
        case EMU_AOP_CSWAP_NE: if (!(c != a)) return 0; r = b; break;          \
        case EMU_AOP_CSWAP_LE: if (!(c <= a)) return 0; r = b; break;          \
        case EMU_AOP_CSWAP_LT: if (!(c < a)) return 0; r = b; break;           \
        case EMU_AOP_CSWAP_GE: if (!(c >= a)) return 0; r = b; break;          \
        case EMU_AOP_CSWAP_GT: if (!(c > a)) return 0; r = b; break;           \
        default: fail_msg("no real reference for op %u", aop); return 0;    \
        }                                                                    \
        memcpy(t, &r, sizeof r);                                             \
        return 1;                                                            \
    } while (0)

#define REF_CPLX(T)                                                          \
    do {                                                                     \
        T a, b, c = 0, r;                                                    \
        memcpy(&a, t, sizeof a);                                             \
        memcpy(&b, o, sizeof b);                                             \
        if (o2)                                                              \
            memcpy(&c, o2, sizeof c);                                        \
        switch (aop) {                                                       \
        case EMU_AOP_SUM: r = a + b; break;                                  \
        case EMU_AOP_PROD: r = a * b; break;                                 \
        case EMU_AOP_SWAP: r = b; break;                                     \
        case EMU_AOP_CSWAP: if (!(c == a)) return 0; r = b; break;             \
        case EMU_AOP_CSWAP_NE: if (!(c != a)) return 0; r = b; break;          \
        default: fail_msg("no complex reference for op %u", aop); return 0; \
        }                                                                    \
        memcpy(t, &r, sizeof r);                                             \
        return 1;                                                            \
    } while (0)

/* One reference function per type: t = t op o (element at t), with
 * compare/mask o2. Returns 0 when a failed compare leaves the element
 * alone, 1 when it is written. Called through a table (one small function
 * per type keeps the compiler from fusing them into one huge switch). */
typedef int (*ref_fn)(unsigned aop, unsigned char *t, const unsigned char *o,
                      const unsigned char *o2);
#define DEF_REF(NAME, BODY, T)                                               \
    static int NAME(unsigned aop, unsigned char *t, const unsigned char *o,  \
                    const unsigned char *o2)                                 \
    {                                                                        \
        BODY(T);                                                             \
        return 0;                                                            \
    }
DEF_REF(ref_i8, REF_INT, int8_t)
DEF_REF(ref_u8, REF_INT, uint8_t)
DEF_REF(ref_i16, REF_INT, int16_t)
DEF_REF(ref_u16, REF_INT, uint16_t)
DEF_REF(ref_i32, REF_INT, int32_t)
DEF_REF(ref_u32, REF_INT, uint32_t)
DEF_REF(ref_i64, REF_INT, int64_t)
DEF_REF(ref_u64, REF_INT, uint64_t)
DEF_REF(ref_f, REF_REAL, float)
DEF_REF(ref_d, REF_REAL, double)
DEF_REF(ref_ld, REF_REAL, ldbl)
DEF_REF(ref_cf, REF_CPLX, cflt)
DEF_REF(ref_cd, REF_CPLX, cdbl)
DEF_REF(ref_cld, REF_CPLX, cldbl)

static ref_fn const ref_by_type[EMU_DTYPE_COUNT_] = {
    [EMU_INT8] = ref_i8, [EMU_UINT8] = ref_u8, [EMU_INT16] = ref_i16,
    [EMU_UINT16] = ref_u16, [EMU_INT32] = ref_i32, [EMU_UINT32] = ref_u32,
    [EMU_INT64] = ref_i64, [EMU_UINT64] = ref_u64, [EMU_FLOAT] = ref_f,
    [EMU_DOUBLE] = ref_d, [EMU_LONG_DOUBLE] = ref_ld,
    [EMU_FLOAT_COMPLEX] = ref_cf, [EMU_DOUBLE_COMPLEX] = ref_cd,
    [EMU_LONG_DOUBLE_COMPLEX] = ref_cld,
};

static int ref_elem(unsigned aop, unsigned dt, unsigned char *t,
                    const unsigned char *o, const unsigned char *o2)
{
    assert_true(dt < EMU_DTYPE_COUNT_);
    return ref_by_type[dt](aop, t, o, o2);
}

/* ------------------------------------------------------------------ */
/* tests                                                               */

static void test_dtype_sizes_and_names(void **state)
{
    (void)state;
    assert_int_equal(sizeof(ldbl), 16); /* the header documents x86-64 */
    for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
        assert_int_equal(emu_dtype_size(dt), expect_size[dt]);
        assert_non_null(emu_dtype_name(dt));
        for (unsigned d2 = 0; d2 < dt; d2++)
            assert_string_not_equal(emu_dtype_name(dt), emu_dtype_name(d2));
    }
    assert_int_equal(emu_dtype_size(EMU_LONG_DOUBLE_COMPLEX), EMU_OPERAND_MAX);
    assert_int_equal(emu_dtype_size(EMU_DTYPE_COUNT_), 0);
    assert_int_equal(emu_dtype_size(255), 0);
    assert_int_equal(emu_dtype_size(~0u), 0);
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_; aop++) {
        assert_non_null(emu_aop_name(aop));
        for (unsigned a2 = 0; a2 < aop; a2++)
            assert_string_not_equal(emu_aop_name(aop), emu_aop_name(a2));
    }
    assert_non_null(emu_aop_name(EMU_AOP_COUNT_));
    assert_non_null(emu_dtype_name(EMU_DTYPE_COUNT_));
    /* the ids follow Portals' ptl_op_t order */
    assert_int_equal(EMU_AOP_MIN, 0);
    assert_int_equal(EMU_AOP_SWAP, 10);
    assert_int_equal(EMU_AOP_MSWAP, 17);
}

static void test_validity_table(void **state)
{
    (void)state;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_ + 3; aop++) {
        assert_int_equal(!!emu_aop_is_swap(aop), expect_swap(aop));
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_ + 3; dt++) {
            int v = emu_aop_valid(aop, dt);
            if (!!v != expect_valid(aop, dt))
                fail_msg("emu_aop_valid(%s, %s) = %d, Portals 4 says %d",
                         emu_aop_name(aop), emu_dtype_name(dt), v,
                         expect_valid(aop, dt));
        }
    }
    assert_false(emu_aop_valid(~0u, EMU_INT32));
    assert_false(emu_aop_valid(EMU_AOP_SUM, ~0u));
    /* spot checks spelled out */
    assert_true(emu_aop_valid(EMU_AOP_CSWAP, EMU_DOUBLE_COMPLEX));
    assert_true(emu_aop_valid(EMU_AOP_CSWAP_LT, EMU_LONG_DOUBLE));
    assert_true(emu_aop_valid(EMU_AOP_PROD, EMU_LONG_DOUBLE_COMPLEX));
    assert_false(emu_aop_valid(EMU_AOP_MAX, EMU_FLOAT_COMPLEX));
    assert_false(emu_aop_valid(EMU_AOP_BXOR, EMU_DOUBLE));
    assert_false(emu_aop_valid(EMU_AOP_LAND, EMU_FLOAT));
    assert_false(emu_aop_valid(EMU_AOP_MSWAP, EMU_LONG_DOUBLE));
}

/* Buffers at odd addresses: target, operand, compare and fetch. */
struct bufs {
    unsigned char t_mem[NVEC * MAXE + 8], o_mem[NVEC * MAXE + 8];
    unsigned char c_mem[MAXE + 8], f_mem[NVEC * MAXE + 8];
    unsigned char *t, *o, *c, *f;
};

static void bufs_init(struct bufs *b, unsigned skew)
{
    b->t = b->t_mem + 1 + skew % 7;
    b->o = b->o_mem + 3;
    b->c = b->c_mem + 5;
    b->f = b->f_mem + 7 - skew % 7;
}

static void run_pair(unsigned aop, unsigned dt, unsigned trial)
{
    struct bufs b;
    bufs_init(&b, trial);
    size_t es = expect_size[dt];
    unsigned n = expect_swap(aop) ? 1 : NVEC;
    size_t len = n * es;
    for (unsigned i = 0; i < n; i++) {
        /* zeros and small values exercise the logical ops and overflow-free
         * products; random bits exercise wrap-around */
        gen_elem(dt, b.t + i * es, (int)((i + trial) % 3));
        gen_elem(dt, b.o + i * es, (int)((i + 2 * trial) % 3));
    }
    /* compare value: equal to the target on some trials */
    if (trial % 3 == 0) {
        memcpy(b.c, b.t, es);
        if (dt == EMU_LONG_DOUBLE)
            fill_padding(b.c, LD_VALUE_BYTES, es); /* same value, other padding */
    } else {
        gen_elem(dt, b.c, (int)(trial % 2) * 2);
    }

    unsigned char before[NVEC * MAXE], want[NVEC * MAXE];
    int wrote[NVEC];
    memcpy(before, b.t, len);
    memcpy(want, b.t, len);
    for (unsigned i = 0; i < n; i++)
        wrote[i] = ref_elem(aop, dt, want + i * es, b.o + i * es, b.c);

    memset(b.f_mem, 0xcd, sizeof b.f_mem);
    int rc = emu_atomic_apply(aop, dt, b.t, b.o, b.c, len,
                              trial % 2 ? b.f : NULL);
    if (rc != 0)
        fail_msg("%s/%s: apply returned %d", emu_aop_name(aop),
                 emu_dtype_name(dt), rc);
    if (trial % 2) {
        /* fetch gets the old bytes, all of them, and nothing more */
        assert_memory_equal(b.f, before, len);
        assert_int_equal(b.f[len], 0xcd);
        assert_int_equal(b.f[-1], 0xcd);
    }
    for (unsigned i = 0; i < n; i++) {
        if (wrote[i])
            assert_values_equal(dt, b.t + i * es, want + i * es, es, aop);
        else /* failed compare: the value is untouched (for the integer,
              * float and double types that is every byte) */
            assert_values_equal(dt, b.t + i * es, before + i * es, es, aop);
    }
}

static void test_apply_matches_reference(void **state)
{
    (void)state;
    unsigned pairs = 0;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_; aop++)
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
            if (!expect_valid(aop, dt))
                continue;
            pairs++;
            for (unsigned trial = 0; trial < 60; trial++)
                run_pair(aop, dt, trial);
        }
    /* 5 ops on 14 types, 6 ordering ops on 11, 7 integer-only on 8 */
    assert_int_equal(pairs, 5 * 14 + 6 * 11 + 7 * 8);
}

/* Target bytes around the operated range are never written. */
static void test_apply_stays_in_range(void **state)
{
    (void)state;
    for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
        size_t es = expect_size[dt];
        unsigned char t[NVEC * MAXE + 2 * MAXE], o[NVEC * MAXE];
        for (unsigned i = 0; i < NVEC; i++)
            gen_elem(dt, o + i * es, 2);
        memset(t, 0x5a, sizeof t);
        for (unsigned i = 0; i < 3; i++)
            gen_elem(dt, t + MAXE + i * es, 2);
        assert_int_equal(emu_atomic_apply(EMU_AOP_SUM, dt, t + MAXE, o, NULL,
                                          3 * es, NULL), 0);
        for (size_t i = 0; i < MAXE; i++)
            assert_int_equal(t[i], 0x5a);
        for (size_t i = MAXE + 3 * es; i < sizeof t; i++)
            assert_int_equal(t[i], 0x5a);
    }
}

static void test_invalid_pairs_untouched(void **state)
{
    (void)state;
    unsigned invalid = 0;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_ + 2; aop++)
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_ + 2; dt++) {
            if (expect_valid(aop, dt))
                continue;
            invalid++;
            unsigned char t[MAXE], o[MAXE], c[MAXE], f[MAXE], t0[MAXE], f0[MAXE];
            for (unsigned i = 0; i < MAXE; i++) {
                t[i] = (unsigned char)rnd();
                o[i] = (unsigned char)rnd();
                c[i] = (unsigned char)rnd();
                f[i] = (unsigned char)rnd();
            }
            memcpy(t0, t, sizeof t);
            memcpy(f0, f, sizeof f);
            size_t len = dt < EMU_DTYPE_COUNT_ ? expect_size[dt] : 8;
            assert_int_equal(emu_atomic_apply(aop, dt, t, o, c, len, f), -1);
            assert_memory_equal(t, t0, sizeof t);
            assert_memory_equal(f, f0, sizeof f);
        }
    assert_true(invalid > 0);
}

static void test_bad_length(void **state)
{
    (void)state;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_; aop++)
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
            if (!expect_valid(aop, dt))
                continue;
            size_t es = expect_size[dt];
            unsigned char t[4 * MAXE], o[4 * MAXE], c[MAXE], t0[4 * MAXE];
            for (unsigned i = 0; i < 4; i++) {
                gen_elem(dt, t + i * es, 2);
                gen_elem(dt, o + i * es, 2);
            }
            gen_elem(dt, c, 2);
            memcpy(t0, t, sizeof t);
            /* not a whole number of elements */
            if (es > 1) {
                size_t lens[] = {1, es - 1, es + 1, 2 * es + es / 2};
                for (unsigned k = 0; k < 4; k++) {
                    assert_int_equal(emu_atomic_apply(aop, dt, t, o, c, lens[k], NULL), -1);
                    assert_memory_equal(t, t0, sizeof t);
                }
            }
            /* the conditional swaps: exactly one element (a plain swap
             * may cover several, as PTL_SWAP does) */
            if (expect_swap(aop) && aop != EMU_AOP_SWAP) {
                assert_int_equal(emu_atomic_apply(aop, dt, t, o, c, 2 * es, NULL), -1);
                assert_memory_equal(t, t0, sizeof t);
                assert_int_equal(emu_atomic_apply(aop, dt, t, o, c, 4 * es, NULL), -1);
                assert_memory_equal(t, t0, sizeof t);
            }
        }
}

/* Hand-written cases, independent of the generic reference. */
static void test_known_values(void **state)
{
    (void)state;
    /* int8 wrap-around and signed ordering */
    int8_t t8[4] = {127, -128, -5, 0}, o8[4] = {1, -1, 3, -7};
    assert_int_equal(emu_atomic_apply(EMU_AOP_SUM, EMU_INT8, t8, o8, NULL, 4, NULL), 0);
    assert_int_equal(t8[0], -128);
    assert_int_equal(t8[1], 127);
    assert_int_equal(t8[2], -2);
    assert_int_equal(t8[3], -7);
    int8_t m8[2] = {-5, 3}, n8[2] = {2, -9};
    assert_int_equal(emu_atomic_apply(EMU_AOP_MIN, EMU_INT8, m8, n8, NULL, 2, NULL), 0);
    assert_int_equal(m8[0], -5);
    assert_int_equal(m8[1], -9);
    uint8_t u8[2] = {250, 3}, v8[2] = {2, 200};
    assert_int_equal(emu_atomic_apply(EMU_AOP_MAX, EMU_UINT8, u8, v8, NULL, 2, NULL), 0);
    assert_int_equal(u8[0], 250);
    assert_int_equal(u8[1], 200);

    /* int32 product that overflows (UB in naive signed C) */
    int32_t p32 = 0x40000000, q32 = 4;
    assert_int_equal(emu_atomic_apply(EMU_AOP_PROD, EMU_INT32, &p32, &q32, NULL, 4, NULL), 0);
    assert_int_equal(p32, 0);
    int64_t p64 = INT64_MAX, q64 = 2;
    assert_int_equal(emu_atomic_apply(EMU_AOP_PROD, EMU_INT64, &p64, &q64, NULL, 8, NULL), 0);
    assert_int_equal(p64, -2);
    uint16_t p16 = 0xffff, q16 = 0xffff;
    assert_int_equal(emu_atomic_apply(EMU_AOP_PROD, EMU_UINT16, &p16, &q16, NULL, 2, NULL), 0);
    assert_int_equal(p16, 1);

    /* logical ops give 0/1 */
    uint32_t l[4] = {0, 0, 7, 9}, lo[4] = {0, 5, 0, 1};
    uint32_t l2[4];
    memcpy(l2, l, sizeof l);
    assert_int_equal(emu_atomic_apply(EMU_AOP_LOR, EMU_UINT32, l2, lo, NULL, 16, NULL), 0);
    assert_int_equal(l2[0], 0);
    assert_int_equal(l2[1], 1);
    assert_int_equal(l2[2], 1);
    assert_int_equal(l2[3], 1);
    memcpy(l2, l, sizeof l);
    assert_int_equal(emu_atomic_apply(EMU_AOP_LAND, EMU_UINT32, l2, lo, NULL, 16, NULL), 0);
    assert_int_equal(l2[0], 0);
    assert_int_equal(l2[1], 0);
    assert_int_equal(l2[2], 0);
    assert_int_equal(l2[3], 1);
    memcpy(l2, l, sizeof l);
    assert_int_equal(emu_atomic_apply(EMU_AOP_LXOR, EMU_UINT32, l2, lo, NULL, 16, NULL), 0);
    assert_int_equal(l2[0], 0);
    assert_int_equal(l2[1], 1);
    assert_int_equal(l2[2], 1);
    assert_int_equal(l2[3], 0);

    /* masked swap */
    uint64_t mt = 0x1111222233334444ull, mo = 0xaaaabbbbccccddddull,
             mm = 0x00ff00ff00ff00ffull, mf = 0;
    assert_int_equal(emu_atomic_apply(EMU_AOP_MSWAP, EMU_UINT64, &mt, &mo, &mm, 8, &mf), 0);
    assert_true(mt == 0x11aa22bb33cc44ddull);
    assert_true(mf == 0x1111222233334444ull);

    /* compare-and-swap: which operand is which */
    int32_t ct = 10, co = 99, cc = 10, cf = 0;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP, EMU_INT32, &ct, &co, &cc, 4, &cf), 0);
    assert_int_equal(ct, 99);
    assert_int_equal(cf, 10);
    cc = 10;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP, EMU_INT32, &ct, &co, &cc, 4, &cf), 0);
    assert_int_equal(ct, 99); /* 10 != 99: unchanged */
    assert_int_equal(cf, 99);
    /* CSWAP_LE: replace if compare <= target */
    ct = 5;
    co = -1;
    cc = 5;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP_LE, EMU_INT32, &ct, &co, &cc, 4, NULL), 0);
    assert_int_equal(ct, -1);
    cc = 0; /* 0 <= -1 is false */
    co = 7;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP_LE, EMU_INT32, &ct, &co, &cc, 4, NULL), 0);
    assert_int_equal(ct, -1);
    /* CSWAP_GT: replace if compare > target */
    cc = 0;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP_GT, EMU_INT32, &ct, &co, &cc, 4, NULL), 0);
    assert_int_equal(ct, 7);

    /* float equality is by value: -0.0 == +0.0 */
    float ft = -0.0f, fo = 3.5f, fc = 0.0f;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP, EMU_FLOAT, &ft, &fo, &fc, 4, NULL), 0);
    assert_true(ft == 3.5f);

    /* long double compare ignores padding bytes */
    unsigned char lt[16], lo2[16], lc[16];
    ldbl v = 1.25L, w = -8.5L;
    memset(lt, 0x11, 16);
    memset(lc, 0xee, 16);
    memset(lo2, 0x77, 16);
    memcpy(lt, &v, LD_VALUE_BYTES);
    memcpy(lc, &v, LD_VALUE_BYTES);
    memcpy(lo2, &w, LD_VALUE_BYTES);
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP, EMU_LONG_DOUBLE, lt, lo2, lc, 16, NULL), 0);
    ldbl got;
    memcpy(&got, lt, sizeof got);
    assert_true(got == -8.5L);

    /* complex product (1+2i)(3-1i) = 5+5i */
    cdbl za = 1.0 + 2.0 * I, zb = 3.0 - 1.0 * I;
    assert_int_equal(emu_atomic_apply(EMU_AOP_PROD, EMU_DOUBLE_COMPLEX, &za, &zb, NULL, 16, NULL), 0);
    assert_true(creal(za) == 5.0 && cimag(za) == 5.0);
    cldbl zl = 2.0L + 0.5L * I, zm = 2.0L + 0.5L * I, zn = -1.0L;
    assert_int_equal(emu_atomic_apply(EMU_AOP_CSWAP, EMU_LONG_DOUBLE_COMPLEX, &zl, &zn, &zm, 32, NULL), 0);
    assert_true(creall(zl) == -1.0L && cimagl(zl) == 0.0L);

    /* fetch with swap */
    double dt = 2.5, dop = -4.0, dfetch = 0;
    assert_int_equal(emu_atomic_apply(EMU_AOP_SWAP, EMU_DOUBLE, &dt, &dop, NULL, 8, &dfetch), 0);
    assert_true(dt == -4.0 && dfetch == 2.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_sizes_and_names),
        cmocka_unit_test(test_validity_table),
        cmocka_unit_test(test_apply_matches_reference),
        cmocka_unit_test(test_apply_stays_in_range),
        cmocka_unit_test(test_invalid_pairs_untouched),
        cmocka_unit_test(test_bad_length),
        cmocka_unit_test(test_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
