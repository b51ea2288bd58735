/* Reduction datatypes and operators. Which pairs are defined:
 *   integer types (signed/unsigned char, short, int, long long): MAX MIN
 *     SUM PROD LAND LOR LXOR BAND BOR BXOR (SUM and PROD wrap);
 *   FLOAT, DOUBLE, LONG_DOUBLE: MAX MIN SUM PROD LAND LOR LXOR;
 *   LOGICAL (a 4-byte int): LAND LOR LXOR;
 *   SINGLE_COMPLEX, DOUBLE_COMPLEX: SUM PROD;
 *   LOC_* pairs {value, index}: MAXLOC MINLOC (equal values: lower index);
 *   NOOP on every type: the result is the reduction root's own input
 *     (member 0 of the geometry, rank 0 for a global allreduce).
 * Logical results are 1 or 0 in the operand type. Element sizes are the
 * host ABI's (long double is 16 bytes on x86-64). */
#include <complex.h>
#include <stdint.h>

#include "coll_impl.h"

struct loc_2int { int v, i; };
struct loc_short_int { short v; int i; };
struct loc_float_int { float v; int i; };
struct loc_double_int { double v; int i; };
struct loc_2float { float v, i; };
struct loc_2double { double v, i; };

enum dt_class { C_NONE, C_INT, C_FLOAT, C_LOGICAL, C_COMPLEX, C_LOC };

static enum dt_class class_of(DCMF_Dt dt)
{
    switch (dt) {
    case DCMF_SIGNED_CHAR: case DCMF_UNSIGNED_CHAR: case DCMF_SIGNED_SHORT:
    case DCMF_UNSIGNED_SHORT: case DCMF_SIGNED_INT: case DCMF_UNSIGNED_INT:
    case DCMF_SIGNED_LONG_LONG: case DCMF_UNSIGNED_LONG_LONG:
        return C_INT;
    case DCMF_FLOAT: case DCMF_DOUBLE: case DCMF_LONG_DOUBLE:
        return C_FLOAT;
    case DCMF_LOGICAL:
        return C_LOGICAL;
    case DCMF_SINGLE_COMPLEX: case DCMF_DOUBLE_COMPLEX:
        return C_COMPLEX;
    case DCMF_LOC_2INT: case DCMF_LOC_SHORT_INT: case DCMF_LOC_FLOAT_INT:
    case DCMF_LOC_DOUBLE_INT: case DCMF_LOC_2FLOAT: case DCMF_LOC_2DOUBLE:
        return C_LOC;
    default:
        return C_NONE;
    }
}

#define B(op) (1u << (op))
static const unsigned class_ops[] = {
    [C_NONE] = 0,
    [C_INT] = B(DCMF_NOOP) | B(DCMF_MAX) | B(DCMF_MIN) | B(DCMF_SUM) | B(DCMF_PROD) |
              B(DCMF_LAND) | B(DCMF_LOR) | B(DCMF_LXOR) | B(DCMF_BAND) | B(DCMF_BOR) |
              B(DCMF_BXOR),
    [C_FLOAT] = B(DCMF_NOOP) | B(DCMF_MAX) | B(DCMF_MIN) | B(DCMF_SUM) | B(DCMF_PROD) |
                B(DCMF_LAND) | B(DCMF_LOR) | B(DCMF_LXOR),
    [C_LOGICAL] = B(DCMF_NOOP) | B(DCMF_LAND) | B(DCMF_LOR) | B(DCMF_LXOR),
    [C_COMPLEX] = B(DCMF_NOOP) | B(DCMF_SUM) | B(DCMF_PROD),
    [C_LOC] = B(DCMF_NOOP) | B(DCMF_MAXLOC) | B(DCMF_MINLOC),
};

static const char *const op_names[] = {
    "UNDEFINED_OP", "NOOP", "MAX", "MIN", "SUM", "PROD", "LAND", "LOR",
    "LXOR", "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC", "USERDEFINED_OP"};
static const char *const dt_names[] = {
    "UNDEFINED_DT", "SIGNED_CHAR", "UNSIGNED_CHAR", "SIGNED_SHORT", "UNSIGNED_SHORT",
    "SIGNED_INT", "UNSIGNED_INT", "SIGNED_LONG_LONG", "UNSIGNED_LONG_LONG", "FLOAT",
    "DOUBLE", "LONG_DOUBLE", "LOGICAL", "SINGLE_COMPLEX", "DOUBLE_COMPLEX", "LOC_2INT",
    "LOC_SHORT_INT", "LOC_FLOAT_INT", "LOC_DOUBLE_INT", "LOC_2FLOAT", "LOC_2DOUBLE",
    "USERDEFINED_DT"};

DCMF_Result coll_check_op(const char *fn, DCMF_Op op, DCMF_Dt dt)
{
    if (op == DCMF_USERDEFINED_OP)
        return dcmfl_fail(DCMF_UNIMPL, fn, "user-defined reduction operations are not supported");
    if (dt == DCMF_USERDEFINED_DT)
        return dcmfl_fail(DCMF_UNIMPL, fn, "user-defined datatypes are not supported");
    if ((unsigned)op <= DCMF_UNDEFINED_OP || (unsigned)op >= DCMF_OP_COUNT)
        return dcmfl_fail(DCMF_INVAL, fn, "op %d is not a DCMF_Op", (int)op);
    if ((unsigned)dt <= DCMF_UNDEFINED_DT || (unsigned)dt >= DCMF_DT_COUNT)
        return dcmfl_fail(DCMF_INVAL, fn, "datatype %d is not a DCMF_Dt", (int)dt);
    if (!(class_ops[class_of(dt)] & B(op)))
        return dcmfl_fail(DCMF_INVAL, fn, "DCMF_%s is not defined on DCMF_%s", op_names[op],
                          dt_names[dt]);
    return DCMF_SUCCESS;
}

size_t coll_dt_size(DCMF_Dt dt)
{
    switch (dt) {
    case DCMF_SIGNED_CHAR: case DCMF_UNSIGNED_CHAR: return 1;
    case DCMF_SIGNED_SHORT: case DCMF_UNSIGNED_SHORT: return 2;
    case DCMF_SIGNED_INT: case DCMF_UNSIGNED_INT: case DCMF_LOGICAL: return 4;
    case DCMF_FLOAT: return sizeof(float);
    case DCMF_SIGNED_LONG_LONG: case DCMF_UNSIGNED_LONG_LONG: return 8;
    case DCMF_DOUBLE: return sizeof(double);
    case DCMF_LONG_DOUBLE: return sizeof(long double);
    case DCMF_SINGLE_COMPLEX: return sizeof(float complex);
    case DCMF_DOUBLE_COMPLEX: return sizeof(double complex);
    case DCMF_LOC_2INT: return sizeof(struct loc_2int);
    case DCMF_LOC_SHORT_INT: return sizeof(struct loc_short_int);
    case DCMF_LOC_FLOAT_INT: return sizeof(struct loc_float_int);
    case DCMF_LOC_DOUBLE_INT: return sizeof(struct loc_double_int);
    case DCMF_LOC_2FLOAT: return sizeof(struct loc_2float);
    case DCMF_LOC_2DOUBLE: return sizeof(struct loc_2double);
    default: return 0;
    }
}

/* a[i] = E(x = a[i], y = b[i]) */
#define LOOP(T, E)                                                          \
    do {                                                                    \
        T *a_ = acc;                                                        \
        const T *b_ = in;                                                   \
        for (size_t i_ = 0; i_ < n; i_++) {                                 \
            T x = a_[i_], y = b_[i_];                                       \
            a_[i_] = (T)(E);                                                \
        }                                                                   \
    } while (0)

#define LOGICAL_CASES(T)                                                    \
    case DCMF_LAND: LOOP(T, x != 0 && y != 0); break;                       \
    case DCMF_LOR: LOOP(T, x != 0 || y != 0); break;                        \
    case DCMF_LXOR: LOOP(T, (x != 0) != (y != 0)); break;

/* W: an unsigned type at least as wide as int, so that SUM and PROD wrap
 * instead of overflowing a signed type (or an int after promotion). */
#define INT_OPS(T, W)                                                       \
    switch (op) {                                                           \
    case DCMF_MAX: LOOP(T, y > x ? y : x); break;                           \
    case DCMF_MIN: LOOP(T, y < x ? y : x); break;                           \
    case DCMF_SUM: LOOP(T, (W)x + (W)y); break;                             \
    case DCMF_PROD: LOOP(T, (W)x * (W)y); break;                            \
    case DCMF_BAND: LOOP(T, x & y); break;                                  \
    case DCMF_BOR: LOOP(T, x | y); break;                                   \
    case DCMF_BXOR: LOOP(T, x ^ y); break;                                  \
    LOGICAL_CASES(T)                                                        \
    default: break;                                                         \
    }

#define FLOAT_OPS(T)                                                        \
    switch (op) {                                                           \
    case DCMF_MAX: LOOP(T, y > x ? y : x); break;                           \
    case DCMF_MIN: LOOP(T, y < x ? y : x); break;                           \
    case DCMF_SUM: LOOP(T, x + y); break;                                   \
    case DCMF_PROD: LOOP(T, x * y); break;                                  \
    LOGICAL_CASES(T)                                                        \
    default: break;                                                         \
    }

#define COMPLEX_OPS(T)                                                      \
    switch (op) {                                                           \
    case DCMF_SUM: LOOP(T, x + y); break;                                   \
    case DCMF_PROD: LOOP(T, x * y); break;                                  \
    default: break;                                                         \
    }

/* MPI's rule: the better value wins; equal values keep the lower index.
 * Fields are assigned one by one so padding bytes stay as they were. */
#define LOC_OPS(T)                                                          \
    do {                                                                    \
        T *a_ = acc;                                                        \
        const T *b_ = in;                                                   \
        int mx = op == DCMF_MAXLOC;                                         \
        for (size_t i_ = 0; i_ < n; i_++) {                                 \
            int better = mx ? b_[i_].v > a_[i_].v : b_[i_].v < a_[i_].v;    \
            if (better || (b_[i_].v == a_[i_].v && b_[i_].i < a_[i_].i)) {  \
                a_[i_].v = b_[i_].v;                                        \
                a_[i_].i = b_[i_].i;                                        \
            }                                                               \
        }                                                                   \
    } while (0)

void coll_apply(DCMF_Op op, DCMF_Dt dt, void *acc, const void *in, size_t n)
{
    if (op == DCMF_NOOP)
        return;
    switch (dt) {
    case DCMF_SIGNED_CHAR: INT_OPS(signed char, unsigned) break;
    case DCMF_UNSIGNED_CHAR: INT_OPS(unsigned char, unsigned) break;
    case DCMF_SIGNED_SHORT: INT_OPS(short, unsigned) break;
    case DCMF_UNSIGNED_SHORT: INT_OPS(unsigned short, unsigned) break;
    case DCMF_SIGNED_INT: INT_OPS(int, unsigned) break;
    case DCMF_UNSIGNED_INT: INT_OPS(unsigned, unsigned) break;
    case DCMF_SIGNED_LONG_LONG: INT_OPS(long long, unsigned long long) break;
    case DCMF_UNSIGNED_LONG_LONG: INT_OPS(unsigned long long, unsigned long long) break;
    case DCMF_FLOAT: FLOAT_OPS(float) break;
    case DCMF_DOUBLE: FLOAT_OPS(double) break;
    case DCMF_LONG_DOUBLE: FLOAT_OPS(long double) break;
    case DCMF_LOGICAL:
        switch (op) {
        LOGICAL_CASES(int32_t)
        default: break;
        }
        break;
    case DCMF_SINGLE_COMPLEX: COMPLEX_OPS(float complex) break;
    case DCMF_DOUBLE_COMPLEX: COMPLEX_OPS(double complex) break;
    case DCMF_LOC_2INT: LOC_OPS(struct loc_2int); break;
    case DCMF_LOC_SHORT_INT: LOC_OPS(struct loc_short_int); break;
    case DCMF_LOC_FLOAT_INT: LOC_OPS(struct loc_float_int); break;
    case DCMF_LOC_DOUBLE_INT: LOC_OPS(struct loc_double_int); break;
    case DCMF_LOC_2FLOAT: LOC_OPS(struct loc_2float); break;
    case DCMF_LOC_2DOUBLE: LOC_OPS(struct loc_2double); break;
    default: break;
    }
}
