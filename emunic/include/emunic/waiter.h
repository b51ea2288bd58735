/* Poll briefly, then sleep: the one waiting discipline of emunic.
 *
 * A consumer announces sleep in shared memory, re-checks its queues and
 * only then blocks; a producer that sees the announcement rings the
 * doorbell. Ranks block on a futex in shared memory, NIC daemons on their
 * eventfd (through io_uring, see nicd). Producers never make a system call
 * while the consumer is awake, which is what keeps the hot path cheap. */
#ifndef EMUNIC_WAITER_H
#define EMUNIC_WAITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct emu_waiter {
    /* eventfd flavour: 1 while the (single) consumer blocks. Futex
     * flavour: 1 = armed, the next producer must ring (a sleeper arms it,
     * the ringing producer disarms it, nobody else writes it). */
    _Alignas(64) _Atomic uint32_t sleeping;
    _Atomic uint32_t seq;                    /* futex word, bumped per ring */
    /* eventfd doorbell (a NIC daemon's), or -1: shown to tools only. A
     * producer rings its own private copy of the descriptor
     * (emu_waiter_notify_fd): a number read from shared memory that any
     * rank can write would make every producer write to whatever file
     * that number is open as in its process. */
    int32_t efd;
    _Atomic uint32_t sleepers;               /* futex flavour: threads in emu_waiter_block */
    _Atomic uint64_t wakeups;   /* times the consumer returned from a block */
    _Atomic uint64_t doorbells; /* times a producer had to ring */
    _Atomic uint64_t sleeps;    /* times the consumer went to block */
    _Atomic uint64_t yields;    /* sched_yield calls while polling */
};

void emu_waiter_init(struct emu_waiter *w, int efd);

/* Producer side, after publishing work: ring only if the consumer sleeps.
 * emu_waiter_notify wakes futex sleepers (emu_waiter_block); never an
 * eventfd. emu_waiter_notify_fd rings a consumer that blocks on an eventfd
 * (a NIC daemon): efd is the producer's own descriptor for it (< 0: only
 * the flag is cleared). */
void emu_waiter_notify(struct emu_waiter *w);
void emu_waiter_notify_fd(struct emu_waiter *w, int efd);

/* If set, every ring this process makes is also counted here (the NIC
 * daemon points it at its counters' doorbells). Set before any ring. */
extern _Atomic uint64_t *emu_waiter_ring_counter;

/* Consumer side, futex flavour. Call when polling found nothing for a
 * while. Blocks until notified, timeout_ns passes (<0: forever) or
 * has_work(arg) turns true on the re-check. Returns true if it slept.
 * Several threads of one process may block on one waiter (a rank's
 * application thread and its runtime's helper): a ring wakes them all,
 * and no thread's return can hide another's sleep from the producers. */
bool emu_waiter_block(struct emu_waiter *w, bool (*has_work)(void *),
                      void *arg, int64_t timeout_ns);

/* Adaptive polling budget in nanoseconds: how long a consumer keeps
 * yield-polling after its last piece of work before it blocks: 200 us per
 * round of the host's cores the job's processes need (200 us when each has
 * a core), at most 5 ms. Longer when oversubscribed, because the awaited
 * work then waits its turn too, and a sched_yield is far cheaper than a
 * sleep and a wake-up. EMUNIC_POLL_US overrides. */
int64_t emu_poll_budget_ns(unsigned procs_on_host);

int64_t emu_now_ns(void); /* CLOCK_MONOTONIC */

#endif
