/* Local kernels of the runtime core: strided iteration, packing, the
 * accumulate arithmetic and the reductions of armci_msg_*gop. Pure
 * functions of memory, no communication, so they are unit-tested alone. */
#ifndef ARMCII_KERNELS_H
#define ARMCII_KERNELS_H
#include <stddef.h>
#include <stdint.h>

#define ARMCII_MAX_LEVELS 8 /* stride levels (armci.h's ARMCI_MAX_STRIDE_LEVEL): 9 dimensions */

/* A strided section: count[0] contiguous bytes, repeated count[1] times at
 * stride[0], that block count[2] times at stride[1], ... */
struct armcii_strided {
    int levels;
    int count[ARMCII_MAX_LEVELS + 1];
    long stride[ARMCII_MAX_LEVELS];
};

/* 0, or -1 with *why naming the bad argument ("count[2] < 0", "stride_levels
 * > 6", "src_stride[1] < count[0]"...) -- checks one side's shape. */
int armcii_strided_set(struct armcii_strided *s, int levels, const int *stride,
                       const int *count, const char **why);
/* Number of contiguous runs (product of count[1..levels]); total bytes. */
/* (count[0] == 0: runs is still that product, every run empty, bytes 0.) */
size_t armcii_strided_runs(const struct armcii_strided *s);
size_t armcii_strided_bytes(const struct armcii_strided *s);
/* Byte offset of run number i (0 <= i < runs), in row-major order of the
 * levels (level 1 fastest). */
size_t armcii_strided_offset(const struct armcii_strided *s, size_t i);

/* Copy between a strided section at base and a packed buffer: runs
 * [first, first+nruns). Return bytes copied. */
/* (The range is clamped to the section's runs; nothing is copied past it.) */
size_t armcii_pack(const void *base, const struct armcii_strided *s, size_t first,
                   size_t nruns, void *buf);
size_t armcii_unpack(void *base, const struct armcii_strided *s, size_t first,
                     size_t nruns, const void *buf);

/* Accumulate: dst[i] += scale * src[i] for the ARMCI_ACC_* type (complex
 * types: complex scale and complex multiply). bytes must be a multiple of
 * the element size (armcii_acc_elem_size). dst and src may be unaligned. */
size_t armcii_acc_elem_size(int acc_type); /* 0 for an unknown type */
void armcii_acc(int acc_type, const void *scale, void *dst, const void *src, size_t bytes);
/* dst[i] = scale * src[i] (for scaling into a buffer before a NIC sum). */
void armcii_scale(int acc_type, const void *scale, void *dst, const void *src, size_t bytes);
/* Whether scale is exactly one (1, 1L, 1.0f, 1.0, 1+0i), so a plain sum will do. */
int armcii_scale_is_one(int acc_type, const void *scale);

/* Reductions for armci_msg_*gop: type is one of message.h's ARMCI_INT..
 * ARMCI_DOUBLE (armcii_type_canon maps ARMCI-MPI's 0..4 onto them first).
 * op is matched by prefix as GA's ARMCI matches it (reduce_op.c has the
 * list); the bitwise and logical ops are for the integer types only.
 * Returns an opaque op code >= 0, or -1. */
int armcii_type_canon(int type);
int armcii_reduce_op(const char *op, int type);
int armcii_reduce_op_is_abs(int opcode); /* absmax, absmin */
size_t armcii_type_size(int type); /* 0 for unknown */
/* inout[i] = inout[i] (op) in[i] for n elements. */
void armcii_reduce(int opcode, int type, void *inout, const void *in, size_t n);
/* Selection: op "min..." gives -1, "max..." 1, anything else 0 (GA's
 * prefix rule). armcii_sel_better compares the first element (type) of a
 * and b, returns 1 when b wins (ties: the lower rank, i.e. a, wins). */
int armcii_sel_op(const char *op);
int armcii_sel_better(const char *op, int type, const void *a, const void *b);
#endif
