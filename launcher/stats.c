/* --stats, --stats-json FILE, --trace FILE and the fault summary: set up
 * once the job segment exists, done once every process of the job is gone
 * (so the counters are final and every trace part is written). */
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "msg.h"

static struct {
    FILE *json, *trace;
    char dir[sizeof(((struct emu_netcfg *)0)->trace_dir)];
} S;

static void close_outputs(void)
{
    if (S.json)
        fclose(S.json);
    if (S.trace)
        fclose(S.trace);
    S.json = S.trace = NULL;
    if (S.dir[0])
        trace_dir_remove(S.dir);
    S.dir[0] = 0;
}

/* An output file must be something we can write a document into: a path
 * that cannot be created, or a directory, fails here, before the job. */
static FILE *open_output(const char *what, const char *path)
{
    FILE *f = fopen(path, "w");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        f = NULL;
        errno = EISDIR;
    }
    if (!f)
        msg("cannot write the %s file %s: %s", what, path, strerror(errno));
    return f;
}

int stats_job_start(struct launcher *L)
{
    const struct opts *o = L->o;
    if (o->stats_json && !(S.json = open_output("--stats-json", o->stats_json)))
        return 2;
    if (!o->trace)
        return 0;
    if (!(S.trace = open_output("--trace", o->trace))) {
        close_outputs();
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    int k = snprintf(S.dir, sizeof S.dir, "%s/emunic-trace.%s.XXXXXX", tmp, L->jobid);
    if (k < 0 || (size_t)k >= sizeof S.dir) {
        S.dir[0] = 0;
        msg("TMPDIR is too long for the trace parts' directory (at most %zu bytes)",
            sizeof S.dir - 32);
        close_outputs();
        return 2;
    }
    if (!mkdtemp(S.dir)) {
        msg("cannot make a directory for the trace parts in %s: %s", tmp, strerror(errno));
        S.dir[0] = 0;
        close_outputs();
        return 2;
    }
    memcpy(emu_job_netcfg(&L->job)->trace_dir, S.dir, sizeof S.dir);
    return 0;
}

static void output_failed(struct launcher *L)
{
    if (L->first_failure < 0)
        L->first_failure = 1;
}

void stats_job_end(struct launcher *L)
{
    const struct opts *o = L->o;
    if (!L->job_made) {
        close_outputs();
        return;
    }
    char line[256];
    if (stats_fault_summary(&L->job, line, sizeof line))
        msg("faults: %s (seed %llu)", line, (unsigned long long)emu_job_netcfg(&L->job)->seed);
    if (o->stats) {
        fflush(stdout);
        stats_print_text(stderr, &L->job);
    }
    /* a document we could not write fails the job: a caller that asked for
     * it must not take exit status 0 for having it */
    if (S.json) {
        int bad = stats_print_json(S.json, &L->job, false);
        if (fflush(S.json) != 0 || ferror(S.json))
            bad = 1;
        int e = errno;
        if (fclose(S.json) != 0 || bad) {
            msg("cannot write the --stats-json file %s: %s", o->stats_json, strerror(bad ? e : errno));
            output_failed(L);
        }
        S.json = NULL;
    }
    if (S.trace) {
        long n = trace_merge(S.dir, S.trace, &L->job);
        int e = errno;
        if (fclose(S.trace) != 0 && n >= 0) {
            e = errno;
            n = -1;
        }
        if (n < 0) {
            msg("cannot write the --trace file %s: %s", o->trace, strerror(e));
            output_failed(L);
        }
        else if (o->verbose)
            msg("trace: %ld events in %s", n, o->trace);
        S.trace = NULL;
    }
    close_outputs();
}
