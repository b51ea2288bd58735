/* emunic-stat [--interval S] [--once] [--json] [JOB]: the per-NIC counters
 * of a running job, from another terminal. It maps the job segment and
 * only ever reads it; the job never knows it is watched.
 *
 * JOB is a job id (emunic-run -v prints it). Without JOB it picks the
 * only running job, or lists the running jobs: those whose segment (the
 * memfd emunic.<id>.job) a live launcher holds. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emunic/job.h"
#include "emunic/proc.h"
#include "stats.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-stat [options] [JOB]\n"
            "Show the per-NIC counters of a running emunic job, refreshed every interval\n"
            "until the job ends or Ctrl-C.\n"
            "  JOB              job id (emunic-run -v prints it); default: the only running job\n"
            "  -i, --interval S seconds between refreshes (default 1; may be fractional)\n"
            "  -1, --once       print one snapshot and exit\n"
            "      --json       print one snapshot as JSON (the --stats-json document) and exit\n"
            "  -h, --help       this text\n"
            "Rates (per second) are since the previous refresh; in the first (or only)\n"
            "snapshot they are averages since the job started. See docs/observe.md.\n");
}

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("emunic-stat: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

/* ---- finding the job ---- */

/* The launcher as we see it: under --isolate its pid in the job
 * (geo.launcher_pid, 1) is not ours, so open_job looks for the holder
 * whose pid in its own namespace the job id starts with. */
static pid_t launcher_here;

static bool launcher_alive(const struct emu_job *j)
{
    if (launcher_here > 0)
        return !emu_proc_gone(launcher_here);
    pid_t p = j->geo.launcher_pid;
    return p > 0 && (kill(p, 0) == 0 || errno == EPERM);
}

struct finding {
    const char *id;
    pid_t pid;
};

static void find_launcher(const char *id, pid_t pid, bool holds, void *arg)
{
    struct finding *f = arg;
    if (holds && !strcmp(id, f->id) && emu_proc_made_jobid(pid, id))
        f->pid = pid;
}

struct jobs {
    char ids[64][EMU_JOBID_MAX];
    unsigned n, total;
};

/* A job runs while its launcher, whose pid its id starts with, holds it. */
static void collect(const char *id, pid_t pid, bool holds, void *arg)
{
    struct jobs *js = arg;
    if (!holds || !emu_proc_made_jobid(pid, id))
        return;
    for (unsigned i = 0; i < js->n; i++)
        if (!strcmp(js->ids[i], id))
            return;
    struct emu_job j; /* a memfd of that name that is no job is not one */
    if (emu_job_attach(&j, id) != 0)
        return;
    emu_job_detach(&j);
    if (js->n < 64)
        snprintf(js->ids[js->n++], EMU_JOBID_MAX, "%s", id);
    js->total++;
}

static int list_jobs(const struct jobs *js)
{
    fprintf(stderr, "emunic-stat: %u running jobs; name one:\n", js->total);
    for (unsigned i = 0; i < js->n; i++) {
        struct emu_job j;
        if (emu_job_attach(&j, js->ids[i]) != 0)
            continue;
        const struct emu_job_geo *h = &j.geo;
        fprintf(stderr, "  %-24s %u node%s x %u rank%s, nic %s, launcher pid %d, up %.1f s\n",
                h->jobid, h->nnodes, h->nnodes == 1 ? "" : "s", h->ranks_per_node,
                h->ranks_per_node == 1 ? "" : "s", h->nic, (int)h->launcher_pid,
                (double)(emu_now_ns() - h->created_ns) / 1e9);
        emu_job_detach(&j);
    }
    return 2;
}

static int open_job(const char *arg, struct emu_job *j)
{
    char id[EMU_JOBID_MAX];
    if (!arg) {
        struct jobs js = {.n = 0};
        emu_memfd_foreach_job(collect, &js);
        if (js.total == 0)
            return fail(1, "no running job");
        if (js.total > 1)
            return list_jobs(&js);
        snprintf(id, sizeof id, "%s", js.ids[0]);
    } else {
        if (!*arg || strlen(arg) >= EMU_JOBID_MAX || strpbrk(arg, "./"))
            return fail(1, "'%s' is not a job id", arg);
        snprintf(id, sizeof id, "%s", arg);
    }
    int rc = emu_job_attach(j, id);
    if (rc == -ENOENT)
        return fail(1, "no job %s (finished, or never started)", id);
    if (rc == -EPROTO)
        return fail(1, "job %s's segment is not an emunic job segment (or one of another emunic version)", id);
    if (rc)
        return fail(1, "cannot open job %s: %s", id, strerror(-rc));
    struct finding f = {id, 0};
    emu_memfd_foreach_job(find_launcher, &f);
    launcher_here = f.pid;
    return 0;
}

/* ---- the table ---- */

/* Commands waiting in node n's ranks' rings. The wire rings between the
 * daemons are in their own object, which tools do not map (docs/core.md):
 * what waits there shows as backlog and queue_max. */
static uint64_t depth(const struct emu_job *j, uint32_t n)
{
    const struct emu_job_geo *h = &j->geo;
    uint64_t d = 0;
    struct emu_ring r;
    for (uint32_t l = 0; l < h->ranks_per_node; l++)
        if (emu_ring_attach(&r, emu_job_cmd_ring(j, n * h->ranks_per_node + l), h->cmd_slots) == 0)
            d += emu_ring_depth(&r);
    return d;
}

enum { C_CMDS, C_WRITES, C_READS, C_ATOMICS, C_AMS, C_MODULE, C_BYTES, C_PACKETS, C_WIRE_TX,
       C_RETX, C_DROPS, C_DUPS, C_QMAX, C_STALLS, C_WAKEUPS, C_DOORBELLS, C_N };
static const char *const want[C_N] = {"cmds", "writes", "reads", "atomics", "ams", "module_ops",
                                      "bytes", "packets", "wire_tx", "retransmits", "drops", "dups",
                                      "queue_max", "credit_stalls", "wakeups", "doorbells"};
static int idx[C_N];

static void row(const char *name, const uint64_t *v, const uint64_t *prev, uint64_t q, double dt)
{
    uint64_t c[C_N];
    for (int k = 0; k < C_N; k++)
        c[k] = idx[k] >= 0 ? v[idx[k]] : 0;
    uint64_t pk = c[C_PACKETS] ? c[C_PACKETS] : c[C_WIRE_TX];
    double ops = 0, mbs = 0;
    if (dt > 0) {
        uint64_t pc = prev && idx[C_CMDS] >= 0 ? prev[idx[C_CMDS]] : 0;
        uint64_t pb = prev && idx[C_BYTES] >= 0 ? prev[idx[C_BYTES]] : 0;
        ops = (double)(c[C_CMDS] - pc) / dt;
        mbs = (double)(c[C_BYTES] - pb) / dt / 1e6;
    }
    printf("%-6s %10llu %9llu %9llu %9llu %8llu %9llu %12llu %10llu %7llu %7llu %7llu %6llu %6llu "
           "%7llu %8llu %8llu %11.0f %9.2f\n",
           name, (unsigned long long)c[C_CMDS], (unsigned long long)c[C_WRITES],
           (unsigned long long)c[C_READS], (unsigned long long)c[C_ATOMICS],
           (unsigned long long)c[C_AMS], (unsigned long long)c[C_MODULE],
           (unsigned long long)c[C_BYTES], (unsigned long long)pk, (unsigned long long)c[C_RETX],
           (unsigned long long)c[C_DROPS], (unsigned long long)c[C_DUPS], (unsigned long long)q,
           (unsigned long long)c[C_QMAX], (unsigned long long)c[C_STALLS],
           (unsigned long long)c[C_WAKEUPS], (unsigned long long)c[C_DOORBELLS], ops, mbs);
}

static void table(const struct emu_job *j, uint64_t *cur, uint64_t *prev, bool have_prev, double dt,
                  bool tty)
{
    const struct emu_job_geo *h = &j->geo;
    unsigned nc = stats_nctr();
    uint32_t nn = h->nnodes;
    if (tty)
        fputs("\033[H\033[2J", stdout);
    double up = (double)(emu_now_ns() - h->created_ns) / 1e9;
    /* geometry comes from the private snapshot taken at attach, and the
     * machine's name is copied and terminated: ranks can write the segment */
    char machine[sizeof emu_job_netcfg(j)->m.name];
    memcpy(machine, emu_job_netcfg(j)->m.name, sizeof machine);
    machine[sizeof machine - 1] = 0;
    printf("job %s: %u node%s x %u rank%s, nic %s, machine %s, up %.1f s; rates over %.2f s\n",
           h->jobid, nn, nn == 1 ? "" : "s", h->ranks_per_node, h->ranks_per_node == 1 ? "" : "s",
           h->nic, machine, up, dt);
    printf("%-6s %10s %9s %9s %9s %8s %9s %12s %10s %7s %7s %7s %6s %6s %7s %8s %8s %11s %9s\n",
           "nic", "ops", "writes", "reads", "atomics", "ams", "module", "bytes", "packets", "retx",
           "drops", "dups", "queue", "qmax", "stalls", "wakeups", "bells", "ops/s", "MB/s");
    uint64_t *tot = cur + (size_t)nn * nc, *ptot = prev + (size_t)nn * nc, qt = 0;
    for (uint32_t n = 0; n < nn; n++) {
        char name[16];
        snprintf(name, sizeof name, "%u", n);
        uint64_t q = depth(j, n);
        qt += q;
        row(name, cur + (size_t)n * nc, have_prev ? prev + (size_t)n * nc : NULL, q, dt);
    }
    if (nn > 1)
        row("total", tot, have_prev ? ptot : NULL, qt, dt);
    fflush(stdout);
}

static void snapshot(const struct emu_job *j, uint64_t *v)
{
    unsigned nc = stats_nctr();
    uint32_t nn = j->geo.nnodes;
    for (uint32_t n = 0; n < nn; n++)
        stats_load(j, n, v + (size_t)n * nc);
    stats_load(j, UINT32_MAX, v + (size_t)nn * nc);
}

static bool job_gone(const struct emu_job *j)
{
    return !launcher_alive(j) || atomic_load(&j->hdr->abort);
}

int main(int argc, char **argv)
{
    double interval = 1;
    bool once = false, json = false;
    static const struct option lo[] = {{"interval", required_argument, 0, 'i'},
                                       {"once", no_argument, 0, '1'},
                                       {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:i:1h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': {
            char *end = NULL;
            errno = 0;
            interval = strtod(optarg, &end);
            if (errno || !end || *end || !*optarg || !isfinite(interval) || interval < 0.01 ||
                interval > 86400)
                return fail(2, "--interval must be a number of seconds from 0.01 to 86400, not '%s'",
                            optarg);
            break;
        }
        case '1': once = true; break;
        case 'j': json = once = true; break;
        case 'h': usage(stdout); return 0;
        case ':': return fail(2, "option %s needs a value (see emunic-stat --help)", argv[optind - 1]);
        default:
            return fail(2, "unknown option '%s' (see emunic-stat --help)", argv[optind - 1]);
        }
    }
    if (argc - optind > 1)
        return fail(2, "one job at a time (got %d arguments; see emunic-stat --help)", argc - optind);
    struct emu_job j;
    int rc = open_job(optind < argc ? argv[optind] : NULL, &j);
    if (rc)
        return rc;
    for (int k = 0; k < C_N; k++)
        idx[k] = stats_ctr_index(want[k]);

    if (json) {
        rc = stats_print_json(stdout, &j, true) ? fail(1, "cannot write: %s", strerror(errno)) : 0;
        emu_job_detach(&j);
        return rc;
    }
    unsigned nc = stats_nctr();
    size_t nv = ((size_t)j.geo.nnodes + 1) * nc;
    uint64_t *cur = calloc(nv, sizeof *cur), *prev = calloc(nv, sizeof *prev);
    if (!cur || !prev) {
        emu_job_detach(&j);
        return fail(1, "out of memory");
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    bool tty = isatty(STDOUT_FILENO) && !once;
    int64_t t_prev = j.geo.created_ns;
    bool have_prev = false;
    for (;;) {
        int64_t now = emu_now_ns();
        snapshot(&j, cur);
        table(&j, cur, prev, have_prev, (double)(now - t_prev) / 1e9, tty);
        if (once)
            break;
        uint64_t *t = prev;
        prev = cur;
        cur = t;
        have_prev = true;
        t_prev = now;
        struct timespec ts = {(time_t)interval, (long)((interval - floor(interval)) * 1e9)};
        while (!stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        if (stop)
            break;
        if (job_gone(&j)) {
            /* the segment stays mapped: its counters are the final ones */
            now = emu_now_ns();
            snapshot(&j, cur);
            table(&j, cur, prev, have_prev, (double)(now - t_prev) / 1e9, tty);
            printf("job %s ended\n", j.geo.jobid);
            break;
        }
    }
    free(cur);
    free(prev);
    emu_job_detach(&j);
    return 0;
}
