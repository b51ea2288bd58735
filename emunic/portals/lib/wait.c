/* Reading event queues and counters that the NIC writes in our heap, and
 * waiting on them with the core's poll-then-sleep discipline (the NIC
 * rings this rank's doorbell after every write). */
#include <string.h>

#include "emunic/waiter.h"
#include "state.h"

static int64_t timeout_ns(ptl_time_t ms)
{
    return ms == PTL_TIME_FOREVER ? -1 : (int64_t)ms * 1000000;
}

/* PtlAbort ends the waits in progress when it is called (PTL_ABORTED); a
 * wait that starts while they are still leaving returns PTL_ABORTED too,
 * and once the last has left, waits work again. */
static _Atomic int waiting;

void pl_abort_waits(void)
{
    if (atomic_load(&waiting) > 0) {
        atomic_store(&pl.aborted, 1);
        emunic_ring_self(); /* the sleeping ones re-check */
    }
}

static int leave(int rc)
{
    if (atomic_fetch_sub(&waiting, 1) == 1)
        atomic_store(&pl.aborted, 0);
    return rc;
}

/* Try every object; while none is ready, wait until one may be or the
 * timeout passes. try_all returns a Portals code, or -1 for "none yet";
 * may_be_ready is the cheap check the sleeping wait re-evaluates. */
static int poll_loop(int (*try_all)(void *), int (*may_be_ready)(void *), void *arg, ptl_time_t timeout,
                     int timeout_rc)
{
    int64_t t = timeout_ns(timeout);
    int64_t end = t < 0 ? -1 : emu_now_ns() + t;
    if (atomic_load(&pl.aborted))
        return PTL_ABORTED;
    atomic_fetch_add(&waiting, 1);
    for (;;) {
        if (atomic_load(&pl.aborted))
            return leave(PTL_ABORTED);
        int rc = try_all(arg);
        if (rc >= 0)
            return leave(rc);
        int64_t left = end < 0 ? -1 : end - emu_now_ns();
        if (end >= 0 && left <= 0)
            return leave(timeout_rc);
        if (emunic_wait_until(may_be_ready, arg, left) < 0)
            return leave(PTL_FAIL);
    }
}

/* ---- event queues ---- */

static bool eq_ready(const struct ptlx_eq_shm *q)
{
    return atomic_load_explicit(&((struct ptlx_eq_shm *)q)->head, memory_order_relaxed) !=
           atomic_load_explicit(&((struct ptlx_eq_shm *)q)->tail, memory_order_acquire);
}

/* Take one event; several threads may race for it (CAS on head). The NIC
 * never writes a slot the rank has not released. */
static int eq_take(struct ptlx_eq_shm *q, ptl_event_t *ev)
{
    uint64_t h = atomic_load(&q->head);
    for (;;) {
        if (h == atomic_load_explicit(&q->tail, memory_order_acquire))
            return PTL_EQ_EMPTY;
        ptl_event_t e = q->ev[h % q->count];
        if (atomic_compare_exchange_weak(&q->head, &h, h + 1)) {
            if (ev)
                *ev = e;
            return atomic_exchange(&q->dropped, 0) ? PTL_EQ_DROPPED : PTL_OK;
        }
    }
}

int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t *event)
{
    PL_NEED_INIT;
    int i = pl_eq_of(eq_handle);
    if (i < 0 || !event)
        return PTL_ARG_INVALID;
    return eq_take(pl.eq[i].shm, event);
}

struct eq_set {
    const ptl_handle_eq_t *h;
    unsigned n;
    ptl_event_t *event;
    unsigned *which;
};

static int any_eq_ready(void *p)
{
    struct eq_set *s = p;
    if (atomic_load(&pl.aborted))
        return 1;
    for (unsigned k = 0; k < s->n; k++) {
        int i = pl_eq_of(s->h[k]);
        if (i < 0 || eq_ready(pl.eq[i].shm))
            return 1; /* a freed EQ ends the wait too: the caller reports it */
    }
    return 0;
}

static int eq_try(void *p)
{
    struct eq_set *s = p;
    for (unsigned k = 0; k < s->n; k++) {
        int i = pl_eq_of(s->h[k]);
        if (i < 0)
            return PTL_FAIL; /* freed under us (valid on entry): 4.3 dropped PTL_INTERRUPTED */
        int rc = eq_take(pl.eq[i].shm, s->event);
        if (rc != PTL_EQ_EMPTY) {
            *s->which = k;
            return rc;
        }
    }
    return -1;
}

int PtlEQPoll(const ptl_handle_eq_t *eq_handles, unsigned int size, ptl_time_t timeout,
              ptl_event_t *event, unsigned int *which)
{
    PL_NEED_INIT;
    if (!eq_handles || !size || !event || !which)
        return PTL_ARG_INVALID;
    for (unsigned k = 0; k < size; k++)
        if (pl_eq_of(eq_handles[k]) < 0)
            return PTL_ARG_INVALID;
    struct eq_set s = {eq_handles, size, event, which};
    return poll_loop(eq_try, any_eq_ready, &s, timeout, PTL_EQ_EMPTY);
}

int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t *event)
{
    PL_NEED_INIT;
    unsigned which;
    return PtlEQPoll(&eq_handle, 1, PTL_TIME_FOREVER, event, &which);
}

/* ---- counters ---- */

static ptl_ct_event_t ct_read(const struct ptlx_ct_shm *c)
{
    ptl_ct_event_t e;
    e.success = atomic_load(&((struct ptlx_ct_shm *)c)->success);
    e.failure = atomic_load(&((struct ptlx_ct_shm *)c)->failure);
    return e;
}

int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t *event)
{
    PL_NEED_INIT;
    int i = pl_ct_of(ct_handle);
    if (i < 0 || !event)
        return PTL_ARG_INVALID;
    *event = ct_read(pl.ct[i].shm);
    return PTL_OK;
}

struct ct_set {
    const ptl_handle_ct_t *h;
    const ptl_size_t *tests;
    unsigned n;
    ptl_ct_event_t *event;
    unsigned *which;
};

/* A wait is over when the successes reach the test or anything failed
 * (triggered operations, in contrast, fire on success + failure). */
static int reached(const ptl_ct_event_t *e, ptl_size_t test)
{
    return e->success >= test || e->failure != 0;
}

/* Returns the index of a counter that reached its test (its value in
 * *out), -1 if none, -2 if a handle went stale. */
static int ct_first_reached(const struct ct_set *s, ptl_ct_event_t *out)
{
    for (unsigned k = 0; k < s->n; k++) {
        int i = pl_ct_of(s->h[k]);
        if (i < 0)
            return -2;
        ptl_ct_event_t e = ct_read(pl.ct[i].shm);
        if (reached(&e, s->tests[k])) {
            *out = e;
            return (int)k;
        }
    }
    return -1;
}

static int any_ct_reached(void *p)
{
    ptl_ct_event_t e;
    return atomic_load(&pl.aborted) || ct_first_reached(p, &e) != -1;
}

static int ct_try(void *p)
{
    struct ct_set *s = p;
    ptl_ct_event_t e;
    int k = ct_first_reached(s, &e);
    if (k == -2)
        return PTL_FAIL; /* freed under us (valid on entry): 4.3 dropped PTL_INTERRUPTED */
    if (k < 0)
        return -1;
    *s->event = e;
    *s->which = (unsigned)k;
    return PTL_OK;
}

int PtlCTPoll(const ptl_handle_ct_t *ct_handles, const ptl_size_t *tests, unsigned int size,
              ptl_time_t timeout, ptl_ct_event_t *event, unsigned int *which)
{
    PL_NEED_INIT;
    if (!ct_handles || !tests || !size || !event || !which)
        return PTL_ARG_INVALID;
    for (unsigned k = 0; k < size; k++)
        if (pl_ct_of(ct_handles[k]) < 0)
            return PTL_ARG_INVALID;
    struct ct_set s = {ct_handles, tests, size, event, which};
    return poll_loop(ct_try, any_ct_reached, &s, timeout, PTL_CT_NONE_REACHED);
}

int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t *event)
{
    PL_NEED_INIT;
    unsigned which;
    if (!event)
        return PTL_ARG_INVALID;
    return PtlCTPoll(&ct_handle, &test, 1, PTL_TIME_FOREVER, event, &which);
}
