/* The ARMCI data-movement calls: each checks its arguments, describes
 * itself as sections, and hands them to the transfer engine. Blocking
 * calls wait for local completion (or, in handoff mode, for a copy into a
 * pool buffer); remote completion is a fence. */
#include <string.h>
#include "config.h"
#include "mem.h"
#include "order.h"
#include "xfer.h"
#include "serial.h"

static void contig(struct armcii_strided *s, int bytes, const char *fn)
{
    if (bytes < 0)
        armcii_error(1, "%s: bytes %d < 0", fn, bytes);
    memset(s, 0, sizeof *s);
    s->count[0] = bytes;
}

/* The request a call adds to: its own for a blocking call (waited for in
 * finish), the handle's or proc's implicit one otherwise. */
static struct armcii_req *begin(struct armcii_req *local, int blocking, armci_hdl_t *hdl,
                                int proc, const char *fn)
{
    *local = (struct armcii_req){0};
    return blocking ? local : armcii_req_for(hdl, proc, fn);
}

/* One section pair: src and dst as the caller named them, so for a get
 * the local side is dst. */
static void move(int what, int proc, int acc_type, void *scale, void *src,
                 const struct armcii_strided *ssec, void *dst, const struct armcii_strided *dsec,
                 struct armcii_req *req, const char *fn)
{
    if (what == XF_GET)
        armcii_xfer(XF_GET, proc, 0, NULL, dst, dsec, src, ssec, req, fn);
    else
        armcii_xfer(what, proc, acc_type, scale, src, ssec, dst, dsec, req, fn);
}

/* A blocking call reports a failed transfer itself (a non-blocking one
 * through ARMCI_Wait's return value). */
static int finish(struct armcii_req *local, int blocking, int what, int proc, const char *fn)
{
    if (!blocking)
        return 0;
    armcii_req_wait_issued(local);
    if (local->status)
        armcii_error(1, "%s: the transfer with rank %d failed (device status %d): is %s a valid "
                     "local buffer?", fn, proc, local->status, what == XF_GET ? "dst" : "src");
    return 0;
}

/* Accumulate works on whole elements. d >= 0 names a vector descriptor. */
static void acc_bytes(int acc_type, int bytes, int d, const char *fn)
{
    size_t es = armcii_acc_elem_size(acc_type);
    if (!es || bytes % (int)es == 0)
        return; /* an unknown type is reported with the transfer */
    if (d >= 0)
        armcii_error(1, "%s: descriptor %d: bytes = %d is not a multiple of the element size %zu",
                     fn, d, bytes, es);
    armcii_error(1, "%s: bytes = %d is not a multiple of the element size %zu", fn, bytes, es);
}

static int contig_op(int what, int acc_type, void *scale, void *src, void *dst, int bytes,
                     int proc, armci_hdl_t *hdl, int blocking, const char *fn)
{
    armcii_need_init(fn);
    armcii_check_proc(proc, fn);
    struct armcii_strided s;
    contig(&s, bytes, fn);
    if (what == XF_ACC)
        acc_bytes(acc_type, bytes, -1, fn);
    if (bytes && (!src || !dst))
        armcii_error(1, "%s: %s is NULL", fn, !src ? "src" : "dst");
    if (blocking && armcii_handoff(what, proc, acc_type, scale, src, &s, dst, &s, fn))
        return 0;
    struct armcii_req local, *req = begin(&local, blocking, hdl, proc, fn);
    move(what, proc, acc_type, scale, src, &s, dst, &s, req, fn);
    return finish(&local, blocking, what, proc, fn);
}

int ARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    ARMCII_SERIAL;
    return contig_op(XF_PUT, 0, NULL, src, dst, bytes, proc, NULL, 1, "ARMCI_Put");
}

int ARMCI_Get(void *src, void *dst, int bytes, int proc)
{
    ARMCII_SERIAL;
    return contig_op(XF_GET, 0, NULL, src, dst, bytes, proc, NULL, 1, "ARMCI_Get");
}

int ARMCI_Acc(int acc_type, void *scale, void *src, void *dst, int bytes, int proc)
{
    ARMCII_SERIAL;
    return contig_op(XF_ACC, acc_type, scale, src, dst, bytes, proc, NULL, 1, "ARMCI_Acc");
}

int ARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return contig_op(XF_PUT, 0, NULL, src, dst, bytes, proc, hdl, 0, "ARMCI_NbPut");
}

int ARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return contig_op(XF_GET, 0, NULL, src, dst, bytes, proc, hdl, 0, "ARMCI_NbGet");
}

int ARMCI_NbAcc(int acc_type, void *scale, void *src, void *dst, int bytes, int proc,
                armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return contig_op(XF_ACC, acc_type, scale, src, dst, bytes, proc, hdl, 0, "ARMCI_NbAcc");
}

static int strided_op(int what, int acc_type, void *scale, void *src, int *src_stride, void *dst,
                      int *dst_stride, int *count, int levels, int proc, armci_hdl_t *hdl,
                      int blocking, const char *fn)
{
    struct armcii_strided ssec, dsec;
    armcii_strided_args(fn, src, src_stride, dst, dst_stride, count, levels, proc, &ssec, &dsec);
    if (blocking && armcii_handoff(what, proc, acc_type, scale, src, &ssec, dst, &dsec, fn))
        return 0;
    struct armcii_req local, *req = begin(&local, blocking, hdl, proc, fn);
    move(what, proc, acc_type, scale, src, &ssec, dst, &dsec, req, fn);
    return finish(&local, blocking, what, proc, fn);
}

int ARMCI_PutS(void *src, int *src_stride, void *dst, int *dst_stride, int *count, int levels,
               int proc)
{
    ARMCII_SERIAL;
    return strided_op(XF_PUT, 0, NULL, src, src_stride, dst, dst_stride, count, levels, proc,
                      NULL, 1, "ARMCI_PutS");
}

int ARMCI_GetS(void *src, int *src_stride, void *dst, int *dst_stride, int *count, int levels,
               int proc)
{
    ARMCII_SERIAL;
    return strided_op(XF_GET, 0, NULL, src, src_stride, dst, dst_stride, count, levels, proc,
                      NULL, 1, "ARMCI_GetS");
}

int ARMCI_AccS(int acc_type, void *scale, void *src, int *src_stride, void *dst, int *dst_stride,
               int *count, int levels, int proc)
{
    ARMCII_SERIAL;
    return strided_op(XF_ACC, acc_type, scale, src, src_stride, dst, dst_stride, count, levels,
                      proc, NULL, 1, "ARMCI_AccS");
}

int ARMCI_NbPutS(void *src, int *src_stride, void *dst, int *dst_stride, int *count, int levels,
                 int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return strided_op(XF_PUT, 0, NULL, src, src_stride, dst, dst_stride, count, levels, proc,
                      hdl, 0, "ARMCI_NbPutS");
}

int ARMCI_NbGetS(void *src, int *src_stride, void *dst, int *dst_stride, int *count, int levels,
                 int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return strided_op(XF_GET, 0, NULL, src, src_stride, dst, dst_stride, count, levels, proc,
                      hdl, 0, "ARMCI_NbGetS");
}

int ARMCI_NbAccS(int acc_type, void *scale, void *src, int *src_stride, void *dst,
                 int *dst_stride, int *count, int levels, int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return strided_op(XF_ACC, acc_type, scale, src, src_stride, dst, dst_stride, count, levels,
                      proc, hdl, 0, "ARMCI_NbAccS");
}

/* Vector: every (src, dst) pair of every descriptor is one contiguous
 * section. */
static int vector_op(int what, int acc_type, void *scale, armci_giov_t *iov, int len, int proc,
                     armci_hdl_t *hdl, int blocking, const char *fn)
{
    armcii_need_init(fn);
    armcii_check_proc(proc, fn);
    if (len < 0 || (len && !iov))
        armcii_error(1, "%s: bad descriptor array (%p, len %d)", fn, (void *)iov, len);
    struct armcii_req local, *req = begin(&local, blocking, hdl, proc, fn);
    for (int d = 0; d < len; d++) {
        struct armcii_strided s;
        if (iov[d].bytes < 0)
            armcii_error(1, "%s: descriptor %d: bytes %d < 0", fn, d, iov[d].bytes);
        if (what == XF_ACC)
            acc_bytes(acc_type, iov[d].bytes, d, fn);
        contig(&s, iov[d].bytes, fn);
        if (iov[d].ptr_array_len < 0 ||
            (iov[d].ptr_array_len && (!iov[d].src_ptr_array || !iov[d].dst_ptr_array)))
            armcii_error(1, "%s: descriptor %d: bad pointer arrays (len %d)", fn, d,
                         iov[d].ptr_array_len);
        for (int i = 0; i < iov[d].ptr_array_len; i++) {
            void *src = iov[d].src_ptr_array[i], *dst = iov[d].dst_ptr_array[i];
            if (iov[d].bytes && (!src || !dst))
                armcii_error(1, "%s: descriptor %d: %s_ptr_array[%d] is NULL", fn, d,
                             !src ? "src" : "dst", i);
            move(what, proc, acc_type, scale, src, &s, dst, &s, req, fn);
        }
    }
    return finish(&local, blocking, what, proc, fn);
}

int ARMCI_PutV(armci_giov_t *iov, int len, int proc)
{
    ARMCII_SERIAL;
    return vector_op(XF_PUT, 0, NULL, iov, len, proc, NULL, 1, "ARMCI_PutV");
}

int ARMCI_GetV(armci_giov_t *iov, int len, int proc)
{
    ARMCII_SERIAL;
    return vector_op(XF_GET, 0, NULL, iov, len, proc, NULL, 1, "ARMCI_GetV");
}

int ARMCI_AccV(int acc_type, void *scale, armci_giov_t *iov, int len, int proc)
{
    ARMCII_SERIAL;
    return vector_op(XF_ACC, acc_type, scale, iov, len, proc, NULL, 1, "ARMCI_AccV");
}

int ARMCI_NbPutV(armci_giov_t *iov, int len, int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return vector_op(XF_PUT, 0, NULL, iov, len, proc, hdl, 0, "ARMCI_NbPutV");
}

int ARMCI_NbGetV(armci_giov_t *iov, int len, int proc, armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return vector_op(XF_GET, 0, NULL, iov, len, proc, hdl, 0, "ARMCI_NbGetV");
}

int ARMCI_NbAccV(int acc_type, void *scale, armci_giov_t *iov, int len, int proc,
                 armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    return vector_op(XF_ACC, acc_type, scale, iov, len, proc, hdl, 0, "ARMCI_NbAccV");
}

/* The flag is checked before any data moves, so a bad one leaves the
 * target untouched. */
static void check_flag(int *flag, int proc, const char *fn)
{
    armcii_need_init(fn);
    armcii_check_proc(proc, fn);
    if (!flag)
        armcii_error(1, "%s: flag is NULL", fn);
    armcii_seg_check(proc, flag, sizeof *flag, fn, "flag");
}

/* Put, then the flag: a fence between them so the flag never overtakes. */
int ARMCI_Put_flag(void *src, void *dst, int bytes, int *flag, int value, int proc)
{
    ARMCII_SERIAL;
    check_flag(flag, proc, "ARMCI_Put_flag");
    contig_op(XF_PUT, 0, NULL, src, dst, bytes, proc, NULL, 1, "ARMCI_Put_flag");
    armcii_fence(proc);
    return contig_op(XF_PUT, 0, NULL, &value, flag, sizeof value, proc, NULL, 1, "ARMCI_Put_flag");
}

int ARMCI_PutS_flag(void *src, int *src_stride, void *dst, int *dst_stride, int *count,
                    int levels, int *flag, int value, int proc)
{
    ARMCII_SERIAL;
    check_flag(flag, proc, "ARMCI_PutS_flag");
    strided_op(XF_PUT, 0, NULL, src, src_stride, dst, dst_stride, count, levels, proc, NULL, 1,
               "ARMCI_PutS_flag");
    armcii_fence(proc);
    return contig_op(XF_PUT, 0, NULL, &value, flag, sizeof value, proc, NULL, 1,
                     "ARMCI_PutS_flag");
}

void armci_write_strided(void *ptr, int levels, int *stride, int *count, char *buf)
{
    ARMCII_SERIAL;
    struct armcii_strided s;
    const char *why;
    if (armcii_strided_set(&s, levels, stride, count, &why) != 0)
        armcii_error(1, "armci_write_strided: %s", why);
    armcii_pack(ptr, &s, 0, armcii_strided_runs(&s), buf);
}

void armci_read_strided(void *ptr, int levels, int *stride, int *count, char *buf)
{
    ARMCII_SERIAL;
    struct armcii_strided s;
    const char *why;
    if (armcii_strided_set(&s, levels, stride, count, &why) != 0)
        armcii_error(1, "armci_read_strided: %s", why);
    armcii_unpack(ptr, &s, 0, armcii_strided_runs(&s), buf);
}

#define PUT_VALUE(name, nbname, type)                                          \
    int name(type v, void *dst, int proc)                                      \
    {                                                                          \
        return contig_op(XF_PUT, 0, NULL, &v, dst, sizeof v, proc, NULL, 1, #name); \
    }                                                                          \
    int nbname(type v, void *dst, int proc, armci_hdl_t *hdl)                  \
    {                                                                          \
        /* the value is on our stack: wait for local completion */             \
        contig_op(XF_PUT, 0, NULL, &v, dst, sizeof v, proc, NULL, 1, #nbname); \
        (void)hdl;                                                             \
        return 0;                                                              \
    }
PUT_VALUE(ARMCI_PutValueInt, ARMCI_NbPutValueInt, int)
PUT_VALUE(ARMCI_PutValueLong, ARMCI_NbPutValueLong, long)
PUT_VALUE(ARMCI_PutValueFloat, ARMCI_NbPutValueFloat, float)
PUT_VALUE(ARMCI_PutValueDouble, ARMCI_NbPutValueDouble, double)

#define GET_VALUE(name, type)                                                  \
    type name(void *src, int proc)                                             \
    {                                                                          \
        type v = 0;                                                            \
        contig_op(XF_GET, 0, NULL, src, &v, sizeof v, proc, NULL, 1, #name);   \
        return v;                                                              \
    }
GET_VALUE(ARMCI_GetValueInt, int)
GET_VALUE(ARMCI_GetValueLong, long)
GET_VALUE(ARMCI_GetValueFloat, float)
GET_VALUE(ARMCI_GetValueDouble, double)
