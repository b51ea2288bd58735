/* --stats, --stats-json FILE, --trace FILE and the fault summary: set up
 * once the job segment exists, done once every process of the job is gone
 * (so the counters are final and every trace part is written). */
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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

int stats_job_start(struct launcher *L)
{
    const struct opts *o = L->o;
    if (o->stats_json && !(S.json = fopen(o->stats_json, "w"))) {
        msg("cannot write the --stats-json file %s: %s", o->stats_json, strerror(errno));
        return 2;
    }
    if (!o->trace)
        return 0;
    if (!(S.trace = fopen(o->trace, "w"))) {
        msg("cannot write the --trace file %s: %s", o->trace, strerror(errno));
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
    if (S.json) {
        int bad = stats_print_json(S.json, &L->job, false);
        if (fclose(S.json) != 0 || bad)
            msg("cannot write the --stats-json file %s: %s", o->stats_json, strerror(errno));
        S.json = NULL;
    }
    if (S.trace) {
        long n = trace_merge(S.dir, S.trace, &L->job);
        if (fclose(S.trace) != 0 && n >= 0)
            msg("cannot write the --trace file %s: %s", o->trace, strerror(errno));
        else if (n >= 0 && o->verbose)
            msg("trace: %ld events in %s", n, o->trace);
        S.trace = NULL;
    }
    close_outputs();
}
