/* The launcher's side of emunic/ctl.h: the control block the daemons map
 * (doorbells, the pid of every rank as it is forked), the daemons' wire
 * object (emunic/job.h) and the pipe on which a daemon reports a rank that
 * broke its own queues. None is inherited by a rank. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emunic/ctl.h"
#include "io.h"
#include "launcher.h"
#include "msg.h"

/* The job's cgroup, where there is a cgroup v2 hierarchy we may write:
 * its path goes to the daemons in the control block. */
static void cgroup_make(struct launcher *L)
{
    char *dir = L->ctl->cgroup;
    const char *want = getenv("EMUNIC_CGROUP");
    int rc = want && !strcmp(want, "0") ? -ECANCELED /* the user's choice */
                                         : emu_cgroup_create(L->jobid, dir, sizeof L->ctl->cgroup);
    if (rc == 0) {
        char procs[EMU_CGROUP_PATH_MAX + 16];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
        L->cg_procs = open(procs, O_WRONLY | O_CLOEXEC);
        if (L->cg_procs < 0) {
            rc = -errno;
            rmdir(dir);
        }
    }
    if (rc != 0) {
        dir[0] = 0;
        if (L->o->verbose)
            msg("no cgroup for the job (%s): teardown reaches it through its process group and descendants",
                strerror(-rc));
    } else if (L->o->verbose) {
        msg("the job's cgroup is %s", dir);
    }
}

int ctl_create(struct launcher *L)
{
    uint32_t nn = L->o->nnodes;
    size_t size = emu_ctl_size(nn, L->nranks);
    L->ctl_fd = memfd_create("emunic-ctl", MFD_CLOEXEC);
    if (L->ctl_fd < 0 || ftruncate(L->ctl_fd, (off_t)size) != 0) {
        msg("cannot make the daemons' control block: %s", strerror(errno));
        return -1;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, L->ctl_fd, 0);
    if (p == MAP_FAILED) {
        msg("cannot map the daemons' control block: %s", strerror(errno));
        return -1;
    }
    L->ctl = p;
    L->ctl->nnodes = nn;
    L->ctl->nranks = L->nranks;
    int32_t *db = emu_ctl_doorbells(L->ctl);
    for (uint32_t n = 0; n < nn; n++)
        db[n] = L->efds[n];
    L->ctl->magic = EMU_CTL_MAGIC;
    cgroup_make(L);
    L->wire_fd = emu_job_wire_create(&L->job);
    if (L->wire_fd < 0) {
        msg("cannot make the daemons' wire: %s", strerror(-L->wire_fd));
        L->wire_fd = -1;
        return -1;
    }
    if (pipe2(L->report, O_CLOEXEC) != 0) {
        L->report[0] = L->report[1] = -1;
        msg("cannot make the daemons' report pipe: %s", strerror(errno));
        return -1;
    }
    fcntl(L->report[0], F_SETFL, O_NONBLOCK);
    L->culprit = calloc(L->nranks, 1);
    if (!L->culprit) {
        msg("out of memory");
        return -1;
    }
    return 0;
}

int ctl_watch(struct launcher *L)
{
    if (io_watch(L->epfd, L->report[0], EPOLLIN, io_tag(TAG_REPORT, 0)) < 0) {
        msg("epoll: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void ctl_rank_started(struct launcher *L, uint32_t rank, pid_t pid)
{
    atomic_store_explicit(&emu_ctl_pids(L->ctl)[rank], (int32_t)pid, memory_order_release);
}

/* A daemon stopped serving a rank: name it once, then end it (its waits
 * would never return) or, without --keep-going, the job. */
static void culprit(struct launcher *L, const struct emu_ctl_report *r)
{
    if (r->magic != EMU_CTL_REPORT_MAGIC || r->rank >= L->nranks || L->culprit[r->rank])
        return;
    L->culprit[r->rank] = 1;
    char text[sizeof r->text];
    memcpy(text, r->text, sizeof text);
    text[sizeof text - 1] = 0;
    uint32_t node = r->rank / L->o->rpn;
    if (L->phase != PH_RUNNING && L->phase != PH_STARTING)
        return;
    msg("rank %u (node %u) %s its %s: %s", r->rank, node, emu_ctl_verb(r->what), emu_ctl_what_name(r->what),
        text);
    if (L->first_failure < 0)
        L->first_failure = 1;
    struct proc *p = procs_rank(&L->procs, r->rank);
    if (L->o->keep_going) {
        if (p->alive)
            kill(p->pid, SIGKILL);
        return;
    }
    td_begin(L, -1);
}

void ctl_on_report(struct launcher *L)
{
    struct emu_ctl_report r[16];
    ssize_t n;
    while ((n = read(L->report[0], r, sizeof r)) > 0)
        for (size_t i = 0; i < (size_t)n / sizeof r[0]; i++)
            culprit(L, &r[i]);
}

void ctl_close_daemon_end(struct launcher *L)
{
    int *fds[] = {&L->ctl_fd, &L->wire_fd, &L->report[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

void ctl_destroy(struct launcher *L)
{
    if (L->cg_procs >= 0)
        close(L->cg_procs);
    L->cg_procs = -1;
    /* the sweep reaped every descendant: this only removes it (and ends
     * what the sweep could not see, had anything escaped it) */
    int rc;
    if (L->ctl && L->ctl->cgroup[0] && (rc = emu_cgroup_end(L->ctl->cgroup, 1000000000ll)) != 0)
        msg("could not remove the job's cgroup %s: %s", L->ctl->cgroup, strerror(-rc));
    if (L->ctl)
        munmap(L->ctl, emu_ctl_size(L->o->nnodes, L->nranks));
    L->ctl = NULL;
    int *fds[] = {&L->ctl_fd, &L->wire_fd, &L->report[0], &L->report[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    free(L->culprit);
    L->culprit = NULL;
}
