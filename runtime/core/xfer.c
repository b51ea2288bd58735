/* Path choice and the RDMA / NIC-atomic / server paths of a transfer. */
#include "xfer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "chan.h"
#include "config.h"
#include "mem.h"
#include "order.h"
#include "proto.h"

_Static_assert(ARMCII_MAX_LEVELS == ARMCI_MAX_STRIDE_LEVEL, "the levels armci.h promises");

static const int acc_dev_type[] = {ADEV_INT32, ADEV_INT64, ADEV_FLOAT,
                                   ADEV_DOUBLE, ADEV_FCOMPLEX, ADEV_DCOMPLEX};

void armcii_strided_args(const char *fn, void *src, int *src_stride, void *dst, int *dst_stride,
                         int *count, int levels, int proc, struct armcii_strided *ssec,
                         struct armcii_strided *dsec)
{
    armcii_need_init(fn);
    armcii_check_proc(proc, fn);
    const char *why;
    if (levels < 0 || levels > ARMCII_MAX_LEVELS)
        armcii_error(1, "%s: stride_levels %d out of range 0..%d", fn, levels, ARMCII_MAX_LEVELS);
    if (armcii_strided_set(ssec, levels, src_stride, count, &why) != 0)
        armcii_error(1, "%s: source: %s", fn, why);
    if (armcii_strided_set(dsec, levels, dst_stride, count, &why) != 0)
        armcii_error(1, "%s: destination: %s", fn, why);
    if (armcii_strided_bytes(ssec) && (!src || !dst))
        armcii_error(1, "%s: %s is NULL", fn, !src ? "src_ptr" : "dst_ptr");
}

static size_t extent(const struct armcii_strided *s)
{
    size_t runs = armcii_strided_runs(s);
    return runs ? armcii_strided_offset(s, runs - 1) + (size_t)s->count[0] : 0;
}

/* Whether proc's server can touch this memory: node-shared heap, or the
 * server is proc itself. */
static int server_reaches(int proc, const struct armcii_seg *seg)
{
    return seg->kind == ARMCII_MEM_HEAP || armcii_server_of(proc) == proc;
}

static int choose(int what, int proc, const struct armcii_seg *seg, const struct armcii_strided *s)
{
    int can_srv = server_reaches(proc, seg);
    int amo = (armcii_dev->caps & ADEV_CAP_AMO) != 0;
    if (what == XF_ACC) {
        switch (armcii_cfg.acc_path) {
        case ARMCII_PATH_NIC: return amo || !can_srv ? ARMCII_PATH_NIC : ARMCII_PATH_HELPER;
        case ARMCII_PATH_HELPER: return can_srv || !amo ? ARMCII_PATH_HELPER : ARMCII_PATH_NIC;
        case ARMCII_PATH_SOURCE: return ARMCII_PATH_SOURCE;
        default: return can_srv && (armcii_cfg.helper || !amo) ? ARMCII_PATH_HELPER : ARMCII_PATH_NIC;
        }
    }
    if (s->levels == 0 || !can_srv)
        return ARMCII_PATH_RDMA;
    switch (armcii_cfg.noncontig_path) {
    case ARMCII_PATH_HELPER: return ARMCII_PATH_HELPER;
    case ARMCII_PATH_RDMA:
    case ARMCII_PATH_NIC: return ARMCII_PATH_RDMA;
    default:
        return (size_t)s->count[0] >= armcii_cfg.noncontig_rdma_min ? ARMCII_PATH_RDMA
                                                                    : ARMCII_PATH_HELPER;
    }
}

static void rdma_runs(int what, int proc, char *local, const struct armcii_strided *lsec,
                      char *remote, const struct armcii_strided *rsec, struct armcii_req *req,
                      const char *fn)
{
    size_t runs = armcii_strided_runs(lsec), len = (size_t)lsec->count[0];
    if (!len)
        return;
    for (size_t i = 0; i < runs; i++) {
        char *l = local + armcii_strided_offset(lsec, i);
        char *r = remote + armcii_strided_offset(rsec, i);
        void *near = armcii_cfg.shm ? armcii_mem_local(proc, r, len) : NULL;
        if (near) {
            /* same node, node-shared memory: a plain copy */
            if (what == XF_PUT)
                memcpy(near, l, len);
            else
                memcpy(l, near, len);
            continue;
        }
        struct armcii_cmpl *c = armcii_cmpl_new(req);
        if (what == XF_PUT) {
            struct adev_cmpl *ack = armcii_order_ack(proc); /* once: POST may retry */
            ARMCII_POST(fn, armcii_dev->put(ADEV_CTX_RANK, proc, l, r, len, &c->c, ack));
        } else
            ARMCII_POST(fn, armcii_dev->get(ADEV_CTX_RANK, proc, r, l, len, &c->c));
    }
}

#define AMO_CHUNK (64 * 1024)

/* Accumulate with the network's atomic sum: scale into a staging copy
 * first (it is freed when the atomic completes). */
static void nic_acc(int proc, int acc_type, const void *scale, char *local,
                    const struct armcii_strided *lsec, char *remote,
                    const struct armcii_strided *rsec, struct armcii_req *req, const char *fn)
{
    size_t runs = armcii_strided_runs(lsec), len = (size_t)lsec->count[0];
    int one = armcii_scale_is_one(acc_type, scale);
    for (size_t i = 0; i < runs && len; i++) {
        char *l = local + armcii_strided_offset(lsec, i);
        char *r = remote + armcii_strided_offset(rsec, i);
        for (size_t o = 0; o < len; o += AMO_CHUNK) {
            size_t n = len - o < AMO_CHUNK ? len - o : AMO_CHUNK;
            struct armcii_cmpl *c = armcii_cmpl_new(req);
            const char *src = l + o;
            if (!one) {
                if (!(c->tmp = malloc(n)))
                    armcii_error(1, "%s: out of memory", fn);
                armcii_scale(acc_type, scale, c->tmp, l + o, n);
                src = c->tmp;
            }
            ARMCII_POST(fn, armcii_dev->amo(ADEV_CTX_RANK, proc, ADEV_AMO_SUM,
                                            acc_dev_type[acc_type], r + o, src, n, NULL, &c->c));
            armcii_order_unacked(proc);
        }
    }
}

int armcii_xfer_path(int what, int proc, void *remote, const struct armcii_strided *rsec)
{
    struct armcii_seg *seg = armcii_seg_find(proc, remote, extent(rsec));
    return seg ? choose(what, proc, seg, rsec) : -1;
}

void armcii_xfer(int what, int proc, int acc_type, const void *scale, void *local,
                 const struct armcii_strided *lsec, void *remote,
                 const struct armcii_strided *rsec, struct armcii_req *req, const char *fn)
{
    size_t bytes = armcii_strided_bytes(rsec);
    struct armcii_seg *seg = armcii_seg_check(proc, remote, extent(rsec), fn,
                                              what == XF_GET ? "remote source" : "remote destination");
    if (what == XF_ACC) {
        size_t es = armcii_acc_elem_size(acc_type);
        if (!es)
            armcii_error(1, "%s: unknown accumulate type %d", fn, acc_type);
        if (!scale)
            armcii_error(1, "%s: scale is NULL", fn);
        if ((size_t)lsec->count[0] % es)
            armcii_error(1, "%s: count[0] = %d is not a multiple of the element size %zu", fn,
                         lsec->count[0], es);
    }
    if (!bytes)
        return;
    int path = choose(what, proc, seg, rsec);
    if (path == ARMCII_PATH_SOURCE) {
        armcii_acc_source(proc, acc_type, scale, local, lsec, remote, rsec, seg, fn);
        return;
    }
    int kind = what == XF_GET ? ARMCII_OP_GET : what == XF_ACC ? ARMCII_OP_ACC : ARMCII_OP_PUT;
    int opath = path == ARMCII_PATH_HELPER ? ARMCII_SRV : ARMCII_RDMA;
    armcii_order_before(proc, seg, kind, opath);
    if (path == ARMCII_PATH_HELPER)
        armcii_srv_section(what == XF_GET ? RQ_GETS : what == XF_ACC ? RQ_ACC : RQ_PUTS, proc,
                           acc_type, scale, local, lsec, remote, rsec, req);
    else if (what == XF_ACC)
        nic_acc(proc, acc_type, scale, local, lsec, remote, rsec, req, fn);
    else
        rdma_runs(what, proc, local, lsec, remote, rsec, req, fn);
    armcii_order_after(proc, seg, kind, opath);
}
