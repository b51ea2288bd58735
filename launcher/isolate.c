/* --isolate: the job gets a PID and a mount namespace of its own (and a user
 * namespace when we are not root, which is what lets an ordinary user make
 * the other two). Its processes see in /proc only their own job, so a rank
 * has no other job's pid to signal and no other job's /proc/PID/fd to open
 * that job's memory through, which memfds alone do not give (core.md, "No
 * names"): jobs of one user that are all isolated cannot reach each other.
 *
 * The process the user started stays outside as a relay: it passes on the
 * signals somebody sends it and ends with the launcher's status. The
 * launcher proper is the namespace's init; when it ends, however, the
 * kernel kills whatever of the job is left, also processes that escaped its
 * process group and cgroup. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#include "msg.h"

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Our own uid and gid, and nothing else, inside the new user namespace:
 * files the job writes keep their owner, and nobody gains a privilege. */
static int map_ids(uid_t uid, gid_t gid)
{
    char line[64];
    if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
        return -1;
    snprintf(line, sizeof line, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    if (write_file("/proc/self/uid_map", line) < 0)
        return -1;
    snprintf(line, sizeof line, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    return write_file("/proc/self/gid_map", line);
}

/* As the creator of a user namespace we hold every capability in it, and
 * the kernel lets a process without them (a daemon, a rank) read the
 * /proc/PID/fd of one with them only if it has CAP_SYS_PTRACE: give them
 * all up once /proc is mounted; nothing later needs them. */
static int drop_caps(void)
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
    struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) < 0) {
        msg("--isolate: cannot give up the user namespace's capabilities: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* In the namespace's init: mounts of its own, with a /proc that shows this
 * namespace's pids only, and a /dev/shm of its own. */
static int private_mounts(void)
{
    if (unshare(CLONE_NEWNS) < 0) {
        msg("--isolate: cannot make the job's mount namespace: %s", strerror(errno));
        return -1;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        msg("--isolate: cannot make the job's mounts private: %s", strerror(errno));
        return -1;
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
        msg("--isolate: cannot mount /proc for the job's PID namespace: %s "
            "(a container that masks parts of /proc forbids it)", strerror(errno));
        return -1;
    }
    /* The one file a client names after the job (DCMF's lockbox) and
     * whatever else the job's programs share by name (MPI's segments) go
     * to a /dev/shm of the job's own, gone with it. A shm directory the
     * user chose (EMUNIC_SHM_DIR) is theirs: left as it is. */
    const char *dir = getenv("EMUNIC_SHM_DIR");
    if ((!dir || !*dir || !strcmp(dir, "/dev/shm")) &&
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0) {
        msg("--isolate: cannot mount a /dev/shm of the job's own: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The outer half: pass on what somebody sends us, end as the launcher
 * ends. A signal from the terminal reached the launcher already (it is in
 * our process group), so only ones sent by a process are passed on. */
static int relay(pid_t child, const sigset_t *sigs)
{
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(sigs, &si);
        if (sig < 0)
            continue;
        if (sig != SIGCHLD) {
            /* marked, so that the launcher can tell it from the copy a
             * signal to the whole process group gave it directly */
            if (si.si_code == SI_USER || si.si_code == SI_QUEUE || si.si_code == SI_TKILL)
                sigqueue(child, sig, (union sigval){.sival_int = ISOLATE_RELAYED});
            continue;
        }
        int st;
        pid_t w = waitpid(child, &st, WNOHANG);
        if (w == 0 || (w < 0 && errno == EINTR))
            continue;
        if (w < 0)
            return 1;
        if (WIFEXITED(st))
            return WEXITSTATUS(st);
        msg("the launcher was killed by signal %d", WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
}

int isolate_enter(void)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    /* The mount namespace is the launcher's alone (private_mounts): the
     * relay keeps the host's /proc. */
    int flags = CLONE_NEWPID | (uid != 0 ? CLONE_NEWUSER : 0);
    int rc = unshare(flags);
    if (rc < 0 && errno == EPERM && !(flags & CLONE_NEWUSER)) {
        /* root without CAP_SYS_ADMIN (a container's) may still make a user
         * namespace, and with it the rest */
        flags |= CLONE_NEWUSER;
        rc = unshare(flags);
    }
    if (rc < 0) {
        msg("--isolate: cannot make the job's namespaces: %s (this host does "
            "not allow %s)", strerror(errno),
            flags & CLONE_NEWUSER ? "unprivileged user namespaces" : "new PID namespaces");
        return 2;
    }
    if ((flags & CLONE_NEWUSER) && map_ids(uid, gid) < 0) {
        msg("--isolate: cannot map our ids into the job's user namespace: %s",
            strerror(errno));
        return 2;
    }
    /* What the relay passes on waits blocked until it takes it. The
     * launcher keeps those blocked too until signals_take: as the
     * namespace's init it would drop them unhandled. Other signals end the
     * relay, and through its death signal the whole job, as they would end
     * a launcher that is not isolated. */
    sigset_t stop, sigs, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigs = stop;
    sigaddset(&sigs, SIGCHLD);
    sigprocmask(SIG_BLOCK, &sigs, &old);
    struct sigaction dfl = {.sa_handler = SIG_DFL}; /* an inherited SIG_IGN would reap for us */
    sigaction(SIGCHLD, &dfl, NULL);
    int alive[2];
    if (pipe2(alive, O_CLOEXEC) < 0) {
        msg("--isolate: %s", strerror(errno));
        return 2;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        msg("--isolate: cannot start the job's first process: %s", strerror(errno));
        return 2;
    }
    if (child > 0) {
        close(alive[0]);
        rc = relay(child, &sigs);
        /* Not through exit(): what we would fork from now on is born in
         * the job's PID namespace, where we do not exist, and LeakSanitizer's
         * exit-time tracer is such a child. alive[1] closes with us. */
        fflush(NULL);
        _exit(rc);
    }
    /* The launcher, pid 1 of the job. It dies with the relay; if the relay
     * was gone before we asked, its end of the pipe is closed already. */
    close(alive[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd p = {.fd = alive[0], .events = POLLIN};
    if (poll(&p, 1, 0) > 0)
        _exit(1);
    close(alive[0]);
    sigorset(&old, &old, &stop);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (private_mounts() < 0 || ((flags & CLONE_NEWUSER) && drop_caps() < 0))
        _exit(2);
    return ISOLATE_INSIDE;
}
