/* Element-wise atomic arithmetic for the NIC. Integers compute in uint64_t
 * so wrap-around is defined (as on a real NIC ALU); a failed compare leaves
 * the target's value untouched (long double padding is still zeroed, see
 * zero_ld_padding). */
#include "emunic/atomic_op.h"

#include <complex.h>
#include <float.h>
#include <stdbool.h>
#include <string.h>

typedef long double ldouble;
typedef float _Complex fcomplex;
typedef double _Complex dcomplex;
typedef long double _Complex lcomplex;

static const size_t dtype_size[EMU_DTYPE_COUNT_] = {
    [EMU_INT8] = 1, [EMU_UINT8] = 1, [EMU_INT16] = 2, [EMU_UINT16] = 2,
    [EMU_INT32] = 4, [EMU_UINT32] = 4, [EMU_INT64] = 8, [EMU_UINT64] = 8,
    [EMU_FLOAT] = sizeof(float), [EMU_DOUBLE] = sizeof(double),
    [EMU_LONG_DOUBLE] = sizeof(ldouble),
    [EMU_FLOAT_COMPLEX] = sizeof(fcomplex),
    [EMU_DOUBLE_COMPLEX] = sizeof(dcomplex),
    [EMU_LONG_DOUBLE_COMPLEX] = sizeof(lcomplex),
};

size_t emu_dtype_size(unsigned dtype)
{
    return dtype < EMU_DTYPE_COUNT_ ? dtype_size[dtype] : 0;
}

static bool is_integer(unsigned dtype) { return dtype <= EMU_UINT64; }
static bool is_complex(unsigned dtype) { return dtype >= EMU_FLOAT_COMPLEX && dtype < EMU_DTYPE_COUNT_; }

int emu_aop_is_swap(unsigned aop)
{
    return aop >= EMU_AOP_SWAP && aop <= EMU_AOP_MSWAP;
}

int emu_aop_valid(unsigned aop, unsigned dtype)
{
    if (aop >= EMU_AOP_COUNT_ || dtype >= EMU_DTYPE_COUNT_)
        return 0;
    switch (aop) {
    case EMU_AOP_SUM: case EMU_AOP_PROD: case EMU_AOP_SWAP:
    case EMU_AOP_CSWAP: case EMU_AOP_CSWAP_NE:
        return 1;
    case EMU_AOP_MIN: case EMU_AOP_MAX: case EMU_AOP_CSWAP_LE:
    case EMU_AOP_CSWAP_LT: case EMU_AOP_CSWAP_GE: case EMU_AOP_CSWAP_GT:
        return !is_complex(dtype);
    default: /* logical, bitwise, masked swap */
        return is_integer(dtype);
    }
}

/* Cases shared by every type. `c` is the compare value. */
#define SWAP_EQ_CASES                                   \
    case EMU_AOP_SWAP: r = b; break;                    \
    case EMU_AOP_CSWAP: if (!(c == a)) continue; r = b; break; \
    case EMU_AOP_CSWAP_NE: if (!(c != a)) continue; r = b; break;

#define ORDER_CASES                                     \
    case EMU_AOP_MIN: r = b < a ? b : a; break;         \
    case EMU_AOP_MAX: r = b > a ? b : a; break;         \
    case EMU_AOP_CSWAP_LE: if (!(c <= a)) continue; r = b; break; \
    case EMU_AOP_CSWAP_LT: if (!(c < a)) continue; r = b; break;  \
    case EMU_AOP_CSWAP_GE: if (!(c >= a)) continue; r = b; break; \
    case EMU_AOP_CSWAP_GT: if (!(c > a)) continue; r = b; break;

#define INT_CASES(T)                                                 \
    case EMU_AOP_SUM: r = (T)((uint64_t)a + (uint64_t)b); break;    \
    case EMU_AOP_PROD: r = (T)((uint64_t)a * (uint64_t)b); break;   \
    case EMU_AOP_LOR: r = (T)(a || b); break;                        \
    case EMU_AOP_LAND: r = (T)(a && b); break;                       \
    case EMU_AOP_LXOR: r = (T)(!a != !b); break;                     \
    case EMU_AOP_BOR: r = (T)(a | b); break;                         \
    case EMU_AOP_BAND: r = (T)(a & b); break;                        \
    case EMU_AOP_BXOR: r = (T)(a ^ b); break;                        \
    case EMU_AOP_MSWAP: r = (T)((a & (T)~c) | (b & c)); break;

#define FLOAT_CASES                                     \
    case EMU_AOP_SUM: r = a + b; break;                 \
    case EMU_AOP_PROD: r = a * b; break;

/* One loop per type; validity was checked before any byte is touched. */
#define DEF_APPLY(FN, T, CASES)                                              \
    static void FN(unsigned aop, unsigned char *t, const unsigned char *o,   \
                   const void *o2, size_t n)                                 \
    {                                                                        \
        T c;                                                                 \
        memset(&c, 0, sizeof c);                                             \
        if (o2)                                                              \
            memcpy(&c, o2, sizeof c);                                        \
        for (size_t i = 0; i < n; i++) {                                     \
            T a, b, r;                                                       \
            memcpy(&a, t + i * sizeof(T), sizeof a);                         \
            memcpy(&b, o + i * sizeof(T), sizeof b);                         \
            memset(&r, 0, sizeof r);                                         \
            switch (aop) {                                                   \
                CASES                                                        \
            default:                                                         \
                continue;                                                    \
            }                                                                \
            memcpy(t + i * sizeof(T), &r, sizeof r);                         \
        }                                                                    \
    }

DEF_APPLY(apply_i8, int8_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(int8_t))
DEF_APPLY(apply_u8, uint8_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(uint8_t))
DEF_APPLY(apply_i16, int16_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(int16_t))
DEF_APPLY(apply_u16, uint16_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(uint16_t))
DEF_APPLY(apply_i32, int32_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(int32_t))
DEF_APPLY(apply_u32, uint32_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(uint32_t))
DEF_APPLY(apply_i64, int64_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(int64_t))
DEF_APPLY(apply_u64, uint64_t, SWAP_EQ_CASES ORDER_CASES INT_CASES(uint64_t))
DEF_APPLY(apply_f, float, SWAP_EQ_CASES ORDER_CASES FLOAT_CASES)
DEF_APPLY(apply_d, double, SWAP_EQ_CASES ORDER_CASES FLOAT_CASES)
DEF_APPLY(apply_ld, ldouble, SWAP_EQ_CASES ORDER_CASES FLOAT_CASES)
DEF_APPLY(apply_fc, fcomplex, SWAP_EQ_CASES FLOAT_CASES)
DEF_APPLY(apply_dc, dcomplex, SWAP_EQ_CASES FLOAT_CASES)
DEF_APPLY(apply_lc, lcomplex, SWAP_EQ_CASES FLOAT_CASES)

typedef void (*apply_fn)(unsigned, unsigned char *, const unsigned char *,
                         const void *, size_t);

static const apply_fn apply_by_type[EMU_DTYPE_COUNT_] = {
    [EMU_INT8] = apply_i8, [EMU_UINT8] = apply_u8,
    [EMU_INT16] = apply_i16, [EMU_UINT16] = apply_u16,
    [EMU_INT32] = apply_i32, [EMU_UINT32] = apply_u32,
    [EMU_INT64] = apply_i64, [EMU_UINT64] = apply_u64,
    [EMU_FLOAT] = apply_f, [EMU_DOUBLE] = apply_d,
    [EMU_LONG_DOUBLE] = apply_ld, [EMU_FLOAT_COMPLEX] = apply_fc,
    [EMU_DOUBLE_COMPLEX] = apply_dc, [EMU_LONG_DOUBLE_COMPLEX] = apply_lc,
};

/* x86 long double carries 10 significant bytes in a 16-byte slot; the rest
 * is whatever the FPU store left. Zero it so results are the same bytes
 * whoever computes them (tests compare memory, not values). */
#if LDBL_MANT_DIG == 64
#define LD_SIG 10
#else
#define LD_SIG sizeof(ldouble)
#endif

static void zero_ld_padding(unsigned dtype, unsigned char *t, size_t len)
{
    size_t part = sizeof(ldouble);
    if ((dtype != EMU_LONG_DOUBLE && dtype != EMU_LONG_DOUBLE_COMPLEX) || LD_SIG == part)
        return;
    for (size_t off = 0; off + part <= len; off += part)
        memset(t + off + LD_SIG, 0, part - LD_SIG);
}

int emu_atomic_apply(unsigned aop, unsigned dtype, void *target,
                     const void *operand, const void *operand2, size_t len,
                     void *fetch)
{
    if (!emu_aop_valid(aop, dtype))
        return -1;
    size_t es = dtype_size[dtype];
    if (len == 0 || len % es != 0)
        return -1;
    /* a plain swap may cover several elements; the conditional ones, one */
    if (emu_aop_is_swap(aop) && aop != EMU_AOP_SWAP && len != es)
        return -1;
    if (aop != EMU_AOP_SWAP && emu_aop_is_swap(aop) && !operand2)
        return -1;
    if (fetch)
        memmove(fetch, target, len);
    apply_by_type[dtype](aop, target, operand, operand2, len / es);
    zero_ld_padding(dtype, target, len);
    return 0;
}

static const char *const aop_names[EMU_AOP_COUNT_] = {
    "min", "max", "sum", "prod", "lor", "land", "bor", "band", "lxor",
    "bxor", "swap", "cswap", "cswap_ne", "cswap_le", "cswap_lt",
    "cswap_ge", "cswap_gt", "mswap",
};

static const char *const dtype_names[EMU_DTYPE_COUNT_] = {
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
    "uint64", "float", "double", "long double", "float complex",
    "double complex", "long double complex",
};

const char *emu_aop_name(unsigned aop)
{
    return aop < EMU_AOP_COUNT_ ? aop_names[aop] : "?";
}

const char *emu_dtype_name(unsigned dtype)
{
    return dtype < EMU_DTYPE_COUNT_ ? dtype_names[dtype] : "?";
}
