/* Accumulate arithmetic (kernels.h): dst += scale * src and dst = scale *
 * src for the ARMCI_ACC_* types. Buffers come from user sections and NIC
 * payloads, so they may be unaligned: elements are moved with memcpy unless
 * both pointers are aligned, where a plain typed loop lets the compiler
 * vectorise. */
#include "kernels.h"

#include <stdint.h>
#include <string.h>

#include "armci.h"

static int aligned2(const void *a, const void *b, size_t align)
{
    return (((uintptr_t)a | (uintptr_t)b) & (align - 1)) == 0;
}

/* Integer arithmetic is done in the unsigned type so that overflow wraps
 * (as the NIC's sums do) instead of being undefined. */
#define INT_MULADD(T, U, d, a, s) ((T)((U)(d) + (U)(a) * (U)(s)))
#define INT_MUL(T, U, a, s) ((T)((U)(a) * (U)(s)))

/* One pair of kernels (acc, scale) per real type. OP(d, a, s) is the new
 * value of an element for accumulate, MUL(a, s) for scale. */
#define REAL_KERNELS(name, T, OP, MUL)                                          \
    static void acc_##name(const void *scale, void *dst, const void *src,        \
                           size_t n)                                             \
    {                                                                            \
        T a;                                                                     \
        memcpy(&a, scale, sizeof a);                                             \
        if (aligned2(dst, src, _Alignof(T))) {                                   \
            T *d = dst;                                                          \
            const T *s = src;                                                    \
            for (size_t i = 0; i < n; i++)                                       \
                d[i] = OP(d[i], a, s[i]);                                        \
            return;                                                              \
        }                                                                        \
        for (size_t i = 0; i < n; i++) {                                         \
            T x, y;                                                              \
            memcpy(&x, (char *)dst + i * sizeof(T), sizeof x);                   \
            memcpy(&y, (const char *)src + i * sizeof(T), sizeof y);             \
            x = OP(x, a, y);                                                     \
            memcpy((char *)dst + i * sizeof(T), &x, sizeof x);                   \
        }                                                                        \
    }                                                                            \
    static void scale_##name(const void *scale, void *dst, const void *src,      \
                             size_t n)                                           \
    {                                                                            \
        T a;                                                                     \
        memcpy(&a, scale, sizeof a);                                             \
        if (aligned2(dst, src, _Alignof(T))) {                                   \
            T *d = dst;                                                          \
            const T *s = src;                                                    \
            for (size_t i = 0; i < n; i++)                                       \
                d[i] = MUL(a, s[i]);                                             \
            return;                                                              \
        }                                                                        \
        for (size_t i = 0; i < n; i++) {                                         \
            T y;                                                                 \
            memcpy(&y, (const char *)src + i * sizeof(T), sizeof y);             \
            y = MUL(a, y);                                                       \
            memcpy((char *)dst + i * sizeof(T), &y, sizeof y);                   \
        }                                                                        \
    }

#define INT_OP(d, a, s) INT_MULADD(int, unsigned, d, a, s)
#define INT_SC(a, s) INT_MUL(int, unsigned, a, s)
#define LNG_OP(d, a, s) INT_MULADD(long, unsigned long, d, a, s)
#define LNG_SC(a, s) INT_MUL(long, unsigned long, a, s)
#define FP_OP(d, a, s) ((d) + (a) * (s))
#define FP_SC(a, s) ((a) * (s))

REAL_KERNELS(int, int, INT_OP, INT_SC)
REAL_KERNELS(lng, long, LNG_OP, LNG_SC)
REAL_KERNELS(flt, float, FP_OP, FP_SC)
REAL_KERNELS(dbl, double, FP_OP, FP_SC)

/* Complex elements are (re, im) pairs of T. The product is written out
 * rather than using _Complex so no C99 Annex G inf/nan recovery call sits
 * in the loop. ACC selects += (1) or = (0). */
#define CPLX_KERNEL(name, T, ACC)                                                \
    static void name(const void *scale, void *dst, const void *src, size_t n)    \
    {                                                                            \
        T a[2];                                                                  \
        memcpy(a, scale, sizeof a);                                              \
        for (size_t i = 0; i < n; i++) {                                         \
            T x[2], y[2], p[2];                                                  \
            memcpy(y, (const char *)src + i * sizeof y, sizeof y);               \
            p[0] = a[0] * y[0] - a[1] * y[1];                                    \
            p[1] = a[0] * y[1] + a[1] * y[0];                                    \
            if (ACC) {                                                           \
                memcpy(x, (char *)dst + i * sizeof x, sizeof x);                 \
                p[0] += x[0];                                                    \
                p[1] += x[1];                                                    \
            }                                                                    \
            memcpy((char *)dst + i * sizeof p, p, sizeof p);                     \
        }                                                                        \
    }

/* Fixed-size memcpy compiles to plain loads and stores, so the complex
 * kernels need no separate aligned path. */
CPLX_KERNEL(acc_cpl, float, 1)
CPLX_KERNEL(scale_cpl, float, 0)
CPLX_KERNEL(acc_dcp, double, 1)
CPLX_KERNEL(scale_dcp, double, 0)

typedef void (*elem_kernel)(const void *scale, void *dst, const void *src, size_t n);

struct acc_type {
    size_t size;
    elem_kernel acc, scale;
};

static const struct acc_type acc_types[] = {
    [ARMCI_ACC_INT] = {sizeof(int), acc_int, scale_int},
    [ARMCI_ACC_LNG] = {sizeof(long), acc_lng, scale_lng},
    [ARMCI_ACC_FLT] = {sizeof(float), acc_flt, scale_flt},
    [ARMCI_ACC_DBL] = {sizeof(double), acc_dbl, scale_dbl},
    [ARMCI_ACC_CPL] = {2 * sizeof(float), acc_cpl, scale_cpl},
    [ARMCI_ACC_DCP] = {2 * sizeof(double), acc_dcp, scale_dcp},
};

static const struct acc_type *acc_type_of(int acc_type)
{
    if (acc_type < 0 || (size_t)acc_type >= sizeof acc_types / sizeof acc_types[0])
        return NULL;
    return &acc_types[acc_type];
}

size_t armcii_acc_elem_size(int acc_type)
{
    const struct acc_type *t = acc_type_of(acc_type);
    return t ? t->size : 0;
}

/* A trailing partial element (bytes not a multiple of the size) is left
 * untouched: callers validate bytes first. */
void armcii_acc(int acc_type, const void *scale, void *dst, const void *src, size_t bytes)
{
    const struct acc_type *t = acc_type_of(acc_type);
    if (t)
        t->acc(scale, dst, src, bytes / t->size);
}

void armcii_scale(int acc_type, const void *scale, void *dst, const void *src, size_t bytes)
{
    const struct acc_type *t = acc_type_of(acc_type);
    if (t)
        t->scale(scale, dst, src, bytes / t->size);
}

/* Exact comparison on purpose: only a scale that is exactly one makes the
 * scaled sum bit-identical to a plain sum. */
int armcii_scale_is_one(int acc_type, const void *scale)
{
    switch (acc_type) {
    case ARMCI_ACC_INT: { int v; memcpy(&v, scale, sizeof v); return v == 1; }
    case ARMCI_ACC_LNG: { long v; memcpy(&v, scale, sizeof v); return v == 1; }
    case ARMCI_ACC_FLT: { float v; memcpy(&v, scale, sizeof v); return v == 1.0f; }
    case ARMCI_ACC_DBL: { double v; memcpy(&v, scale, sizeof v); return v == 1.0; }
    case ARMCI_ACC_CPL: { float v[2]; memcpy(v, scale, sizeof v); return v[0] == 1.0f && v[1] == 0.0f; }
    case ARMCI_ACC_DCP: { double v[2]; memcpy(v, scale, sizeof v); return v[0] == 1.0 && v[1] == 0.0; }
    default: return 0;
    }
}
