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

#include <pami.h>

#define SMALL 8
#define MEDIUM 504
#define SHORT_SEND 16
#define D_DATA 1 /* dispatch ids */
#define D_CTL 2

#define LOSSY_WHO "pami_lossy task"
#define LOSSY_CB1 "done_fn"
#define LOSSY_CB2 "rdone_fn"
#define LOSSY_ERROR PAMI_ERROR
#define LOSSY_OP_API uint64_t fetched; /* Rmw */
#include "lossy_ops.h"

#define OK(call) LOSSY_OK(pami_result_t, PAMI_SUCCESS, call)

static pami_context_t ctx;

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

/* what task 0 sends: Puts and sends */
static int is_sent(char k) { return is_put(k) || is_send(k); }

static void advance(void)
{
    pami_result_t r = PAMI_Context_advance(ctx, 1);
    if (r != PAMI_SUCCESS)
        DIE("PAMI_Context_advance returned %d", (int)r);
}

/* ---- task 0: the callbacks ---- */

/* anything but PAMI_SUCCESS is a failure */
static void record(struct op *o, unsigned which, pami_result_t res)
{
    lossy_record(o, which, res != PAMI_SUCCESS, (int)res);
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

static uint8_t *rbuf; /* task 1's put area, also where long sends land */
static unsigned sends_recv;

static void on_recv_done(pami_context_t c, void *cookie, pami_result_t res)
{
    (void)c;
    unsigned i = (unsigned)(uintptr_t)cookie;
    if (res != PAMI_SUCCESS)
        DIE("op %u: receiving a long send failed (%d)", i, (int)res);
    lossy_received(i, rbuf + ops[i].off, &sends_recv);
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
    lossy_arrived(i, "send");
    if (pipe) {
        lossy_received(i, pipe, &sends_recv);
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

static pami_endpoint_t peer;
static uint8_t *lbuf;
static uint64_t raddr; /* task 1's buffer */
static pami_memregion_t lmr, rmr;

static void issue(unsigned i)
{
    struct op *o = &ops[i];
    lossy_start(o, is_get(o->kind) || o->kind == 'a' || o->kind == 'f' ? 1 : 3);
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

/* a helper Get of len bytes from remote into local */
struct xfer {
    void *local;
    uint64_t remote;
    size_t len;
};

static void post_get(struct op *o, const void *arg)
{
    const struct xfer *x = arg;
    pami_get_simple_t g;
    memset(&g, 0, sizeof g);
    g.rma.dest = peer;
    g.rma.bytes = x->len;
    g.rma.cookie = o;
    g.rma.done_fn = on_local;
    g.addr.local = x->local;
    g.addr.remote = (void *)(uintptr_t)x->remote;
    OK(PAMI_Get(ctx, &g));
}

static void get_reliably(void *local, uint64_t remote, size_t len, const char *what)
{
    struct xfer x = {local, remote, len};
    lossy_reliably('g', 1, post_get, &x, what);
}

int main(int argc, char **argv)
{
    const char *kinds = lossy_args(argc, argv, "pami_lossy", "pPgGqhslaf", "pPgGqhslaf");
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

    /* after the put and the get area: the Rmw counter */
    lossy_layout(kinds, len_of);
    unsigned nrmw = lossy_count('a');
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
        lossy_fill(lbuf + total, is_get, 1);
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
        lossy_fill(lbuf, is_sent, 0);
        wait_control(1);
        raddr = ctl_v[0].a;
        memcpy(rmr, ctl_v[0].mr, sizeof rmr);
        lossy_run();
        lossy_linger();
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
            lossy_tally(i, &ok, &failed);
            if (is_put(o->kind)) {
                lossy_check_put(i, back, 1);
            } else if (is_get(o->kind)) {
                lossy_check_get(i, lbuf + total, 1);
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
