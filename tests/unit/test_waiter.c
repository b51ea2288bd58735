/* Unit tests of the poll-then-sleep hand-shake (emunic/waiter.h). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "emunic/ring.h"
#include "emunic/waiter.h"

static bool ring_has_work(void *arg)
{
    return emu_ring_ready(arg);
}

static bool never(void *arg)
{
    (void)arg;
    return false;
}

static bool always(void *arg)
{
    (void)arg;
    return true;
}

/* ------------------------------------------------------------------ */

static void test_init(void **state)
{
    (void)state;
    struct emu_waiter w;
    memset(&w, 0xff, sizeof w);
    emu_waiter_init(&w, -1);
    assert_int_equal(atomic_load(&w.sleeping), 0);
    assert_int_equal(w.efd, -1);
    assert_int_equal(atomic_load(&w.wakeups), 0);
    assert_int_equal(atomic_load(&w.doorbells), 0);
    assert_int_equal(atomic_load(&w.sleeps), 0);
    emu_waiter_init(&w, 17);
    assert_int_equal(w.efd, 17);
}

static void test_notify_awake_consumer_is_free(void **state)
{
    (void)state;
    struct emu_waiter w;
    emu_waiter_init(&w, -1);
    uint32_t seq0 = atomic_load(&w.seq);
    for (int i = 0; i < 1000; i++)
        emu_waiter_notify(&w);
    assert_int_equal(atomic_load(&w.doorbells), 0);
    assert_int_equal(atomic_load(&w.seq), seq0);

    /* a consumer that announced sleep gets exactly one doorbell, however
     * many producers notify before it wakes */
    atomic_store(&w.sleepers, 1);
    atomic_store(&w.sleeping, 1);
    emu_waiter_notify(&w);
    assert_int_equal(atomic_load(&w.doorbells), 1);
    assert_int_not_equal(atomic_load(&w.seq), seq0);
    emu_waiter_notify(&w);
    emu_waiter_notify(&w);
    assert_int_equal(atomic_load(&w.doorbells), 1);
    atomic_store(&w.sleeping, 0);
    emu_waiter_notify(&w);
    assert_int_equal(atomic_load(&w.doorbells), 1);
    /* armed but nobody blocked (a sleeper left): still no doorbell */
    atomic_store(&w.sleepers, 0);
    atomic_store(&w.sleeping, 1);
    emu_waiter_notify(&w);
    assert_int_equal(atomic_load(&w.doorbells), 1);
}

static void test_notify_eventfd(void **state)
{
    (void)state;
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    assert_true(efd >= 0);
    struct emu_waiter w;
    /* the published number is not what is rung: the caller's own is */
    emu_waiter_init(&w, 1);
    uint64_t v = 0;
    /* awake: no write to the eventfd */
    emu_waiter_notify_fd(&w, efd);
    assert_int_equal(read(efd, &v, sizeof v), -1);
    assert_int_equal(errno, EAGAIN);
    assert_int_equal(atomic_load(&w.doorbells), 0);
    /* asleep: the eventfd becomes readable, once */
    atomic_store(&w.sleeping, 1);
    emu_waiter_notify_fd(&w, efd);
    emu_waiter_notify_fd(&w, efd);
    struct pollfd pfd = {.fd = efd, .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 1000), 1);
    assert_int_equal(read(efd, &v, sizeof v), (ssize_t)sizeof v);
    assert_int_equal(v, 1);
    assert_int_equal(atomic_load(&w.doorbells), 1);
    /* the futex flavour never writes to a descriptor, whatever efd says */
    atomic_store(&w.sleeping, 1);
    atomic_store(&w.sleepers, 1);
    emu_waiter_notify(&w);
    assert_int_equal(read(efd, &v, sizeof v), -1);
    assert_int_equal(atomic_load(&w.doorbells), 2);
    close(efd);
}

static void test_block_with_work_returns_at_once(void **state)
{
    (void)state;
    struct emu_waiter w;
    emu_waiter_init(&w, -1);
    int64_t t0 = emu_now_ns();
    assert_false(emu_waiter_block(&w, always, NULL, -1));
    assert_false(emu_waiter_block(&w, always, NULL, 5000000000ll));
    assert_true(emu_now_ns() - t0 < 1000000000ll);
    assert_int_equal(atomic_load(&w.sleepers), 0);
    assert_int_equal(atomic_load(&w.sleeps), 0);
    assert_int_equal(atomic_load(&w.wakeups), 0);
}

static void test_block_timeout(void **state)
{
    (void)state;
    struct emu_waiter w;
    emu_waiter_init(&w, -1);
    const int64_t to = 50 * 1000000ll;
    for (int i = 0; i < 3; i++) {
        int64_t t0 = emu_now_ns();
        assert_true(emu_waiter_block(&w, never, NULL, to));
        int64_t dt = emu_now_ns() - t0;
        if (dt < to * 8 / 10 || dt > 2000000000ll)
            fail_msg("block with a 50 ms timeout returned after %lld ns", (long long)dt);
        assert_int_equal(atomic_load(&w.sleepers), 0);
    }
    assert_int_equal(atomic_load(&w.sleeps), 3);
    assert_int_equal(atomic_load(&w.wakeups), 3);
    assert_int_equal(atomic_load(&w.doorbells), 0);
    /* a longer timeout too (seconds field) */
    int64_t t0 = emu_now_ns();
    assert_true(emu_waiter_block(&w, never, NULL, 1100 * 1000000ll));
    int64_t dt = emu_now_ns() - t0;
    assert_true(dt >= 1000 * 1000000ll && dt < 5000 * 1000000ll);
}

/* ------------------------------------------------------------------ */
/* hand-offs between two threads                                       */

#define HANDOFFS 10000u
#define LOST_NS (4 * 1000000000ll) /* a block this long means a lost wake */

struct pingpong {
    void *ring_mem;
    struct emu_waiter w;
    _Atomic uint64_t received;
    _Atomic int done;
    uint64_t notifies, block_calls, slept, lost, bad_order;
    uint64_t forced_sleep_rounds;
};

static void *consumer(void *p)
{
    struct pingpong *pp = p;
    struct emu_ring r;
    if (emu_ring_attach(&r, pp->ring_mem, 16) != 0) {
        pp->bad_order++;
        atomic_store(&pp->done, 1);
        return NULL;
    }
    uint64_t next = 0;
    while (next < HANDOFFS) {
        struct emu_msg m;
        if (emu_ring_pop(&r, &m) == 0) {
            if (m.cookie != next)
                pp->bad_order++;
            next++;
            atomic_store(&pp->received, next);
            continue;
        }
        /* a brief poll, then sleep (like the real consumers do) */
        int found = 0;
        for (int i = 0; i < 2 && !found; i++) {
            sched_yield();
            found = emu_ring_ready(&r);
        }
        if (found)
            continue;
        pp->block_calls++;
        int64_t t0 = emu_now_ns();
        bool slept = emu_waiter_block(&pp->w, ring_has_work, &r, 2 * LOST_NS);
        if (slept) {
            pp->slept++;
            if (emu_now_ns() - t0 >= LOST_NS)
                pp->lost++;
        }
    }
    atomic_store(&pp->done, 1);
    return NULL;
}

static void *producer(void *p)
{
    struct pingpong *pp = p;
    struct emu_ring r;
    if (emu_ring_attach(&r, pp->ring_mem, 16) != 0)
        return NULL;
    for (uint64_t i = 0; i < HANDOFFS; i++) {
        if (atomic_load(&pp->done))
            break;
        if (i % 3 == 0) {
            /* make sure the consumer is (about to be) asleep: this is the
             * doorbell path */
            int64_t t0 = emu_now_ns();
            while (!atomic_load(&pp->w.sleepers) &&
                   emu_now_ns() - t0 < 200 * 1000000ll)
                sched_yield();
            if (atomic_load(&pp->w.sleepers))
                pp->forced_sleep_rounds++;
        } else if (i % 3 == 1) {
            for (uint64_t k = 0; k < i % 5; k++)
                sched_yield();
        }
        struct emu_msg m;
        memset(&m, 0, sizeof m);
        m.cookie = i;
        while (emu_ring_push(&r, &m) != 0)
            sched_yield();
        emu_waiter_notify(&pp->w);
        pp->notifies++;
        /* hand-off: wait until it has been taken */
        while (atomic_load(&pp->received) <= i && !atomic_load(&pp->done))
            sched_yield();
    }
    return NULL;
}

static void test_no_lost_wakeup(void **state)
{
    (void)state;
    struct pingpong *pp = calloc(1, sizeof *pp);
    assert_non_null(pp);
    assert_int_equal(posix_memalign(&pp->ring_mem, 64, emu_ring_bytes(16)), 0);
    emu_ring_format(pp->ring_mem, 16);
    emu_waiter_init(&pp->w, -1);

    pthread_t c, p;
    int64_t t0 = emu_now_ns();
    assert_int_equal(pthread_create(&c, NULL, consumer, pp), 0);
    assert_int_equal(pthread_create(&p, NULL, producer, pp), 0);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 90; /* generous overall bound */
    int rc = pthread_timedjoin_np(c, NULL, &dl);
    if (rc != 0)
        fail_msg("consumer still waiting after 90 s: %llu of %u received (lost wake-up)",
                 (unsigned long long)atomic_load(&pp->received), HANDOFFS);
    assert_int_equal(pthread_join(p, NULL), 0);
    int64_t dt = emu_now_ns() - t0;

    assert_int_equal(atomic_load(&pp->received), HANDOFFS);
    assert_int_equal(pp->bad_order, 0);
    assert_int_equal(pp->lost, 0);
    assert_int_equal(pp->notifies, HANDOFFS);
    uint64_t doorbells = atomic_load(&pp->w.doorbells);
    uint64_t sleeps = atomic_load(&pp->w.sleeps);
    uint64_t wakeups = atomic_load(&pp->w.wakeups);
    /* the counters agree with what the consumer saw */
    assert_int_equal(sleeps, pp->slept);
    assert_int_equal(wakeups, pp->slept);
    /* a doorbell only for an announced sleep, never more than notifies */
    assert_true(doorbells <= pp->block_calls);
    assert_true(doorbells <= pp->notifies);
    /* the forced-sleep rounds did go through the doorbell */
    assert_true(pp->forced_sleep_rounds > 0);
    assert_true(doorbells > 0);
    assert_int_equal(atomic_load(&pp->w.sleepers), 0);
    print_message("%u hand-offs in %.1f ms: %llu blocks, %llu sleeps, %llu doorbells\n",
                  HANDOFFS, dt / 1e6, (unsigned long long)pp->block_calls,
                  (unsigned long long)sleeps, (unsigned long long)doorbells);
    free(pp->ring_mem);
    free(pp);
}

/* The futex lives in shared memory and wakes a sleeper in another
 * process. */
struct xproc {
    struct emu_waiter w;
    _Atomic int flag;
    _Atomic int64_t woke_at;
};

static bool flag_set(void *arg)
{
    return atomic_load((_Atomic int *)arg) != 0;
}

static void test_cross_process(void **state)
{
    (void)state;
    struct xproc *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(s != MAP_FAILED);
    emu_waiter_init(&s->w, -1);
    atomic_store(&s->flag, 0);
    atomic_store(&s->woke_at, 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int64_t t0 = emu_now_ns();
        while (!flag_set(&s->flag) && emu_now_ns() - t0 < 20000000000ll)
            emu_waiter_block(&s->w, flag_set, &s->flag, 10000000000ll);
        atomic_store(&s->woke_at, emu_now_ns());
        _exit(flag_set(&s->flag) ? 0 : 1);
    }
    /* wait until the child announced sleep, then give it time to block */
    int64_t t0 = emu_now_ns();
    while (!atomic_load(&s->w.sleepers) && emu_now_ns() - t0 < 10000000000ll)
        sched_yield();
    assert_int_equal(atomic_load(&s->w.sleepers), 1);
    struct timespec d = {0, 30 * 1000000};
    nanosleep(&d, NULL);
    int64_t t_notify = emu_now_ns();
    atomic_store(&s->flag, 1);
    emu_waiter_notify(&s->w);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    int64_t lat = atomic_load(&s->woke_at) - t_notify;
    if (lat > 2000000000ll)
        fail_msg("sleeper in another process woke %lld ns after notify", (long long)lat);
    assert_int_equal(atomic_load(&s->w.doorbells), 1);
    assert_true(atomic_load(&s->w.sleeps) >= 1);
    assert_int_equal(atomic_load(&s->w.wakeups), atomic_load(&s->w.sleeps));
    munmap(s, sizeof *s);
}

/* Two threads of one process on one waiter: one sleeps for a long time,
 * the other keeps blocking and returning at once (it always has work).
 * The busy one must not hide the sleeper from the producer, which once
 * made the sleeper miss its doorbell and wait out its whole timeout. */
struct two {
    struct emu_waiter w;
    _Atomic int flag, stop;
    _Atomic int64_t woke_at;
};

static void *long_sleeper(void *p)
{
    struct two *t = p;
    int64_t t0 = emu_now_ns();
    while (!flag_set(&t->flag) && emu_now_ns() - t0 < 20000000000ll)
        emu_waiter_block(&t->w, flag_set, &t->flag, 10000000000ll);
    atomic_store(&t->woke_at, emu_now_ns());
    return NULL;
}

static void *busy_blocker(void *p)
{
    struct two *t = p;
    while (!atomic_load(&t->stop)) {
        emu_waiter_block(&t->w, always, NULL, -1);
        sched_yield();
    }
    return NULL;
}

static void test_two_threads_one_waiter(void **state)
{
    (void)state;
    struct two *t = calloc(1, sizeof *t);
    assert_non_null(t);
    emu_waiter_init(&t->w, -1);
    pthread_t a, b;
    assert_int_equal(pthread_create(&a, NULL, long_sleeper, t), 0);
    int64_t t0 = emu_now_ns();
    while (!atomic_load(&t->w.sleeps) && emu_now_ns() - t0 < 10000000000ll)
        sched_yield();
    assert_int_equal(pthread_create(&b, NULL, busy_blocker, t), 0);
    struct timespec d = {0, 50 * 1000000};
    nanosleep(&d, NULL); /* the busy thread has come and gone many times */
    int64_t t_notify = emu_now_ns();
    atomic_store(&t->flag, 1);
    emu_waiter_notify(&t->w);
    assert_int_equal(pthread_join(a, NULL), 0);
    atomic_store(&t->stop, 1);
    assert_int_equal(pthread_join(b, NULL), 0);
    int64_t lat = atomic_load(&t->woke_at) - t_notify;
    if (lat > 2000000000ll)
        fail_msg("the sleeper woke %lld ns after notify (its doorbell was lost)", (long long)lat);
    assert_int_equal(atomic_load(&t->w.sleepers), 0);
    free(t);
}

static void test_poll_budget(void **state)
{
    (void)state;
    unsetenv("EMUNIC_POLL_US");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t b1 = emu_poll_budget_ns(1);
    /* one process per core: 200 us */
    assert_int_equal(b1, 200000);
    assert_int_equal(emu_poll_budget_ns((unsigned)cores), 200000);
    /* 200 us per round of the cores the processes need, capped at 5 ms:
     * never shorter with more processes */
    int64_t prev = b1;
    for (unsigned n = 2; n <= 300; n++) {
        int64_t b = emu_poll_budget_ns(n);
        int64_t rounds = ((int64_t)n + cores - 1) / cores;
        int64_t want = 200000 * rounds > 5000000 ? 5000000 : 200000 * rounds;
        assert_int_equal(b, want);
        assert_true(b >= prev);
        prev = b;
    }
    if (cores < 20)
        assert_true(emu_poll_budget_ns(20) > b1);
    assert_int_equal(emu_poll_budget_ns(100000), 5000000);
    setenv("EMUNIC_POLL_US", "7", 1);
    assert_int_equal(emu_poll_budget_ns(1), 7000);
    assert_int_equal(emu_poll_budget_ns(50), 7000);
    setenv("EMUNIC_POLL_US", "0", 1);
    assert_int_equal(emu_poll_budget_ns(3), 0);
    unsetenv("EMUNIC_POLL_US");
    assert_int_equal(emu_poll_budget_ns(1), b1);
}

static void test_now(void **state)
{
    (void)state;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ref = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
    int64_t a = emu_now_ns();
    assert_true(a >= ref && a - ref < 1000000000ll);
    int64_t prev = a;
    for (int i = 0; i < 1000; i++) {
        int64_t b = emu_now_ns();
        assert_true(b >= prev);
        prev = b;
    }
    struct timespec d = {0, 20 * 1000000};
    nanosleep(&d, NULL);
    assert_true(emu_now_ns() - a >= 20 * 1000000ll);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init),
        cmocka_unit_test(test_notify_awake_consumer_is_free),
        cmocka_unit_test(test_notify_eventfd),
        cmocka_unit_test(test_block_with_work_returns_at_once),
        cmocka_unit_test(test_block_timeout),
        cmocka_unit_test(test_no_lost_wakeup),
        cmocka_unit_test(test_cross_process),
        cmocka_unit_test(test_two_threads_one_waiter),
        cmocka_unit_test(test_poll_budget),
        cmocka_unit_test(test_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
