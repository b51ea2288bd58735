#include "bench_util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double rank_pct(const double *v, size_t n, double pct)
{
    /* nearest rank: the smallest sample with at least pct% at or below */
    size_t k = (size_t)(pct / 100.0 * (double)n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

void bench_stats_of(double *v, size_t n, struct bench_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (!n)
        return;
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->min = v[0];
    out->max = v[n - 1];
    out->mean = sum / (double)n;
    out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    out->p10 = rank_pct(v, n, 10);
    out->p90 = rank_pct(v, n, 90);
}

double bench_median(double *v, size_t n)
{
    struct bench_stats s;
    bench_stats_of(v, n, &s);
    return s.median;
}

int bench_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 0:
        break;
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    default:
        return -1;
    }
    if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'I' && end[2] == 'B' && !end[3]) &&
        !(end[1] == 'B' && !end[2]))
        return -1;
    if (shift && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        uint64_t *p = realloc(*v, c * sizeof *p);
        if (!p)
            return -1;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

int bench_parse_sizes(const char *s, uint64_t **out, size_t *n)
{
    char *copy = strdup(s);
    uint64_t *v = NULL;
    size_t cnt = 0, cap = 0;
    int rc = -1;
    if (!copy)
        return -1;
    if (strchr(copy, ':')) {
        char *a = copy, *b = strchr(a, ':');
        *b++ = 0;
        char *c = strchr(b, ':');
        if (c)
            *c++ = 0;
        uint64_t lo, hi, f = 2;
        if (bench_parse_size(a, &lo) || bench_parse_size(b, &hi) || lo == 0 || hi < lo ||
            (c && (bench_parse_size(c, &f) || f < 2)))
            goto out;
        for (uint64_t x = lo; x <= hi; x *= f) {
            if (push(&v, &cnt, &cap, x))
                goto out;
            if (x > UINT64_MAX / f)
                break;
        }
    } else {
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
            uint64_t x;
            if (bench_parse_size(tok, &x) || push(&v, &cnt, &cap, x))
                goto out;
        }
    }
    rc = cnt ? 0 : -1;
out:
    free(copy);
    if (rc) {
        free(v);
        return -1;
    }
    *out = v;
    *n = cnt;
    return 0;
}

long bench_parse_long(const char *opt, const char *v, long min, long max)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < min || x > max) {
        fprintf(stderr, "%s wants an integer in %ld..%ld, got '%s'\n", opt, min, max, v);
        exit(2);
    }
    return x;
}

const char *bench_fmt_size(uint64_t v, char *buf, size_t n)
{
    if (v && v % (1ull << 30) == 0)
        snprintf(buf, n, "%lluG", (unsigned long long)(v >> 30));
    else if (v && v % (1ull << 20) == 0)
        snprintf(buf, n, "%lluM", (unsigned long long)(v >> 20));
    else if (v && v % (1ull << 10) == 0)
        snprintf(buf, n, "%lluK", (unsigned long long)(v >> 10));
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
    return buf;
}

const char *bench_host(void)
{
    static char host[128];
    if (!host[0]) {
        struct utsname u;
        snprintf(host, sizeof host, "%s", uname(&u) == 0 ? u.nodename : "unknown");
    }
    return host;
}

const char *bench_cpu(void)
{
    static char cpu[128];
    if (cpu[0])
        return cpu;
    snprintf(cpu, sizeof cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return cpu;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *p = strchr(line, ':');
        if (!p)
            continue;
        p++;
        while (*p == ' ' || *p == '\t')
            p++;
        p[strcspn(p, "\n")] = 0;
        /* keep the CSV comment on one field: no commas */
        for (char *q = p; *q; q++)
            if (*q == ',')
                *q = ';';
        snprintf(cpu, sizeof cpu, "%s", p);
        break;
    }
    fclose(f);
    return cpu;
}

long bench_nproc(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

void bench_header(FILE *f, int argc, char **argv)
{
    time_t t = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *prof = getenv("EMUNIC_PROFILE");
    const char *prog = strrchr(argv[0], '/');
    prog = prog ? prog + 1 : argv[0];
    fprintf(f, "# %s host=%s cpu=\"%s\" nproc=%ld date=%s profile=%s cmd=\"", prog,
            bench_host(), bench_cpu(), bench_nproc(), date, prof && *prof ? prof : "ideal");
    for (int i = 0; i < argc; i++)
        fprintf(f, "%s%s", i ? " " : "", i ? argv[i] : prog);
    fprintf(f, "\"\n");
}

void *bench_alloc_touched(size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t l = len ? len : 1;
    void *p = aligned_alloc((size_t)pg, (l + (size_t)pg - 1) / (size_t)pg * (size_t)pg);
    if (!p) {
        fprintf(stderr, "out of memory allocating %zu bytes\n", len);
        exit(1);
    }
    memset(p, 0x5a, l);
    return p;
}

void *bench_shared_page(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap shared");
        exit(1);
    }
    return p;
}
