/* Rank side: turn API calls into NIC commands and completions back into
 * results. Small payloads are copied into the command (and are locally
 * complete at once); large ones are read by the NIC from where they are. */
#include "client.h"
#include "trace_rank.h"
#include "emunic/slice.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define CL emu_cl

static void msg_init(struct emu_msg *m, uint8_t op, uint32_t dst)
{
    memset(m, 0, EMU_MSG_HDR_SIZE);
    m->op = op;
    m->dst = dst;
    m->src = CL.rank;
}

static void stash_push_locked(const struct emu_msg *cqe);
static int pop_one_locked(struct emu_msg *out);

/* The command queue is full: the NIC may be holding back because this rank
 * leaves its completions untaken (it bounds what it parks per rank). Move
 * them into the rank's own stash, which the next poll or wait returns
 * first, in order; AM handlers run as in a poll. Another thread holding
 * the queue is taking them already. */
static void drain_cq_for_post(void)
{
    if (pthread_mutex_trylock(&CL.cq_mu) != 0)
        return;
    struct emu_msg e;
    int r, stashed = 0;
    while ((r = pop_one_locked(&e)) >= 0)
        if (r == 1) {
            stash_push_locked(&e);
            stashed = 1;
        }
    pthread_mutex_unlock(&CL.cq_mu);
    if (stashed)
        emu_waiter_notify(&CL.me->cq_waiter);
}

int emu_client_post(struct emu_msg *m)
{
    int spins = 0;
    int64_t t0 = EMU_TR_BEGIN();
    while (emu_ring_push(&CL.cmd, m) != 0) {
        /* queue full: make sure the NIC is awake and let it run */
        drain_cq_for_post();
        emu_waiter_notify_fd(CL.bell, CL.doorbell_fd);
        sched_yield();
        if (++spins % 1024 == 0 && emu_client_dead()) {
            EMU_TR_POST(t0, m, -EPIPE);
            return -EPIPE;
        }
    }
    emu_waiter_notify_fd(CL.bell, CL.doorbell_fd);
    EMU_TR_POST(t0, m, 0);
    return 0;
}

/* A FIFO taken from its head in O(1): a rank that lets thousands of
 * completions pile up (drain_cq_for_post) must not pay a memmove of all of
 * them for each one it takes. */
static void stash_push_locked(const struct emu_msg *cqe)
{
    if (CL.stash_n == CL.stash_cap && CL.stash_head) {
        memmove(CL.stash, CL.stash + CL.stash_head, (CL.stash_n - CL.stash_head) * sizeof *CL.stash);
        CL.stash_n -= CL.stash_head;
        CL.stash_head = 0;
    }
    if (CL.stash_n == CL.stash_cap) {
        size_t cap = CL.stash_cap ? 2 * CL.stash_cap : 64;
        struct emu_msg *n = realloc(CL.stash, cap * sizeof *n);
        if (!n)
            abort(); /* losing a completion would hang the caller */
        CL.stash = n;
        CL.stash_cap = cap;
    }
    CL.stash[CL.stash_n++] = *cqe;
}

/* Take the i-th stashed entry (0: the oldest). */
static void stash_take_locked(size_t i, struct emu_msg *out)
{
    size_t at = CL.stash_head + i;
    *out = CL.stash[at];
    if (i == 0) {
        CL.stash_head++;
    } else {
        memmove(&CL.stash[at], &CL.stash[at + 1], (CL.stash_n - at - 1) * sizeof *CL.stash);
        CL.stash_n--;
    }
    if (CL.stash_head == CL.stash_n)
        CL.stash_head = CL.stash_n = 0;
}

void emu_client_stash(const struct emu_msg *cqe)
{
    pthread_mutex_lock(&CL.cq_mu);
    stash_push_locked(cqe);
    pthread_mutex_unlock(&CL.cq_mu);
}

static int check_dst(uint32_t dst)
{
    return CL.refs && dst < CL.size ? 0 : -EINVAL;
}

static void local_done_now(struct emu_msg *m)
{
    /* inline payload: the source buffer is free as soon as we return */
    if (m->flags & EMU_F_LOCAL_CQ) {
        struct emu_msg c;
        memset(&c, 0, EMU_MSG_HDR_SIZE);
        c.op = EMU_CQ_DONE;
        c.flags = EMU_DONE_LOCAL;
        c.src = CL.rank;
        c.dst = m->dst;
        c.cookie = m->cookie;
        m->flags &= (uint8_t)~EMU_F_LOCAL_CQ;
        emu_client_stash(&c);
    }
}

#define USER_FLAGS (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ | EMU_F_TARGET_NOTIFY | EMU_F_UNORDERED)

int emunic_write(uint32_t dst, uint32_t key, uint64_t raddr, const void *src,
                 size_t len, unsigned flags, uint64_t cookie, uint64_t imm)
{
    if (check_dst(dst) || (flags & ~USER_FLAGS) || (!src && len))
        return -EINVAL;
    struct emu_msg m;
    msg_init(&m, EMU_OP_WRITE, dst);
    m.flags = (uint8_t)flags;
    m.key = key;
    m.raddr = raddr;
    m.len = len;
    m.cookie = cookie;
    m.imm = imm;
    if (len <= EMU_INLINE_MAX) {
        m.flags |= EMU_F_INLINE;
        m.dlen = (uint16_t)len;
        if (len)
            memcpy(m.data, src, len);
        local_done_now(&m);
    } else {
        m.laddr = (uint64_t)(uintptr_t)src;
    }
    return emu_client_post(&m);
}

static _Atomic uint64_t data_back_posted;

/* A small result may come back in the completion (EMU_F_DATA_BACK): the
 * NIC's process_vm_writev into private memory costs more than our store.
 * The sink is touched now, so memory this rank cannot write faults here,
 * where the bug is, not later in a poll. */
static void want_data_back(struct emu_msg *m, void *sink)
{
    if (!(m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)) || m->len == 0 || m->len > EMU_INLINE_MAX)
        return;
    volatile uint8_t *p = sink;
    p[0] = p[0];
    p[m->len - 1] = p[m->len - 1];
    m->flags |= EMU_F_DATA_BACK;
    /* the store in pop_one_locked may run on another thread: order it
     * after this probe within the process (the NIC in between is another
     * process, which no thread sanitizer sees) */
    atomic_fetch_add_explicit(&data_back_posted, 1, memory_order_release);
}

int emunic_read(uint32_t dst, uint32_t key, uint64_t raddr, void *buf,
                size_t len, unsigned flags, uint64_t cookie)
{
    if (check_dst(dst) || (flags & ~USER_FLAGS) || (!buf && len))
        return -EINVAL;
    struct emu_msg m;
    msg_init(&m, EMU_OP_READ, dst);
    m.flags = (uint8_t)flags;
    m.key = key;
    m.raddr = raddr;
    m.laddr = (uint64_t)(uintptr_t)buf;
    m.len = len;
    m.cookie = cookie;
    want_data_back(&m, buf);
    return emu_client_post(&m);
}

int emunic_atomic(uint32_t dst, uint32_t key, uint64_t raddr, unsigned aop,
                  unsigned dtype, const void *operand, size_t len,
                  const void *operand2, void *fetch, unsigned flags,
                  uint64_t cookie)
{
    if (check_dst(dst) || (flags & ~USER_FLAGS) || !operand)
        return -EINVAL;
    struct emu_msg m;
    msg_init(&m, fetch ? EMU_OP_FETCH_ATOMIC : EMU_OP_ATOMIC, dst);
    m.flags = (uint8_t)flags;
    m.key = key;
    m.raddr = raddr;
    m.aop = (uint8_t)aop;
    m.dtype = (uint8_t)dtype;
    m.len = len;
    m.cookie = cookie;
    m.aux = (uint64_t)(uintptr_t)fetch;
    size_t es = emu_dtype_size(dtype);
    if (!emu_aop_valid(aop, dtype) || !len || len % es || len > EMU_ATOMIC_MAX)
        return -EINVAL;
    if (emu_aop_is_swap(aop)) {
        if (len != es || (aop != EMU_AOP_SWAP && !operand2))
            return -EINVAL;
        if (operand2)
            memcpy(m.operand, operand2, es);
    }
    if (len <= EMU_INLINE_MAX) {
        m.flags |= EMU_F_INLINE;
        m.dlen = (uint16_t)len;
        memcpy(m.data, operand, len);
        local_done_now(&m);
    } else {
        m.laddr = (uint64_t)(uintptr_t)operand;
    }
    if (fetch)
        want_data_back(&m, fetch);
    return emu_client_post(&m);
}

int emunic_flush(uint32_t dst, uint64_t cookie)
{
    if (check_dst(dst))
        return -EINVAL;
    struct emu_msg m;
    msg_init(&m, EMU_OP_NOP, dst);
    m.flags = EMU_F_REMOTE_CQ;
    m.cookie = cookie;
    return emu_client_post(&m);
}

int emunic_am_send(uint32_t dst, uint64_t handler, const void *hdr,
                   size_t hlen, const void *payload, size_t len,
                   unsigned flags, uint64_t cookie)
{
    if (check_dst(dst) || (flags & ~USER_FLAGS) || hlen > EMU_INLINE_MAX ||
        (!hdr && hlen) || (!payload && len))
        return -EINVAL;
    struct emu_msg m;
    msg_init(&m, EMU_OP_AM, dst);
    m.flags = (uint8_t)flags;
    m.imm = handler;
    m.hlen = (uint32_t)hlen;
    m.len = len;
    m.cookie = cookie;
    if (hlen)
        memcpy(m.data, hdr, hlen);
    if (hlen + len <= EMU_INLINE_MAX) {
        m.flags |= EMU_F_INLINE;
        if (len)
            memcpy(m.data + hlen, payload, len);
        m.dlen = (uint16_t)(hlen + len);
        local_done_now(&m);
    } else {
        m.dlen = (uint16_t)hlen;
        m.laddr = (uint64_t)(uintptr_t)payload;
    }
    return emu_client_post(&m);
}

int emunic_am_accept(const struct emu_msg *am, void *buf, size_t cap,
                     uint64_t cookie)
{
    if (!CL.refs || !am || am->op != EMU_CQ_AM || (!buf && cap))
        return -EINVAL;
    if (am->dlen == am->hlen + am->len)
        return -EINVAL; /* payload came inline: nothing to accept */
    struct emu_msg m;
    msg_init(&m, EMU_OP_AM_ACCEPT, CL.rank);
    m.aux = am->aux;
    m.laddr = (uint64_t)(uintptr_t)buf;
    m.len = cap;
    m.cookie = cookie;
    m.flags = EMU_F_REMOTE_CQ;
    return emu_client_post(&m);
}

int emunic_am_register(uint64_t handler, emunic_am_fn fn, void *arg)
{
    if (handler >= EMU_AM_HANDLERS)
        return -EINVAL;
    pthread_mutex_lock(&CL.cq_mu);
    CL.am[handler].fn = fn;
    CL.am[handler].arg = arg;
    pthread_mutex_unlock(&CL.cq_mu);
    return 0;
}

int emunic_post_module(struct emu_msg *m)
{
    if (!CL.refs || m->op != EMU_OP_MODULE || !m->module || m->dst >= CL.size ||
        m->dlen > EMU_INLINE_MAX)
        return -EINVAL;
    m->src = CL.rank;
    return emu_client_post(m);
}

int emunic_post_raw(const struct emu_msg *m)
{
    if (!CL.refs)
        return -EINVAL;
    struct emu_msg copy = *m;
    return emu_client_post(&copy);
}

/* ---- completions ---- */

/* Bumped whenever a handler consumes an entry, so a waiter can return to
 * its caller (whose condition the handler may have changed). */
static _Atomic uint64_t handled;

/* Pop one entry from the queue, running AM handlers; cq_mu held on entry
 * and exit (released around a handler so it may post and poll). Returns 1
 * with *out filled, 0 if the entry was consumed by a handler, -1 if empty. */
static int pop_one_locked(struct emu_msg *out)
{
    if (emu_ring_pop(&CL.cq, out) != 0)
        return -1;
    if (out->op == EMU_CQ_DONE && (out->flags & EMU_DONE_DATA)) {
        /* our NIC carried back a result we asked for (want_data_back) */
        (void)atomic_load_explicit(&data_back_posted, memory_order_acquire);
        if (out->dlen <= EMU_INLINE_MAX)
            memcpy((void *)(uintptr_t)out->laddr, out->data, out->dlen);
        out->flags &= (uint8_t)~EMU_DONE_DATA;
        out->dlen = 0;
    }
    EMU_TR_DONE(out);
    if (out->op == EMU_CQ_AM && out->imm < EMU_AM_HANDLERS && CL.am[out->imm].fn) {
        emunic_am_fn fn = CL.am[out->imm].fn;
        void *arg = CL.am[out->imm].arg;
        pthread_mutex_unlock(&CL.cq_mu);
        fn(out, arg);
        atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
        pthread_mutex_lock(&CL.cq_mu);
        return 0;
    }
    return 1;
}

int emunic_poll(struct emu_msg *out, int max)
{
    if (!CL.refs)
        return -EINVAL;
    int n = 0;
    pthread_mutex_lock(&CL.cq_mu);
    while (n < max && CL.stash_n > CL.stash_head)
        stash_take_locked(0, &out[n++]);
    while (n < max) {
        int r = pop_one_locked(&out[n]);
        if (r < 0)
            break;
        n += r;
    }
    pthread_mutex_unlock(&CL.cq_mu);
    return n;
}

/* Re-checks before sleeping; under the lock, since another thread of this
 * rank may be consuming at the same moment. */
static bool ring_has_work(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&CL.cq_mu);
    bool r = emu_ring_ready(&CL.cq);
    pthread_mutex_unlock(&CL.cq_mu);
    return r;
}

static bool cq_has_work(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&CL.cq_mu);
    bool r = CL.stash_n > CL.stash_head || emu_ring_ready(&CL.cq);
    pthread_mutex_unlock(&CL.cq_mu);
    return r;
}

int emunic_pending(void)
{
    return CL.refs ? cq_has_work(NULL) : 0;
}

/* One step of "poll briefly, then sleep". Returns -EPIPE if the job is
 * going away, -ETIMEDOUT past the deadline, 0 to poll again. */
static int idle_step(bool (*has_work)(void *), void *arg, int64_t *idle_since, int64_t deadline)
{
    int64_t now = emu_now_ns();
    if (deadline >= 0 && now >= deadline)
        return -ETIMEDOUT;
    if (now - *idle_since < CL.poll_ns) {
        atomic_fetch_add_explicit(&CL.me->cq_waiter.yields, 1, memory_order_relaxed);
        if (emu_poll_yield())
            return 0;
    }
    int64_t slice = 100000000; /* re-check liveness every 100 ms */
    if (deadline >= 0 && deadline - now < slice)
        slice = deadline - now;
    emu_waiter_block(&CL.me->cq_waiter, has_work, arg, slice);
    *idle_since = emu_now_ns();
    return emu_client_dead() ? -EPIPE : 0;
}

int emunic_wait(struct emu_msg *out, int max, int64_t timeout_ns)
{
    int64_t start = emu_now_ns(), idle = start;
    int64_t deadline = timeout_ns < 0 ? -1 : start + timeout_ns;
    /* a stashed entry is returned by the poll below, never slept on */
    for (;;) {
        uint64_t h0 = atomic_load_explicit(&handled, memory_order_relaxed);
        int n = emunic_poll(out, max);
        if (n != 0 || atomic_load_explicit(&handled, memory_order_relaxed) != h0)
            return n;
        int r = idle_step(cq_has_work, NULL, &idle, deadline);
        if (r == -ETIMEDOUT)
            return 0;
        if (r)
            return r;
    }
}

struct until {
    int (*cond)(void *);
    void *arg;
};

static bool until_holds(void *p)
{
    struct until *u = p;
    return u->cond(u->arg) != 0;
}

int emunic_wait_until(int (*cond)(void *), void *arg, int64_t timeout_ns)
{
    if (!CL.refs || !cond)
        return -EINVAL;
    int64_t idle = emu_now_ns();
    int64_t deadline = timeout_ns < 0 ? -1 : idle + timeout_ns;
    struct until u = {cond, arg};
    for (;;) {
        if (cond(arg))
            return 1;
        int r = idle_step(until_holds, &u, &idle, deadline);
        if (r == -ETIMEDOUT)
            return cond(arg) ? 1 : 0;
        if (r)
            return r;
    }
}

int emunic_wait_cookie(uint64_t cookie, struct emu_msg *out)
{
    if (!CL.refs)
        return -EINVAL;
    int64_t idle = emu_now_ns();
    for (;;) {
        pthread_mutex_lock(&CL.cq_mu);
        for (size_t i = 0; i < CL.stash_n - CL.stash_head; i++) {
            const struct emu_msg *e = &CL.stash[CL.stash_head + i];
            if (e->op == EMU_CQ_DONE && e->cookie == cookie) {
                stash_take_locked(i, out);
                pthread_mutex_unlock(&CL.cq_mu);
                return out->status;
            }
        }
        int r, stashed = 0;
        while ((r = pop_one_locked(out)) >= 0) {
            if (r == 0)
                continue;
            if (out->op == EMU_CQ_DONE && out->cookie == cookie) {
                pthread_mutex_unlock(&CL.cq_mu);
                if (stashed)
                    emu_waiter_notify(&CL.me->cq_waiter);
                return out->status;
            }
            stash_push_locked(out);
            stashed = 1;
        }
        pthread_mutex_unlock(&CL.cq_mu);
        /* another thread may be asleep waiting for what we just stashed */
        if (stashed)
            emu_waiter_notify(&CL.me->cq_waiter);
        /* stashed entries are not ours: sleep on the queue only */
        r = idle_step(ring_has_work, NULL, &idle, -1);
        if (r)
            return r;
    }
}
