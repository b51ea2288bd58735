/* fork/exec of NIC daemons and ranks. Every child joins the job's own
 * process group (a terminal's Ctrl-C reaches only the launcher, which then
 * tears down; killpg reaches the whole job), dies with the launcher
 * (PDEATHSIG), and execs with default signals and only the descriptors it
 * should have. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher.h"
#include "machine.h"
#include "msg.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct child_io {
    int in;   /* dup'd to 0; -1: /dev/null */
    int out;  /* dup'd to 1; -1: inherit the launcher's */
    int err;  /* dup'd to 2; -1: inherit */
    int pmi;  /* the rank's PMI socket, kept open; -1: none */
};

static void setenv_u(const char *name, uint32_t v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%u", v);
    setenv(name, buf, 1);
}

static void child_stdio(const struct child_io *io)
{
    int in = io->in;
    if (in < 0)
        in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in >= 0)
        dup2(in, STDIN_FILENO);
    if (io->out >= 0)
        dup2(io->out, STDOUT_FILENO);
    if (io->err >= 0)
        dup2(io->err, STDERR_FILENO);
}

/* Close at exec everything but stdio and the descriptors the child needs:
 * a daemon rings its peers' doorbells and keeps the control block, the
 * wire and the report pipe; a rank keeps only its own node's doorbell. */
static void child_fds(const struct launcher *L, int rank_node)
{
    uint32_t nn = L->o->nnodes;
#ifdef __NR_close_range
    if (syscall(__NR_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) == 0) {
        for (uint32_t i = 0; i < nn; i++)
            if (rank_node < 0 || (uint32_t)rank_node == i)
                fcntl(L->efds[i], F_SETFD, 0);
        if (rank_node < 0) {
            fcntl(L->ctl_fd, F_SETFD, 0);
            fcntl(L->wire_fd, F_SETFD, 0);
            fcntl(L->report[1], F_SETFD, 0);
        }
        return;
    }
#endif
    /* old kernel: our own fds are CLOEXEC already, the doorbells are not */
    for (uint32_t i = 0; rank_node >= 0 && i < nn; i++)
        if ((uint32_t)rank_node != i)
            close(L->efds[i]);
    if (rank_node < 0) {
        fcntl(L->ctl_fd, F_SETFD, 0);
        fcntl(L->wire_fd, F_SETFD, 0);
        fcntl(L->report[1], F_SETFD, 0);
    }
}

static void child_signals(const struct launcher *L)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        if (!(s == SIGHUP && L->hup_ignored)) /* nohup covers the job */
            (void)sigaction(s, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static _Noreturn void child_exec(const struct launcher *L, uint32_t node,
                                 int rank, const struct child_io *io,
                                 const char *path, char *const argv[])
{
    /* die with the launcher; the getppid check closes the race where it
     * died before the prctl */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != L->self)
        _exit(127);
    setpgid(0, L->pgid); /* 0 for the first child: it founds the group */
    child_stdio(io);
    child_fds(L, rank >= 0 ? (int)node : -1);
    /* a rank and all it ever starts stay in the job's cgroup (best effort:
     * without it, teardown still has the process group and the sweep) */
    if (rank >= 0 && L->cg_procs >= 0)
        (void)!write(L->cg_procs, "0", 1);
    bind_apply(&L->bind, node);

    setenv("EMUNIC_JOBID", L->jobid, 1);
    setenv_u("EMUNIC_JOB_FD", (uint32_t)L->job.fd); /* where we hold the segment */
    setenv_u("EMUNIC_NODE", node);
    setenv_u("EMUNIC_NNODES", L->o->nnodes);
    setenv("EMUNIC_NIC", L->o->nic, 1);
    if (rank >= 0) {
        setenv_u("EMUNIC_RANK", (uint32_t)rank);
        setenv_u("EMUNIC_SIZE", L->nranks);
        setenv_u("EMUNIC_LOCAL_RANK", (uint32_t)rank % L->o->rpn);
        setenv_u("EMUNIC_LOCAL_SIZE", L->o->rpn);
        machine_dilate_env(L->o->dilate, L->job.geo.created_ns); /* --dilate: ranks only */
        /* the rank's own copies of what it must not take from the segment
         * (which its peers can write): its doorbell, and who may trace it */
        setenv_u("EMUNIC_DOORBELL_FD", (uint32_t)L->efds[node]);
        setenv_u("EMUNIC_NIC_PID", (uint32_t)L->procs.v[node].pid); /* daemons: slots [0, nnodes) */
        setenv_u("EMUNIC_LAUNCHER_PID", (uint32_t)L->self);
    } else { /* a launcher started inside a job must not leak its rank */
        unsetenv("EMUNIC_DOORBELL_FD");
        unsetenv("EMUNIC_NIC_PID");
        unsetenv("EMUNIC_LAUNCHER_PID");
        unsetenv("EMUNIC_RANK");
        unsetenv("EMUNIC_SIZE");
        unsetenv("EMUNIC_LOCAL_RANK");
        unsetenv("EMUNIC_LOCAL_SIZE");
    }
    if (io->pmi >= 0) {
        fcntl(io->pmi, F_SETFD, 0);
        char fdstr[16];
        snprintf(fdstr, sizeof fdstr, "%d", io->pmi);
        setenv("PMI_FD", fdstr, 1);
        setenv_u("PMI_RANK", (uint32_t)rank);
        setenv_u("PMI_SIZE", L->nranks);
        setenv("PMI_SPAWNED", "0", 1);
        unsetenv("PMI_PORT");
        unsetenv("PMI_ID");
    } else if (rank >= 0 && pmi_port(L->pmi)) {
        setenv("PMI_PORT", pmi_port(L->pmi), 1);
        setenv_u("PMI_ID", (uint32_t)rank);
        setenv_u("PMI_RANK", (uint32_t)rank);
        setenv_u("PMI_SIZE", L->nranks);
        setenv("PMI_SPAWNED", "0", 1);
        unsetenv("PMI_FD");
    } else { /* an outer launcher's PMI fd is not open here */
        static const char *const pv[] = {"PMI_FD", "PMI_PORT", "PMI_ID",
                                          "PMI_RANK", "PMI_SIZE",
                                          "PMI_SPAWNED"};
        for (size_t i = 0; i < sizeof pv / sizeof pv[0]; i++)
            unsetenv(pv[i]);
    }
    child_signals(L);
    /* Blue Gene's CNK maps every process of a job alike, and BG/P code
     * passes one rank's addresses to another (OSPRI A1's benchmarks) */
    if (rank >= 0 && L->o->no_aslr &&
        personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE) == -1) {
        msg("cannot start rank %d without address randomisation: personality: %s", rank, strerror(errno));
        _exit(127);
    }

    execv(path, argv);
    int err = errno;
    if (err == ENOEXEC) { /* a script without #!: run it as execvp does */
        int n = 0;
        while (argv[n])
            n++;
        char **sh = calloc((size_t)n + 2, sizeof *sh);
        if (sh) {
            sh[0] = "/bin/sh";
            sh[1] = (char *)path;
            for (int i = 1; i < n; i++)
                sh[i + 1] = argv[i];
            execv("/bin/sh", sh);
        }
    }
    msg("cannot run '%s': %s", path, strerror(err));
    _exit(127);
}

static void close_pair(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
    p[0] = p[1] = -1;
}

/* Pipes for a child's stdout/stderr, unless --no-prefix. */
static int out_pipes(const struct launcher *L, int pout[2], int perr[2])
{
    pout[0] = pout[1] = perr[0] = perr[1] = -1;
    if (L->o->no_prefix)
        return 0;
    if (pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
        int e = errno;
        close_pair(pout);
        close_pair(perr);
        errno = e;
        return -1;
    }
    fcntl(pout[0], F_SETFL, O_NONBLOCK);
    fcntl(perr[0], F_SETFL, O_NONBLOCK);
    return 0;
}

/* Parent side after a successful fork. */
static void adopt(struct launcher *L, struct proc *p, pid_t pid, int pout[2],
                  int perr[2], const char *prefix)
{
    if (L->pgid == 0)
        L->pgid = pid;
    /* also here, so the group is right before we could ever killpg it;
     * fails harmlessly if the child already did it and exec'd */
    setpgid(pid, L->pgid);
    procs_started(&L->procs, p, pid);
    if (pout[0] >= 0) {
        close(pout[1]);
        close(perr[1]);
        p->out = relay_add(&L->relay, pout[0], STDOUT_FILENO, prefix);
        p->err = relay_add(&L->relay, perr[0], STDERR_FILENO, prefix);
    }
}

int spawn_daemon(struct launcher *L, uint32_t node)
{
    int pout[2], perr[2];
    if (out_pipes(L, pout, perr) < 0) {
        msg("cannot start the NIC daemon of node %u: pipe: %s", node,
            strerror(errno));
        return -1;
    }
    char nodestr[16], ctlstr[16], repstr[16], wirestr[16];
    snprintf(nodestr, sizeof nodestr, "%u", node);
    snprintf(ctlstr, sizeof ctlstr, "%d", L->ctl_fd);
    snprintf(repstr, sizeof repstr, "%d", L->report[1]);
    snprintf(wirestr, sizeof wirestr, "%d", L->wire_fd);
    char *argv[] = {L->nicd, "--job", L->jobid, "--node", nodestr, "--ctl", ctlstr,
                    "--report", repstr, "--wire", wirestr, NULL};
    struct child_io io = {-1, pout[1], perr[1], -1};

    pid_t pid = fork();
    if (pid == 0)
        child_exec(L, node, -1, &io, L->nicd, argv);
    if (pid < 0) {
        msg("cannot start the NIC daemon of node %u: fork: %s", node,
            strerror(errno));
        close_pair(pout);
        close_pair(perr);
        return -1;
    }
    char prefix[32];
    snprintf(prefix, sizeof prefix, "[n%u.nic] ", node);
    adopt(L, procs_daemon(&L->procs, node), pid, pout, perr, prefix);
    atomic_store(&L->job.nodes[node].daemon_pid, (int32_t)pid);
    return 0;
}

int spawn_rank(struct launcher *L, uint32_t rank)
{
    uint32_t node = rank / L->o->rpn;
    int pout[2], perr[2];
    if (out_pipes(L, pout, perr) < 0) {
        msg("cannot start rank %u: pipe: %s", rank, strerror(errno));
        return -1;
    }
    int pmi = -1;
    if (L->pmi && !pmi_port(L->pmi) && (pmi = pmi_pair(L->pmi, rank)) < 0) {
        msg("cannot start rank %u: socketpair: %s", rank, strerror(errno));
        close_pair(pout);
        close_pair(perr);
        return -1;
    }
    int in = rank == 0 ? fwd_pipe(L->fwd) : -1;
    struct child_io io = {in, pout[1], perr[1], pmi};

    pid_t pid = fork();
    if (pid == 0)
        child_exec(L, node, (int)rank, &io, L->o->prog_path, L->o->argv);
    if (in >= 0)
        close(in);
    if (pmi >= 0)
        pmi_attach(L->pmi, rank, pid > 0);
    if (pid < 0) {
        msg("cannot start rank %u: fork: %s", rank, strerror(errno));
        close_pair(pout);
        close_pair(perr);
        return -1;
    }
    ctl_rank_started(L, rank, pid);
    atomic_store(&L->job.ranks[rank].pid, (int32_t)pid); /* for tools; daemons take ctl's */
    char prefix[32];
    snprintf(prefix, sizeof prefix, "[n%u.r%u] ", node, rank);
    adopt(L, procs_rank(&L->procs, rank), pid, pout, perr, prefix);
    return 0;
}
