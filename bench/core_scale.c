/* How job start-up and per-operation cost grow with the job.
 *
 *   core_scale [--layouts 1x2,2x1,8x8,16x16] [--runs R] [--ops-budget N]
 *
 * For each layout NODESxRANKS_PER_NODE it measures, in this order:
 *   spawn_floor   wall time to fork+exec NODES + NODES*RANKS copies of
 *                 `core_scale_rank --noop` at once and reap them: the
 *                 process start-up floor of a job of that many processes
 *   launch_noop   wall time of `emunic-run ... -- core_scale_rank --noop`
 *                 (launcher, job shm, daemons, ranks that never attach)
 *   startup       wall time of `emunic-run ... -- core_scale_rank
 *                 --startup-only` (emunic_init + barrier + finalize)
 *   per-op        one `emunic-run ... -- core_scale_rank --iters K` run,
 *                 whose CSV row (from rank 0) is appended
 * Wall times are the median of --runs runs. emunic-run and core_scale_rank
 * are looked up next to this program unless given. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

struct opts {
    char layouts[256];
    long runs;
    long ops_budget; /* iterations summed over ranks for the per-op run */
    long min_iters, max_iters;
    double timeout;
    char run[PATH_MAX], rank[PATH_MAX];
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: core_scale [options]\n"
            "Job start-up time and per-operation cost for several job layouts; CSV on\n"
            "stdout, summary on stderr.\n"
            "  --layouts LIST     NODESxRANKS_PER_NODE,... (1x2,2x1,8x8,16x16)\n"
            "  --runs R           start-up runs per layout, median reported (3)\n"
            "  --ops-budget N     per-op run: K = N / ranks iterations per rank,\n"
            "                     clamped to --min-iters..--max-iters (40000)\n"
            "  --min-iters K, --max-iters K   (50, 5000)\n"
            "  --timeout SEC      emunic-run --timeout for each job (600)\n"
            "  --emunic-run PATH  launcher (default: next to this program)\n"
            "  --rank-prog PATH   core_scale_rank (default: next to this program)\n"
            "  -h, --help         this text\n");
}

static void self_dir(char *buf, size_t n)
{
    ssize_t l = readlink("/proc/self/exe", buf, n - 1);
    if (l <= 0) {
        snprintf(buf, n, ".");
        return;
    }
    buf[l] = 0;
    char *s = strrchr(buf, '/');
    if (s)
        *s = 0;
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"layouts", required_argument, 0, 'l'},    {"runs", required_argument, 0, 'r'},
        {"ops-budget", required_argument, 0, 'b'}, {"min-iters", required_argument, 0, 'm'},
        {"max-iters", required_argument, 0, 'M'},  {"timeout", required_argument, 0, 't'},
        {"emunic-run", required_argument, 0, 'e'}, {"rank-prog", required_argument, 0, 'p'},
        {"help", no_argument, 0, 'h'},             {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    snprintf(o->layouts, sizeof o->layouts, "1x2,2x1,8x8,16x16");
    o->runs = 3;
    o->ops_budget = 40000;
    o->min_iters = 50;
    o->max_iters = 5000;
    o->timeout = 600;
    char dir[PATH_MAX];
    self_dir(dir, sizeof dir);
    snprintf(o->run, sizeof o->run, "%.*s/emunic-run", (int)(sizeof o->run - 16), dir);
    snprintf(o->rank, sizeof o->rank, "%.*s/core_scale_rank", (int)(sizeof o->rank - 32), dir);
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'l': snprintf(o->layouts, sizeof o->layouts, "%s", optarg); break;
        case 'r': o->runs = bench_parse_long("--runs", optarg, 1, 1000); break;
        case 'b': o->ops_budget = bench_parse_long("--ops-budget", optarg, 1, 1000000000); break;
        case 'm': o->min_iters = bench_parse_long("--min-iters", optarg, 1, 1000000000); break;
        case 'M': o->max_iters = bench_parse_long("--max-iters", optarg, 1, 1000000000); break;
        case 't': o->timeout = (double)bench_parse_long("--timeout", optarg, 1, 86400); break;
        case 'e': snprintf(o->run, sizeof o->run, "%s", optarg); break;
        case 'p': snprintf(o->rank, sizeof o->rank, "%s", optarg); break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind < argc) {
        usage(stderr);
        exit(2);
    }
    if (access(o->run, X_OK) || access(o->rank, X_OK)) {
        fprintf(stderr, "core_scale: need %s and %s (see --emunic-run, --rank-prog)\n", o->run, o->rank);
        exit(2);
    }
}

/* fork+exec argv with stdout to out_fd (-1: inherit). Returns the pid. */
static pid_t spawn(char *const *argv, int out_fd)
{
    pid_t p = fork();
    if (p < 0) {
        perror("fork");
        exit(1);
    }
    if (p == 0) {
        if (out_fd >= 0) {
            dup2(out_fd, 1);
            close(out_fd);
        }
        execv(argv[0], argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return p;
}

static int reap(pid_t p)
{
    int st;
    while (waitpid(p, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void job_argv(const struct opts *o, unsigned nodes, unsigned rpn, const char *mode,
                     const char *arg, char *bufs[4], char **argv)
{
    snprintf(bufs[0], 32, "%u", nodes);
    snprintf(bufs[1], 32, "%u", rpn);
    snprintf(bufs[2], 32, "%.0f", o->timeout);
    int k = 0;
    argv[k++] = (char *)o->run;
    argv[k++] = "-N";
    argv[k++] = bufs[0];
    argv[k++] = "-n";
    argv[k++] = bufs[1];
    argv[k++] = "--timeout";
    argv[k++] = bufs[2];
    argv[k++] = "--no-prefix";
    argv[k++] = "--";
    argv[k++] = (char *)o->rank;
    argv[k++] = (char *)mode;
    if (arg)
        argv[k++] = (char *)arg;
    argv[k] = NULL;
}

/* Wall time of one emunic-run job in seconds (stdout to /dev/null). */
static double time_job(const struct opts *o, unsigned nodes, unsigned rpn, const char *mode)
{
    char b0[32], b1[32], b2[32], b3[32], *bufs[4] = {b0, b1, b2, b3}, *argv[16];
    job_argv(o, nodes, rpn, mode, NULL, bufs, argv);
    int64_t t0 = bench_now_ns();
    pid_t p = spawn(argv, -1);
    int rc = reap(p);
    double s = (double)(bench_now_ns() - t0) / 1e9;
    if (rc) {
        fprintf(stderr, "core_scale: %ux%u %s: emunic-run exited %d\n", nodes, rpn, mode, rc);
        exit(1);
    }
    return s;
}

/* Wall time to start and reap nprocs trivial processes at once. */
static double time_spawn(const struct opts *o, unsigned nprocs)
{
    pid_t *p = calloc(nprocs, sizeof *p);
    char *argv[] = {(char *)o->rank, "--noop", NULL};
    int64_t t0 = bench_now_ns();
    for (unsigned i = 0; i < nprocs; i++)
        p[i] = spawn(argv, -1);
    for (unsigned i = 0; i < nprocs; i++)
        if (reap(p[i]) != 0) {
            fprintf(stderr, "core_scale: --noop process failed\n");
            exit(1);
        }
    double s = (double)(bench_now_ns() - t0) / 1e9;
    free(p);
    return s;
}

/* Run the per-op job and return its CSV row (malloc'd, no newline). */
static char *per_op(const struct opts *o, unsigned nodes, unsigned rpn, long iters)
{
    char b0[32], b1[32], b2[32], b3[32], *bufs[4] = {b0, b1, b2, b3}, *argv[16], it[32];
    snprintf(it, sizeof it, "--iters=%ld", iters);
    job_argv(o, nodes, rpn, it, "--row-only", bufs, argv);
    int fd[2];
    if (pipe(fd)) {
        perror("pipe");
        exit(1);
    }
    pid_t p = spawn(argv, fd[1]);
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[4096], *row = NULL;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "core_scale,", 11) && !row)
            row = strdup(line);
    }
    fclose(f);
    int rc = reap(p);
    if (rc || !row) {
        fprintf(stderr, "core_scale: %ux%u per-op run failed (exit %d)\n", nodes, rpn, rc);
        exit(1);
    }
    return row;
}

static double median_of(const struct opts *o, double (*fn)(const struct opts *, unsigned, unsigned,
                                                           const char *),
                        unsigned nodes, unsigned rpn, const char *mode)
{
    double v[1000];
    for (long r = 0; r < o->runs; r++)
        v[r] = fn(o, nodes, rpn, mode);
    return bench_median(v, (size_t)o->runs);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN);
    bench_header(stdout, argc, argv);
    printf("# spawn_s: fork+exec+reap of nodes+ranks trivial processes (floor); launch_noop_s: "
           "emunic-run with ranks that exit at once; startup_s: emunic-run with ranks that "
           "init+barrier+finalize; medians of %ld runs. Then the per-op run (see core_scale_rank).\n",
           o.runs);
    printf("bench,case,size,nodes,ranks_per_node,iters,mean_op_us,mean_write_us,mean_fadd_us,"
           "max_rank_op_us,agg_ops_s,wall_s,rank_wakeups_op,nic_sleeps_op,nic_wakeups_op,doorbells_op,"
           "nic_idle_polls_op,vcsw_op,ivcsw_op,spawn_s,launch_noop_s,startup_s\n");
    fflush(stdout);
    fprintf(stderr, "core_scale: host %s, %ld cpus\n", bench_host(), bench_nproc());
    fprintf(stderr, "%-7s %6s %9s %9s %9s %6s %10s %10s %10s %11s %9s\n", "layout", "ranks", "spawn_s",
            "noop_s", "startup_s", "iters", "op_us", "write_us", "fadd_us", "agg_ops/s", "wake/op");
    char *save = NULL;
    for (char *tok = strtok_r(o.layouts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned nodes, rpn;
        char x;
        if (sscanf(tok, "%u%c%u", &nodes, &x, &rpn) != 3 || (x != 'x' && x != 'X') || !nodes || !rpn) {
            fprintf(stderr, "core_scale: bad layout '%s' (want NODESxRANKS)\n", tok);
            return 2;
        }
        unsigned nranks = nodes * rpn;
        double sp[1000];
        for (long r = 0; r < o.runs; r++)
            sp[r] = time_spawn(&o, nodes + nranks);
        double spawn_s = bench_median(sp, (size_t)o.runs);
        double noop_s = median_of(&o, time_job, nodes, rpn, "--noop");
        double start_s = median_of(&o, time_job, nodes, rpn, "--startup-only");
        long iters = o.ops_budget / (long)nranks;
        iters = iters < o.min_iters ? o.min_iters : iters > o.max_iters ? o.max_iters : iters;
        char *row = per_op(&o, nodes, rpn, iters);
        printf("%s,%.4f,%.4f,%.4f\n", row, spawn_s, noop_s, start_s);
        fflush(stdout);
        /* fields of the row for the summary */
        double f[19] = {0};
        char *p = row;
        for (int k = 0; k < 19 && p; k++) {
            f[k] = strtod(p, NULL);
            p = strchr(p, ',');
            if (p)
                p++;
        }
        fprintf(stderr, "%-7s %6u %9.3f %9.3f %9.3f %6ld %10.2f %10.2f %10.2f %11.0f %9.3f\n", tok,
                nranks, spawn_s, noop_s, start_s, iters, f[6], f[7], f[8], f[10], f[12] + f[14]);
        free(row);
    }
    return 0;
}
