/* Sleep/wake hand-shake. The consumer publishes "sleeping" and then
 * re-checks for work; the producer publishes work and then checks
 * "sleeping". With both sides sequentially consistent, at least one of them
 * sees the other, so a wake-up is never lost. */
#include "emunic/waiter.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int64_t emu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void emu_waiter_init(struct emu_waiter *w, int efd)
{
    memset(w, 0, sizeof *w);
    w->efd = efd;
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val,
                  const struct timespec *ts)
{
    /* shared (not FUTEX_PRIVATE): waiter and waker are different processes */
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

_Atomic uint64_t *emu_waiter_ring_counter;

static void count_ring(struct emu_waiter *w)
{
    atomic_fetch_add_explicit(&w->doorbells, 1, memory_order_relaxed);
    if (emu_waiter_ring_counter)
        atomic_fetch_add_explicit(emu_waiter_ring_counter, 1, memory_order_relaxed);
}

void emu_waiter_notify(struct emu_waiter *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&w->sleepers, memory_order_relaxed) == 0)
        return;
    if (atomic_load_explicit(&w->sleeping, memory_order_relaxed) == 0)
        return;
    if (atomic_exchange(&w->sleeping, 0) == 0)
        return; /* another producer rang already */
    count_ring(w);
    atomic_fetch_add(&w->seq, 1);
    futex(&w->seq, FUTEX_WAKE, INT_MAX, NULL);
}

void emu_waiter_notify_fd(struct emu_waiter *w, int efd)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&w->sleeping, memory_order_relaxed) == 0)
        return;
    if (atomic_exchange(&w->sleeping, 0) == 0)
        return; /* another producer rang already */
    count_ring(w);
    if (efd >= 0) {
        uint64_t one = 1;
        ssize_t rc = write(efd, &one, sizeof one);
        (void)rc; /* counter saturation cannot happen: the reader drains */
    }
}

/* Why this is safe with several sleepers: each one reads seq, counts
 * itself, arms, and only then re-checks for work. A producer that skips
 * the ring saw either no sleeper (so every later sleeper's re-check sees
 * its work) or a disarmed flag (so some producer disarmed it after the
 * latest arm and bumps seq after every sleeper read it). Sleepers never
 * disarm, so one returning cannot hide another. */
bool emu_waiter_block(struct emu_waiter *w, bool (*has_work)(void *),
                      void *arg, int64_t timeout_ns)
{
    uint32_t s = atomic_load(&w->seq);
    atomic_fetch_add(&w->sleepers, 1);
    atomic_store(&w->sleeping, 1);
    if (has_work(arg)) {
        atomic_fetch_sub(&w->sleepers, 1);
        return false;
    }
    atomic_fetch_add_explicit(&w->sleeps, 1, memory_order_relaxed);
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / 1000000000;
        ts.tv_nsec = timeout_ns % 1000000000;
        tp = &ts;
    }
    futex(&w->seq, FUTEX_WAIT, s, tp);
    atomic_fetch_sub(&w->sleepers, 1);
    atomic_fetch_add_explicit(&w->wakeups, 1, memory_order_relaxed);
    return true;
}

int64_t emu_poll_budget_ns(unsigned procs_on_host)
{
    const char *e = getenv("EMUNIC_POLL_US");
    if (e && *e) {
        long us = strtol(e, NULL, 10);
        return us < 0 ? 0 : (int64_t)us * 1000;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1)
        cores = 1;
    /* The awaited work needs CPU time that the other processes share, so
     * the expected wait grows with oversubscription; a yield hands the CPU
     * over for ~1 us, a sleep plus wake costs far more (tens of us when a
     * halted vCPU must be woken). Measured: bench/core_scale, 8x8 and 16x16. */
    int64_t rounds = ((int64_t)procs_on_host + cores - 1) / cores;
    int64_t budget = 200000 * (rounds < 1 ? 1 : rounds);
    return budget > 5000000 ? 5000000 : budget;
}
