/* ARMCI over part of the job (ARMCI_Init_mpi_comm on a communicator over
 * some of its ranks, as GA_Initialize_comm): ARMCI's procs are the
 * communicator's ranks, the device's are the job's. The core sees a device
 * that takes and gives procs and passes everything on to the job's device
 * in job ranks, so neither the core nor a device numbers twice. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "armcii.h"
#include "subset.h"

static struct {
    const struct armci_device *dev;
    struct adev_handlers h;
    int *abs;     /* proc -> job rank */
    int *rel;     /* job rank -> proc, -1: not ours */
    int *node_of; /* proc -> node, numbered in order of first appearance */
    int njob;
} sub;

static struct armci_device view;

static int proc_of(int src)
{
    if (src < 0 || src >= sub.njob || sub.rel[src] < 0) {
        /* another set's rank cannot know our addresses: its program is wrong */
        fprintf(stderr, "ARMCI_Error: rank %d: a message from job rank %d, which does not run "
                "this ARMCI (dropped)\n", armcii_me(), src);
        return -1;
    }
    return sub.rel[src];
}

static void on_small(int ctx, int src, const void *buf, size_t len)
{
    int p = proc_of(src);
    if (p >= 0)
        sub.h.small(ctx, p, buf, len);
}

static void on_notify(int ctx, int src, uint64_t imm, void *addr, size_t len)
{
    int p = proc_of(src);
    if (p >= 0)
        sub.h.notify(ctx, p, imm, addr, len);
}

static int v_put(int ctx, int proc, const void *src, void *dst, size_t len,
                 struct adev_cmpl *local, struct adev_cmpl *remote)
{
    return sub.dev->put(ctx, sub.abs[proc], src, dst, len, local, remote);
}

static int v_get(int ctx, int proc, const void *src, void *dst, size_t len, struct adev_cmpl *done)
{
    return sub.dev->get(ctx, sub.abs[proc], src, dst, len, done);
}

static int v_put_notify(int ctx, int proc, int chan, const void *src, void *dst, size_t len,
                        uint64_t imm, struct adev_cmpl *local)
{
    return sub.dev->put_notify(ctx, sub.abs[proc], chan, src, dst, len, imm, local);
}

static int v_send_small(int ctx, int proc, int chan, const void *buf, size_t len)
{
    return sub.dev->send_small(ctx, sub.abs[proc], chan, buf, len);
}

static int v_amo(int ctx, int proc, int op, int type, void *dst, const void *operand, size_t len,
                 void *fetch, struct adev_cmpl *done)
{
    return sub.dev->amo(ctx, sub.abs[proc], op, type, dst, operand, len, fetch, done);
}

static void v_finalize(void)
{
    sub.dev->finalize();
    armcii_subset_free();
}

int armcii_subset_begin(const int *members, int n, int njob, int me, const struct adev_handlers *h,
                        struct adev_handlers *dev_h)
{
    if (n < 1 || n > njob)
        return -EINVAL;
    sub.h = *h;
    sub.njob = njob;
    sub.abs = malloc((size_t)n * sizeof *sub.abs);
    sub.rel = malloc((size_t)njob * sizeof *sub.rel);
    sub.node_of = malloc((size_t)n * sizeof *sub.node_of);
    if (!sub.abs || !sub.rel || !sub.node_of) {
        armcii_subset_free();
        return -ENOMEM;
    }
    for (int r = 0; r < njob; r++)
        sub.rel[r] = -1;
    int mine = 0;
    for (int p = 0; p < n; p++) {
        int r = members[p];
        if (r < 0 || r >= njob || sub.rel[r] >= 0) {
            armcii_subset_free();
            return -EINVAL;
        }
        sub.abs[p] = r;
        sub.rel[r] = p;
        mine |= r == me;
    }
    if (!mine) {
        armcii_subset_free();
        return -EINVAL;
    }
    dev_h->small = on_small;
    dev_h->notify = on_notify;
    return 0;
}

const struct armci_device *armcii_subset_end(const struct armci_device *dev, struct adev_job *job)
{
    int n = job->nmembers;
    int *node_new = malloc((size_t)job->nnodes * sizeof *node_new);
    if (!node_new || job->nproc != sub.njob)
        return free(node_new), NULL;
    for (int k = 0; k < job->nnodes; k++)
        node_new[k] = -1;
    int nnodes = 0;
    for (int p = 0; p < n; p++) {
        int k = job->node_of[sub.abs[p]];
        if (node_new[k] < 0)
            node_new[k] = nnodes++;
        sub.node_of[p] = node_new[k];
    }
    free(node_new);
    job->me = sub.rel[job->me];
    job->nproc = n;
    job->nnodes = nnodes;
    job->node_of = sub.node_of;
    sub.dev = dev;
    view = *dev;
    view.finalize = v_finalize;
    view.put = v_put;
    view.get = v_get;
    view.put_notify = v_put_notify;
    view.send_small = v_send_small;
    view.amo = dev->amo ? v_amo : NULL;
    return &view;
}

void armcii_subset_free(void)
{
    free(sub.abs);
    free(sub.rel);
    free(sub.node_of);
    sub.abs = sub.rel = sub.node_of = NULL;
}

int armcii_job_rank(int proc)
{
    return armcii_dev == &view && sub.abs ? sub.abs[proc] : proc;
}
