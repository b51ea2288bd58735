/* Reductions and selections of armci_msg_*gop / armci_msg_sel (kernels.h).
 * Elements are loaded with memcpy: message buffers carry no alignment
 * promise, and a fixed-size memcpy costs nothing over a typed load. */
#include "kernels.h"

#include <math.h>
#include <string.h>

#include "message.h"

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_ABSMAX, OP_ABSMIN, OP_OR, OP_AND, OP_COUNT_ };

static const char *const op_names[OP_COUNT_] = {
    [OP_SUM] = "+", [OP_PROD] = "*", [OP_MAX] = "max", [OP_MIN] = "min",
    [OP_ABSMAX] = "absmax", [OP_ABSMIN] = "absmin", [OP_OR] = "or", [OP_AND] = "and",
};

static int is_integer_type(int type)
{
    return type == ARMCI_INT || type == ARMCI_LONG || type == ARMCI_LONG_LONG;
}

size_t armcii_type_size(int type)
{
    switch (type) {
    case ARMCI_INT: return sizeof(int);
    case ARMCI_LONG: return sizeof(long);
    case ARMCI_LONG_LONG: return sizeof(long long);
    case ARMCI_FLOAT: return sizeof(float);
    case ARMCI_DOUBLE: return sizeof(double);
    default: return 0;
    }
}

/* Exact names only: a prefix match would let "maxi" mean "max". */
int armcii_reduce_op(const char *op, int type)
{
    if (!op || armcii_type_size(type) == 0)
        return -1;
    for (int i = 0; i < OP_COUNT_; i++) {
        if (strcmp(op, op_names[i]) != 0)
            continue;
        if ((i == OP_OR || i == OP_AND) && !is_integer_type(type))
            return -1; /* bitwise ops have no meaning on floating point */
        return i;
    }
    return -1;
}

/* x = EXPR(x, y) over n elements of T, x from inout and y from in. */
#define EACH(T, EXPR)                                                  \
    for (size_t i = 0; i < n; i++) {                                   \
        T x, y;                                                        \
        memcpy(&x, io + i * sizeof(T), sizeof x);                      \
        memcpy(&y, src + i * sizeof(T), sizeof y);                     \
        x = (EXPR);                                                    \
        memcpy(io + i * sizeof(T), &x, sizeof x);                      \
    }

/* |v| in the unsigned type U, so the most negative value has a magnitude
 * too. absmax/absmin convert it back to T, which wraps that one value to
 * itself (GCC and Clang convert modulo 2^N), where C's abs() would be UB. */
#define MAG(U, v) ((v) < 0 ? (U)0 - (U)(v) : (U)(v))
#define MAXU(U, a, b) (MAG(U, a) >= MAG(U, b) ? MAG(U, a) : MAG(U, b))
#define MINU(U, a, b) (MAG(U, a) <= MAG(U, b) ? MAG(U, a) : MAG(U, b))

/* Sums and products wrap (computed in U) instead of overflowing. */
#define INT_REDUCE(name, T, U)                                                 \
    static void name(int op, char *io, const char *src, size_t n)              \
    {                                                                          \
        switch (op) {                                                          \
        case OP_SUM: EACH(T, (T)((U)x + (U)y)) break;                          \
        case OP_PROD: EACH(T, (T)((U)x * (U)y)) break;                         \
        case OP_MAX: EACH(T, y > x ? y : x) break;                             \
        case OP_MIN: EACH(T, y < x ? y : x) break;                             \
        case OP_ABSMAX: EACH(T, (T)MAXU(U, x, y)) break;                       \
        case OP_ABSMIN: EACH(T, (T)MINU(U, x, y)) break;                       \
        case OP_OR: EACH(T, x | y) break;                                      \
        case OP_AND: EACH(T, x & y) break;                                     \
        default: break;                                                        \
        }                                                                      \
    }

#define FP_REDUCE(name, T, ABS)                                                \
    static void name(int op, char *io, const char *src, size_t n)              \
    {                                                                          \
        switch (op) {                                                          \
        case OP_SUM: EACH(T, x + y) break;                                     \
        case OP_PROD: EACH(T, x * y) break;                                    \
        case OP_MAX: EACH(T, y > x ? y : x) break;                             \
        case OP_MIN: EACH(T, y < x ? y : x) break;                             \
        case OP_ABSMAX: EACH(T, ABS(y) > ABS(x) ? ABS(y) : ABS(x)) break;      \
        case OP_ABSMIN: EACH(T, ABS(y) < ABS(x) ? ABS(y) : ABS(x)) break;      \
        default: break; /* or/and are refused by armcii_reduce_op */           \
        }                                                                      \
    }

INT_REDUCE(reduce_int, int, unsigned)
INT_REDUCE(reduce_long, long, unsigned long)
INT_REDUCE(reduce_llong, long long, unsigned long long)
FP_REDUCE(reduce_float, float, fabsf)
FP_REDUCE(reduce_double, double, fabs)

void armcii_reduce(int opcode, int type, void *inout, const void *in, size_t n)
{
    switch (type) {
    case ARMCI_INT: reduce_int(opcode, inout, in, n); break;
    case ARMCI_LONG: reduce_long(opcode, inout, in, n); break;
    case ARMCI_LONG_LONG: reduce_llong(opcode, inout, in, n); break;
    case ARMCI_FLOAT: reduce_float(opcode, inout, in, n); break;
    case ARMCI_DOUBLE: reduce_double(opcode, inout, in, n); break;
    default: break;
    }
}

/* Sign of b - a for the first element (-1, 0, 1), compared in the type
 * itself so no difference can overflow. */
#define CMP_FIRST(T, a, b)                                                     \
    do {                                                                       \
        T x, y;                                                                \
        memcpy(&x, a, sizeof x);                                               \
        memcpy(&y, b, sizeof y);                                               \
        return (y > x) - (y < x);                                              \
    } while (0)

static int cmp_first(int type, const void *a, const void *b)
{
    switch (type) {
    case ARMCI_INT: CMP_FIRST(int, a, b);
    case ARMCI_LONG: CMP_FIRST(long, a, b);
    case ARMCI_LONG_LONG: CMP_FIRST(long long, a, b);
    case ARMCI_FLOAT: CMP_FIRST(float, a, b);
    case ARMCI_DOUBLE: CMP_FIRST(double, a, b);
    default: return 0;
    }
}

/* Strictly better only, so on a tie the lower rank (a) keeps the prize. */
int armcii_sel_better(const char *op, int type, const void *a, const void *b)
{
    if (!op)
        return 0;
    if (strcmp(op, "max") == 0)
        return cmp_first(type, a, b) > 0;
    if (strcmp(op, "min") == 0)
        return cmp_first(type, a, b) < 0;
    return 0;
}
