/* The core's transfer engine: every put, get and accumulate, contiguous,
 * strided or vector, becomes sections moved on a path chosen from the
 * options, the memory and the device. */
#ifndef ARMCII_XFER_H
#define ARMCII_XFER_H
#include "kernels.h"
#include "op.h"

enum { XF_PUT, XF_GET, XF_ACC };

/* One strided transfer between local and remote (proc) sections. For
 * XF_GET local is the destination. */
void armcii_xfer(int what, int proc, int acc_type, const void *scale, void *local,
                 const struct armcii_strided *lsec, void *remote,
                 const struct armcii_strided *rsec, struct armcii_req *req, const char *fn);
/* Argument checks shared by the strided calls. */
void armcii_strided_args(const char *fn, void *src, int *src_stride, void *dst, int *dst_stride,
                         int *count, int levels, int proc, struct armcii_strided *ssec,
                         struct armcii_strided *dsec);
#endif
