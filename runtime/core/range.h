/* Byte ranges of a packed strided section: a message carries bytes
 * [off, off+len) of the section's packed stream, which may start and end
 * inside a run. */
#ifndef ARMCII_RANGE_H
#define ARMCII_RANGE_H
#include <stddef.h>
#include "kernels.h"

/* fn(arg, section byte offset, stream byte offset - off, n) per piece. */
typedef void (*armcii_range_fn)(void *arg, size_t sec_off, size_t buf_off, size_t n);
void armcii_range_walk(const struct armcii_strided *s, size_t off, size_t len,
                       armcii_range_fn fn, void *arg);
void armcii_pack_range(const void *base, const struct armcii_strided *s, size_t off,
                       size_t len, void *buf);
void armcii_unpack_range(void *base, const struct armcii_strided *s, size_t off, size_t len,
                         const void *buf);
void armcii_acc_range(int acc_type, const void *scale, void *base,
                      const struct armcii_strided *s, size_t off, size_t len, const void *buf);
#endif
