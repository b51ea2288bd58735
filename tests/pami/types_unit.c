/* Unit tests of PAMI types and data functions (emunic/pami/lib/types.c,
 * data_ops.c), single process, no NIC: type construction against an
 * independent byte-map model, walks, PAMI_Type_transform_data (copy,
 * reductions, user functions), serialization, queries, every predefined
 * reduction on every predefined type against a plain C reference, the
 * emu mappings, and the error paths (PAMI_INVAL with exactly one stderr
 * line naming the call). */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pami_lib.h"

/* ------------------------------------------------------------------ */
/* stderr capture: run a call, return how many lines it printed and
 * whether each contains `want`. */

static char captured[4096];

static int capture_begin(void)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *f = tmpfile();
    assert_non_null(f);
    dup2(fileno(f), 2);
    fclose(f); /* fd 2 keeps the file open */
    return saved;
}

static int capture_end(int saved, const char *want)
{
    fflush(stderr);
    off_t n = lseek(2, 0, SEEK_END);
    if (n > (off_t)sizeof captured - 1)
        n = sizeof captured - 1;
    lseek(2, 0, SEEK_SET);
    ssize_t got = read(2, captured, (size_t)n);
    captured[got > 0 ? got : 0] = 0;
    dup2(saved, 2);
    close(saved);
    int lines = 0;
    for (char *p = captured; *p; p++)
        lines += *p == '\n';
    if (want && !strstr(captured, want))
        return -1;
    return lines;
}

/* expr must return PAMI_INVAL and print exactly one line naming fn */
#define EXPECT_INVAL(fn, expr)                                  \
    do {                                                        \
        int saved_ = capture_begin();                           \
        pami_result_t rc_ = (expr);                             \
        int lines_ = capture_end(saved_, fn);                   \
        if (rc_ != PAMI_INVAL || lines_ != 1)                   \
            fail_msg("%s: rc %d, %d lines: %s", #expr, rc_,     \
                     lines_, captured);                         \
    } while (0)

/* ------------------------------------------------------------------ */
/* model: the buffer offset of every data byte of one element */

struct model {
    size_t map[4096];
    size_t n, cursor;
};

static void m_simple(struct model *m, size_t bytes, size_t offset, size_t count, size_t stride)
{
    m->cursor += offset;
    for (size_t r = 0; r < count; r++)
        for (size_t b = 0; b < bytes; b++)
            m->map[m->n++] = m->cursor + r * stride + b;
    m->cursor += count * stride;
}

static void m_typed(struct model *m, const struct model *s, size_t offset, size_t count, size_t stride)
{
    m->cursor += offset;
    for (size_t r = 0; r < count; r++)
        for (size_t b = 0; b < s->n; b++)
            m->map[m->n++] = m->cursor + r * stride + s->map[b];
    m->cursor += count * stride;
}

/* buffer offset of data-stream byte i */
static size_t m_at(const struct model *m, size_t i)
{
    return i / m->n * m->cursor + m->map[i % m->n];
}

/* pami type and model built from the same calls */
struct ptm {
    pami_type_t t;
    struct model m;
};

static void tm_create(struct ptm *x)
{
    memset(&x->m, 0, sizeof x->m);
    assert_int_equal(PAMI_Type_create(&x->t), PAMI_SUCCESS);
}

static void tm_simple(struct ptm *x, size_t bytes, size_t offset, size_t count, size_t stride)
{
    assert_int_equal(PAMI_Type_add_simple(x->t, bytes, offset, count, stride), PAMI_SUCCESS);
    m_simple(&x->m, bytes, offset, count, stride);
}

static void tm_typed(struct ptm *x, const struct ptm *s, size_t offset, size_t count, size_t stride)
{
    assert_int_equal(PAMI_Type_add_typed(x->t, s->t, offset, count, stride), PAMI_SUCCESS);
    m_typed(&x->m, &s->m, offset, count, stride);
}

static void tm_complete(struct ptm *x, size_t atom)
{
    assert_int_equal(PAMI_Type_complete(x->t, atom), PAMI_SUCCESS);
}

static void tm_destroy(struct ptm *x)
{
    assert_int_equal(PAMI_Type_destroy(&x->t), PAMI_SUCCESS);
    assert_null(x->t);
}

/* ------------------------------------------------------------------ */
/* walks */

struct runs {
    size_t off[8192], len[8192];
    size_t n;
    int stop_at; /* return non-zero from this callback (1-based), 0 never */
};

static int rec_run(void *arg, size_t off, size_t len)
{
    struct runs *r = arg;
    assert_true(r->n < 8192);
    assert_true(len > 0);
    r->off[r->n] = off;
    r->len[r->n] = len;
    r->n++;
    return r->stop_at && (int)r->n == r->stop_at ? 42 : 0;
}

/* walk [off, off+bytes) and compare each byte with the model; runs must
 * be maximal (no two consecutive runs touching) */
static void check_walk(const struct ptm *x, size_t off, size_t bytes)
{
    const struct pamil_type *t = pamil_type_of("test", x->t);
    assert_non_null(t);
    static struct runs r;
    memset(&r, 0, sizeof r);
    assert_int_equal(pamil_type_walk(t, off, bytes, rec_run, &r), 0);
    size_t i = off;
    for (size_t k = 0; k < r.n; k++) {
        if (k)
            assert_true(r.off[k - 1] + r.len[k - 1] != r.off[k]);
        for (size_t b = 0; b < r.len[k]; b++, i++)
            if (r.off[k] + b != m_at(&x->m, i))
                fail_msg("walk(%zu, %zu): data byte %zu at %zu, model %zu", off, bytes, i,
                         r.off[k] + b, m_at(&x->m, i));
    }
    assert_int_equal(i, off + bytes);
}

static void check_query(pami_type_t t, size_t size, size_t extent, size_t atom)
{
    pami_configuration_t c[3] = {{.name = PAMI_TYPE_DATA_SIZE},
                                 {.name = PAMI_TYPE_DATA_EXTENT},
                                 {.name = PAMI_TYPE_ATOM_SIZE}};
    assert_int_equal(PAMI_Type_query(t, c, 3), PAMI_SUCCESS);
    assert_int_equal(c[0].value.intval, size);
    assert_int_equal(c[1].value.intval, extent);
    assert_int_equal(c[2].value.intval, atom);
}

static void check_all_walks(const struct ptm *x)
{
    size_t total = 3 * x->m.n + 5;
    for (size_t off = 0; off < 2 * x->m.n + 3; off++)
        for (size_t len = 0; off + len <= total; len += 1 + len / 3)
            check_walk(x, off, len);
}

static void test_simple_and_vector(void **state)
{
    (void)state;
    struct ptm a;
    /* 2 doubles, skip 2 (test/api's send type) */
    tm_create(&a);
    tm_simple(&a, 16, 0, 3, 32);
    tm_complete(&a, 8);
    check_query(a.t, 48, 96, 8);
    assert_false(pamil_type_is_contig(pamil_type_of("t", a.t)));
    check_all_walks(&a);
    tm_destroy(&a);

    /* offset moves the cursor: data at 8..16 of a 16-byte element */
    tm_create(&a);
    tm_simple(&a, 8, 8, 1, 8);
    tm_complete(&a, 4);
    check_query(a.t, 8, 16, 4);
    check_all_walks(&a);
    tm_destroy(&a);

    /* several pieces with shifts, overlapping stride, stride 0, zero bytes */
    tm_create(&a);
    tm_simple(&a, 3, 1, 2, 5);
    tm_simple(&a, 0, 2, 7, 3);  /* only moves the cursor by 2 + 21 */
    tm_simple(&a, 2, 4, 3, 1);  /* overlapping runs */
    tm_simple(&a, 1, 0, 2, 0);  /* the same byte twice */
    tm_simple(&a, 4, 3, 0, 9);  /* count 0: cursor += 3 only */
    tm_complete(&a, 1);
    check_query(a.t, a.m.n, a.m.cursor, 1);
    check_all_walks(&a);
    tm_destroy(&a);

    /* runs touching across elements are handed over as one */
    tm_create(&a);
    tm_simple(&a, 4, 0, 1, 4);
    tm_simple(&a, 4, 4, 1, 4); /* data 0..4 and 8..12, extent 12 */
    tm_complete(&a, 4);
    check_all_walks(&a);
    static struct runs r;
    memset(&r, 0, sizeof r);
    assert_int_equal(pamil_type_walk(pamil_type_of("t", a.t), 0, 24, rec_run, &r), 0);
    assert_int_equal(r.n, 4); /* 0-4, 8-16, 20-28, 32-36 */
    assert_int_equal(r.off[1], 8);
    assert_int_equal(r.len[1], 8);
    tm_destroy(&a);

    /* empty type: completes; walking no bytes is fine, bytes is not */
    tm_create(&a);
    tm_simple(&a, 0, 16, 0, 0);
    tm_complete(&a, 8);
    check_query(a.t, 0, 16, 8);
    assert_int_equal(pamil_type_walk(pamil_type_of("t", a.t), 0, 0, rec_run, &r), 0);
    assert_int_not_equal(pamil_type_walk(pamil_type_of("t", a.t), 0, 1, rec_run, &r), 0);
    tm_destroy(&a);
}

static void test_nested(void **state)
{
    (void)state;
    struct ptm v, w, x, b;
    tm_create(&v); /* 2 x 3 bytes, stride 5, then a shifted byte */
    tm_simple(&v, 3, 0, 2, 5);
    tm_simple(&v, 1, 2, 1, 1);
    tm_complete(&v, 1);
    tm_create(&w); /* v at 3 places, then v again regularly */
    tm_typed(&w, &v, 1, 3, 20);
    tm_typed(&w, &v, 0, 2, v.m.cursor);
    tm_simple(&w, 2, 3, 1, 2);
    tm_complete(&w, 1);
    check_all_walks(&w);
    check_query(w.t, w.m.n, w.m.cursor, 1);
    tm_create(&x); /* three levels, subtype destroyed right after use */
    tm_typed(&x, &w, 7, 2, w.m.cursor + 3);
    tm_destroy(&w);
    tm_destroy(&v);
    tm_complete(&x, 1);
    check_all_walks(&x);

    /* predefined subtypes: a vector of doubles and a contiguous run */
    tm_create(&b);
    b.m.n = 0;
    assert_int_equal(PAMI_Type_add_typed(b.t, PAMI_TYPE_DOUBLE, 8, 4, 24), PAMI_SUCCESS);
    for (int i = 0; i < 4; i++)
        m_simple(&b.m, 8, i ? 16 : 8, 1, 8);
    b.m.cursor = 8 + 4 * 24;
    tm_complete(&b, 8);
    check_query(b.t, 32, 8 + 96, 8);
    check_all_walks(&b);
    tm_destroy(&b);
    tm_destroy(&x);

    pami_type_t c;
    assert_int_equal(PAMI_Type_create(&c), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_typed(c, PAMI_TYPE_SIGNED_INT, 0, 10, sizeof(int)), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(c, 4), PAMI_SUCCESS);
    const struct pamil_type *ct = pamil_type_of("t", c);
    assert_true(pamil_type_is_contig(ct));
    assert_int_equal(pamil_type_emu_dtype(ct), EMU_INT32);
    assert_int_equal(PAMI_Type_destroy(&c), PAMI_SUCCESS);
}

static void test_large_vector(void **state)
{
    (void)state;
    /* a million blocks: built and walked by block, never by byte */
    pami_type_t t, n;
    const size_t cnt = 1000000;
    assert_int_equal(PAMI_Type_create(&t), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_typed(t, PAMI_TYPE_DOUBLE, 0, cnt, 24), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(t, 8), PAMI_SUCCESS);
    check_query(t, 8 * cnt, 24 * cnt, 8);
    assert_int_equal(PAMI_Type_create(&n), PAMI_SUCCESS); /* vector of vectors */
    assert_int_equal(PAMI_Type_add_typed(n, t, 0, 1000, 24 * cnt), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(n, 8), PAMI_SUCCESS);
    check_query(n, 8 * cnt * 1000, 24 * cnt * 1000, 8);
    static struct runs r;
    memset(&r, 0, sizeof r);
    const struct pamil_type *nt = pamil_type_of("t", n);
    /* a walk far into the stream starts at the right block */
    size_t off = 8 * cnt * 777 + 8 * 12345 + 3;
    assert_int_equal(pamil_type_walk(nt, off, 8 * 100, rec_run, &r), 0);
    assert_int_equal(r.n, 101);
    assert_int_equal(r.off[0], 24 * cnt * 777 + 24 * 12345 + 3);
    assert_int_equal(r.len[0], 5);
    assert_int_equal(r.off[100], 24 * cnt * 777 + 24 * 12445);
    assert_int_equal(r.len[100], 3);
    /* stop on a callback's non-zero return */
    memset(&r, 0, sizeof r);
    r.stop_at = 7;
    assert_int_equal(pamil_type_walk(nt, 0, 8 * cnt, rec_run, &r), 42);
    assert_int_equal(r.n, 7);
    /* contiguous types: one callback for any length */
    memset(&r, 0, sizeof r);
    const struct pamil_type *bt = pamil_type_of("t", PAMI_TYPE_BYTE);
    assert_int_equal(pamil_type_walk(bt, 5, (size_t)1 << 40, rec_run, &r), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.off[0], 5);
    assert_int_equal(r.len[0], (size_t)1 << 40);
    assert_int_equal(PAMI_Type_destroy(&n), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_destroy(&t), PAMI_SUCCESS);
}

/* ------------------------------------------------------------------ */
/* transform_data */

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

/* src/dst models, copy `size` stream bytes from soff to doff, check */
static void check_copy(struct ptm *s, struct ptm *d, size_t soff, size_t doff, size_t size)
{
    static unsigned char src[1 << 16], dst[1 << 16], ref[1 << 16];
    fill(src, sizeof src, 1);
    fill(dst, sizeof dst, 2);
    memcpy(ref, dst, sizeof ref);
    for (size_t i = 0; i < size; i++)
        ref[m_at(&d->m, doff + i)] = src[m_at(&s->m, soff + i)];
    assert_int_equal(PAMI_Type_transform_data(src, s->t, soff, dst, d->t, doff, size,
                                              PAMI_DATA_COPY, NULL), PAMI_SUCCESS);
    assert_memory_equal(dst, ref, sizeof ref);
}

static void contig_tm(struct ptm *x)
{
    tm_create(x);
    tm_simple(x, 1, 0, 1, 1);
    tm_complete(x, 1);
}

static void test_transform_copy(void **state)
{
    (void)state;
    struct ptm c, v, w;
    contig_tm(&c);
    tm_create(&v);
    tm_simple(&v, 3, 2, 3, 7);
    tm_simple(&v, 5, 1, 1, 5);
    tm_complete(&v, 1);
    tm_create(&w);
    tm_typed(&w, &v, 4, 2, 50);
    tm_simple(&w, 6, 0, 2, 9);
    tm_complete(&w, 1);
    size_t sizes[] = {1, 2, 13, 14, 100, 333, 1000};
    size_t offs[] = {0, 1, 5, 14, 29, 60};
    for (size_t i = 0; i < 7; i++)
        for (size_t a = 0; a < 6; a++)
            for (size_t b = 0; b < 6; b++) {
                check_copy(&c, &v, offs[a], offs[b], sizes[i]); /* unpack */
                check_copy(&v, &c, offs[a], offs[b], sizes[i]); /* pack */
                check_copy(&v, &w, offs[a], offs[b], sizes[i]); /* general */
                check_copy(&w, &v, offs[a], offs[b], sizes[i]);
                check_copy(&w, &w, offs[a], offs[b], sizes[i]);
                check_copy(&c, &c, offs[a], offs[b], sizes[i]);
            }
    /* NULL data function: a copy; NOOP: nothing moves */
    unsigned char s8[8] = {1, 2, 3, 4, 5, 6, 7, 8}, d8[8] = {0};
    assert_int_equal(PAMI_Type_transform_data(s8, PAMI_TYPE_BYTE, 0, d8, PAMI_TYPE_BYTE, 0, 8,
                                              NULL, NULL), PAMI_SUCCESS);
    assert_memory_equal(s8, d8, 8);
    memset(d8, 0, 8);
    assert_int_equal(PAMI_Type_transform_data(s8, PAMI_TYPE_BYTE, 0, d8, PAMI_TYPE_BYTE, 0, 8,
                                              PAMI_DATA_NOOP, NULL), PAMI_SUCCESS);
    assert_int_equal(d8[0] | d8[7], 0);
    /* size 0 does nothing, even with NULL addresses */
    assert_int_equal(PAMI_Type_transform_data(NULL, v.t, 0, NULL, w.t, 0, 0, PAMI_DATA_COPY,
                                              NULL), PAMI_SUCCESS);
    tm_destroy(&c);
    tm_destroy(&v);
    tm_destroy(&w);
}

/* user data function: called per destination run with whole pieces */
struct ucall {
    size_t calls, bytes;
    unsigned char *dbase;
    size_t first_off[64], len[64];
};

static void user_fn(void *target, void *source, size_t bytes, void *cookie)
{
    struct ucall *u = cookie;
    if (u->calls < 64) {
        u->first_off[u->calls] = (size_t)((unsigned char *)target - u->dbase);
        u->len[u->calls] = bytes;
    }
    u->calls++;
    u->bytes += bytes;
    unsigned char *t = target, *s = source;
    for (size_t i = 0; i < bytes; i++)
        t[i] ^= s[i];
}

static void test_transform_user_fn(void **state)
{
    (void)state;
    struct ptm c, v;
    contig_tm(&c);
    tm_create(&v);
    tm_simple(&v, 4, 0, 3, 10);
    tm_complete(&v, 1);
    static unsigned char src[4096], dst[4096], ref[4096];
    fill(src, sizeof src, 5);
    fill(dst, sizeof dst, 6);
    memcpy(ref, dst, sizeof ref);
    /* strided source into strided destination: gathered per run */
    for (size_t i = 0; i < 50; i++)
        ref[m_at(&v.m, 2 + i)] ^= src[m_at(&v.m, 1 + i)];
    struct ucall u = {.dbase = dst};
    assert_int_equal(PAMI_Type_transform_data(src, v.t, 1, dst, v.t, 2, 50, user_fn, &u),
                     PAMI_SUCCESS);
    assert_memory_equal(dst, ref, sizeof ref);
    assert_int_equal(u.bytes, 50);
    assert_int_equal(u.calls, 13); /* 2 + 4 x 12 */
    assert_int_equal(u.first_off[0], 2);
    assert_int_equal(u.len[0], 2);
    /* contiguous source: one call per destination run */
    memset(&u, 0, sizeof u);
    u.dbase = dst;
    assert_int_equal(PAMI_Type_transform_data(src, c.t, 0, dst, v.t, 0, 12, user_fn, &u),
                     PAMI_SUCCESS);
    assert_int_equal(u.calls, 3);
    /* contiguous destination, big: chunks of a bounce buffer */
    static unsigned char big_s[300000], big_d[200000];
    fill(big_s, sizeof big_s, 9);
    memset(big_d, 0, sizeof big_d);
    memset(&u, 0, sizeof u);
    u.dbase = big_d;
    pami_type_t half;
    assert_int_equal(PAMI_Type_create(&half), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(half, 2, 0, 1, 3), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(half, 1), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_transform_data(big_s, half, 0, big_d, PAMI_TYPE_BYTE, 0, 200000,
                                              user_fn, &u), PAMI_SUCCESS);
    assert_int_equal(u.bytes, 200000);
    assert_true(u.calls >= 3 && u.calls <= 5);
    for (size_t i = 0; i < 200000; i++)
        if (big_d[i] != big_s[i / 2 * 3 + i % 2])
            fail_msg("byte %zu", i);
    assert_int_equal(PAMI_Type_destroy(&half), PAMI_SUCCESS);
    tm_destroy(&c);
    tm_destroy(&v);
}

/* ------------------------------------------------------------------ */
/* reductions: every predefined op on every predefined type */

enum cls { C_BYTE, C_SINT, C_UINT, C_REAL, C_CPLX, C_LOGICAL, C_LOC };

#define NE 6 /* elements per vector */

struct tdesc {
    pami_type_t *t;
    const char *name;
    size_t size;
    enum cls cls;
    int emu; /* expected emu dtype */
};

#define SIGNED_EMU(T) (sizeof(T) == 1 ? EMU_INT8 : sizeof(T) == 2 ? EMU_INT16 : sizeof(T) == 4 ? EMU_INT32 : EMU_INT64)
#define UNSIGNED_EMU(T) (SIGNED_EMU(T) + 1)

static const struct tdesc types[] = {
    {&PAMI_TYPE_BYTE, "BYTE", 1, C_BYTE, -1},
    {&PAMI_TYPE_SIGNED_CHAR, "SIGNED_CHAR", 1, C_SINT, EMU_INT8},
    {&PAMI_TYPE_UNSIGNED_CHAR, "UNSIGNED_CHAR", 1, C_UINT, EMU_UINT8},
    {&PAMI_TYPE_SIGNED_SHORT, "SIGNED_SHORT", sizeof(short), C_SINT, SIGNED_EMU(short)},
    {&PAMI_TYPE_UNSIGNED_SHORT, "UNSIGNED_SHORT", sizeof(short), C_UINT, UNSIGNED_EMU(short)},
    {&PAMI_TYPE_SIGNED_INT, "SIGNED_INT", sizeof(int), C_SINT, SIGNED_EMU(int)},
    {&PAMI_TYPE_UNSIGNED_INT, "UNSIGNED_INT", sizeof(int), C_UINT, UNSIGNED_EMU(int)},
    {&PAMI_TYPE_SIGNED_LONG, "SIGNED_LONG", sizeof(long), C_SINT, SIGNED_EMU(long)},
    {&PAMI_TYPE_UNSIGNED_LONG, "UNSIGNED_LONG", sizeof(long), C_UINT, UNSIGNED_EMU(long)},
    {&PAMI_TYPE_SIGNED_LONG_LONG, "SIGNED_LONG_LONG", sizeof(long long), C_SINT, SIGNED_EMU(long long)},
    {&PAMI_TYPE_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", sizeof(long long), C_UINT, UNSIGNED_EMU(long long)},
    {&PAMI_TYPE_FLOAT, "FLOAT", sizeof(float), C_REAL, EMU_FLOAT},
    {&PAMI_TYPE_DOUBLE, "DOUBLE", sizeof(double), C_REAL, EMU_DOUBLE},
    {&PAMI_TYPE_LONG_DOUBLE, "LONG_DOUBLE", sizeof(long double), C_REAL, EMU_LONG_DOUBLE},
    {&PAMI_TYPE_LOGICAL1, "LOGICAL1", 1, C_LOGICAL, -1},
    {&PAMI_TYPE_LOGICAL2, "LOGICAL2", 2, C_LOGICAL, -1},
    {&PAMI_TYPE_LOGICAL4, "LOGICAL4", 4, C_LOGICAL, -1},
    {&PAMI_TYPE_LOGICAL8, "LOGICAL8", 8, C_LOGICAL, -1},
    {&PAMI_TYPE_SINGLE_COMPLEX, "SINGLE_COMPLEX", sizeof(float _Complex), C_CPLX, EMU_FLOAT_COMPLEX},
    {&PAMI_TYPE_DOUBLE_COMPLEX, "DOUBLE_COMPLEX", sizeof(double _Complex), C_CPLX, EMU_DOUBLE_COMPLEX},
    {&PAMI_TYPE_LOC_2INT, "LOC_2INT", sizeof(struct { int v; int i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_2FLOAT, "LOC_2FLOAT", sizeof(struct { float v; float i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_2DOUBLE, "LOC_2DOUBLE", sizeof(struct { double v; double i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_SHORT_INT, "LOC_SHORT_INT", sizeof(struct { short v; int i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_FLOAT_INT, "LOC_FLOAT_INT", sizeof(struct { float v; int i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_DOUBLE_INT, "LOC_DOUBLE_INT", sizeof(struct { double v; int i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_LONG_INT, "LOC_LONG_INT", sizeof(struct { long v; int i; }), C_LOC, -1},
    {&PAMI_TYPE_LOC_LONGDOUBLE_INT, "LOC_LONGDOUBLE_INT", sizeof(struct { long double v; int i; }), C_LOC, -1},
};
#define NTYPES (sizeof types / sizeof types[0])

enum { R_MAX, R_MIN, R_SUM, R_PROD, R_LAND, R_LOR, R_LXOR, R_BAND, R_BOR, R_BXOR, R_MAXLOC, R_MINLOC, R_N };
static pami_data_function *const opfn[R_N] = {
    &PAMI_DATA_MAX, &PAMI_DATA_MIN, &PAMI_DATA_SUM, &PAMI_DATA_PROD, &PAMI_DATA_LAND,
    &PAMI_DATA_LOR, &PAMI_DATA_LXOR, &PAMI_DATA_BAND, &PAMI_DATA_BOR, &PAMI_DATA_BXOR,
    &PAMI_DATA_MAXLOC, &PAMI_DATA_MINLOC};
static const int opemu[R_N] = {EMU_AOP_MAX, EMU_AOP_MIN, EMU_AOP_SUM, EMU_AOP_PROD, EMU_AOP_LAND,
                               EMU_AOP_LOR, EMU_AOP_LXOR, EMU_AOP_BAND, EMU_AOP_BOR, EMU_AOP_BXOR,
                               -1, -1};

static int valid(int op, enum cls c)
{
    switch (op) {
    case R_MAX: case R_MIN: return c == C_SINT || c == C_UINT || c == C_REAL;
    case R_SUM: case R_PROD: return c == C_SINT || c == C_UINT || c == C_REAL || c == C_CPLX;
    case R_LAND: case R_LOR: case R_LXOR: return c == C_SINT || c == C_UINT || c == C_LOGICAL;
    case R_BAND: case R_BOR: case R_BXOR: return c == C_SINT || c == C_UINT;
    default: return c == C_LOC;
    }
}

static const int iv_a[NE] = {3, -2, 0, 7, 5, 100};
static const int iv_b[NE] = {4, -2, 9, 0, -6, 27};
static const double fv_a[NE] = {1.5, -2, 0, 7.25, 3, -0.5};
static const double fv_b[NE] = {4, -2.5, 9, 0, -6, -0.5};

/* integers: reference computed modulo 2^bits as the NIC does */
#define INT_REF(T)                                                              \
    do {                                                                        \
        T *a = (T *)A, *b = (T *)B, *r = (T *)R;                                \
        for (int i = 0; i < NE; i++) {                                          \
            a[i] = (T)iv_a[i];                                                  \
            b[i] = (T)iv_b[i];                                                  \
            T x = a[i], y = b[i];                                               \
            switch (op) {                                                       \
            case R_MAX: r[i] = y > x ? y : x; break;                            \
            case R_MIN: r[i] = y < x ? y : x; break;                            \
            case R_SUM: r[i] = (T)((uint64_t)x + (uint64_t)y); break;           \
            case R_PROD: r[i] = (T)((uint64_t)x * (uint64_t)y); break;          \
            case R_LAND: r[i] = x && y; break;                                  \
            case R_LOR: r[i] = x || y; break;                                   \
            case R_LXOR: r[i] = !x != !y; break;                                \
            case R_BAND: r[i] = x & y; break;                                   \
            case R_BOR: r[i] = x | y; break;                                    \
            case R_BXOR: r[i] = x ^ y; break;                                   \
            }                                                                   \
        }                                                                       \
    } while (0)

#define REAL_REF(T)                                                             \
    do {                                                                        \
        T *a = (T *)A, *b = (T *)B, *r = (T *)R;                                \
        for (int i = 0; i < NE; i++) {                                          \
            a[i] = (T)fv_a[i];                                                  \
            b[i] = (T)fv_b[i];                                                  \
            T x = a[i], y = b[i];                                               \
            r[i] = op == R_MAX ? (y > x ? y : x) : op == R_MIN ? (y < x ? y : x) \
                 : op == R_SUM ? x + y : x * y;                                 \
        }                                                                       \
    } while (0)

#define CPLX_REF(T, RT)                                                         \
    do {                                                                        \
        T *a = (T *)A, *b = (T *)B, *r = (T *)R;                                \
        for (int i = 0; i < NE; i++) {                                          \
            a[i] = (RT)fv_a[i] + (RT)iv_a[i] * I;                               \
            b[i] = (RT)fv_b[i] + (RT)iv_b[i] * I;                               \
            r[i] = op == R_SUM ? a[i] + b[i] : a[i] * b[i];                     \
        }                                                                       \
    } while (0)

#define LOGICAL_REF(T)                                                          \
    do {                                                                        \
        T *a = (T *)A, *b = (T *)B, *r = (T *)R;                                \
        for (int i = 0; i < NE; i++) {                                          \
            a[i] = (T)(iv_a[i] & 0x7f);                                         \
            b[i] = (T)(iv_b[i] & 0x7f);                                         \
            int x = a[i] != 0, y = b[i] != 0;                                   \
            r[i] = (T)(op == R_LAND ? x && y : op == R_LOR ? x || y : x != y);  \
        }                                                                       \
    } while (0)

/* values with ties (element 1: equal values, b's index lower; element 4:
 * equal values, a's index lower) */
#define LOC_REF(VT, IT)                                                         \
    do {                                                                        \
        struct { VT v; IT i; } *a = (void *)A, *b = (void *)B, *r = (void *)R; \
        static const int av[NE] = {3, 5, -1, 8, 2, 0}, ai[NE] = {0, 7, 2, 3, 1, 9}; \
        static const int bv[NE] = {4, 5, -2, 8, 2, 0}, bi[NE] = {5, 6, 1, 4, 8, 2}; \
        for (int i = 0; i < NE; i++) {                                          \
            a[i].v = (VT)av[i], a[i].i = (IT)ai[i];                             \
            b[i].v = (VT)bv[i], b[i].i = (IT)bi[i];                             \
        }                                                                       \
        memcpy(R, A, 32 * NE);                                                  \
        /* hand-computed winners */                                             \
        static const int mx[NE] = {1, 1, 0, 0, 0, 1}; /* 1: b wins */          \
        static const int mn[NE] = {0, 1, 1, 0, 0, 1};                           \
        for (int i = 0; i < NE; i++) {                                          \
            int bw = op == R_MAXLOC ? mx[i] : mn[i];                            \
            if (bw)                                                             \
                r[i] = b[i];                                                    \
        }                                                                       \
    } while (0)

/* fill A, B with inputs and R with A op B; 0 if no reference (invalid) */
static int reference(int op, const char *name, unsigned char *A, unsigned char *B, unsigned char *R)
{
#define IS(n) (strcmp(name, n) == 0)
    if (IS("SIGNED_CHAR")) INT_REF(signed char);
    else if (IS("UNSIGNED_CHAR")) INT_REF(unsigned char);
    else if (IS("SIGNED_SHORT")) INT_REF(short);
    else if (IS("UNSIGNED_SHORT")) INT_REF(unsigned short);
    else if (IS("SIGNED_INT")) INT_REF(int);
    else if (IS("UNSIGNED_INT")) INT_REF(unsigned);
    else if (IS("SIGNED_LONG")) INT_REF(long);
    else if (IS("UNSIGNED_LONG")) INT_REF(unsigned long);
    else if (IS("SIGNED_LONG_LONG")) INT_REF(long long);
    else if (IS("UNSIGNED_LONG_LONG")) INT_REF(unsigned long long);
    else if (IS("FLOAT")) REAL_REF(float);
    else if (IS("DOUBLE")) REAL_REF(double);
    else if (IS("LONG_DOUBLE")) REAL_REF(long double);
    else if (IS("SINGLE_COMPLEX")) CPLX_REF(float _Complex, float);
    else if (IS("DOUBLE_COMPLEX")) CPLX_REF(double _Complex, double);
    else if (IS("LOGICAL1")) LOGICAL_REF(uint8_t);
    else if (IS("LOGICAL2")) LOGICAL_REF(uint16_t);
    else if (IS("LOGICAL4")) LOGICAL_REF(uint32_t);
    else if (IS("LOGICAL8")) LOGICAL_REF(uint64_t);
    else if (IS("LOC_2INT")) LOC_REF(int, int);
    else if (IS("LOC_2FLOAT")) LOC_REF(float, float);
    else if (IS("LOC_2DOUBLE")) LOC_REF(double, double);
    else if (IS("LOC_SHORT_INT")) LOC_REF(short, int);
    else if (IS("LOC_FLOAT_INT")) LOC_REF(float, int);
    else if (IS("LOC_DOUBLE_INT")) LOC_REF(double, int);
    else if (IS("LOC_LONG_INT")) LOC_REF(long, int);
    else if (IS("LOC_LONGDOUBLE_INT")) LOC_REF(long double, int);
    else { memset(A, 1, 32 * NE); memset(B, 2, 32 * NE); memset(R, 1, 32 * NE); }
    return 1;
#undef IS
}

/* compare element values (long double: its 10 significant bytes) */
static void compare_n(const struct tdesc *d, const unsigned char *got, const unsigned char *want,
                      int n, int step, int op)
{
    for (int i = 0; i < n; i++) {
        const unsigned char *g = got + i * step * d->size, *w = want + i * step * d->size;
        if (strcmp(d->name, "LONG_DOUBLE") == 0) {
            long double x, y;
            memcpy(&x, g, sizeof x);
            memcpy(&y, w, sizeof y);
            if (x != y)
                fail_msg("%s op %d element %d: %Lg != %Lg", d->name, op, i, x, y);
        } else if (strcmp(d->name, "LOC_LONGDOUBLE_INT") == 0) {
            struct { long double v; int i; } x, y;
            memcpy(&x, g, sizeof x);
            memcpy(&y, w, sizeof y);
            if (x.v != y.v || x.i != y.i)
                fail_msg("%s op %d element %d", d->name, op, i);
        } else if (memcmp(g, w, d->size)) {
            fail_msg("%s op %d element %d differs", d->name, op, i);
        }
    }
}

static void test_reductions_all(void **state)
{
    (void)state;
    static unsigned char A[32 * NE], B[32 * NE], R[32 * NE], D[32 * NE];
    int nvalid = 0;
    for (size_t k = 0; k < NTYPES; k++) {
        const struct tdesc *d = &types[k];
        pami_type_t t = *d->t;
        const struct pamil_type *pt = pamil_type_of("t", t);
        assert_non_null(pt);
        check_query(t, d->size, d->size, d->size);
        assert_true(pamil_type_is_contig(pt));
        assert_int_equal(pamil_type_emu_dtype(pt), d->emu);
        for (int op = 0; op < R_N; op++) {
            pami_data_function f = *opfn[op];
            memset(A, 0, sizeof A), memset(B, 0, sizeof B), memset(R, 0, sizeof R);
            reference(op, d->name, A, B, R);
            int ok = valid(op, d->cls);
            /* 1: pamil_reduce */
            memcpy(D, A, sizeof D);
            pami_result_t rc = pamil_reduce(f, pt, D, B, NE);
            if (!ok) {
                assert_int_equal(rc, PAMI_INVAL);
                assert_memory_equal(D, A, sizeof D);
                EXPECT_INVAL("PAMI_Type_transform_data",
                             PAMI_Type_transform_data(B, t, 0, D, t, 0, NE * d->size, f, NULL));
                assert_memory_equal(D, A, sizeof D);
                continue;
            }
            nvalid++;
            if (rc != PAMI_SUCCESS)
                fail_msg("pamil_reduce(op %d, %s) = %d", op, d->name, rc);
            compare_n(d, D, R, NE, 1, op);
            /* 2: transform_data, contiguous */
            memcpy(D, A, sizeof D);
            assert_int_equal(PAMI_Type_transform_data(B, t, 0, D, t, 0, NE * d->size, f, NULL),
                             PAMI_SUCCESS);
            compare_n(d, D, R, NE, 1, op);
            /* 3: transform_data from a packed BYTE buffer into a strided
             * type of the element (every other element), at an offset of
             * one element in the destination's stream */
            pami_type_t st;
            static unsigned char S[64 * NE], SR[64 * NE];
            assert_int_equal(PAMI_Type_create(&st), PAMI_SUCCESS);
            assert_int_equal(PAMI_Type_add_typed(st, t, 0, 1, 2 * d->size), PAMI_SUCCESS);
            assert_int_equal(PAMI_Type_complete(st, d->size), PAMI_SUCCESS);
            memset(S, 0x5a, sizeof S);
            memset(SR, 0x5a, sizeof SR);
            for (int i = 0; i < NE; i++) {
                memcpy(S + 2 * i * d->size, A + i * d->size, d->size);
                memcpy(SR + 2 * i * d->size, A + i * d->size, d->size);
            }
            for (int i = 1; i < NE; i++)
                memcpy(SR + 2 * i * d->size, R + i * d->size, d->size);
            assert_int_equal(PAMI_Type_transform_data(B + d->size, PAMI_TYPE_BYTE, 0, S, st,
                                                      d->size, (NE - 1) * d->size, f, NULL),
                             PAMI_SUCCESS);
            compare_n(d, S, SR, NE, 2, op);
            for (int i = 0; i < NE; i++) /* the gaps are untouched */
                for (size_t b = 0; b < d->size; b++)
                    assert_int_equal(S[(2 * i + 1) * d->size + b], 0x5a);
            assert_int_equal(PAMI_Type_destroy(&st), PAMI_SUCCESS);
        }
    }
    /* 10 integer types x 10 ops, 3 reals x 4, 2 complex x 2, 4 logical x 3, 8 loc x 2 */
    assert_int_equal(nvalid, 100 + 12 + 4 + 12 + 16);
}

static void test_reduction_pieces(void **state)
{
    (void)state;
    /* a source whose runs cut doubles in the middle: the reduction still
     * sees whole elements */
    double src[8], dst[8], ref[8];
    for (int i = 0; i < 8; i++) {
        src[i] = i + 0.5;
        dst[i] = 100 * i;
        ref[i] = dst[i] + src[i];
    }
    pami_type_t cut; /* 3 bytes of every 4: the source stream is packed in src */
    assert_int_equal(PAMI_Type_create(&cut), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(cut, 3, 0, 1, 3), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(cut, 5, 0, 1, 5), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(cut, 1), PAMI_SUCCESS);
    /* "cut" is 8 contiguous bytes after merging: still correct */
    assert_int_equal(PAMI_Type_transform_data(src, cut, 0, dst, PAMI_TYPE_DOUBLE, 0, sizeof dst,
                                              PAMI_DATA_SUM, NULL), PAMI_SUCCESS);
    assert_memory_equal(dst, ref, sizeof dst);
    assert_int_equal(PAMI_Type_destroy(&cut), PAMI_SUCCESS);
    /* genuinely split: source bytes 3 of every 4 (gaps at 3, 7, ...) */
    static unsigned char s2[128];
    unsigned char packed[64];
    for (int i = 0; i < 8; i++)
        memcpy(packed + 8 * i, &src[i], 8);
    for (int i = 0; i < 64; i++)
        s2[i / 3 * 4 + i % 3] = packed[i];
    for (int i = 0; i < 8; i++) {
        dst[i] = 100 * i;
        ref[i] = dst[i] + src[i];
    }
    assert_int_equal(PAMI_Type_create(&cut), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(cut, 3, 0, 1, 4), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(cut, 1), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_transform_data(s2, cut, 0, dst, PAMI_TYPE_DOUBLE, 0, sizeof dst,
                                              PAMI_DATA_SUM, NULL), PAMI_SUCCESS);
    assert_memory_equal(dst, ref, sizeof dst);
    /* a destination made of raw bytes with a BYTE... source: no element type */
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(s2, cut, 0, dst, PAMI_TYPE_BYTE, 0, 16, PAMI_DATA_SUM, NULL));
    /* not whole elements: size, destination offset, destination blocks */
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(src, PAMI_TYPE_DOUBLE, 0, dst, PAMI_TYPE_DOUBLE, 0, 12,
                                          PAMI_DATA_SUM, NULL));
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(src, PAMI_TYPE_DOUBLE, 0, dst, PAMI_TYPE_DOUBLE, 4, 16,
                                          PAMI_DATA_SUM, NULL));
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(src, PAMI_TYPE_DOUBLE, 0, s2, cut, 0, 16, PAMI_DATA_SUM, NULL));
    assert_int_equal(PAMI_Type_destroy(&cut), PAMI_SUCCESS);
}

/* ------------------------------------------------------------------ */

static void test_serialize(void **state)
{
    (void)state;
    struct ptm v, w;
    tm_create(&v);
    tm_simple(&v, 4, 2, 3, 6);
    tm_simple(&v, 2, 1, 1, 2);
    tm_complete(&v, 2);
    tm_create(&w);
    tm_typed(&w, &v, 3, 4, v.m.cursor + 8);
    tm_complete(&w, 2);
    void *addr;
    size_t len;
    assert_int_equal(PAMI_Type_serialize(w.t, &addr, &len), PAMI_SUCCESS);
    void *addr2;
    size_t len2;
    assert_int_equal(PAMI_Type_serialize(w.t, &addr2, &len2), PAMI_SUCCESS);
    assert_ptr_equal(addr, addr2);
    assert_int_equal(len, len2);
    unsigned char *copy = malloc(len + 1);
    memcpy(copy + 1, addr, len); /* unaligned on purpose */
    struct ptm d;
    d.m = w.m;
    assert_int_equal(PAMI_Type_deserialize(&d.t, copy + 1, len), PAMI_SUCCESS);
    check_query(d.t, w.m.n, w.m.cursor, 2);
    check_all_walks(&d);
    /* the copy is independent of the original and of the buffer */
    tm_destroy(&w);
    memset(copy, 0, len + 1);
    check_all_walks(&d);
    /* a deserialized type is a user type: usable as subtype, destroyable */
    pami_type_t x;
    assert_int_equal(PAMI_Type_create(&x), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_typed(x, d.t, 0, 2, 0), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_destroy(&x), PAMI_SUCCESS); /* incomplete: fine */

    /* predefined types serialize too; reductions survive the round trip */
    assert_int_equal(PAMI_Type_serialize(PAMI_TYPE_DOUBLE, &addr, &len), PAMI_SUCCESS);
    pami_type_t dd;
    assert_int_equal(PAMI_Type_deserialize(&dd, addr, len), PAMI_SUCCESS);
    double a[2] = {1, 2}, b[2] = {3, 4};
    assert_int_equal(PAMI_Type_transform_data(b, dd, 0, a, dd, 0, 16, PAMI_DATA_SUM, NULL), PAMI_SUCCESS);
    assert_true(a[0] == 4 && a[1] == 6);
    assert_int_equal(pamil_type_emu_dtype(pamil_type_of("t", dd)), EMU_DOUBLE);
    assert_int_equal(PAMI_Type_destroy(&dd), PAMI_SUCCESS);

    /* garbage */
    assert_int_equal(PAMI_Type_serialize(v.t, &addr, &len), PAMI_SUCCESS);
    memcpy(copy, addr, len);
    pami_type_t g = (pami_type_t)1;
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(&g, copy, len - 8));
    assert_null(g);
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(&g, copy, 7));
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(&g, copy, 0));
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(&g, NULL, len));
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(NULL, copy, len));
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(&g, copy, len + 32));
    for (size_t word = 0; word < len / 8; word++) {
        static const uint64_t bad[] = {0, ~(uint64_t)0, (uint64_t)1 << 63, 3};
        for (size_t k = 0; k < 4; k++) {
            memcpy(copy, addr, len);
            uint64_t old;
            memcpy(&old, copy + 8 * word, 8);
            if (old == bad[k])
                continue;
            memcpy(copy + 8 * word, &bad[k], 8);
            int saved = capture_begin();
            pami_result_t rc = PAMI_Type_deserialize(&g, copy, len);
            int lines = capture_end(saved, NULL);
            /* some words (an offset, the extent) accept any value */
            if (rc == PAMI_SUCCESS) {
                assert_int_equal(lines, 0);
                assert_int_equal(PAMI_Type_destroy(&g), PAMI_SUCCESS);
            } else {
                assert_int_equal(rc, PAMI_INVAL);
                assert_int_equal(lines, 1);
            }
        }
    }
    unsigned char junk[256];
    fill(junk, sizeof junk, 77);
    EXPECT_INVAL("PAMI_Type_deserialize", PAMI_Type_deserialize(&g, junk, sizeof junk));
    free(copy);
    tm_destroy(&v);
    assert_int_equal(PAMI_Type_destroy(&d.t), PAMI_SUCCESS);
}

static void test_errors(void **state)
{
    (void)state;
    pami_type_t t, u;
    EXPECT_INVAL("PAMI_Type_create", PAMI_Type_create(NULL));
    assert_int_equal(PAMI_Type_create(&t), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(t, 8, 0, 2, 16), PAMI_SUCCESS);
    /* incomplete type: unusable */
    pami_configuration_t c = {.name = PAMI_TYPE_DATA_SIZE};
    EXPECT_INVAL("PAMI_Type_query", PAMI_Type_query(t, &c, 1));
    void *a;
    size_t n;
    EXPECT_INVAL("PAMI_Type_serialize", PAMI_Type_serialize(t, &a, &n));
    char buf[64] = {0};
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(buf, t, 0, buf + 32, PAMI_TYPE_BYTE, 0, 8, PAMI_DATA_COPY, NULL));
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(buf, PAMI_TYPE_BYTE, 0, buf + 32, t, 0, 8, PAMI_DATA_COPY, NULL));
    int saved = capture_begin();
    assert_null(pamil_type_of("somecall", t));
    assert_int_equal(capture_end(saved, "somecall"), 1);
    assert_int_equal(PAMI_Type_create(&u), PAMI_SUCCESS);
    EXPECT_INVAL("PAMI_Type_add_typed", PAMI_Type_add_typed(u, t, 0, 1, 0));
    EXPECT_INVAL("PAMI_Type_add_typed", PAMI_Type_add_typed(u, u, 0, 1, 0));
    EXPECT_INVAL("PAMI_Type_add_typed", PAMI_Type_add_typed(u, NULL, 0, 1, 0));
    EXPECT_INVAL("PAMI_Type_add_typed", PAMI_Type_add_typed(NULL, PAMI_TYPE_BYTE, 0, 1, 0));
    EXPECT_INVAL("PAMI_Type_add_simple", PAMI_Type_add_simple(NULL, 8, 0, 1, 8));
    /* overflowing layouts */
    EXPECT_INVAL("PAMI_Type_add_simple", PAMI_Type_add_simple(u, 8, 0, SIZE_MAX / 2, 16));
    EXPECT_INVAL("PAMI_Type_add_simple", PAMI_Type_add_simple(u, 8, SIZE_MAX, 1, 8));
    EXPECT_INVAL("PAMI_Type_add_typed", PAMI_Type_add_typed(u, PAMI_TYPE_DOUBLE, 0, SIZE_MAX / 4, 8));
    /* atom sizes */
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(t, 0));
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(t, 3));
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(t, 16)); /* blocks of 8 */
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(t, 256));
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(NULL, 1));
    /* atoms divide the blocks as given, not as merged: 4 + 4 adjacent */
    pami_type_t m;
    assert_int_equal(PAMI_Type_create(&m), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(m, 4, 0, 1, 4), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(m, 4, 0, 1, 4), PAMI_SUCCESS);
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(m, 8));
    assert_int_equal(PAMI_Type_complete(m, 4), PAMI_SUCCESS);
    assert_true(pamil_type_is_contig(pamil_type_of("t", m)));
    assert_int_equal(PAMI_Type_destroy(&m), PAMI_SUCCESS);
    /* complete: then frozen */
    assert_int_equal(PAMI_Type_complete(t, 8), PAMI_SUCCESS);
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(t, 8));
    EXPECT_INVAL("PAMI_Type_add_simple", PAMI_Type_add_simple(t, 8, 0, 1, 8));
    EXPECT_INVAL("PAMI_Type_add_typed", PAMI_Type_add_typed(t, PAMI_TYPE_BYTE, 0, 1, 1));
    EXPECT_INVAL("PAMI_Type_add_simple", PAMI_Type_add_simple(PAMI_TYPE_DOUBLE, 8, 0, 1, 8));
    EXPECT_INVAL("PAMI_Type_complete", PAMI_Type_complete(PAMI_TYPE_SIGNED_INT, 1));
    /* query */
    pami_configuration_t bad = {.name = PAMI_CLIENT_TASK_ID};
    EXPECT_INVAL("PAMI_Type_query", PAMI_Type_query(t, &bad, 1));
    EXPECT_INVAL("PAMI_Type_query", PAMI_Type_query(t, NULL, 1));
    EXPECT_INVAL("PAMI_Type_query", PAMI_Type_query(NULL, &c, 1));
    assert_int_equal(PAMI_Type_query(t, NULL, 0), PAMI_SUCCESS);
    /* serialize / transform arguments */
    EXPECT_INVAL("PAMI_Type_serialize", PAMI_Type_serialize(t, NULL, &n));
    EXPECT_INVAL("PAMI_Type_serialize", PAMI_Type_serialize(t, &a, NULL));
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(NULL, t, 0, buf, t, 0, 8, PAMI_DATA_COPY, NULL));
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(buf, t, 0, NULL, t, 0, 8, PAMI_DATA_COPY, NULL));
    EXPECT_INVAL("PAMI_Type_transform_data",
                 PAMI_Type_transform_data(buf, PAMI_TYPE_NULL, 0, buf, t, 0, 8, PAMI_DATA_COPY, NULL));
    /* destroy */
    pami_type_t p = PAMI_TYPE_DOUBLE;
    EXPECT_INVAL("PAMI_Type_destroy", PAMI_Type_destroy(&p));
    assert_ptr_equal(p, PAMI_TYPE_DOUBLE);
    EXPECT_INVAL("PAMI_Type_destroy", PAMI_Type_destroy(NULL));
    p = NULL;
    EXPECT_INVAL("PAMI_Type_destroy", PAMI_Type_destroy(&p));
    assert_int_equal(PAMI_Type_destroy(&u), PAMI_SUCCESS); /* incomplete */
    assert_int_equal(PAMI_Type_destroy(&t), PAMI_SUCCESS);
    /* a type that was never a type */
    uint64_t fake[8] = {0};
    p = fake;
    EXPECT_INVAL("PAMI_Type_destroy", PAMI_Type_destroy(&p));
    EXPECT_INVAL("PAMI_Type_query", PAMI_Type_query(fake, &c, 1));
}

static void test_data_functions(void **state)
{
    (void)state;
    char s[16] = "hello, world", d[16] = {0};
    PAMI_DATA_COPY(d, s, 13, NULL);
    assert_string_equal(d, "hello, world");
    PAMI_DATA_NOOP(d, "xxxxx", 5, NULL);
    assert_string_equal(d, "hello, world");
    /* reductions called directly: one line each, nothing changes */
    pami_data_function red[] = {PAMI_DATA_MAX, PAMI_DATA_MIN, PAMI_DATA_SUM, PAMI_DATA_PROD,
                                PAMI_DATA_LAND, PAMI_DATA_LOR, PAMI_DATA_LXOR, PAMI_DATA_BAND,
                                PAMI_DATA_BOR, PAMI_DATA_BXOR, PAMI_DATA_MAXLOC, PAMI_DATA_MINLOC};
    static const char *names[] = {"PAMI_DATA_MAX", "PAMI_DATA_MIN", "PAMI_DATA_SUM",
                                  "PAMI_DATA_PROD", "PAMI_DATA_LAND", "PAMI_DATA_LOR",
                                  "PAMI_DATA_LXOR", "PAMI_DATA_BAND", "PAMI_DATA_BOR",
                                  "PAMI_DATA_BXOR", "PAMI_DATA_MAXLOC", "PAMI_DATA_MINLOC"};
    for (int i = 0; i < 12; i++) {
        int saved = capture_begin();
        red[i](d, s, 8, NULL);
        assert_int_equal(capture_end(saved, names[i]), 1);
        assert_non_null(strstr(captured, "PAMI_Type_transform_data"));
        assert_string_equal(d, "hello, world");
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(red[i], red[j]);
        assert_ptr_not_equal(red[i], PAMI_DATA_COPY);
        assert_ptr_not_equal(red[i], PAMI_DATA_NOOP);
        assert_int_equal(pamil_data_emu_aop(red[i]), opemu[i]);
        assert_false(pamil_data_is_copy(red[i]));
    }
    assert_ptr_not_equal(PAMI_DATA_COPY, PAMI_DATA_NOOP);
    assert_true(pamil_data_is_copy(PAMI_DATA_COPY));
    assert_true(pamil_data_is_copy(NULL));
    assert_false(pamil_data_is_copy(PAMI_DATA_NOOP));
    assert_false(pamil_data_is_copy(user_fn));
    assert_int_equal(pamil_data_emu_aop(PAMI_DATA_COPY), -1);
    assert_int_equal(pamil_data_emu_aop(PAMI_DATA_NOOP), -1);
    assert_int_equal(pamil_data_emu_aop(user_fn), -1);
    /* pamil_reduce: only reductions, no message */
    const struct pamil_type *it = pamil_type_of("t", PAMI_TYPE_SIGNED_INT);
    int x[2] = {1, 2}, y[2] = {3, 4};
    int saved = capture_begin();
    assert_int_equal(pamil_reduce(PAMI_DATA_COPY, it, x, y, 2), PAMI_INVAL);
    assert_int_equal(pamil_reduce(user_fn, it, x, y, 2), PAMI_INVAL);
    assert_int_equal(pamil_reduce(PAMI_DATA_SUM, it, x, y, 0), PAMI_SUCCESS);
    assert_int_equal(capture_end(saved, NULL), 0);
    assert_int_equal(pamil_reduce(PAMI_DATA_SUM, it, x, y, 2), PAMI_SUCCESS);
    assert_true(x[0] == 4 && x[1] == 6);
    /* a contiguous user type of ints reduces count x its ints */
    pami_type_t pair;
    assert_int_equal(PAMI_Type_create(&pair), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_typed(pair, PAMI_TYPE_SIGNED_INT, 0, 2, sizeof(int)), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(pair, 4), PAMI_SUCCESS);
    assert_int_equal(pamil_reduce(PAMI_DATA_PROD, pamil_type_of("t", pair), x, y, 1), PAMI_SUCCESS);
    assert_true(x[0] == 12 && x[1] == 24);
    assert_int_equal(PAMI_Type_destroy(&pair), PAMI_SUCCESS);
    /* strided user types: no emu mapping (the NIC works on contiguous
     * data); pamil_reduce works on their packed data, as collectives give
     * it (IBM's allreduce_noncontig) */
    assert_int_equal(PAMI_Type_create(&pair), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_typed(pair, PAMI_TYPE_SIGNED_INT, 0, 2, 2 * sizeof(int)), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(pair, 4), PAMI_SUCCESS);
    assert_int_equal(pamil_type_emu_dtype(pamil_type_of("t", pair)), -1);
    assert_int_equal(pamil_reduce(PAMI_DATA_SUM, pamil_type_of("t", pair), x, y, 1), PAMI_SUCCESS);
    assert_true(x[0] == 12 + y[0] && x[1] == 24 + y[1]);
    /* raw bytes (add_simple) have no element type: no reduction */
    pami_type_t raw;
    assert_int_equal(PAMI_Type_create(&raw), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_simple(raw, 8, 0, 1, 16), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(raw, 8), PAMI_SUCCESS);
    assert_int_equal(pamil_reduce(PAMI_DATA_SUM, pamil_type_of("t", raw), x, y, 1), PAMI_INVAL);
    assert_int_equal(PAMI_Type_destroy(&raw), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_destroy(&pair), PAMI_SUCCESS);
}

static void test_rmw_dtype(void **state)
{
    (void)state;
    assert_int_equal(pamil_type_rmw_dtype(PAMI_TYPE_SIGNED_INT), SIGNED_EMU(int));
    assert_int_equal(pamil_type_rmw_dtype(PAMI_TYPE_UNSIGNED_INT), UNSIGNED_EMU(int));
    assert_int_equal(pamil_type_rmw_dtype(PAMI_TYPE_SIGNED_LONG), SIGNED_EMU(long));
    assert_int_equal(pamil_type_rmw_dtype(PAMI_TYPE_UNSIGNED_LONG), UNSIGNED_EMU(long));
    assert_int_equal(pamil_type_rmw_dtype(PAMI_TYPE_SIGNED_LONG_LONG), EMU_INT64);
    assert_int_equal(pamil_type_rmw_dtype(PAMI_TYPE_UNSIGNED_LONG_LONG), EMU_UINT64);
    pami_type_t others[] = {PAMI_TYPE_BYTE, PAMI_TYPE_SIGNED_CHAR, PAMI_TYPE_SIGNED_SHORT,
                            PAMI_TYPE_DOUBLE, PAMI_TYPE_FLOAT, PAMI_TYPE_LOGICAL4,
                            PAMI_TYPE_LOC_2INT, PAMI_TYPE_NULL};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        assert_int_equal(pamil_type_rmw_dtype(others[i]), -1);
    pami_type_t u;
    assert_int_equal(PAMI_Type_create(&u), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_add_typed(u, PAMI_TYPE_SIGNED_INT, 0, 1, 4), PAMI_SUCCESS);
    assert_int_equal(PAMI_Type_complete(u, 4), PAMI_SUCCESS);
    assert_int_equal(pamil_type_rmw_dtype(u), -1); /* only the predefined ones */
    assert_int_equal(PAMI_Type_destroy(&u), PAMI_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_and_vector),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_large_vector),
        cmocka_unit_test(test_transform_copy),
        cmocka_unit_test(test_transform_user_fn),
        cmocka_unit_test(test_reductions_all),
        cmocka_unit_test(test_reduction_pieces),
        cmocka_unit_test(test_serialize),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_data_functions),
        cmocka_unit_test(test_rmw_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
