/* Injection FIFO depth: message rate and wake-ups of streamed DCMF puts.
 *
 *   EMUNIC_DCMF_FIFO_DEPTH=16 emunic-run -N 2 -n 1 --nic dcmf -- dcmf_fifo
 *
 * The depth is the library's (EMUNIC_DCMF_FIFO_DEPTH, default 128): how
 * many descriptors may be posted and not yet taken by the NIC before
 * DCMF_Put stalls, advancing, until one is free. bench/run_dcmf.sh runs
 * this once per depth. Rank 0 streams --count puts of each size to rank 1
 * from a pool of --reqs requests (reusing one once its cb_done has run, so
 * with the pool larger than the depth the FIFO is what limits); the last
 * put also asks for cb_ack, and the clock stops when that arrives
 * (sequential puts are applied in order). Reported per size: puts/s, MB/s,
 * the mean time inside DCMF_Put (where FIFO stalls show), rank 0's own
 * wake-ups (emunic_wakeups()), the NIC's backlog (completions parked
 * because rank 0's completion queue, 512 entries, was full) and the job's
 * counters per put. CSV on stdout, progress on stderr. */
#include <getopt.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"
#include "dcmf_bench.h"
#include "emunic/emunic.h"

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long msgs, reqs, trials;
    uint64_t volume;
    DCMF_Consistency consistency;
    int heap;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: EMUNIC_DCMF_FIFO_DEPTH=D emunic-run -N 2 -n 1 --nic dcmf -- dcmf_fifo [options]\n"
            "Streamed DCMF_Put rate and wake-ups at the library's injection FIFO depth\n"
            "(EMUNIC_DCMF_FIFO_DEPTH, default 128). CSV on stdout, progress on stderr.\n"
            "  --sizes LIST        put sizes (default 8,64K)\n"
            "  --msgs N            puts per trial for sizes up to 1 KiB (50000)\n"
            "  --volume BYTES      bytes per trial for larger sizes (256M; at least 1000 puts,\n"
            "                      at most --msgs)\n"
            "  --reqs N            request pool (2048; keep it above the depth)\n"
            "  --trials N          trials per size (3)\n"
            "  --consistency C     sequential, relaxed or match (sequential)\n"
            "  --mem private|heap  buffers from malloc (default) or the emunic heap\n"
            "  --poll spin|yield   spin on DCMF_Messager_advance (default) or yield when idle\n"
            "  -h, --help          this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 'z'},  {"msgs", required_argument, 0, 'n'},
        {"volume", required_argument, 0, 'v'}, {"reqs", required_argument, 0, 'r'},
        {"trials", required_argument, 0, 't'}, {"consistency", required_argument, 0, 'C'},
        {"mem", required_argument, 0, 'M'},    {"poll", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (struct opts){.msgs = 50000, .reqs = 2048, .trials = 3, .volume = 256u << 20,
                       .consistency = DCMF_SEQUENTIAL_CONSISTENCY};
    const char *sizes = "8,64K";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'z': sizes = optarg; break;
        case 'n': o->msgs = bench_parse_long("--msgs", optarg, 1, 100000000); break;
        case 'v':
            if (bench_parse_size(optarg, &o->volume) || o->volume == 0) {
                fprintf(stderr, "--volume: cannot parse '%s'\n", optarg);
                exit(2);
            }
            break;
        case 'r': o->reqs = bench_parse_long("--reqs", optarg, 1, 1 << 20); break;
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 1000); break;
        case 'C': o->consistency = db_parse_consistency(optarg); break;
        case 'M': o->heap = db_parse_mem(optarg); break;
        case 'P': db_parse_poll(optarg); break;
        case 'h': usage(stdout); exit(0);
        default: db_bad_option("dcmf_fifo", c, argv);
        }
    }
    db_finish_args("dcmf_fifo", argc, argv, sizes, 1, 64u << 20, 1, &o->sizes, &o->nsizes);
}

static DCMF_Protocol_t p_put;
static DCMF_Request_t *pool;
static volatile char *busy;
static volatile unsigned done_n, ack_n;

static void on_done(void *cd, DCMF_Error_t *e)
{
    DB_CHECK(!e, "put failed: %d", e ? (int)e->result : 0);
    *(volatile char *)cd = 0;
    done_n++;
}

static long count_for(const struct opts *o, uint64_t size)
{
    if (size <= 1024)
        return o->msgs;
    uint64_t n = o->volume / size;
    if (n > (uint64_t)o->msgs)
        n = (uint64_t)o->msgs;
    return n < 1000 ? 1000 : (long)n;
}

struct trial {
    double sec, post_us, wake0;
    struct be_ctrs ctrs;
};

/* Stream n puts; the origin fills *t. */
static void stream(const struct opts *o, DCMF_Memregion_t *mine, DCMF_Memregion_t *theirs, uint64_t size, long n,
                   struct trial *t)
{
    struct be_ctrs c0, c1;
    unsigned want_done = done_n, want_ack = ack_n + 1;
    be_ctrs_read(&c0);
    uint64_t w0 = emunic_wakeups();
    int64_t post_ns = 0, start = bench_now_ns();
    for (long i = 0; i < n; i++) {
        long slot = i % o->reqs;
        DB_UNTIL(!busy[slot]);
        busy[slot] = 1;
        int last = i == n - 1;
        int64_t a = bench_now_ns();
        DCMF_Result rc = DCMF_Put(&p_put, &pool[slot], (DCMF_Callback_t){on_done, (void *)&busy[slot]},
                                  o->consistency, 1, size, mine, theirs, 0, 0,
                                  last ? db_counter(&ack_n) : DB_NO_CALLBACK);
        post_ns += bench_now_ns() - a;
        DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Put: %d", rc);
    }
    want_done += (unsigned)n;
    DB_UNTIL(ack_n >= want_ack && done_n >= want_done);
    t->sec = (double)(bench_now_ns() - start) / 1e9;
    t->wake0 = (double)(emunic_wakeups() - w0);
    be_ctrs_read(&c1);
    be_ctrs_sub(&c1, &c0, &t->ctrs);
    t->post_us = (double)post_ns / 1e3 / (double)n;
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    db_init("dcmf_fifo", 2);
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DB_CHECK(DCMF_Put_register(&p_put, &pc) == DCMF_SUCCESS, "DCMF_Put_register");
    const char *depth_env = getenv("EMUNIC_DCMF_FIFO_DEPTH");
    long depth = depth_env && *depth_env ? atol(depth_env) : 128;

    uint64_t maxsz = 8;
    for (size_t i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsz)
            maxsz = o.sizes[i];
    char *buf = db_alloc(maxsz, o.heap);
    memset(buf, (int)db_me + 1, maxsz);
    DCMF_Memregion_t mine, theirs;
    db_region(&mine, buf, maxsz);
    db_swap_regions(db_me ? 0 : 1, 1, &mine, &theirs);
    pool = aligned_alloc(16, (size_t)o.reqs * sizeof *pool);
    busy = calloc((size_t)o.reqs, 1);
    DB_CHECK(pool && busy, "out of memory");

    if (db_me == 0) {
        be_ctrs_open();
        bench_header(stdout, argc, argv);
        printf("# layout=%s (nodes x ranks per node) same_node=%d fifo_depth=%ld consistency=%s mem=%s poll=%s "
               "reqs=%ld; rates are medians over trials; post_us = mean time inside DCMF_Put; wakeups0_op = rank "
               "0's emunic_wakeups() per put; *_op = per put, whole job\n",
               db_layout(), db_same_node(0, 1), depth, db_consistency_name(o.consistency), o.heap ? "heap" : "private",
               db_poll_yield ? "yield" : "spin", o.reqs);
        printf("bench,case,size,layout,fifo_depth,count,trials,puts_s,mbps,post_us,wakeups0_op,backlog_op,"
               BE_CTRS_CSV_HEADER "\n");
        fflush(stdout);
        fprintf(stderr, "dcmf_fifo: %s, FIFO depth %ld%s, request pool %ld, %s consistency, poll %s, host %s\n",
                db_layout(), depth, depth_env ? "" : " (default)", o.reqs, db_consistency_name(o.consistency),
                db_poll_yield ? "yield" : "spin", bench_host());
        if (o.reqs <= depth)
            fprintf(stderr, "dcmf_fifo: note: the request pool (%ld) is not above the depth: the pool limits\n",
                    o.reqs);
    }
    for (size_t z = 0; z < o.nsizes; z++) {
        uint64_t size = o.sizes[z];
        long n = count_for(&o, size);
        struct trial t[1000];
        double rate[1000], post[1000], wake[1000];
        struct be_ctrs sum;
        memset(&sum, 0, sizeof sum);
        for (long k = 0; k < o.trials; k++) {
            db_barrier();
            if (db_me != 0)
                continue;
            stream(&o, &mine, &theirs, size, n, &t[k]);
            rate[k] = (double)n / t[k].sec;
            post[k] = t[k].post_us;
            wake[k] = t[k].wake0 / (double)n;
            uint64_t *ps = (uint64_t *)&sum, *pt = (uint64_t *)&t[k].ctrs;
            for (size_t i = 0; i < sizeof sum / sizeof(uint64_t); i++)
                ps[i] += pt[i];
        }
        if (db_me != 0)
            continue;
        double r = bench_median(rate, (size_t)o.trials), pu = bench_median(post, (size_t)o.trials),
               wk = bench_median(wake, (size_t)o.trials);
        double ops = (double)(n * o.trials);
        printf("dcmf_fifo,put,%llu,%s,%ld,%ld,%ld,%.0f,%.1f,%.3f,%.4f,%.4f,", (unsigned long long)size, db_layout(), depth,
               n, o.trials, r, r * (double)size / 1e6, pu, wk, (double)sum.backlog / ops);
        be_ctrs_csv(stdout, &sum, ops);
        putchar('\n');
        fflush(stdout);
        char sz[16];
        fprintf(stderr, "  depth %5ld  %5s puts: %10.0f puts/s %9.1f MB/s  %.3f us in DCMF_Put  rank 0 wake-ups/put %.4f, "
                        "job rank wake-ups/put %.4f, NIC wake-ups/put %.4f, NIC backlog/put %.3f\n",
                depth, bench_fmt_size(size, sz, sizeof sz), r, r * (double)size / 1e6, pu, wk,
                (double)sum.rank_wakeups / ops, (double)sum.nic_wakeups / ops, (double)sum.backlog / ops);
    }
    db_barrier(); /* nobody touches a peer's buffer after this */
    DCMF_Memregion_destroy(&mine);
    db_free(buf, o.heap);
    free(pool);
    free((void *)busy);
    free(o.sizes);
    db_fini();
    return 0;
}
