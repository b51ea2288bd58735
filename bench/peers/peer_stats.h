/* Clock, median and option parsing shared by the peer programs of
 * bench/run_peers.sh. Header-only so that each peer builds from one C file
 * with a plain `cc` (no CMake, no emunic library: the peers must not depend
 * on what they are compared with). */
#ifndef EMUNIC_PEER_STATS_H
#define EMUNIC_PEER_STATS_H

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double peer_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int peer_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median as emunic's bench_median computes it (mean of the two middle
 * samples), so the two sides summarise their samples alike. Sorts v. */
static inline double peer_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, peer_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* A positive integer option in [lo, hi]; exits on garbage so a typo in the
 * runner shows up as a failed run, not as a silently different test. */
static inline long peer_parse_long(const char *prog, const char *opt, const char *v, long lo, long hi)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "%s: %s wants an integer in %ld..%ld, not '%s'\n", prog, opt, lo, hi, v);
        exit(2);
    }
    return x;
}

/* A byte count "8", "4K", "1M" (powers of 1024) in [1, hi]; exits on
 * garbage, as peer_parse_long does. */
static inline long peer_parse_size(const char *prog, const char *opt, const char *v, long hi)
{
    char *end;
    long x = strtol(v, &end, 10);
    long unit = *end == 'K' || *end == 'k' ? 1L << 10 : *end == 'M' || *end == 'm' ? 1L << 20 : 1;
    if (unit > 1)
        end++;
    if (*v == '\0' || *end != '\0' || x < 1 || x > hi / unit) {
        fprintf(stderr, "%s: %s wants sizes in 1..%ld (suffix K or M allowed), not '%s'\n", prog, opt, hi, v);
        exit(2);
    }
    return x * unit;
}

#define PEER_MAX_SIZES 32

/* The options every peer takes, as bench/run_peers.sh passes them. */
struct peer_opts {
    long iters, warmup, trials, bw_window, bw_windows, rate_window, rate_windows;
    int create;   /* --create, where with_create */
    int n_sizes;  /* --lat-sizes: how many */
    long sizes[PEER_MAX_SIZES];
};

/* --lat-sizes 8,64,4K,1M into o->sizes; each at most max_size (the
 * buffer both sides registered). */
static inline void peer_parse_sizes(const char *prog, const char *list, long max_size, struct peer_opts *o)
{
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf) {
        fprintf(stderr, "%s: --lat-sizes list too long\n", prog);
        exit(2);
    }
    o->n_sizes = 0;
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        if (o->n_sizes == PEER_MAX_SIZES) {
            fprintf(stderr, "%s: --lat-sizes takes at most %d sizes\n", prog, PEER_MAX_SIZES);
            exit(2);
        }
        o->sizes[o->n_sizes++] = peer_parse_size(prog, "--lat-sizes", tok, max_size);
    }
}

/* Defaults, then argv. Returns -1 to go on, else the exit status after
 * printing usage (--help: 0 on stdout; a bad option: 2 on stderr). */
static inline int peer_parse_opts(int argc, char **argv, const char *prog, long max_window, long max_size,
                                  int with_create, void (*usage)(FILE *), struct peer_opts *o)
{
    *o = (struct peer_opts){20000, 1000, 5, 16, 32, 64, 2000, 0, 0, {0}};
    static const struct option opts[] = {{"create", no_argument, 0, 'c'},
                                         {"iters", required_argument, 0, 'i'},
                                         {"warmup", required_argument, 0, 'w'},
                                         {"trials", required_argument, 0, 't'},
                                         {"bw-window", required_argument, 0, 'W'},
                                         {"bw-windows", required_argument, 0, 'B'},
                                         {"rate-window", required_argument, 0, 'R'},
                                         {"rate-windows", required_argument, 0, 'r'},
                                         {"lat-sizes", required_argument, 0, 'L'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts + !with_create, NULL)) != -1) {
        switch (c) {
        case 'c': o->create = 1; break;
        case 'i': o->iters = peer_parse_long(prog, "--iters", optarg, 1, 100000000); break;
        case 'w': o->warmup = peer_parse_long(prog, "--warmup", optarg, 0, 100000000); break;
        case 't': o->trials = peer_parse_long(prog, "--trials", optarg, 1, 1000); break;
        case 'W': o->bw_window = peer_parse_long(prog, "--bw-window", optarg, 1, max_window); break;
        case 'B': o->bw_windows = peer_parse_long(prog, "--bw-windows", optarg, 1, 1000000); break;
        case 'R': o->rate_window = peer_parse_long(prog, "--rate-window", optarg, 1, max_window); break;
        case 'r': o->rate_windows = peer_parse_long(prog, "--rate-windows", optarg, 1, 100000000); break;
        case 'L': peer_parse_sizes(prog, optarg, max_size, o); break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }
    return -1;
}

#endif
