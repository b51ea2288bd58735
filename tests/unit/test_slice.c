/* Unit tests of sharing a CPU with threads that never yield
 * (emunic/slice.h): the short slice a NIC thread asks for, and a poll
 * loop that notices a hog and stops yielding to it. No timing is
 * asserted: a hog makes a yield wait for its whole slice however loaded
 * the host is. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "emunic/slice.h"
#include "emunic/waiter.h"

/* The kernel ABI's struct sched_attr (version 1). */
struct attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

static struct attr get_attr(void)
{
    struct attr a;
    memset(&a, 0, sizeof a);
    assert_int_equal(syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0), 0);
    return a;
}

/* Kernels before 6.12 (no EEVDF slice) report 0 for a SCHED_OTHER thread. */
static int kernel_reports_slice(void)
{
    return get_attr().runtime != 0;
}

struct slice_case {
    const char *env; /* EMUNIC_SLICE_US, NULL: unset */
    long or_us;      /* the caller's own slice when env is unset */
    int batch;       /* start under SCHED_BATCH */
    int rc;
    struct attr before, after;
};

static void *slice_thread(void *arg)
{
    struct slice_case *c = arg;
    if (c->batch) {
        struct sched_param p = {0};
        assert_int_equal(pthread_setschedparam(pthread_self(), SCHED_BATCH, &p), 0);
    }
    c->before = get_attr();
    c->rc = c->or_us ? emu_sched_short_slice_or(c->or_us) : emu_sched_short_slice();
    c->after = get_attr();
    return NULL;
}

/* In a thread of its own: the slice is per thread and the test's own
 * must stay as it was. */
static struct slice_case run_case_or(const char *env, int batch, long or_us)
{
    struct slice_case c = {.env = env, .batch = batch, .or_us = or_us};
    if (env)
        setenv("EMUNIC_SLICE_US", env, 1);
    else
        unsetenv("EMUNIC_SLICE_US");
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, slice_thread, &c), 0);
    pthread_join(t, NULL);
    unsetenv("EMUNIC_SLICE_US");
    return c;
}

static struct slice_case run_case(const char *env, int batch) { return run_case_or(env, batch, 0); }

static void test_short_slice(void **state)
{
    (void)state;
    uint64_t mine = get_attr().runtime;
    struct slice_case c = run_case("100", 0);
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.after.policy, SCHED_OTHER);
    assert_int_equal(c.after.nice, c.before.nice);
    if (kernel_reports_slice())
        assert_int_equal(c.after.runtime, 100000);
    assert_int_equal(get_attr().runtime, mine); /* the caller's thread only */

    c = run_case("400", 0);
    assert_int_equal(c.rc, 0);
    if (kernel_reports_slice())
        assert_int_equal(c.after.runtime, 400000);
}

/* A commthread's own slice applies when the variable is unset; the
 * variable, 0 included, still wins. */
static void test_slice_default(void **state)
{
    (void)state;
    struct slice_case c = run_case_or(NULL, 0, 100);
    assert_int_equal(c.rc, 0);
    if (kernel_reports_slice())
        assert_int_equal(c.after.runtime, 100000);
    c = run_case_or("0", 0, 100);
    assert_int_equal(c.rc, 1);
    assert_int_equal(c.after.runtime, c.before.runtime);
    c = run_case_or("400", 0, 100);
    assert_int_equal(c.rc, 0);
    if (kernel_reports_slice())
        assert_int_equal(c.after.runtime, 400000);
}

static void test_slice_left_alone(void **state)
{
    (void)state;
    struct slice_case c = run_case(NULL, 0); /* off by default */
    assert_int_equal(c.rc, 1);
    assert_int_equal(c.after.runtime, c.before.runtime);
    c = run_case("0", 0);
    assert_int_equal(c.rc, 1);

    c = run_case("12us", 0); /* garbage: said, and nothing changes */
    assert_int_equal(c.rc, -EINVAL);
    assert_int_equal(c.after.runtime, c.before.runtime);
    c = run_case("-5", 0);
    assert_int_equal(c.rc, -EINVAL);

    c = run_case("100", 1); /* the user chose a policy */
    assert_int_equal(c.rc, 1);
    assert_int_equal(c.after.policy, SCHED_BATCH);
    assert_int_equal(c.after.runtime, c.before.runtime);
}

static atomic_int spin_stop;
static volatile uint64_t spin_sink;

static void *spinner(void *arg)
{
    (void)arg;
    uint64_t x = 1;
    while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
        spin_sink = x = x * 6364136223846793005u + 1;
    return NULL;
}

static void pin_here(pthread_t t, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    assert_int_equal(pthread_setaffinity_np(t, sizeof set, &set), 0);
}

/* With EMUNIC_HOG_US, a thread that never yields shares this thread's CPU: a yield waits out
 * its slice, emu_poll_yield says so (false) and then refuses to yield
 * for a while, without yielding (false at once). */
static void test_hog_detected(void **state)
{
    (void)state;
    setenv("EMUNIC_HOG_US", "250", 1); /* read at the first poll, below */
    cpu_set_t saved;
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    int cpu = sched_getcpu();
    assert_true(cpu >= 0);
    pin_here(pthread_self(), cpu);
    atomic_store(&spin_stop, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, spinner, NULL), 0);
    pin_here(t, cpu);

    uint64_t hogs0 = emu_poll_hogs();
    int64_t end = emu_now_ns() + 10000000000; /* generous: the first yields may be quick */
    bool seen = false;
    while (!seen && emu_now_ns() < end) {
        seen = !emu_poll_yield();
    }
    assert_true(seen);
    assert_true(emu_poll_hogs() > hogs0);
    /* held: false again, and from the hold (no second count) unless the
     * host kept this thread off the CPU for the whole hold */
    int64_t t0 = emu_now_ns();
    bool again = emu_poll_yield();
    int64_t t1 = emu_now_ns();
    if (t1 - t0 < 50000000) {
        assert_false(again);
        assert_int_equal(emu_poll_hogs(), hogs0 + 1);
    }
    emu_poll_pause(); /* sleeps instead of yielding; returns */

    atomic_store(&spin_stop, 1);
    pthread_join(t, NULL);
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
}

/* In a child (the variable is read once per process, and these must come
 * before the parent's first poll): NULL or the value of EMUNIC_HOG_US.
 * With a hog on this CPU, yields are reported as yields (true) until
 * emu_poll_expect_hogs(); after it, a hog is seen unless the variable
 * said 0. Exits 0 if all held. */
static int expect_child(const char *env)
{
    if (env)
        setenv("EMUNIC_HOG_US", env, 1);
    else
        unsetenv("EMUNIC_HOG_US");
    int cpu = sched_getcpu();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu < 0 ? 0 : cpu, &set);
    pthread_t t;
    if (cpu < 0 || pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0 ||
        pthread_create(&t, NULL, spinner, NULL) != 0)
        return 2;
    if (pthread_setaffinity_np(t, sizeof set, &set) != 0)
        return 3;
    for (int i = 0; i < 20; i++)
        if (!emu_poll_yield())
            return 4; /* detection without being asked */
    emu_poll_expect_hogs();
    bool seen = false;
    int64_t end = emu_now_ns() + (env ? 200000000 : 10000000000);
    while (!seen && emu_now_ns() < end)
        seen = !emu_poll_yield();
    atomic_store(&spin_stop, 1);
    pthread_join(t, NULL);
    if (env ? seen : !seen)
        return 5;
    return emu_poll_hogs() == (env ? 0u : 1u) ? 0 : 6;
}

static void run_expect(const char *env)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(expect_child(env));
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_hogs_expected(void **state)
{
    (void)state;
    run_expect(NULL);
}

static void test_hogs_expected_but_off(void **state)
{
    (void)state;
    run_expect("0");
}

static void test_loadavg_runnable(void **state)
{
    (void)state;
    assert_int_equal(emu_loadavg_runnable("0.15 0.05 0.02 1/123 4567\n"), 1);
    assert_int_equal(emu_loadavg_runnable("24.29 27.60 23.14 17/300 99"), 17);
    assert_int_equal(emu_loadavg_runnable(""), -1);
    assert_int_equal(emu_loadavg_runnable(NULL), -1);
    assert_int_equal(emu_loadavg_runnable("1.0 2.0 3.0 x/y 7"), -1);
    assert_int_equal(emu_loadavg_runnable("1.0 2.0 3.0 5/4 7"), -1);  /* more running than exist */
    assert_int_equal(emu_loadavg_runnable("1.0 2.0 3.0 -1/4 7"), -1);
}

static void test_foreign_load(void **state)
{
    (void)state;
    /* 3 processes (a rank, its daemon, the launcher) may run 6 threads,
     * plus the reader */
    assert_false(emu_foreign_load(7, 3));
    assert_true(emu_foreign_load(8, 3));
    assert_false(emu_foreign_load(-1, 3)); /* unreadable: nothing assumed */
    assert_false(emu_foreign_load(145, 72));
    assert_true(emu_foreign_load(146, 72));
}

/* Two children that spin are runnable whether on a CPU or queued, so a job
 * of none sees them as foreign load whatever the host does: the poll loop
 * then blocks at once (without yielding) and then looks for hogs. */
static void spin_two(pid_t hog[2])
{
    for (int i = 0; i < 2; i++)
        if ((hog[i] = fork()) == 0)
            for (;;)
                ;
}

static void stop_two(const pid_t hog[2])
{
    for (int i = 0; i < 2; i++) {
        kill(hog[i], SIGKILL);
        waitpid(hog[i], NULL, 0);
    }
}

static int foreign_child(void)
{
    pid_t hog[2];
    spin_two(hog);
    int ok = !emu_poll_watch_foreign(UINT32_MAX / 4) && /* a huge job: never foreign */
             emu_poll_yield() &&                          /* detection still off */
             emu_poll_watch_foreign(0) && !emu_poll_yield() && emu_poll_hogs() == 0;
    stop_two(hog);
    return ok ? 0 : 1;
}

/* EMUNIC_HOG_US=0 turns the watch off with detection: it still reports
 * the load, the poll loop goes on yielding. */
static int foreign_off_child(void)
{
    pid_t hog[2];
    spin_two(hog);
    int ok = emu_poll_watch_foreign(0) && emu_poll_yield();
    stop_two(hog);
    return ok ? 0 : 1;
}

static void run_foreign(const char *env, int (*child)(void))
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (env)
            setenv("EMUNIC_HOG_US", env, 1);
        else
            unsetenv("EMUNIC_HOG_US");
        _exit(child());
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_watch_foreign(void **state)
{
    (void)state;
    run_foreign(NULL, foreign_child);
}

static void test_watch_foreign_off(void **state)
{
    (void)state;
    run_foreign("0", foreign_off_child);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hogs_expected), /* these first: before this process polls */
        cmocka_unit_test(test_watch_foreign),
        cmocka_unit_test(test_watch_foreign_off),
        cmocka_unit_test(test_hogs_expected_but_off),
        cmocka_unit_test(test_slice_default),
        cmocka_unit_test(test_short_slice),
        cmocka_unit_test(test_slice_left_alone),
        cmocka_unit_test(test_hog_detected),
        cmocka_unit_test(test_loadavg_runnable),
        cmocka_unit_test(test_foreign_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
