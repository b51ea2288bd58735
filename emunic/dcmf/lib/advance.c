/* Progress: DCMF_Messager_advance runs every callback, for completions of
 * this rank's operations and for arrivals. The injection FIFO is counted
 * here, and in interrupt mode a thread woken by the NIC's doorbell runs
 * the same dispatch inside the critical section, as BG/P's interrupt
 * handlers did. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcmf_lib.h"
#include "emunic/slice.h"

#define BATCH 32
/* An advance that finds nothing this long after the last event sleeps on
 * the doorbell (up to dcmfl.idle_sleep_ns) instead of returning at once,
 * so a client spinning on advance does not hold a core forever. A client
 * polling memory that a peer's Put fills gets no doorbell: it sees the data
 * up to one sleep late (EMUNIC_DCMF_IDLE_SLEEP_US=0 turns sleeping off). */
#define IDLE_SPIN_NS 200000

static int64_t last_event_ns;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A completion: of one of our operations (its FIFO slot is the cookie),
 * or of a long receive (the receive request is). */
static void on_done(const struct emu_msg *c)
{
    if (!c->cookie)
        return; /* a dropped message's payload, released */
    if (dcmfl_fifo_done(c))
        return;
    struct dcmfl_req *r = (struct dcmfl_req *)(uintptr_t)c->cookie;
    if (!dcmfl_busy_has(r) || r->magic != DCMFL_REQ_MAGIC || r->kind != DCMFL_R_RECV) {
        fprintf(stderr, "emunic dcmf: rank %u: completion for an unknown request %p dropped\n",
                dcmfl.rank, (void *)r);
        return;
    }
    dcmfl_recv_done(r, c->status);
}

static void dispatch(const struct emu_msg *m)
{
    if (m->op == EMU_CQ_DONE) {
        on_done(m);
    } else if (m->op == EMU_CQ_AM) {
        unsigned kind = (unsigned)(m->imm >> 16);
        if (kind == DCMFL_AM_CONTROL)
            dcmfl_on_control(m);
        else
            dcmfl_on_send(m); /* client and internal send protocols */
    } else {
        fprintf(stderr, "emunic dcmf: rank %u: unexpected completion kind %u dropped\n",
                dcmfl.rank, m->op);
    }
}

/* ---- completions of operations that finished inside their own call ---- */

struct later {
    struct later *next;
    DCMF_Callback_t cb;
    const void *req;
    DCMF_Result err;
};

static void call_back(DCMF_Callback_t cb, DCMF_Result err)
{
    DCMF_Error_t e = {err};
    if (cb.function)
        cb.function(cb.clientdata, err == DCMF_SUCCESS ? NULL : &e);
}

static struct later *later_head, **later_tail = &later_head;

void dcmfl_later(DCMF_Callback_t cb, const void *req, DCMF_Result err)
{
    struct later *l = malloc(sizeof *l);
    if (!l) { /* cannot wait for advance: call back now rather than never */
        fprintf(stderr, "emunic dcmf: rank %u: out of memory; a completion is called back early\n",
                dcmfl.rank);
        if (req)
            dcmfl_busy_del(req);
        call_back(cb, err);
        return;
    }
    l->next = NULL;
    l->cb = cb;
    l->req = req;
    l->err = err;
    *later_tail = l;
    later_tail = &l->next;
}

static unsigned run_later(void)
{
    struct later *l = later_head; /* callbacks may add more: those wait for the next advance */
    unsigned n = 0;
    later_head = NULL;
    later_tail = &later_head;
    while (l) {
        struct later *next = l->next;
        if (l->req)
            dcmfl_busy_del(l->req);
        DCMF_Callback_t cb = l->cb;
        DCMF_Result err = l->err;
        free(l);
        call_back(cb, err);
        l = next;
        n++;
    }
    return n;
}

void dcmfl_later_fini(void)
{
    while (later_head) {
        struct later *l = later_head;
        later_head = l->next;
        free(l);
    }
    later_tail = &later_head;
}

static _Thread_local int in_irq_thread;

unsigned dcmfl_advance_locked(void)
{
    struct emu_msg buf[BATCH];
    int n;
    dcmfl.dispatch_depth++;
    unsigned total = run_later() + dcmfl_held_dispatch();
    do {
        n = emunic_poll(buf, BATCH);
        for (int i = 0; i < n; i++)
            dispatch(&buf[i]);
        if (n > 0)
            total += (unsigned)n;
        /* finalize waits for the interrupt thread: let it stop between
         * batches rather than after a backlog of any length */
    } while (n == BATCH && !(in_irq_thread && atomic_load(&dcmfl.irq_stop)));
    total += dcmfl_waiting_dispatch();
    dcmfl.dispatch_depth--;
    return total;
}

static int pending(void *arg)
{
    (void)arg;
    return emunic_pending();
}

unsigned DCMF_Messager_advance(void)
{
    if (dcmfl.refs <= 0)
        return 0;
    dcmfl_lock();
    unsigned n = dcmfl_advance_locked();
    int64_t now = mono_ns();
    if (n)
        last_event_ns = now;
    int may_sleep = !n && dcmfl.idle_sleep_ns > 0 && dcmfl.dispatch_depth == 0;
    int idle = may_sleep && now - last_event_ns > IDLE_SPIN_NS;
    dcmfl_unlock();
    /* A client spins on advance; on a host with fewer cores than ranks and
     * NIC daemons, spinning without yielding keeps the NIC itself off the
     * CPU (measured: 200 us per put instead of 5). Next to a thread that
     * never yields, sleep at once (slice.h). */
    if (!n && !idle) {
        if (may_sleep)
            idle = !emu_poll_yield();
        else
            emu_poll_pause();
    }
    /* nothing for a while: sleep until the NIC rings (or briefly) */
    if (idle && emunic_wait_until(pending, NULL, dcmfl.idle_sleep_ns) == 1) {
        dcmfl_lock();
        n = dcmfl_advance_locked();
        last_event_ns = mono_ns();
        dcmfl_unlock();
    }
    return n;
}

unsigned DCMF_Messager_advance_expert(DCMF_Messager_advance_options opt)
{
    if (opt.channel != 0 && opt.channel != DCMF_CHANNEL_ALL) {
        dcmfl_fail(DCMF_INVAL, "DCMF_Messager_advance_expert", "channel %u does not exist (this NIC has 1)", opt.channel);
        return 0;
    }
    return DCMF_Messager_advance();
}

/* ---- interrupt mode ---- */

static void *irq_main(void *arg)
{
    (void)arg;
    in_irq_thread = 1;
    emu_sched_short_slice(); /* wakes ahead of a computing main thread */
    while (!atomic_load(&dcmfl.irq_stop)) {
        int r = emunic_wait_until(pending, NULL, 10000000);
        if (r < 0)
            break; /* NIC gone */
        if (r == 1 && !atomic_load(&dcmfl.irq_stop)) {
            atomic_fetch_add(&dcmfl.irq_wakeups, 1);
            /* timed, so that a stop request is seen even while the
             * caller of DCMF_Messager_finalize holds the section */
            while (!atomic_load(&dcmfl.irq_stop)) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 1000000;
                if (ts.tv_nsec >= 1000000000) {
                    ts.tv_sec++;
                    ts.tv_nsec -= 1000000000;
                }
                if (pthread_mutex_timedlock(&dcmfl.cs, &ts) == 0) {
                    dcmfl_advance_locked();
                    pthread_mutex_unlock(&dcmfl.cs);
                    break;
                }
            }
        }
    }
    return NULL;
}

void dcmfl_irq_start(void)
{
    if (dcmfl.irq_running)
        return;
    atomic_store(&dcmfl.irq_stop, 0);
    if (pthread_create(&dcmfl.irq, NULL, irq_main, NULL) != 0) {
        fprintf(stderr, "emunic dcmf: rank %u: cannot start the interrupt thread; interrupts stay off\n", dcmfl.rank);
        dcmfl.cfg.interrupts = DCMF_INTERRUPTS_OFF;
        return;
    }
    dcmfl.irq_running = 1;
}

void dcmfl_irq_stop(void)
{
    if (!dcmfl.irq_running)
        return;
    atomic_store(&dcmfl.irq_stop, 1);
    pthread_join(dcmfl.irq, NULL);
    dcmfl.irq_running = 0;
}
