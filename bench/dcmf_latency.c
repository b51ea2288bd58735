/* DCMF latency, as BG/P's DCMF micro-benchmarks measured it, next to the
 * core's raw round trips measured in the same run.
 *
 *   emunic-run -N 2 -n 1 --nic dcmf -- dcmf_latency [options]   (two nodes)
 *   emunic-run -N 1 -n 2 --nic dcmf -- dcmf_latency [options]   (one node)
 *
 * Two ranks: rank 0 (the origin) times, rank 1 (the peer) serves. Cases,
 * per size:
 *   put            DCMF_Put, timed until cb_ack (the data is at the peer)
 *   get            DCMF_Get, timed until cb_done
 *   send           ping-pong of DCMF_Send on a protocol with both receive
 *                  callbacks: the short one for one-packet messages (up to
 *                  128 bytes here), the long one above
 *   send_longcb    the same on a protocol with only the long callback
 *   control        ping-pong of DCMF_Control (32 bytes), once
 * and the baselines, through the core API on the same kind of memory:
 *   raw_write_rtt  emunic_write + EMU_F_REMOTE_CQ, emunic_wait_cookie (for put)
 *   raw_read       emunic_read + EMU_F_LOCAL_CQ, emunic_wait_cookie (for get)
 *   raw_pingpong   notified writes (EMU_F_TARGET_NOTIFY) both ways (for send
 *                  and control)
 * Each size runs --trials trials, every case once per trial in turn, so a
 * case and its baseline see the same host; ratio = median over trials of
 * (case's trial median / baseline's trial median). CSV on stdout, progress
 * and a summary on stderr. */
#include <getopt.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"
#include "dcmf_bench.h"

enum { C_RAW_WRITE, C_RAW_READ, C_RAW_PP, C_PUT, C_GET, C_SEND, C_SEND_LONGCB, C_CONTROL, C_N };
static const char *const names[C_N] = {"raw_write_rtt", "raw_read", "raw_pingpong", "put",
                                       "get",           "send",     "send_longcb",  "control"};
static const int base_of[C_N] = {-1, -1, -1, C_RAW_WRITE, C_RAW_READ, C_RAW_PP, C_RAW_PP, C_RAW_PP};
#define CONTROL_BYTES ((uint64_t)sizeof(DCMF_Control_t))

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long iters, min_iters, trials, warmup;
    unsigned cases; /* bit per case */
    DCMF_Consistency consistency;
    int heap;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic dcmf -- dcmf_latency [options]\n"
            "DCMF put, get, send and control latency against the core's raw round trips\n"
            "measured in the same run. CSV on stdout, progress on stderr.\n"
            "  --sizes LIST        payload sizes: 1,8,1K or LO:HI[:F] (default 1:1M:4)\n"
            "  --iters N           timed iterations per trial up to 4 KiB (500); larger sizes\n"
            "                      get N*4K/size, at least --min-iters\n"
            "  --min-iters N       (30)\n"
            "  --trials N          trials per size, cases interleaved (3)\n"
            "  --warmup N          untimed iterations before each case (50)\n"
            "  --cases LIST        put,get,send,send_longcb,control (default all); each\n"
            "                      brings its raw baseline along\n"
            "  --consistency C     sequential, relaxed or match (sequential)\n"
            "  --mem private|heap  buffers from malloc (what DCMF programs use; default) or\n"
            "                      from the emunic registered heap\n"
            "  --poll spin|yield   wait by spinning on DCMF_Messager_advance (default, as DCMF\n"
            "                      programs do) or sched_yield after an empty advance\n"
            "  -h, --help          this text\n"
            "Run it as 2 nodes x 1 rank and as 1 node x 2 ranks (bench/run_dcmf.sh does).\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 'z'},  {"iters", required_argument, 0, 'i'},
        {"min-iters", required_argument, 0, 'm'}, {"trials", required_argument, 0, 't'},
        {"warmup", required_argument, 0, 'w'}, {"cases", required_argument, 0, 'c'},
        {"consistency", required_argument, 0, 'C'}, {"mem", required_argument, 0, 'M'},
        {"poll", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    *o = (struct opts){.iters = 500, .min_iters = 30, .trials = 3, .warmup = 50,
                       .consistency = DCMF_SEQUENTIAL_CONSISTENCY};
    const char *sizes = "1:1M:4", *cases = "put,get,send,send_longcb,control";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'z': sizes = optarg; break;
        case 'i': o->iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 'm': o->min_iters = bench_parse_long("--min-iters", optarg, 1, 10000000); break;
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 1000); break;
        case 'w': o->warmup = bench_parse_long("--warmup", optarg, 0, 10000000); break;
        case 'c': cases = optarg; break;
        case 'C': o->consistency = db_parse_consistency(optarg); break;
        case 'M': o->heap = db_parse_mem(optarg); break;
        case 'P': db_parse_poll(optarg); break;
        case 'h': usage(stdout); exit(0);
        default: db_bad_option("dcmf_latency", c, argv);
        }
    }
    db_finish_args("dcmf_latency", argc, argv, sizes, 1, 256u << 20, 1, &o->sizes, &o->nsizes);
    char *copy = strdup(cases);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int k;
        for (k = C_PUT; k < C_N && strcmp(tok, names[k]); k++)
            ;
        if (k == C_N) {
            fprintf(stderr, "--cases: '%s' is not put, get, send, send_longcb or control\n", tok);
            exit(2);
        }
        o->cases |= 1u << k | 1u << base_of[k];
    }
    free(copy);
}

/* ---- state the callbacks update ---- */

static DCMF_Protocol_t p_send, p_send_long, p_ctl, p_put, p_get;
static volatile unsigned recv_n, ctl_n, done_n, ack_n;
/* what we wait for: counted up as operations are issued or expected, never
 * read back from the counters (a message may arrive before we expect it,
 * while the barrier before its case advances) */
static unsigned want_recv, want_ctl, want_done, want_ack;
static char *rcv_buf;
static DCMF_Request_t rcv_req;

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd, (void)mi, (void)count, (void)peer;
    memcpy(rcv_buf, src, bytes); /* a real receiver keeps the payload */
    recv_n++;
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                               size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    (void)cd, (void)mi, (void)count, (void)peer;
    *rcvlen = sndlen;
    *rcvbuf = rcv_buf;
    *cb_done = db_counter(&recv_n);
    return &rcv_req;
}

static void on_ctl(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd, (void)info, (void)peer;
    ctl_n++;
}

/* ---- the run ---- */

struct ctx {
    const struct opts *o;
    size_t origin, peer;
    int active, is_origin;
    DCMF_Memregion_t mine, theirs;
    char *loc, *snd, *raw, *raw2;
    struct db_raw_target raw_peer;
};

static long iters_for(const struct opts *o, uint64_t size)
{
    if (size <= 4096)
        return o->iters;
    long n = (long)((uint64_t)o->iters * 4096 / size);
    return n < o->min_iters ? o->min_iters : n;
}

static long warm_for(const struct opts *o, long n)
{
    long w = n / 4 < o->warmup ? n / 4 : o->warmup;
    return w < 2 ? 2 : w;
}

static double us_since(int64_t t0) { return (double)(bench_now_ns() - t0) / 1e3; }

/* One-sided cases: only the origin works. */
static void one_sided(struct ctx *x, int c, uint64_t size, long n, long warm, double *s)
{
    DCMF_Request_t req;
    for (long i = -warm; i < n; i++) {
        int64_t t0 = bench_now_ns();
        if (c == C_RAW_WRITE) {
            db_raw_write_rtt((uint32_t)x->peer, &x->raw_peer, 0, x->raw, size);
        } else if (c == C_RAW_READ) {
            db_raw_read_rtt((uint32_t)x->peer, &x->raw_peer, 0, x->raw2, size);
        } else if (c == C_PUT) {
            DCMF_Result rc = DCMF_Put(&p_put, &req, db_counter(&done_n), x->o->consistency, x->peer, size,
                                      &x->mine, &x->theirs, 0, 0, db_counter(&ack_n));
            DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Put: %d", rc);
            want_done++;
            want_ack++;
            DB_UNTIL(ack_n >= want_ack && done_n >= want_done);
        } else {
            DCMF_Result rc = DCMF_Get(&p_get, &req, db_counter(&done_n), x->o->consistency, x->peer, size,
                                      &x->theirs, &x->mine, 0, 0);
            DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Get: %d", rc);
            want_done++;
            DB_UNTIL(done_n >= want_done);
        }
        if (i >= 0)
            s[i] = us_since(t0);
    }
}

/* The raw ping-pong: the peer starts (so that its first write cannot reach
 * the origin while the origin is still inside DCMF's barrier, whose
 * progress would take the entry); the origin times the gaps between the
 * peer's arrivals, each of which spans one full round trip. */
static void raw_pingpong(struct ctx *x, uint64_t size, long n, long warm, double *s)
{
    long total = warm + n + 1;
    if (x->is_origin) {
        int64_t prev = 0;
        for (long k = 0; k < total; k++) {
            db_raw_wait_notify((uint32_t)x->peer, (uint64_t)k);
            int64_t now = bench_now_ns();
            if (k > warm)
                s[k - warm - 1] = (double)(now - prev) / 1e3;
            prev = now;
            db_raw_notify((uint32_t)x->peer, &x->raw_peer, 0, x->raw2, size, (uint64_t)k);
        }
    } else {
        for (long k = 0; k < total; k++) {
            db_raw_notify((uint32_t)x->origin, &x->raw_peer, 0, x->raw2, size, (uint64_t)k);
            db_raw_wait_notify((uint32_t)x->origin, (uint64_t)k);
        }
    }
}

static void dcmf_send_one(struct ctx *x, DCMF_Protocol_t *p, size_t to, uint64_t size, DCMF_Request_t *req)
{
    static DCQuad mi = {0x5e4d, 0, 0, 0};
    DCMF_Result rc = DCMF_Send(p, req, db_counter(&done_n), x->o->consistency, to, size, x->snd, &mi, 1);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Send: %d", rc);
    want_done++;
}

static void control_one(struct ctx *x, size_t to)
{
    DCMF_Control_t info;
    memset(&info, 0x5c, sizeof info);
    DCMF_Result rc = DCMF_Control(&p_ctl, x->o->consistency, to, &info);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Control: %d", rc);
}

/* DCMF ping-pongs: the origin sends, the peer answers from its main loop
 * once the message is complete (the long receive's cb_done). */
static void dcmf_pingpong(struct ctx *x, int c, uint64_t size, long n, long warm, double *s)
{
    DCMF_Protocol_t *p = c == C_SEND ? &p_send : &p_send_long;
    DCMF_Request_t req;
    volatile unsigned *got = c == C_CONTROL ? &ctl_n : &recv_n;
    unsigned *want = c == C_CONTROL ? &want_ctl : &want_recv;
    for (long i = -warm; i < n; i++) {
        if (x->is_origin) {
            int64_t t0 = bench_now_ns();
            if (c == C_CONTROL)
                control_one(x, x->peer);
            else
                dcmf_send_one(x, p, x->peer, size, &req);
            ++*want;
            DB_UNTIL(*got >= *want && done_n >= want_done);
            if (i >= 0)
                s[i] = us_since(t0);
        } else {
            ++*want;
            DB_UNTIL(*got >= *want);
            if (c == C_CONTROL) {
                control_one(x, x->origin);
            } else {
                dcmf_send_one(x, p, x->origin, size, &req);
                DB_UNTIL(done_n >= want_done); /* the request is reused next time */
            }
        }
    }
}

/* Per-size results of one case over all trials. */
struct acc {
    double *all;   /* trials * n samples */
    double *trial; /* per-trial medians */
    struct be_ctrs ctrs;
    long n;
};

static void run_case(struct ctx *x, int c, uint64_t size, long n, long t, struct acc *a)
{
    long warm = warm_for(x->o, n);
    double *s = a->all + t * n;
    struct be_ctrs c0, c1, d;
    db_barrier();
    if (!x->active)
        return;
    if (x->is_origin)
        be_ctrs_read(&c0);
    if (c == C_RAW_PP)
        raw_pingpong(x, size, n, warm, s);
    else if (c == C_SEND || c == C_SEND_LONGCB || c == C_CONTROL)
        dcmf_pingpong(x, c, size, n, warm, s);
    else if (x->is_origin)
        one_sided(x, c, size, n, warm, s);
    if (!x->is_origin)
        return;
    be_ctrs_read(&c1);
    be_ctrs_sub(&c1, &c0, &d);
    uint64_t *pa = (uint64_t *)&a->ctrs, *pd = (uint64_t *)&d;
    for (size_t i = 0; i < sizeof d / sizeof(uint64_t); i++)
        pa[i] += pd[i];
    double *tmp = malloc((size_t)n * sizeof *tmp);
    memcpy(tmp, s, (size_t)n * sizeof *tmp);
    a->trial[t] = bench_median(tmp, (size_t)n);
    free(tmp);
}

/* The control block's raw ping-pong (32 bytes) is named apart from the
 * sized one, so that a 32 among --sizes does not give two rows one key. */
static const char *name_of(int c, int ctl)
{
    return ctl && c == C_RAW_PP ? "raw_pingpong_ctl" : names[c];
}

static void report(struct ctx *x, int c, uint64_t size, struct acc *acc, int ctl)
{
    const struct opts *o = x->o;
    struct acc *a = &acc[c];
    struct bench_stats st;
    bench_stats_of(a->all, (size_t)(a->n * o->trials), &st);
    int b = base_of[c];
    double ratio = 0, base_med = 0;
    char list[160] = "";
    if (b >= 0 && (o->cases >> b & 1)) {
        double r[1000];
        size_t len = 0;
        for (long t = 0; t < o->trials; t++) {
            r[t] = acc[b].trial[t] > 0 ? a->trial[t] / acc[b].trial[t] : 0;
            if (t < 16) /* the first few are enough to see the spread */
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%.2f", t ? " " : "", r[t]);
        }
        double *bs = malloc((size_t)(acc[b].n * o->trials) * sizeof *bs);
        memcpy(bs, acc[b].all, (size_t)(acc[b].n * o->trials) * sizeof *bs);
        base_med = bench_median(bs, (size_t)(acc[b].n * o->trials));
        free(bs);
        ratio = bench_median(r, (size_t)o->trials);
    }
    printf("dcmf_latency,%s,%llu,%s,%s,%ld,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%.3f,%.3f,%s,", name_of(c, ctl),
           (unsigned long long)size, db_layout(), db_consistency_name(o->consistency), a->n * o->trials,
           st.median, st.p10, st.p90, st.min, st.mean, b >= 0 ? name_of(b, ctl) : "", base_med, ratio, list);
    be_ctrs_csv(stdout, &a->ctrs, (double)(a->n * o->trials));
    putchar('\n');
    fflush(stdout);
    char sz[16];
    if (b >= 0)
        fprintf(stderr, "  %-16s %6s %9.2f us  (%s %.2f us, ratio %.2f [%s])  wake-ups/op %.3f\n", names[c],
                bench_fmt_size(size, sz, sizeof sz), st.median, name_of(b, ctl), base_med, ratio, list,
                (double)a->ctrs.rank_wakeups / (double)(a->n * o->trials));
    else
        fprintf(stderr, "  %-16s %6s %9.2f us  wake-ups/op %.3f\n", name_of(c, ctl), bench_fmt_size(size, sz, sizeof sz),
                st.median, (double)a->ctrs.rank_wakeups / (double)(a->n * o->trials));
}

/* Every case of `mask` at one size, trials interleaved. */
static void run_size(struct ctx *x, uint64_t size, unsigned mask, int ctl)
{
    const struct opts *o = x->o;
    long n = iters_for(o, size);
    struct acc acc[C_N];
    memset(acc, 0, sizeof acc);
    for (int c = 0; c < C_N; c++) {
        acc[c].n = n;
        acc[c].all = calloc((size_t)(n * o->trials), sizeof(double));
        acc[c].trial = calloc((size_t)o->trials, sizeof(double));
        DB_CHECK(acc[c].all && acc[c].trial, "out of memory");
    }
    for (long t = 0; t < o->trials; t++)
        for (int c = 0; c < C_N; c++)
            if (mask >> c & 1)
                run_case(x, c, size, n, t, &acc[c]);
    if (x->is_origin) {
        char sz[16];
        fprintf(stderr, "size %s (%ld iterations x %ld trials):\n", bench_fmt_size(size, sz, sizeof sz), n,
                o->trials);
        for (int c = 0; c < C_N; c++)
            if (mask >> c & 1)
                report(x, c, size, acc, ctl);
    }
    for (int c = 0; c < C_N; c++) {
        free(acc[c].all);
        free(acc[c].trial);
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    db_init("dcmf_latency", 2);

    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Send_Configuration_t scl = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, NULL, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ctl, NULL};
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DB_CHECK(DCMF_Send_register(&p_send, &sc) == DCMF_SUCCESS && DCMF_Send_register(&p_send_long, &scl) == DCMF_SUCCESS &&
                 DCMF_Control_register(&p_ctl, &cc) == DCMF_SUCCESS && DCMF_Put_register(&p_put, &pc) == DCMF_SUCCESS &&
                 DCMF_Get_register(&p_get, &gc) == DCMF_SUCCESS,
             "protocol registration failed");

    struct ctx x = {.o = &o, .origin = 0, .peer = db_n - 1};
    x.is_origin = db_me == x.origin;
    x.active = x.is_origin || db_me == x.peer;
    uint64_t maxsz = CONTROL_BYTES;
    for (size_t i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsz)
            maxsz = o.sizes[i];
    if (x.active) {
        x.loc = db_alloc(maxsz, o.heap);
        x.snd = db_alloc(maxsz, o.heap);
        x.raw = db_alloc(maxsz, o.heap);
        x.raw2 = db_alloc(maxsz, o.heap);
        rcv_buf = db_alloc(maxsz, o.heap);
        memset(x.snd, (int)db_me + 1, maxsz);
        memset(x.raw2, (int)db_me + 1, maxsz);
        db_region(&x.mine, x.loc, maxsz);
        size_t other = x.is_origin ? x.peer : x.origin;
        db_swap_regions(other, 1, &x.mine, &x.theirs);
        db_raw_offer(other, 2, x.raw, maxsz);
        db_raw_learn(other, 2, &x.raw_peer);
    }
    if (x.is_origin) {
        be_ctrs_open();
        bench_header(stdout, argc, argv);
        printf("# layout=%s (nodes x ranks per node) origin=0 peer=%zu same_node=%d consistency=%s mem=%s "
               "poll=%s; latencies in microseconds (round trips; put until cb_ack); ratio = median over trials "
               "of case/baseline trial medians; *_op = per operation, whole job\n",
               db_layout(), x.peer, db_same_node(0, x.peer), db_consistency_name(o.consistency),
               o.heap ? "heap" : "private", db_poll_yield ? "yield" : "spin");
        printf("bench,case,size,layout,consistency,iters,median_us,p10_us,p90_us,min_us,mean_us,baseline,"
               "baseline_median_us,ratio,ratio_trials," BE_CTRS_CSV_HEADER "\n");
        fflush(stdout);
        fprintf(stderr, "dcmf_latency: %s (ranks 0 <-> %zu, %s), %s consistency, %s memory, poll %s, host %s, "
                        "%ld cpus\n",
                db_layout(), x.peer, db_same_node(0, x.peer) ? "one node" : "two nodes",
                db_consistency_name(o.consistency), o.heap ? "heap" : "private", db_poll_yield ? "yield" : "spin",
                bench_host(), bench_nproc());
    }
    unsigned sized = o.cases & ~(1u << C_CONTROL);
    for (size_t z = 0; z < o.nsizes; z++)
        run_size(&x, o.sizes[z], sized, 0);
    if (o.cases >> C_CONTROL & 1)
        run_size(&x, CONTROL_BYTES, 1u << C_CONTROL | 1u << C_RAW_PP, 1);
    db_barrier(); /* nobody touches a peer's buffers after this */
    if (x.active) {
        DCMF_Memregion_destroy(&x.mine);
        db_raw_withdraw();
        db_free(x.loc, o.heap);
        db_free(x.snd, o.heap);
        db_free(x.raw, o.heap);
        db_free(x.raw2, o.heap);
        db_free(rcv_buf, o.heap);
    }
    free(o.sizes);
    db_fini();
    return 0;
}
