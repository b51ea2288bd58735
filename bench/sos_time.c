/* Times each iteration of Sandia OpenSHMEM's own latency loops from the
 * outside, so a run on a loaded host yields a median: SOS prints total
 * time / iterations, a mean that a few multi-millisecond preemptions by
 * other jobs dominate. Preloaded into an unmodified SOS program:
 *   LD_PRELOAD=libsos_time.so ... shmem_latency_put_perf -s 8 -e 8
 * It forwards shmem_putmem, shmem_quiet and shmem_getmem to SOS and times
 * putmem(SIZE) .. the next quiet's return (one put and its ACK) and each
 * blocking getmem(SIZE). At exit, for each with samples, one line on
 * stderr:
 *   # sos_time,CASE,SIZE,count,median_us,p10_us,p90_us,mean_us
 * SIZE is $SOS_TIME_SIZE (default 8). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

struct samples {
    const char *name;
    double *v;
    size_t n, cap;
};

static struct samples put_quiet = {"putmem_quiet", NULL, 0, 0}, get = {"getmem", NULL, 0, 0};
static size_t size = 8;
static int64_t put_start = -1;

static void record(struct samples *s, int64_t t0)
{
    double us = (double)(bench_now_ns() - t0) / 1000.0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 65536;
        double *g = realloc(s->v, cap * sizeof *g);
        if (!g)
            return; /* out of memory: fewer samples, not a crash */
        s->v = g;
        s->cap = cap;
    }
    s->v[s->n++] = us;
}

/* The next definition of name after this library: SOS's own. */
static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "sos_time: %s not found (preload me into a Sandia OpenSHMEM program)\n", name);
        abort();
    }
    return f;
}

__attribute__((constructor)) static void init(void)
{
    const char *e = getenv("SOS_TIME_SIZE");
    if (e && *e)
        size = strtoul(e, NULL, 10);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    static void (*real)(void *, const void *, size_t, int);
    if (!real)
        real = (void (*)(void *, const void *, size_t, int))next("shmem_putmem");
    if (nelems == size)
        put_start = bench_now_ns();
    real(dest, source, nelems, pe);
}

void shmem_quiet(void)
{
    static void (*real)(void);
    if (!real)
        real = (void (*)(void))next("shmem_quiet");
    real();
    if (put_start >= 0) {
        record(&put_quiet, put_start);
        put_start = -1;
    }
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    static void (*real)(void *, const void *, size_t, int);
    if (!real)
        real = (void (*)(void *, const void *, size_t, int))next("shmem_getmem");
    int64_t t0 = bench_now_ns();
    real(dest, source, nelems, pe);
    if (nelems == size)
        record(&get, t0);
}

static void report(struct samples *s)
{
    if (s->n < 10)
        return; /* not this rank's loop (or not this program's) */
    struct bench_stats st;
    bench_stats_of(s->v, s->n, &st);
    fprintf(stderr, "# sos_time,%s,%zu,%zu,%.3f,%.3f,%.3f,%.3f\n", s->name, size, s->n, st.median, st.p10, st.p90,
            st.mean);
}

__attribute__((destructor)) static void fini(void)
{
    report(&put_quiet);
    report(&get);
}
