/* Parse and validate the command line. Every rule here runs before the
 * launcher creates anything, so a mistake costs one line and exit 2. */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emunic/job.h"
#include "msg.h"
#include "netopts.h"

enum {
    OPT_NIC = 256, OPT_BIND, OPT_TIMEOUT, OPT_HEAP, OPT_KEEP, OPT_NOPREFIX, OPT_NOPMI, OPT_PMIPORT,
    OPT_INFO, OPT_CLEANUP, OPT_VERSION, OPT_MACHINE, OPT_DILATE, OPT_CONGESTION, OPT_FAULT,
    OPT_FAULTS, OPT_SEED, OPT_UNRELIABLE, OPT_STATS, OPT_STATS_JSON, OPT_TRACE, OPT_NOASLR,
    OPT_ISOLATE,
};

static const struct option longopts[] = {
    {"nodes", required_argument, NULL, 'N'},
    {"ranks-per-node", required_argument, NULL, 'n'},
    {"nic", required_argument, NULL, OPT_NIC},
    {"bind", required_argument, NULL, OPT_BIND},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"heap", required_argument, NULL, OPT_HEAP},
    {"keep-going", no_argument, NULL, OPT_KEEP},
    {"no-prefix", no_argument, NULL, OPT_NOPREFIX},
    {"no-pmi", no_argument, NULL, OPT_NOPMI},
    {"pmi-port", no_argument, NULL, OPT_PMIPORT},
    {"no-aslr", no_argument, NULL, OPT_NOASLR},
    {"isolate", no_argument, NULL, OPT_ISOLATE},
    {"machine", required_argument, NULL, OPT_MACHINE},
    {"dilate", required_argument, NULL, OPT_DILATE},
    {"congestion", required_argument, NULL, OPT_CONGESTION},
    {"fault", required_argument, NULL, OPT_FAULT},
    {"faults", required_argument, NULL, OPT_FAULTS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"unreliable", no_argument, NULL, OPT_UNRELIABLE},
    {"stats", no_argument, NULL, OPT_STATS},
    {"stats-json", required_argument, NULL, OPT_STATS_JSON},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"verbose", no_argument, NULL, 'v'},
    {"info", no_argument, NULL, OPT_INFO},
    {"cleanup", no_argument, NULL, OPT_CLEANUP},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static const char *const nic_names[] = {"core", "portals", "pami", "dcmf"};

#define HEAP_MIN 4096ull
#define HEAP_MAX (1ull << 40)
#define TIMEOUT_MAX 1e7

const char *bind_kind_name(enum bind_kind k)
{
    return k == BIND_CORE ? "core" : k == BIND_NUMA ? "numa" : "none";
}

/* Plain decimal only: no sign, no spaces, no trailing junk. */
static bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: return false;
    }
    if (*end || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

static int parse_count(const char *opt, const char *s, uint32_t max,
                       uint32_t *out)
{
    uint64_t v;
    if (!parse_u64(s, &v) || v < 1 || v > max)
        return msg_usage("%s must be a whole number from 1 to %u, not '%s'",
                         opt, max, s);
    *out = (uint32_t)v;
    return 0;
}

static int parse_heap(const char *what, const char *s, uint64_t *out)
{
    uint64_t v;
    if (!parse_size(s, &v))
        return msg_usage("%s must be a size in bytes with an optional K, M "
                         "or G suffix, not '%s'", what, s);
    if (v < HEAP_MIN || v > HEAP_MAX)
        return msg_usage("%s must be between 4K and 1024G, not '%s'", what, s);
    long page = sysconf(_SC_PAGESIZE);
    uint64_t pg = page > 0 ? (uint64_t)page : 4096;
    *out = (v + pg - 1) / pg * pg; /* the heap is mapped in whole pages */
    return 0;
}

static int parse_timeout(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = (s && (isdigit((unsigned char)s[0]) || s[0] == '.'))
                   ? strtod(s, &end) : -1;
    if (v < 0 || errno || *end || !isfinite(v) || v <= 0 || v > TIMEOUT_MAX)
        return msg_usage("--timeout must be a positive number of seconds, "
                         "not '%s'", s);
    *out = v;
    return 0;
}

static int parse_nic(const char *s, char *nic, size_t n)
{
    for (size_t i = 0; i < sizeof nic_names / sizeof nic_names[0]; i++)
        if (strcmp(s, nic_names[i]) == 0) {
            snprintf(nic, n, "%s", s);
            return 0;
        }
    return msg_usage("--nic must be core, portals, pami or dcmf, not '%s'", s);
}

static int parse_bind(const char *s, enum bind_kind *k)
{
    if (strcmp(s, "none") == 0)
        *k = BIND_NONE;
    else if (strcmp(s, "core") == 0)
        *k = BIND_CORE;
    else if (strcmp(s, "numa") == 0)
        *k = BIND_NUMA;
    else
        return msg_usage("--bind must be none, core or numa, not '%s'", s);
    return 0;
}

static int set_mode(struct opts *o, enum run_mode m)
{
    if (o->mode != MODE_RUN && o->mode != m)
        return msg_usage("--info and --cleanup cannot be combined");
    o->mode = m;
    return 0;
}

static int bad_option(int argc, char **argv, const char *why)
{
    /* optind already moved past the culprit; for a short option inside a
     * cluster ("-vx") optopt names it, otherwise the word itself does. */
    const char *word = (optind > 0 && optind <= argc) ? argv[optind - 1] : "?";
    if (optopt > 0 && optopt < 256 && word[0] == '-' && word[1] != '-')
        return msg_usage("%s option '-%c' (see emunic-run --help)", why,
                         optopt);
    return msg_usage("%s option '%s' (see emunic-run --help)", why, word);
}

static int total_limit(uint64_t *limit)
{
    const char *env = getenv("EMUNIC_MAX_RANKS");
    *limit = EMU_DEFAULT_MAX_RANKS;
    if (env && (!parse_u64(env, limit) || *limit < 1))
        return msg_usage("EMUNIC_MAX_RANKS must be a positive whole number, "
                         "not '%s'", env);
    return 0;
}

/* What only a job (or --info's plan) needs: sizes, limits, the program. */
static int validate_job(struct opts *o, int argc, char **argv, bool dashdash)
{
    uint64_t limit;
    int rc = total_limit(&limit);
    if (rc)
        return rc;
    uint64_t total = (uint64_t)o->nnodes * o->rpn;
    if (total > limit)
        return msg_usage("%llu ranks (-N %u x -n %u) exceed the limit of %llu "
                         "(EMUNIC_MAX_RANKS)", (unsigned long long)total,
                         o->nnodes, o->rpn, (unsigned long long)limit);
    const char *env_heap = getenv("EMUNIC_HEAP_SIZE");
    if (o->heap == 0 && env_heap && *env_heap) {
        rc = parse_heap("EMUNIC_HEAP_SIZE", env_heap, &o->heap);
        if (rc)
            return rc;
    }
    const char *env_iso = getenv("EMUNIC_ISOLATE");
    if (env_iso && *env_iso) {
        if (strcmp(env_iso, "0") && strcmp(env_iso, "1"))
            return msg_usage("EMUNIC_ISOLATE must be 0 or 1, not '%s'", env_iso);
        if (!o->isolate)
            o->isolate = env_iso[0] == '1';
    }
    if (o->no_pmi && o->pmi_port)
        return msg_usage("--no-pmi and --pmi-port exclude each other");
    rc = netopts_finish(o);
    if (rc)
        return rc;
    if (o->mode != MODE_RUN)
        return 0;
    if (!dashdash) {
        if (optind < argc)
            return msg_usage("missing '--' before the program '%s'",
                             argv[optind]);
        return msg_usage("no program given (usage: emunic-run -N NODES "
                         "-n RANKS_PER_NODE -- PROGRAM [ARGS])");
    }
    if (optind >= argc)
        return msg_usage("no program given after '--'");
    o->argv = &argv[optind];
    return prog_resolve(argv[optind], &o->prog_path);
}

int opts_parse(struct opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->mode = MODE_RUN;
    o->nnodes = 1;
    o->rpn = 1;
    o->dilate = 1.0;
    snprintf(o->nic, sizeof o->nic, "core");

    opterr = 0; /* our own one-line messages, not getopt's */
    int c, rc = 0;
    /* '+': stop at the first non-option, the program's words are its own;
     * ':': report a missing value apart from an unknown option. */
    while ((c = getopt_long(argc, argv, "+:N:n:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'N': rc = parse_count("-N", optarg, EMU_MAX_NODES, &o->nnodes); break;
        case 'n': rc = parse_count("-n", optarg, EMU_MAX_RANKS_PER_NODE, &o->rpn); break;
        case OPT_NIC: rc = parse_nic(optarg, o->nic, sizeof o->nic); break;
        case OPT_BIND: rc = parse_bind(optarg, &o->bind); break;
        case OPT_TIMEOUT: rc = parse_timeout(optarg, &o->timeout_s); break;
        case OPT_HEAP: rc = parse_heap("--heap", optarg, &o->heap); break;
        case OPT_KEEP: o->keep_going = true; break;
        case OPT_NOPREFIX: o->no_prefix = true; break;
        case OPT_NOPMI: o->no_pmi = true; break;
        case OPT_PMIPORT: o->pmi_port = true; break;
        case OPT_NOASLR: o->no_aslr = true; break;
        case OPT_ISOLATE: o->isolate = true; break;
        case OPT_MACHINE: o->machine_spec = optarg; break;
        case OPT_DILATE: rc = netopts_dilate(optarg, &o->dilate); break;
        case OPT_CONGESTION: o->congestion_spec = optarg; break;
        case OPT_FAULT: rc = netopts_add_fault(o, optarg); break;
        case OPT_FAULTS: o->faults_file = optarg; break;
        case OPT_SEED:
            if (!parse_u64(optarg, &o->seed))
                rc = msg_usage("--seed must be a whole number, not '%s'", optarg);
            o->seed_set = true;
            break;
        case OPT_UNRELIABLE: o->unreliable = true; break;
        case OPT_STATS: o->stats = true; break;
        case OPT_STATS_JSON: o->stats_json = optarg; break;
        case OPT_TRACE: o->trace = optarg; break;
        case 'v': o->verbose++; break;
        case OPT_INFO: rc = set_mode(o, MODE_INFO); break;
        case OPT_CLEANUP: rc = set_mode(o, MODE_CLEANUP); break;
        case 'h': o->mode = MODE_HELP; return 0;
        case OPT_VERSION: o->mode = MODE_VERSION; return 0;
        case ':': return bad_option(argc, argv, "missing value for");
        default: return bad_option(argc, argv, "unknown");
        }
        if (rc)
            return rc;
    }
    bool dashdash = optind > 1 && optind <= argc &&
                    strcmp(argv[optind - 1], "--") == 0;
    if (o->mode == MODE_CLEANUP)
        return 0;
    return validate_job(o, argc, argv, dashdash);
}

void opts_free(struct opts *o)
{
    free(o->prog_path);
    o->prog_path = NULL;
    free(o->fault_specs);
    o->fault_specs = NULL;
}

void opts_job_params(const struct opts *o, struct emu_job_params *p)
{
    emu_job_params_default(p);
    p->nnodes = o->nnodes;
    p->ranks_per_node = o->rpn;
    if (o->heap)
        p->heap_size = o->heap;
    snprintf(p->nic, sizeof p->nic, "%s", o->nic);
}
