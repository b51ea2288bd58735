/* The multisend calls (dcmf_multisend.h).
 *
 * DCMF_Multicast: every rank sends one buffer to all the others (0 bytes
 * to a long message, 0 to 6 msginfo quads, every connection id, both
 * protocols that are provided, with and without opcodes, once to itself
 * too); each receive callback sees the sender, the length, the connection
 * and the msginfo quads, gets its own clientdata, and names the buffer
 * (which may be shorter: the rest is dropped); every byte is checked, and
 * what lies past the receive length is untouched. The sender's cb_done
 * runs once, from advance, never inside the call; the structure may be
 * changed at once. No destinations: cb_done in the next advance. The
 * protocols and opcodes not provided and every bad argument: the API's
 * result and one stderr line.
 *
 * DCMF_Manytomany: every rank sends each other rank a slice of its own
 * length from its own offset, in a permuted order, each landing at the
 * sender's index of the receiver's arrays (index vector); a ring with one
 * index for every destination; the receiver's own index is never waited
 * for; two connections at once, and two operations back to back on one
 * connection (each slice joins the oldest operation still missing its
 * index); every byte and every gap checked; cb_done once per operation on
 * both sides; bad arguments refused. */
#include <dcmf_multisend.h>

#include "dtest.h"

#define SEQ DCMF_SEQUENTIAL_CONSISTENCY
#define NCONN 4
#define SLOT (96 * 1024) /* one sender's area in a receive buffer */
#define SENTINEL 0xee

static uint32_t seed_of(size_t from, unsigned round) { return (uint32_t)(from * 131 + round * 7 + 1); }

/* ================= multicast ================= */

static DCMF_Protocol_t mc_p[2];
static void *conns[2][NCONN];
static int tag[2];
static char *mc_rbuf;            /* [sender][SLOT] */
static DCMF_Request_t *mc_rreq;  /* [sender] */
static volatile int mc_arrived, mc_rdone, mc_bad;
static unsigned mc_round, mc_rcvcap; /* what receivers take at most this round */
struct mc_seen {
    unsigned sndlen, conn, count, proto;
};
static struct mc_seen *seen;     /* [sender], this round */

static void mc_rdone_cb(void *cd, DCMF_Error_t *e)
{
    (void)cd;
    if (e)
        dt_inc(&mc_bad);
    dt_inc(&mc_rdone);
}

static DCMF_Request_t *mc_recv(const DCQuad *info, unsigned count, unsigned peer, unsigned sndlen,
                               unsigned conn_id, void *arg, unsigned *rcvlen, char **rcvbuf,
                               unsigned *pipewidth, DCMF_Callback_t *cb_done)
{
    CHECK(arg == &tag[0] || arg == &tag[1], "multicast receive: arg %p is no registration's clientdata", arg);
    CHECK(peer < dt_np && sndlen <= SLOT, "multicast receive: peer %u sndlen %u", peer, sndlen);
    CHECK(count <= 6 && (count == 0 || info), "multicast receive: count %u info %p", count, (const void *)info);
    for (unsigned j = 0; j < count; j++)
        CHECK(info[j].w0 == peer && info[j].w1 == mc_round && info[j].w2 == j && info[j].w3 == 0xabc,
              "multicast receive: msginfo quad %u from rank %u is %u %u %u %x", j, peer, info[j].w0,
              info[j].w1, info[j].w2, info[j].w3);
    seen[peer] = (struct mc_seen){sndlen, conn_id, count, arg == &tag[0] ? 0u : 1u};
    *rcvlen = sndlen < mc_rcvcap ? sndlen : mc_rcvcap;
    *rcvbuf = mc_rbuf + (size_t)peer * SLOT;
    *pipewidth = sndlen;
    *cb_done = (DCMF_Callback_t){mc_rdone_cb, NULL};
    dt_inc(&mc_arrived);
    return &mc_rreq[peer];
}

/* One round: every rank to every other (self too when `self`). */
static void mc_round_run(unsigned round, unsigned bytes, unsigned count, int proto, int self,
                         int opcodes, unsigned rcvcap)
{
    static char *src;
    static unsigned *ranks;
    static DCMF_Opcode_t *ops;
    if (!src) {
        src = dt_xmalloc(SLOT);
        ranks = dt_xmalloc(dt_np * sizeof *ranks);
        ops = dt_xmalloc(dt_np * sizeof *ops);
    }
    /* everything a round's arrivals touch is reset before the barrier
     * that lets any rank send */
    mc_round = round;
    mc_rcvcap = rcvcap;
    dt_set(&mc_arrived, 0);
    dt_set(&mc_rdone, 0);
    memset(mc_rbuf, SENTINEL, dt_np * SLOT);
    memset(seen, 0, dt_np * sizeof *seen);
    dt_fill(src, bytes, seed_of(dt_me, round), 0);
    unsigned n = 0;
    for (size_t k = dt_np; k-- > 0;)
        if (k != dt_me || self)
            ranks[n] = (unsigned)k, ops[n++] = DCMF_PT_TO_PT_SEND;
    DCQuad mi[6];
    for (unsigned j = 0; j < 6; j++)
        mi[j] = (DCQuad){(uint32_t)dt_me, round, j, 0xabc};
    DCMF_Request_t req;
    struct dt_rec done;
    dt_rec_init(&done);
    DCMF_Multicast_t m = {&mc_p[proto], &req, dt_done(&done), SEQ, (dt_me + round) % NCONN, bytes, src,
                          n, ranks, opcodes ? ops : NULL, mi, count, DCMF_UNDEFINED_OP, DCMF_UNDEFINED_DT, 0};
    dt_barrier();
    CHECK_RC(DCMF_Multicast(&m), DCMF_SUCCESS);
    CHECK(dt_get(&done.calls) == 0, "multicast: cb_done ran inside the call");
    memset(&m, 0, sizeof m); /* the structure is the caller's again at once */
    wait_until(&done.calls, 1, DT_WAIT_S);
    unsigned expect = (unsigned)dt_np - (self ? 0 : 1);
    wait_until(&mc_rdone, (int)expect, DT_WAIT_S);
    CHECK_REC(&done, 1, 0, "multicast sender");
    CHECK(dt_get(&mc_arrived) == (int)expect && dt_get(&mc_bad) == 0,
          "round %u: %d arrivals (%d with errors), expected %u", round, dt_get(&mc_arrived),
          dt_get(&mc_bad), expect);
    unsigned take = bytes < rcvcap ? bytes : rcvcap;
    for (size_t from = 0; from < dt_np; from++) {
        char *b = mc_rbuf + from * SLOT;
        if (from == dt_me && !self) {
            CHECK_BYTES(b, SLOT, SENTINEL, "multicast slot of this rank itself");
            continue;
        }
        CHECK(seen[from].sndlen == bytes && seen[from].count == count &&
                  seen[from].conn == (from + round) % NCONN && seen[from].proto == (unsigned)proto,
              "round %u from rank %zu: sndlen %u count %u conn %u proto %u", round, from,
              seen[from].sndlen, seen[from].count, seen[from].conn, seen[from].proto);
        CHECK_PAT(b, take, seed_of(from, round), 0, "multicast data");
        CHECK_BYTES(b + take, SLOT - take, SENTINEL, "past the multicast receive length");
    }
}

static void mc_errors(void)
{
    const char *fn = "DCMF_Multicast", *fr = "DCMF_Multicast_register";
    DCMF_Protocol_t p;
    DCMF_Multicast_Configuration_t c = {DCMF_GI_MSEND_PROTOCOL, mc_recv, NULL, conns[0], NCONN};
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_UNIMPL, fr);
    c.protocol = DCMF_TREE_MSEND_PROTOCOL;
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_UNIMPL, fr);
    c.protocol = DCMF_DPUT_DMA_MSEND_PROTOCOL;
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_UNIMPL, fr);
    c.protocol = DCMF_TREE_DPUT_MSEND_PROTOCOL;
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_UNIMPL, fr);
    c.protocol = (DCMF_Multicast_Protocol)99;
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_INVAL, fr);
    c.protocol = DCMF_DEFAULT_MSEND_PROTOCOL;
    c.cb_recv = NULL;
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_INVAL, fr);
    c.cb_recv = mc_recv;
    c.nconnections = 0;
    CHECK_ERR(DCMF_Multicast_register(&p, &c), DCMF_INVAL, fr);
    DCMF_MulticastRecv_t pr = {&mc_p[0], mc_rreq, dt_nocb(), 0, 10, mc_rbuf, 10,
                               DCMF_PT_TO_PT_SEND, DCMF_UNDEFINED_OP, DCMF_UNDEFINED_DT};
    CHECK_ERR(DCMF_Multicast_postrecv(&pr), DCMF_UNIMPL, "DCMF_Multicast_postrecv");

    char src[64] = {0};
    unsigned to = (unsigned)((dt_me + 1) % dt_np), bad_rank = (unsigned)dt_np;
    DCMF_Opcode_t line = DCMF_LINE_BCAST_XP;
    DCQuad mi[7];
    memset(mi, 0, sizeof mi);
    DCMF_Request_t req;
    DCMF_Multicast_t m = {&mc_p[0], &req, dt_nocb(), SEQ, 0, 64, src, 1, &to, NULL, mi, 0,
                          DCMF_UNDEFINED_OP, DCMF_UNDEFINED_DT, 0};
    m.opcodes = &line;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_UNIMPL, fn);
    m.opcodes = NULL;
    m.connection_id = NCONN;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    m.connection_id = 0;
    m.count = 7;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    m.count = 0;
    m.ranks = &bad_rank;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    m.ranks = NULL;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    m.ranks = &to;
    m.src = NULL;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    m.src = src;
    m.request = NULL;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    m.registration = &dt.xsend; /* a send protocol */
    m.request = &req;
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Multicast(NULL), DCMF_INVAL, fn);
    /* nothing was sent: a refused call posts nothing */
}

/* No destinations: success, and cb_done in the next advance. */
static void mc_nobody(void)
{
    DCMF_Request_t req;
    struct dt_rec done;
    dt_rec_init(&done);
    DCMF_Multicast_t m = {&mc_p[1], &req, dt_done(&done), SEQ, 1, 0, NULL, 0, NULL, NULL, NULL, 0,
                          DCMF_UNDEFINED_OP, DCMF_UNDEFINED_DT, 0};
    CHECK_RC(DCMF_Multicast(&m), DCMF_SUCCESS);
    CHECK(dt_get(&done.calls) == 0, "an empty multicast called back inside the call");
    /* its request is in use until then */
    CHECK_ERR(DCMF_Multicast(&m), DCMF_INVAL, "DCMF_Multicast");
    DCMF_Messager_advance();
    CHECK_REC(&done, 1, 0, "empty multicast");
    CHECK_RC(DCMF_Multicast(&m), DCMF_SUCCESS);
    wait_until(&done.calls, 2, DT_WAIT_S);
}

/* ================= many-to-many ================= */

static DCMF_Protocol_t m2m_p;
static volatile int opened[NCONN], rdone[NCONN], sdone;
struct m2m_rx {
    char *buf;
    unsigned *lens, *displs, *counters;
    unsigned n, mine;
    DCMF_Request_t req;
};
static struct m2m_rx rx[NCONN][2]; /* per connection: the first and second operation */

static void m2m_rdone_cb(void *cd, DCMF_Error_t *e)
{
    CHECK(!e, "many-to-many receive completed with error %d", e ? (int)e->result : 0);
    dt_inc(&rdone[(uintptr_t)cd]);
}

static void m2m_sdone_cb(void *cd, DCMF_Error_t *e)
{
    (void)cd;
    CHECK(!e, "many-to-many send completed with error %d", e ? (int)e->result : 0);
    dt_inc(&sdone);
}

static DCMF_Request_t *m2m_recv(unsigned conn, void *arg, char **rcvbuf, unsigned **rcvlens,
                                unsigned **rcvdispls, unsigned **rcvcounters, unsigned *nranks,
                                unsigned *rankIndex, DCMF_Callback_t *cb_done)
{
    CHECK(arg == (void *)&m2m_p, "many-to-many receive: arg %p", arg);
    CHECK(conn < NCONN, "many-to-many receive: connection %u", conn);
    int k = dt_inc(&opened[conn]) - 1;
    CHECK(k < 2, "many-to-many receive: a third operation on connection %u", conn);
    struct m2m_rx *r = &rx[conn][k];
    CHECK(r->buf, "many-to-many receive: nothing prepared for operation %d of connection %u", k, conn);
    *rcvbuf = r->buf;
    *rcvlens = r->lens;
    *rcvdispls = r->displs;
    *rcvcounters = r->counters;
    *nranks = r->n;
    *rankIndex = r->mine;
    *cb_done = (DCMF_Callback_t){m2m_rdone_cb, (void *)(uintptr_t)conn};
    return &r->req;
}

/* Slice lengths: some empty, some long. */
static unsigned len_of(size_t from, size_t to, unsigned round)
{
    static const unsigned l[] = {0, 1, 100, 3000, 40000, 7};
    return l[(from * 3 + to + round) % 6];
}

/* Receive side of an all-to-all on conn (operation k): index i is rank i,
 * slices packed with a 16-byte gap, this rank's own index excluded. */
static size_t prep_all(unsigned conn, int k, unsigned round)
{
    struct m2m_rx *r = &rx[conn][k];
    size_t off = 16, total;
    r->n = (unsigned)dt_np;
    r->mine = (unsigned)dt_me;
    for (size_t i = 0; i < dt_np; i++) {
        r->lens[i] = i == dt_me ? 12345 : len_of(i, dt_me, round);
        r->displs[i] = (unsigned)off;
        off += (i == dt_me ? 0 : r->lens[i]) + 16;
    }
    total = off;
    memset(r->buf, SENTINEL, total);
    return total;
}

static void check_all(unsigned conn, int k, unsigned round, size_t total)
{
    struct m2m_rx *r = &rx[conn][k];
    size_t prev = 0;
    for (size_t i = 0; i < dt_np; i++) {
        size_t d = r->displs[i];
        CHECK_BYTES(r->buf + prev, d - prev, SENTINEL, "a gap of the many-to-many receive buffer");
        if (i == dt_me)
            continue;
        CHECK_PAT(r->buf + d, r->lens[i], seed_of(i, round) + (uint32_t)dt_me, 0, "many-to-many slice");
        prev = d + r->lens[i];
    }
    CHECK_BYTES(r->buf + prev, total - prev, SENTINEL, "the end of the many-to-many receive buffer");
}

/* Send side: slice for rank k at a displacement of its own (reversed
 * order in the buffer), sent in reverse permutation order. */
struct m2m_tx {
    char *buf;
    unsigned *lens, *displs, *counters, *ranks, *perm, *idx;
    DCMF_Request_t req;
};
static struct m2m_tx tx[2];

static void send_all(int which, unsigned conn, unsigned round)
{
    struct m2m_tx *t = &tx[which];
    unsigned n = 0;
    size_t off = 0;
    for (size_t r = dt_np; r-- > 0;) {
        if (r == dt_me)
            continue;
        t->ranks[n] = (unsigned)r;
        t->lens[n] = len_of(dt_me, r, round);
        t->displs[n] = (unsigned)off;
        t->idx[n] = (unsigned)dt_me; /* the receiver's index for this rank */
        dt_fill(t->buf + off, t->lens[n], seed_of(dt_me, round) + (uint32_t)r, 0);
        off += t->lens[n] + 8;
        n++;
    }
    for (unsigned j = 0; j < n; j++)
        t->perm[j] = n - 1 - j;
    CHECK_RC(DCMF_Manytomany(&m2m_p, &t->req, (DCMF_Callback_t){m2m_sdone_cb, NULL}, SEQ, conn, 1, 0, t->idx,
                             t->buf, t->lens, t->displs, t->counters, t->ranks, t->perm, n),
             DCMF_SUCCESS);
}

static void m2m_all_to_all(void)
{
    /* two connections at once, then two operations on one connection */
    size_t t0 = prep_all(0, 0, 1), t1 = prep_all(1, 0, 2);
    size_t t2 = prep_all(2, 0, 3), t3 = prep_all(2, 1, 4);
    memset((void *)opened, 0, sizeof opened);
    memset((void *)rdone, 0, sizeof rdone);
    dt_set(&sdone, 0);
    dt_barrier();
    send_all(0, 0, 1);
    send_all(1, 1, 2);
    CHECK(dt_get(&sdone) == 0, "many-to-many: cb_done ran inside the call");
    wait_until(&sdone, 2, DT_WAIT_S);
    wait_until(&rdone[0], 1, DT_WAIT_S);
    wait_until(&rdone[1], 1, DT_WAIT_S);
    check_all(0, 0, 1, t0);
    check_all(1, 0, 2, t1);
    dt_barrier(); /* the send buffers are free again everywhere */
    send_all(0, 2, 3);
    send_all(1, 2, 4);
    wait_until(&sdone, 4, DT_WAIT_S);
    wait_until(&rdone[2], 2, DT_WAIT_S);
    check_all(2, 0, 3, t2);
    check_all(2, 1, 4, t3);
    CHECK(dt_get(&opened[0]) == 1 && dt_get(&opened[1]) == 1 && dt_get(&opened[2]) == 2,
          "receive callbacks per connection: %d %d %d, expected 1 1 2", dt_get(&opened[0]),
          dt_get(&opened[1]), dt_get(&opened[2]));
    CHECK(dt_get(&sdone) == 4 && dt_get(&rdone[0]) == 1 && dt_get(&rdone[1]) == 1 && dt_get(&rdone[2]) == 2,
          "completions: sent %d, received %d %d %d", dt_get(&sdone), dt_get(&rdone[0]),
          dt_get(&rdone[1]), dt_get(&rdone[2]));
    dt_barrier();
}

/* A ring: one slice to the right neighbour, at index 0 of the receiver
 * (a single rindex for every destination), the receiver's own index 1
 * excluded; 300000 bytes, several times the pipeline unit. */
static void m2m_ring(void)
{
    enum { RING = 300000 };
    static char sbuf[RING + 64], rbuf[RING + 64];
    unsigned to = (unsigned)((dt_me + 1) % dt_np), from = (unsigned)((dt_me + dt_np - 1) % dt_np);
    unsigned slen = RING, sdisp = 64, cnt[1], perm = 0;
    struct m2m_rx *r = &rx[3][0];
    static unsigned lens[2], displs[2], counters[2];
    lens[0] = RING, lens[1] = 999, displs[0] = 32, displs[1] = 0;
    r->buf = rbuf, r->lens = lens, r->displs = displs, r->counters = counters, r->n = 2, r->mine = 1;
    memset(rbuf, SENTINEL, sizeof rbuf);
    dt_fill(sbuf + 64, RING, seed_of(dt_me, 9), 0);
    opened[3] = 0, rdone[3] = 0;
    dt_set(&sdone, 0);
    dt_barrier();
    DCMF_Request_t req;
    CHECK_RC(DCMF_Manytomany(&m2m_p, &req, (DCMF_Callback_t){m2m_sdone_cb, NULL}, DCMF_RELAXED_CONSISTENCY, 3, 0,
                             0, NULL, sbuf, &slen, &sdisp, cnt, &to, &perm, 1),
             DCMF_SUCCESS);
    wait_until(&sdone, 1, DT_WAIT_S);
    wait_until(&rdone[3], 1, DT_WAIT_S);
    CHECK_BYTES(rbuf, 32, SENTINEL, "before the ring slice");
    CHECK_PAT(rbuf + 32, RING, seed_of(from, 9), 0, "ring slice");
    CHECK_BYTES(rbuf + 32 + RING, sizeof rbuf - 32 - RING, SENTINEL, "after the ring slice");
    dt_barrier();
}

static void m2m_errors(void)
{
    const char *fn = "DCMF_Manytomany", *fr = "DCMF_Manytomany_register";
    DCMF_Protocol_t p;
    DCMF_Manytomany_Configuration_t c = {DCMF_MEMFIFO_DMA_M2M_PROTOCOL, m2m_recv, NULL, 33};
    CHECK_ERR(DCMF_Manytomany_register(&p, &c), DCMF_INVAL, fr);
    c.nconnections = 0;
    CHECK_ERR(DCMF_Manytomany_register(&p, &c), DCMF_INVAL, fr);
    c.nconnections = 2;
    c.cb_recv = NULL;
    CHECK_ERR(DCMF_Manytomany_register(&p, &c), DCMF_INVAL, fr);
    c.cb_recv = m2m_recv;
    c.protocol = (DCMF_Manytomany_Protocol)5;
    CHECK_ERR(DCMF_Manytomany_register(&p, &c), DCMF_INVAL, fr);
    CHECK_ERR(DCMF_Manytomany_register(&p, NULL), DCMF_INVAL, fr);

    char b[8] = {0};
    unsigned lens[2] = {4, 4}, displs[2] = {0, 4}, cnt[2], ranks[2] = {0, 0}, dup[2] = {1, 1},
             perm[2] = {1, 0}, bad = (unsigned)dt_np;
    DCMF_Request_t req;
    DCMF_Callback_t cb = dt_nocb();
    CHECK_ERR(DCMF_Manytomany(&m2m_p, &req, cb, SEQ, 0, 0, 0, NULL, b, lens, displs, cnt, ranks, dup, 2),
              DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Manytomany(&m2m_p, &req, cb, SEQ, NCONN, 0, 0, NULL, b, lens, displs, cnt, ranks, perm, 2),
              DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Manytomany(&m2m_p, &req, cb, SEQ, 0, 1, 0, NULL, b, lens, displs, cnt, ranks, perm, 2),
              DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Manytomany(&m2m_p, &req, cb, SEQ, 0, 0, 0, NULL, b, lens, displs, cnt, &bad, perm, 1),
              DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Manytomany(&m2m_p, &req, cb, SEQ, 0, 0, 0, NULL, NULL, lens, displs, cnt, ranks, perm, 2),
              DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Manytomany(&m2m_p, NULL, cb, SEQ, 0, 0, 0, NULL, b, lens, displs, cnt, ranks, perm, 2),
              DCMF_INVAL, fn);
    CHECK_ERR(DCMF_Manytomany(&mc_p[0], &req, cb, SEQ, 0, 0, 0, NULL, b, lens, displs, cnt, ranks, perm, 2),
              DCMF_INVAL, fn);
    /* nobody to send to: cb_done in the next advance */
    struct dt_rec done;
    dt_rec_init(&done);
    CHECK_RC(DCMF_Manytomany(&m2m_p, &req, dt_done(&done), SEQ, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                             NULL, 0),
             DCMF_SUCCESS);
    CHECK(dt_get(&done.calls) == 0, "an empty many-to-many called back inside the call");
    wait_until(&done.calls, 1, DT_WAIT_S);
    CHECK_REC(&done, 1, 0, "empty many-to-many");
}

int main(void)
{
    dt_init();
    /* multicast: a default and a memory-FIFO protocol */
    for (int i = 0; i < 2; i++) {
        DCMF_Multicast_Configuration_t c = {i ? DCMF_MEMFIFO_DMA_MSEND_PROTOCOL : DCMF_DEFAULT_MSEND_PROTOCOL,
                                            mc_recv, &tag[i], conns[i], NCONN};
        CHECK_RC(DCMF_Multicast_register(&mc_p[i], &c), DCMF_SUCCESS);
    }
    DCMF_Manytomany_Configuration_t mc = {DCMF_DEFAULT_M2M_PROTOCOL, m2m_recv, (void *)&m2m_p, NCONN};
    CHECK_RC(DCMF_Manytomany_register(&m2m_p, &mc), DCMF_SUCCESS);
    mc_rbuf = dt_xmalloc(dt_np * SLOT);
    mc_rreq = dt_xmalloc(dt_np * sizeof *mc_rreq);
    seen = dt_xmalloc(dt_np * sizeof *seen);

    static const unsigned sizes[] = {0, 1, 100, 5000, SLOT};
    unsigned round = 0;
    for (unsigned s = 0; s < 5; s++)
        for (int proto = 0; proto < 2; proto++, round++)
            mc_round_run(round, sizes[s], (round * 5) % 7, proto, 0, (int)(round % 2), SLOT);
    mc_round_run(round++, 3000, 2, 0, 1, 1, SLOT);      /* to itself too */
    mc_round_run(round++, SLOT, 6, 1, 0, 0, 1000);      /* the receivers take 1000 bytes */
    mc_round_run(round++, 50, 1, 0, 0, 1, 20);
    mc_round_run(round++, 64, 0, 1, 0, 0, SLOT);      /* one packet (inline), taken whole */
    mc_round_run(round++, 64, 1, 0, 1, 1, 40);        /* one packet, partly */
    mc_nobody();
    mc_errors();
    dt_barrier();

    for (int k = 0; k < 2; k++) {
        struct m2m_tx *t = &tx[k];
        t->buf = dt_xmalloc(dt_np * (40000 + 8));
        t->lens = dt_xmalloc(dt_np * sizeof(unsigned));
        t->displs = dt_xmalloc(dt_np * sizeof(unsigned));
        t->counters = dt_xmalloc(dt_np * sizeof(unsigned));
        t->ranks = dt_xmalloc(dt_np * sizeof(unsigned));
        t->perm = dt_xmalloc(dt_np * sizeof(unsigned));
        t->idx = dt_xmalloc(dt_np * sizeof(unsigned));
    }
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 2; k++) {
            struct m2m_rx *r = &rx[c][k];
            r->buf = dt_xmalloc(dt_np * (40000 + 16) + 16);
            r->lens = dt_xmalloc(dt_np * sizeof(unsigned));
            r->displs = dt_xmalloc(dt_np * sizeof(unsigned));
            r->counters = dt_xmalloc(dt_np * sizeof(unsigned));
        }
    if (dt_np > 1) /* (alone, a rank has nobody else to send to) */
        m2m_all_to_all();
    m2m_ring();
    m2m_errors();

    dt_finish("dcmf_multisend");
    return 0;
}
