#include "nbi_common.h"

#include <armci.h>
#include <getopt.h>
#include <stdio.h>
#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "armci_bench.h"
#include "bench_util.h"

void nbi_init(const char *prog, int *argc, char ***argv)
{
    ab_require_portals_job(prog);
    ARMCI_Init_args(argc, argv);
}

const char *nbi_design(int peer)
{
    int me = armci_msg_me(), n = armci_msg_nproc();
    if (peer < 0)
        peer = (me + 1) % n;
    if (armci_domain_id(ARMCI_DOMAIN_SMP, me) != armci_domain_id(ARMCI_DOMAIN_SMP, peer))
        return "inter";
    return ARMCI_Uses_shm() ? "shm" : "lb";
}

void nbi_preamble(int argc, char **argv, const char *design, const char *what)
{
    bench_header(stdout, argc, argv);
    ab_env_comment(stdout);
    const char *nn = getenv("EMUNIC_NNODES");
    printf("# ranks=%d nodes=%s design=%s (shm: same node, ARMCI_SHM=1 direct copy; lb: same "
           "node, ARMCI_SHM=0 NIC loopback; inter: other node); %s\n",
           armci_msg_nproc(), nn ? nn : "?", design, what);
}

static double ns_per_unit = 1.0;
static volatile double sink;

/* One unit: a dependent chain the compiler cannot drop or vectorise. */
static void work(uint64_t units)
{
    double x = sink + 1.0;
    for (uint64_t u = 0; u < units; u++)
        for (int i = 0; i < 16; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

void nbi_calibrate(void)
{
    /* best of several: a preempted sample would make every later loop short */
    double best = 1e30;
    uint64_t units = 1000;
    for (int k = 0; k < 12; k++) {
        int64_t t0 = bench_now_ns();
        work(units);
        double d = (double)(bench_now_ns() - t0);
        if (d < 200000.0 && units < (1u << 24)) {
            units *= 4;
            k--;
            continue;
        }
        if (d / (double)units < best)
            best = d / (double)units;
    }
    ns_per_unit = best;
}

void nbi_compute_ns(double ns)
{
    if (ns > 0)
        work((uint64_t)(ns / ns_per_unit + 0.5));
}

void nbi_sizes(const char *prog, const char *s, uint64_t max, uint64_t **out, size_t *n)
{
    if (bench_parse_sizes(s, out, n) || *n == 0) {
        fprintf(stderr, "%s: --sizes: cannot parse '%s'\n", prog, s);
        exit(2);
    }
    for (size_t i = 0; i < *n; i++)
        if ((*out)[i] == 0 || (*out)[i] > max) {
            fprintf(stderr, "%s: --sizes: %llu is not in 1..%llu\n", prog,
                    (unsigned long long)(*out)[i], (unsigned long long)max);
            exit(2);
        }
}

double nbi_now_us(void)
{
    return (double)bench_now_ns() / 1e3;
}

void nbi_need_ranks(const char *prog, int n)
{
    if (armci_msg_nproc() < n) {
        if (armci_msg_me() == 0)
            fprintf(stderr, "%s: needs at least %d ranks (got %d)\n", prog, n, armci_msg_nproc());
        ARMCI_Finalize();
        exit(2);
    }
}

int nbi_bad_option(const char *prog, char **argv)
{
    fprintf(stderr, "%s: bad option or missing value: '%s' (see --help)\n", prog, argv[optind - 1]);
    return 2;
}

int nbi_stray_args(const char *prog, int argc, char **argv)
{
    if (optind >= argc)
        return 0;
    fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, argv[optind]);
    return 2;
}

void **nbi_malloc_all(const char *prog, size_t bytes)
{
    void **base = malloc(sizeof(void *) * (size_t)armci_msg_nproc());
    if (!base || ARMCI_Malloc(base, (armci_size_t)bytes)) {
        fprintf(stderr, "%s: ARMCI_Malloc of %zu bytes failed\n", prog, bytes);
        exit(1);
    }
    return base;
}
