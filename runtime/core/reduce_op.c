/* Reductions and selections of armci_msg_*gop / armci_msg_sel (kernels.h).
 * Elements are loaded with memcpy: message buffers carry no alignment
 * promise, and a fixed-size memcpy costs nothing over a typed load. */
#include "kernels.h"

#include <math.h>
#include <string.h>

#include "message.h"

enum {
    OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_ABSMAX, OP_ABSMIN, OP_OR, OP_AND, OP_LAND, OP_LOR,
    OP_COUNT_
};

/* GA's ARMCI tries these names in this order and takes the first that is a
 * prefix of op (strncmp over the name's length), so "+" and "+=" both sum
 * and "maxval" is "max". The first six are the floating-point ops; the
 * rest are for the integer types only. "and" is emunic's: GA's ARMCI knows
 * it as "&" or "band". */
static const struct {
    const char *name;
    int code;
} op_names[] = {
    {"+", OP_SUM},     {"*", OP_PROD},     {"max", OP_MAX},   {"min", OP_MIN},
    {"absmax", OP_ABSMAX}, {"absmin", OP_ABSMIN}, {"or", OP_OR},
    {"&&", OP_LAND},   {"land", OP_LAND},  {"||", OP_LOR},    {"lor", OP_LOR},
    {"&", OP_AND},     {"band", OP_AND},   {"|", OP_OR},      {"bor", OP_OR},
    {"and", OP_AND},
};
#define N_FP_OPS 6

static int is_integer_type(int type)
{
    return type == ARMCI_INT || type == ARMCI_LONG || type == ARMCI_LONG_LONG;
}

/* ARMCI-MPI's message.h numbers the types 0..4 in this order; a binary
 * built against it (Debian's libga-mpich) passes those numbers. */
int armcii_type_canon(int type)
{
    static const int ga[] = {ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE};
    return type >= 0 && type < 5 ? ga[type] : type;
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

int armcii_reduce_op(const char *op, int type)
{
    if (!op || armcii_type_size(type) == 0)
        return -1;
    size_t n = is_integer_type(type) ? sizeof op_names / sizeof op_names[0] : N_FP_OPS;
    for (size_t i = 0; i < n; i++)
        if (strncmp(op, op_names[i].name, strlen(op_names[i].name)) == 0)
            return op_names[i].code;
    return -1;
}

int armcii_reduce_op_is_abs(int opcode)
{
    return opcode == OP_ABSMAX || opcode == OP_ABSMIN;
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
        case OP_LAND: EACH(T, (T)(x && y)) break;                              \
        case OP_LOR: EACH(T, (T)(x || y)) break;                               \
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

int armcii_sel_op(const char *op)
{
    if (op && strncmp(op, "min", 3) == 0)
        return -1;
    if (op && strncmp(op, "max", 3) == 0)
        return 1;
    return 0;
}

/* Strictly better only, so on a tie the lower rank (a) keeps the prize. */
int armcii_sel_better(const char *op, int type, const void *a, const void *b)
{
    int dir = armcii_sel_op(op);
    return dir && cmp_first(type, a, b) * dir > 0;
}
