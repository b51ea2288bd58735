/* Shared helpers of the benchmark programs: a clock, statistics over
 * samples, size lists, and the header line every CSV starts with. Nothing
 * here knows about emunic (see bench_emu.h for that). */
#ifndef EMUNIC_BENCH_UTIL_H
#define EMUNIC_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t bench_now_ns(void);

/* Order statistics of a sample set. p10/p90 use the nearest-rank rule on
 * the sorted samples, median averages the two middle ones. */
struct bench_stats {
    size_t n;
    double min, p10, median, p90, max, mean;
};

/* Sort v (in place) and summarise it. n may be 0 (all fields 0). */
void bench_stats_of(double *v, size_t n, struct bench_stats *out);
double bench_median(double *v, size_t n); /* sorts v */

/* "8", "64K", "1M", "2G" (powers of 1024). Returns 0 or -1. */
int bench_parse_size(const char *s, uint64_t *out);
/* A comma list of sizes, or "LO:HI" (every power of two from LO to HI),
 * or "LO:HI:F" (LO, LO*F, ... up to HI). *out is malloc'd. Returns 0/-1. */
int bench_parse_sizes(const char *s, uint64_t **out, size_t *n);
/* Positive integer option value; exits with a message on garbage. */
long bench_parse_long(const char *opt, const char *v, long min, long max);
/* "8", "4K", "1M": exact binary units where they divide, else bytes. */
const char *bench_fmt_size(uint64_t v, char *buf, size_t n);

/* The first line of every CSV:
 * "# <prog> host=<uname -n> cpu=<model> nproc=<n> date=<UTC ISO> profile=<p>
 *   cmd=<argv...>". The profile is $EMUNIC_PROFILE or "ideal". */
void bench_header(FILE *f, int argc, char **argv);
/* The pieces, for summaries. */
const char *bench_host(void);
const char *bench_cpu(void);
long bench_nproc(void);

/* Page-aligned memory, every page written once (no first-touch faults in
 * the timed part). Exits on failure. */
void *bench_alloc_touched(size_t len);

/* Cross-process page for baselines: MAP_SHARED | MAP_ANONYMOUS, zeroed. */
void *bench_shared_page(size_t len);

#endif
