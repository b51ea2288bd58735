/* Contexts: creation, locks, posted work, advance, and the demultiplexer
 * that moves the rank's one completion queue into the contexts' inboxes.
 * Callbacks of a context run only inside its own advance. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emunic/slice.h"
#include "emunic/waiter.h"
#include "pami_lib.h"

pami_context_t PAMI_CONTEXT_NULL = NULL;

#define BATCH 32
#define ADVANCE_POLLS 8 /* polls of one advance call before it yields or sleeps */

struct pamil_work_item {
    struct pamil_work_item *next;
    pami_work_function fn;
    void *cookie;
};
_Static_assert(sizeof(struct pamil_work_item) <= sizeof(pami_work_t), "work storage");

/* ---- handles ---- */

/* Only handles in the clients' lists are looked at: what a caller passes
 * may point anywhere, or at a destroyed context. */
static int live_context(const void *c)
{
    for (unsigned i = 0; i < PAMIL_MAX_CLIENTS; i++) {
        struct pamil_client *cl = pamil.clients[i];
        for (size_t k = 0; cl && k < cl->ncontexts; k++) {
            struct pamil_context *x = cl->ctx[k]; /* once: destroyv clears it */
            if (x == c && x->magic == PAMIL_CTX_MAGIC)
                return 1;
        }
    }
    return 0;
}

struct pamil_context *pamil_context_of(const char *fn, pami_context_t ctx)
{
    struct pamil_context *c = ctx;
    if (!c) {
        pamil_fail(PAMI_INVAL, fn, "the context is PAMI_CONTEXT_NULL");
        return NULL;
    }
    if (live_context(c))
        return c;
    pamil_fail(PAMI_INVAL, fn, "%p is not a live context", ctx);
    return NULL;
}

pami_result_t pamil_check_ep(const char *fn, struct pamil_context *c, pami_endpoint_t ep)
{
    uint32_t task = PAMIL_EP_TASK(ep);
    if (task >= c->client->size)
        return pamil_fail(PAMI_INVAL, fn, "endpoint 0x%x names task %u of %u", ep, task, c->client->size);
    if (PAMIL_EP_OFF(ep) >= c->client->ncontexts)
        return pamil_fail(PAMI_INVAL, fn, "endpoint 0x%x names context %u; tasks have %zu", ep,
                          PAMIL_EP_OFF(ep), c->client->ncontexts);
    return PAMI_SUCCESS;
}

/* ---- operations ---- */

struct pamil_op *pamil_op_new(struct pamil_context *c, unsigned kind)
{
    struct pamil_op *op = calloc(1, sizeof *op);
    if (!op)
        return NULL;
    op->kind = (uint8_t)kind;
    op->ctx = c;
    op->magic = PAMIL_OP_MAGIC; /* last: publishes ctx to the router */
    return op;
}

void pamil_op_pulled(struct pamil_op *op)
{
    op->unpulled = 1;
    atomic_fetch_add(&op->ctx->unpulled, 1);
}

void pamil_op_free(struct pamil_op *op)
{
    if (!op)
        return;
    if (op->unpulled)
        atomic_fetch_sub(&op->ctx->unpulled, 1);
    op->magic = 0;
    free(op->tmp);
    free(op);
}

void pamil_pull_done(struct pamil_op *op); /* send.c */

void pamil_op_event(struct pamil_op *op, unsigned flags, unsigned st, uint64_t imm)
{
    if (st != EMU_OK && op->result == PAMI_SUCCESS)
        op->result = pamil_status_result(st);
    if (op->kind == PAMIL_O_PULL) {
        pamil_pull_done(op); /* takes op over */
        return;
    }
    if (op->kind == PAMIL_O_RMW && op->fetch && st == EMU_OK)
        memcpy(op->fetch, &imm, op->fetch_len);
    pami_context_t ctx = op->ctx;
    if ((flags & EMU_DONE_LOCAL) && op->pend_local && --op->pend_local == 0 && op->local_fn)
        op->local_fn(ctx, op->cookie, (pami_result_t)op->result);
    if ((flags & EMU_DONE_REMOTE) && op->pend_remote && --op->pend_remote == 0 && op->remote_fn)
        op->remote_fn(ctx, op->cookie, (pami_result_t)op->result);
    if (!op->pend_local && !op->pend_remote)
        pamil_op_free(op);
}

/* ---- inbox ---- */

void pamil_inbox_push(struct pamil_context *c, const struct emu_msg *m)
{
    pthread_mutex_lock(&c->inbox_mu);
    if (c->in_n == c->in_cap) {
        size_t cap = c->in_cap ? c->in_cap * 2 : 64;
        struct emu_msg *q = malloc(cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&c->inbox_mu);
            fprintf(stderr, "emunic pami: task %u: out of memory: a completion was lost\n", c->client->task);
            return;
        }
        for (size_t i = 0; i < c->in_n; i++)
            q[i] = c->inbox[(c->in_head + i) % c->in_cap];
        free(c->inbox);
        c->inbox = q;
        c->in_head = 0;
        c->in_cap = cap;
    }
    c->inbox[(c->in_head + c->in_n) % c->in_cap] = *m;
    c->in_n++;
    atomic_store(&c->in_count, c->in_n);
    pthread_mutex_unlock(&c->inbox_mu);
}

static int inbox_pop(struct pamil_context *c, struct emu_msg *out)
{
    if (!atomic_load_explicit(&c->in_count, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&c->inbox_mu);
    int got = c->in_n > 0;
    if (got) {
        *out = c->inbox[c->in_head];
        c->in_head = (c->in_head + 1) % c->in_cap;
        c->in_n--;
        atomic_store(&c->in_count, c->in_n);
    }
    pthread_mutex_unlock(&c->inbox_mu);
    return got;
}

/* ---- demultiplexer ---- */

/* Arrivals for a client or context that does not exist yet (a fast peer
 * may send before this task creates them) wait here, in order. */
static struct emu_msg *held;
static size_t nheld, held_cap;

static struct pamil_context *owner_of_word(uint64_t w)
{
    struct pamil_client *cl = pamil.clients[pamil_w_client(w)];
    if (!cl || !cl->contexts_created || pamil_w_tctx(w) >= cl->ncontexts)
        return NULL;
    return cl->ctx[pamil_w_tctx(w)];
}

/* Where m goes: its context, NULL to hold it; *drop set for garbage. */
static struct pamil_context *owner_of(const struct emu_msg *m, int *drop)
{
    *drop = 0;
    if (m->op == EMU_CQ_DONE) {
        struct pamil_op *op = (struct pamil_op *)(uintptr_t)m->cookie;
        if (!op)
            return (*drop = 1), NULL; /* nobody asked for it */
        if (op->magic != PAMIL_OP_MAGIC) {
            fprintf(stderr, "emunic pami: task %u: completion for an unknown operation %p dropped\n",
                    emunic_rank(), (void *)op);
            return (*drop = 1), NULL;
        }
        return op->ctx;
    }
    if (m->op == EMU_CQ_AM || m->op == EMU_CQ_MODULE) {
        if (pamil_w_kind(m->imm) == 0) {
            fprintf(stderr, "emunic pami: task %u: message with handler %llu is not PAMI's; dropped\n",
                    emunic_rank(), (unsigned long long)m->imm);
            return (*drop = 1), NULL;
        }
        return owner_of_word(m->imm);
    }
    fprintf(stderr, "emunic pami: task %u: unexpected completion kind %u dropped\n", emunic_rank(), m->op);
    return (*drop = 1), NULL;
}

static void hold(const struct emu_msg *m)
{
    if (nheld == held_cap) {
        size_t cap = held_cap ? held_cap * 2 : 32;
        struct emu_msg *q = realloc(held, cap * sizeof *q);
        if (!q) {
            fprintf(stderr, "emunic pami: task %u: out of memory: an early arrival was lost\n", emunic_rank());
            return;
        }
        held = q;
        held_cap = cap;
    }
    held[nheld++] = *m;
}

/* Route one entry; returns the context it went to (or NULL). */
static struct pamil_context *route(const struct emu_msg *m)
{
    int drop;
    struct pamil_context *o = owner_of(m, &drop);
    if (o)
        pamil_inbox_push(o, m);
    else if (!drop)
        hold(m);
    return o;
}

/* Move everything in the rank's queue to its owners' inboxes. One thread
 * at a time; the others find their entries in their inboxes. */
void pamil_drain(struct pamil_context *self)
{
    if (pthread_mutex_trylock(&pamil.demux_mu) != 0)
        return;
    int others = 0;
    if (nheld) { /* held entries first, in order; some may still wait */
        size_t n = nheld;
        struct emu_msg *q = held;
        held = NULL;
        nheld = held_cap = 0;
        for (size_t i = 0; i < n; i++) {
            struct pamil_context *o = route(&q[i]);
            others |= o && o != self;
        }
        free(q);
    }
    struct emu_msg buf[BATCH];
    int n;
    do {
        n = emunic_poll(buf, BATCH);
        for (int i = 0; i < n; i++) {
            struct pamil_context *o = route(&buf[i]);
            others |= o && o != self;
        }
    } while (n == BATCH);
    pthread_mutex_unlock(&pamil.demux_mu);
    if (others)
        emunic_ring_self(); /* another context's thread may sleep */
}

/* ---- advance ---- */

static void dispatch(struct pamil_context *c, const struct emu_msg *m)
{
    if (m->op == EMU_CQ_DONE) {
        pamil_op_event((struct pamil_op *)(uintptr_t)m->cookie, m->flags, m->status, m->imm);
    } else if (m->op == EMU_CQ_AM) {
        pamil_on_am(c, m);
    } else {
        pamil_coll_on_module(c, m);
    }
}

/* Whether m may run an application callback (a send's completion, a
 * dispatch function, a remote-completion notice). An advance stops after
 * such an entry: on IBM's machines a tight advance loop sees a reply's
 * completion before the next message can arrive, and IBM's tests count on
 * that order; here a rank may wake from its idle sleep to both at once. */
static int app_visible(const struct emu_msg *m)
{
    if (m->op == EMU_CQ_DONE) {
        const struct pamil_op *op = (const struct pamil_op *)(uintptr_t)m->cookie;
        return op && op->magic == PAMIL_OP_MAGIC && op->kind != PAMIL_O_INTERNAL && op->kind != PAMIL_O_FREE;
    }
    if (m->op == EMU_CQ_AM) {
        unsigned k = pamil_w_kind(m->imm);
        return k == PAMIL_K_SEND || k == PAMIL_K_LONGHDR || k == PAMIL_K_RACK;
    }
    return 0;
}

static size_t run_work(struct pamil_context *c)
{
    if (!atomic_load_explicit(&c->work_count, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&c->work_mu);
    struct pamil_work_item *list = c->work_head;
    c->work_head = c->work_tail = NULL;
    atomic_store(&c->work_count, 0);
    pthread_mutex_unlock(&c->work_mu);
    size_t n = 0;
    while (list) {
        struct pamil_work_item *w = list;
        list = w->next;
        pami_work_function fn = w->fn;
        void *cookie = w->cookie;
        n++;
        /* EAGAIN: run again at a later advance (the item is the caller's
         * storage and stays valid until its function says it is done) */
        if (fn(c, cookie) == PAMI_EAGAIN) {
            w->next = NULL;
            pthread_mutex_lock(&c->work_mu);
            if (c->work_tail)
                c->work_tail->next = w;
            else
                c->work_head = w;
            c->work_tail = w;
            atomic_fetch_add(&c->work_count, 1);
            pthread_mutex_unlock(&c->work_mu);
        }
    }
    return n;
}

size_t pamil_advance_once(struct pamil_context *c)
{
    c->in_callback++; /* work functions are callbacks too */
    size_t n = run_work(c);
    pamil_drain(c);
    /* only what is there now: callbacks may add more for the next turn */
    size_t todo = atomic_load(&c->in_count);
    struct emu_msg m;
    while (todo-- && inbox_pop(c, &m)) {
        int seen = app_visible(&m);
        dispatch(c, &m);
        n++;
        if (seen)
            break;
    }
    c->in_callback--;
    atomic_fetch_add_explicit(&c->events, n, memory_order_relaxed);
    return n;
}

int pamil_has_work(struct pamil_context *c)
{
    return atomic_load(&c->in_count) || atomic_load(&c->work_count) ||
           (nheld && pamil.clients[0]) || emunic_pending();
}

static int has_work_cb(void *arg)
{
    return pamil_has_work(arg);
}

/* An advance that finds nothing for a while sleeps on the doorbell (up to
 * EMUNIC_PAMI_IDLE_SLEEP_US, default 1 ms) instead of returning at once:
 * PAMI clients spin on advance, and a spinning client keeps the NIC daemons
 * off a 2-core host's CPUs. A client polling memory that a peer's put
 * fills gets no doorbell and sees it up to one sleep late. */
static size_t advance_idle(struct pamil_context *c, size_t maximum)
{
    /* "maximum" polls, but a few at most before yielding: IBM's latency
     * tests pass (size_t)-1, and a task spinning there keeps the NIC
     * daemons that must deliver its message off a small host's CPUs (the
     * caller loops on advance anyway) */
    size_t n = 0;
    for (size_t i = 0; i < maximum && i < ADVANCE_POLLS && n == 0; i++)
        n = pamil_advance_once(c);
    c->advances++;
    int64_t now = emu_now_ns();
    if (n) {
        c->last_event_ns = now;
        return n;
    }
    if (c->in_callback || pamil.idle_sleep_ns <= 0) {
        emu_poll_pause();
        return 0;
    }
    if (now - c->last_event_ns < pamil.poll_ns && emu_poll_yield())
        return 0;
    c->idle_sleeps++;
    if (emunic_wait_until(has_work_cb, c, pamil.idle_sleep_ns) == 1) {
        n = pamil_advance_once(c);
        c->last_event_ns = emu_now_ns();
    }
    return n;
}

pami_result_t PAMI_Context_advance(pami_context_t context, size_t maximum)
{
    struct pamil_context *c = pamil_context_of("PAMI_Context_advance", context);
    if (!c)
        return PAMI_INVAL;
    if (c->in_callback)
        return pamil_fail(PAMI_INVAL, "PAMI_Context_advance", "called from inside a callback of the same context");
    /* PAMI_SUCCESS whether or not anything ran, as IBM's implementations
     * return it (their EAGAIN line is commented out) and as IBM's own tests
     * expect: they treat any other result of an advance as an error */
    advance_idle(c, maximum ? maximum : 1);
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Context_advancev(pami_context_t context[], size_t count, size_t maximum)
{
    static const char fn[] = "PAMI_Context_advancev";
    if (!context || !count)
        return pamil_fail(PAMI_INVAL, fn, "no contexts");
    for (size_t i = 0; i < count; i++)
        if (!pamil_context_of(fn, context[i]))
            return PAMI_INVAL;
    size_t n = 0;
    for (size_t m = 0; m < (maximum ? maximum : 1) && !n; m++)
        for (size_t i = 0; i < count; i++)
            n += pamil_advance_once(context[i]);
    if (!n)
        emu_poll_pause();
    return PAMI_SUCCESS; /* with or without events, as PAMI_Context_advance */
}

pami_result_t PAMI_Context_trylock_advancev(pami_context_t context[], size_t count, size_t maximum)
{
    static const char fn[] = "PAMI_Context_trylock_advancev";
    if (!context || !count)
        return pamil_fail(PAMI_INVAL, fn, "no contexts");
    size_t n = 0;
    for (size_t m = 0; m < (maximum ? maximum : 1) && !n; m++) {
        for (size_t i = 0; i < count; i++) {
            struct pamil_context *c = pamil_context_of(fn, context[i]);
            if (!c)
                return PAMI_INVAL;
            if (PAMI_Context_trylock(c) != PAMI_SUCCESS)
                continue;
            n += pamil_advance_once(c);
            PAMI_Context_unlock(c);
        }
    }
    if (!n)
        emu_poll_pause();
    return PAMI_SUCCESS; /* with or without events, as PAMI_Context_advance */
}

/* ---- locks ---- */

/* c->owner/c->locked shadow the mutex so that misuse (a second lock by the
 * holder, an unlock by another thread) is an error instead of undefined
 * behaviour. */
static int held_by_caller(struct pamil_context *c)
{
    return atomic_load(&c->locked) && pthread_equal(atomic_load(&c->owner), pthread_self());
}

static void mark_locked(struct pamil_context *c)
{
    atomic_store(&c->owner, pthread_self());
    atomic_store(&c->locked, 1);
}

static void release(struct pamil_context *c)
{
    atomic_store(&c->locked, 0);
    pthread_mutex_unlock(&c->lock);
}

/* Lock or trylock's end, with c's mutex taken (ok) or not: a context
 * destroyed while we waited is given back and refused. */
static pami_result_t lock_end(struct pamil_context *c, int ok, const char *fn)
{
    pami_result_t r = PAMI_EAGAIN;
    if (ok && c->magic != PAMIL_CTX_MAGIC) {
        pthread_mutex_unlock(&c->lock);
        r = pamil_fail(PAMI_INVAL, fn, "the context was destroyed while this thread waited for its lock");
    } else if (ok) {
        mark_locked(c);
        r = PAMI_SUCCESS;
    }
    atomic_fetch_sub(&c->lockers, 1);
    return r;
}

pami_result_t PAMI_Context_lock(pami_context_t context)
{
    static const char fn[] = "PAMI_Context_lock";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (held_by_caller(c))
        return pamil_fail(PAMI_INVAL, fn, "this thread holds the lock already (it is not recursive)");
    atomic_fetch_add(&c->lockers, 1);
    pthread_mutex_lock(&c->lock);
    return lock_end(c, 1, fn);
}

pami_result_t PAMI_Context_trylock(pami_context_t context)
{
    static const char fn[] = "PAMI_Context_trylock";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    atomic_fetch_add(&c->lockers, 1);
    return lock_end(c, pthread_mutex_trylock(&c->lock) == 0, fn);
}

pami_result_t PAMI_Context_unlock(pami_context_t context)
{
    struct pamil_context *c = pamil_context_of("PAMI_Context_unlock", context);
    if (!c)
        return PAMI_INVAL;
    if (!held_by_caller(c))
        return pamil_fail(PAMI_INVAL, "PAMI_Context_unlock", "this thread does not hold the context's lock");
    release(c);
    return PAMI_SUCCESS;
}

/* ---- posted work ---- */

pami_result_t PAMI_Context_post(pami_context_t context, pami_work_t *work,
                                pami_work_function fn, void *cookie)
{
    static const char fnn[] = "PAMI_Context_post";
    struct pamil_context *c = pamil_context_of(fnn, context);
    if (!c)
        return PAMI_INVAL;
    if (!work || !fn)
        return pamil_fail(PAMI_INVAL, fnn, "work or function is NULL");
    struct pamil_work_item *w = (struct pamil_work_item *)work;
    w->next = NULL;
    w->fn = fn;
    w->cookie = cookie;
    pthread_mutex_lock(&c->work_mu);
    if (c->work_tail)
        c->work_tail->next = w;
    else
        c->work_head = w;
    c->work_tail = w;
    atomic_fetch_add(&c->work_count, 1);
    pthread_mutex_unlock(&c->work_mu);
    emunic_ring_self(); /* the context's progress thread may sleep */
    return PAMI_SUCCESS;
}

/* ---- create / destroy ---- */

static struct pamil_context *context_new(struct pamil_client *cl, unsigned offset)
{
    struct pamil_context *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->touched = calloc(cl->size, 1);
    c->touched_list = calloc(cl->size, sizeof *c->touched_list);
    if (!c->touched || !c->touched_list) {
        free(c->touched);
        free(c->touched_list);
        free(c);
        return NULL;
    }
    c->magic = PAMIL_CTX_MAGIC;
    c->client = cl;
    c->offset = offset;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->inbox_mu, NULL);
    pthread_mutex_init(&c->work_mu, NULL);
    c->last_event_ns = emu_now_ns();
    return c;
}

/* A destroyed context keeps its struct and its lock until the client is
 * destroyed: a thread blocked in PAMI_Context_lock on it wakes on live
 * memory and is told (BG/Q's contexts outlive their destruction too). */
static void context_release(struct pamil_context *c)
{
    c->magic = 0;
    pthread_mutex_destroy(&c->inbox_mu);
    pthread_mutex_destroy(&c->work_mu);
    free(c->inbox);
    free(c->early);
    free(c->touched);
    free(c->touched_list);
    c->inbox = NULL;
    c->early = NULL;
    c->touched = NULL;
    c->touched_list = NULL;
}

/* A context that never went live (createv failing half-way). */
static void context_free(struct pamil_context *c)
{
    context_release(c);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* A thread still inside lock or trylock on a dead context leaves within
 * moments (the lock is free, and it finds the context dead); one that
 * does not within a second keeps the struct, leaked rather than freed
 * under it. */
void pamil_context_bury(struct pamil_client *cl)
{
    int64_t end = emu_now_ns() + 1000000000;
    while (cl->dead) {
        struct pamil_context *c = cl->dead;
        cl->dead = c->next_dead;
        while (atomic_load(&c->lockers) && emu_now_ns() < end)
            sched_yield();
        if (atomic_load(&c->lockers))
            continue;
        pthread_mutex_destroy(&c->lock);
        free(c);
    }
}

pami_result_t PAMI_Context_createv(pami_client_t client, pami_configuration_t configuration[],
                                   size_t count, pami_context_t *context, size_t ncontexts)
{
    static const char fn[] = "PAMI_Context_createv";
    struct pamil_client *cl = pamil_client_of(fn, client);
    if (!cl)
        return PAMI_INVAL;
    if (!context)
        return pamil_fail(PAMI_INVAL, fn, "context is NULL");
    if (ncontexts == 0 || ncontexts > PAMIL_MAX_CONTEXTS)
        return pamil_fail(PAMI_INVAL, fn, "%zu contexts asked for; 1 to %d are possible", ncontexts, PAMIL_MAX_CONTEXTS);
    if (count && !configuration)
        return pamil_fail(PAMI_INVAL, fn, "%zu configurations but the array is NULL", count);
    /* IBM's tests pass PAMI_CLIENT_CONST_CONTEXTS here: every task gets the
     * contexts it asks for, so either value holds */
    for (size_t i = 0; i < count; i++)
        if (configuration[i].name != PAMI_CLIENT_CONST_CONTEXTS)
            return pamil_fail(PAMI_INVAL, fn, "attribute %d cannot be set on a context", (int)configuration[i].name);
    if (cl->contexts_created)
        return pamil_fail(PAMI_INVAL, fn, "the client has its contexts already (create them all in one call)");
    for (size_t i = 0; i < ncontexts; i++) {
        cl->ctx[i] = context_new(cl, (unsigned)i);
        if (!cl->ctx[i]) {
            while (i--)
                context_free(cl->ctx[i]);
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        }
    }
    for (size_t i = 0; i < ncontexts; i++) {
        pami_result_t r = pamil_coll_context_init(cl->ctx[i]);
        if (r != PAMI_SUCCESS) {
            while (i--)
                pamil_coll_context_fini(cl->ctx[i]);
            for (size_t k = 0; k < ncontexts; k++)
                context_free(cl->ctx[k]);
            return r;
        }
    }
    pthread_mutex_lock(&pamil.demux_mu);
    cl->ncontexts = ncontexts;
    cl->contexts_created = (int)ncontexts; /* now arrivals route here */
    pthread_mutex_unlock(&pamil.demux_mu);
    for (size_t i = 0; i < ncontexts; i++)
        context[i] = cl->ctx[i];
    emunic_ring_self(); /* held arrivals may be routable now */
    return PAMI_SUCCESS;
}

/* Sends whose data is still in a library buffer of c, waiting for its
 * target to pull it: advance until they are taken (bounded: a target that
 * is gone never takes them). */
static void drain_unpulled(struct pamil_context *c)
{
    int64_t end = emu_now_ns() + 30ll * 1000000000;
    while (atomic_load(&c->unpulled) > 0 && emu_now_ns() < end)
        if (!pamil_advance_once(c))
            sched_yield();
    long left = atomic_load(&c->unpulled);
    if (left > 0)
        fprintf(stderr, "emunic pami: task %u: context %u destroyed with %ld sends its targets never took\n",
                c->client->task, c->offset, left);
}

/* Another thread may still hold a context being destroyed: IBM's
 * context/post-multithreaded destroys both contexts as soon as its main
 * thread is done while its helper thread has yet to unlock its own. BG/Q's
 * contexts outlive their destruction, so that unlock worked there; here
 * the memory is freed, so wait for the holder instead. All or nothing:
 * holding some locks while waiting for the next would deadlock with a
 * thread that holds that one and wants ours. Bounded: a thread that never
 * lets go fails the call with nothing destroyed (after
 * EMUNIC_PAMI_DESTROY_WAIT seconds, 30 by default). The caller's own
 * locks are taken over. */
static int destroy_wait_s(void)
{
    return (int)pamil_env_long("EMUNIC_PAMI_DESTROY_WAIT", 1, 3600, 30, "seconds");
}

/* One pass: trylock every context the caller does not hold; on the first
 * busy one give back what this pass took and return its index, else -1. */
static long try_all(pami_context_t *list, size_t n, unsigned char *took, int *dead)
{
    for (size_t i = 0; i < n; i++) {
        struct pamil_context *c = list[i];
        took[i] = 0;
        if (held_by_caller(c))
            continue;
        int busy = pthread_mutex_trylock(&c->lock) != 0;
        if (!busy && c->magic != PAMIL_CTX_MAGIC) { /* another destroyv won */
            pthread_mutex_unlock(&c->lock);
            busy = 2;
        }
        if (busy) {
            for (size_t k = 0; k < i; k++)
                if (took[k])
                    release(list[k]);
            *dead = busy == 2;
            return (long)i;
        }
        mark_locked(c);
        took[i] = 1;
    }
    return -1;
}

static pami_result_t take_locks(const char *fn, pami_context_t *list, size_t n)
{
    unsigned char *took = calloc(n, 1);
    if (!took)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    int wait_s = destroy_wait_s();
    int64_t end = emu_now_ns() + (int64_t)wait_s * 1000000000;
    long busy;
    int dead = 0;
    /* the holder usually lets go within microseconds: yield a few times,
     * then nap so that a long wait costs no core */
    for (int round = 0; (busy = try_all(list, n, took, &dead)) >= 0 && !dead && emu_now_ns() < end; round++) {
        if (round < 16) {
            sched_yield();
        } else {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    free(took);
    if (busy < 0)
        return PAMI_SUCCESS;
    /* a destroyed context stays readable until PAMI_Client_destroy */
    unsigned offset = ((struct pamil_context *)list[busy])->offset;
    if (dead)
        return pamil_fail(PAMI_INVAL, fn, "context %u was destroyed by another thread meanwhile; nothing destroyed",
                          offset);
    return pamil_fail(PAMI_EAGAIN, fn, "another thread has held context %u's lock for %d s; nothing destroyed",
                      offset, wait_s);
}

pami_result_t PAMI_Context_destroyv(pami_context_t *contexts, size_t ncontexts)
{
    static const char fn[] = "PAMI_Context_destroyv";
    if (!contexts || !ncontexts)
        return pamil_fail(PAMI_INVAL, fn, "no contexts");
    /* IBM's API tests (test/api/init_util.h, pami_shutdown) pass the one
     * context handle itself where the array belongs; do what they mean */
    pami_context_t self = (pami_context_t)contexts;
    int handle_given = ncontexts == 1 && live_context(self);
    pami_context_t *list = handle_given ? &self : contexts;
    for (size_t i = 0; i < ncontexts; i++) {
        if (!pamil_context_of(fn, list[i]))
            return PAMI_INVAL;
        for (size_t k = 0; k < i; k++)
            if (list[k] == list[i])
                return pamil_fail(PAMI_INVAL, fn, "context %zu is context %zu again", i, k);
    }
    /* every progress thread of the list first: one left running could
     * route a completion into a context being freed, and one blocked on
     * a lock would never let us have it. A refused call resumes them. */
    unsigned char *paused = calloc(ncontexts, 1);
    if (!paused)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    for (size_t i = 0; i < ncontexts; i++)
        paused[i] = (unsigned char)pamil_async_pause(list[i]);
    pami_result_t r = take_locks(fn, list, ncontexts);
    /* a progress thread that cannot be restarted makes the refusal an
     * error: the caller's retry would find the context without it */
    for (size_t i = 0; i < ncontexts && r != PAMI_SUCCESS; i++)
        if (paused[i] && pamil_async_resume(list[i]) != PAMI_SUCCESS)
            r = PAMI_ERROR;
    free(paused);
    if (r != PAMI_SUCCESS)
        return r;
    for (size_t i = 0; i < ncontexts; i++)
        pamil_async_stop(list[i]);
    for (size_t i = 0; i < ncontexts; i++)
        drain_unpulled(list[i]);
    for (size_t i = 0; i < ncontexts; i++) {
        struct pamil_context *c = list[i];
        struct pamil_client *cl = c->client;
        pamil_coll_context_fini(c);
        pthread_mutex_lock(&pamil.demux_mu);
        cl->ctx[c->offset] = NULL;
        if (--cl->contexts_created == 0)
            cl->ncontexts = 0;
        c->next_dead = cl->dead;
        cl->dead = c;
        pthread_mutex_unlock(&pamil.demux_mu);
        context_release(c);
        release(c);
        if (!handle_given)
            contexts[i] = PAMI_CONTEXT_NULL;
    }
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Context_query(pami_context_t context, pami_configuration_t configuration[], size_t num_configs)
{
    struct pamil_context *c = pamil_context_of("PAMI_Context_query", context);
    if (!c)
        return PAMI_INVAL;
    return pamil_attr_query_all("PAMI_Context_query", c->client, configuration, num_configs);
}

pami_result_t PAMI_Context_update(pami_context_t context, pami_configuration_t configuration[], size_t num_configs)
{
    if (!pamil_context_of("PAMI_Context_update", context))
        return PAMI_INVAL;
    return pamil_attr_update_none("PAMI_Context_update", configuration, num_configs);
}
