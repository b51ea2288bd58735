/* Sequential vs relaxed consistency: how soon a small flag put that
 * follows a large data put becomes visible at the target, and how often
 * the flag overtakes the data.
 *
 *   emunic-run -N 2 -n 1 --nic dcmf -- dcmf_consistency [options]
 *
 * Rank 0 (the origin) stamps the data and the flag with a new value v,
 * notes the time, and posts DCMF_Put(data) then DCMF_Put(flag), both with
 * the same consistency. Rank 1 (the target) polls its memory, without
 * DCMF_Messager_advance (whose idle sleep would delay what it sees), until
 * the flag reads v (flag time), checks whether the data is complete then
 * (first word of every 16 KiB packet and the last word read v; if not, the
 * flag overtook the data), polls until it is (data time), and reports both
 * times with a DCMF_Control. Both ranks take CLOCK_MONOTONIC of the same
 * host. With sequential consistency the flag must never overtake; with
 * relaxed, puts longer than a packet travel in packets over emunic's
 * "dynamic" lane and the flag may pass them, which is the point of it.
 * Per size the two modes alternate iteration by iteration, so both see the
 * same host. CSV on stdout, progress on stderr. */
#include <getopt.h>
#include <sched.h>
#include <string.h>

#include "bench_util.h"
#include "dcmf_bench.h"

#define PACKET (16u * 1024) /* the dynamic lane's packet (emunic/dcmf/proto.h) */
#define FLAG_AREA 64        /* the flag's own cache line before the data */

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long iters, min_iters, warmup;
    int heap;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic dcmf -- dcmf_consistency [options]\n"
            "Time until a flag put that follows a large data put is visible at the target,\n"
            "DCMF_SEQUENTIAL_CONSISTENCY vs DCMF_RELAXED_CONSISTENCY, and how often the flag\n"
            "overtook the data. CSV on stdout, progress on stderr.\n"
            "  --sizes LIST        data put sizes (default 64K:4M:4)\n"
            "  --iters N           iterations per mode up to 256 KiB (200); larger sizes get\n"
            "                      N*256K/size, at least --min-iters\n"
            "  --min-iters N       (40)\n"
            "  --warmup N          untimed iterations per mode and size (5)\n"
            "  --mem private|heap  buffers from malloc (default) or the emunic heap\n"
            "  --poll spin|yield   how rank 0 waits in DCMF_Messager_advance (default spin)\n"
            "  -h, --help          this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 'z'}, {"iters", required_argument, 0, 'i'},
        {"min-iters", required_argument, 0, 'm'}, {"warmup", required_argument, 0, 'w'},
        {"mem", required_argument, 0, 'M'},   {"poll", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    *o = (struct opts){.iters = 200, .min_iters = 40, .warmup = 5};
    const char *sizes = "64K:4M:4";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'z': sizes = optarg; break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 'm': o->min_iters = bench_parse_long("--min-iters", optarg, 1, 10000000); break;
        case 'w': o->warmup = bench_parse_long("--warmup", optarg, 0, 10000000); break;
        case 'M': o->heap = db_parse_mem(optarg); break;
        case 'P': db_parse_poll(optarg); break;
        case 'h': usage(stdout); exit(0);
        default: db_bad_option("dcmf_consistency", c, argv);
        }
    }
    db_finish_args("dcmf_consistency", argc, argv, sizes, 64, 64u << 20, 8, &o->sizes, &o->nsizes);
}

static DCMF_Protocol_t p_put, p_res;
static volatile unsigned done_n, res_n;
static unsigned want_done, want_res;
static struct result {
    uint64_t v;
    int64_t t_flag, t_data;
    uint32_t overtook, pad_;
} last_res;

static void on_res(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd, (void)peer;
    memcpy(&last_res, info, sizeof last_res);
    res_n++;
}
_Static_assert(sizeof(struct result) <= sizeof(DCMF_Control_t), "a result fits one control message");

static long iters_for(const struct opts *o, uint64_t size)
{
    if (size <= 256 * 1024)
        return o->iters;
    long n = (long)((uint64_t)o->iters * 256 * 1024 / size);
    return n < o->min_iters ? o->min_iters : n;
}

/* The words that tell whether a transfer has fully landed: the first of
 * every packet and the last one. */
static void stamp(char *data, uint64_t size, uint64_t v)
{
    for (uint64_t off = 0; off < size; off += PACKET)
        memcpy(data + off, &v, 8);
    memcpy(data + size - 8, &v, 8);
}

static int landed(const volatile char *data, uint64_t size, uint64_t v)
{
    for (uint64_t off = 0; off < size; off += PACKET)
        if (*(const volatile uint64_t *)(data + off) != v)
            return 0;
    return *(const volatile uint64_t *)(data + size - 8) == v;
}

struct side {
    char *buf; /* [flag line][data] */
    DCMF_Memregion_t mine, theirs;
};

/* Origin: one iteration; returns 1 with the target's times. */
static void origin_iter(struct side *s, DCMF_Consistency c, uint64_t size, uint64_t v, int64_t *t0,
                        struct result *r)
{
    stamp(s->buf + FLAG_AREA, size, v);
    memcpy(s->buf, &v, 8);
    DCMF_Request_t rd, rf;
    *t0 = bench_now_ns();
    DCMF_Result rc = DCMF_Put(&p_put, &rd, db_counter(&done_n), c, 1, size, &s->mine, &s->theirs, FLAG_AREA,
                              FLAG_AREA, DB_NO_CALLBACK);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Put data: %d", rc);
    rc = DCMF_Put(&p_put, &rf, db_counter(&done_n), c, 1, 8, &s->mine, &s->theirs, 0, 0, DB_NO_CALLBACK);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Put flag: %d", rc);
    want_done += 2;
    want_res++;
    DB_UNTIL(done_n >= want_done && res_n >= want_res);
    *r = last_res;
    DB_CHECK(r->v == v, "result for %llu, want %llu", (unsigned long long)r->v, (unsigned long long)v);
}

/* Target: watch memory only; no DCMF progress is needed to see puts. */
static void target_iter(struct side *s, uint64_t size, uint64_t v)
{
    const volatile uint64_t *flag = (const volatile uint64_t *)s->buf;
    const volatile char *data = s->buf + FLAG_AREA;
    for (unsigned spin = 0; *flag != v; spin++)
        if (spin % 16 == 15)
            sched_yield(); /* the NICs need the CPU too */
    struct result r = {.v = v, .t_flag = bench_now_ns()};
    if (!landed(data, size, v)) {
        r.overtook = 1;
        for (unsigned spin = 0; !landed(data, size, v); spin++)
            if (spin % 16 == 15)
                sched_yield();
    }
    r.t_data = r.overtook ? bench_now_ns() : r.t_flag;
    DCMF_Control_t info;
    memset(&info, 0, sizeof info);
    memcpy(&info, &r, sizeof r);
    DCMF_Result rc = DCMF_Control(&p_res, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Control: %d", rc);
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    db_init("dcmf_consistency", 2);
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_res, NULL};
    DB_CHECK(DCMF_Put_register(&p_put, &pc) == DCMF_SUCCESS && DCMF_Control_register(&p_res, &cc) == DCMF_SUCCESS,
             "protocol registration failed");
    uint64_t maxsz = 64;
    for (size_t i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsz)
            maxsz = o.sizes[i];
    struct side s;
    s.buf = db_alloc(FLAG_AREA + maxsz, o.heap);
    db_region(&s.mine, s.buf, FLAG_AREA + maxsz);
    db_swap_regions(db_me ? 0 : 1, 1, &s.mine, &s.theirs);
    int origin = db_me == 0;
    if (origin) {
        bench_header(stdout, argc, argv);
        printf("# layout=%s (nodes x ranks per node) same_node=%d mem=%s poll=%s packet=%u; flag_us / data_us = "
               "time from posting the data put until the flag / the whole data is visible at the target "
               "(same-host CLOCK_MONOTONIC); overtook = iterations in which the flag was visible before the data; "
               "flag_ratio = relaxed flag median / sequential flag median\n",
               db_layout(), db_same_node(0, 1), o.heap ? "heap" : "private", db_poll_yield ? "yield" : "spin",
               PACKET);
        printf("bench,case,size,layout,iters,flag_median_us,flag_p10_us,flag_p90_us,data_median_us,overtook,"
               "overtook_pct,flag_ratio\n");
        fflush(stdout);
        fprintf(stderr, "dcmf_consistency: %s (%s), %s memory, poll %s, host %s\n", db_layout(),
                db_same_node(0, 1) ? "one node" : "two nodes", o.heap ? "heap" : "private",
                db_poll_yield ? "yield" : "spin", bench_host());
    }
    static const DCMF_Consistency modes[2] = {DCMF_SEQUENTIAL_CONSISTENCY, DCMF_RELAXED_CONSISTENCY};
    uint64_t v = 0;
    for (size_t z = 0; z < o.nsizes; z++) {
        uint64_t size = o.sizes[z];
        long n = iters_for(&o, size);
        double *flag_us[2], *data_us[2];
        long over[2] = {0, 0};
        for (int m = 0; m < 2; m++) {
            flag_us[m] = calloc((size_t)n, sizeof(double));
            data_us[m] = calloc((size_t)n, sizeof(double));
            DB_CHECK(flag_us[m] && data_us[m], "out of memory");
        }
        db_barrier();
        for (long i = -o.warmup; i < n; i++) {
            for (int m = 0; m < 2; m++) {
                v++;
                if (!origin) {
                    target_iter(&s, size, v);
                    continue;
                }
                int64_t t0;
                struct result r;
                origin_iter(&s, modes[m], size, v, &t0, &r);
                if (i < 0)
                    continue;
                flag_us[m][i] = (double)(r.t_flag - t0) / 1e3;
                data_us[m][i] = (double)(r.t_data - t0) / 1e3;
                over[m] += r.overtook;
                DB_CHECK(!(r.overtook && modes[m] == DCMF_SEQUENTIAL_CONSISTENCY),
                         "sequential consistency: the flag was visible before the data (%llu bytes, iteration %ld)",
                         (unsigned long long)size, i);
            }
        }
        if (origin) {
            char sz[16];
            double fmed[2];
            struct bench_stats fs[2], ds[2];
            for (int m = 0; m < 2; m++) {
                bench_stats_of(flag_us[m], (size_t)n, &fs[m]);
                bench_stats_of(data_us[m], (size_t)n, &ds[m]);
                fmed[m] = fs[m].median;
            }
            for (int m = 0; m < 2; m++) {
                printf("dcmf_consistency,%s,%llu,%s,%ld,%.3f,%.3f,%.3f,%.3f,%ld,%.1f,", db_consistency_name(modes[m]),
                       (unsigned long long)size, db_layout(), n, fs[m].median, fs[m].p10, fs[m].p90, ds[m].median,
                       over[m], 100.0 * (double)over[m] / (double)n);
                if (m == 1)
                    printf("%.3f", fmed[0] > 0 ? fmed[1] / fmed[0] : 0);
                putchar('\n');
                fprintf(stderr, "  %-10s %5s: flag visible after %9.1f us (p10 %.1f, p90 %.1f), data after %9.1f us, "
                                "flag overtook the data %ld of %ld times\n",
                        db_consistency_name(modes[m]), bench_fmt_size(size, sz, sizeof sz), fs[m].median, fs[m].p10,
                        fs[m].p90, ds[m].median, over[m], n);
            }
            fflush(stdout);
        }
        for (int m = 0; m < 2; m++) {
            free(flag_us[m]);
            free(data_us[m]);
        }
    }
    db_barrier(); /* nobody touches a peer's buffer after this */
    DCMF_Memregion_destroy(&s.mine);
    db_free(s.buf, o.heap);
    free(o.sizes);
    db_fini();
    return 0;
}
