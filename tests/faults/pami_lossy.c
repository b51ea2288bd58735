/* PAMI under --unreliable: task 0 (node 0) issues OPS operations to task 1
 * (another node), WIN at a time, cycling through the kinds in KINDS:
 *
 *   p  PAMI_Put, 8 bytes (inline), done_fn + rdone_fn
 *   P  PAMI_Put, 500 bytes (by reference), done_fn + rdone_fn
 *   g  PAMI_Get, 8 bytes, done_fn        G  PAMI_Get, 500 bytes, done_fn
 *   q  PAMI_Rput, 500 bytes, done_fn + rdone_fn
 *   h  PAMI_Rget, 500 bytes, done_fn
 *   s  PAMI_Send, 16 bytes (immediate receive), local_fn + remote_fn
 *   l  PAMI_Send, 500 bytes (asynchronous receive), local_fn + remote_fn
 *   a  PAMI_Rmw, fetch-and-add 1 on a counter of task 1, done_fn
 *   f  PAMI_Fence_endpoint (one flush), done_fn
 *
 * Every callback must run exactly once (a second call fails at once, a
 * missing one after OP_WAIT_S); an operation failed if any callback got a
 * result other than PAMI_SUCCESS, which must be PAMI_ERROR (the library
 * maps EMU_E_LOST to it). Successful Gets must hold the right bytes,
 * successful Puts must have landed (read back at the end), a failed Put or
 * Get left all or nothing. Sends and Rmw never travel raw (an inline send
 * asks for no NIC completion, a long one is pulled, Rmw is a module
 * command), so each must succeed: every send arrives exactly once with the
 * right bytes, and the fetch-and-adds return distinct values and add up.
 *
 * Prints "pami: ok K failed F retries T": T failed tries of reading the
 * put area back, repeated until one succeeds; F + T is what the NICs
 * count as lost. The program lingers LINGER_S after the
 * last completion so that a late second callback would still be caught.
 *
 *   pami_lossy OPS [KINDS]        (default KINDS: pPgGqhslaf) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pami.h>

#define WIN 64
#define OP_WAIT_S 30.0
#define LINGER_S 0.6
#define SMALL 8
#define MEDIUM 504
#define SHORT_SEND 16
#define D_DATA 1 /* dispatch ids */
#define D_CTL 2

#define DIE(...)                                                                    \
    do {                                                                            \
        fflush(stdout);                                                             \
        fprintf(stderr, "FAIL pami_lossy task %u: ", me);                           \
        fprintf(stderr, __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                        \
        exit(1);                                                                    \
    } while (0)
#define OK(call)                                                                    \
    do {                                                                            \
        pami_result_t rc_ = (call);                                                 \
        if (rc_ != PAMI_SUCCESS)                                                    \
            DIE("%s returned %d", #call, (int)rc_);                                 \
    } while (0)

static unsigned me;

struct op {
    char kind;
    uint8_t want;    /* callbacks expected: 1 local, 2 remote */
    uint8_t got;     /* callbacks seen */
    uint8_t failed;  /* 1 local failed, 2 remote failed */
    uint8_t settled; /* every expected callback has run */
    size_t off, len; /* slot in the put (or get) area */
    uint64_t fetched; /* Rmw */
    double t0;
};

static struct op *ops;
static unsigned nops, inflight;
static size_t total; /* bytes of one area */
static pami_context_t ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* byte j of operation i's data; seed 0 for what task 0 sends, 1 for what
 * task 1 offers to Gets */
static uint8_t pat(unsigned i, size_t j, unsigned seed)
{
    return (uint8_t)(i * 131u + (unsigned)j * 7u + (unsigned)(j >> 8) + seed * 89u + 1u);
}

static int is_get(char k) { return k == 'g' || k == 'G' || k == 'h'; }
static int is_put(char k) { return k == 'p' || k == 'P' || k == 'q'; }
static int is_send(char k) { return k == 's' || k == 'l'; }

static size_t len_of(char k)
{
    switch (k) {
    case 'p': case 'g': case 'a': return SMALL;
    case 's': return SHORT_SEND;
    case 'f': return 0;
    default: return MEDIUM;
    }
}

/* 1: all bytes as pattern, 0: all zero, -1: anything else */
static int slot_state(const uint8_t *b, unsigned i, size_t len, unsigned seed)
{
    int all_pat = 1, all_zero = 1;
    for (size_t j = 0; j < len; j++) {
        all_pat &= b[j] == pat(i, j, seed);
        all_zero &= b[j] == 0;
    }
    return all_pat ? 1 : all_zero ? 0 : -1;
}

static void advance(void)
{
    pami_result_t r = PAMI_Context_advance(ctx, 1);
    if (r != PAMI_SUCCESS)
        DIE("PAMI_Context_advance returned %d", (int)r);
}

/* ---- task 0: the callbacks ---- */

static void record(struct op *o, unsigned which, pami_result_t res)
{
    /* the index, for messages (the retried ones are not in ops) */
    uintptr_t a = (uintptr_t)o, lo = (uintptr_t)ops, hi = (uintptr_t)(ops + nops);
    long i = a >= lo && a < hi ? (long)(o - ops) : -1;
    const char *what = which == 1 ? "done_fn" : "rdone_fn";
    if (!(o->want & which))
        DIE("op %ld (%c): unexpected %s", i, o->kind, what);
    if (o->got & which)
        DIE("op %ld (%c): %s called twice", i, o->kind, what);
    o->got |= (uint8_t)which;
    if (res != PAMI_SUCCESS) {
        if (res != PAMI_ERROR)
            DIE("op %ld (%c): %s got %d, expected PAMI_ERROR (%d)", i, o->kind, what, (int)res, (int)PAMI_ERROR);
        o->failed |= (uint8_t)which;
    }
    if (o->got == o->want) {
        o->settled = 1;
        inflight--;
    }
}

static void on_local(pami_context_t c, void *cookie, pami_result_t res)
{
    (void)c;
    record(cookie, 1, res);
}

static void on_remote(pami_context_t c, void *cookie, pami_result_t res)
{
    (void)c;
    record(cookie, 2, res);
}

/* ---- task 1: receiving sends ---- */

static uint8_t *rbuf;  /* task 1's put area, also where long sends land */
static uint8_t *rseen; /* per op: arrived */
static unsigned sends_recv, recv_errors;

static void on_recv_done(pami_context_t c, void *cookie, pami_result_t res)
{
    (void)c;
    unsigned i = (unsigned)(uintptr_t)cookie;
    if (res != PAMI_SUCCESS)
        DIE("op %u: receiving a long send failed (%d)", i, (int)res);
    if (slot_state(rbuf + ops[i].off, i, ops[i].len, 0) != 1)
        recv_errors++;
    sends_recv++;
}

static void on_data(pami_context_t c, void *cookie, const void *hdr, size_t hlen, const void *pipe,
                    size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)c, (void)cookie, (void)origin;
    uint32_t i;
    if (hlen != sizeof i)
        DIE("a send with a %zu-byte header", hlen);
    memcpy(&i, hdr, sizeof i);
    if (i >= nops || !is_send(ops[i].kind) || dlen != ops[i].len)
        DIE("a send for op %u of %u, %zu bytes", i, nops, dlen);
    if (rseen[i]++)
        DIE("op %u: send arrived twice", i);
    if (pipe) {
        if (slot_state(pipe, i, dlen, 0) != 1)
            recv_errors++;
        sends_recv++;
        return;
    }
    recv->local_fn = on_recv_done;
    recv->cookie = (void *)(uintptr_t)i;
    recv->addr = rbuf + ops[i].off;
    recv->type = PAMI_TYPE_BYTE;
    recv->offset = 0;
    recv->data_fn = PAMI_DATA_COPY;
    recv->data_cookie = NULL;
}

/* ---- control: addresses one way, "finished" and the counts back ---- */

struct ctl {
    uint64_t a, b, c;
    pami_memregion_t mr;
};
static struct ctl ctl_v[3]; /* by arrival: one advance may run several */
static int ctl_got;

static void on_ctl(pami_context_t c, void *cookie, const void *hdr, size_t hlen, const void *pipe,
                   size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)c, (void)cookie, (void)pipe, (void)origin, (void)recv;
    if (hlen != sizeof(struct ctl) || dlen != 0 || ctl_got == 3)
        DIE("control message %d of %zu+%zu bytes", ctl_got + 1, hlen, dlen);
    memcpy(&ctl_v[ctl_got++], hdr, sizeof(struct ctl));
}

static void send_ctl(pami_endpoint_t to, struct ctl *m)
{
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    s.dest = to;
    s.dispatch = D_CTL;
    s.header.iov_base = m;
    s.header.iov_len = sizeof *m;
    OK(PAMI_Send_immediate(ctx, &s));
}

static void wait_control(int n)
{
    double t0 = now_s();
    while (ctl_got < n) {
        advance();
        if (now_s() - t0 > OP_WAIT_S)
            DIE("no control message %d after %.0f s", n, OP_WAIT_S);
    }
}

static pami_endpoint_t peer;
static uint8_t *lbuf;
static uint64_t raddr; /* task 1's buffer */
static pami_memregion_t lmr, rmr;

static void issue(unsigned i)
{
    struct op *o = &ops[i];
    o->t0 = now_s();
    o->want = is_get(o->kind) || o->kind == 'a' || o->kind == 'f' ? 1 : 3;
    inflight++;
    pami_rma_t rma;
    memset(&rma, 0, sizeof rma);
    rma.dest = peer;
    rma.bytes = o->len;
    rma.cookie = o;
    rma.done_fn = on_local;
    switch (o->kind) {
    case 'p':
    case 'P': {
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma = rma;
        p.addr.local = lbuf + o->off;
        p.addr.remote = (void *)(uintptr_t)(raddr + o->off);
        p.put.rdone_fn = on_remote;
        OK(PAMI_Put(ctx, &p));
        break;
    }
    case 'g':
    case 'G': {
        pami_get_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma = rma;
        g.addr.local = lbuf + total + o->off;
        g.addr.remote = (void *)(uintptr_t)(raddr + total + o->off);
        OK(PAMI_Get(ctx, &g));
        break;
    }
    case 'q': {
        pami_rput_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma = rma;
        p.rdma.local.mr = &lmr;
        p.rdma.local.offset = o->off;
        p.rdma.remote.mr = &rmr;
        p.rdma.remote.offset = o->off;
        p.put.rdone_fn = on_remote;
        OK(PAMI_Rput(ctx, &p));
        break;
    }
    case 'h': {
        pami_rget_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma = rma;
        g.rdma.local.mr = &lmr;
        g.rdma.local.offset = total + o->off;
        g.rdma.remote.mr = &rmr;
        g.rdma.remote.offset = total + o->off;
        OK(PAMI_Rget(ctx, &g));
        break;
    }
    case 'a': {
        static uint64_t one = 1;
        pami_rmw_t r;
        memset(&r, 0, sizeof r);
        r.dest = peer;
        r.cookie = o;
        r.done_fn = on_local;
        r.local = &o->fetched;
        r.remote = (void *)(uintptr_t)(raddr + 2 * total);
        r.value = &one;
        r.operation = PAMI_ATOMIC_FETCH_ADD;
        r.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
        OK(PAMI_Rmw(ctx, &r));
        break;
    }
    case 'f':
        OK(PAMI_Fence_endpoint(ctx, on_local, o, peer));
        break;
    default: { /* s, l */
        uint32_t idx = i;
        pami_send_t s;
        memset(&s, 0, sizeof s);
        s.send.dest = peer;
        s.send.dispatch = D_DATA;
        s.send.header.iov_base = &idx; /* copied before PAMI_Send returns */
        s.send.header.iov_len = sizeof idx;
        s.send.data.iov_base = lbuf + o->off;
        s.send.data.iov_len = o->len;
        s.events.cookie = o;
        s.events.local_fn = on_local;
        s.events.remote_fn = on_remote;
        OK(PAMI_Send(ctx, &s));
        break;
    }
    }
}

/* A Get repeated until it succeeds (each try may be lost). The tries are
 * static: a late second callback must find them alive. */
#define TRIES 50
static unsigned retries; /* failed tries: losses too */
static struct op tries_v[TRIES];

static void get_reliably(void *local, uint64_t remote, size_t len, const char *what)
{
    for (int t = 0; t < TRIES; t++) {
        struct op *o = &tries_v[t];
        o->kind = 'g';
        o->want = 1;
        o->t0 = now_s();
        inflight++;
        pami_get_simple_t g;
        memset(&g, 0, sizeof g);
        g.rma.dest = peer;
        g.rma.bytes = len;
        g.rma.cookie = o;
        g.rma.done_fn = on_local;
        g.addr.local = local;
        g.addr.remote = (void *)(uintptr_t)remote;
        OK(PAMI_Get(ctx, &g));
        while (!o->settled) {
            advance();
            if (now_s() - o->t0 > OP_WAIT_S)
                DIE("%s never completed", what);
        }
        if (!o->failed)
            return;
        retries++;
    }
    DIE("%s failed %d times", what, TRIES);
}

int main(int argc, char **argv)
{
    nops = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    const char *kinds = argc > 2 ? argv[2] : "pPgGqhslaf";
    size_t nk = strlen(kinds);
    if (!nops || !nk || strspn(kinds, "pPgGqhslaf") != nk) {
        fprintf(stderr, "usage: pami_lossy OPS [KINDS of pPgGqhslaf]\n");
        return 2;
    }
    pami_client_t client;
    if (PAMI_Client_create("pami_lossy", &client, NULL, 0) != PAMI_SUCCESS)
        return 1; /* the library said why */
    pami_configuration_t q[2] = {{.name = PAMI_CLIENT_TASK_ID}, {.name = PAMI_CLIENT_NUM_TASKS}};
    OK(PAMI_Client_query(client, q, 2));
    me = (unsigned)q[0].value.intval;
    if (q[1].value.intval != 2)
        DIE("needs 2 tasks (-N 2 -n 1), not %zu", q[1].value.intval);
    OK(PAMI_Context_createv(client, NULL, 0, &ctx, 1));
    OK(PAMI_Endpoint_create(client, 1 - me, 0, &peer));
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    pami_dispatch_callback_function fd = {.p2p = on_data}, fc = {.p2p = on_ctl};
    OK(PAMI_Dispatch_set(ctx, D_DATA, fd, NULL, h));
    OK(PAMI_Dispatch_set(ctx, D_CTL, fc, NULL, h));

    /* the layout: op i owns [off, off + len) of the put area, and the same
     * range of the get area right after it; then the Rmw counter. Both
     * tasks compute it. */
    ops = calloc(nops, sizeof *ops);
    if (!ops)
        DIE("out of memory");
    unsigned nrmw = 0;
    for (unsigned i = 0; i < nops; i++) {
        ops[i].kind = kinds[i % nk];
        ops[i].len = len_of(ops[i].kind);
        ops[i].off = total;
        total += ops[i].len;
        nrmw += ops[i].kind == 'a';
    }
    total = (total + 7) & ~(size_t)7; /* the counter is 8-aligned */
    lbuf = calloc(2 * total + 8, 1);
    if (!lbuf)
        DIE("out of memory");
    size_t got = 0;
    OK(PAMI_Memregion_create(ctx, lbuf, 2 * total + 8, &got, &lmr));
    if (got != 2 * total + 8)
        DIE("memregion covers %zu of %zu bytes", got, 2 * total + 8);

    struct ctl m;
    memset(&m, 0, sizeof m);
    if (me == 1) {
        rbuf = lbuf;
        rseen = calloc(nops, 1);
        if (!rseen)
            DIE("out of memory");
        for (unsigned i = 0; i < nops; i++)
            if (is_get(ops[i].kind))
                for (size_t j = 0; j < ops[i].len; j++)
                    lbuf[total + ops[i].off + j] = pat(i, j, 1);
        m.a = (uint64_t)(uintptr_t)lbuf;
        memcpy(m.mr, lmr, sizeof m.mr);
        send_ctl(peer, &m);
        wait_control(1); /* task 0 has finished: every send has arrived */
        m.a = sends_recv;
        m.b = recv_errors;
        uint64_t counter;
        memcpy(&counter, lbuf + 2 * total, sizeof counter);
        m.c = counter;
        send_ctl(peer, &m);
    } else {
        for (unsigned i = 0; i < nops; i++)
            if (is_put(ops[i].kind) || is_send(ops[i].kind))
                for (size_t j = 0; j < ops[i].len; j++)
                    lbuf[ops[i].off + j] = pat(i, j, 0);
        wait_control(1);
        raddr = ctl_v[0].a;
        memcpy(rmr, ctl_v[0].mr, sizeof rmr);
        unsigned next = 0, settled = 0;
        double last_scan = now_s();
        while (settled < nops) {
            while (next < nops && inflight < WIN)
                issue(next++);
            advance();
            while (settled < nops && ops[settled].settled)
                settled++;
            double t = now_s();
            if (t - last_scan > 0.1) { /* a bounded wait for every operation */
                last_scan = t;
                for (unsigned i = settled; i < next; i++)
                    if (!ops[i].settled && t - ops[i].t0 > OP_WAIT_S)
                        DIE("op %u (%c) not complete after %.0f s (callbacks seen %u of %u)", i, ops[i].kind,
                            OP_WAIT_S, ops[i].got, ops[i].want);
            }
        }
        /* late duplicates */
        double t0 = now_s();
        while (now_s() - t0 < LINGER_S)
            advance();
        uint8_t *back = calloc(total ? total : 1, 1);
        if (!back)
            DIE("out of memory");
        if (total) /* 0 bytes is PAMI_INVAL */
            get_reliably(back, raddr, total, "reading the put area back");

        unsigned ok = 0, failed = 0, sends = 0, rmw_ok = 0;
        uint8_t *fseen = calloc(nrmw + 1, 1);
        if (!fseen)
            DIE("out of memory");
        for (unsigned i = 0; i < nops; i++) {
            struct op *o = &ops[i];
            if ((o->failed & 1) && !(o->failed & 2) && (o->want & 2))
                DIE("op %u (%c): done_fn failed but rdone_fn succeeded", i, o->kind);
            if (o->failed)
                failed++;
            else
                ok++;
            if (is_put(o->kind)) {
                int st = slot_state(back + o->off, i, o->len, 0);
                if (!o->failed && st != 1)
                    DIE("op %u (%c): put succeeded but the target holds other bytes", i, o->kind);
                if (o->failed && st < 0)
                    DIE("op %u (%c): failed put left a partial or corrupt slot", i, o->kind);
            } else if (is_get(o->kind)) {
                int st = slot_state(lbuf + total + o->off, i, o->len, 1);
                if (!o->failed && st != 1)
                    DIE("op %u (%c): get succeeded with wrong bytes", i, o->kind);
                if (o->failed && st < 0)
                    DIE("op %u (%c): failed get left a partial or corrupt buffer", i, o->kind);
            } else if (is_send(o->kind)) {
                if (o->failed)
                    DIE("op %u (%c): a send failed; sends are never lost", i, o->kind);
                sends++;
            } else if (o->kind == 'a') {
                if (o->failed)
                    DIE("op %u: an Rmw failed; Rmw is never lost", i);
                if (o->fetched >= nrmw || fseen[o->fetched]++)
                    DIE("op %u: Rmw fetched %llu twice or out of range", i, (unsigned long long)o->fetched);
                rmw_ok++;
            }
        }
        memset(&m, 0, sizeof m);
        send_ctl(peer, &m);
        wait_control(2);
        const struct ctl *ctl_in = &ctl_v[1];
        if (ctl_in->b)
            DIE("task 1 received %llu send(s) with wrong bytes", (unsigned long long)ctl_in->b);
        if (ctl_in->a != sends)
            DIE("task 1 received %llu sends of %u", (unsigned long long)ctl_in->a, sends);
        if (ctl_in->c != rmw_ok)
            DIE("the Rmw counter is %llu after %u fetch-and-adds", (unsigned long long)ctl_in->c, rmw_ok);
        printf("pami: ok %u failed %u retries %u\n", ok, failed, retries);
        fflush(stdout);
        free(back);
        free(fseen);
    }
    /* task 1 must not go (failing task 0's operations) before task 0 has
     * its answer: one more round of control messages */
    memset(&m, 0, sizeof m);
    send_ctl(peer, &m);
    wait_control(me == 1 ? 2 : 3);
    OK(PAMI_Memregion_destroy(ctx, &lmr));
    OK(PAMI_Context_destroyv(&ctx, 1));
    OK(PAMI_Client_destroy(&client));
    free(lbuf);
    free(ops);
    free(rseen);
    return 0;
}
