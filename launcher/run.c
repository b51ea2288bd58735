/* One job from start to end. Whatever happens after the job segment
 * exists, control comes back here, and here the segment is removed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "emunic/waiter.h"
#include "io.h"
#include "launcher.h"
#include "msg.h"
#include "stats.h"

#define FIRST_TICK_NS (500ll * 1000)

static void launcher_init(struct launcher *L, const struct opts *o)
{
    memset(L, 0, sizeof *L);
    L->o = o;
    L->nranks = o->nnodes * o->rpn;
    L->self = getpid();
    L->epfd = L->sigfd = L->tfd_timeout = L->tfd_grace = L->tfd_tick = -1;
    L->ctl_fd = L->wire_fd = L->cg_procs = L->report[0] = L->report[1] = -1;
    L->forced = -1;
    L->first_failure = -1;
    L->phase = PH_STARTING;
}

static int start(struct launcher *L)
{
    L->fwd = calloc(1, sizeof *L->fwd);
    if (!L->fwd) {
        msg("out of memory");
        return -1;
    }
    fwd_init(L->fwd, -1);
    if (io_setup(L) < 0)
        return -1;
    L->fwd->epfd = L->epfd;
    if (procs_init(&L->procs, L->o->nnodes, L->nranks) < 0 ||
        relay_init(&L->relay, L->epfd, 2 * (L->o->nnodes + L->nranks)) < 0) {
        msg("out of memory");
        return -1;
    }
    if (pmi_init(L) < 0 || ctl_watch(L) < 0)
        return -1;
    /* orphans of ranks come back to us, so we can reap them at the end */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (L->o->timeout_s > 0)
        io_arm(L->tfd_timeout, (int64_t)(L->o->timeout_s * 1e9));
    for (uint32_t i = 0; i < L->o->nnodes; i++)
        if (spawn_daemon(L, i) < 0)
            return -1;
    ctl_close_daemon_end(L); /* the daemons hold it now */
    L->ready_deadline = emu_now_ns() + READY_LIMIT_S * 1000000000ll;
    L->tick_ns = FIRST_TICK_NS;
    io_arm(L->tfd_tick, L->tick_ns);
    return 0;
}

static int exit_code(const struct launcher *L)
{
    if (L->forced >= 0)
        return L->forced;
    if (L->first_failure >= 0)
        return L->first_failure;
    return 0;
}

int job_run(const struct opts *o)
{
    struct launcher L;
    launcher_init(&L, o);
    int rc = preflight(&L);
    if (rc) {
        bind_plan_free(&L.bind);
        return rc;
    }
    signals_take(&L);
    rc = jobshm_create(&L);
    if (!rc)
        rc = stats_job_start(&L);
    if (rc) {
        jobshm_destroy(&L);
        bind_plan_free(&L.bind);
        return rc;
    }
    if (start(&L) < 0)
        sv_start_failed(&L);
    if (L.procs.v)
        io_loop(&L);
    td_sweep(&L);
    stats_job_end(&L);
    if (o->verbose)
        report_end(&L);
    if (L.fwd && L.epfd >= 0)
        fwd_stop(L.fwd);
    free(L.fwd);
    relay_free(&L.relay);
    pmi_free(&L);
    procs_free(&L.procs);
    io_close(&L);
    jobshm_destroy(&L);
    bind_plan_free(&L.bind);
    return exit_code(&L);
}
