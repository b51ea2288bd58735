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
/* The ARMCII_PATH_* armcii_xfer would take for this transfer, or -1 when
 * remote is not ARMCI memory (armcii_xfer then reports it). */
int armcii_xfer_path(int what, int proc, void *remote, const struct armcii_strided *rsec);
/* ARMCI_ACC=source: get, add, put back under the target's accumulate
 * lock (acc_source.c); complete, and fenced, when it returns. */
struct armcii_seg;
void armcii_acc_source(int proc, int acc_type, const void *scale, char *local,
                       const struct armcii_strided *lsec, char *remote,
                       const struct armcii_strided *rsec, struct armcii_seg *seg, const char *fn);
/* Handoff mode: a blocking put or accumulate of at most ARMCI_HANDOFF_SIZE
 * bytes is packed into a pool buffer and left to complete on its own (the
 * target's implicit request covers it). Returns 1 if it was handed off, 0
 * if the caller must do it the normal way (handoff.c). */
int armcii_handoff(int what, int proc, int acc_type, const void *scale, void *src,
                   const struct armcii_strided *ssec, void *dst,
                   const struct armcii_strided *dsec, const char *fn);
void armcii_handoff_finalize(void);
extern unsigned long armcii_handoffs, armcii_handoff_stalls;
/* Argument checks shared by the strided calls. */
void armcii_strided_args(const char *fn, void *src, int *src_stride, void *dst, int *dst_stride,
                         int *count, int levels, int proc, struct armcii_strided *ssec,
                         struct armcii_strided *dsec);
#endif
