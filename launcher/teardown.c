/* Stopping the job: SIGTERM to the whole process group and to every
 * descendant that left it (sweep.c), SIGKILL after a grace period, until
 * every child is reaped. The same path serves a failure, a signal, a
 * timeout and the normal end (daemons only). */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io.h"
#include "launcher.h"
#include "msg.h"

#define TEARDOWN_GRACE_NS (300ll * 1000000)
/* Daemons at the normal end may flush traces or counters. */
#define STOP_GRACE_NS (2000ll * 1000000)
/* After SIGKILL only a process stuck in the kernel can remain. */
#define GIVE_UP_NS (5000ll * 1000000)

static void signal_job(struct launcher *L, int sig)
{
    /* An unreaped child keeps the group id from being reused, so the
     * group is ours as long as one of them is left. */
    if (L->pgid > 0 && L->procs.alive > 0)
        killpg(L->pgid, sig);
    sweep_descendants(sig);
}

void td_begin(struct launcher *L, int forced)
{
    if (L->phase == PH_TEARDOWN)
        return;
    L->phase = PH_TEARDOWN;
    if (forced >= 0)
        L->forced = forced;
    if (L->job_made) /* ranks and daemons see it and stop waiting */
        atomic_store(&L->job.hdr->abort, 1);
    if (L->fwd)
        fwd_stop(L->fwd);
    io_arm(L->tfd_tick, 0);
    io_arm(L->tfd_timeout, 0);
    L->kills_sent = 0;
    signal_job(L, SIGTERM);
    io_arm(L->tfd_grace, TEARDOWN_GRACE_NS);
}

void td_stop_daemons(struct launcher *L)
{
    L->phase = PH_STOPPING;
    io_arm(L->tfd_timeout, 0);
    L->kills_sent = 0;
    signal_job(L, SIGTERM);
    io_arm(L->tfd_grace, STOP_GRACE_NS);
}

void td_grace_expired(struct launcher *L)
{
    if (L->kills_sent == 0) {
        signal_job(L, SIGKILL);
        L->kills_sent = 1;
        io_arm(L->tfd_grace, GIVE_UP_NS);
        return;
    }
    msg("%u processes did not exit after SIGKILL; giving up on them",
        L->procs.alive);
    L->gave_up = true;
}

/* Last pass after the loop: whatever the ranks left behind, in the group
 * or out of it (setsid), is killed and, as we are its subreaper, reaped,
 * so no process of the job outlives the launcher. Bounded: a process
 * stuck in the kernel is given up on after about a second. */
void td_sweep(struct launcher *L)
{
    if (L->gave_up)
        return;
    struct timespec ts = {0, 10 * 1000000};
    for (int i = 0; i < 100; i++) {
        int st;
        pid_t pid;
        while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
            struct proc *p = procs_find(&L->procs, pid);
            if (p)
                procs_reaped(&L->procs, p, st);
        }
        if (pid < 0 && errno == ECHILD)
            return;
        if (L->pgid > 0)
            killpg(L->pgid, SIGKILL);
        sweep_descendants(SIGKILL);
        nanosleep(&ts, NULL);
    }
}
