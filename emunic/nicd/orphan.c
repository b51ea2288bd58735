/* A SIGKILLed (or crashed) emunic-run leaves nobody to end the job: its
 * daemons and ranks die with it (PDEATHSIG; the daemons' death signal is
 * SIGTERM, so they are told). The job's memory goes by itself (memfds go
 * with their last holder); what the ranks started and left running (a
 * setsid'd child) is still in the job's cgroup, which the daemons are not
 * in: once every rank is gone, they end it and remove what clients named
 * after the job (the DCMF lockbox). A rank that outlived the
 * launcher (it cleared its death signal) is left to `emunic-run
 * --cleanup`, which finds it by the segment it maps. Only the processes
 * the launcher started are looked at. */
#include "emunic/cgroup.h"
#include "emunic/ctl.h"
#include "emunic/proc.h"
#include "nic.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The ranks die by the same event; give them this long to be gone (a
 * SIGKILLed process needs the CPU to exit, which a loaded host is slow
 * to give). */
#define ORPHAN_WAIT_NS 5000000000ll
#define ORPHAN_NAP_NS 5000000

static int all_ranks_gone(struct emu_nic *nic)
{
    for (uint32_t r = 0; r < nic->nranks; r++)
        if (!emu_proc_gone(guard_rank_pid(nic, r)))
            return 0;
    return 1;
}

int orphan_launcher_gone(const struct emu_nic *nic)
{
    /* reparented is not enough: a daemon started under a debugger or a
     * wrapper has another parent all along */
    return getppid() != nic->launcher_pid && emu_proc_gone(nic->launcher_pid);
}

int orphan_cleanup(struct emu_nic *nic)
{
    int64_t end = emu_now_ns() + ORPHAN_WAIT_NS;
    while (!all_ranks_gone(nic)) {
        if (emu_now_ns() >= end)
            return -1;
        struct timespec ts = {0, ORPHAN_NAP_NS};
        nanosleep(&ts, NULL);
    }
    char cg[EMU_CGROUP_PATH_MAX];
    memcpy(cg, nic->ctl->cgroup, sizeof cg);
    cg[sizeof cg - 1] = 0;
    if (cg[0])
        (void)emu_cgroup_end(cg, 2000000000ll);
    return emu_names_unlink_job(nic->job.geo.jobid);
}
