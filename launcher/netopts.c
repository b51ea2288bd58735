/* The network options: parsed with the rest of the command line, applied
 * to the job segment before any daemon starts (see netopts.h). */
#include "netopts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "msg.h"
#include "opts.h"

#define DILATE_MAX 1e6

int netopts_dilate(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = (s && (isdigit((unsigned char)s[0]) || s[0] == '.')) ? strtod(s, &end) : -1;
    if (v < 1 || errno || !end || *end || !isfinite(v) || v > DILATE_MAX)
        return msg_usage("--dilate must be a number from 1 to 1000000, not '%s'", s);
    *out = v;
    return 0;
}

int netopts_add_fault(struct opts *o, const char *spec)
{
    const char **v = realloc(o->fault_specs, (o->nfault_specs + 1) * sizeof *v);
    if (!v)
        return msg_usage("out of memory");
    v[o->nfault_specs++] = spec;
    o->fault_specs = v;
    return 0;
}

int netopts_finish(struct opts *o)
{
    int rc = machine_load(o->machine_spec ? o->machine_spec : "ideal", o->nnodes, &o->machine);
    if (rc)
        return rc;
    if (o->congestion_spec && (rc = congestion_parse(o->congestion_spec, &o->congestion, &o->congestion_load)))
        return rc;
    if (o->congestion && !o->machine.link_bw)
        return msg_usage("--congestion needs a --machine with finite link bandwidth (not %s)", o->machine.name);
    if (o->nfault_specs || o->faults_file) {
        rc = faults_parse(o->fault_specs, o->nfault_specs, o->faults_file, o->nnodes, o->nnodes * o->rpn,
                          o->rules, &o->nrules);
        if (rc)
            return rc;
    }
    if (!o->seed_set && getrandom(&o->seed, sizeof o->seed, 0) != sizeof o->seed)
        o->seed = 0x9e3779b97f4a7c15ull;
    if (o->nrules && o->mode == MODE_RUN)
        msg("fault seed %llu (--seed %llu replays this run)", (unsigned long long)o->seed,
            (unsigned long long)o->seed);
    return 0;
}

void netopts_apply(const struct opts *o, struct emu_netcfg *net, int64_t start_ns)
{
    net->flags = (o->unreliable ? 0 : EMU_NET_RELIABLE) | (o->trace ? EMU_NET_TRACE : 0) |
                 (o->stats || o->stats_json ? EMU_NET_STATS : 0);
    net->congestion = o->congestion;
    net->congestion_load = o->congestion_load;
    net->seed = o->seed;
    net->dilate = o->dilate;
    net->start_ns = start_ns;
    net->m = o->machine;
    net->nrules = o->nrules;
    memcpy(net->rules, o->rules, o->nrules * sizeof *o->rules);
}
