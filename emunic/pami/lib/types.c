/* PAMI types: the predefined type objects and PAMI_Type_create ... _query,
 * plus the walk over a type's data stream that the rest of the library
 * uses to move typed data (data functions and reductions: data_ops.c).
 *
 * A type describes one element of a buffer: a list of blocks, each
 * `count` runs of `bytes` at off, off + stride, ... (buffer offsets inside
 * the element), an extent (the distance between consecutive elements) and
 * an atom size. Its data stream is the concatenation of the runs, in the
 * order they were added, element after element.
 *
 * Construction, as PAMI's own implementation does it (pami/common/type/
 * TypeCode.h and pami.cc in jedbrown/pami: Type_add_simple is
 * AddShift(offset) then AddSimple(bytes, stride, count), whose effect on
 * the type is extent += offset, then extent += stride * count): a type
 * under construction has a cursor, starting at 0.
 *   add_simple(bytes, offset, count, stride): cursor += offset; then runs
 *     of `bytes` at cursor, cursor + stride, ... (count of them); then
 *     cursor += count * stride.
 *   add_typed(sub, offset, count, stride): the same with copies of the
 *     complete subtype's element layout instead of plain runs.
 * So `offset` is relative to the end of what was added before (pamid
 * builds types from MPI_Type_flatten output by passing the difference of
 * consecutive displacements, and test/api's "2 doubles, skip 2" type is
 * add_simple(16, 0, n, 32)), and complete() sets extent = cursor.
 * complete(atom) needs 1 <= atom <= 128 dividing every block length, as
 * PAMI's ("Atom size %lu does not divide type unit").
 *
 * add_typed copies (flattens) the subtype's blocks into the new type, so
 * no type ever refers to another: destroying a subtype right after using
 * it is fine, and PAMI_Type_destroy frees at once. Like a buffer, a type
 * must not be destroyed while a transfer that uses it is in flight.
 * Predefined types are contiguous, size == extent == atom == sizeof the C
 * type (LOC_* types: the {value; index} struct with its padding, as PAMI's
 * TypeContig(PRIMITIVE_TYPE_LOC_*)), and cannot be destroyed.
 *
 * Serialization: the type's blocks in a flat array of 64-bit words, owned
 * by the type (as PAMI's, which returns its internal code buffer: the
 * caller does not free it; it lives until the type is destroyed).
 * Deserialize copies the words into a new type of the caller's. The
 * format is the same-ABI one of one job's tasks, checked word by word. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pami_lib.h"
#include "types_int.h"

#define PT_MAGIC 0x7e9ab1e5u
#define PT_ATOM_MAX 128u
/* add_typed work limit: blocks appended one by one (before merging). */
#define PT_EXPAND_MAX ((size_t)1 << 24)
#define PT_SER_MAGIC 0x31505954494d4150ull /* "PAMITYP1" */
#define PT_SER_HDR 6                       /* words before the blocks */

struct pt_blk {
    size_t off, bytes, count, stride; /* bytes > 0, count > 0 */
    size_t before;                    /* data bytes of earlier blocks */
};

struct pamil_type {
    uint32_t magic;
    uint8_t complete, predefined, contig, prim_set;
    enum pt_prim prim;
    size_t atom, size, extent, unit;
    size_t cursor; /* while under construction */
    size_t nblk, cap;
    struct pt_blk *blk;
    _Atomic(uint64_t *) ser; /* built on the first serialize */
    struct pt_blk one;       /* predefined types' only block */
};

/* ---- primitives and predefined types ---- */

static const struct {
    size_t size;
    const char *name;
} prim_info[PT_COUNT_] = {
    [PT_NONE] = {0, "bytes"},
    [PT_BYTE] = {1, "BYTE"},
    [PT_SCHAR] = {sizeof(signed char), "SIGNED_CHAR"},
    [PT_UCHAR] = {sizeof(unsigned char), "UNSIGNED_CHAR"},
    [PT_SSHORT] = {sizeof(short), "SIGNED_SHORT"},
    [PT_USHORT] = {sizeof(unsigned short), "UNSIGNED_SHORT"},
    [PT_SINT] = {sizeof(int), "SIGNED_INT"},
    [PT_UINT] = {sizeof(unsigned), "UNSIGNED_INT"},
    [PT_SLONG] = {sizeof(long), "SIGNED_LONG"},
    [PT_ULONG] = {sizeof(unsigned long), "UNSIGNED_LONG"},
    [PT_SLLONG] = {sizeof(long long), "SIGNED_LONG_LONG"},
    [PT_ULLONG] = {sizeof(unsigned long long), "UNSIGNED_LONG_LONG"},
    [PT_FLOAT] = {sizeof(float), "FLOAT"},
    [PT_DOUBLE] = {sizeof(double), "DOUBLE"},
    [PT_LDOUBLE] = {sizeof(long double), "LONG_DOUBLE"},
    [PT_LOGICAL1] = {1, "LOGICAL1"},
    [PT_LOGICAL2] = {2, "LOGICAL2"},
    [PT_LOGICAL4] = {4, "LOGICAL4"},
    [PT_LOGICAL8] = {8, "LOGICAL8"},
    [PT_FCOMPLEX] = {2 * sizeof(float), "SINGLE_COMPLEX"},
    [PT_DCOMPLEX] = {2 * sizeof(double), "DOUBLE_COMPLEX"},
    [PT_LOC_2INT] = {sizeof(struct pt_loc_2int), "LOC_2INT"},
    [PT_LOC_2FLOAT] = {sizeof(struct pt_loc_2float), "LOC_2FLOAT"},
    [PT_LOC_2DOUBLE] = {sizeof(struct pt_loc_2double), "LOC_2DOUBLE"},
    [PT_LOC_SHORT_INT] = {sizeof(struct pt_loc_short_int), "LOC_SHORT_INT"},
    [PT_LOC_FLOAT_INT] = {sizeof(struct pt_loc_float_int), "LOC_FLOAT_INT"},
    [PT_LOC_DOUBLE_INT] = {sizeof(struct pt_loc_double_int), "LOC_DOUBLE_INT"},
    [PT_LOC_LONG_INT] = {sizeof(struct pt_loc_long_int), "LOC_LONG_INT"},
    [PT_LOC_LONGDOUBLE_INT] = {sizeof(struct pt_loc_longdouble_int), "LOC_LONGDOUBLE_INT"},
};

size_t pamil_prim_size(enum pt_prim p) { return (unsigned)p < PT_COUNT_ ? prim_info[p].size : 0; }
const char *pamil_prim_name(enum pt_prim p) { return (unsigned)p < PT_COUNT_ ? prim_info[p].name : "?"; }

#define PREDEF(var, P, SZ)                                                     \
    static struct pamil_type var = {                                           \
        .magic = PT_MAGIC, .complete = 1, .predefined = 1, .contig = 1,        \
        .prim_set = 1, .prim = P, .atom = SZ, .size = SZ, .extent = SZ,        \
        .unit = SZ, .cursor = SZ, .nblk = 1, .cap = 1, .blk = &var.one,        \
        .one = {0, SZ, 1, SZ, 0}}

PREDEF(t_byte, PT_BYTE, 1);
PREDEF(t_schar, PT_SCHAR, sizeof(signed char));
PREDEF(t_uchar, PT_UCHAR, sizeof(unsigned char));
PREDEF(t_sshort, PT_SSHORT, sizeof(short));
PREDEF(t_ushort, PT_USHORT, sizeof(unsigned short));
PREDEF(t_sint, PT_SINT, sizeof(int));
PREDEF(t_uint, PT_UINT, sizeof(unsigned));
PREDEF(t_slong, PT_SLONG, sizeof(long));
PREDEF(t_ulong, PT_ULONG, sizeof(unsigned long));
PREDEF(t_sllong, PT_SLLONG, sizeof(long long));
PREDEF(t_ullong, PT_ULLONG, sizeof(unsigned long long));
PREDEF(t_float, PT_FLOAT, sizeof(float));
PREDEF(t_double, PT_DOUBLE, sizeof(double));
PREDEF(t_ldouble, PT_LDOUBLE, sizeof(long double));
PREDEF(t_log1, PT_LOGICAL1, 1);
PREDEF(t_log2, PT_LOGICAL2, 2);
PREDEF(t_log4, PT_LOGICAL4, 4);
PREDEF(t_log8, PT_LOGICAL8, 8);
PREDEF(t_fcomplex, PT_FCOMPLEX, 2 * sizeof(float));
PREDEF(t_dcomplex, PT_DCOMPLEX, 2 * sizeof(double));
PREDEF(t_loc_2int, PT_LOC_2INT, sizeof(struct pt_loc_2int));
PREDEF(t_loc_2float, PT_LOC_2FLOAT, sizeof(struct pt_loc_2float));
PREDEF(t_loc_2double, PT_LOC_2DOUBLE, sizeof(struct pt_loc_2double));
PREDEF(t_loc_short_int, PT_LOC_SHORT_INT, sizeof(struct pt_loc_short_int));
PREDEF(t_loc_float_int, PT_LOC_FLOAT_INT, sizeof(struct pt_loc_float_int));
PREDEF(t_loc_double_int, PT_LOC_DOUBLE_INT, sizeof(struct pt_loc_double_int));
PREDEF(t_loc_long_int, PT_LOC_LONG_INT, sizeof(struct pt_loc_long_int));
PREDEF(t_loc_ldouble_int, PT_LOC_LONGDOUBLE_INT, sizeof(struct pt_loc_longdouble_int));

pami_type_t PAMI_TYPE_NULL = NULL;
pami_type_t PAMI_TYPE_BYTE = &t_byte;
pami_type_t PAMI_TYPE_CONTIGUOUS = &t_byte; /* older name of BYTE (IBM's tests, MPICH pamid) */
pami_type_t PAMI_TYPE_SIGNED_CHAR = &t_schar;
pami_type_t PAMI_TYPE_UNSIGNED_CHAR = &t_uchar;
pami_type_t PAMI_TYPE_SIGNED_SHORT = &t_sshort;
pami_type_t PAMI_TYPE_UNSIGNED_SHORT = &t_ushort;
pami_type_t PAMI_TYPE_SIGNED_INT = &t_sint;
pami_type_t PAMI_TYPE_UNSIGNED_INT = &t_uint;
pami_type_t PAMI_TYPE_SIGNED_LONG = &t_slong;
pami_type_t PAMI_TYPE_UNSIGNED_LONG = &t_ulong;
pami_type_t PAMI_TYPE_SIGNED_LONG_LONG = &t_sllong;
pami_type_t PAMI_TYPE_UNSIGNED_LONG_LONG = &t_ullong;
pami_type_t PAMI_TYPE_FLOAT = &t_float;
pami_type_t PAMI_TYPE_DOUBLE = &t_double;
pami_type_t PAMI_TYPE_LONG_DOUBLE = &t_ldouble;
pami_type_t PAMI_TYPE_LOGICAL1 = &t_log1;
pami_type_t PAMI_TYPE_LOGICAL2 = &t_log2;
pami_type_t PAMI_TYPE_LOGICAL4 = &t_log4;
pami_type_t PAMI_TYPE_LOGICAL = &t_log4; /* older name of LOGICAL4, kept by IBM for old clients */
pami_type_t PAMI_TYPE_LOGICAL8 = &t_log8;
pami_type_t PAMI_TYPE_SINGLE_COMPLEX = &t_fcomplex;
pami_type_t PAMI_TYPE_DOUBLE_COMPLEX = &t_dcomplex;
pami_type_t PAMI_TYPE_LOC_2INT = &t_loc_2int;
pami_type_t PAMI_TYPE_LOC_2FLOAT = &t_loc_2float;
pami_type_t PAMI_TYPE_LOC_2DOUBLE = &t_loc_2double;
pami_type_t PAMI_TYPE_LOC_SHORT_INT = &t_loc_short_int;
pami_type_t PAMI_TYPE_LOC_FLOAT_INT = &t_loc_float_int;
pami_type_t PAMI_TYPE_LOC_DOUBLE_INT = &t_loc_double_int;
pami_type_t PAMI_TYPE_LOC_LONG_INT = &t_loc_long_int;
pami_type_t PAMI_TYPE_LOC_LONGDOUBLE_INT = &t_loc_ldouble_int;

/* ---- lookups ---- */

/* Any live type object (complete or not); NULL after a message. */
static struct pamil_type *type_any(const char *fn, pami_type_t t)
{
    struct pamil_type *p = t;
    if (!p)
        return pamil_fail(PAMI_INVAL, fn, "the type is NULL (PAMI_TYPE_NULL)"), NULL;
    if (p->magic != PT_MAGIC)
        return pamil_fail(PAMI_INVAL, fn, "%p is not a PAMI type (destroyed?)", t), NULL;
    return p;
}

/* A type still under construction. */
static struct pamil_type *type_open(const char *fn, pami_type_t t)
{
    struct pamil_type *p = type_any(fn, t);
    if (p && p->complete) {
        pamil_fail(PAMI_INVAL, fn, "the type is %s; it cannot be modified",
                   p->predefined ? "predefined" : "already complete");
        return NULL;
    }
    return p;
}

const struct pamil_type *pamil_type_of(const char *fn, pami_type_t t)
{
    struct pamil_type *p = type_any(fn, t);
    if (p && !p->complete) {
        pamil_fail(PAMI_INVAL, fn, "the type is not complete (call PAMI_Type_complete first)");
        return NULL;
    }
    return p;
}

size_t pamil_type_size(const struct pamil_type *t) { return t->size; }
size_t pamil_type_extent(const struct pamil_type *t) { return t->extent; }
int pamil_type_is_contig(const struct pamil_type *t) { return t->contig; }
enum pt_prim pamil_type_prim(const struct pamil_type *t) { return t->prim; }
size_t pamil_type_unit(const struct pamil_type *t) { return t->unit; }

/* ---- construction ---- */

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Append count runs of bytes at off, off + stride, ... (bytes, count > 0),
 * merging with the previous block where the layout allows. 0 or -1 (no
 * memory). */
static int blk_append(struct pamil_type *t, size_t off, size_t bytes, size_t count, size_t stride)
{
    if (count == 1)
        stride = bytes;
    else if (stride == bytes) {
        bytes *= count; /* the caller checked count * stride */
        count = 1;
        stride = bytes;
    }
    if (t->nblk) {
        struct pt_blk *p = &t->blk[t->nblk - 1];
        if (p->count == 1 && count == 1 && p->off + p->bytes == off) {
            p->bytes += bytes;
            p->stride = p->bytes;
            return 0;
        }
        if (p->count == 1 && count == 1 && p->bytes == bytes && off > p->off) {
            p->stride = off - p->off;
            p->count = 2;
            return 0;
        }
        if (p->count > 1 && p->bytes == bytes && (count == 1 || stride == p->stride) &&
            off == p->off + p->count * p->stride) {
            p->count += count;
            return 0;
        }
    }
    if (t->nblk == t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 4;
        struct pt_blk *nb = realloc(t->blk, ncap * sizeof *nb);
        if (!nb)
            return -1;
        t->blk = nb;
        t->cap = ncap;
    }
    t->blk[t->nblk++] = (struct pt_blk){off, bytes, count, stride, 0};
    return 0;
}

static void note_prim(struct pamil_type *t, enum pt_prim p)
{
    if (!t->prim_set) {
        t->prim = p;
        t->prim_set = 1;
    } else if (t->prim != p) {
        t->prim = PT_NONE;
    }
}

pami_result_t PAMI_Type_create(pami_type_t *type)
{
    if (!type)
        return pamil_fail(PAMI_INVAL, "PAMI_Type_create", "type is NULL");
    struct pamil_type *t = calloc(1, sizeof *t);
    if (!t)
        return pamil_fail(PAMI_ENOMEM, "PAMI_Type_create", "out of memory");
    t->magic = PT_MAGIC;
    t->prim = PT_NONE;
    *type = t;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Type_add_simple(pami_type_t type, size_t bytes, size_t offset,
                                   size_t count, size_t stride)
{
    static const char fn[] = "PAMI_Type_add_simple";
    struct pamil_type *t = type_open(fn, type);
    if (!t)
        return PAMI_INVAL;
    size_t start, span, end;
    if (__builtin_add_overflow(t->cursor, offset, &start) ||
        __builtin_mul_overflow(count, stride, &span) ||
        __builtin_add_overflow(start, span, &end) ||
        (count && __builtin_add_overflow(start + (count - 1) * stride, bytes, &span)))
        return pamil_fail(PAMI_INVAL, fn, "offset %zu + %zu x stride %zu overflows", offset,
                          count, stride);
    if (bytes && count) {
        if (blk_append(t, start, bytes, count, stride))
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        t->unit = gcd(t->unit, bytes);
        note_prim(t, PT_NONE);
    }
    t->cursor = end;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Type_add_typed(pami_type_t type, pami_type_t subtype, size_t offset,
                                  size_t count, size_t stride)
{
    static const char fn[] = "PAMI_Type_add_typed";
    struct pamil_type *t = type_open(fn, type);
    if (!t)
        return PAMI_INVAL;
    const struct pamil_type *s = pamil_type_of(fn, subtype);
    if (!s)
        return PAMI_INVAL;
    size_t start, span, end, last;
    if (__builtin_add_overflow(t->cursor, offset, &start) ||
        __builtin_mul_overflow(count, stride, &span) ||
        __builtin_add_overflow(start, span, &end) ||
        (count && __builtin_add_overflow(start + (count - 1) * stride, s->extent, &last)))
        return pamil_fail(PAMI_INVAL, fn, "offset %zu + %zu x stride %zu overflows", offset,
                          count, stride);
    if (count && s->nblk) {
        const struct pt_blk *b = &s->blk[0];
        size_t total;
        if (s->nblk == 1 && (b->count == 1 || stride == b->count * b->stride) &&
            !__builtin_mul_overflow(b->count, count, &total)) {
            /* one block repeated regularly: one vector */
            if (blk_append(t, start + b->off, b->bytes, b->count == 1 ? count : total,
                           b->count == 1 ? stride : b->stride))
                return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        } else {
            if (__builtin_mul_overflow(count, s->nblk, &total) || total > PT_EXPAND_MAX)
                return pamil_fail(PAMI_ENOMEM, fn,
                                  "%zu copies of a %zu-block subtype: more than %zu blocks",
                                  count, s->nblk, PT_EXPAND_MAX);
            for (size_t r = 0; r < count; r++)
                for (size_t k = 0; k < s->nblk; k++) {
                    b = &s->blk[k];
                    if (blk_append(t, start + r * stride + b->off, b->bytes, b->count, b->stride))
                        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
                }
        }
        t->unit = gcd(t->unit, s->unit);
        note_prim(t, s->prim);
    }
    t->cursor = end;
    return PAMI_SUCCESS;
}

/* Block prefix sums, size, contiguity; 0 or -1 if the data size overflows. */
static int finish(struct pamil_type *t)
{
    size_t before = 0;
    for (size_t k = 0; k < t->nblk; k++) {
        struct pt_blk *b = &t->blk[k];
        size_t d;
        b->before = before;
        if (__builtin_mul_overflow(b->bytes, b->count, &d) ||
            __builtin_add_overflow(before, d, &before))
            return -1;
    }
    t->size = before;
    t->extent = t->cursor;
    if (!t->prim_set)
        t->prim = PT_NONE;
    t->contig = (t->nblk == 0 && t->extent == 0) ||
                (t->nblk == 1 && t->blk[0].off == 0 && t->blk[0].count == 1 &&
                 t->blk[0].bytes == t->extent);
    return 0;
}

pami_result_t PAMI_Type_complete(pami_type_t type, size_t atom_size)
{
    static const char fn[] = "PAMI_Type_complete";
    struct pamil_type *t = type_open(fn, type);
    if (!t)
        return PAMI_INVAL;
    if (atom_size < 1 || atom_size > PT_ATOM_MAX)
        return pamil_fail(PAMI_INVAL, fn, "atom size %zu is not in [1, %u]", atom_size,
                          PT_ATOM_MAX);
    if (t->unit % atom_size)
        return pamil_fail(PAMI_INVAL, fn,
                          "atom size %zu does not divide the blocks (their gcd is %zu bytes)",
                          atom_size, t->unit);
    if (finish(t))
        return pamil_fail(PAMI_INVAL, fn, "the type's data size overflows");
    t->atom = atom_size;
    t->complete = 1;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Type_destroy(pami_type_t *type)
{
    static const char fn[] = "PAMI_Type_destroy";
    if (!type)
        return pamil_fail(PAMI_INVAL, fn, "type is NULL");
    struct pamil_type *t = type_any(fn, *type);
    if (!t)
        return PAMI_INVAL;
    if (t->predefined)
        return pamil_fail(PAMI_INVAL, fn, "PAMI_TYPE_%s is predefined and cannot be destroyed",
                          prim_info[t->prim].name);
    t->magic = 0;
    free(atomic_load(&t->ser));
    free(t->blk);
    free(t);
    *type = NULL;
    return PAMI_SUCCESS;
}

/* ---- serialization ---- */

pami_result_t PAMI_Type_serialize(pami_type_t type, void **address, size_t *size)
{
    static const char fn[] = "PAMI_Type_serialize";
    const struct pamil_type *t = pamil_type_of(fn, type);
    if (!t)
        return PAMI_INVAL;
    if (!address || !size)
        return pamil_fail(PAMI_INVAL, fn, "address or size is NULL");
    struct pamil_type *w = (struct pamil_type *)t;
    size_t words = PT_SER_HDR + 4 * t->nblk;
    uint64_t *s = atomic_load(&w->ser);
    if (!s) {
        uint64_t *n = malloc(words * sizeof *n);
        if (!n)
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        n[0] = PT_SER_MAGIC;
        n[1] = (uint64_t)t->prim;
        n[2] = t->atom;
        n[3] = t->extent;
        n[4] = t->unit;
        n[5] = t->nblk;
        for (size_t k = 0; k < t->nblk; k++) {
            const struct pt_blk *b = &t->blk[k];
            uint64_t *o = n + PT_SER_HDR + 4 * k;
            o[0] = b->off;
            o[1] = b->bytes;
            o[2] = b->count;
            o[3] = b->stride;
        }
        uint64_t *expect = NULL;
        if (atomic_compare_exchange_strong(&w->ser, &expect, n))
            s = n;
        else {
            free(n); /* another thread built it first */
            s = expect;
        }
    }
    *address = s;
    *size = words * sizeof *s;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Type_deserialize(pami_type_t *type, void *address, size_t size)
{
    static const char fn[] = "PAMI_Type_deserialize";
    if (!type || !address)
        return pamil_fail(PAMI_INVAL, fn, "type or address is NULL");
    *type = NULL;
    if (size < PT_SER_HDR * 8 || size % 8)
        return pamil_fail(PAMI_INVAL, fn, "%zu bytes are not a serialized type", size);
    uint64_t h[PT_SER_HDR];
    memcpy(h, address, sizeof h);
    size_t nblk = (size / 8 - PT_SER_HDR) / 4;
    if (h[0] != PT_SER_MAGIC || (size / 8 - PT_SER_HDR) % 4 || h[5] != nblk)
        return pamil_fail(PAMI_INVAL, fn, "the buffer is not a serialized type (or is cut short)");
    if (h[1] >= PT_COUNT_ || h[2] < 1 || h[2] > PT_ATOM_MAX || h[4] % h[2] ||
        (nblk && !h[4]))
        return pamil_fail(PAMI_INVAL, fn, "the serialized type's header is inconsistent");
    struct pamil_type *t = calloc(1, sizeof *t);
    struct pt_blk *blk = nblk ? malloc(nblk * sizeof *blk) : NULL;
    if (!t || (nblk && !blk)) {
        free(t);
        free(blk);
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    }
    const unsigned char *p = (const unsigned char *)address + PT_SER_HDR * 8;
    for (size_t k = 0; k < nblk; k++) {
        uint64_t o[4];
        size_t end;
        memcpy(o, p + 32 * k, sizeof o);
        if (!o[1] || !o[2] || o[1] % h[4] ||
            __builtin_mul_overflow(o[2] - 1, o[3], &end) || __builtin_add_overflow(end, o[0], &end) ||
            __builtin_add_overflow(end, o[1], &end)) {
            free(t);
            free(blk);
            return pamil_fail(PAMI_INVAL, fn, "serialized block %zu is invalid", k);
        }
        blk[k] = (struct pt_blk){o[0], o[1], o[2], o[3], 0};
    }
    t->magic = PT_MAGIC;
    t->prim = (enum pt_prim)h[1];
    t->prim_set = 1;
    t->atom = h[2];
    t->cursor = h[3];
    t->unit = h[4];
    t->nblk = t->cap = nblk;
    t->blk = blk;
    if (finish(t)) {
        free(t);
        free(blk);
        return pamil_fail(PAMI_INVAL, fn, "the serialized type's data size overflows");
    }
    t->complete = 1;
    *type = t;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Type_query(pami_type_t type, pami_configuration_t configuration[],
                              size_t num_configs)
{
    static const char fn[] = "PAMI_Type_query";
    const struct pamil_type *t = pamil_type_of(fn, type);
    if (!t)
        return PAMI_INVAL;
    if (num_configs && !configuration)
        return pamil_fail(PAMI_INVAL, fn, "configuration is NULL");
    for (size_t i = 0; i < num_configs; i++) {
        switch (configuration[i].name) {
        case PAMI_TYPE_DATA_SIZE: configuration[i].value.intval = t->size; break;
        case PAMI_TYPE_DATA_EXTENT: configuration[i].value.intval = t->extent; break;
        case PAMI_TYPE_ATOM_SIZE: configuration[i].value.intval = t->atom; break;
        default:
            return pamil_fail(PAMI_INVAL, fn, "attribute %d is not a type attribute",
                              (int)configuration[i].name);
        }
    }
    return PAMI_SUCCESS;
}

/* ---- walking the data stream ----
 * Runs that touch in the buffer (the end of one element and the start of
 * the next, say) are handed over as one. A type without data (size 0)
 * cannot carry bytes: walking bytes > 0 of it returns -1. */
int pamil_type_walk(const struct pamil_type *t, size_t offset, size_t bytes, pamil_run_fn fn,
                    void *arg)
{
    if (!bytes)
        return 0;
    if (!t->size)
        return -1;
    if (t->contig)
        return fn(arg, offset, bytes);
    size_t base = offset / t->size * t->extent, r = offset % t->size;
    size_t lo = 0, hi = t->nblk - 1; /* last block with before <= r */
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (t->blk[mid].before <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t k = lo;
    const struct pt_blk *b = &t->blk[k];
    size_t rep = (r - b->before) / b->bytes, in = (r - b->before) % b->bytes;
    size_t run_off = 0, run_len = 0;
    while (bytes) {
        size_t pos = base + b->off + rep * b->stride + in;
        size_t len = b->bytes - in;
        if (len > bytes)
            len = bytes;
        if (run_len && run_off + run_len == pos) {
            run_len += len;
        } else {
            if (run_len) {
                int rc = fn(arg, run_off, run_len);
                if (rc)
                    return rc;
            }
            run_off = pos;
            run_len = len;
        }
        bytes -= len;
        in = 0;
        if (++rep == b->count) {
            rep = 0;
            if (++k == t->nblk) {
                k = 0;
                base += t->extent;
            }
            b = &t->blk[k];
        }
    }
    return fn(arg, run_off, run_len);
}
