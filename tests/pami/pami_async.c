/* EXT_async_progress: PAMI_Extension_open / symbol / close, register,
 * enable and disable; while the main thread computes without advancing,
 * the progress thread of context 1 receives short and long messages,
 * completes this task's own sends and puts, and runs posted work — all in
 * a thread other than main. Without an argument the library advances the
 * context itself; with "progress_fn" the client's progress function does
 * (taking the context lock), and suspend/resume bracket the thread's
 * sleeps. The thread runs with a short scheduler slice (100 us, or
 * EMUNIC_SLICE_US as "slice" sets it) unless "noslice" sets the variable
 * to 0. Other extension names are PAMI_UNIMPL. Context 0 stays with the
 * main thread (the harness). */
#include "ptest.h"

#include <dirent.h>
#include <pthread.h>

#define D_ASYNC 4
#define LONG_BYTES 100000
#define NMSG 20

static pthread_t main_thread;
static atomic_long recvd, recv_done, off_main, on_main;
static atomic_long progress_calls, suspends, resumes;
static atomic_int suspended;
static unsigned char *long_buf;
static size_t left, right;

static void note_thread(void)
{
    if (pthread_equal(pthread_self(), main_thread))
        atomic_fetch_add(&on_main, 1);
    else
        atomic_fetch_add(&off_main, 1);
}

static void on_done(pami_context_t ctx, void *cookie, pami_result_t r)
{
    note_thread();
    pt_count_cb(ctx, cookie, r);
}

static void on_msg(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                   size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)cookie, (void)origin;
    CHECK(ctx == pt_ctx[1], "async message in context %p", ctx);
    note_thread();
    uint32_t seq;
    CHECK(hlen == sizeof seq, "header %zu", hlen);
    memcpy(&seq, h, sizeof seq);
    if (dlen <= 64) {
        CHECK(pipe && !recv && dlen == 64, "short message");
        for (size_t i = 0; i < dlen; i++)
            CHECK(((const unsigned char *)pipe)[i] == pt_pat(left + seq, i), "short byte %zu", i);
        atomic_fetch_add(&recv_done, 1);
    } else {
        CHECK(!pipe && recv && dlen == LONG_BYTES, "long message");
        recv->addr = long_buf + (size_t)seq * LONG_BYTES;
        recv->type = PAMI_TYPE_BYTE;
        recv->data_fn = PAMI_DATA_COPY;
        recv->local_fn = on_done;
        recv->cookie = &recv_done;
    }
    atomic_fetch_add(&recvd, 1);
}

static void progress(pami_context_t ctx, void *cookie)
{
    CHECK(cookie == (void *)&progress_calls, "progress cookie");
    CHECK(!atomic_load(&suspended), "progress function called while suspended");
    atomic_fetch_add(&progress_calls, 1);
    if (PAMI_Context_trylock(ctx) == PAMI_SUCCESS) {
        PAMI_Context_advance(ctx, 10);
        PAMI_Context_unlock(ctx);
    }
}

static void suspend(pami_context_t ctx, void *cookie)
{
    (void)ctx, (void)cookie;
    CHECK(!atomic_exchange(&suspended, 1), "suspend twice without a resume");
    atomic_fetch_add(&suspends, 1);
}

static void resume(pami_context_t ctx, void *cookie)
{
    (void)ctx, (void)cookie;
    CHECK(atomic_exchange(&suspended, 0), "resume without a suspend");
    atomic_fetch_add(&resumes, 1);
}

static pami_result_t posted_work(pami_context_t ctx, void *cookie)
{
    CHECK(ctx == pt_ctx[1], "work ran in %p", ctx);
    note_thread();
    atomic_fetch_add((atomic_long *)cookie, 1);
    return PAMI_SUCCESS;
}

/* compute without touching PAMI until *c >= target (bounded) */
static volatile double sink;
static void compute_until(atomic_long *c, long target, double seconds, const char *what)
{
    double end = pt_now() + seconds, x = 1;
    while (atomic_load(c) < target) {
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
        sink = x;
        if (pt_now() > end)
            FAIL("%s: %ld of %ld without the main thread advancing", what, atomic_load(c), target);
    }
}

/* se.slice of a thread in ns (kernel 6.12+), -1 if not shown */
static long slice_of(const char *sched_file)
{
    char line[160];
    FILE *f = fopen(sched_file, "r");
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "se.slice", 8) && strchr(line, ':'))
            v = strtol(strchr(line, ':') + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

static int short_slices(void)
{
    DIR *d = opendir("/proc/self/task");
    CHECK(d, "/proc/self/task");
    int n = 0;
    char path[300];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/sched", e->d_name);
        n += slice_of(path) == 100000;
    }
    closedir(d);
    return n;
}

/* The progress thread asks for the short slice that lets it preempt a
 * computing main thread at once (emunic/slice.h), and main keeps its own;
 * with EMUNIC_SLICE_US=0 nobody asks. The thread sets it when
 * it starts: wait for that (bounded). */
static void check_short_slice(int want)
{
    long main_slice = slice_of("/proc/thread-self/sched");
    if (main_slice <= 0 || main_slice == 100000)
        return; /* an older kernel, or a host whose default is 100 us */
    double end = pt_now() + (want ? 30 : 0.2);
    int n;
    while ((n = short_slices()) != want && pt_now() < end)
        pt_sleep_us(1000);
    CHECK(n == want, "%d threads with a 100 us slice, want %d (the progress thread's)", n, want);
}

int main(int argc, char **argv)
{
    int with_fn = argc > 1 && !strcmp(argv[1], "progress_fn");
    int slice = argc > 1 && !strcmp(argv[1], "slice");
    int noslice = argc > 1 && !strcmp(argv[1], "noslice");
    int user_slice = getenv("EMUNIC_SLICE_US") != NULL;
    if (slice || noslice) /* read by the progress thread as it starts */
        setenv("EMUNIC_SLICE_US", slice ? "100" : "0", 1);
    main_thread = pthread_self();
    pt_init(2);
    right = (pt_task + 1) % pt_size;
    left = (pt_task + pt_size - 1) % pt_size;
    long_buf = calloc(NMSG, LONG_BYTES);
    pami_context_t ctx = pt_ctx[1];

    /* extensions that do not exist: PAMI_UNIMPL, quietly (clients probe) */
    pami_extension_t ext;
    CHECK_QUIET(PAMI_Extension_open(pt_client, "EXT_hfi_extension", &ext), PAMI_UNIMPL);
    CHECK_QUIET(PAMI_Extension_open(pt_client, "EXT_is_local_task", &ext), PAMI_UNIMPL);
    CHECK_QUIET(PAMI_Extension_open(pt_client, "EXT_no_such_thing", &ext), PAMI_UNIMPL);
    char text[256];
    PAMI_Error_text(text, sizeof text);
    CHECK(strstr(text, "EXT_no_such_thing"), "PAMI_Error_text says \"%s\"", text);

    CHECK_RC(PAMI_Extension_open(pt_client, "EXT_async_progress", &ext), PAMI_SUCCESS);
    async_progress_register_fn reg = (async_progress_register_fn)(uintptr_t)PAMI_Extension_symbol(ext, "register");
    async_progress_enable_fn en = (async_progress_enable_fn)(uintptr_t)PAMI_Extension_symbol(ext, "enable");
    async_progress_disable_fn dis = (async_progress_disable_fn)(uintptr_t)PAMI_Extension_symbol(ext, "disable");
    CHECK(reg && en && dis, "EXT_async_progress symbols %p %p %p", (void *)(uintptr_t)reg,
          (void *)(uintptr_t)en, (void *)(uintptr_t)dis);
    void *none;
    ERRCAP_BEGIN();
    none = PAMI_Extension_symbol(ext, "no_such_symbol");
    char line[512];
    int nl = errcap_end(line, sizeof line);
    CHECK(!none && nl == 1 && strstr(line, "PAMI_Extension_symbol"), "unknown symbol: %p, %d lines: %s", none,
          nl, line);
    CHECK_ERR(en(ctx, (pami_async_t)7), PAMI_INVAL, "enable");
    CHECK_ERR(dis(ctx, (pami_async_t)7), PAMI_INVAL, "disable");
    CHECK_RC(dis(ctx, PAMI_ASYNC_ALL), PAMI_SUCCESS); /* not enabled: fine */

    pami_dispatch_callback_function fn = {.p2p = on_msg};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(ctx, D_ASYNC, fn, NULL, h), PAMI_SUCCESS);
    if (with_fn)
        CHECK_RC(reg(ctx, progress, suspend, resume, &progress_calls), PAMI_SUCCESS);
    else
        CHECK_RC(reg(ctx, NULL, NULL, NULL, NULL), PAMI_SUCCESS);
    CHECK_RC(en(ctx, PAMI_ASYNC_ALL), PAMI_SUCCESS);
    CHECK_RC(en(ctx, PAMI_ASYNC_RECV_INTERRUPT), PAMI_SUCCESS); /* again: fine */
    CHECK_ERR(reg(ctx, NULL, NULL, NULL, NULL), PAMI_INVAL, "register"); /* while running */
    if (slice || noslice || !user_slice)
        check_short_slice(!noslice);
    pt_barrier();

    /* the progress thread advances ctx: data calls on it take the lock */
    unsigned char *src = malloc(LONG_BYTES);
    atomic_long sent = 0;
    uint32_t seqs[NMSG];
    unsigned char *srcs = malloc((size_t)NMSG * LONG_BYTES);
    for (uint32_t s = 0; s < NMSG; s++) {
        seqs[s] = s;
        size_t len = s % 2 ? LONG_BYTES : 64;
        for (size_t i = 0; i < len; i++)
            srcs[(size_t)s * LONG_BYTES + i] = pt_pat(pt_task + s, i);
        pami_send_t m;
        memset(&m, 0, sizeof m);
        m.send.dest = pt_ep(right, 1);
        m.send.dispatch = D_ASYNC;
        m.send.header.iov_base = &seqs[s];
        m.send.header.iov_len = sizeof seqs[s];
        m.send.data.iov_base = srcs + (size_t)s * LONG_BYTES;
        m.send.data.iov_len = len;
        m.events.cookie = &sent;
        m.events.local_fn = on_done;
        m.events.remote_fn = on_done;
        CHECK_RC(PAMI_Context_lock(ctx), PAMI_SUCCESS);
        CHECK_RC(PAMI_Send(ctx, &m), PAMI_SUCCESS);
        CHECK_RC(PAMI_Context_unlock(ctx), PAMI_SUCCESS);
    }
    compute_until(&recv_done, NMSG, 30, "receives");
    compute_until(&sent, 2 * NMSG, 30, "send completions");
    for (uint32_t s = 1; s < NMSG; s += 2)
        for (size_t i = 0; i < LONG_BYTES; i++)
            CHECK(long_buf[(size_t)s * LONG_BYTES + i] == pt_pat(left + s, i), "long message %u byte %zu", s, i);

    /* a put with both completions, and posted work */
    static unsigned char target[4096];
    uint64_t addrs[PT_MAX_TASKS], mine = (uint64_t)(uintptr_t)target;
    pt_allgather(&mine, sizeof mine, addrs);
    for (size_t i = 0; i < sizeof target; i++)
        src[i] = pt_pat(pt_task + 500, i);
    atomic_long pdone = 0;
    pami_put_simple_t p;
    memset(&p, 0, sizeof p);
    p.rma.dest = pt_ep(right, 1);
    p.rma.bytes = sizeof target;
    p.rma.cookie = &pdone;
    p.rma.done_fn = on_done;
    p.put.rdone_fn = on_done;
    p.addr.local = src;
    p.addr.remote = (void *)(uintptr_t)addrs[right];
    CHECK_RC(PAMI_Context_lock(ctx), PAMI_SUCCESS);
    CHECK_RC(PAMI_Put(ctx, &p), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_unlock(ctx), PAMI_SUCCESS);
    compute_until(&pdone, 2, 30, "put completions");
    atomic_long wdone = 0;
    pami_work_t w;
    CHECK_RC(PAMI_Context_post(ctx, &w, posted_work, &wdone), PAMI_SUCCESS); /* thread-safe: no lock */
    compute_until(&wdone, 1, 30, "posted work");
    CHECK(atomic_load(&on_main) == 0, "%ld callbacks ran on the main thread", atomic_load(&on_main));
    CHECK(atomic_load(&off_main) > 0, "no callback ran on the progress thread");
    pt_barrier();
    for (size_t i = 0; i < sizeof target; i++)
        CHECK(target[i] == pt_pat(left + 500, i), "put byte %zu", i);
    if (with_fn) {
        CHECK(atomic_load(&progress_calls) > 0, "the progress function never ran");
        /* the thread sleeps while idle, bracketed by suspend/resume */
        pt_sleep_us(100000);
        CHECK(atomic_load(&suspends) > 0, "suspend never ran while idle");
        long r = atomic_load(&resumes), s = atomic_load(&suspends);
        CHECK(r <= s, "resume %ld times, suspend %ld", r, s);
    }

    /* disabled: nothing progresses ctx until main advances it */
    CHECK_RC(dis(ctx, PAMI_ASYNC_ALL), PAMI_SUCCESS);
    CHECK_RC(dis(ctx, PAMI_ASYNC_ALL), PAMI_SUCCESS);
    if (with_fn) {
        long s = atomic_load(&suspends), r = atomic_load(&resumes);
        CHECK(s == r, "after disable: suspend %ld resume %ld", s, r);
    }
    pt_barrier();
    atomic_long before = atomic_load(&recvd);
    atomic_long one = 0;
    pami_send_t m;
    memset(&m, 0, sizeof m);
    m.send.dest = pt_ep(right, 1);
    m.send.dispatch = D_ASYNC;
    uint32_t z = 0;
    m.send.header.iov_base = &z;
    m.send.header.iov_len = sizeof z;
    m.send.data.iov_base = srcs;
    m.send.data.iov_len = 64;
    m.events.cookie = &one;
    m.events.remote_fn = pt_count_cb;
    CHECK_RC(PAMI_Send(ctx, &m), PAMI_SUCCESS);
    pt_barrier();
    pt_advance_for(pt_ctx[0], 0.2);
    CHECK(atomic_load(&recvd) == before, "a message was received with async progress disabled");
    long on_before = atomic_load(&on_main);
    pt_wait(ctx, &recvd, before + 1, 20);
    pt_wait(ctx, &one, 1, 20);
    CHECK(atomic_load(&on_main) > on_before, "after disable, callbacks run in main's advance");
    pt_barrier();
    /* enabled again, and left enabled: PAMI_Context_destroyv stops it */
    CHECK_RC(en(ctx, PAMI_ASYNC_ALL), PAMI_SUCCESS);
    CHECK_RC(PAMI_Extension_close(ext), PAMI_SUCCESS);
    pt_finish(with_fn ? "pami_async progress_fn" : slice ? "pami_async slice" : noslice ? "pami_async noslice" : "pami_async");
    free(src);
    free(srcs);
    free(long_buf);
    return 0;
}
