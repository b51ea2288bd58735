/* State of one emunic-run job and the steps that act on it. Phases:
 * STARTING (daemons come up) -> RUNNING (ranks run) -> STOPPING (ranks are
 * done, daemons get SIGTERM), or TEARDOWN from any of them on a failure,
 * signal or timeout. The job ends when every child has been reaped. */
#ifndef EMUNIC_RUN_LAUNCHER_H
#define EMUNIC_RUN_LAUNCHER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bind.h"
#include "emunic/job.h"
#include "opts.h"
#include "pmi.h"
#include "procs.h"
#include "relay.h"
#include "stdin_fwd.h"

enum phase { PH_STARTING, PH_RUNNING, PH_STOPPING, PH_TEARDOWN };

/* How long daemons may take to set their ready flag. */
#define READY_LIMIT_S 10

struct emu_ctl;

struct launcher {
    const struct opts *o;
    uint32_t nranks;
    struct bind_plan bind;
    char nicd[4096];           /* NIC daemon binary */
    char jobid[EMU_JOBID_MAX];
    bool job_made;
    struct emu_job job;
    int *efds;                 /* one eventfd doorbell per node */
    struct emu_ctl *ctl;       /* the daemons' control block (ctl.c) */
    int ctl_fd;                /* its memfd, inherited by daemons only */
    int wire_fd;               /* the daemons' wire object (emu_job_wire_create), the same */
    int cg_procs;              /* the job cgroup's cgroup.procs, which each rank joins; -1: none */
    int report[2];             /* daemons -> launcher: a rank broke its queues */
    uint8_t *culprit;          /* [nranks] named by a daemon already */
    pid_t self;
    pid_t pgid;                /* the job's process group, 0 until made */
    struct procs procs;
    struct relay relay;
    struct stdin_fwd *fwd;
    struct pmi *pmi;           /* NULL under --no-pmi */
    int epfd, sigfd, tfd_timeout, tfd_grace, tfd_tick;
    sigset_t sigs;             /* what the signalfd takes */
    bool hup_ignored;          /* started under nohup: leave SIGHUP be */
    enum phase phase;
    int kills_sent;            /* 0: SIGTERM only, 1: SIGKILL too */
    bool gave_up;
    int64_t t_created, t_launched, ready_deadline, tick_ns;
    unsigned sigs_direct, sigs_relayed; /* sv_signal: copies of each kind */
    bool stopped_by_signal;    /* a signal began the teardown */
    int forced;                /* exit code of a signal/timeout, or -1 */
    int first_failure;         /* exit code of the first failure, or -1 */
};

/* main flow (run.c) */
int job_run(const struct opts *o);

/* isolate.c (--isolate): 2 if the job's namespaces could not be made; in
 * the job's first process, inside them, ISOLATE_INSIDE; the process the
 * user started does not return once the job runs: it exits with the job's
 * status. */
#define ISOLATE_INSIDE (-1)
/* sigqueue value of the signals the relay passes on */
#define ISOLATE_RELAYED 0x52454c59
int isolate_enter(void);

/* preflight.c: checks that need no job, then the fd limit */
int preflight(struct launcher *L);
void signals_take(struct launcher *L);

/* jobshm.c */
int jobshm_create(struct launcher *L);
/* Bytes of memory a new job may still take (memavail.c). */
uint64_t mem_available(void);
void jobshm_destroy(struct launcher *L);

/* ctl.c: the daemons' control block and report pipe (emunic/ctl.h) */
int ctl_create(struct launcher *L);            /* -1 after a message */
int ctl_watch(struct launcher *L);             /* into the epoll set */
void ctl_rank_started(struct launcher *L, uint32_t rank, pid_t pid);
void ctl_on_report(struct launcher *L);
void ctl_close_daemon_end(struct launcher *L); /* once every daemon has it */
void ctl_destroy(struct launcher *L);

/* spawn.c: return 0, or -1 after a message */
int spawn_daemon(struct launcher *L, uint32_t node);
int spawn_rank(struct launcher *L, uint32_t rank);

/* supervise.c: reactions to events */
void sv_reap(struct launcher *L);
void sv_signal(struct launcher *L, int sig, bool relayed);
void sv_timeout(struct launcher *L);
void sv_tick(struct launcher *L);
void sv_start_failed(struct launcher *L);
/* A failure outside any one process (a stuck PMI barrier): exit code. */
void sv_fail(struct launcher *L, int code);

/* teardown.c */
void td_begin(struct launcher *L, int forced);
void td_stop_daemons(struct launcher *L);
void td_grace_expired(struct launcher *L);
void td_sweep(struct launcher *L);

/* sweep.c: signal every descendant of the launcher (those that left the
 * job's process group too); returns how many were found */
int sweep_descendants(int sig);

/* report.c: -v output */
void report_plan(const struct launcher *L, uint64_t shm_bytes);
void report_started(const struct launcher *L);
void report_end(const struct launcher *L);

#endif
