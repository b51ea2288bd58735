/* A short EEVDF slice for NIC work, and polling that notices a CPU hog
 * (slice.h says why). */
#include "emunic/slice.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emunic/waiter.h"

/* The kernel's struct sched_attr (first version, 48 bytes): glibc before
 * 2.41 has no wrapper, so it is declared here from the ABI. */
struct emu_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

int emu_sched_short_slice(void) { return emu_sched_short_slice_or(0); }

/* A time in microseconds from the environment: 0 when name is unset or
 * empty (*us untouched), 1 when it parsed, -EINVAL (said on stderr with
 * what happens instead) when it is not a number in 0..1000000. */
static int env_us(const char *name, const char *instead, long *us)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(e, &end, 10);
    if (errno || *end || v < 0 || v > 1000000) {
        fprintf(stderr, "emunic: %s=%s is not a time in microseconds (0..1000000): %s\n",
                name, e, instead);
        return -EINVAL;
    }
    *us = v;
    return 1;
}

int emu_sched_short_slice_or(long us)
{
#if defined(SYS_sched_setattr) && defined(SYS_sched_getattr)
    if (env_us("EMUNIC_SLICE_US", "the scheduler's default slice is kept", &us) < 0)
        return -EINVAL;
    if (us == 0)
        return 1;
    struct emu_sched_attr a;
    memset(&a, 0, sizeof a);
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0) != 0)
        return -errno;
    if (a.sched_policy != SCHED_OTHER)
        return 1; /* the user chose a policy: keep it */
    a.size = sizeof a;
    a.sched_flags = 0;
    a.sched_runtime = (uint64_t)us * 1000;
    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
        return -errno;
    return 0;
#else
    (void)us;
    return 1;
#endif
}

#define HOG_HOLD_NS 100000000 /* a hog seen: block instead of yielding this long */

#define HOG_EXPECTED_NS 250000 /* emu_poll_expect_hogs: measured in docs/PERFORMANCE.md */

static _Thread_local int64_t hog_until;
static _Atomic uint64_t hogs;
static _Atomic int64_t hog_default; /* 0, or HOG_EXPECTED_NS once hogs are expected */

void emu_poll_expect_hogs(void)
{
    atomic_store_explicit(&hog_default, HOG_EXPECTED_NS, memory_order_relaxed);
}

long emu_loadavg_runnable(const char *text)
{
    double a, b, c;
    long run, total;
    if (!text || sscanf(text, "%lf %lf %lf %ld/%ld", &a, &b, &c, &run, &total) != 5 || run < 0 ||
        total < run)
        return -1;
    return run;
}

bool emu_foreign_load(long runnable, unsigned job_procs)
{
    /* each of our processes may run a second thread (a progress or
     * commthread), and the reader itself is counted */
    return runnable > 2 * (long)job_procs + 1;
}

bool emu_poll_watch_foreign(unsigned job_procs)
{
    char buf[128];
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (!emu_foreign_load(emu_loadavg_runnable(buf), job_procs))
        return false;
    /* they are runnable now: the next yield would wait for them */
    hog_until = emu_now_ns() + HOG_HOLD_NS;
    return true;
}

/* EMUNIC_HOG_US, read once (-1: not yet; -2: unset, the process's
 * default applies); 0 turns detection off */
static _Atomic int64_t hog_env = -1;

static int64_t hog_ns(void)
{
    int64_t x = atomic_load_explicit(&hog_env, memory_order_relaxed);
    if (x == -2)
        return atomic_load_explicit(&hog_default, memory_order_relaxed);
    if (x >= 0)
        return x;
    long us = 0;
    int rc = env_us("EMUNIC_HOG_US", "CPU hogs are not looked for", &us);
    if (rc == 0) {
        atomic_store_explicit(&hog_env, -2, memory_order_relaxed);
        return atomic_load_explicit(&hog_default, memory_order_relaxed);
    }
    x = rc > 0 ? (int64_t)us * 1000 : 0;
    atomic_store_explicit(&hog_env, x, memory_order_relaxed);
    return x;
}

bool emu_poll_yield(void)
{
    if (hog_ns() == 0) {
        /* no detection, but another job's load seen lately
         * (emu_poll_watch_foreign), unless EMUNIC_HOG_US=0 */
        if (hog_until && atomic_load_explicit(&hog_env, memory_order_relaxed) != 0 && emu_now_ns() < hog_until)
            return false;
        sched_yield();
        return true;
    }
    int64_t t0 = emu_now_ns();
    if (t0 < hog_until)
        return false;
    sched_yield();
    int64_t t1 = emu_now_ns();
    if (t1 - t0 < hog_ns())
        return true;
    hog_until = t1 + HOG_HOLD_NS;
    atomic_fetch_add_explicit(&hogs, 1, memory_order_relaxed);
    return false;
}

void emu_poll_pause(void)
{
    if (!emu_poll_yield()) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

uint64_t emu_poll_hogs(void) { return atomic_load_explicit(&hogs, memory_order_relaxed); }
