/* DCMF under --unreliable: rank 0 (node 0) issues OPS operations to rank 1
 * (another node), WIN at a time, cycling through the kinds in KINDS:
 *
 *   p  Put, 8 bytes (inline), sequential, cb_done + cb_ack
 *   P  Put, 500 bytes (by reference), sequential, cb_done + cb_ack
 *   g  Get, 8 bytes, sequential          G  Get, 500 bytes, sequential
 *   r  Put, 16392 bytes, relaxed (the NIC's dynamic lane, two packets)
 *   R  Get, 16392 bytes, relaxed
 *   l  Send, 500 bytes (long: the receiver pulls it), cb_done
 *   s  Send, 16 bytes (one packet), cb_done
 *
 * Every callback must run exactly once (a second call fails at once, a
 * missing one after OP_WAIT_S); an operation failed if any callback got a
 * DCMF_Error_t, which must say DCMF_ERROR. Successful Gets must hold the
 * right bytes, successful Puts must have landed (read back at the end), a
 * failed non-relaxed Put or Get left all or nothing. Long sends never
 * travel raw, so each must arrive exactly once with the right bytes.
 *
 * A one-packet Send is locally complete when posted (docs/dcmf.md), so its
 * loss is not seen by the sender: rank 1 counts arrivals instead (each at
 * most once, byte-correct); a fence Put behind them says every one has
 * arrived or been lost. The program then lingers LINGER_S so that the
 * NICs have counted every loss before the job summary, and so that a late
 * second callback would still be caught.
 *
 * Prints "dcmf: ok K failed F retries T": K and F count the operations
 * whose failure the sender can see (all but 's'), T the failed tries of the helpers (the
 * fence, reading the put area back), which are repeated until they
 * succeed; F + T is what the NICs count as lost. Then "dcmf: short sends
 * S received R" when there were any.
 *
 *   dcmf_lossy OPS [KINDS]        (default KINDS: pPgGrRl) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dcmf.h>

#include "emunic/emunic.h"

#define WIN 64
#define OP_WAIT_S 30.0
#define LINGER_S 0.6
#define SMALL 8
#define MEDIUM 500
#define RELAXED (16384 + 8)
#define SHORT_SEND 16

#define DIE(...)                                                                    \
    do {                                                                            \
        fflush(stdout);                                                             \
        fprintf(stderr, "FAIL dcmf_lossy rank %u: ", me);                           \
        fprintf(stderr, __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                        \
        exit(1);                                                                    \
    } while (0)
#define OK(call)                                                                    \
    do {                                                                            \
        DCMF_Result rc_ = (call);                                                   \
        if (rc_ != DCMF_SUCCESS)                                                    \
            DIE("%s returned %d", #call, (int)rc_);                                 \
    } while (0)

static unsigned me;

struct op {
    char kind;
    uint8_t want;          /* callbacks expected: 1 done, 2 ack */
    uint8_t got;           /* callbacks seen */
    uint8_t failed;        /* 1 done failed, 2 ack failed */
    uint8_t settled;       /* every expected callback has run */
    size_t off, len;       /* slot in the put (or get) area */
    double t0;
    DCMF_Request_t req;
};

static struct op *ops;
static unsigned nops, inflight;
static size_t total; /* bytes of one area */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* byte j of operation i's data; seed 0 for what rank 0 sends, 1 for what
 * rank 1 offers to Gets */
static uint8_t pat(unsigned i, size_t j, unsigned seed)
{
    return (uint8_t)(i * 131u + (unsigned)j * 7u + (unsigned)(j >> 8) + seed * 89u + 1u);
}

static int is_get(char k) { return k == 'g' || k == 'G' || k == 'R'; }
static int is_put(char k) { return k == 'p' || k == 'P' || k == 'r'; }

static size_t len_of(char k)
{
    switch (k) {
    case 'p': case 'g': return SMALL;
    case 'r': case 'R': return RELAXED;
    case 's': return SHORT_SEND;
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

/* ---- rank 0: the callbacks ---- */

static void record(struct op *o, unsigned which, DCMF_Error_t *e)
{
    /* the index, for messages (the retried ones are not in ops) */
    uintptr_t a = (uintptr_t)o, lo = (uintptr_t)ops, hi = (uintptr_t)(ops + nops);
    long i = a >= lo && a < hi ? (long)(o - ops) : -1;
    if (!(o->want & which))
        DIE("op %ld (%c): unexpected %s callback", i, o->kind, which == 1 ? "cb_done" : "cb_ack");
    if (o->got & which)
        DIE("op %ld (%c): %s called twice", i, o->kind, which == 1 ? "cb_done" : "cb_ack");
    o->got |= (uint8_t)which;
    if (e) {
        if (e->result != DCMF_ERROR)
            DIE("op %ld (%c): failure %d, expected DCMF_ERROR (%d)", i, o->kind, (int)e->result, (int)DCMF_ERROR);
        o->failed |= (uint8_t)which;
    }
    if (o->got == o->want) {
        o->settled = 1;
        inflight--;
    }
}

static void on_done(void *cd, DCMF_Error_t *e) { record(cd, 1, e); }
static void on_ack(void *cd, DCMF_Error_t *e) { record(cd, 2, e); }

/* ---- rank 1: receiving sends ---- */

static uint8_t *rbuf;     /* rank 1's put area, also where long sends land */
static uint8_t *rseen;    /* per op: 1 arrived */
static DCMF_Request_t *rreq;
static unsigned short_recv, long_recv, recv_errors;

static unsigned index_of(const DCQuad *mi, unsigned count)
{
    uint32_t i;
    if (count != 1)
        DIE("a send with %u quads", count);
    memcpy(&i, mi, sizeof i);
    if (i >= nops)
        DIE("a send for op %u of %u", i, nops);
    return i;
}

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd, (void)peer;
    unsigned i = index_of(mi, count);
    if (ops[i].kind != 's' || bytes != SHORT_SEND)
        DIE("op %u (%c): short arrival of %zu bytes", i, ops[i].kind, bytes);
    if (rseen[i]++)
        DIE("op %u: short send arrived twice", i);
    if (slot_state((const uint8_t *)src, i, bytes, 0) != 1)
        recv_errors++;
    short_recv++;
}

static void on_long_done(void *cd, DCMF_Error_t *e)
{
    unsigned i = (unsigned)(uintptr_t)cd;
    if (e)
        DIE("op %u: receiving a long send failed (%d)", i, (int)e->result);
    if (slot_state(rbuf + ops[i].off, i, ops[i].len, 0) != 1)
        recv_errors++;
    long_recv++;
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                               size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    (void)cd, (void)peer;
    unsigned i = index_of(mi, count);
    if (ops[i].kind != 'l' || sndlen != MEDIUM)
        DIE("op %u (%c): long arrival of %zu bytes", i, ops[i].kind, sndlen);
    if (rseen[i]++)
        DIE("op %u: long send arrived twice", i);
    *rcvlen = sndlen;
    *rcvbuf = (char *)rbuf + ops[i].off;
    cb->function = on_long_done;
    cb->clientdata = (void *)(uintptr_t)i;
    return &rreq[i];
}

/* ---- control: the memregion one way, "finished" and the counts back ---- */

static DCMF_Control_t ctl_in;
static int ctl_got;

static void on_control(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd, (void)peer;
    memcpy(&ctl_in, info, sizeof ctl_in);
    ctl_got++;
}

static void wait_control(int n)
{
    double t0 = now_s();
    while (ctl_got < n) {
        DCMF_Messager_advance();
        if (now_s() - t0 > OP_WAIT_S)
            DIE("no control message %d after %.0f s", n, OP_WAIT_S);
    }
}

static DCMF_Protocol_t put_p, get_p, send_p, ctl_p;
static DCMF_Memregion_t lmr, rmr; /* rmr: rank 1's, as rank 0 got it */

static void issue(unsigned i, uint8_t *lbuf)
{
    struct op *o = &ops[i];
    DCMF_Callback_t done = {on_done, o}, ack = {on_ack, o};
    DCMF_Consistency c = o->kind == 'r' || o->kind == 'R' ? DCMF_RELAXED_CONSISTENCY : DCMF_SEQUENTIAL_CONSISTENCY;
    o->t0 = now_s();
    o->want = o->kind == 's' || o->kind == 'l' || is_get(o->kind) ? 1 : 3;
    inflight++;
    if (is_put(o->kind)) {
        OK(DCMF_Put(&put_p, &o->req, done, c, 1, o->len, &lmr, &rmr, o->off, o->off, ack));
    } else if (is_get(o->kind)) {
        OK(DCMF_Get(&get_p, &o->req, done, c, 1, o->len, &rmr, &lmr, total + o->off, total + o->off));
    } else {
        DCQuad mi[1];
        uint32_t idx = i;
        memset(mi, 0, sizeof mi);
        memcpy(mi, &idx, sizeof idx);
        OK(DCMF_Send(&send_p, &o->req, done, DCMF_SEQUENTIAL_CONSISTENCY, 1, o->len,
                     (char *)lbuf + o->off, mi, 1));
    }
}

/* A Put or Get repeated until it succeeds (each try may be lost). The
 * tries are static: a late second callback must find them alive. */
#define TRIES 50
static unsigned retries; /* failed tries: losses too */
static struct op tries_v[2][TRIES];

static void reliably(int put, size_t len, size_t loff, size_t roff, const char *what)
{
    static unsigned used[2];
    for (int t = 0; t < TRIES; t++) {
        if (used[put] == TRIES)
            DIE("%s: out of tries", what);
        struct op *o = &tries_v[put][used[put]++];
        o->kind = put ? 'p' : 'g';
        o->want = put ? 3 : 1;
        o->t0 = now_s();
        DCMF_Callback_t done = {on_done, o}, ack = {on_ack, o};
        inflight++;
        if (put)
            OK(DCMF_Put(&put_p, &o->req, done, DCMF_SEQUENTIAL_CONSISTENCY, 1, len, &lmr, &rmr, loff, roff, ack));
        else
            OK(DCMF_Get(&get_p, &o->req, done, DCMF_SEQUENTIAL_CONSISTENCY, 1, len, &rmr, &lmr, roff, loff));
        while (!o->settled) {
            DCMF_Messager_advance();
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
    const char *kinds = argc > 2 ? argv[2] : "pPgGrRl";
    size_t nk = strlen(kinds);
    if (!nops || !nk || strspn(kinds, "pPgGrRls") != nk) {
        fprintf(stderr, "usage: dcmf_lossy OPS [KINDS of pPgGrRls]\n");
        return 2;
    }
    DCMF_Messager_initialize();
    me = (unsigned)DCMF_Messager_rank();
    if (DCMF_Messager_size() != 2)
        DIE("needs 2 ranks (-N 2 -n 1), not %zu", DCMF_Messager_size());

    /* the layout: op i owns [off, off + len) of the put area, and the same
     * range of the get area right after it; both ranks compute it */
    ops = calloc(nops, sizeof *ops);
    if (!ops)
        DIE("out of memory");
    unsigned nshort = 0;
    for (unsigned i = 0; i < nops; i++) {
        ops[i].kind = kinds[i % nk];
        ops[i].len = len_of(ops[i].kind);
        ops[i].off = total;
        total += ops[i].len;
        nshort += ops[i].kind == 's';
    }
    uint8_t *buf = calloc(2 * total + SMALL, 1); /* + a fence slot */
    if (!buf)
        DIE("out of memory");

    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_control, NULL};
    OK(DCMF_Put_register(&put_p, &pc));
    OK(DCMF_Get_register(&get_p, &gc));
    OK(DCMF_Send_register(&send_p, &sc));
    OK(DCMF_Control_register(&ctl_p, &cc));
    size_t out = 0;
    OK(DCMF_Memregion_create(&lmr, &out, 2 * total + SMALL, buf, 0));

    if (me == 1) {
        rbuf = buf;
        rseen = calloc(nops, 1);
        rreq = calloc(nops, sizeof *rreq);
        if (!rseen || !rreq)
            DIE("out of memory");
        for (unsigned i = 0; i < nops; i++)
            if (is_get(ops[i].kind))
                for (size_t j = 0; j < ops[i].len; j++)
                    buf[total + ops[i].off + j] = pat(i, j, 1);
        DCMF_Control_t info;
        memset(&info, 0, sizeof info);
        memcpy(&info, &lmr, sizeof lmr < sizeof info ? sizeof lmr : sizeof info);
        OK(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info));
        wait_control(1); /* rank 0 has finished: every send has arrived or is lost */
        uint64_t counts[4] = {short_recv, long_recv, recv_errors, 0};
        memcpy(&info, counts, sizeof counts);
        OK(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info));
    } else {
        for (unsigned i = 0; i < nops; i++)
            if (is_put(ops[i].kind) || ops[i].kind == 's' || ops[i].kind == 'l')
                for (size_t j = 0; j < ops[i].len; j++)
                    buf[ops[i].off + j] = pat(i, j, 0);
        wait_control(1);
        memcpy(&rmr, &ctl_in, sizeof rmr);
        unsigned next = 0, settled = 0;
        double last_scan = now_s();
        while (settled < nops) {
            while (next < nops && inflight < WIN)
                issue(next++, buf);
            DCMF_Messager_advance();
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
        /* short sends ahead are delivered or lost once this is acked */
        if (nshort)
            reliably(1, SMALL, 2 * total, 2 * total, "the fence put");
        /* late duplicates and the NICs' loss time-outs */
        double t0 = now_s();
        while (now_s() - t0 < LINGER_S)
            DCMF_Messager_advance();
        /* read the put area back (the get area keeps the Gets' results) */
        uint8_t *back = calloc(total ? total : 1, 1);
        DCMF_Memregion_t bmr;
        if (!back)
            DIE("out of memory");
        OK(DCMF_Memregion_create(&bmr, &out, total, back, 0));
        DCMF_Memregion_t keep;
        memcpy(&keep, &lmr, sizeof keep);
        memcpy(&lmr, &bmr, sizeof lmr);
        reliably(0, total, 0, 0, "reading the put area back");
        memcpy(&lmr, &keep, sizeof lmr);

        unsigned ok = 0, failed = 0, lsend_ok = 0;
        for (unsigned i = 0; i < nops; i++) {
            struct op *o = &ops[i];
            if (o->kind == 's')
                continue;
            if ((o->failed & 1) && !(o->failed & 2) && (o->want & 2))
                DIE("op %u (%c): cb_done failed but cb_ack succeeded", i, o->kind);
            if (o->failed)
                failed++;
            else
                ok++;
            int relaxed = o->kind == 'r' || o->kind == 'R';
            if (is_put(o->kind)) {
                int st = slot_state(back + o->off, i, o->len, 0);
                if (!o->failed && st != 1)
                    DIE("op %u (%c): put succeeded but the target holds other bytes", i, o->kind);
                if (o->failed && !relaxed && st < 0)
                    DIE("op %u (%c): failed put left a partial or corrupt slot", i, o->kind);
            } else if (is_get(o->kind)) {
                int st = slot_state(buf + total + o->off, i, o->len, 1);
                if (!o->failed && st != 1)
                    DIE("op %u (%c): get succeeded with wrong bytes", i, o->kind);
                if (o->failed && !relaxed && st < 0)
                    DIE("op %u (%c): failed get left a partial or corrupt buffer", i, o->kind);
            } else if (!o->failed) {
                lsend_ok++;
            }
        }
        DCMF_Control_t info;
        memset(&info, 0, sizeof info);
        OK(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, 1, &info));
        wait_control(2);
        uint64_t counts[4];
        memcpy(counts, &ctl_in, sizeof counts);
        if (counts[2])
            DIE("rank 1 received %llu send(s) with wrong bytes", (unsigned long long)counts[2]);
        if (counts[1] != lsend_ok)
            DIE("rank 1 received %llu long sends, %u completed without error", (unsigned long long)counts[1],
                lsend_ok);
        printf("dcmf: ok %u failed %u retries %u\n", ok, failed, retries);
        if (nshort)
            printf("dcmf: short sends %u received %llu\n", nshort, (unsigned long long)counts[0]);
        fflush(stdout);
        OK(DCMF_Memregion_destroy(&bmr));
        free(back);
    }
    /* rank 1 must not finalize (failing rank 0's operations) before rank 0
     * has its answer */
    if (emunic_barrier())
        DIE("barrier");
    OK(DCMF_Memregion_destroy(&lmr));
    DCMF_Messager_finalize();
    free(buf);
    free(ops);
    free(rseen);
    free(rreq);
    return 0;
}
