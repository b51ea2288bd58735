/* Every process of the job, also the ones killpg cannot reach: a rank's
 * child that called setsid or setpgid has left the job's process group.
 * They are all our descendants, found through /proc/PID/task/TID/children
 * (and an orphan among them is our own child, since we are a subreaper).
 * Each is signalled through a pidfd opened after checking that its parent
 * is one of ours, so a pid reused by a stranger in the meantime is never
 * hit. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emunic/proc.h"
#include "launcher.h"

#define SWEEP_MAX 65536

struct pidset {
    pid_t *v;
    size_t n, cap;
};

static int has(const struct pidset *s, pid_t p)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == p)
            return 1;
    return 0;
}

static void add(struct pidset *s, pid_t p)
{
    if (p <= 0 || s->n >= SWEEP_MAX || has(s, p))
        return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        pid_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = p;
}

/* Append pid's children (of every thread) to s; 0 if the kernel has no
 * /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN off). */
static int children(struct pidset *s, pid_t pid)
{
    int any = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return 1; /* gone: nothing to add */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char cpath[320];
        snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children", (int)pid, e->d_name);
        FILE *f = fopen(cpath, "re");
        if (!f)
            continue;
        any = 1;
        int c;
        while (fscanf(f, "%d", &c) == 1)
            add(s, c);
        fclose(f);
    }
    closedir(d);
    return any;
}

static pid_t ppid_of(pid_t pid)
{
    pid_t pp;
    return emu_proc_stat(pid, NULL, &pp) == 0 ? pp : -1;
}

/* Without the children files: every process whose parent is in s, over
 * the whole of /proc, until nothing new turns up. */
static void children_by_scan(struct pidset *s, pid_t self)
{
    for (size_t before = (size_t)-1; before != s->n;) {
        before = s->n;
        DIR *d = opendir("/proc");
        if (!d)
            return;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            pid_t p = (pid_t)atoi(e->d_name), pp;
            if (p > 0 && p != self && !has(s, p) && (pp = ppid_of(p)) > 0 && (pp == self || has(s, pp)))
                add(s, p);
        }
        closedir(d);
    }
}

static void hit(pid_t pid, int sig, const struct pidset *ours, pid_t self)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        pid_t pp = ppid_of(pid);
        if (pp == self || has(ours, pp))
            syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
        close(fd);
        return;
    }
    if (errno != ENOSYS)
        return; /* gone already */
#endif
    (void)ours;
    (void)self;
    kill(pid, sig); /* no pidfds: the small reuse window remains */
}

int sweep_descendants(int sig)
{
    pid_t self = getpid();
    struct pidset s = {0};
    if (children(&s, self))
        for (size_t i = 0; i < s.n; i++) /* s grows while we walk it: breadth first */
            children(&s, s.v[i]);
    else
        children_by_scan(&s, self);
    for (size_t i = 0; i < s.n; i++)
        hit(s.v[i], sig, &s, self);
    int n = (int)s.n;
    free(s.v);
    return n;
}
