/* Target-side atomic arithmetic: the NIC applies an element-wise
 * operation to target memory. The op and type sets are the union of what
 * Portals 4, PAMI and DCMF need, so personalities map onto them 1:1. */
#ifndef EMUNIC_ATOMIC_OP_H
#define EMUNIC_ATOMIC_OP_H

#include <stddef.h>
#include <stdint.h>

/* Longest element vector one atomic operation may carry. */
#define EMU_ATOMIC_MAX (1u << 20)

enum emu_aop {
    EMU_AOP_MIN = 0,
    EMU_AOP_MAX,
    EMU_AOP_SUM,
    EMU_AOP_PROD,
    EMU_AOP_LOR,
    EMU_AOP_LAND,
    EMU_AOP_BOR,
    EMU_AOP_BAND,
    EMU_AOP_LXOR,
    EMU_AOP_BXOR,
    EMU_AOP_SWAP,
    EMU_AOP_CSWAP,    /* replace if target == compare */
    EMU_AOP_CSWAP_NE, /* replace if compare != target */
    EMU_AOP_CSWAP_LE, /* replace if compare <= target */
    EMU_AOP_CSWAP_LT,
    EMU_AOP_CSWAP_GE,
    EMU_AOP_CSWAP_GT,
    EMU_AOP_MSWAP,    /* target = (target & ~mask) | (operand & mask) */
    EMU_AOP_COUNT_
};

enum emu_dtype {
    EMU_INT8 = 0,
    EMU_UINT8,
    EMU_INT16,
    EMU_UINT16,
    EMU_INT32,
    EMU_UINT32,
    EMU_INT64,
    EMU_UINT64,
    EMU_FLOAT,
    EMU_DOUBLE,
    EMU_LONG_DOUBLE,
    EMU_FLOAT_COMPLEX,
    EMU_DOUBLE_COMPLEX,
    EMU_LONG_DOUBLE_COMPLEX,
    EMU_DTYPE_COUNT_
};

/* Size in bytes of one element (0 for an unknown type). long double is
 * stored in its full sizeof (16 on x86-64), as C programs lay it out. */
size_t emu_dtype_size(unsigned dtype);

/* Whether op is defined for dtype (no bitwise ops on floats, no ordering on
 * complex numbers, as in Portals 4). */
int emu_aop_valid(unsigned aop, unsigned dtype);

/* Swap-family ops (SWAP, CSWAP*, MSWAP) act on exactly one element. */
int emu_aop_is_swap(unsigned aop);

/* Apply op element-wise: target[i] = target[i] op operand[i] for len bytes.
 * For the swap family, operand2 is the compare value or the mask and len
 * must be one element. If fetch is non-NULL the old target bytes are copied
 * there first. Returns 0, or -1 if the combination is invalid or len is not
 * a whole number of elements. Buffers may be unaligned. The padding bytes
 * of long double elements (6 of 16 on x86-64) are zeroed in the target, so
 * the result is the same bytes whoever computes it. */
int emu_atomic_apply(unsigned aop, unsigned dtype, void *target,
                     const void *operand, const void *operand2, size_t len,
                     void *fetch);

const char *emu_aop_name(unsigned aop);
const char *emu_dtype_name(unsigned dtype);

#endif
