/* Clock, median and option parsing shared by the peer programs of
 * bench/run_peers.sh. Header-only so that each peer builds from one C file
 * with a plain `cc` (no CMake, no emunic library: the peers must not depend
 * on what they are compared with). */
#ifndef EMUNIC_PEER_STATS_H
#define EMUNIC_PEER_STATS_H

#include <stdio.h>
#include <stdlib.h>
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

#endif
