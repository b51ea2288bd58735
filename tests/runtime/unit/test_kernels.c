/* Unit tests of the ARMCI runtime's local kernels (runtime/core/kernels.h):
 * strided sections against a naive nested-loop reference with guard bytes
 * around every buffer, the accumulate arithmetic against plain C (values
 * chosen so floating point results are exact, compared byte by byte), and
 * the gop reductions and selections. */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "armci.h"
#include "kernels.h"
#include "message.h"

#define GUARD 64 /* bytes of known pattern on each side of a buffer */

/* ------------------------------------------------------------------ */
/* deterministic randomness                                            */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
    rng_state = s ? s : 0x9e3779b97f4a7c15ull;
}

static uint32_t rng_next(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static int rng_range(int lo, int hi) /* inclusive */
{
    return lo + (int)(rng_next() % (uint32_t)(hi - lo + 1));
}

static void fill_random(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)rng_next();
}

static unsigned char *xmalloc(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

/* ------------------------------------------------------------------ */
/* strided: shapes and the naive reference                            */

struct shape {
    int levels;
    int count[ARMCII_MAX_LEVELS + 1];
    int stride[ARMCII_MAX_LEVELS];
};

/* A valid random shape: small counts so nine dimensions stay small, and
 * a gap of 0..3 bytes above every block (0 makes the levels contiguous). */
static struct shape random_shape(int levels)
{
    struct shape sh = {.levels = levels};
    int hi = levels >= 4 ? 3 : 5;
    sh.count[0] = rng_range(1, 9);
    for (int k = 1; k <= levels; k++)
        sh.count[k] = rng_range(1, hi);
    for (int k = 0; k < levels; k++) {
        int block = k == 0 ? sh.count[0] : sh.stride[k - 1] * sh.count[k];
        sh.stride[k] = block + rng_range(0, 3);
    }
    return sh;
}

/* Bytes from base to one past the last byte of the section. */
static size_t shape_extent(const struct shape *sh)
{
    if (sh->levels == 0)
        return (size_t)sh->count[0];
    return (size_t)sh->stride[sh->levels - 1] * (size_t)sh->count[sh->levels];
}

/* Offsets of every run in order, by eight plain nested loops (levels that
 * are not used count once with stride 0). Returns the number of runs. */
static size_t ref_offsets(const struct shape *sh, size_t *offs)
{
    int c[ARMCII_MAX_LEVELS + 1];
    size_t st[ARMCII_MAX_LEVELS + 1] = {0};
    size_t n = 0;
    for (int k = 1; k <= ARMCII_MAX_LEVELS; k++) {
        c[k] = k <= sh->levels ? sh->count[k] : 1;
        st[k] = k <= sh->levels ? (size_t)sh->stride[k - 1] : 0;
    }
    _Static_assert(ARMCII_MAX_LEVELS == 8, "one loop per level below");
    for (int i8 = 0; i8 < c[8]; i8++)
        for (int i7 = 0; i7 < c[7]; i7++)
            for (int i6 = 0; i6 < c[6]; i6++)
                for (int i5 = 0; i5 < c[5]; i5++)
                    for (int i4 = 0; i4 < c[4]; i4++)
                        for (int i3 = 0; i3 < c[3]; i3++)
                            for (int i2 = 0; i2 < c[2]; i2++)
                                for (int i1 = 0; i1 < c[1]; i1++)
                                    offs[n++] = i1 * st[1] + i2 * st[2] + i3 * st[3] +
                                                i4 * st[4] + i5 * st[5] + i6 * st[6] +
                                                i7 * st[7] + i8 * st[8];
    return n;
}

static size_t ref_runs(const struct shape *sh)
{
    size_t n = 1;
    for (int k = 1; k <= sh->levels; k++)
        n *= (size_t)sh->count[k];
    return n;
}

static void set_ok(struct armcii_strided *s, const struct shape *sh)
{
    const char *why = NULL;
    int rc = armcii_strided_set(s, sh->levels, sh->stride, sh->count, &why);
    if (rc != 0)
        fail_msg("valid shape refused: %s", why ? why : "(no reason)");
}

/* A region: GUARD pattern bytes, the body, GUARD pattern bytes. */
struct region {
    unsigned char *raw;
    size_t len; /* body */
};

static struct region region_new(size_t len)
{
    struct region r = {xmalloc(len + 2 * GUARD), len};
    fill_random(r.raw, len + 2 * GUARD);
    return r;
}

static unsigned char *body(struct region r)
{
    return r.raw + GUARD;
}

static void assert_bytes_equal(const unsigned char *got, const unsigned char *want,
                               size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: byte %zu (%td from the body): got 0x%02x want 0x%02x",
                     what, i, (ptrdiff_t)i - GUARD, got[i], want[i]);
}

/* ------------------------------------------------------------------ */
/* strided: tests                                                     */

/* runs, bytes and every offset agree with the nested loops. */
static void test_strided_offsets(void **state)
{
    (void)state;
    rng_seed(11);
    for (int levels = 0; levels <= ARMCII_MAX_LEVELS; levels++) {
        for (int rep = 0; rep < 25; rep++) {
            struct shape sh = random_shape(levels);
            struct armcii_strided s;
            set_ok(&s, &sh);
            size_t runs = ref_runs(&sh);
            size_t *offs = malloc(runs * sizeof *offs);
            assert_non_null(offs);
            assert_int_equal(ref_offsets(&sh, offs), runs);
            assert_int_equal(armcii_strided_runs(&s), runs);
            assert_int_equal(armcii_strided_bytes(&s), runs * (size_t)sh.count[0]);
            for (size_t i = 0; i < runs; i++)
                assert_int_equal(armcii_strided_offset(&s, i), offs[i]);
            free(offs);
        }
    }
}

/* Pack [first, first+nruns) of the section in src; the packed buffer must
 * hold exactly the reference bytes and nothing else may change. */
static void check_pack(const struct shape *sh, size_t first, size_t nruns)
{
    struct armcii_strided s;
    set_ok(&s, sh);
    size_t runs = ref_runs(sh), len = (size_t)sh->count[0];
    size_t *offs = malloc((runs ? runs : 1) * sizeof *offs);
    assert_non_null(offs);
    ref_offsets(sh, offs);
    size_t take = first >= runs ? 0 : (nruns < runs - first ? nruns : runs - first);

    struct region src = region_new(shape_extent(sh));
    unsigned char *src_copy = xmalloc(src.len + 2 * GUARD);
    memcpy(src_copy, src.raw, src.len + 2 * GUARD);
    struct region out = region_new(runs * len);
    unsigned char *want = xmalloc(out.len + 2 * GUARD);
    memcpy(want, out.raw, out.len + 2 * GUARD);
    for (size_t r = 0; r < take; r++)
        memcpy(want + GUARD + r * len, body(src) + offs[first + r], len);

    assert_int_equal(armcii_pack(body(src), &s, first, nruns, body(out)), take * len);
    assert_bytes_equal(out.raw, want, out.len + 2 * GUARD, "pack: packed buffer");
    assert_bytes_equal(src.raw, src_copy, src.len + 2 * GUARD, "pack: source");
    free(offs), free(src.raw), free(src_copy), free(out.raw), free(want);
}

/* Unpack runs [first, first+nruns) from a packed buffer: the section's runs
 * get exactly those bytes; gaps, the other runs and the guards keep theirs. */
static void check_unpack(const struct shape *sh, size_t first, size_t nruns)
{
    struct armcii_strided s;
    set_ok(&s, sh);
    size_t runs = ref_runs(sh), len = (size_t)sh->count[0];
    size_t *offs = malloc((runs ? runs : 1) * sizeof *offs);
    assert_non_null(offs);
    ref_offsets(sh, offs);
    size_t take = first >= runs ? 0 : (nruns < runs - first ? nruns : runs - first);

    struct region in = region_new(take * len);
    struct region dst = region_new(shape_extent(sh));
    unsigned char *want = xmalloc(dst.len + 2 * GUARD);
    memcpy(want, dst.raw, dst.len + 2 * GUARD);
    for (size_t r = 0; r < take; r++)
        memcpy(want + GUARD + offs[first + r], body(in) + r * len, len);

    assert_int_equal(armcii_unpack(body(dst), &s, first, nruns, body(in)), take * len);
    assert_bytes_equal(dst.raw, want, dst.len + 2 * GUARD, "unpack: section");
    free(offs), free(in.raw), free(dst.raw), free(want);
}

static void test_pack_unpack_all_dims(void **state)
{
    (void)state;
    rng_seed(2024);
    for (int levels = 0; levels <= ARMCII_MAX_LEVELS; levels++) {
        for (int rep = 0; rep < 20; rep++) {
            struct shape sh = random_shape(levels);
            size_t runs = ref_runs(&sh);
            check_pack(&sh, 0, runs);
            check_unpack(&sh, 0, runs);
        }
    }
}

/* Partial ranges, including ones running past the end (clamped) and ones
 * starting at or after it (nothing copied). */
static void test_pack_unpack_partial(void **state)
{
    (void)state;
    rng_seed(77);
    for (int levels = 0; levels <= ARMCII_MAX_LEVELS; levels++) {
        for (int rep = 0; rep < 15; rep++) {
            struct shape sh = random_shape(levels);
            size_t runs = ref_runs(&sh);
            size_t first = (size_t)rng_range(0, (int)runs);
            size_t nruns = (size_t)rng_range(0, (int)(runs - first) + 2);
            check_pack(&sh, first, nruns);
            check_unpack(&sh, first, nruns);
        }
        struct shape sh = random_shape(levels);
        size_t runs = ref_runs(&sh);
        check_pack(&sh, runs, 1);
        check_unpack(&sh, runs + 5, 3);
        check_pack(&sh, runs - 1, SIZE_MAX); /* no overflow in the clamp */
        check_unpack(&sh, 0, 0);
    }
}

/* Packing in chunks and unpacking elsewhere reproduces the section. */
static void test_pack_chunks_roundtrip(void **state)
{
    (void)state;
    rng_seed(5);
    for (int levels = 1; levels <= ARMCII_MAX_LEVELS; levels++) {
        struct shape sh = random_shape(levels);
        struct armcii_strided s;
        set_ok(&s, &sh);
        size_t runs = ref_runs(&sh), len = (size_t)sh.count[0], ext = shape_extent(&sh);
        unsigned char *src = xmalloc(ext), *dst = xmalloc(ext), *buf = xmalloc(runs * len);
        fill_random(src, ext);
        memset(dst, 0, ext);
        size_t done = 0;
        while (done < runs) {
            size_t n = (size_t)rng_range(1, 4), want = n < runs - done ? n : runs - done;
            assert_int_equal(armcii_pack(src, &s, done, n, buf + done * len), want * len);
            done += want;
        }
        assert_int_equal(armcii_unpack(dst, &s, 0, runs, buf), runs * len);
        size_t *offs = malloc(runs * sizeof *offs);
        assert_non_null(offs);
        ref_offsets(&sh, offs);
        for (size_t r = 0; r < runs; r++)
            assert_memory_equal(dst + offs[r], src + offs[r], len);
        free(offs), free(src), free(dst), free(buf);
    }
}

/* Zero counts are valid and copy nothing. */
static void test_strided_empty(void **state)
{
    (void)state;
    struct shape a = {.levels = 2, .count = {0, 3, 2}, .stride = {4, 12}};
    struct shape b = {.levels = 3, .count = {8, 2, 0, 4}, .stride = {8, 16, 0}};
    struct shape c = {.levels = 0, .count = {0}};
    const struct shape *all[] = {&a, &b, &c};
    for (size_t i = 0; i < 3; i++) {
        struct armcii_strided s;
        set_ok(&s, all[i]);
        assert_int_equal(armcii_strided_bytes(&s), 0);
        check_pack(all[i], 0, 100);
        check_unpack(all[i], 0, 100);
    }
    struct armcii_strided s;
    set_ok(&s, &b);
    assert_int_equal(armcii_strided_runs(&s), 0);
    set_ok(&s, &a);
    assert_int_equal(armcii_strided_runs(&s), 6); /* product of count[1..] */
}

/* Only count[0..levels] and stride[0..levels-1] are read (ASan checks):
 * a 0-level section needs one count and no stride array. */
static void test_strided_reads_only_its_levels(void **state)
{
    (void)state;
    int *one = malloc(sizeof *one);
    assert_non_null(one);
    *one = 13;
    struct armcii_strided s;
    const char *why = NULL;
    assert_int_equal(armcii_strided_set(&s, 0, NULL, one, &why), 0);
    assert_int_equal(armcii_strided_runs(&s), 1);
    assert_int_equal(armcii_strided_bytes(&s), 13);
    assert_int_equal(armcii_strided_offset(&s, 0), 0);
    free(one);

    int *cnt = malloc(2 * sizeof *cnt), *str = malloc(sizeof *str);
    assert_non_null(cnt);
    assert_non_null(str);
    cnt[0] = 4, cnt[1] = 3, str[0] = 4; /* exactly contiguous is fine */
    assert_int_equal(armcii_strided_set(&s, 1, str, cnt, &why), 0);
    assert_int_equal(armcii_strided_bytes(&s), 12);
    assert_int_equal(armcii_strided_offset(&s, 2), 8);
    free(cnt), free(str);
}

struct bad_case {
    int levels;
    int use_stride, use_count; /* 0: pass NULL */
    int count[ARMCII_MAX_LEVELS + 1];
    int stride[ARMCII_MAX_LEVELS];
    const char *mention; /* *why must contain this */
};

static void test_strided_validation(void **state)
{
    (void)state;
    const struct bad_case cases[] = {
        {-1, 1, 1, {4}, {0}, "stride_levels < 0"},
        {9, 1, 1, {4, 1, 1, 1, 1, 1, 1, 1, 1}, {4, 4, 4, 4, 4, 4, 4, 4}, "stride_levels > 8"},
        {8, 1, 1, {1, 1, 1, 1, 1, 1, 1, 1, -2}, {1, 1, 1, 1, 1, 1, 1, 1}, "count[8] < 0"},
        {8, 1, 1, {1, 2, 2, 2, 2, 2, 2, 2, 2}, {1, 2, 4, 8, 16, 32, 64, 127},
         "stride[7] smaller than the block below it"},
        {1, 1, 0, {4, 2}, {4}, "count is NULL"},
        {2, 0, 1, {4, 2, 2}, {4, 8}, "stride is NULL"},
        {0, 0, 1, {-1}, {0}, "count[0] < 0"},
        {3, 1, 1, {4, 2, -1, 2}, {4, 8, 16}, "count[2] < 0"},
        {6, 1, 1, {1, 1, 1, 1, 1, 1, -3}, {1, 1, 1, 1, 1, 1}, "count[6] < 0"},
        {2, 1, 1, {4, 2, 2}, {4, -8}, "stride[1] < 0"},
        {6, 1, 1, {1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, -1}, "stride[5] < 0"},
        {1, 1, 1, {8, 2}, {7}, "stride[0]"},
        {2, 1, 1, {4, 3, 2}, {4, 11}, "stride[1] smaller than the block below it"},
        {3, 1, 1, {4, 3, 2, 2}, {5, 15, 29}, "stride[2] smaller than the block below it"},
        {6, 1, 1, {1, 2, 2, 2, 2, 2, 2}, {1, 2, 4, 8, 16, 31}, "stride[5] smaller than the block below it"},
        /* empty runs with zero strides: the run count alone overflows */
        {6, 1, 1, {0, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX}, {0, 0, 0, 0, 0, 0},
         "section larger than the address space"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct bad_case *c = &cases[i];
        struct armcii_strided s;
        const char *why = NULL;
        int rc = armcii_strided_set(&s, c->levels, c->use_stride ? c->stride : NULL,
                                    c->use_count ? c->count : NULL, &why);
        if (rc != -1 || !why || !strstr(why, c->mention))
            fail_msg("case %zu: rc %d why \"%s\", want -1 mentioning \"%s\"", i, rc,
                     why ? why : "(null)", c->mention);
    }
    /* the messages name the right index, not a neighbour */
    const char *why = NULL;
    struct armcii_strided s;
    int cnt[4] = {4, 2, 2, -1}, str[3] = {4, 8, 16};
    assert_int_equal(armcii_strided_set(&s, 3, str, cnt, &why), -1);
    assert_string_equal(why, "count[3] < 0");
    /* a NULL why is allowed */
    assert_int_equal(armcii_strided_set(&s, 9, str, cnt, NULL), -1);
}

/* ------------------------------------------------------------------ */
/* accumulate                                                          */

#define NACC 37

typedef float _Complex cflt;
typedef double _Complex cdbl;

/* C11's CMPLX/CMPLXF are missing from some compilers' view of glibc; a
 * complex is laid out as (re, im), so build it from the pair. */
static cflt mkcf(float re, float im)
{
    const float p[2] = {re, im};
    cflt z;
    memcpy(&z, p, sizeof z);
    return z;
}

static cdbl mkcd(double re, double im)
{
    const double p[2] = {re, im};
    cdbl z;
    memcpy(&z, p, sizeof z);
    return z;
}

/* Runs the kernel on copies placed at byte offsets doff/soff inside
 * guarded buffers; dst must end equal to want, src and guards untouched. */
static void check_acc_at(int type, int scale_only, const void *scale, const void *dst0,
                         const void *src0, const void *want, size_t bytes, size_t doff,
                         size_t soff)
{
    struct region d = region_new(bytes + doff), s = region_new(bytes + soff);
    memcpy(body(d) + doff, dst0, bytes);
    memcpy(body(s) + soff, src0, bytes);
    unsigned char *dwant = xmalloc(d.len + 2 * GUARD), *swant = xmalloc(s.len + 2 * GUARD);
    memcpy(dwant, d.raw, d.len + 2 * GUARD);
    memcpy(dwant + GUARD + doff, want, bytes);
    memcpy(swant, s.raw, s.len + 2 * GUARD);

    if (scale_only)
        armcii_scale(type, scale, body(d) + doff, body(s) + soff, bytes);
    else
        armcii_acc(type, scale, body(d) + doff, body(s) + soff, bytes);
    assert_bytes_equal(d.raw, dwant, d.len + 2 * GUARD, scale_only ? "scale: dst" : "acc: dst");
    assert_bytes_equal(s.raw, swant, s.len + 2 * GUARD, "acc: src");
    free(d.raw), free(s.raw), free(dwant), free(swant);
}

/* Aligned and a spread of unaligned placements of dst and src. */
static void check_acc(int type, int scale_only, const void *scale, const void *dst0,
                      const void *src0, const void *want, size_t bytes)
{
    static const size_t offs[][2] = {{0, 0}, {1, 0}, {0, 3}, {5, 7}, {2, 2}, {8, 4}};
    assert_int_equal(bytes % armcii_acc_elem_size(type), 0);
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++)
        check_acc_at(type, scale_only, scale, dst0, src0, want, bytes, offs[i][0], offs[i][1]);
}

static void test_acc_elem_size(void **state)
{
    (void)state;
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_INT), sizeof(int));
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_LNG), sizeof(long));
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_FLT), sizeof(float));
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_DBL), sizeof(double));
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_CPL), 2 * sizeof(float));
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_DCP), 2 * sizeof(double));
    assert_int_equal(armcii_acc_elem_size(-1), 0);
    assert_int_equal(armcii_acc_elem_size(ARMCI_ACC_DCP + 1), 0);
    assert_int_equal(armcii_acc_elem_size(INT_MAX), 0);
}

static void test_acc_int(void **state)
{
    (void)state;
    int d[NACC], s[NACC], want[NACC], want_sc[NACC], a = -3;
    for (int i = 0; i < NACC; i++) {
        d[i] = 3 * i - 50;
        s[i] = 7 * i - 100;
        want[i] = d[i] + a * s[i];
        want_sc[i] = a * s[i];
    }
    check_acc(ARMCI_ACC_INT, 0, &a, d, s, want, sizeof d);
    check_acc(ARMCI_ACC_INT, 1, &a, d, s, want_sc, sizeof d);
}

static void test_acc_long(void **state)
{
    (void)state;
    long d[NACC], s[NACC], want[NACC], want_sc[NACC], a = 5;
    for (int i = 0; i < NACC; i++) {
        d[i] = (long)i * -123456789L + 17;
        s[i] = (long)(i - 20) * 1000003L;
        want[i] = d[i] + a * s[i];
        want_sc[i] = a * s[i];
    }
    check_acc(ARMCI_ACC_LNG, 0, &a, d, s, want, sizeof d);
    check_acc(ARMCI_ACC_LNG, 1, &a, d, s, want_sc, sizeof d);
}

static void test_acc_float(void **state)
{
    (void)state;
    float d[NACC], s[NACC], want[NACC], want_sc[NACC], a = 2.5f;
    for (int i = 0; i < NACC; i++) {
        d[i] = (float)i * 0.25f;
        s[i] = (float)(i - 18) * 0.5f;
        want[i] = d[i] + a * s[i];
        want_sc[i] = a * s[i];
    }
    check_acc(ARMCI_ACC_FLT, 0, &a, d, s, want, sizeof d);
    check_acc(ARMCI_ACC_FLT, 1, &a, d, s, want_sc, sizeof d);
}

static void test_acc_double(void **state)
{
    (void)state;
    double d[NACC], s[NACC], want[NACC], want_sc[NACC], a = -1.5;
    for (int i = 0; i < NACC; i++) {
        d[i] = (double)(i * i) * 0.5;
        s[i] = (double)(i - 10) * 0.75;
        want[i] = d[i] + a * s[i];
        want_sc[i] = a * s[i];
    }
    check_acc(ARMCI_ACC_DBL, 0, &a, d, s, want, sizeof d);
    check_acc(ARMCI_ACC_DBL, 1, &a, d, s, want_sc, sizeof d);
}

/* The reference is C's own complex arithmetic. */
static void test_acc_complex_float(void **state)
{
    (void)state;
    const cflt scales[3] = {mkcf(2.0f, -0.5f), mkcf(1.0f, 1.0f), mkcf(0.0f, 3.0f)};
    for (size_t k = 0; k < 3; k++) {
        cflt d[NACC], s[NACC], want[NACC], want_sc[NACC], a = scales[k];
        for (int i = 0; i < NACC; i++) {
            d[i] = mkcf((float)i, (float)i * -0.5f);
            s[i] = mkcf((float)(i - 18) * 0.5f, (float)i * 0.25f);
            want[i] = d[i] + a * s[i];
            want_sc[i] = a * s[i];
        }
        check_acc(ARMCI_ACC_CPL, 0, &a, d, s, want, sizeof d);
        check_acc(ARMCI_ACC_CPL, 1, &a, d, s, want_sc, sizeof d);
    }
}

static void test_acc_complex_double(void **state)
{
    (void)state;
    const cdbl scales[3] = {mkcd(-1.5, 0.25), mkcd(1.0, 1.0), mkcd(0.5, 0.0)};
    for (size_t k = 0; k < 3; k++) {
        cdbl d[NACC], s[NACC], want[NACC], want_sc[NACC], a = scales[k];
        for (int i = 0; i < NACC; i++) {
            d[i] = mkcd((double)(3 * i), (double)(i - 7) * 0.125);
            s[i] = mkcd((double)i * 0.5, (double)(20 - i));
            want[i] = d[i] + a * s[i];
            want_sc[i] = a * s[i];
        }
        check_acc(ARMCI_ACC_DCP, 0, &a, d, s, want, sizeof d);
        check_acc(ARMCI_ACC_DCP, 1, &a, d, s, want_sc, sizeof d);
    }
}

/* Integer accumulate wraps like the NIC's sums (reference in unsigned). */
static void test_acc_int_wraps(void **state)
{
    (void)state;
    int d[2] = {INT_MAX, INT_MIN}, s[2] = {1, -1}, a = 1, want[2];
    want[0] = (int)((unsigned)INT_MAX + 1u);
    want[1] = (int)((unsigned)INT_MIN - 1u);
    check_acc(ARMCI_ACC_INT, 0, &a, d, s, want, sizeof d);
    long ld[1] = {LONG_MAX}, ls[1] = {2}, la = 3, lwant[1];
    lwant[0] = (long)((unsigned long)LONG_MAX + 6ul);
    check_acc(ARMCI_ACC_LNG, 0, &la, ld, ls, lwant, sizeof ld);
}

/* In place scaling (dst == src) and zero bytes. */
static void test_scale_in_place_and_empty(void **state)
{
    (void)state;
    double v[5] = {1, -2, 3.5, 0.25, -8}, a = 4;
    armcii_scale(ARMCI_ACC_DBL, &a, v, v, sizeof v);
    const double want[5] = {4, -8, 14, 1, -32};
    assert_memory_equal(v, want, sizeof v);
    armcii_acc(ARMCI_ACC_DBL, &a, v, v, 0);
    armcii_scale(ARMCI_ACC_DBL, &a, v, v, 0);
    assert_memory_equal(v, want, sizeof v);
}

/* An unknown type does nothing; neither does a trailing partial element. */
static void test_acc_unknown_type_untouched(void **state)
{
    (void)state;
    unsigned char d[64], s[64], keep[64];
    double a = 2;
    rng_seed(3);
    fill_random(d, sizeof d);
    fill_random(s, sizeof s);
    memcpy(keep, d, sizeof d);
    const int bad[] = {-1, ARMCI_ACC_DCP + 1, 1000};
    for (size_t i = 0; i < 3; i++) {
        armcii_acc(bad[i], &a, d, s, sizeof d);
        armcii_scale(bad[i], &a, d, s, sizeof d);
        assert_memory_equal(d, keep, sizeof d);
    }
    int id[2] = {10, 20}, is[2] = {1, 1}, ia = 2;
    armcii_acc(ARMCI_ACC_INT, &ia, id, is, sizeof(int) + 2);
    assert_int_equal(id[0], 12);
    assert_int_equal(id[1], 20);
}

static void test_scale_is_one(void **state)
{
    (void)state;
    int i1 = 1, i2 = 2, im = -1;
    long l1 = 1, l2 = 2;
    float f1 = 1.0f, f2 = 2.0f, fn = nextafterf(1.0f, 2.0f);
    double d1 = 1.0, d2 = 2.0, dn = nextafter(1.0, 0.0);
    float c1[2] = {1, 0}, c2[2] = {2, 0}, c11[2] = {1, 1};
    double z1[2] = {1, 0}, z2[2] = {2, 0}, z11[2] = {1, 1}, zi[2] = {0, 1};
    assert_true(armcii_scale_is_one(ARMCI_ACC_INT, &i1));
    assert_false(armcii_scale_is_one(ARMCI_ACC_INT, &i2));
    assert_false(armcii_scale_is_one(ARMCI_ACC_INT, &im));
    assert_true(armcii_scale_is_one(ARMCI_ACC_LNG, &l1));
    assert_false(armcii_scale_is_one(ARMCI_ACC_LNG, &l2));
    assert_true(armcii_scale_is_one(ARMCI_ACC_FLT, &f1));
    assert_false(armcii_scale_is_one(ARMCI_ACC_FLT, &f2));
    assert_false(armcii_scale_is_one(ARMCI_ACC_FLT, &fn));
    assert_true(armcii_scale_is_one(ARMCI_ACC_DBL, &d1));
    assert_false(armcii_scale_is_one(ARMCI_ACC_DBL, &d2));
    assert_false(armcii_scale_is_one(ARMCI_ACC_DBL, &dn));
    assert_true(armcii_scale_is_one(ARMCI_ACC_CPL, c1));
    assert_false(armcii_scale_is_one(ARMCI_ACC_CPL, c2));
    assert_false(armcii_scale_is_one(ARMCI_ACC_CPL, c11));
    assert_true(armcii_scale_is_one(ARMCI_ACC_DCP, z1));
    assert_false(armcii_scale_is_one(ARMCI_ACC_DCP, z2));
    assert_false(armcii_scale_is_one(ARMCI_ACC_DCP, z11));
    assert_false(armcii_scale_is_one(ARMCI_ACC_DCP, zi));
    assert_false(armcii_scale_is_one(-1, &d1));
    /* unaligned scale */
    unsigned char raw[sizeof(double) + 1];
    memcpy(raw + 1, &d1, sizeof d1);
    assert_true(armcii_scale_is_one(ARMCI_ACC_DBL, raw + 1));
}

/* ------------------------------------------------------------------ */
/* reductions                                                          */

/* One name per operation (the aliases are checked separately). */
static const char *const all_ops[] = {"+", "*", "max", "min", "absmax", "absmin", "or", "and", "&&", "||"};
#define NOPS 10
#define NRED 11

static int op_is_bitwise(const char *op) /* integer types only */
{
    return !strcmp(op, "or") || !strcmp(op, "and") || !strcmp(op, "&&") || !strcmp(op, "||");
}

/* The expected x (op) y, in plain C; values never overflow. */
#define REF_INT(T, ABS)                                                  \
    static T ref_##T##_op(const char *op, T x, T y)                      \
    {                                                                    \
        if (!strcmp(op, "+")) return x + y;                              \
        if (!strcmp(op, "*")) return x * y;                              \
        if (!strcmp(op, "max")) return x > y ? x : y;                    \
        if (!strcmp(op, "min")) return x < y ? x : y;                    \
        if (!strcmp(op, "absmax")) return ABS(x) > ABS(y) ? ABS(x) : ABS(y); \
        if (!strcmp(op, "absmin")) return ABS(x) < ABS(y) ? ABS(x) : ABS(y); \
        if (!strcmp(op, "or")) return x | y;                             \
        if (!strcmp(op, "and")) return x & y;                            \
        if (!strcmp(op, "&&")) return x && y;                            \
        if (!strcmp(op, "||")) return x || y;                            \
        fail_msg("no reference for %s", op);                             \
        return 0;                                                        \
    }
#define REF_FP(T, ABS)                                                   \
    static T ref_##T##_op(const char *op, T x, T y)                      \
    {                                                                    \
        if (!strcmp(op, "+")) return x + y;                              \
        if (!strcmp(op, "*")) return x * y;                              \
        if (!strcmp(op, "max")) return x > y ? x : y;                    \
        if (!strcmp(op, "min")) return x < y ? x : y;                    \
        if (!strcmp(op, "absmax")) return ABS(x) > ABS(y) ? ABS(x) : ABS(y); \
        if (!strcmp(op, "absmin")) return ABS(x) < ABS(y) ? ABS(x) : ABS(y); \
        fail_msg("no reference for %s", op);                             \
        return 0;                                                        \
    }
typedef long long llong;
REF_INT(int, abs)
REF_INT(long, labs)
REF_INT(llong, llabs)
REF_FP(float, fabsf)
REF_FP(double, fabs)

/* For one type: inout x and in y (NRED elements plus one guard element
 * that must survive), expected from ref. */
#define CHECK_REDUCE(T, TYPE, XS, YS)                                          \
    do {                                                                       \
        for (int k = 0; k < NOPS; k++) {                                       \
            const char *op = all_ops[k];                                       \
            int code = armcii_reduce_op(op, TYPE);                             \
            if (op_is_bitwise(op) && (TYPE == ARMCI_FLOAT || TYPE == ARMCI_DOUBLE)) { \
                assert_int_equal(code, -1);                                    \
                continue;                                                      \
            }                                                                  \
            assert_true(code >= 0);                                            \
            T x[NRED + 1], y[NRED + 1], want[NRED + 1];                        \
            memcpy(x, XS, sizeof x);                                           \
            memcpy(y, YS, sizeof y);                                           \
            for (int i = 0; i < NRED; i++)                                     \
                want[i] = ref_##T##_op(op, x[i], y[i]);                        \
            want[NRED] = x[NRED];                                              \
            armcii_reduce(code, TYPE, x, y, NRED);                             \
            if (memcmp(x, want, sizeof x) != 0)                                \
                fail_msg("reduce %s on " #T " differs from the reference", op); \
            assert_memory_equal(y, YS, sizeof y);                              \
        }                                                                      \
    } while (0)

static void test_type_size(void **state)
{
    (void)state;
    assert_int_equal(armcii_type_size(ARMCI_INT), sizeof(int));
    assert_int_equal(armcii_type_size(ARMCI_LONG), sizeof(long));
    assert_int_equal(armcii_type_size(ARMCI_LONG_LONG), sizeof(long long));
    assert_int_equal(armcii_type_size(ARMCI_FLOAT), sizeof(float));
    assert_int_equal(armcii_type_size(ARMCI_DOUBLE), sizeof(double));
    assert_int_equal(armcii_type_size(-1), 0);
    assert_int_equal(armcii_type_size(0), 0); /* ARMCI-MPI's numbering: canon first */
    assert_int_equal(armcii_type_size(-100), 0);
    /* GA's ARMCI values, and ARMCI-MPI's 0..4 mapped onto them */
    assert_int_equal(ARMCI_INT, -99);
    assert_int_equal(ARMCI_LONG, -101);
    assert_int_equal(ARMCI_LONG_LONG, -102);
    assert_int_equal(ARMCI_FLOAT, -306);
    assert_int_equal(ARMCI_DOUBLE, -307);
    const int ga[] = {ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE};
    for (int t = 0; t < 5; t++) {
        assert_int_equal(armcii_type_canon(t), ga[t]);
        assert_int_equal(armcii_type_canon(ga[t]), ga[t]);
    }
    assert_int_equal(armcii_type_canon(5), 5);
    assert_int_equal(armcii_type_canon(-1), -1);
}

static void test_reduce_int_types(void **state)
{
    (void)state;
    static const int xi[NRED + 1] = {5, -3, 0, 7, -8, 100, -100, 1, -1, 42, 0x0f0f, 777};
    static const int yi[NRED + 1] = {-5, 3, 0, -9, 8, -101, 99, 1, 2, -42, 0x00ff, 999};
    CHECK_REDUCE(int, ARMCI_INT, xi, yi);
    static const long xl[NRED + 1] = {5, -3, 0, 7000000000L, -8, 100, -100, 1, -1, 42, 0xf0f0f0f0L, 7};
    static const long yl[NRED + 1] = {-5, 3, 0, -9, 8, -101, 99, 1, 2, -42, 0x0ff00ffL, 9};
    CHECK_REDUCE(long, ARMCI_LONG, xl, yl);
    static const llong xq[NRED + 1] = {5, -3, 0, -7000000000LL, -8, 100, -100, 1, -1, 42, 0x12345678LL, 7};
    static const llong yq[NRED + 1] = {-5, 3, 0, 9, 8, -101, 99, 1, 2, -42, -0x0ff00ffLL, 9};
    CHECK_REDUCE(llong, ARMCI_LONG_LONG, xq, yq);
}

static void test_reduce_fp_types(void **state)
{
    (void)state;
    static const float xf[NRED + 1] = {0.5f, -1.5f, 0, 3.25f, -8, 100.5f, -100, 1, -1, 42, 9, 7};
    static const float yf[NRED + 1] = {-0.5f, 2.5f, 0, -9, 8.75f, -101, 99, 1, 2, -42, -10, 9};
    CHECK_REDUCE(float, ARMCI_FLOAT, xf, yf);
    static const double xd[NRED + 1] = {0.5, -1.5, 0, 3.25, -8, 1e300, -100, 1, -1, 42, 9, 7};
    static const double yd[NRED + 1] = {-0.5, 2.5, 0, -9, 8.75, -1e-300, 99, 1, 2, -42, -10, 9};
    CHECK_REDUCE(double, ARMCI_DOUBLE, xd, yd);
}

/* Opcodes: distinct per op, and only for known names and types. */
static void test_reduce_op_codes(void **state)
{
    (void)state;
    const int types[] = {ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE};
    for (size_t t = 0; t < 5; t++) {
        int codes[NOPS];
        for (int k = 0; k < NOPS; k++) {
            codes[k] = armcii_reduce_op(all_ops[k], types[t]);
            for (int j = 0; j < k; j++)
                if (codes[k] >= 0 && codes[k] == codes[j])
                    fail_msg("ops %s and %s share code %d", all_ops[j], all_ops[k], codes[k]);
        }
    }
    const char *unknown[] = {"", "sum", "MAX", "ma", "mi", "abs", "absma", "xor", "Or", "a", "l", "b", "o", "-"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        if (armcii_reduce_op(unknown[i], ARMCI_INT) != -1)
            fail_msg("\"%s\" accepted", unknown[i]);
    assert_int_equal(armcii_reduce_op(NULL, ARMCI_INT), -1);
    assert_int_equal(armcii_reduce_op("+", -1), -1);
    assert_int_equal(armcii_reduce_op("+", 0), -1); /* not canonicalised */
    assert_int_equal(armcii_reduce_op("or", ARMCI_FLOAT), -1);
    assert_int_equal(armcii_reduce_op("and", ARMCI_DOUBLE), -1);
    assert_int_equal(armcii_reduce_op("&&", ARMCI_DOUBLE), -1);
    assert_int_equal(armcii_reduce_op("|", ARMCI_FLOAT), -1);
    assert_true(armcii_reduce_op("and", ARMCI_LONG_LONG) >= 0);
}

/* GA's ARMCI matches by prefix, first name of its list that fits. */
static void test_reduce_op_prefix(void **state)
{
    (void)state;
    static const char *const alias[][2] = {
        {"+=", "+"},        {"++", "+"},        {"plus", NULL},      {"*x", "*"},
        {"maxval", "max"},  {"max ", "max"},    {"minimum", "min"},  {"absmax2", "absmax"},
        {"absminus", "absmin"}, {"orr", "or"},  {"|", "or"},         {"bor", "or"},
        {"||x", "||"},      {"lor", "||"},      {"&", "and"},        {"band", "and"},
        {"&&", "&&"},       {"land", "&&"},     {"and", "and"},      {"andor", "and"},
    };
    const int types[] = {ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE};
    for (size_t t = 0; t < 5; t++)
        for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
            int got = armcii_reduce_op(alias[i][0], types[t]);
            int want = alias[i][1] ? armcii_reduce_op(alias[i][1], types[t]) : -1;
            if (got != want)
                fail_msg("\"%s\" on type %d: code %d, want %d (as \"%s\")", alias[i][0], types[t],
                         got, want, alias[i][1] ? alias[i][1] : "unknown");
        }
    /* the abs ops are told apart from max and min */
    assert_true(armcii_reduce_op_is_abs(armcii_reduce_op("absmax", ARMCI_DOUBLE)));
    assert_true(armcii_reduce_op_is_abs(armcii_reduce_op("absmin", ARMCI_INT)));
    assert_false(armcii_reduce_op_is_abs(armcii_reduce_op("max", ARMCI_INT)));
    assert_false(armcii_reduce_op_is_abs(armcii_reduce_op("+", ARMCI_INT)));
    /* logical results are 0 or 1, bitwise ones are not */
    int a[2] = {6, 0}, b[2] = {3, 5};
    armcii_reduce(armcii_reduce_op("&&", ARMCI_INT), ARMCI_INT, a, b, 2);
    assert_int_equal(a[0], 1);
    assert_int_equal(a[1], 0);
    int c[2] = {6, 0};
    armcii_reduce(armcii_reduce_op("||", ARMCI_INT), ARMCI_INT, c, b, 2);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[1], 1);
    int d[2] = {6, 0};
    armcii_reduce(armcii_reduce_op("&", ARMCI_INT), ARMCI_INT, d, b, 2);
    assert_int_equal(d[0], 2);
    assert_int_equal(d[1], 0);
}

/* Unaligned buffers and n = 0. */
static void test_reduce_unaligned_and_empty(void **state)
{
    (void)state;
    unsigned char a[1 + 3 * sizeof(double)], b[3 + 3 * sizeof(double)];
    const double x[3] = {1.5, -2, 4}, y[3] = {0.25, 8, -4}, want[3] = {1.75, 6, 0};
    memcpy(a + 1, x, sizeof x);
    memcpy(b + 3, y, sizeof y);
    armcii_reduce(armcii_reduce_op("+", ARMCI_DOUBLE), ARMCI_DOUBLE, a + 1, b + 3, 3);
    assert_memory_equal(a + 1, want, sizeof want);
    armcii_reduce(armcii_reduce_op("*", ARMCI_DOUBLE), ARMCI_DOUBLE, a + 1, b + 3, 0);
    assert_memory_equal(a + 1, want, sizeof want);
}

/* ------------------------------------------------------------------ */
/* selection                                                           */

#define CHECK_SEL(T, TYPE, lo, hi)                                             \
    do {                                                                       \
        T l[2] = {lo, 0}, h[2] = {hi, 0}, t[2] = {lo, 99};                     \
        assert_int_equal(armcii_sel_better("max", TYPE, l, h), 1);             \
        assert_int_equal(armcii_sel_better("max", TYPE, h, l), 0);             \
        assert_int_equal(armcii_sel_better("min", TYPE, h, l), 1);             \
        assert_int_equal(armcii_sel_better("min", TYPE, l, h), 0);             \
        /* ties keep a; only the first element is compared */                  \
        assert_int_equal(armcii_sel_better("max", TYPE, l, t), 0);             \
        assert_int_equal(armcii_sel_better("min", TYPE, l, t), 0);             \
        assert_int_equal(armcii_sel_better("max", TYPE, t, l), 0);             \
        assert_int_equal(armcii_sel_better("min", TYPE, t, l), 0);             \
        assert_int_equal(armcii_sel_better("+", TYPE, l, h), 0);               \
        /* GA's prefix rule */                                                 \
        assert_int_equal(armcii_sel_better("maximum", TYPE, l, h), 1);         \
        assert_int_equal(armcii_sel_better("minloc", TYPE, h, l), 1);          \
        assert_int_equal(armcii_sel_better("ma", TYPE, l, h), 0);              \
    } while (0)

static void test_sel_better(void **state)
{
    (void)state;
    CHECK_SEL(int, ARMCI_INT, -7, 3);
    CHECK_SEL(int, ARMCI_INT, INT_MIN, INT_MAX); /* no overflowing b - a */
    CHECK_SEL(long, ARMCI_LONG, LONG_MIN, -1);
    CHECK_SEL(llong, ARMCI_LONG_LONG, LLONG_MIN, LLONG_MAX);
    CHECK_SEL(float, ARMCI_FLOAT, -0.5f, 0.25f);
    CHECK_SEL(double, ARMCI_DOUBLE, -1e300, 1e-300);
    int a = 1, b = 2;
    assert_int_equal(armcii_sel_better("max", -1, &a, &b), 0);
    assert_int_equal(armcii_sel_better("absmax", ARMCI_INT, &a, &b), 0);
    assert_int_equal(armcii_sel_op("min"), -1);
    assert_int_equal(armcii_sel_op("max"), 1);
    assert_int_equal(armcii_sel_op("mi"), 0);
    assert_int_equal(armcii_sel_op(NULL), 0);
    assert_int_equal(armcii_sel_better(NULL, ARMCI_INT, &a, &b), 0);
    /* unaligned operands */
    unsigned char ra[1 + sizeof(long)], rb[3 + sizeof(long)];
    long la = 10, lb = 11;
    memcpy(ra + 1, &la, sizeof la);
    memcpy(rb + 3, &lb, sizeof lb);
    assert_int_equal(armcii_sel_better("max", ARMCI_LONG, ra + 1, rb + 3), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strided_offsets),
        cmocka_unit_test(test_pack_unpack_all_dims),
        cmocka_unit_test(test_pack_unpack_partial),
        cmocka_unit_test(test_pack_chunks_roundtrip),
        cmocka_unit_test(test_strided_empty),
        cmocka_unit_test(test_strided_reads_only_its_levels),
        cmocka_unit_test(test_strided_validation),
        cmocka_unit_test(test_acc_elem_size),
        cmocka_unit_test(test_acc_int),
        cmocka_unit_test(test_acc_long),
        cmocka_unit_test(test_acc_float),
        cmocka_unit_test(test_acc_double),
        cmocka_unit_test(test_acc_complex_float),
        cmocka_unit_test(test_acc_complex_double),
        cmocka_unit_test(test_acc_int_wraps),
        cmocka_unit_test(test_scale_in_place_and_empty),
        cmocka_unit_test(test_acc_unknown_type_untouched),
        cmocka_unit_test(test_scale_is_one),
        cmocka_unit_test(test_type_size),
        cmocka_unit_test(test_reduce_int_types),
        cmocka_unit_test(test_reduce_fp_types),
        cmocka_unit_test(test_reduce_op_codes),
        cmocka_unit_test(test_reduce_op_prefix),
        cmocka_unit_test(test_reduce_unaligned_and_empty),
        cmocka_unit_test(test_sel_better),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
