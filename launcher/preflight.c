/* Everything a job needs that can be checked before anything exists: the
 * daemon binary, file descriptors for all pipes, the CPU placement. And
 * the signals, taken before the first object is created so that a Ctrl-C
 * at any moment still ends in a clean teardown. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "launcher.h"
#include "msg.h"

/* Descriptors the launcher holds beyond its pipes: std, epoll, signalfd,
 * timers, the job segment, hwloc, slack for libc. */
#define FD_OVERHEAD 32

static int find_nicd(struct launcher *L)
{
    const char *env = getenv("EMUNIC_NICD");
    if (env && *env) {
        snprintf(L->nicd, sizeof L->nicd, "%s", env);
    } else {
        char self[sizeof L->nicd - 16];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return msg_usage("cannot find emunic-nicd: /proc/self/exe: %s "
                             "(set EMUNIC_NICD)", strerror(errno));
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        snprintf(L->nicd, sizeof L->nicd, "%s/emunic-nicd", self);
    }
    if (access(L->nicd, X_OK) < 0)
        return msg_usage("NIC daemon '%s': %s (set EMUNIC_NICD to "
                         "emunic-nicd)", L->nicd, strerror(errno));
    return 0;
}

/* A job of 256+ ranks needs 512+ pipe ends; the usual soft limit is 1024. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == rl.rlim_max)
        return;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
        return;
    /* an unlimited hard limit can exceed fs.nr_open */
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    unsigned long nr;
    if (f && fscanf(f, "%lu", &nr) == 1 && nr < rl.rlim_max) {
        rl.rlim_cur = nr;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (f)
        fclose(f);
}

static int check_fds(const struct launcher *L)
{
    const struct opts *o = L->o;
    uint64_t pipes = o->no_prefix ? 1 : 2ull * (L->nranks + o->nnodes) + 1;
    uint64_t need = pipes + o->nnodes + FD_OVERHEAD +
                    (o->no_pmi ? 0 : L->nranks); /* PMI sockets */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        need > rl.rlim_cur)
        return msg_usage("%u ranks need %llu open files but the limit is "
                         "%llu (raise it with ulimit -Hn)", L->nranks,
                         (unsigned long long)need,
                         (unsigned long long)rl.rlim_cur);
    return 0;
}

int preflight(struct launcher *L)
{
    int rc = find_nicd(L);
    if (rc)
        return rc;
    raise_nofile();
    rc = check_fds(L);
    if (rc)
        return rc;
    return bind_plan_make(&L->bind, L->o->bind, L->o->nnodes);
}

void signals_take(struct launcher *L)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigaction(SIGHUP, NULL, &sa);
    L->hup_ignored = sa.sa_handler == SIG_IGN;

    sigemptyset(&L->sigs);
    sigaddset(&L->sigs, SIGCHLD);
    sigaddset(&L->sigs, SIGINT);
    sigaddset(&L->sigs, SIGTERM);
    if (!L->hup_ignored) /* nohup emunic-run ...: keep running */
        sigaddset(&L->sigs, SIGHUP);
    /* A non-interactive shell starts background jobs with SIGINT ignored;
     * the launcher still wants it, and blocked+signalfd is how it takes it. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);
    sigprocmask(SIG_BLOCK, &L->sigs, NULL);

    /* Writes to a rank that left, or to our closed stdout, are errors to
     * handle, not deaths. Reading the terminal from the background gives
     * EIO (treated as EOF) instead of stopping the whole job. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGTTIN, &sa, NULL);
    sigaction(SIGTTOU, &sa, NULL);
}
