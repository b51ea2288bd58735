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

#include <dcmf.h>

#include "emunic/emunic.h"

#define SMALL 8
#define MEDIUM 500
#define RELAXED (16384 + 8)
#define SHORT_SEND 16

#define LOSSY_WHO "dcmf_lossy rank"
#define LOSSY_CB1 "cb_done"
#define LOSSY_CB2 "cb_ack"
#define LOSSY_ERROR DCMF_ERROR
#define LOSSY_OP_API DCMF_Request_t req;
#include "lossy_ops.h"

#define OK(call) LOSSY_OK(DCMF_Result, DCMF_SUCCESS, call)

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

/* what rank 0 sends: Puts and sends */
static int is_sent(char k) { return is_put(k) || k == 's' || k == 'l'; }

static void advance(void) { DCMF_Messager_advance(); }

/* ---- rank 0: the callbacks ---- */

/* a DCMF_Error_t is a failure */
static void record(struct op *o, unsigned which, DCMF_Error_t *e)
{
    lossy_record(o, which, e != NULL, e ? (int)e->result : 0);
}

static void on_done(void *cd, DCMF_Error_t *e) { record(cd, 1, e); }
static void on_ack(void *cd, DCMF_Error_t *e) { record(cd, 2, e); }

/* ---- rank 1: receiving sends ---- */

static uint8_t *rbuf; /* rank 1's put area, also where long sends land */
static DCMF_Request_t *rreq;
static unsigned short_recv, long_recv;

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
    lossy_arrived(i, "short send");
    lossy_received(i, src, &short_recv);
}

static void on_long_done(void *cd, DCMF_Error_t *e)
{
    unsigned i = (unsigned)(uintptr_t)cd;
    if (e)
        DIE("op %u: receiving a long send failed (%d)", i, (int)e->result);
    lossy_received(i, rbuf + ops[i].off, &long_recv);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                               size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    (void)cd, (void)peer;
    unsigned i = index_of(mi, count);
    if (ops[i].kind != 'l' || sndlen != MEDIUM)
        DIE("op %u (%c): long arrival of %zu bytes", i, ops[i].kind, sndlen);
    lossy_arrived(i, "long send");
    *rcvlen = sndlen;
    *rcvbuf = (char *)rbuf + ops[i].off;
    cb->function = on_long_done;
    cb->clientdata = (void *)(uintptr_t)i;
    return &rreq[i];
}

/* ---- control: the memregion one way, "finished" and the counts back ---- */

static DCMF_Control_t ctl_in;

static void on_control(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd, (void)peer;
    memcpy(&ctl_in, info, sizeof ctl_in);
    ctl_got++;
}

static DCMF_Protocol_t put_p, get_p, send_p, ctl_p;
static DCMF_Memregion_t lmr, rmr; /* rmr: rank 1's, as rank 0 got it */
static uint8_t *lbuf;             /* the put area, the get area, a fence slot */

static void issue(unsigned i)
{
    struct op *o = &ops[i];
    DCMF_Callback_t done = {on_done, o}, ack = {on_ack, o};
    DCMF_Consistency c = o->kind == 'r' || o->kind == 'R' ? DCMF_RELAXED_CONSISTENCY : DCMF_SEQUENTIAL_CONSISTENCY;
    lossy_start(o, o->kind == 's' || o->kind == 'l' || is_get(o->kind) ? 1 : 3);
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

/* a helper Put (or Get) of len bytes at loff here, roff there */
struct xfer {
    int put;
    size_t len, loff, roff;
};

static void post_xfer(struct op *o, const void *arg)
{
    const struct xfer *x = arg;
    DCMF_Callback_t done = {on_done, o}, ack = {on_ack, o};
    if (x->put)
        OK(DCMF_Put(&put_p, &o->req, done, DCMF_SEQUENTIAL_CONSISTENCY, 1, x->len, &lmr, &rmr, x->loff, x->roff,
                    ack));
    else
        OK(DCMF_Get(&get_p, &o->req, done, DCMF_SEQUENTIAL_CONSISTENCY, 1, x->len, &rmr, &lmr, x->roff, x->loff));
}

static void reliably(int put, size_t len, size_t loff, size_t roff, const char *what)
{
    struct xfer x = {put, len, loff, roff};
    lossy_reliably(put ? 'p' : 'g', put ? 3 : 1, post_xfer, &x, what);
}

int main(int argc, char **argv)
{
    const char *kinds = lossy_args(argc, argv, "dcmf_lossy", "pPgGrRl", "pPgGrRls");
    DCMF_Messager_initialize();
    me = (unsigned)DCMF_Messager_rank();
    if (DCMF_Messager_size() != 2)
        DIE("needs 2 ranks (-N 2 -n 1), not %zu", DCMF_Messager_size());

    lossy_layout(kinds, len_of);
    unsigned nshort = lossy_count('s');
    lbuf = calloc(2 * total + SMALL, 1); /* + a fence slot */
    if (!lbuf)
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
    OK(DCMF_Memregion_create(&lmr, &out, 2 * total + SMALL, lbuf, 0));

    if (me == 1) {
        rbuf = lbuf;
        rseen = calloc(nops, 1);
        rreq = calloc(nops, sizeof *rreq);
        if (!rseen || !rreq)
            DIE("out of memory");
        lossy_fill(lbuf + total, is_get, 1);
        DCMF_Control_t info;
        memset(&info, 0, sizeof info);
        memcpy(&info, &lmr, sizeof lmr < sizeof info ? sizeof lmr : sizeof info);
        OK(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info));
        wait_control(1); /* rank 0 has finished: every send has arrived or is lost */
        uint64_t counts[4] = {short_recv, long_recv, recv_errors, 0};
        memcpy(&info, counts, sizeof counts);
        OK(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info));
    } else {
        lossy_fill(lbuf, is_sent, 0);
        wait_control(1);
        memcpy(&rmr, &ctl_in, sizeof rmr);
        lossy_run();
        /* short sends ahead are delivered or lost once this is acked */
        if (nshort)
            reliably(1, SMALL, 2 * total, 2 * total, "the fence put");
        lossy_linger();
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
            if (o->kind == 's') /* its loss is not the sender's to see */
                continue;
            lossy_tally(i, &ok, &failed);
            int strict = o->kind != 'r' && o->kind != 'R'; /* relaxed: a failed one may land in part */
            if (is_put(o->kind))
                lossy_check_put(i, back, strict);
            else if (is_get(o->kind))
                lossy_check_get(i, lbuf + total, strict);
            else if (!o->failed)
                lsend_ok++;
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
    free(lbuf);
    free(ops);
    free(rseen);
    free(rreq);
    return 0;
}
