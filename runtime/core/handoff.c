/* Handoff mode ([OSPRI] buffer pool): a blocking put or accumulate small
 * enough for a pool buffer is packed into one and the call returns; the
 * operation completes in the background and its buffer goes back to the
 * pool. The caller may reuse its source at once, as ARMCI's blocking
 * semantics require. An empty pool stalls the caller in progress until a
 * buffer frees (source-side flow control). Each buffer's request is
 * nested in the target's implicit request, so Fence, WaitProc, WaitAll
 * and AllFence cover handed-off operations. */
#include <stdlib.h>
#include "config.h"
#include "xfer.h"

unsigned long armcii_handoffs, armcii_handoff_stalls;

struct hbuf {
    struct armcii_req req; /* pending == 0: free */
    char *data;
};

static struct hbuf *pool;
static char *pool_mem;
static int next;

static void pool_init(const char *fn)
{
    int n = armcii_cfg.handoff_bufs;
    pool = calloc((size_t)n, sizeof *pool);
    pool_mem = malloc((size_t)n * armcii_cfg.handoff_size);
    if (!pool || !pool_mem)
        armcii_error(1, "%s: out of memory for %d handoff buffers of %zu bytes", fn, n,
                     armcii_cfg.handoff_size);
    for (int i = 0; i < n; i++)
        pool[i].data = pool_mem + (size_t)i * armcii_cfg.handoff_size;
}

static struct hbuf *take(void)
{
    int n = armcii_cfg.handoff_bufs;
    for (;;) {
        for (int k = 0; k < n; k++) {
            struct hbuf *b = &pool[(next + k) % n];
            if (b->req.pending == 0) {
                next = (next + k + 1) % n;
                return b;
            }
        }
        armcii_handoff_stalls++;
        armcii_progress(1);
    }
}

int armcii_handoff(int what, int proc, int acc_type, const void *scale, void *src,
                   const struct armcii_strided *ssec, void *dst,
                   const struct armcii_strided *dsec, const char *fn)
{
    size_t bytes = armcii_strided_bytes(ssec);
    if (!armcii_cfg.handoff || what == XF_GET || !bytes || bytes > armcii_cfg.handoff_size)
        return 0;
    /* only paths that read the caller's buffer until local completion
     * gain from a copy: server requests carry one already, and a
     * source-driven accumulate completes (fenced) inside the call */
    int path = armcii_xfer_path(what, proc, dst, dsec);
    if (path != ARMCII_PATH_RDMA && path != ARMCII_PATH_NIC)
        return 0;
    if (!pool)
        pool_init(fn);
    struct hbuf *b = take();
    armcii_pack(src, ssec, 0, armcii_strided_runs(ssec), b->data);
    /* the packed copy as a section of the same shape */
    struct armcii_strided dense = *ssec;
    long stride = dense.count[0];
    for (int i = 0; i < dense.levels; i++) {
        dense.stride[i] = stride;
        stride *= dense.count[i + 1];
    }
    struct armcii_req *parent = armcii_req_implicit(proc);
    parent->pending++;
    /* one count of our own, so completions during posting cannot finish it early */
    b->req = (struct armcii_req){.pending = 1, .parent = parent};
    armcii_xfer(what, proc, acc_type, scale, b->data, &dense, dst, dsec, &b->req, fn);
    armcii_req_done(&b->req, 0);
    armcii_handoffs++;
    return 1;
}

/* After the final AllFence every buffer is free. */
void armcii_handoff_finalize(void)
{
    free(pool);
    free(pool_mem);
    pool = NULL;
    pool_mem = NULL;
    next = 0;
}
