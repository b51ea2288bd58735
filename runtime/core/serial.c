/* The runtime's application-thread lock (serial.h). Depth is per thread,
 * so a thread re-enters without touching the mutex and never reads
 * another thread's state. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "serial.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int wanted;         /* threads blocked in enter */
static atomic_uint acquisitions;  /* full acquisitions, to see a hand-over */
static _Thread_local int depth;
static atomic_ulong left_runtime; /* releases at every outermost leave */

static void acquire(void)
{
    atomic_fetch_add(&wanted, 1);
    pthread_mutex_lock(&lock);
    atomic_fetch_sub(&wanted, 1);
    atomic_fetch_add(&acquisitions, 1);
}

void armcii_serial_enter(void)
{
    if (depth++ == 0)
        acquire();
}

void armcii_serial_leave(int *unused)
{
    (void)unused;
    if (--depth == 0) {
        atomic_fetch_add_explicit(&left_runtime, 1, memory_order_release);
        pthread_mutex_unlock(&lock);
    }
}

void armcii_serial_observe(void)
{
    (void)atomic_load_explicit(&left_runtime, memory_order_acquire);
}

int armcii_serial_wanted(void)
{
    return atomic_load(&wanted) > 0;
}

void armcii_serial_yield(void)
{
    if (depth == 0 || !armcii_serial_wanted())
        return;
    unsigned seen = atomic_load(&acquisitions);
    pthread_mutex_unlock(&lock);
    /* a mutex is not fair: give the waiter a few chances to take it
     * before competing again (bounded; it may have gone meanwhile) */
    for (int i = 0; i < 64 && atomic_load(&acquisitions) == seen && armcii_serial_wanted(); i++)
        sched_yield();
    acquire();
}
