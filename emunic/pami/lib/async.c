/* EXT_async_progress: a progress thread per context, as BG/Q's commthreads.
 * It sleeps on the rank's doorbell while the context has nothing to do, and
 * when work arrives it runs the client's progress function (which takes the
 * context lock itself) or, without one, advances the context under its
 * lock. The client's suspend and resume functions bracket each sleep. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pami_lib.h"
#include "emunic/slice.h"

struct pamil_async {
    pami_async_function progress_fn, suspend_fn, resume_fn;
    void *cookie;
    pthread_t thread;
    int running;
    atomic_int stop;
    _Atomic uint64_t wakeups;
    int creator_cpu;
};

static struct pamil_async *async_of(struct pamil_context *c)
{
    if (!c->async)
        c->async = calloc(1, sizeof *c->async);
    return c->async;
}

static int work_or_stop(void *arg)
{
    struct pamil_context *c = arg;
    return atomic_load(&c->async->stop) || pamil_has_work(c);
}

/* BG/Q runs a commthread on a hardware thread of its own. Here the thread
 * keeps off the CPU its creator was on: left to itself, the scheduler wakes
 * it next to a computing main thread, behind a full time slice (measured:
 * fetch-and-add by AM took 1.4-4.7 ms instead of tens of us). */
static void keep_off(int cpu)
{
    cpu_set_t set;
    if (cpu < 0 || sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return;
    CPU_CLR(cpu, &set);
    sched_setaffinity(0, sizeof set, &set); /* best effort */
}

static void *progress_main(void *arg)
{
    struct pamil_context *c = arg;
    struct pamil_async *a = c->async;
    keep_off(a->creator_cpu);
    emu_sched_short_slice_or(100); /* and wakes ahead of a spinning main thread */
    while (!atomic_load(&a->stop)) {
        if (!pamil_has_work(c)) {
            if (a->suspend_fn)
                a->suspend_fn(c, a->cookie);
            int r = emunic_wait_until(work_or_stop, c, 10000000);
            if (a->resume_fn)
                a->resume_fn(c, a->cookie);
            if (r < 0)
                break; /* the NIC is gone */
            atomic_fetch_add(&a->wakeups, 1);
            continue;
        }
        uint64_t before = atomic_load(&c->events);
        if (a->progress_fn) {
            a->progress_fn(c, a->cookie);
        } else if (PAMI_Context_trylock(c) == PAMI_SUCCESS) {
            pamil_advance_once(c);
            PAMI_Context_unlock(c);
        }
        if (atomic_load(&c->events) == before) {
            /* the lock's holder is advancing, or the work is not ours yet:
             * back off briefly instead of spinning on a shared core */
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static pami_result_t async_register(pami_context_t context, pami_async_function progress_fn,
                                    pami_async_function suspend_fn, pami_async_function resume_fn,
                                    void *cookie)
{
    static const char fn[] = "EXT_async_progress register";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    struct pamil_async *a = async_of(c);
    if (!a)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    if (a->running)
        return pamil_fail(PAMI_INVAL, fn, "disable async progress before registering again");
    a->progress_fn = progress_fn;
    a->suspend_fn = suspend_fn;
    a->resume_fn = resume_fn;
    a->cookie = cookie;
    return PAMI_SUCCESS;
}

static pami_result_t start(struct pamil_context *c, const char *fn)
{
    struct pamil_async *a = c->async;
    atomic_store(&a->stop, 0);
    a->creator_cpu = sched_getcpu();
    emunic_expect_hogs(); /* the main thread may now spin while we work */
    if (pthread_create(&a->thread, NULL, progress_main, c) != 0)
        return pamil_fail(PAMI_ERROR, fn, "cannot start the progress thread");
    a->running = 1;
    return PAMI_SUCCESS;
}

static pami_result_t async_enable(pami_context_t context, pami_async_t event_type)
{
    static const char fn[] = "EXT_async_progress enable";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (event_type != PAMI_ASYNC_ALL && event_type != PAMI_ASYNC_RECV_INTERRUPT && event_type != PAMI_ASYNC_TIMER)
        return pamil_fail(PAMI_INVAL, fn, "event type %d is not a pami_async_t", (int)event_type);
    struct pamil_async *a = async_of(c);
    if (!a)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    if (a->running)
        return PAMI_SUCCESS; /* one thread serves every event type */
    return start(c, fn);
}

int pamil_async_pause(struct pamil_context *c)
{
    struct pamil_async *a = c->async;
    if (!a || !a->running)
        return 0;
    atomic_store(&a->stop, 1);
    emunic_ring_self();
    pthread_join(a->thread, NULL);
    a->running = 0;
    return 1;
}

pami_result_t pamil_async_resume(struct pamil_context *c)
{
    if (c->async && !c->async->running)
        return start(c, "PAMI_Context_destroyv (resuming async progress)");
    return PAMI_SUCCESS;
}

void pamil_async_stop(struct pamil_context *c)
{
    pamil_async_pause(c);
    free(c->async);
    c->async = NULL;
}

static pami_result_t async_disable(pami_context_t context, pami_async_t event_type)
{
    static const char fn[] = "EXT_async_progress disable";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (event_type != PAMI_ASYNC_ALL && event_type != PAMI_ASYNC_RECV_INTERRUPT && event_type != PAMI_ASYNC_TIMER)
        return pamil_fail(PAMI_INVAL, fn, "event type %d is not a pami_async_t", (int)event_type);
    pamil_async_pause(c);
    return PAMI_SUCCESS;
}

void *pamil_async_symbol(const char *name)
{
    if (!strcmp(name, "register"))
        return (void *)(uintptr_t)async_register;
    if (!strcmp(name, "enable"))
        return (void *)(uintptr_t)async_enable;
    if (!strcmp(name, "disable"))
        return (void *)(uintptr_t)async_disable;
    return NULL;
}
