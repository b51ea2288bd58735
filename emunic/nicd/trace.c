/* The daemon's timeline and counter upkeep (see trace.h). A command's span
 * runs from the moment the daemon takes it off the rank's queue to the
 * moment it hands the rank the EMU_CQ_DONE that finishes it; commands are
 * matched to their completion by (rank, cookie) in a small open-addressing
 * table (equal cookies of one rank complete oldest first). */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emunic/tracebuf.h"
#include "nic.h"

int emu_nic_trace_on;

#define PEND_MAX (1u << 22)      /* stop tracking beyond this many open spans */

struct pend {
    uint64_t cookie;
    int64_t t0;
    uint64_t len;
    uint32_t rank, dst;
    uint8_t op, used;
};

static struct {
    struct emu_tracebuf tb;
    uint32_t pid, tid;
    struct pend *tab;
    uint32_t cap, count; /* cap: power of two */
    uint64_t untracked;
    int64_t cur_t0;      /* handle_cmd of a command with no completion */
} T = {.tb = EMU_TRACEBUF_INIT};

#define emit(...) emu_tracebuf_emit(&T.tb, __VA_ARGS__)

static double us(int64_t t) { return emu_tracebuf_us(&T.tb, t); }

static const char *op_label(unsigned op, unsigned module)
{
    if (op == EMU_OP_MODULE) {
        switch (module) {
        case EMU_MOD_SELFTEST: return "module:selftest";
        case EMU_MOD_PORTALS: return "module:portals";
        case EMU_MOD_PAMI: return "module:pami";
        case EMU_MOD_DCMF: return "module:dcmf";
        default: return "module";
        }
    }
    return emu_op_name(op);
}

/* A JSON string body from s: quotes, backslashes and control bytes out. */
static void json_str(char *out, size_t n, const char *s)
{
    size_t o = 0;
    for (; s && *s && o + 2 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c < 0x20)
            c = '_';
        out[o++] = (char)c;
    }
    out[o] = 0;
}

int trace_open(struct emu_nic *nic)
{
    emu_waiter_ring_counter = &nic->ctr->doorbells;
    const struct emu_netcfg *net = &nic->net;
    if (!(net->flags & EMU_NET_TRACE) || !net->trace_dir[0] ||
        memchr(net->trace_dir, 0, sizeof net->trace_dir) == NULL)
        return 0;
    char path[512];
    if (snprintf(path, sizeof path, "%s/nic%u.part", net->trace_dir, nic->node) >= (int)sizeof path)
        return -ENAMETOOLONG;
    int rc = emu_tracebuf_open(&T.tb, path, net->start_ns);
    if (rc) {
        fprintf(stderr, "emunic-nicd: node %u records no trace: cannot write %s: %s\n",
                nic->node, path, strerror(-rc));
        return rc;
    }
    uint32_t rpn = nic->rpn;
    T.pid = nic->node;
    T.tid = nic->node * (rpn + 1);
    emu_nic_trace_on = 1;
    return 0;
}

static void span(const struct pend *p, int64_t t1, int status, int unfinished)
{
    emit("{\"ph\":\"X\",\"cat\":\"nic\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
         "\"dur\":%.3f,\"args\":{\"src\":%u,\"dst\":%u,\"len\":%llu,\"cookie\":%llu,"
         "\"status\":%d%s}}\n",
         op_label(p->op, 0), T.pid, T.tid, us(p->t0), (double)(t1 - p->t0) / 1000.0, p->rank,
         p->dst, (unsigned long long)p->len, (unsigned long long)p->cookie, status,
         unfinished ? ",\"unfinished\":1" : "");
}

void trace_close(struct emu_nic *nic)
{
    if (nic->ctr && emu_waiter_ring_counter == &nic->ctr->doorbells)
        emu_waiter_ring_counter = NULL;
    if (!emu_nic_trace_on)
        return;
    int64_t now = emu_now_ns();
    for (uint32_t i = 0; i < T.cap; i++)
        if (T.tab[i].used)
            span(&T.tab[i], now, -1, 1);
    if (T.untracked)
        emit("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"nic\",\"name\":\"untracked\",\"pid\":%u,"
             "\"tid\":%u,\"ts\":%.3f,\"args\":{\"spans\":%llu}}\n",
             T.pid, T.tid, us(now), (unsigned long long)T.untracked);
    emu_tracebuf_close(&T.tb);
    free(T.tab);
    T.tab = NULL;
    T.cap = T.count = 0;
    emu_nic_trace_on = 0;
}

void trace_fault(struct emu_nic *nic, const char *what, uint32_t node_a, uint32_t node_b,
                 const struct emu_msg *m)
{
    if (!emu_nic_trace_on)
        return;
    (void)nic;
    char w[64];
    json_str(w, sizeof w, what ? what : "fault");
    int64_t now = emu_now_ns();
    if (m)
        emit("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"fault\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,"
             "\"ts\":%.3f,\"args\":{\"node_a\":%u,\"node_b\":%u,\"op\":\"%s\",\"src\":%u,"
             "\"dst\":%u,\"len\":%llu,\"cookie\":%llu}}\n",
             w, T.pid, T.tid, us(now), node_a, node_b, op_label(m->op, m->module), m->src, m->dst,
             (unsigned long long)m->len, (unsigned long long)m->cookie);
    else
        emit("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"fault\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,"
             "\"ts\":%.3f,\"args\":{\"node_a\":%u,\"node_b\":%u}}\n",
             w, T.pid, T.tid, us(now), node_a, node_b);
}

/* ---- open spans ---- */

static uint32_t slot_of(uint32_t rank, uint64_t cookie)
{
    uint64_t h = (cookie ^ ((uint64_t)rank << 40)) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (T.cap - 1);
}

static void put(const struct pend *p)
{
    uint32_t i = slot_of(p->rank, p->cookie);
    while (T.tab[i].used)
        i = (i + 1) & (T.cap - 1);
    T.tab[i] = *p;
    T.tab[i].used = 1;
    T.count++;
}

static int grow(void)
{
    uint32_t ncap = T.cap ? 2 * T.cap : 1024;
    struct pend *old = T.tab, *n = calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    uint32_t ocap = T.cap;
    T.tab = n;
    T.cap = ncap;
    T.count = 0;
    /* re-insert in probe order from each run's start, so equal keys keep
     * their relative order (oldest first) */
    for (uint32_t i = 0; i < ocap; i++)
        if (old[i].used)
            put(&old[i]);
    free(old);
    return 0;
}

void trace_cmd_begin(struct emu_nic *nic, const struct emu_msg *m)
{
    (void)nic;
    int64_t now = emu_now_ns();
    T.cur_t0 = now;
    if (m->op == EMU_OP_MODULE || !(m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)))
        return;
    if (T.count + 1 > T.cap / 2 && (T.cap >= PEND_MAX || grow() < 0)) {
        T.untracked++;
        return;
    }
    struct pend p = {.cookie = m->cookie, .t0 = now, .len = m->len, .rank = m->src,
                     .dst = m->dst, .op = m->op};
    put(&p);
}

void trace_cmd_end(struct emu_nic *nic, const struct emu_msg *m)
{
    (void)nic;
    if (m->op != EMU_OP_MODULE && (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)))
        return; /* its completion closes it */
    int64_t now = emu_now_ns();
    emit("{\"ph\":\"X\",\"cat\":\"nic\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
         "\"dur\":%.3f,\"args\":{\"src\":%u,\"dst\":%u,\"len\":%llu,\"cookie\":%llu,"
         "\"no_completion\":1}}\n",
         op_label(m->op, m->module), T.pid, T.tid, us(T.cur_t0),
         (double)(now - T.cur_t0) / 1000.0, m->src, m->dst, (unsigned long long)m->len,
         (unsigned long long)m->cookie);
}

void trace_cmd_done(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe)
{
    (void)nic;
    if (!T.count)
        return;
    uint32_t i = slot_of(rank, cqe->cookie);
    while (T.tab[i].used && !(T.tab[i].rank == rank && T.tab[i].cookie == cqe->cookie))
        i = (i + 1) & (T.cap - 1);
    if (!T.tab[i].used)
        return; /* not ours (a module's, or untracked) */
    span(&T.tab[i], emu_now_ns(), cqe->status, 0);
    /* backward-shift deletion keeps every probe run intact */
    T.tab[i].used = 0;
    T.count--;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & (T.cap - 1);
        if (!T.tab[j].used)
            break;
        uint32_t home = slot_of(T.tab[j].rank, T.tab[j].cookie);
        /* can the entry at j move to the hole at i? (home not in (i, j]) */
        if (((j - home) & (T.cap - 1)) >= ((j - i) & (T.cap - 1))) {
            T.tab[i] = T.tab[j];
            T.tab[j].used = 0;
            i = j;
        }
    }
}

void nic_note_wire_depth(struct emu_nic *nic, uint32_t node)
{
    if (node >= nic->nnodes)
        return;
    uint64_t d = nic->wire_backlog[node].n;
    if (d > atomic_load_explicit(&nic->ctr->queue_max, memory_order_relaxed))
        atomic_store_explicit(&nic->ctr->queue_max, d, memory_order_relaxed);
}
