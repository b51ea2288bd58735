/* Fetch-and-add latency against the number of tasks ([BGQ-PAMI] figure 10):
 * every task but 0 adds to one counter on task 0, one operation at a time,
 * and reports its mean latency. What serves the counter:
 *   nic         PAMI_Rmw: the target's NIC executes it (task 0 computes)
 *   am          an active message that task 0's handler answers; task 0
 *               spins on advance
 *   am_compute  the same, but task 0 computes in --chunk-us slices and
 *               advances only between them (a busy target, no progress help)
 *   am_async    the same busy target, with the AMOs on a second context that
 *               EXT_async_progress's thread serves: the paper's design
 * CSV on stdout: one line per case with the mean and the worst origin's mean. */
#include <getopt.h>
#include <string.h>

#include "bench_util.h"
#include "pami_bench.h"

enum { M_NIC, M_AM, M_AM_COMPUTE, M_AM_ASYNC, M_N };
static const char *const names[M_N] = {"nic", "am", "am_compute", "am_async"};

#define D_AMO 10
#define D_REPLY 11
#define D_DONE 12

static uint64_t counter;
static atomic_long replies, finished;
static uint64_t last_reply;

static void on_amo(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, const void *pipe,
                   size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)cookie, (void)hdr, (void)hlen, (void)len, (void)recv;
    uint64_t add, old = counter;
    memcpy(&add, pipe, sizeof add);
    counter += add;
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.dest = origin;
    s.dispatch = D_REPLY;
    s.data.iov_base = &old;
    s.data.iov_len = sizeof old;
    PB_CHECK(PAMI_Send_immediate(ctx, &s) == PAMI_SUCCESS, "reply");
}

static void on_reply(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, const void *pipe,
                     size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)hdr, (void)hlen, (void)len, (void)origin, (void)recv;
    memcpy(&last_reply, pipe, sizeof last_reply);
    atomic_fetch_add(&replies, 1);
}

static void on_done(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, const void *pipe,
                    size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)hdr, (void)hlen, (void)pipe, (void)len, (void)origin, (void)recv;
    atomic_fetch_add(&finished, 1);
}

static void set_dispatch(pami_context_t ctx, size_t id, pami_dispatch_p2p_function fn)
{
    pami_dispatch_callback_function f = {.p2p = fn};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    h.recv_immediate = PAMI_HINT_ENABLE;
    PB_CHECK(PAMI_Dispatch_set(ctx, id, f, NULL, h) == PAMI_SUCCESS, "dispatch %zu", id);
}

static volatile double sink;

static void compute_us(long us)
{
    int64_t end = bench_now_ns() + us * 1000;
    double x = 1.0;
    while (bench_now_ns() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"iters", required_argument, 0, 'i'}, {"chunk-us", required_argument, 0, 'c'},
        {"cases", required_argument, 0, 'k'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    long iters = 200, chunk = 1000;
    const char *cases = "nic,am,am_compute,am_async";
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
        case 'c': chunk = bench_parse_long("--chunk-us", optarg, 1, 1000000); break;
        case 'k': cases = optarg; break;
        case 'h':
            printf("usage: emunic-run -N nodes -n tasks --nic pami -- pami_rmw [options]\n"
                   "Fetch-and-add latency on task 0's counter from every other task.\n"
                   "  --iters N       operations per origin per case (200)\n"
                   "  --chunk-us N    task 0's compute slice in the busy-target cases (1000)\n"
                   "  --cases LIST    nic,am,am_compute,am_async (default all)\n"
                   "  -h, --help      this text\n");
            return 0;
        default: pb_bad_option("pami_rmw", c, argv);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "pami_rmw: unexpected argument '%s' (--help)\n", argv[optind]);
        return 2;
    }
    unsigned want = 0;
    char *copy = strdup(cases);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int k;
        for (k = 0; k < M_N && strcmp(tok, names[k]); k++)
            ;
        if (k == M_N) {
            fprintf(stderr, "pami_rmw: --cases: '%s' is not nic, am, am_compute or am_async\n", tok);
            return 2;
        }
        want |= 1u << k;
    }
    free(copy);
    pb_init("pami_rmw", 2, 2, 1024);
    for (int k = 0; k < 2; k++) {
        set_dispatch(pb_ctx[k], D_AMO, on_amo);
        set_dispatch(pb_ctx[k], D_REPLY, on_reply);
    }
    set_dispatch(pb_ctx[0], D_DONE, on_done);
    pami_extension_t ext;
    async_progress_enable_fn enable = NULL;
    async_progress_disable_fn disable = NULL;
    if (PAMI_Extension_open(pb_client, "EXT_async_progress", &ext) == PAMI_SUCCESS) {
        enable = (async_progress_enable_fn)(uintptr_t)PAMI_Extension_symbol(ext, "enable");
        disable = (async_progress_disable_fn)(uintptr_t)PAMI_Extension_symbol(ext, "disable");
    }
    PB_CHECK(enable && disable, "EXT_async_progress is missing");
    uint64_t caddr = (uint64_t)(uintptr_t)&counter, addrs[1024];
    pb_allgather(&caddr, sizeof caddr, addrs);
    if (pb_me == 0) {
        bench_header(stdout, argc, argv);
        printf("bench,case,tasks,layout,iters,mean_us,worst_us\n");
    }
    for (int m = 0; m < M_N; m++) {
        if (!(want & (1u << m)))
            continue;
        counter = 0;
        atomic_store(&finished, 0);
        if (m == M_AM_ASYNC && pb_me == 0)
            PB_CHECK(enable(pb_ctx[1], PAMI_ASYNC_ALL) == PAMI_SUCCESS, "enable");
        pb_barrier();
        double mean = 0;
        if (pb_me == 0) {
            while (atomic_load(&finished) < (long)pb_n - 1) {
                if (m == M_AM)
                    PAMI_Context_advance(pb_ctx[0], 1);
                else {
                    compute_us(chunk);
                    PAMI_Context_advance(pb_ctx[0], 1);
                }
            }
        } else {
            pami_context_t ctx = pb_ctx[m == M_AM_ASYNC ? 1 : 0];
            pami_endpoint_t t0 = pb_ep(0, m == M_AM_ASYNC ? 1 : 0);
            atomic_long done = 0;
            uint64_t one = 1, old;
            int64_t start = bench_now_ns();
            for (long i = 0; i < iters; i++) {
                if (m == M_NIC) {
                    pami_rmw_t r;
                    memset(&r, 0, sizeof r);
                    r.dest = t0;
                    r.cookie = &done;
                    r.done_fn = pb_count;
                    r.local = &old;
                    r.remote = (void *)(uintptr_t)addrs[0];
                    r.value = &one;
                    r.operation = PAMI_ATOMIC_FETCH_ADD;
                    r.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
                    PB_CHECK(PAMI_Rmw(ctx, &r) == PAMI_SUCCESS, "rmw");
                    pb_until(ctx, &done, i + 1);
                } else {
                    long before = atomic_load(&replies);
                    pami_send_immediate_t s;
                    memset(&s, 0, sizeof s);
                    s.dest = t0;
                    s.dispatch = D_AMO;
                    s.data.iov_base = &one;
                    s.data.iov_len = sizeof one;
                    PB_CHECK(PAMI_Send_immediate(ctx, &s) == PAMI_SUCCESS, "amo send");
                    pb_until(ctx, &replies, before + 1);
                }
            }
            mean = (double)(bench_now_ns() - start) / 1e3 / (double)iters;
            pami_send_immediate_t s;
            memset(&s, 0, sizeof s);
            s.dest = pb_ep(0, 0);
            s.dispatch = D_DONE;
            PB_CHECK(PAMI_Send_immediate(pb_ctx[0], &s) == PAMI_SUCCESS, "done");
        }
        if (m == M_AM_ASYNC && pb_me == 0)
            PB_CHECK(disable(pb_ctx[1], PAMI_ASYNC_ALL) == PAMI_SUCCESS, "disable");
        double means[1024];
        pb_allgather(&mean, sizeof mean, means);
        if (pb_me == 0) {
            double sum = 0, worst = 0;
            for (size_t t = 1; t < pb_n; t++) {
                sum += means[t];
                worst = means[t] > worst ? means[t] : worst;
            }
            PB_CHECK(counter == (uint64_t)iters * (pb_n - 1), "counter %llu", (unsigned long long)counter);
            printf("pami_rmw,%s,%zu,%s,%ld,%.2f,%.2f\n", names[m], pb_n, pb_layout(), iters, sum / (double)(pb_n - 1), worst);
            fflush(stdout);
            fprintf(stderr, "pami_rmw: %s done\n", names[m]);
        }
    }
    PAMI_Extension_close(ext);
    pb_fini();
    return 0;
}
