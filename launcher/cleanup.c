/* --cleanup: end what a killed emunic-run left behind. Its memory needs
 * no removing (memfds go with their last holder); what can be left is a
 * rank that cleared its death signal, still mapping the job's segment, and
 * what it started (in the job's cgroup). A job is stale when its launcher,
 * whose pid its id starts with, no longer holds the segment. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emunic/cgroup.h"
#include "emunic/memfd.h"
#include "emunic/proc.h"
#include "msg.h"
#include "opts.h"

#define KILL_WAIT_MS 2000

/* The jobs found in /proc, each with the processes that hold or map it. */
struct job_seen {
    char id[EMU_JOBID_MAX];
    bool live;
    pid_t *pids;
    size_t n, cap;
};

struct jobs_seen {
    struct job_seen *v;
    size_t n, cap;
};

static struct job_seen *job_entry(struct jobs_seen *js, const char *id)
{
    for (size_t i = 0; i < js->n; i++)
        if (!strcmp(js->v[i].id, id))
            return &js->v[i];
    if (js->n == js->cap) {
        size_t cap = js->cap ? 2 * js->cap : 8;
        void *nv = realloc(js->v, cap * sizeof *js->v);
        if (!nv)
            return NULL;
        js->v = nv;
        js->cap = cap;
    }
    struct job_seen *j = &js->v[js->n++];
    memset(j, 0, sizeof *j);
    snprintf(j->id, sizeof j->id, "%s", id);
    return j;
}

static void collect(const char *id, pid_t pid, bool holds, void *arg)
{
    struct job_seen *j = job_entry(arg, id);
    if (!j)
        return;
    /* the launcher made the id from its pid as it knows it: in a
     * container, not the pid we see */
    if (holds && emu_proc_made_jobid(pid, id))
        j->live = true;
    for (size_t i = 0; i < j->n; i++)
        if (j->pids[i] == pid)
            return;
    if (j->n == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 8;
        void *nv = realloc(j->pids, cap * sizeof *j->pids);
        if (!nv)
            return;
        j->pids = nv;
        j->cap = cap;
    }
    j->pids[j->n++] = pid;
}

static size_t read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = 0;
    ssize_t n;
    while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
        len += (size_t)n;
    close(fd);
    return len;
}

static bool alive(pid_t pid)
{
    return !emu_proc_gone(pid);
}

static bool has_entry(const char *buf, size_t len, const char *want)
{
    size_t wl = strlen(want) + 1; /* with its NUL */
    for (size_t i = 0; i + wl <= len; i += strlen(buf + i) + 1)
        if (memcmp(buf + i, want, wl) == 0)
            return true;
    return false;
}

/* A recorded pid may have been reused since: kill it only if it still is
 * a process of this job (its environment or daemon command line says so). */
static bool belongs_to_job(pid_t pid, const char *jobid)
{
    static char buf[256 << 10];
    char path[64], want[EMU_JOBID_MAX + 16];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    snprintf(want, sizeof want, "EMUNIC_JOBID=%s", jobid);
    size_t n = read_file(path, buf, sizeof buf - 1);
    buf[n] = '\0';
    if (has_entry(buf, n, want))
        return true;
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    n = read_file(path, buf, sizeof buf - 1);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        if (strcmp(buf + i, "--job") == 0 && i + 6 < n &&
            strcmp(buf + i + 6, jobid) == 0)
            return true;
    return false;
}

static int kill_one(pid_t pid, const char *jobid, pid_t *killed, int nk)
{
    if (alive(pid) && belongs_to_job(pid, jobid) && kill(pid, SIGKILL) == 0)
        killed[nk++] = pid;
    return nk;
}

/* Whether a process the job started still holds or maps its segment. */
static bool any_of_job(const struct job_seen *j)
{
    for (size_t i = 0; i < j->n; i++)
        if (alive(j->pids[i]) && belongs_to_job(j->pids[i], j->id))
            return true;
    return false;
}

/* SIGKILL the stale job's live processes and wait until they are gone;
 * then end what is left in its cgroup. */
static int kill_job(const struct job_seen *j)
{
    pid_t *killed = calloc(j->n + 1, sizeof *killed);
    if (!killed)
        return 0;
    int nk = 0;
    for (size_t i = 0; i < j->n; i++)
        nk = kill_one(j->pids[i], j->id, killed, nk);
    struct timespec ts = {0, 10 * 1000000};
    for (int t = 0; t < KILL_WAIT_MS / 10; t++) {
        bool any = false;
        for (int k = 0; k < nk && !any; k++)
            any = alive(killed[k]);
        if (!any)
            break;
        nanosleep(&ts, NULL);
    }
    free(killed);
    /* and what the ranks left running, in the job's cgroup: found where
     * the launcher made it if --cleanup runs in the launcher's cgroup
     * (the usual case: the same shell or CI step) */
    char cg[EMU_CGROUP_PATH_MAX];
    struct stat st;
    if (emu_cgroup_path(j->id, cg, sizeof cg) == 0 && stat(cg, &st) == 0)
        (void)emu_cgroup_end(cg, (int64_t)KILL_WAIT_MS * 1000000);
    emu_names_unlink_job(j->id);
    return nk;
}

#define NAMED_MAX 256

/* Files named after jobs that no launcher holds any more (their clients'
 * DCMF lockboxes, the daemons gone too): removed. The names were listed
 * before the processes were looked at, so a job that started meanwhile
 * cannot lose its files. */
static void remove_orphan_names(char (*ids)[EMU_JOBID_MAX], int n, const struct jobs_seen *js)
{
    for (int i = 0; i < n; i++) {
        size_t k = 0;
        while (k < js->n && (strcmp(js->v[k].id, ids[i]) != 0 || !js->v[k].live))
            k++;
        int files = k == js->n ? emu_names_unlink_job(ids[i]) : 0;
        if (files > 0)
            printf("emunic-run: removed %d file%s of ended job %s\n", files, files == 1 ? "" : "s", ids[i]);
    }
}

int cleanup_run(const struct opts *o)
{
    static char named[NAMED_MAX][EMU_JOBID_MAX];
    int nnamed = emu_names_jobs(named, NAMED_MAX);
    struct jobs_seen js = {0};
    emu_memfd_foreach_job(collect, &js);
    int ended = 0, live = 0;
    for (size_t i = 0; i < js.n; i++) {
        struct job_seen *j = &js.v[i];
        if (j->live) {
            live++;
            if (o->verbose)
                printf("emunic-run: job %s is live, left alone\n", j->id);
        } else if (!any_of_job(j)) {
            /* nobody the job started: a memfd that only has a job's name */
            if (o->verbose)
                printf("emunic-run: %s is no job's (no process of it maps it), left alone\n", j->id);
        } else {
            int nk = kill_job(j);
            printf("emunic-run: ended stale job %s (launcher %d is gone; killed %d process%s)\n", j->id,
                   atoi(j->id), nk, nk == 1 ? "" : "es");
            ended++;
        }
    }
    remove_orphan_names(named, nnamed, &js);
    for (size_t i = 0; i < js.n; i++)
        free(js.v[i].pids);
    free(js.v);
    printf("emunic-run: cleanup: %d stale job%s ended, %d live job%s left alone\n", ended,
           ended == 1 ? "" : "s", live, live == 1 ? "" : "s");
    return 0;
}
