/* PAMI data functions: the predefined ones (PAMI_DATA_COPY ... MINLOC),
 * reductions on the predefined element types, PAMI_Type_transform_data,
 * and the mappings onto the core's atomic arithmetic (emu_atomic_apply).
 *
 * A data function only sees bytes, so the predefined reductions mean
 * something only next to a type: PAMI_Type_transform_data and the
 * collectives recognise them by pointer and reduce with the element type
 * (primitive) of the destination type (or of the source type when the
 * destination's is raw bytes: a packed PAMI_TYPE_BYTE buffer). Called
 * directly they print one line and do nothing.
 *
 * Reductions defined (anything else is PAMI_INVAL):
 *   MAX MIN        integers, FLOAT, DOUBLE, LONG_DOUBLE
 *   SUM PROD       the same and SINGLE/DOUBLE_COMPLEX
 *   LAND LOR LXOR  integers and LOGICAL1/2/4/8 (non-zero is true; result 1/0)
 *   BAND BOR BXOR  integers
 *   MAXLOC MINLOC  LOC_* (ties keep the lower index, as MPI)
 * ("integers": SIGNED/UNSIGNED CHAR ... LONG_LONG; BYTE takes none.) Types
 * the core knows are computed by emu_atomic_apply itself, so a reduction
 * gives the same bytes in the library as in the NIC (integer wrap-around,
 * long double padding zeroed). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/atomic_op.h"
#include "pami_lib.h"
#include "types_int.h"

enum pt_op {
    OP_COPY, OP_NOOP, OP_MAX, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_LOR, OP_LXOR,
    OP_BAND, OP_BOR, OP_BXOR, OP_MAXLOC, OP_MINLOC, OP_COUNT_
};

static void data_copy(void *target, void *source, size_t bytes, void *cookie)
{
    (void)cookie;
    if (bytes && target != source)
        memmove(target, source, bytes);
}

static void data_noop(void *target, void *source, size_t bytes, void *cookie)
{
    (void)target, (void)source, (void)bytes, (void)cookie;
}

#define DIRECT(fnname, pname)                                                    \
    static void fnname(void *target, void *source, size_t bytes, void *cookie)   \
    {                                                                            \
        (void)target, (void)source, (void)cookie;                                \
        pamil_fail(PAMI_INVAL, pname,                                            \
                   "called directly on %zu bytes: a reduction needs an element " \
                   "type; use it through a collective or PAMI_Type_transform_data", \
                   bytes);                                                       \
    }
DIRECT(data_max, "PAMI_DATA_MAX")
DIRECT(data_min, "PAMI_DATA_MIN")
DIRECT(data_sum, "PAMI_DATA_SUM")
DIRECT(data_prod, "PAMI_DATA_PROD")
DIRECT(data_land, "PAMI_DATA_LAND")
DIRECT(data_lor, "PAMI_DATA_LOR")
DIRECT(data_lxor, "PAMI_DATA_LXOR")
DIRECT(data_band, "PAMI_DATA_BAND")
DIRECT(data_bor, "PAMI_DATA_BOR")
DIRECT(data_bxor, "PAMI_DATA_BXOR")
DIRECT(data_maxloc, "PAMI_DATA_MAXLOC")
DIRECT(data_minloc, "PAMI_DATA_MINLOC")

static const struct {
    pami_data_function fn;
    const char *name;
    int aop; /* enum emu_aop or -1 */
} ops[OP_COUNT_] = {
    [OP_COPY] = {data_copy, "PAMI_DATA_COPY", -1},
    [OP_NOOP] = {data_noop, "PAMI_DATA_NOOP", -1},
    [OP_MAX] = {data_max, "PAMI_DATA_MAX", EMU_AOP_MAX},
    [OP_MIN] = {data_min, "PAMI_DATA_MIN", EMU_AOP_MIN},
    [OP_SUM] = {data_sum, "PAMI_DATA_SUM", EMU_AOP_SUM},
    [OP_PROD] = {data_prod, "PAMI_DATA_PROD", EMU_AOP_PROD},
    [OP_LAND] = {data_land, "PAMI_DATA_LAND", EMU_AOP_LAND},
    [OP_LOR] = {data_lor, "PAMI_DATA_LOR", EMU_AOP_LOR},
    [OP_LXOR] = {data_lxor, "PAMI_DATA_LXOR", EMU_AOP_LXOR},
    [OP_BAND] = {data_band, "PAMI_DATA_BAND", EMU_AOP_BAND},
    [OP_BOR] = {data_bor, "PAMI_DATA_BOR", EMU_AOP_BOR},
    [OP_BXOR] = {data_bxor, "PAMI_DATA_BXOR", EMU_AOP_BXOR},
    [OP_MAXLOC] = {data_maxloc, "PAMI_DATA_MAXLOC", -1},
    [OP_MINLOC] = {data_minloc, "PAMI_DATA_MINLOC", -1},
};

pami_data_function PAMI_DATA_COPY = data_copy;
pami_data_function PAMI_DATA_NOOP = data_noop;
pami_data_function PAMI_DATA_MAX = data_max;
pami_data_function PAMI_DATA_MIN = data_min;
pami_data_function PAMI_DATA_SUM = data_sum;
pami_data_function PAMI_DATA_PROD = data_prod;
pami_data_function PAMI_DATA_LAND = data_land;
pami_data_function PAMI_DATA_LOR = data_lor;
pami_data_function PAMI_DATA_LXOR = data_lxor;
pami_data_function PAMI_DATA_BAND = data_band;
pami_data_function PAMI_DATA_BOR = data_bor;
pami_data_function PAMI_DATA_BXOR = data_bxor;
pami_data_function PAMI_DATA_MAXLOC = data_maxloc;
pami_data_function PAMI_DATA_MINLOC = data_minloc;

/* Which predefined function fn is (by pointer), or -1. */
static int op_of(pami_data_function fn)
{
    for (int i = 0; i < OP_COUNT_; i++)
        if (ops[i].fn == fn)
            return i;
    return -1;
}

static int is_reduction(int op) { return op >= OP_MAX && op < OP_COUNT_; }

int pamil_data_is_copy(pami_data_function fn) { return !fn || fn == data_copy; }

/* ---- element classes ---- */

static int is_int(enum pt_prim p) { return p >= PT_SCHAR && p <= PT_ULLONG; }
static int is_float(enum pt_prim p) { return p >= PT_FLOAT && p <= PT_LDOUBLE; }
static int is_complex(enum pt_prim p) { return p == PT_FCOMPLEX || p == PT_DCOMPLEX; }
static int is_logical(enum pt_prim p) { return p >= PT_LOGICAL1 && p <= PT_LOGICAL8; }
static int is_loc(enum pt_prim p) { return p >= PT_LOC_2INT && p <= PT_LOC_LONGDOUBLE_INT; }

static int op_valid(int op, enum pt_prim p)
{
    switch (op) {
    case OP_MAX: case OP_MIN: return is_int(p) || is_float(p);
    case OP_SUM: case OP_PROD: return is_int(p) || is_float(p) || is_complex(p);
    case OP_LAND: case OP_LOR: case OP_LXOR: return is_int(p) || is_logical(p);
    case OP_BAND: case OP_BOR: case OP_BXOR: return is_int(p);
    case OP_MAXLOC: case OP_MINLOC: return is_loc(p);
    default: return 0;
    }
}

/* The core's element type for p, or -1. */
static int prim_emu(enum pt_prim p)
{
    static const int by_size_signed[9] = {-1, EMU_INT8, EMU_INT16, -1, EMU_INT32, -1, -1, -1, EMU_INT64};
    static const int by_size_unsigned[9] = {-1, EMU_UINT8, EMU_UINT16, -1, EMU_UINT32, -1, -1, -1, EMU_UINT64};
    size_t sz = pamil_prim_size(p);
    switch (p) {
    case PT_SCHAR: case PT_SSHORT: case PT_SINT: case PT_SLONG: case PT_SLLONG:
        return sz <= 8 ? by_size_signed[sz] : -1;
    case PT_UCHAR: case PT_USHORT: case PT_UINT: case PT_ULONG: case PT_ULLONG:
        return sz <= 8 ? by_size_unsigned[sz] : -1;
    case PT_FLOAT: return EMU_FLOAT;
    case PT_DOUBLE: return EMU_DOUBLE;
    case PT_LDOUBLE: return EMU_LONG_DOUBLE;
    case PT_FCOMPLEX: return EMU_FLOAT_COMPLEX;
    case PT_DCOMPLEX: return EMU_DOUBLE_COMPLEX;
    default: return -1;
    }
}

/* ---- element loops the core does not have ---- */

static uint64_t load_logical(const unsigned char *p, size_t w)
{
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (w) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}

static void store_logical(unsigned char *p, size_t w, int v)
{
    uint8_t a = (uint8_t)v; uint16_t b = (uint16_t)v; uint32_t c = (uint32_t)v; uint64_t d = (uint64_t)v;
    switch (w) {
    case 1: memcpy(p, &a, 1); break;
    case 2: memcpy(p, &b, 2); break;
    case 4: memcpy(p, &c, 4); break;
    default: memcpy(p, &d, 8); break;
    }
}

static void reduce_logical(int op, size_t w, unsigned char *d, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++, d += w, s += w) {
        int a = load_logical(d, w) != 0, b = load_logical(s, w) != 0;
        store_logical(d, w, op == OP_LAND ? (a && b) : op == OP_LOR ? (a || b) : (a != b));
    }
}

/* dst = src if src's value wins; on equal values keep the lower index.
 * Unordered values (NaN) leave dst as it is. */
#define LOC_LOOP(S)                                                          \
    for (size_t i = 0; i < n; i++, d += sizeof(S), s += sizeof(S)) {       \
        S a, b;                                                              \
        memcpy(&a, d, sizeof a);                                             \
        memcpy(&b, s, sizeof b);                                             \
        if (max ? b.v > a.v : b.v < a.v)                                     \
            memcpy(d, s, sizeof(S));                                         \
        else if (b.v == a.v && b.i < a.i)                                    \
            memcpy(d + offsetof(S, i), s + offsetof(S, i), sizeof b.i);      \
    }

static void reduce_loc(int op, enum pt_prim p, unsigned char *d, const unsigned char *s, size_t n)
{
    int max = op == OP_MAXLOC;
    switch (p) {
    case PT_LOC_2INT: LOC_LOOP(struct pt_loc_2int) break;
    case PT_LOC_2FLOAT: LOC_LOOP(struct pt_loc_2float) break;
    case PT_LOC_2DOUBLE: LOC_LOOP(struct pt_loc_2double) break;
    case PT_LOC_SHORT_INT: LOC_LOOP(struct pt_loc_short_int) break;
    case PT_LOC_FLOAT_INT: LOC_LOOP(struct pt_loc_float_int) break;
    case PT_LOC_DOUBLE_INT: LOC_LOOP(struct pt_loc_double_int) break;
    case PT_LOC_LONG_INT: LOC_LOOP(struct pt_loc_long_int) break;
    default: LOC_LOOP(struct pt_loc_longdouble_int) break;
    }
}

/* n elements of p; op_valid(op, p) holds. */
static void reduce_elems(int op, enum pt_prim p, void *dst, const void *src, size_t n)
{
    if (!n)
        return;
    int dt = prim_emu(p);
    if (dt >= 0 && ops[op].aop >= 0) {
        emu_atomic_apply((unsigned)ops[op].aop, (unsigned)dt, dst, src, NULL,
                         n * pamil_prim_size(p), NULL);
        return;
    }
    if (is_logical(p))
        reduce_logical(op, pamil_prim_size(p), dst, src, n);
    else
        reduce_loc(op, p, dst, src, n);
}

pami_result_t pamil_reduce(pami_data_function op, const struct pamil_type *t, void *dst,
                           const void *src, size_t count)
{
    int o = op_of(op);
    enum pt_prim p = pamil_type_prim(t);
    /* dst and src hold packed data: a non-contiguous type of one primitive
     * reduces like its primitive */
    if (!is_reduction(o) || !op_valid(o, p))
        return PAMI_INVAL;
    size_t es = pamil_prim_size(p), n;
    if (pamil_type_size(t) % es || __builtin_mul_overflow(count, pamil_type_size(t) / es, &n))
        return PAMI_INVAL;
    if (n && (!dst || !src))
        return PAMI_INVAL;
    reduce_elems(o, p, dst, src, n);
    return PAMI_SUCCESS;
}

int pamil_type_emu_dtype(const struct pamil_type *t)
{
    return pamil_type_is_contig(t) ? prim_emu(pamil_type_prim(t)) : -1;
}

int pamil_data_emu_aop(pami_data_function op)
{
    int o = op_of(op);
    return o < 0 ? -1 : ops[o].aop;
}

int pamil_type_rmw_dtype(pami_type_t t)
{
    if (!t || (t != PAMI_TYPE_SIGNED_INT && t != PAMI_TYPE_UNSIGNED_INT &&
               t != PAMI_TYPE_SIGNED_LONG && t != PAMI_TYPE_UNSIGNED_LONG &&
               t != PAMI_TYPE_SIGNED_LONG_LONG && t != PAMI_TYPE_UNSIGNED_LONG_LONG))
        return -1;
    return prim_emu(pamil_type_prim(t));
}

/* ---- PAMI_Type_transform_data ----
 * The destination's runs are walked; each is filled from the source's
 * data stream at the same position: copies piece by piece, reductions and
 * other functions with one call per destination run (the source bytes
 * gathered into a bounce buffer when they are not one run there). */

#define TMP_MAX ((size_t)64 << 10)

enum { K_COPY, K_REDUCE, K_USER };

struct xform {
    int kind, op;
    enum pt_prim prim;
    size_t es; /* chunks are multiples of it */
    const struct pamil_type *st;
    unsigned char *src, *dst, *cur;
    size_t soff; /* source data-stream position */
    pami_data_function fn;
    void *cookie;
    unsigned char *tmp;
    int nomem;
    size_t first_off, nruns;
};

static int copy_piece(void *arg, size_t off, size_t len)
{
    struct xform *x = arg;
    memmove(x->cur, x->src + off, len);
    x->cur += len;
    return 0;
}

static int count_runs(void *arg, size_t off, size_t len)
{
    struct xform *x = arg;
    (void)len;
    if (x->nruns++)
        return 1;
    x->first_off = off;
    return 0;
}

static void apply(struct xform *x, unsigned char *d, unsigned char *s, size_t len)
{
    if (x->kind == K_REDUCE)
        reduce_elems(x->op, x->prim, d, s, len / x->es);
    else
        x->fn(d, s, len, x->cookie);
}

static int dst_run(void *arg, size_t off, size_t len)
{
    struct xform *x = arg;
    unsigned char *d = x->dst + off;
    if (x->kind == K_COPY) {
        x->cur = d;
        pamil_type_walk(x->st, x->soff, len, copy_piece, x);
        x->soff += len;
        return 0;
    }
    x->nruns = 0;
    pamil_type_walk(x->st, x->soff, len, count_runs, x);
    if (x->nruns == 1) { /* the source is one run here too */
        apply(x, d, x->src + x->first_off, len);
        x->soff += len;
        return 0;
    }
    if (!x->tmp && !(x->tmp = malloc(TMP_MAX))) {
        x->nomem = 1;
        return 1;
    }
    size_t chunk_max = TMP_MAX - TMP_MAX % x->es;
    while (len) {
        size_t chunk = len < chunk_max ? len : chunk_max;
        x->cur = x->tmp;
        pamil_type_walk(x->st, x->soff, chunk, copy_piece, x);
        apply(x, d, x->tmp, chunk);
        x->soff += chunk;
        d += chunk;
        len -= chunk;
    }
    return 0;
}

pami_result_t PAMI_Type_transform_data(void *src_addr, pami_type_t src_type, size_t src_offset,
                                       void *dst_addr, pami_type_t dst_type, size_t dst_offset,
                                       size_t size, pami_data_function data_fn, void *cookie)
{
    static const char fn[] = "PAMI_Type_transform_data";
    const struct pamil_type *st = pamil_type_of(fn, src_type);
    if (!st)
        return PAMI_INVAL;
    const struct pamil_type *dt = pamil_type_of(fn, dst_type);
    if (!dt)
        return PAMI_INVAL;
    if (!size)
        return PAMI_SUCCESS;
    if (!src_addr || !dst_addr)
        return pamil_fail(PAMI_INVAL, fn, "%s address is NULL", src_addr ? "the destination" : "the source");
    if (!pamil_type_size(st) || !pamil_type_size(dt))
        return pamil_fail(PAMI_INVAL, fn, "the %s type has no data", pamil_type_size(st) ? "destination" : "source");
    struct xform x = {.kind = K_USER, .es = 1, .st = st, .src = src_addr, .dst = dst_addr,
                      .soff = src_offset, .fn = data_fn, .cookie = cookie};
    int o = op_of(data_fn);
    if (o == OP_NOOP)
        return PAMI_SUCCESS;
    if (pamil_data_is_copy(data_fn))
        x.kind = K_COPY;
    else if (is_reduction(o)) {
        enum pt_prim p = pamil_type_prim(dt);
        if (p == PT_NONE || p == PT_BYTE)
            p = pamil_type_prim(st);
        if (!op_valid(o, p))
            return pamil_fail(PAMI_INVAL, fn, "%s is not defined on %s%s", ops[o].name,
                              p == PT_NONE ? "" : "PAMI_TYPE_", pamil_prim_name(p));
        size_t es = pamil_prim_size(p);
        if (size % es || dst_offset % es || pamil_type_unit(dt) % es)
            return pamil_fail(PAMI_INVAL, fn,
                              "%zu bytes at offset %zu of the destination are not whole "
                              "%zu-byte PAMI_TYPE_%s elements",
                              size, dst_offset, es, pamil_prim_name(p));
        x.kind = K_REDUCE;
        x.op = o;
        x.prim = p;
        x.es = es;
    }
    pamil_type_walk(dt, dst_offset, size, dst_run, &x);
    free(x.tmp);
    if (x.nomem)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    return PAMI_SUCCESS;
}
