/* Contexts: locks, posted work, advance return codes, several contexts.
 *
 * (no argument) lock / trylock / unlock and their errors (recursive lock,
 *   unlock by a thread that does not hold it, trylock of a held context);
 *   PAMI_Context_post: runs inside a later advance of that context only,
 *   a work function returning EAGAIN runs again, posts from another thread;
 *   advance / advancev / trylock_advancev return SUCCESS whether or not
 *   anything ran, as IBM's PAMI does (trylock_advancev skips a locked
 *   context: what ran is checked by its effects);
 *   advance from inside a callback of the same context is refused.
 * "multi": 1..4 contexts; every task sends to every context of every task;
 *   callbacks run only inside their own context's advance, and a context
 *   that is not advanced receives nothing while the others do.
 * "threads": 4 contexts, each advanced by its own thread under its lock,
 *   sending to the same context offset of every task.
 * "destroy_held": PAMI_Context_destroyv of contexts another thread holds
 *   waits for the holder's unlock, which succeeds (IBM's
 *   context/post-multithreaded), also when the holder then wants another
 *   context of the list; a holder that never lets go fails the call with
 *   PAMI_EAGAIN and nothing destroyed (a progress thread keeps running);
 *   the caller's own lock is taken over; a context listed twice is
 *   refused. */
#include "ptest.h"

#include <pthread.h>

/* ---- basic ---- */

struct work {
    pami_work_t w;
    pami_context_t expect;
    atomic_long runs;
    long again; /* return EAGAIN this many times */
};

static pami_result_t work_fn(pami_context_t ctx, void *cookie)
{
    struct work *w = cookie;
    CHECK(ctx == w->expect, "posted work ran in context %p, posted to %p", ctx, w->expect);
    long n = atomic_fetch_add(&w->runs, 1) + 1;
    return n <= w->again ? PAMI_EAGAIN : PAMI_SUCCESS;
}

static pami_result_t work_advances(pami_context_t ctx, void *cookie)
{
    /* a work function is a callback too: advancing its own context from
     * inside is refused */
    CHECK_ERR(PAMI_Context_advance(ctx, 1), PAMI_INVAL, "PAMI_Context_advance");
    atomic_fetch_add((atomic_long *)cookie, 1);
    return PAMI_SUCCESS;
}

static void *other_thread_locks(void *arg)
{
    pami_context_t ctx = arg;
    /* the main thread holds the lock */
    CHECK_RC(PAMI_Context_trylock(ctx), PAMI_EAGAIN);
    CHECK_ERR(PAMI_Context_unlock(ctx), PAMI_INVAL, "PAMI_Context_unlock");
    return NULL;
}

static atomic_long holder_has_lock;

static void *other_thread_holds(void *arg)
{
    pami_context_t ctx = arg;
    CHECK_RC(PAMI_Context_lock(ctx), PAMI_SUCCESS);
    atomic_store(&holder_has_lock, 1);
    pt_sleep_us(200000);
    atomic_store(&holder_has_lock, 0);
    CHECK_RC(PAMI_Context_unlock(ctx), PAMI_SUCCESS);
    return NULL;
}

static struct work posted[100];

static void *poster(void *arg)
{
    pami_context_t ctx = arg;
    for (int i = 0; i < 100; i++) {
        posted[i].expect = ctx;
        CHECK_RC(PAMI_Context_post(ctx, &posted[i].w, work_fn, &posted[i]), PAMI_SUCCESS);
        if (i % 10 == 0)
            pt_sleep_us(1000);
    }
    return NULL;
}

static atomic_long cb_in_cb;

static void advance_in_callback(pami_context_t ctx, void *cookie, const void *h, size_t hlen,
                                const void *pipe, size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)cookie, (void)h, (void)hlen, (void)pipe, (void)dlen, (void)origin, (void)recv;
    CHECK_ERR(PAMI_Context_advance(ctx, 1), PAMI_INVAL, "PAMI_Context_advance");
    atomic_fetch_add(&cb_in_cb, 1);
}

static void local_advances(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)r;
    CHECK_ERR(PAMI_Context_advance(ctx, 1), PAMI_INVAL, "PAMI_Context_advance");
    atomic_fetch_add((atomic_long *)cookie, 1);
}

/* Advance until nothing is left (no completion or message for a while). */
static void drain(pami_context_t ctx)
{
    /* an advance returns PAMI_SUCCESS with or without events (as IBM's
     * PAMI does), so drain by time */
    double quiet = pt_now() + 0.1;
    while (pt_now() < quiet)
        CHECK_RC(PAMI_Context_advance(ctx, 1), PAMI_SUCCESS);
}

static void basic(void)
{
    pami_context_t c0 = pt_ctx[0], c1 = pt_ctx[1];
    /* locks */
    CHECK_RC(PAMI_Context_lock(c0), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Context_lock(c0), PAMI_INVAL, "PAMI_Context_lock");
    CHECK_RC(PAMI_Context_trylock(c0), PAMI_EAGAIN); /* held, also by this thread */
    pthread_t th;
    pthread_create(&th, NULL, other_thread_locks, c0);
    pthread_join(th, NULL);
    CHECK_RC(PAMI_Context_unlock(c0), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Context_unlock(c0), PAMI_INVAL, "PAMI_Context_unlock");
    CHECK_RC(PAMI_Context_trylock(c0), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_unlock(c0), PAMI_SUCCESS);
    /* lock waits for another holder */
    pthread_create(&th, NULL, other_thread_holds, c1);
    pt_wait_noadvance(&holder_has_lock, 1, 20);
    CHECK_RC(PAMI_Context_trylock(c1), PAMI_EAGAIN);
    CHECK_RC(PAMI_Context_lock(c1), PAMI_SUCCESS);
    CHECK(atomic_load(&holder_has_lock) == 0, "PAMI_Context_lock did not wait for the holder");
    CHECK_RC(PAMI_Context_unlock(c1), PAMI_SUCCESS);
    pthread_join(th, NULL);

    /* advance on an idle context: PAMI_SUCCESS, as IBM's PAMI returns it */
    drain(c0);
    drain(c1);
    CHECK_RC(PAMI_Context_advance(c1, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_advance(c1, 10), PAMI_SUCCESS);
    pami_context_t both[2] = {c0, c1};
    pami_context_t only1[1] = {c1};
    CHECK_RC(PAMI_Context_advancev(only1, 1, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_trylock_advancev(only1, 1, 1), PAMI_SUCCESS);

    /* post: runs at the next advance of that context, not another's */
    struct work w1 = {.expect = c1};
    CHECK_RC(PAMI_Context_post(c1, &w1.w, work_fn, &w1), PAMI_SUCCESS);
    for (int i = 0; i < 20; i++)
        PAMI_Context_advance(c0, 1);
    CHECK(atomic_load(&w1.runs) == 0, "work posted to context 1 ran in context 0's advance");
    CHECK_RC(PAMI_Context_advance(c1, 1), PAMI_SUCCESS);
    CHECK(atomic_load(&w1.runs) == 1, "posted work ran %ld times", atomic_load(&w1.runs));
    CHECK_RC(PAMI_Context_advance(c1, 1), PAMI_SUCCESS);
    CHECK(atomic_load(&w1.runs) == 1, "posted work ran again (%ld)", atomic_load(&w1.runs));

    /* EAGAIN: re-run at later advances until SUCCESS */
    struct work w2 = {.expect = c1, .again = 3};
    CHECK_RC(PAMI_Context_post(c1, &w2.w, work_fn, &w2), PAMI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK_RC(PAMI_Context_advance(c1, 1), PAMI_SUCCESS);
    CHECK(atomic_load(&w2.runs) == 4, "EAGAIN work ran %ld times, want 4", atomic_load(&w2.runs));
    CHECK_RC(PAMI_Context_advance(c1, 1), PAMI_SUCCESS);
    CHECK(atomic_load(&w2.runs) == 4, "finished work ran again");

    /* posts in order, several in one advance */
    struct work w3[5];
    memset(w3, 0, sizeof w3);
    for (int i = 0; i < 5; i++) {
        w3[i].expect = c1;
        CHECK_RC(PAMI_Context_post(c1, &w3[i].w, work_fn, &w3[i]), PAMI_SUCCESS);
    }
    CHECK_RC(PAMI_Context_advance(c1, 1), PAMI_SUCCESS);
    for (int i = 0; i < 5; i++)
        CHECK(atomic_load(&w3[i].runs) == 1, "work %d of 5 ran %ld times", i, atomic_load(&w3[i].runs));

    /* advancev and trylock_advancev */
    struct work w4 = {.expect = c1};
    CHECK_RC(PAMI_Context_post(c1, &w4.w, work_fn, &w4), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_advancev(both, 2, 1), PAMI_SUCCESS);
    CHECK(atomic_load(&w4.runs) == 1, "advancev did not run the work");
    struct work w5 = {.expect = c1};
    CHECK_RC(PAMI_Context_post(c1, &w5.w, work_fn, &w5), PAMI_SUCCESS);
    pthread_create(&th, NULL, other_thread_holds, c1);
    pt_wait_noadvance(&holder_has_lock, 1, 20);
    CHECK_RC(PAMI_Context_trylock_advancev(only1, 1, 1), PAMI_SUCCESS); /* locked: skipped */
    CHECK(atomic_load(&w5.runs) == 0, "trylock_advancev advanced a locked context");
    pthread_join(th, NULL);
    CHECK_RC(PAMI_Context_trylock_advancev(both, 2, 1), PAMI_SUCCESS);
    CHECK(atomic_load(&w5.runs) == 1, "trylock_advancev did not run the work");
    CHECK_RC(PAMI_Context_trylock(c1), PAMI_SUCCESS); /* and left it unlocked */
    CHECK_RC(PAMI_Context_unlock(c1), PAMI_SUCCESS);

    /* posts from another thread while this one advances */
    pthread_create(&th, NULL, poster, c1);
    double end = pt_now() + 20;
    for (int i = 0; i < 100; i++)
        while (atomic_load(&posted[i].runs) == 0) {
            PAMI_Context_advance(c1, 1);
            CHECK(pt_now() < end, "posted work %d never ran", i);
        }
    pthread_join(th, NULL);

    /* advance from inside callbacks of the same context */
    atomic_long lc = 0;
    pami_dispatch_callback_function fn = {.p2p = advance_in_callback};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(c0, 5, fn, NULL, h), PAMI_SUCCESS);
    pt_barrier();
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.dest = pt_ep((pt_task + 1) % pt_size, 0);
    s.send.dispatch = 5;
    s.events.local_fn = local_advances;
    s.events.cookie = &lc;
    CHECK_RC(PAMI_Send(c0, &s), PAMI_SUCCESS);
    pt_wait(c0, &cb_in_cb, 1, 20);
    pt_wait(c0, &lc, 1, 20);
    /* and another context may be advanced from a callback */
    pt_barrier();
}

/* Work functions are callbacks: advancing their own context is refused. */
static void work_advance(void)
{
    atomic_long n = 0;
    pami_work_t w;
    CHECK_RC(PAMI_Context_post(pt_ctx[1], &w, work_advances, &n), PAMI_SUCCESS);
    pt_wait(pt_ctx[1], &n, 1, 20);
}

/* ---- several contexts ---- */

static atomic_long per_ctx[4];

/* cookie: the context index it is registered on */
static void on_multi(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                     size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)pipe, (void)dlen, (void)recv;
    size_t idx = (size_t)(uintptr_t)cookie;
    CHECK(ctx == pt_ctx[idx], "a callback of context %zu ran in context %p", idx, ctx);
    uint32_t m[3];
    CHECK(hlen == sizeof m, "header %zu", hlen);
    memcpy(m, h, sizeof m);
    pami_task_t from;
    size_t off;
    PAMI_Endpoint_query(origin, &from, &off);
    CHECK(m[1] == idx && off == m[2] && from == m[0], "message for context %u from %u/%u (origin says %u/%zu) ran in %zu",
          m[1], m[0], m[2], from, off, idx);
    atomic_fetch_add(&per_ctx[idx], 1);
}

static void send_to_ctx(pami_context_t from, size_t task, size_t idx, atomic_long *done)
{
    uint32_t fidx = 0;
    while (pt_ctx[fidx] != from)
        fidx++;
    uint32_t m[3] = {(uint32_t)pt_task, (uint32_t)idx, fidx};
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.dest = pt_ep(task, idx);
    s.send.dispatch = 9;
    s.send.header.iov_base = m;
    s.send.header.iov_len = sizeof m;
    s.events.local_fn = pt_count_cb;
    s.events.cookie = done;
    CHECK_RC(PAMI_Send(from, &s), PAMI_SUCCESS);
}

static void multi(size_t n)
{
    pami_dispatch_callback_function fn = {.p2p = on_multi};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    for (size_t i = 0; i < n; i++) {
        atomic_store(&per_ctx[i], 0);
        CHECK_RC(PAMI_Dispatch_set(pt_ctx[i], 9, fn, (void *)(uintptr_t)i, h), PAMI_SUCCESS);
    }
    pt_barrier();
    /* each context i sends to context i of every task; completions in i */
    atomic_long done[4] = {0};
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < pt_size; t++)
            send_to_ctx(pt_ctx[i], t, i, &done[i]);
    /* context n-1 is not advanced yet: nothing for it may run */
    for (size_t i = 0; i + 1 < n; i++) {
        pt_wait(pt_ctx[i], &per_ctx[i], (long)pt_size, 20);
        pt_wait(pt_ctx[i], &done[i], (long)pt_size, 20);
    }
    if (n > 1) {
        pt_advance_for(pt_ctx[0], 0.1);
        CHECK(atomic_load(&per_ctx[n - 1]) == 0 && atomic_load(&done[n - 1]) == 0,
              "context %zu got %ld messages / %ld completions without being advanced", n - 1,
              atomic_load(&per_ctx[n - 1]), atomic_load(&done[n - 1]));
    }
    pt_wait(pt_ctx[n - 1], &per_ctx[n - 1], (long)pt_size, 20);
    pt_wait(pt_ctx[n - 1], &done[n - 1], (long)pt_size, 20);
    pt_barrier();
    for (size_t i = 0; i < n; i++)
        CHECK(atomic_load(&per_ctx[i]) == (long)pt_size, "context %zu got %ld messages", i,
              atomic_load(&per_ctx[i]));
    /* cross: context i sends to context (i+1)%n of the right neighbour */
    for (size_t i = 0; i < n; i++) {
        atomic_store(&per_ctx[i], 0);
        atomic_store(&done[i], 0);
    }
    pt_barrier();
    for (size_t i = 0; i < n; i++)
        send_to_ctx(pt_ctx[i], (pt_task + 1) % pt_size, (i + 1) % n, &done[i]);
    atomic_long all = 0;
    double end = pt_now() + 20;
    for (;;) {
        long got = 0, cmp = 0;
        for (size_t i = 0; i < n; i++) {
            PAMI_Context_advance(pt_ctx[i], 1);
            got += atomic_load(&per_ctx[i]);
            cmp += atomic_load(&done[i]);
        }
        if (got == (long)n && cmp == (long)n)
            break;
        CHECK(pt_now() < end, "cross-context: %ld messages %ld completions of %zu", got, cmp, n);
    }
    (void)all;
    pt_barrier();
}

/* ---- one thread per context ---- */

#define ROUNDS 200

struct th {
    size_t idx;
    atomic_long done;
};

static void *ctx_thread(void *arg)
{
    struct th *t = arg;
    pami_context_t ctx = pt_ctx[t->idx];
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_RC(PAMI_Context_lock(ctx), PAMI_SUCCESS);
        send_to_ctx(ctx, (pt_task + (size_t)r) % pt_size, t->idx, &t->done);
        PAMI_Context_advance(ctx, 1);
        CHECK_RC(PAMI_Context_unlock(ctx), PAMI_SUCCESS);
    }
    double end = pt_now() + 30;
    while (atomic_load(&per_ctx[t->idx]) < ROUNDS || atomic_load(&t->done) < ROUNDS) {
        CHECK_RC(PAMI_Context_lock(ctx), PAMI_SUCCESS);
        PAMI_Context_advance(ctx, 1);
        CHECK_RC(PAMI_Context_unlock(ctx), PAMI_SUCCESS);
        CHECK(pt_now() < end, "context %zu: %ld of %d messages, %ld completions", t->idx,
              atomic_load(&per_ctx[t->idx]), ROUNDS, atomic_load(&t->done));
    }
    return NULL;
}

static void threads(void)
{
    const size_t n = 4;
    pami_dispatch_callback_function fn = {.p2p = on_multi};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    for (size_t i = 0; i < n; i++)
        CHECK_RC(PAMI_Dispatch_set(pt_ctx[i], 9, fn, (void *)(uintptr_t)i, h), PAMI_SUCCESS);
    pt_barrier();
    /* every task sends ROUNDS messages per context, to tasks task+r: each
     * task receives ROUNDS per context too */
    struct th t[4];
    pthread_t tid[4];
    for (size_t i = 1; i < n; i++) {
        t[i].idx = i;
        atomic_store(&t[i].done, 0);
        pthread_create(&tid[i], NULL, ctx_thread, &t[i]);
    }
    t[0].idx = 0;
    atomic_store(&t[0].done, 0);
    ctx_thread(&t[0]);
    for (size_t i = 1; i < n; i++)
        pthread_join(tid[i], NULL);
    pt_barrier();
}

/* ---- destroy_held ---- */

static atomic_long release_holder;

/* Holds ctx until released; then, if also is set, takes that context too
 * before letting go of ctx (the lock order a destroyv must not deadlock
 * with). */
struct holder {
    pami_context_t ctx, also;
};

static void *holder_until_released(void *arg)
{
    struct holder *h = arg;
    CHECK_RC(PAMI_Context_lock(h->ctx), PAMI_SUCCESS);
    atomic_store(&holder_has_lock, 1);
    pt_wait_noadvance(&release_holder, 1, 60);
    if (h->also)
        CHECK_RC(PAMI_Context_lock(h->also), PAMI_SUCCESS);
    atomic_store(&holder_has_lock, 0);
    if (h->also)
        CHECK_RC(PAMI_Context_unlock(h->also), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_unlock(h->ctx), PAMI_SUCCESS);
    return NULL;
}

/* Blocks in PAMI_Context_lock behind the holder; the destroyv may win the
 * lock first, and then this thread must wake on live memory and be told. */
static atomic_int waiter_rc = -1;
static void *lock_waiter(void *arg)
{
    pami_result_t rc = PAMI_Context_lock(arg);
    if (rc == PAMI_SUCCESS)
        CHECK_RC(PAMI_Context_unlock(arg), PAMI_SUCCESS);
    atomic_store(&waiter_rc, (int)rc);
    return NULL;
}

static void *release_later(void *arg)
{
    (void)arg;
    pt_sleep_us(200000);
    atomic_store(&release_holder, 1);
    return NULL;
}

static void start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
    CHECK(pthread_create(t, NULL, fn, arg) == 0, "pthread_create failed");
}

static void destroy_held(void)
{
    pami_context_t c0 = pt_ctx[0], c1 = pt_ctx[1];
    pami_context_t twice[2] = {c0, c0};
    CHECK_ERR(PAMI_Context_destroyv(twice, 2), PAMI_INVAL, "PAMI_Context_destroyv");

    /* context 1 progresses by itself (a progress thread), which a refused
     * destroyv must leave running */
    pami_extension_t ext;
    CHECK_RC(PAMI_Extension_open(pt_client, "EXT_async_progress", &ext), PAMI_SUCCESS);
    async_progress_register_fn reg = (async_progress_register_fn)(uintptr_t)PAMI_Extension_symbol(ext, "register");
    async_progress_enable_fn en = (async_progress_enable_fn)(uintptr_t)PAMI_Extension_symbol(ext, "enable");
    CHECK(reg && en, "EXT_async_progress has no register/enable");
    CHECK_RC(reg(c1, NULL, NULL, NULL, NULL), PAMI_SUCCESS);
    CHECK_RC(en(c1, PAMI_ASYNC_ALL), PAMI_SUCCESS);

    /* a holder that never lets go: refused, nothing changed */
    setenv("EMUNIC_PAMI_DESTROY_WAIT", "1", 1);
    pthread_t th;
    struct holder h1 = {c1, NULL};
    atomic_store(&release_holder, 0);
    start_thread(&th, holder_until_released, &h1);
    pt_wait_noadvance(&holder_has_lock, 1, 20);
    pami_context_t both[2] = {c0, c1};
    CHECK_ERR(PAMI_Context_destroyv(both, 2), PAMI_EAGAIN, "PAMI_Context_destroyv");
    CHECK(both[0] == c0 && both[1] == c1, "a refused destroyv changed the caller's array");
    CHECK_RC(PAMI_Context_trylock(c0), PAMI_SUCCESS); /* given back */
    CHECK_RC(PAMI_Context_unlock(c0), PAMI_SUCCESS);
    atomic_store(&release_holder, 1);
    CHECK(pthread_join(th, NULL) == 0, "pthread_join failed");
    struct work w = {.expect = c1};
    CHECK_RC(PAMI_Context_post(c1, &w.w, work_fn, &w), PAMI_SUCCESS);
    pt_wait_noadvance(&w.runs, 1, 30); /* nobody here advances context 1 */
    CHECK_RC(PAMI_Extension_close(ext), PAMI_SUCCESS);
    unsetenv("EMUNIC_PAMI_DESTROY_WAIT");
    pt_barrier();

    /* a holder that lets go later, and then wants context 0 as well
     * before it unlocks context 1: destroyv waits for it without holding
     * context 0 meanwhile (or the two would deadlock), and the holder's
     * unlocks work; context 1's progress thread is stopped */
    struct holder h2 = {c1, c0};
    pthread_t releaser, waiter;
    atomic_store(&release_holder, 0);
    start_thread(&th, holder_until_released, &h2);
    pt_wait_noadvance(&holder_has_lock, 1, 20);
    start_thread(&waiter, lock_waiter, c1); /* a third thread queues for context 1 */
    start_thread(&releaser, release_later, NULL);
    CHECK_RC(PAMI_Context_destroyv(both, 2), PAMI_SUCCESS);
    CHECK(atomic_load(&holder_has_lock) == 0, "PAMI_Context_destroyv did not wait for the holder");
    CHECK(both[0] == PAMI_CONTEXT_NULL && both[1] == PAMI_CONTEXT_NULL, "destroyv left the handles");
    CHECK(pthread_join(th, NULL) == 0, "pthread_join failed"); /* its unlocks were checked there */
    CHECK(pthread_join(releaser, NULL) == 0, "pthread_join failed");
    CHECK(pthread_join(waiter, NULL) == 0, "pthread_join failed");
    /* it had the lock before destroyv (and gave it back), or it woke on the
     * destroyed context, or it came after the destruction */
    CHECK(atomic_load(&waiter_rc) == PAMI_SUCCESS || atomic_load(&waiter_rc) == PAMI_INVAL,
          "a thread waiting for a destroyed context's lock got %d", atomic_load(&waiter_rc));
    CHECK_RC(PAMI_Client_destroy(&pt_client), PAMI_SUCCESS);

    /* the caller's own lock is taken over */
    pt_init(2);
    CHECK_RC(PAMI_Context_lock(pt_ctx[0]), PAMI_SUCCESS);
    pt_finish("pami_context destroy_held");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    if (!strcmp(mode, "multi")) {
        /* one client at a time: 1, 2, 3, 4 contexts */
        for (size_t n = 1; n <= 4; n++) {
            pt_init(n);
            multi(n);
            pt_finish(n == 4 ? "pami_context multi" : "pami_context multi (round)");
        }
        return 0;
    }
    if (!strcmp(mode, "threads")) {
        pt_init(4);
        threads();
        pt_finish("pami_context threads");
        return 0;
    }
    pt_init(2);
    if (!strcmp(mode, "destroy_held")) {
        destroy_held();
        return 0;
    }
    if (!strcmp(mode, "work_advance")) {
        work_advance();
        pt_finish("pami_context work_advance");
        return 0;
    }
    basic();
    pt_finish("pami_context");
    return 0;
}
