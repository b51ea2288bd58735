/* The job's shared memory and doorbells: made once here, and let go on
 * every way out of the launcher (a memfd needs no removal: it goes with
 * its last holder, also when the launcher is SIGKILLed). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "emunic/waiter.h"
#include "launcher.h"
#include "msg.h"
#include "netopts.h"

static int make_doorbells(struct launcher *L)
{
    uint32_t n = L->o->nnodes;
    L->efds = malloc(n * sizeof *L->efds);
    if (!L->efds) {
        msg("out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        L->efds[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        /* Blocking and inherited on purpose: every daemon waits on its own
         * through io_uring and rings its peers'; ranks keep their node's. */
        L->efds[i] = eventfd(0, 0);
        if (L->efds[i] < 0) {
            msg("cannot create the doorbell of node %u: %s", i,
                strerror(errno));
            return -1;
        }
    }
    return 0;
}

int jobshm_create(struct launcher *L)
{
    const struct opts *o = L->o;
    emu_jobid_new(L->jobid, sizeof L->jobid);
    if (make_doorbells(L) < 0)
        return 1;

    struct emu_job_params p;
    opts_job_params(o, &p);

    L->t_created = emu_now_ns();
    uint64_t need = emu_job_size(&p), avail = mem_available();
    int rc = need > avail ? -ENOMEM : emu_job_create(&L->job, L->jobid, &p, L->efds);
    if (rc == -ENOSPC || rc == -ENOMEM) {
        msg("not enough memory for the job: it needs %.1f MiB of shared memory, %.1f MiB are available",
            (double)need / (1 << 20), (double)avail / (1 << 20));
        return 2;
    }
    if (rc < 0) {
        msg("cannot create the job's shared memory: %s", strerror(-rc));
        return 2;
    }
    L->job_made = true;
    L->job.hdr->launcher_pid = (int32_t)getpid();
    if (ctl_create(L) < 0)
        return 1;
    netopts_apply(o, emu_job_netcfg(&L->job), L->job.geo.created_ns);
    if (o->verbose)
        report_plan(L, emu_job_size(&p));
    return 0;
}

void jobshm_destroy(struct launcher *L)
{
    ctl_destroy(L);
    if (L->job_made)
        emu_job_detach(&L->job);
    L->job_made = false;
    for (uint32_t i = 0; L->efds && i < L->o->nnodes; i++)
        if (L->efds[i] >= 0)
            close(L->efds[i]);
    free(L->efds);
    L->efds = NULL;
    if (L->jobid[0])
        emu_names_unlink_job(L->jobid);
}
