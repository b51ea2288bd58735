/* --cleanup: remove what a killed emunic-run left behind. A job is stale
 * when its launcher is gone, or when its segment is not a job at all. A
 * job whose objects are only seconds old and cannot be judged yet may be
 * in the middle of being created, and is left alone. */
#include <dirent.h>
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
#include "emunic/job.h"
#include "emunic/proc.h"
#include "emunic/shm.h"
#include "msg.h"
#include "opts.h"

#define FRESH_S 10
#define KILL_WAIT_MS 2000

struct ids {
    char (*v)[EMU_JOBID_MAX];
    size_t n, cap;
};

static void collect(const char *jobid, void *arg)
{
    struct ids *ids = arg;
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? 2 * ids->cap : 16;
        void *nv = realloc(ids->v, cap * sizeof *ids->v);
        if (!nv)
            return;
        ids->v = nv;
        ids->cap = cap;
    }
    snprintf(ids->v[ids->n++], EMU_JOBID_MAX, "%s", jobid);
}

/* Seconds since the newest object of the job was modified. */
static double newest_age(const char *jobid)
{
    char prefix[EMU_JOBID_MAX + 16];
    snprintf(prefix, sizeof prefix, "%s%s.", EMU_SHM_PREFIX, jobid);
    DIR *d = opendir(emu_shm_dir());
    if (!d)
        return 1e9;
    time_t newest = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
            fstatat(dirfd(d), e->d_name, &st, 0) == 0 && st.st_mtime > newest)
            newest = st.st_mtime;
    }
    closedir(d);
    return newest ? difftime(time(NULL), newest) : 1e9;
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

/* SIGKILL the job's live processes and wait until they are gone. */
static int kill_job(const struct emu_job *j, const char *jobid)
{
    uint32_t nn = j->geo.nnodes, nr = j->geo.nranks;
    pid_t *killed = calloc((size_t)nn + nr + 1, sizeof *killed);
    if (!killed)
        return 0;
    int nk = 0;
    for (uint32_t i = 0; i < nn; i++)
        nk = kill_one(atomic_load(&j->nodes[i].daemon_pid), jobid, killed, nk);
    for (uint32_t r = 0; r < nr; r++)
        nk = kill_one(atomic_load(&j->ranks[r].pid), jobid, killed, nk);
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
    if (emu_cgroup_path(jobid, cg, sizeof cg) == 0 && stat(cg, &st) == 0)
        (void)emu_cgroup_end(cg, (int64_t)KILL_WAIT_MS * 1000000);
    return nk;
}

enum verdict { LIVE, STALE, SKIP };

static enum verdict judge(const char *jobid, int *nkilled, char *why,
                          size_t wn)
{
    struct emu_job j;
    int rc = emu_job_attach(&j, jobid);
    if (rc == 0) {
        pid_t lp = j.geo.launcher_pid;
        enum verdict v = STALE;
        if (lp == 0 && newest_age(jobid) < FRESH_S)
            v = LIVE; /* its launcher is still creating it */
        else if (alive(lp))
            v = LIVE;
        else {
            *nkilled = kill_job(&j, jobid);
            snprintf(why, wn, "launcher %d is gone", (int)lp);
        }
        emu_job_detach(&j);
        return v;
    }
    if (rc == -EPROTO || rc == -EINVAL || rc == -ENOENT || rc == -ENODATA) {
        if (newest_age(jobid) < FRESH_S)
            return LIVE;
        snprintf(why, wn, "not a valid job segment: %s", strerror(-rc));
        return STALE;
    }
    msg("cleanup: cannot inspect job %s: %s", jobid, strerror(-rc));
    return SKIP;
}

int cleanup_run(const struct opts *o)
{
    struct ids ids = {0};
    emu_shm_foreach_job(collect, &ids);
    int removed = 0, live = 0, skipped = 0;
    for (size_t i = 0; i < ids.n; i++) {
        const char *id = ids.v[i];
        int nkilled = 0;
        char why[160] = "";
        switch (judge(id, &nkilled, why, sizeof why)) {
        case LIVE:
            live++;
            if (o->verbose)
                printf("emunic-run: job %s is live, left alone\n", id);
            break;
        case SKIP:
            skipped++;
            break;
        case STALE: {
            int objs = emu_shm_unlink_job(id);
            printf("emunic-run: removed stale job %s (%s; killed %d "
                   "process%s, removed %d object%s)\n", id, why, nkilled,
                   nkilled == 1 ? "" : "es", objs, objs == 1 ? "" : "s");
            removed++;
            break;
        }
        }
    }
    printf("emunic-run: cleanup of %s: %d stale job%s removed, %d live job%s "
           "left alone%s\n", emu_shm_dir(), removed, removed == 1 ? "" : "s",
           live, live == 1 ? "" : "s", skipped ? ", some could not be read" : "");
    free(ids.v);
    return 0;
}
