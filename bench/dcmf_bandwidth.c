/* DCMF bandwidth and message rate with a window of outstanding operations,
 * against memcpy (and the core's own windowed writes) in the same run.
 *
 *   emunic-run -N 2 -n 1 --nic dcmf -- dcmf_bandwidth [options]
 *
 * Rank 0 (the origin) issues, rank 1 (the peer) is the target. Slots of
 * the size are spread over --span bytes (default 64 MiB, twice the L3 of
 * the reference host) and windows walk through them, so that large sizes
 * stream from memory for every case alike. Per size, each trial runs
 * every case once, in turn, over the same slots:
 *   memcpy     the origin copies the window's slots between two of its own
 *              buffers (the floor of any copy)
 *   raw_write  emunic_write of each slot with EMU_F_REMOTE_CQ, then the
 *              window's completions (the core under DCMF's put)
 *   put        DCMF_Put of each slot with cb_done and cb_ack; the window
 *              ends when every ack is in (the data is at the peer)
 *   get        DCMF_Get of each slot; the window ends with the last cb_done
 *   send       DCMF_Send of each slot; the peer's long callback receives
 *              into the matching slot, and the peer answers each complete
 *              window with a DCMF_Control
 * Message rate (8 bytes, --msg-window outstanding): msgrate_memcpy,
 * msgrate_raw (a remote completion each), msgrate_put (cb_done each, cb_ack
 * on the window's last: sequential puts are applied in order) and
 * msgrate_send (short callback at the peer; one control back per window).
 * MB/s = 10^6 bytes/s. ratio_memcpy = median over trials of the case's
 * rate / the memcpy rate of the same trial; ratio_raw the same against
 * raw_write. CSV on stdout, progress on stderr. */
#include <getopt.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"
#include "dcmf_bench.h"
#include "emunic/emunic.h"

enum { C_MEMCPY, C_RAW, C_PUT, C_GET, C_SEND, C_N };
static const char *const names[C_N] = {"memcpy", "raw_write", "put", "get", "send"};
static const char *const rate_names[C_N] = {"msgrate_memcpy", "msgrate_raw", "msgrate_put", "", "msgrate_send"};
#define MAX_WINDOW 1024
#define MSG_BYTES 8

struct opts {
    uint64_t *sizes;
    size_t nsizes;
    long window, trials, max_ops, msg_window, msgs;
    uint64_t volume, span;
    unsigned cases;
    int msgrate;
    DCMF_Consistency consistency;
    int heap;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N 2 -n 1 --nic dcmf -- dcmf_bandwidth [options]\n"
            "DCMF put, get and send bandwidth with a window of outstanding operations, and\n"
            "8-byte message rate, against memcpy and raw core writes measured in the same\n"
            "run. CSV on stdout, progress on stderr.\n"
            "  --sizes LIST        sizes: 1K,64K or LO:HI[:F] (default 1K:4M:4)\n"
            "  --window N          operations outstanding (16)\n"
            "  --volume BYTES      bytes per case per trial (64M); at least 2 windows\n"
            "  --max-ops N         at most this many operations per case per trial (8000)\n"
            "  --span BYTES        memory the slots are spread over, per buffer (64M; with\n"
            "                      --mem heap give emunic-run --heap 2.5 times that)\n"
            "  --trials N          trials per size, cases interleaved (3)\n"
            "  --cases LIST        memcpy,raw_write,put,get,send (default all)\n"
            "  --msg-window N      window of the 8-byte message rate (64)\n"
            "  --msgs N            messages per case per trial for the rate (20000)\n"
            "  --no-msgrate        skip the message rate\n"
            "  --consistency C     sequential, relaxed or match (sequential)\n"
            "  --mem private|heap  buffers from malloc (default) or the emunic heap\n"
            "  --poll spin|yield   spin on DCMF_Messager_advance (default) or yield when idle\n"
            "  -h, --help          this text\n");
}

static void parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"sizes", required_argument, 0, 'z'},      {"window", required_argument, 0, 'W'},
        {"volume", required_argument, 0, 'v'},     {"max-ops", required_argument, 0, 'x'},
        {"trials", required_argument, 0, 't'},     {"cases", required_argument, 0, 'c'},
        {"msg-window", required_argument, 0, 'w'}, {"msgs", required_argument, 0, 'n'},
        {"no-msgrate", no_argument, 0, 'R'},       {"consistency", required_argument, 0, 'C'},
        {"mem", required_argument, 0, 'M'},        {"poll", required_argument, 0, 'P'},
        {"span", required_argument, 0, 'S'},       {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    *o = (struct opts){.span = 64u << 20, .window = 16, .trials = 3, .max_ops = 8000, .msg_window = 64, .msgs = 20000,
                       .volume = 64u << 20, .msgrate = 1, .consistency = DCMF_SEQUENTIAL_CONSISTENCY};
    const char *sizes = "1K:4M:4", *cases = "memcpy,raw_write,put,get,send";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'z': sizes = optarg; break;
        case 'W': o->window = bench_parse_long("--window", optarg, 1, MAX_WINDOW); break;
        case 'v':
            if (bench_parse_size(optarg, &o->volume) || o->volume == 0) {
                fprintf(stderr, "--volume: cannot parse '%s'\n", optarg);
                exit(2);
            }
            break;
        case 'S':
            if (bench_parse_size(optarg, &o->span) || o->span == 0 || o->span > (1ull << 32)) {
                fprintf(stderr, "--span: cannot parse '%s' (1..4G)\n", optarg);
                exit(2);
            }
            break;
        case 'x': o->max_ops = bench_parse_long("--max-ops", optarg, 1, 100000000); break;
        case 't': o->trials = bench_parse_long("--trials", optarg, 1, 1000); break;
        case 'c': cases = optarg; break;
        case 'w': o->msg_window = bench_parse_long("--msg-window", optarg, 1, MAX_WINDOW); break;
        case 'n': o->msgs = bench_parse_long("--msgs", optarg, 1, 100000000); break;
        case 'R': o->msgrate = 0; break;
        case 'C': o->consistency = db_parse_consistency(optarg); break;
        case 'M': o->heap = db_parse_mem(optarg); break;
        case 'P': db_parse_poll(optarg); break;
        case 'h': usage(stdout); exit(0);
        default: db_bad_option("dcmf_bandwidth", c, argv);
        }
    }
    db_finish_args("dcmf_bandwidth", argc, argv, sizes, 1, 64u << 20, 1, &o->sizes, &o->nsizes);
    char *copy = strdup(cases);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int k;
        for (k = 0; k < C_N && strcmp(tok, names[k]); k++)
            ;
        if (k == C_N) {
            fprintf(stderr, "--cases: '%s' is not memcpy, raw_write, put, get or send\n", tok);
            exit(2);
        }
        o->cases |= 1u << k;
    }
    free(copy);
}

/* ---- callbacks ---- */

static DCMF_Protocol_t p_put, p_get, p_send, p_ack;
static volatile unsigned done_n, ack_n, recv_n, wack_n;
static unsigned want_done, want_ack, want_recv, want_wack;
static char *recv_base; /* the peer receives slot k of a window at recv_base + k * size */
static uint64_t recv_size;
static DCMF_Request_t recv_req[MAX_WINDOW];
static DCMF_Request_t reqs[MAX_WINDOW];

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd, (void)mi, (void)count, (void)peer;
    memcpy(recv_base, src, bytes);
    recv_n++;
}

/* msginfo: w0 the slot (where the data goes), w1 the place in the window
 * (which receive request is free: one window is in flight at a time) */
static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                               size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb_done)
{
    (void)cd, (void)count, (void)peer;
    *rcvlen = sndlen;
    *rcvbuf = recv_base + (uint64_t)mi[0].w0 * recv_size;
    *cb_done = db_counter(&recv_n);
    return &recv_req[mi[0].w1 % MAX_WINDOW];
}

static void on_wack(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd, (void)info, (void)peer;
    wack_n++;
}

static void window_ack(size_t to)
{
    DCMF_Control_t c;
    memset(&c, 0, sizeof c);
    DCMF_Result rc = DCMF_Control(&p_ack, DCMF_SEQUENTIAL_CONSISTENCY, to, &c);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Control: %d", rc);
}

/* ---- the run ---- */

struct ctx {
    const struct opts *o;
    int origin;
    size_t peer;
    char *a, *b; /* origin: source/sink and memcpy destination; peer: a is the target */
    uint64_t nslots, next; /* slots of the current size; the next window's first */
    DCMF_Memregion_t mine, theirs;
    struct db_raw_target raw;
};

static long windows_for(const struct opts *o, uint64_t size, long w)
{
    uint64_t n = o->volume / (size * (uint64_t)w);
    uint64_t cap = (uint64_t)(o->max_ops / w);
    if (n > cap)
        n = cap;
    return n < 2 ? 2 : (long)n;
}

/* One window of case c: w operations of `size` bytes on the next w slots. */
static void window(struct ctx *x, int c, uint64_t size, long w)
{
    const struct opts *o = x->o;
    static uint64_t cookies[MAX_WINDOW], off[MAX_WINDOW];
    for (long k = 0; k < w; k++)
        off[k] = (x->next + (uint64_t)k) % x->nslots * size;
    x->next = (x->next + (uint64_t)w) % x->nslots;
    switch (c) {
    case C_MEMCPY:
        for (long k = 0; k < w; k++)
            memcpy(x->b + off[k], x->a + off[k], size);
        break;
    case C_RAW:
        for (long k = 0; k < w; k++) {
            cookies[k] = db_raw_cookie();
            int rc = emunic_write((uint32_t)x->peer, x->raw.key, x->raw.addr + off[k], x->a + off[k], size,
                                  EMU_F_REMOTE_CQ, cookies[k], 0);
            DB_CHECK(rc == 0, "emunic_write: %d", rc);
        }
        db_raw_wait_dones(cookies, w);
        break;
    case C_PUT:
        for (long k = 0; k < w; k++) {
            DCMF_Result rc = DCMF_Put(&p_put, &reqs[k], db_counter(&done_n), o->consistency, x->peer, size,
                                      &x->mine, &x->theirs, off[k], off[k], db_counter(&ack_n));
            DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Put: %d", rc);
        }
        want_done += (unsigned)w;
        want_ack += (unsigned)w;
        DB_UNTIL(done_n >= want_done && ack_n >= want_ack);
        break;
    case C_GET:
        for (long k = 0; k < w; k++) {
            DCMF_Result rc = DCMF_Get(&p_get, &reqs[k], db_counter(&done_n), o->consistency, x->peer, size,
                                      &x->theirs, &x->mine, off[k], off[k]);
            DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Get: %d", rc);
        }
        want_done += (unsigned)w;
        DB_UNTIL(done_n >= want_done);
        break;
    case C_SEND:
        for (long k = 0; k < w; k++) {
            DCQuad mi = {(uint32_t)(off[k] / size), (uint32_t)k, 0, 0};
            DCMF_Result rc = DCMF_Send(&p_send, &reqs[k], db_counter(&done_n), o->consistency, x->peer, size,
                                       x->a + off[k], &mi, 1);
            DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Send: %d", rc);
        }
        want_done += (unsigned)w;
        want_wack++;
        DB_UNTIL(done_n >= want_done && wack_n >= want_wack);
        break;
    }
}

/* The peer's part of a send window: receive w messages, then answer. */
static void peer_send_window(struct ctx *x, uint64_t size, long w)
{
    (void)x;
    recv_size = size;
    want_recv += (unsigned)w;
    DB_UNTIL(recv_n >= want_recv);
    window_ack(0);
}

/* One case, one trial: returns seconds (origin; 0 elsewhere). */
static double run_case(struct ctx *x, int c, uint64_t size, long w, long windows, struct be_ctrs *acc)
{
    struct be_ctrs c0, c1, d;
    x->nslots = x->o->span / size;
    if (x->nslots < (uint64_t)w)
        x->nslots = (uint64_t)w;
    x->next = 0; /* every case walks the same slots */
    db_barrier();
    if (!x->origin) {
        if (c == C_SEND)
            for (long i = 0; i < windows; i++)
                peer_send_window(x, size, w);
        return 0;
    }
    window(x, c, size, w); /* warm-up: first touches, page-ins */
    be_ctrs_read(&c0);
    int64_t t0 = bench_now_ns();
    for (long i = 1; i < windows; i++)
        window(x, c, size, w);
    double sec = (double)(bench_now_ns() - t0) / 1e9;
    be_ctrs_read(&c1);
    be_ctrs_sub(&c1, &c0, &d);
    uint64_t *pa = (uint64_t *)acc, *pd = (uint64_t *)&d;
    for (size_t i = 0; i < sizeof d / sizeof(uint64_t); i++)
        pa[i] += pd[i];
    return sec;
}

static void row(struct ctx *x, const char *name, uint64_t size, long w, long windows, double *rate, double *r_mem,
                double *r_raw, int have_raw, const struct be_ctrs *ctrs, double ops_total)
{
    const struct opts *o = x->o;
    double rt = bench_median(rate, (size_t)o->trials);
    double rm = bench_median(r_mem, (size_t)o->trials);
    double rr = have_raw ? bench_median(r_raw, (size_t)o->trials) : 0;
    printf("dcmf_bandwidth,%s,%llu,%s,%s,%ld,%ld,%ld,%.1f,%.0f,%.3f,", name, (unsigned long long)size,
           db_layout(), db_consistency_name(o->consistency), w, windows - 1, o->trials, rt * (double)size / 1e6,
           rt, rm);
    if (have_raw)
        printf("%.3f,", rr);
    else
        printf(",");
    be_ctrs_csv(stdout, ctrs, ops_total);
    putchar('\n');
    fflush(stdout);
    char sz[16];
    fprintf(stderr, "  %-15s %5s %10.1f MB/s %11.0f ops/s  %6.3fx memcpy", name, bench_fmt_size(size, sz, sizeof sz),
            rt * (double)size / 1e6, rt, rm);
    if (have_raw)
        fprintf(stderr, "  %5.2fx raw", rr);
    fprintf(stderr, "  wake-ups/op %.3f\n", (double)ctrs->rank_wakeups / (ops_total > 0 ? ops_total : 1));
}

/* All enabled cases at one size, trials interleaved. rate_mode: the 8-byte
 * message rate (names and window differ). */
static void run_size(struct ctx *x, uint64_t size, int rate_mode)
{
    const struct opts *o = x->o;
    long w = rate_mode ? o->msg_window : o->window;
    long windows = rate_mode ? o->msgs / w + 1 : windows_for(o, size, w) + 1; /* +1: the warm-up window */
    if (windows < 3)
        windows = 3;
    unsigned mask = o->cases;
    if (rate_mode)
        mask &= ~(1u << C_GET);
    double rate[C_N][1000], r_mem[C_N][1000], r_raw[C_N][1000];
    struct be_ctrs ctrs[C_N];
    memset(ctrs, 0, sizeof ctrs);
    for (long t = 0; t < o->trials; t++) {
        double sec[C_N] = {0};
        for (int c = 0; c < C_N; c++)
            if (mask >> c & 1)
                sec[c] = run_case(x, c, size, w, windows, &ctrs[c]);
        if (!x->origin)
            continue;
        for (int c = 0; c < C_N; c++) {
            if (!(mask >> c & 1))
                continue;
            rate[c][t] = sec[c] > 0 ? (double)((windows - 1) * w) / sec[c] : 0;
            r_mem[c][t] = (mask & 1) && sec[c] > 0 ? sec[C_MEMCPY] / sec[c] : 0;
            r_raw[c][t] = (mask >> C_RAW & 1) && sec[c] > 0 ? sec[C_RAW] / sec[c] : 0;
        }
    }
    if (!x->origin)
        return;
    char sz[16];
    fprintf(stderr, "%s %s (window %ld, %ld windows x %ld trials):\n", rate_mode ? "message rate" : "size",
            bench_fmt_size(size, sz, sizeof sz), w, windows - 1, o->trials);
    for (int c = 0; c < C_N; c++) {
        if (!(mask >> c & 1))
            continue;
        int have_raw = c >= C_PUT && (mask >> C_RAW & 1);
        row(x, rate_mode ? rate_names[c] : names[c], size, w, windows, rate[c], r_mem[c], r_raw[c], have_raw,
            &ctrs[c], (double)((windows - 1) * w * o->trials));
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    db_init("dcmf_bandwidth", 2);
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_wack, NULL};
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DB_CHECK(DCMF_Send_register(&p_send, &sc) == DCMF_SUCCESS && DCMF_Control_register(&p_ack, &cc) == DCMF_SUCCESS &&
                 DCMF_Put_register(&p_put, &pc) == DCMF_SUCCESS && DCMF_Get_register(&p_get, &gc) == DCMF_SUCCESS,
             "protocol registration failed");

    struct ctx x = {.o = &o, .origin = db_me == 0, .peer = 1};
    uint64_t maxsz = MSG_BYTES;
    for (size_t i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsz)
            maxsz = o.sizes[i];
    long wmax = o.window > o.msg_window ? o.window : o.msg_window;
    uint64_t span = o.span;
    if (maxsz * (uint64_t)o.window > span)
        span = maxsz * (uint64_t)o.window;
    if ((uint64_t)MSG_BYTES * (uint64_t)wmax > span)
        span = (uint64_t)MSG_BYTES * (uint64_t)wmax;
    o.span = span;
    x.a = db_alloc(span, o.heap);
    if (x.origin) {
        x.b = db_alloc(span, o.heap);
        memset(x.a, 0x5a, span);
    }
    recv_base = x.a;
    db_region(&x.mine, x.a, span);
    size_t other = x.origin ? 1 : 0;
    db_swap_regions(other, 1, &x.mine, &x.theirs);
    if (x.origin) {
        db_raw_learn(1, 2, &x.raw);
    } else {
        db_raw_offer(0, 2, x.a, span);
    }
    if (x.origin) {
        be_ctrs_open();
        bench_header(stdout, argc, argv);
        printf("# layout=%s (nodes x ranks per node) same_node=%d consistency=%s mem=%s poll=%s window=%ld "
               "msg_window=%ld span=%llu; mbps = 10^6 bytes/s, median over trials; ratio_memcpy / ratio_raw = median over "
               "trials of rate / same-trial memcpy / raw_write rate; windows = timed windows per trial; *_op = per "
               "operation, whole job\n",
               db_layout(), db_same_node(0, 1), db_consistency_name(o.consistency), o.heap ? "heap" : "private",
               db_poll_yield ? "yield" : "spin", o.window, o.msg_window, (unsigned long long)o.span);
        printf("bench,case,size,layout,consistency,window,windows,trials,mbps,ops_s,ratio_memcpy,ratio_raw,"
               BE_CTRS_CSV_HEADER "\n");
        fflush(stdout);
        fprintf(stderr, "dcmf_bandwidth: %s (%s), %s consistency, %s memory, poll %s, host %s, %ld cpus\n",
                db_layout(), db_same_node(0, 1) ? "one node" : "two nodes", db_consistency_name(o.consistency),
                o.heap ? "heap" : "private", db_poll_yield ? "yield" : "spin", bench_host(), bench_nproc());
    }
    for (size_t z = 0; z < o.nsizes; z++)
        run_size(&x, o.sizes[z], 0);
    if (o.msgrate)
        run_size(&x, MSG_BYTES, 1);
    db_barrier(); /* nobody touches a peer's buffers after this */
    DCMF_Memregion_destroy(&x.mine);
    db_raw_withdraw();
    db_free(x.a, o.heap);
    if (x.b)
        db_free(x.b, o.heap);
    free(o.sizes);
    db_fini();
    return 0;
}
