/* libemunic_dilate.so: --dilate K for dynamically linked rank programs.
 * emunic-run preloads it into ranks (never daemons) with
 *   EMUNIC_DILATE=K           the dilation, > 1
 *   EMUNIC_DILATE_T0=NS       the job's start, CLOCK_MONOTONIC ns
 * and every clock the process reads through clock_gettime (MONOTONIC,
 * MONOTONIC_RAW, REALTIME, BOOTTIME and their COARSE/ALARM variants),
 * gettimeofday and time runs K times slower from the job's start:
 *   t' = t0 + (t - t0) / K,  t0 = the job's start on that clock.
 * Sleeps are not stretched: a 100 ms nanosleep reads as 100/K ms, which is
 * the point (the host's real time stands for K times less machine time).
 * CPU-time clocks are left alone. Without the variables: no change.
 *
 * Calls made from libemunic itself (the core's poll budgets, sleeps and
 * emunic_wait timeouts) read the host's clock: they pace the host's work,
 * and stretching them K times would make every rank spin K times longer
 * before sleeping, starving the daemons. The personalities' time functions
 * (PAMI_Wtime, DCMF_Timebase, ...) and the program's own calls are
 * dilated. */
#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*cg_fn)(clockid_t, struct timespec *);

static cg_fn real_cg;
static double k = 1;
static int64_t t0_mono = -1; /* job start, CLOCK_MONOTONIC */

#define NCLK 12
static int64_t t0_clk[NCLK];
static int t0_set[NCLK];

static int64_t ns_of(const struct timespec *ts) { return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec; }

/* libemunic's executable segments: calls from there read the host clock. */
#define MAXSEG 4
static uintptr_t core_lo[MAXSEG], core_hi[MAXSEG];
static int ncore;

static int find_core(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    if (!name || strncmp(name, "/libemunic.so", 13) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && ncore < MAXSEG; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
            core_lo[ncore] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            core_hi[ncore] = core_lo[ncore] + info->dlpi_phdr[i].p_memsz;
            ncore++;
        }
    return 1;
}

static int from_core(const void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    for (int i = 0; i < ncore; i++)
        if (a >= core_lo[i] && a < core_hi[i])
            return 1;
    return 0;
}

static void init_real(void)
{
    if (!real_cg)
        real_cg = (cg_fn)dlsym(RTLD_NEXT, "clock_gettime");
}

static int dilated(clockid_t c)
{
    switch (c) {
    case CLOCK_REALTIME:
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_REALTIME_ALARM:
    case CLOCK_BOOTTIME_ALARM:
        return c >= 0 && c < NCLK;
    default:
        return 0;
    }
}

__attribute__((constructor)) static void dilate_init(void)
{
    init_real();
    const char *ks = getenv("EMUNIC_DILATE"), *ts = getenv("EMUNIC_DILATE_T0");
    double kv = ks ? strtod(ks, NULL) : 1;
    if (!real_cg || !(kv > 1) || !ts)
        return;
    struct timespec m;
    if (real_cg(CLOCK_MONOTONIC, &m) != 0)
        return;
    int64_t now_mono = ns_of(&m), since = now_mono - strtoll(ts, NULL, 10);
    if (since < 0)
        since = 0;
    /* the job's start on each clock: now on that clock minus the time
     * since the start */
    for (clockid_t c = 0; c < NCLK; c++) {
        struct timespec t;
        if (dilated(c) && real_cg(c, &t) == 0) {
            t0_clk[c] = ns_of(&t) - since;
            t0_set[c] = 1;
        }
    }
    t0_mono = now_mono - since;
    dl_iterate_phdr(find_core, NULL);
    k = kv;
}

static void stretch(clockid_t c, struct timespec *ts)
{
    int64_t t = ns_of(ts), t0 = t0_clk[c];
    int64_t d = t0 + (int64_t)((double)(t - t0) / k);
    ts->tv_sec = d / 1000000000;
    ts->tv_nsec = d % 1000000000;
}

int clock_gettime(clockid_t c, struct timespec *ts)
{
    init_real();
    if (!real_cg)
        return -1;
    int rc = real_cg(c, ts);
    if (rc == 0 && k > 1 && dilated(c) && t0_set[c] && !from_core(__builtin_return_address(0)))
        stretch(c, ts);
    return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return -1;
    tv->tv_sec = ts.tv_sec; /* glibc declares tv nonnull */
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (time_t)-1;
    if (out)
        *out = ts.tv_sec;
    return ts.tv_sec;
}
