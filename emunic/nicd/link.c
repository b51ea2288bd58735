/* The link layer: fault injection and the link-level reliability protocol
 * (see link.h and docs/faults.md).
 *
 * Every data packet to a peer node takes the next sequence number of the
 * (this node, peer) pair. The receiver delivers in sequence, buffering
 * what comes early (an EMU_F_UNORDERED request that asks for no
 * completion goes at once), drops duplicates, and acknowledges
 * cumulatively: piggy-backed on any packet going back, or in an ack-only
 * control packet at the end of the turn, which carries a selective-ack
 * map while packets wait behind a hole. The sender keeps each packet until
 * acked; it resends a hole the first time a SACK shows a later packet
 * arrived (the wire keeps order, so that packet is lost), then once per
 * round trip, and any packet on its own timer (RTO from the measured round
 * trip, doubling per attempt up to RTO_MAX_NS). At most LINK_WIN packets
 * are unacked per peer; more wait, in order, for the window.
 *
 * Under --unreliable the requests that asked for completion (and their
 * answers) travel "raw": never sent twice. When one would be resent, a
 * tombstone (LF_SKIP) goes in its place, so the sequence (and the order of
 * everything behind it) holds, and the initiator's NIC, which keeps a
 * time-out per raw request, posts one EMU_CQ_DONE with EMU_E_LOST; an
 * answer arriving after that is discarded. Exactly one completion each.
 *
 * Fault decisions are a hash of (seed, link, sequence number, attempt,
 * rule), not a stream of draws, so the fate of each packet replays with
 * the seed whatever the timing of acks and retransmits. */
#include "link.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emunic/fault.h"
#include "nic.h"
#include "trace.h"

int emu_link_on;

#define LINK_OP 0x7f /* control packets and second fragments (never a command) */
#define LINK_TRAILER_SIZE 20
#define FRAG_SPLIT (EMU_INLINE_MAX - LINK_TRAILER_SIZE)

#define LF_SEQ 0x01
#define LF_RAW 0x02  /* --unreliable: never resent (a tombstone replaces it) */
#define LF_ACKV 0x04
#define LF_GAP 0x08
#define LF_FRAG1 0x10
#define LF_FRAG2 0x20
#define LF_CTRL 0x40
#define LF_SKIP 0x80 /* tombstone: the raw packet of this seq is gone */

#define LINK_WIN 512u              /* unacknowledged packets per peer */
#define RTO0_NS 4000000ll          /* first time-out, before any round trip is measured */
#define RTO_MIN_NS 1000000ll       /* floor of the measured time-out */
#define RTO_MAX_NS 128000000ll     /* back-off ceiling */
#define FAST_GUARD_NS 500000ll     /* no fast retransmit sooner after a send */
#define LOSS_TIMEOUT_NS 250000000ll /* --unreliable: a request's time-out */
#define REORDER_HOLD_NS 200000ll   /* a reordered packet waits up to this */
#define SLOW_BASE_NS 2000ll        /* slow=nN:F adds (F-1) x this per packet */

struct link_trailer {
    uint32_t seq; /* sequence number (LF_SEQ); control packets: their own count */
    uint32_t ack; /* next sequence number expected from the peer (LF_ACKV) */
    uint32_t csum;
    uint16_t odlen; /* dlen without the trailer */
    uint16_t src;   /* sending node */
    uint8_t flags;
    uint8_t pad[3];
};
_Static_assert(sizeof(struct link_trailer) == LINK_TRAILER_SIZE, "trailer size");
_Static_assert(LINK_WIN / 8 <= FRAG_SPLIT, "a SACK map fits a control packet");

struct txslot {
    struct emu_msg m; /* as routed (decoded); a fragment's own part */
    int64_t due, sent;
    int64_t rto;
    uint32_t attempts;
    uint8_t live, frag, sacked;
};

struct rxslot {
    struct emu_msg m;
    uint8_t have, early, frag;
};

struct pend {
    struct pend *next;
    uint8_t raw;
    struct emu_msg m;
};

struct held {
    struct held *next;
    int64_t at;
    uint32_t node;
    struct emu_msg m; /* encoded */
};

struct peer {
    /* sending to the peer */
    uint32_t next, una;
    struct txslot *tx; /* [LINK_WIN], on first use */
    struct pend *ph, *pt;
    uint32_t ctrl_next;
    struct held *hh, *ht; /* delayed packets, in order */
    int64_t last_release, busy_until;
    int64_t srtt, rttvar, rto; /* round trip (Jacobson/Karels), 0: none yet */
    uint64_t ge_bad; /* Gilbert-Elliott state per rule */
    /* receiving from the peer */
    uint32_t expect, nooo;
    struct rxslot *rx; /* [LINK_WIN], on first use */
    uint8_t ack_due, in_ackq, have_frag;
    struct emu_msg frag;
};

/* A request under --unreliable that waits for its answer: a core op's
 * EMU_OP_ACK, or a Portals data op's PTLX_RESULT (module traffic is
 * otherwise opaque to the link layer, so personalities whose NIC halves
 * talk in other request/reply pairs keep them sequenced). */
struct track {
    uint32_t src, dst;
    uint64_t cookie;
    int64_t due;
    uint8_t flags, module, live, aop;
    uint64_t len, raddr;
};

static struct {
    struct emu_nic *nic;
    link_wire_fn wire;
    const struct emu_netcfg *net;
    uint32_t me, nnodes, nrules;
    const struct emu_fault_rule *rules;
    int unreliable, pkt_faults, kill_after;
    uint64_t seed;
    struct peer *peers;
    uint32_t *ackq, nackq;
    uint32_t inflight, npend, nheld;
    int64_t next_rto;
    struct held *reorder;
    struct track *trk;
    size_t trk_head, trk_n, trk_cap; /* ring of time-outs, in due order */
    size_t trk_live;
    uint64_t *rank_msgs; /* [nlocal] */
    uint8_t fired[EMU_FAULT_MAX];
    uint32_t timed_left;
    int bumped, raw_ctx;
    int32_t drain;
} L;

/* ---- helpers ---- */

/* Uniform in [0,1) for one decision about one packet. */
static double draw(uint32_t dst, uint64_t id, uint32_t rule, uint32_t what)
{
    return emu_fault_draw(L.seed, (uint64_t)L.me << 32 | dst, id, rule, what);
}

static uint32_t csum(const struct emu_msg *w)
{
    const unsigned char *b = (const unsigned char *)w;
    size_t n = EMU_MSG_HDR_SIZE + w->dlen;
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        h = (h ^ v) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    h = emu_fault_mix(h);
    return (uint32_t)(h ^ (h >> 32));
}

static void note(const char *what, uint32_t a, uint32_t b, const struct emu_msg *m)
{
    if (TRACE_ON())
        trace_fault(L.nic, what, a, b, m);
}

/* Keep the engine's loop on a 1 ms tick while timers are pending: it
 * sleeps at most 1 ms while backlog_total is non-zero. */
static void tick_keep(void)
{
    int need = L.inflight || L.npend || L.nheld || L.trk_live || L.nackq || L.timed_left;
    if (need && !L.bumped) {
        L.nic->backlog_total++;
        L.bumped = 1;
    } else if (!need && L.bumped) {
        L.nic->backlog_total--;
        L.bumped = 0;
    }
}

static int64_t job_time(int64_t now) { return now - L.net->start_ns; }

static int is_request(const struct emu_msg *m) { return m->op != EMU_OP_ACK && m->op != LINK_OP; }

/* Does rule r cover a packet from node a to node b (m: NULL for control
 * packets, which have no ranks or op) at job time t? */
static int covers(const struct emu_fault_rule *r, uint32_t a, uint32_t b, const struct emu_msg *m, int64_t t)
{
    int real = m && m->op != LINK_OP;
    struct emu_fault_subject s = {a, b, real ? m->op : -1, real ? (int32_t)m->src : -1,
                                  real ? (int32_t)m->dst : -1};
    return emu_fault_covers(r, &s, t);
}

/* ---- putting packets on the wire (faults happen here) ---- */

/* Bytes of an encoded packet: a corrupted dlen must not make us read
 * past it (the ring clamps the same way; the receiver's check drops it). */
static size_t wire_len(const struct emu_msg *w)
{
    return EMU_MSG_HDR_SIZE + (w->dlen <= EMU_INLINE_MAX ? w->dlen : EMU_INLINE_MAX);
}

static void hold(struct peer *p, uint32_t node, const struct emu_msg *w, int64_t at)
{
    struct held *h = malloc(sizeof *h);
    if (!h) {
        L.wire(L.nic, node, w); /* no memory to delay it: send it now */
        return;
    }
    if (at < p->last_release)
        at = p->last_release;
    p->last_release = at;
    h->next = NULL;
    h->at = at;
    h->node = node;
    memcpy(&h->m, w, wire_len(w));
    if (p->ht)
        p->ht->next = h;
    else
        p->hh = h;
    p->ht = h;
    L.nheld++;
}

static void hold_reorder(uint32_t node, const struct emu_msg *w, int64_t at)
{
    struct held *h = malloc(sizeof *h);
    if (!h) {
        L.wire(L.nic, node, w);
        return;
    }
    h->at = at;
    h->node = node;
    memcpy(&h->m, w, wire_len(w));
    h->next = L.reorder;
    L.reorder = h;
    L.nheld++;
}

/* The packet's fate under the plan, then onto the wire (or into a hold). */
static void inject(struct peer *p, uint32_t node, struct emu_msg *w, const struct emu_msg *scope, uint64_t id)
{
    struct emu_nic *nic = L.nic;
    int64_t now = emu_now_ns(), t = job_time(now), extra = 0;
    int dup = 0, reorder = 0;
    for (uint32_t i = 0; i < L.nrules; i++) {
        const struct emu_fault_rule *r = &L.rules[i];
        if (r->kind > EMU_FAULT_SLOW || !covers(r, L.me, node, scope, t))
            continue;
        switch (r->kind) {
        case EMU_FAULT_LINKDOWN:
            EMU_CTR_ADD(nic->ctr, drops, 1);
            note("linkdown", L.me, node, scope);
            return;
        case EMU_FAULT_DROP: {
            double loss = r->prob;
            if (r->ge_r > 0) {
                uint64_t bit = 1ull << i;
                int bad = (p->ge_bad & bit) != 0;
                double u = draw(node, id, i, 1);
                if (!bad && u < r->ge_p)
                    p->ge_bad |= bit, bad = 1;
                else if (bad && u < r->ge_r)
                    p->ge_bad &= ~bit, bad = 0;
                loss = bad ? r->ge_loss : 0;
            }
            if (loss > 0 && draw(node, id, i, 2) < loss) {
                EMU_CTR_ADD(nic->ctr, drops, 1);
                note("drop", L.me, node, scope);
                return;
            }
            break;
        }
        case EMU_FAULT_CORRUPT:
            if (draw(node, id, i, 3) < r->prob) {
                /* after the checksum: the receiver catches it */
                uint64_t bits = (uint64_t)wire_len(w) * 8;
                uint64_t bit = (uint64_t)(draw(node, id, i, 4) * (double)bits);
                if (bit >= bits)
                    bit = bits - 1;
                ((unsigned char *)w)[bit / 8] ^= (unsigned char)(1u << (bit % 8));
                note("corrupt", L.me, node, scope);
            }
            break;
        case EMU_FAULT_DUP:
            if (draw(node, id, i, 5) < r->prob) {
                dup = 1;
                note("dup", L.me, node, scope);
            }
            break;
        case EMU_FAULT_REORDER:
            if (scope && is_request(scope) && (scope->flags & EMU_F_UNORDERED) &&
                draw(node, id, i, 6) < r->prob)
                reorder = 1;
            break;
        case EMU_FAULT_DELAY:
            extra += (int64_t)r->delay_ns + (int64_t)(draw(node, id, i, 7) * (double)r->jitter_ns);
            break;
        case EMU_FAULT_THROTTLE: {
            double bytes = (double)wire_len(w);
            if (scope && ((scope->op == EMU_OP_WRITE && !(scope->flags & EMU_F_INLINE)) || scope->op == EMU_OP_READ))
                bytes += (double)scope->len;
            int64_t start = p->busy_until > now ? p->busy_until : now;
            p->busy_until = start + (int64_t)(bytes * 1e9 / r->factor);
            if (p->busy_until - now > extra)
                extra = p->busy_until - now;
            break;
        }
        case EMU_FAULT_SLOW:
            if ((uint32_t)r->node_a == L.me)
                extra += (int64_t)((r->factor - 1) * (double)SLOW_BASE_NS);
            break;
        default:
            break;
        }
    }
    for (int k = 0; k <= dup; k++) {
        if (reorder && k == 0) {
            EMU_CTR_ADD(nic->ctr, reordered, 1);
            note("reorder", L.me, node, scope);
            hold_reorder(node, w, now + extra + (int64_t)(draw(node, id, 0, 8) * REORDER_HOLD_NS) + 20000);
        } else if (extra > 0 || p->hh) {
            hold(p, node, w, now + extra);
        } else {
            L.wire(nic, node, w);
        }
    }
}

/* Encode m (decoded) with a trailer and send it. */
static void transmit(uint32_t node, const struct emu_msg *m, uint8_t flags, uint32_t seq, uint32_t attempt)
{
    struct peer *p = &L.peers[node];
    struct emu_msg w;
    memcpy(&w, m, EMU_MSG_HDR_SIZE + m->dlen);
    struct link_trailer t;
    memset(&t, 0, sizeof t);
    t.seq = seq;
    t.odlen = m->dlen;
    t.src = (uint16_t)L.me;
    t.flags = (uint8_t)(flags | LF_ACKV | (p->nooo ? LF_GAP : 0));
    t.ack = p->expect;
    p->ack_due = 0;
    w.dlen = (uint16_t)(m->dlen + LINK_TRAILER_SIZE);
    memcpy(w.data + m->dlen, &t, sizeof t);
    t.csum = csum(&w);
    memcpy(w.data + m->dlen, &t, sizeof t);
    if (!L.pkt_faults) {
        L.wire(L.nic, node, &w);
        return;
    }
    uint64_t cls = flags & LF_SEQ ? 1 : flags & LF_RAW ? 2 : 3;
    uint64_t id = cls << 62 | (uint64_t)attempt << 32 | seq;
    const struct emu_msg *scope = (flags & (LF_CTRL | LF_FRAG2)) ? NULL : m;
    inject(p, node, &w, scope, id);
}

static void send_seq(uint32_t node, const struct emu_msg *m, uint8_t frag)
{
    struct peer *p = &L.peers[node];
    struct txslot *s = &p->tx[p->next % LINK_WIN];
    int64_t now = emu_now_ns();
    memcpy(&s->m, m, EMU_MSG_HDR_SIZE + m->dlen);
    s->live = 1;
    s->frag = frag;
    s->sacked = 0;
    s->attempts = 0;
    s->rto = p->rto ? p->rto : RTO0_NS;
    s->sent = now;
    s->due = now + s->rto;
    if (!L.inflight || s->due < L.next_rto)
        L.next_rto = s->due;
    L.inflight++;
    uint32_t seq = p->next++;
    transmit(node, &s->m, (uint8_t)(LF_SEQ | frag), seq, 0);
}

/* Sequence and send m, fragmenting a payload the trailer does not fit
 * beside. Needs room for two in the window. */
static void send_new(uint32_t node, const struct emu_msg *m, uint8_t raw)
{
    if (m->dlen <= FRAG_SPLIT) {
        send_seq(node, m, raw ? LF_RAW : 0);
        return;
    }
    struct emu_msg a, b;
    memcpy(&a, m, EMU_MSG_HDR_SIZE + FRAG_SPLIT);
    a.dlen = FRAG_SPLIT;
    memset(&b, 0, EMU_MSG_HDR_SIZE);
    b.op = LINK_OP;
    b.dlen = (uint16_t)(m->dlen - FRAG_SPLIT);
    memcpy(b.data, m->data + FRAG_SPLIT, b.dlen);
    send_seq(node, &a, (uint8_t)(LF_FRAG1 | (raw ? LF_RAW : 0)));
    send_seq(node, &b, (uint8_t)(LF_FRAG2 | (raw ? LF_RAW : 0)));
}

static int window_has(const struct peer *p, uint32_t n) { return p->next - p->una + n <= LINK_WIN; }

static void pump(uint32_t node)
{
    struct peer *p = &L.peers[node];
    while (p->ph && window_has(p, p->ph->m.dlen > FRAG_SPLIT ? 2 : 1)) {
        struct pend *d = p->ph;
        p->ph = d->next;
        if (!p->ph)
            p->pt = NULL;
        L.npend--;
        send_new(node, &d->m, d->raw);
        free(d);
    }
}

static int track_add(const struct emu_msg *m, int64_t now)
{
    if (L.trk_n == L.trk_cap) {
        size_t cap = L.trk_cap ? 2 * L.trk_cap : 256;
        struct track *t = malloc(cap * sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; i < L.trk_n; i++)
            t[i] = L.trk[(L.trk_head + i) % L.trk_cap];
        free(L.trk);
        L.trk = t;
        L.trk_cap = cap;
        L.trk_head = 0;
    }
    struct track *t = &L.trk[(L.trk_head + L.trk_n++) % L.trk_cap];
    t->src = m->src;
    t->dst = m->dst;
    t->cookie = m->cookie;
    t->due = now + (int64_t)(LOSS_TIMEOUT_NS * (L.net->dilate > 1 ? L.net->dilate : 1));
    t->flags = (uint8_t)(m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ));
    t->module = m->module;
    t->aop = m->op == EMU_OP_MODULE ? m->aop : 0;
    t->len = m->len;
    t->raddr = m->raddr;
    t->live = 1;
    L.trk_live++;
    return 0;
}

static int is_ptl_request(const struct emu_msg *m)
{
    return m->op == EMU_OP_MODULE && m->module == EMU_MOD_PORTALS && m->aop >= LINK_PTLX_PUT && m->aop <= LINK_PTLX_SWAP;
}

static int is_ptl_result(const struct emu_msg *m)
{
    return m->op == EMU_OP_MODULE && m->module == EMU_MOD_PORTALS && m->aop == LINK_PTLX_RESULT;
}

/* An answer arrived (a core ack, or a Portals result, whose src and dst
 * are the other way round): 1 if it answers a request we track. */
static int track_take(const struct emu_msg *ans)
{
    int ptl = ans->op == EMU_OP_MODULE;
    uint32_t src = ptl ? ans->dst : ans->src, dst = ptl ? ans->src : ans->dst;
    for (size_t i = 0; i < L.trk_n; i++) {
        struct track *t = &L.trk[(L.trk_head + i) % L.trk_cap];
        if (t->live && t->cookie == ans->cookie && t->src == src && t->dst == dst && (t->aop != 0) == ptl) {
            t->live = 0;
            L.trk_live--;
            return 1;
        }
    }
    return 0;
}

static int track_expire(int64_t now)
{
    int n = 0;
    while (L.trk_n) {
        struct track *t = &L.trk[L.trk_head];
        if (t->live && t->due > now)
            break;
        if (t->live && t->aop) {
            /* the Portals NIC half hears "undeliverable" from the net */
            struct emu_msg r;
            memset(&r, 0, EMU_MSG_HDR_SIZE);
            r.op = EMU_OP_MODULE;
            r.module = EMU_MOD_PORTALS;
            r.aop = LINK_PTLX_RESULT;
            r.dtype = t->aop;
            r.status = EMU_E_LOST;
            r.src = t->dst;
            r.dst = t->src;
            r.cookie = t->cookie;
            r.raddr = t->raddr;
            t->live = 0;
            L.trk_live--;
            EMU_CTR_ADD(L.nic->ctr, lost, 1);
            EMU_CTR_ADD(L.nic->ctr, errors, 1);
            note("lost", L.me, emu_nic_node_of(L.nic, t->dst), &r);
            emu_nic_route(L.nic, &r); /* to our own node: dispatched at once */
            n++;
        } else if (t->live) {
            struct emu_msg c;
            memset(&c, 0, EMU_MSG_HDR_SIZE);
            c.op = EMU_CQ_DONE;
            c.flags = t->flags;
            c.status = EMU_E_LOST;
            c.module = t->module;
            c.src = t->src;
            c.dst = t->dst;
            c.cookie = t->cookie;
            c.len = t->len;
            t->live = 0;
            L.trk_live--;
            EMU_CTR_ADD(L.nic->ctr, lost, 1);
            EMU_CTR_ADD(L.nic->ctr, errors, 1);
            note("lost", L.me, emu_nic_node_of(L.nic, t->dst), &c);
            emu_nic_deliver(L.nic, t->src, &c);
            n++;
        }
        L.trk_head = (L.trk_head + 1) % L.trk_cap;
        L.trk_n--;
    }
    return n;
}

/* Under --unreliable: whether m travels raw, i.e. is never sent twice (a
 * loss leaves a tombstone in its place in the sequence, LF_SKIP). Only
 * what can report its loss goes raw: a request that asked for completion
 * (the initiator's NIC times it out) and its answer (raw_ctx: we are
 * dispatching a raw request). Long AMs, requests without
 * completion and other module traffic keep being retransmitted. */
static int raw_class(const struct emu_msg *m)
{
    if (!L.unreliable)
        return 0;
    switch (m->op) {
    case EMU_OP_ACK:
        return L.raw_ctx;
    case EMU_OP_MODULE:
        return is_ptl_request(m) || (is_ptl_result(m) && L.raw_ctx);
    case EMU_OP_AM:
        if (!(m->flags & EMU_F_INLINE))
            return 0;
        /* fall through */
    default:
        return (m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ)) != 0;
    }
}

void link_send(struct emu_nic *nic, uint32_t node, const struct emu_msg *m)
{
    (void)nic;
    struct peer *p = &L.peers[node];
    uint8_t raw = (uint8_t)raw_class(m);
    if (raw && m->op != EMU_OP_ACK && !is_ptl_result(m))
        track_add(m, emu_now_ns());
    if (!p->tx && !(p->tx = calloc(LINK_WIN, sizeof *p->tx))) {
        fprintf(stderr, "emunic-nicd: out of memory in the link layer\n");
        abort();
    }
    if (!p->ph && window_has(p, m->dlen > FRAG_SPLIT ? 2 : 1)) {
        send_new(node, m, raw);
    } else {
        struct pend *d = malloc(sizeof *d);
        if (!d) {
            fprintf(stderr, "emunic-nicd: out of memory in the link layer\n");
            abort();
        }
        d->next = NULL;
        d->raw = raw;
        memcpy(&d->m, m, EMU_MSG_HDR_SIZE + m->dlen);
        if (p->pt)
            p->pt->next = d;
        else
            p->ph = d;
        p->pt = d;
        L.npend++;
        EMU_CTR_ADD(L.nic->ctr, credit_stalls, 1);
    }
    tick_keep();
}

/* ---- receiving ---- */

static void retransmit(uint32_t node, uint32_t seq, struct txslot *s, int64_t now, const char *why)
{
    s->attempts++;
    s->sent = now;
    s->rto = s->rto * 2 > RTO_MAX_NS ? RTO_MAX_NS : s->rto * 2;
    s->due = now + s->rto;
    if (s->due < L.next_rto)
        L.next_rto = s->due;
    if (s->frag & LF_RAW) {
        /* never twice: a tombstone keeps the sequence (and so the order
         * of everything behind it); the initiator's time-out reports it */
        struct emu_msg c;
        memset(&c, 0, EMU_MSG_HDR_SIZE);
        c.op = LINK_OP;
        note("skip", L.me, node, &s->m);
        transmit(node, &c, LF_SEQ | LF_SKIP, seq, s->attempts);
        return;
    }
    EMU_CTR_ADD(L.nic->ctr, retransmits, 1);
    note(why, L.me, node, s->frag & LF_FRAG2 ? NULL : &s->m);
    transmit(node, &s->m, (uint8_t)(LF_SEQ | s->frag), seq, s->attempts);
}

static void on_ack(uint32_t node, uint32_t ack, int gap)
{
    struct peer *p = &L.peers[node];
    uint32_t d = ack - p->una;
    if (!p->tx || d > p->next - p->una)
        return; /* stale, or nothing of ours */
    int64_t now = emu_now_ns();
    while (p->una != ack) {
        struct txslot *s = &p->tx[p->una % LINK_WIN];
        if (s->live) {
            s->live = 0;
            L.inflight--;
            if (s->attempts == 0 && d == 1) {
                /* Karn: time only packets sent once, and only an ack of
                 * exactly one packet (one that ends a hole was held at the
                 * receiver and would inflate the estimate) */
                int64_t r = now - s->sent;
                if (!p->srtt) {
                    p->srtt = r;
                    p->rttvar = r / 2;
                } else {
                    int64_t e = r > p->srtt ? r - p->srtt : p->srtt - r;
                    p->rttvar += (e - p->rttvar) / 4;
                    p->srtt += (r - p->srtt) / 8;
                }
                p->rto = p->srtt + 4 * p->rttvar;
                if (p->rto < RTO_MIN_NS)
                    p->rto = RTO_MIN_NS;
                if (p->rto > RTO_MAX_NS / 4)
                    p->rto = RTO_MAX_NS / 4;
            }
        }
        p->una++;
    }
    (void)gap; /* the receiver follows with a SACK (on_sack) */
    if (p->ph)
        pump(node);
}

/* A selective ack: bit i of map set when the receiver holds ack + 1 + i.
 * Retransmit the holes below the highest packet it holds. */
static void on_sack(uint32_t node, uint32_t ack, const uint8_t *map)
{
    struct peer *p = &L.peers[node];
    if (!p->tx || ack != p->una)
        return; /* stale */
    uint32_t inflight = p->next - p->una;
    int64_t now = emu_now_ns();
    int64_t guard = p->srtt > FAST_GUARD_NS ? p->srtt : FAST_GUARD_NS;
    uint32_t hi = 0;
    for (uint32_t i = 0; i < LINK_WIN - 1 && i + 1 < inflight; i++)
        if (map[i / 8] & (1u << (i % 8))) {
            p->tx[(ack + 1 + i) % LINK_WIN].sacked = 1;
            hi = i + 1;
        }
    for (uint32_t d = 0; d < hi; d++) {
        struct txslot *s = &p->tx[(ack + d) % LINK_WIN];
        /* the wire keeps order (only injected reorder or delay holds
         * a packet back), so a later packet received means this one is
         * lost: resend at once the first time, then once per round trip */
        if (s->live && !s->sacked && (s->attempts == 0 || now - s->sent > guard))
            retransmit(node, ack + d, s, now, "fast-retransmit");
    }
}

static void ack_due(uint32_t node)
{
    struct peer *p = &L.peers[node];
    p->ack_due = 1;
    if (!p->in_ackq) {
        p->in_ackq = 1;
        L.ackq[L.nackq++] = node;
    }
}

/* In-order delivery of m (fragment flags frag): 1 if m is now a whole
 * message to dispatch. */
static int whole(struct peer *p, struct emu_msg *m, uint8_t frag)
{
    if (frag & LF_SKIP) {
        p->have_frag = 0; /* after a first fragment: its second is gone */
        return 0;
    }
    if (frag & LF_FRAG1) {
        memcpy(&p->frag, m, EMU_MSG_HDR_SIZE + m->dlen);
        p->have_frag = 1;
        return 0;
    }
    if (frag & LF_FRAG2) {
        if (!p->have_frag)
            return 0;
        uint16_t tail = m->dlen;
        unsigned char buf[EMU_INLINE_MAX];
        memcpy(buf, m->data, tail);
        memcpy(m, &p->frag, EMU_MSG_HDR_SIZE + FRAG_SPLIT);
        memcpy(m->data + FRAG_SPLIT, buf, tail);
        m->dlen = (uint16_t)(FRAG_SPLIT + tail);
        p->have_frag = 0;
        return 1;
    }
    return 1;
}

/* whole(), and an answer that came sequenced still settles its time-out */
static int whole_seq(struct peer *p, struct emu_msg *m, uint8_t frag)
{
    if (!whole(p, m, frag))
        return 0;
    if ((L.trk_live || (frag & LF_RAW)) && (m->op == EMU_OP_ACK || is_ptl_result(m))) {
        if (L.trk_live && track_take(m)) {
            tick_keep();
        } else if (frag & LF_RAW) {
            /* answers a request that timed out: it was reported lost */
            EMU_CTR_ADD(L.nic->ctr, dups, 1);
            return 0;
        }
    }
    L.raw_ctx = (frag & LF_RAW) != 0;
    return 1;
}

/* Fragments are as send_new cuts them: a first one exactly FRAG_SPLIT
 * bytes, a second one what is left of EMU_INLINE_MAX. A packet a rank
 * copied into the wire ring may pass the checksum and claim anything;
 * whole() would then join past the end of the message. */
static int frag_fits(uint8_t flags, uint16_t odlen)
{
    if ((flags & (LF_FRAG1 | LF_FRAG2)) == (LF_FRAG1 | LF_FRAG2))
        return 0;
    if (flags & LF_FRAG1)
        return odlen == FRAG_SPLIT;
    if (flags & LF_FRAG2)
        return odlen <= EMU_INLINE_MAX - FRAG_SPLIT;
    return 1;
}

int link_recv(struct emu_nic *nic, struct emu_msg *m)
{
    L.raw_ctx = 0;
    L.drain = -1;
    struct link_trailer t;
    if (m->dlen < LINK_TRAILER_SIZE) {
        EMU_CTR_ADD(nic->ctr, corrupt, 1);
        return 0;
    }
    memcpy(&t, m->data + m->dlen - LINK_TRAILER_SIZE, sizeof t);
    uint32_t got = t.csum;
    t.csum = 0;
    memcpy(m->data + m->dlen - LINK_TRAILER_SIZE, &t, sizeof t);
    if (csum(m) != got || t.src >= L.nnodes || t.src == L.me ||
        t.odlen != m->dlen - LINK_TRAILER_SIZE || !frag_fits(t.flags, t.odlen)) {
        EMU_CTR_ADD(nic->ctr, corrupt, 1);
        note("checksum", t.src < L.nnodes ? t.src : L.me, L.me, NULL);
        return 0;
    }
    m->dlen = t.odlen;
    uint32_t src = t.src;
    struct peer *p = &L.peers[src];
    if (t.flags & LF_ACKV)
        on_ack(src, t.ack, t.flags & LF_GAP);
    if (t.flags & LF_CTRL) {
        if (m->dlen == LINK_WIN / 8 && (t.flags & LF_ACKV))
            on_sack(src, t.ack, m->data);
        tick_keep();
        return 0;
    }
    if (!(t.flags & LF_SEQ))
        return 0;
    uint8_t frag = t.flags & (LF_FRAG1 | LF_FRAG2 | LF_RAW | LF_SKIP);
    uint32_t d = t.seq - p->expect;
    ack_due(src);
    tick_keep();
    if ((int32_t)d < 0) {
        EMU_CTR_ADD(nic->ctr, dups, 1);
        return 0;
    }
    if (d >= LINK_WIN)
        return 0; /* beyond the window: the sender will send it again */
    if (d == 0) {
        p->expect++;
        L.drain = (int32_t)src;
        if (whole_seq(p, m, frag))
            return 1;
        return link_recv_next(nic, m);
    }
    if (!p->rx && !(p->rx = calloc(LINK_WIN, sizeof *p->rx)))
        return 0; /* as if lost */
    struct rxslot *s = &p->rx[t.seq % LINK_WIN];
    if (s->have) {
        EMU_CTR_ADD(nic->ctr, dups, 1);
        return 0;
    }
    s->have = 1;
    s->frag = frag;
    s->early = 0;
    p->nooo++;
    if (!frag && is_request(m) && (m->flags & EMU_F_UNORDERED) &&
        !(m->flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ))) {
        /* may pass earlier packets: deliver now. Not one that reports
         * completion: a personality may take that as "all of it landed"
         * (DCMF's relaxed lane completes a transfer on its last packet) */
        s->early = 1;
        return 1;
    }
    memcpy(&s->m, m, EMU_MSG_HDR_SIZE + m->dlen);
    return 0;
}

int link_recv_next(struct emu_nic *nic, struct emu_msg *m)
{
    (void)nic;
    L.raw_ctx = 0;
    if (L.drain < 0)
        return 0;
    struct peer *p = &L.peers[L.drain];
    while (p->rx && p->nooo) {
        struct rxslot *s = &p->rx[p->expect % LINK_WIN];
        if (!s->have)
            break;
        s->have = 0;
        p->nooo--;
        p->expect++;
        if (s->early)
            continue;
        memcpy(m, &s->m, EMU_MSG_HDR_SIZE + s->m.dlen);
        if (whole_seq(p, m, s->frag))
            return 1;
    }
    L.drain = -1;
    return 0;
}

/* ---- timers ---- */

static void send_acks(void)
{
    for (uint32_t i = 0; i < L.nackq; i++) {
        uint32_t node = L.ackq[i];
        struct peer *p = &L.peers[node];
        p->in_ackq = 0;
        if (!p->ack_due && !p->nooo)
            continue; /* rode on a packet already, nothing to select */
        struct emu_msg c;
        memset(&c, 0, EMU_MSG_HDR_SIZE);
        c.op = LINK_OP;
        if (p->nooo && p->rx) {
            c.dlen = LINK_WIN / 8;
            memset(c.data, 0, LINK_WIN / 8);
            for (uint32_t i = 0; i < LINK_WIN - 1; i++)
                if (p->rx[(p->expect + 1 + i) % LINK_WIN].have)
                    c.data[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        transmit(node, &c, LF_CTRL, p->ctrl_next++, 0);
    }
    L.nackq = 0;
}

static int release_held(int64_t now)
{
    int n = 0;
    for (struct held **pp = &L.reorder; *pp;) {
        struct held *h = *pp;
        if (h->at <= now) {
            *pp = h->next;
            L.wire(L.nic, h->node, &h->m);
            free(h);
            L.nheld--;
            n++;
        } else {
            pp = &h->next;
        }
    }
    if (L.nheld == 0)
        return n;
    for (uint32_t node = 0; node < L.nnodes; node++) {
        struct peer *p = &L.peers[node];
        while (p->hh && p->hh->at <= now) {
            struct held *h = p->hh;
            p->hh = h->next;
            if (!p->hh)
                p->ht = NULL;
            L.wire(L.nic, node, &h->m);
            free(h);
            L.nheld--;
            n++;
        }
    }
    return n;
}

static int retransmit_due(int64_t now)
{
    int n = 0;
    int64_t nx = INT64_MAX;
    for (uint32_t node = 0; node < L.nnodes; node++) {
        struct peer *p = &L.peers[node];
        if (!p->tx)
            continue;
        for (uint32_t s = p->una; s != p->next; s++) {
            struct txslot *x = &p->tx[s % LINK_WIN];
            if (!x->live)
                continue;
            if (now >= x->due) {
                if (!x->sacked) {
                    retransmit(node, s, x, now, "retransmit");
                    n++;
                } else {
                    x->due = now + x->rto; /* the receiver holds it */
                }
            }
            if (x->due < nx)
                nx = x->due;
        }
    }
    L.next_rto = nx;
    return n;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Timed faults of this node: hang, crash, kill at a time. */
static void timed_faults(int64_t now)
{
    struct emu_nic *nic = L.nic;
    int64_t t = job_time(now);
    for (uint32_t i = 0; i < L.nrules; i++) {
        const struct emu_fault_rule *r = &L.rules[i];
        if (L.fired[i] || t < r->start_ns)
            continue;
        if (r->kind == EMU_FAULT_NICHANG && (uint32_t)r->node_a == L.me) {
            L.fired[i] = 1;
            L.timed_left--;
            fprintf(stderr, "emunic-nicd: node %u: injected fault: NIC hang for %.3f s at %.3f s\n", L.me,
                    (double)(r->end_ns - r->start_ns) / 1e9, (double)t / 1e9);
            note("hang", L.me, L.me, NULL);
            int64_t left = r->end_ns - t;
            while (left > 0 && !nic->stop) {
                sleep_ns(left < 10000000 ? left : 10000000);
                left = r->end_ns - job_time(emu_now_ns());
            }
        } else if (r->kind == EMU_FAULT_NICCRASH && (uint32_t)r->node_a == L.me) {
            L.fired[i] = 1;
            fprintf(stderr, "emunic-nicd: node %u: injected fault: NIC crash at %.3f s (--fault crash=n%u@...)\n",
                    L.me, (double)t / 1e9, L.me);
            note("crash", L.me, L.me, NULL);
            _exit(70);
        } else if (r->kind == EMU_FAULT_KILL && !r->after_msgs) {
            uint32_t rank = (uint32_t)r->rank_a;
            pid_t pid = guard_rank_pid(nic, rank);
            /* a rank not started yet is killed once it is, not never */
            if (emu_nic_node_of(nic, rank) != L.me || pid <= 0)
                continue;
            L.fired[i] = 1;
            L.timed_left--;
            fprintf(stderr, "emunic-nicd: node %u: injected fault: kill rank %u at %.3f s\n", L.me, rank,
                    (double)t / 1e9);
            note("kill", L.me, L.me, NULL);
            kill(pid, SIGKILL);
        }
    }
}

int link_progress(struct emu_nic *nic)
{
    (void)nic;
    int n = 0;
    int64_t now = emu_now_ns();
    if (L.timed_left)
        timed_faults(now);
    if (L.nackq) {
        n += (int)L.nackq;
        send_acks();
    }
    if (L.nheld)
        n += release_held(now);
    if (L.inflight && now >= L.next_rto)
        n += retransmit_due(now);
    if (L.trk_n && now >= L.trk[L.trk_head].due)
        n += track_expire(now);
    else if (L.trk_n && !L.trk[L.trk_head].live)
        track_expire(now); /* drop answered entries at the front */
    tick_keep();
    return n;
}

void link_note(struct emu_nic *nic, const struct emu_msg *m)
{
    if (!L.kill_after || m->op == EMU_OP_ACK || m->src < nic->first || m->src - nic->first >= nic->nlocal)
        return;
    uint64_t c = ++L.rank_msgs[m->src - nic->first];
    for (uint32_t i = 0; i < L.nrules; i++) {
        const struct emu_fault_rule *r = &L.rules[i];
        if (r->kind != EMU_FAULT_KILL || !r->after_msgs || L.fired[i] || (uint32_t)r->rank_a != m->src ||
            c < r->after_msgs)
            continue;
        L.fired[i] = 1;
        pid_t pid = guard_rank_pid(nic, m->src);
        fprintf(stderr, "emunic-nicd: node %u: injected fault: kill rank %u after %llu messages\n", L.me, m->src,
                (unsigned long long)c);
        note("kill", L.me, L.me, m);
        if (pid > 0)
            kill(pid, SIGKILL);
    }
}

/* ---- set-up ---- */

int link_init(struct emu_nic *nic, link_wire_fn wire)
{
    memset(&L, 0, sizeof L);
    L.nic = nic;
    L.wire = wire;
    L.net = &nic->net;
    L.drain = -1;
    if (L.net->nrules == 0 || L.net->nrules > EMU_FAULT_MAX)
        return 0; /* no plan: the link layer stays out of the way */
    L.me = nic->node;
    L.nnodes = nic->nnodes;
    L.nrules = L.net->nrules;
    L.rules = L.net->rules;
    L.unreliable = !(L.net->flags & EMU_NET_RELIABLE);
    L.seed = L.net->seed;
    for (uint32_t i = 0; i < L.nrules; i++) {
        const struct emu_fault_rule *r = &L.rules[i];
        if (r->kind <= EMU_FAULT_SLOW)
            L.pkt_faults = 1;
        if (r->kind == EMU_FAULT_KILL && r->after_msgs)
            L.kill_after = 1;
        if ((r->kind == EMU_FAULT_NICHANG && (uint32_t)r->node_a == L.me) ||
            (r->kind == EMU_FAULT_KILL && !r->after_msgs && r->rank_a >= 0 &&
             emu_nic_node_of(nic, (uint32_t)r->rank_a) == L.me))
            L.timed_left++;
        if (r->kind == EMU_FAULT_NICCRASH && (uint32_t)r->node_a == L.me)
            L.timed_left++;
    }
    L.peers = calloc(L.nnodes, sizeof *L.peers);
    L.ackq = calloc(L.nnodes, sizeof *L.ackq);
    L.rank_msgs = calloc(nic->nlocal, sizeof *L.rank_msgs);
    if (!L.peers || !L.ackq || !L.rank_msgs)
        return -ENOMEM;
    emu_link_on = 1;
    return 0;
}

void link_fini(struct emu_nic *nic)
{
    if (emu_link_on && nic->ctr) {
        const struct emu_nic_counters *c = nic->ctr;
        uint64_t v[6] = {atomic_load(&c->drops), atomic_load(&c->dups), atomic_load(&c->corrupt),
                         atomic_load(&c->reordered), atomic_load(&c->retransmits), atomic_load(&c->lost)};
        if (v[0] | v[1] | v[2] | v[3] | v[4] | v[5])
            fprintf(stderr,
                    "emunic-nicd: node %u faults: drops %llu dups %llu corrupt %llu reordered %llu "
                    "retransmits %llu lost %llu\n",
                    nic->node, (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2],
                    (unsigned long long)v[3], (unsigned long long)v[4], (unsigned long long)v[5]);
    }
    if (getenv("EMUNIC_LINK_DEBUG"))
        for (uint32_t n = 0; L.peers && n < L.nnodes; n++)
            fprintf(stderr, "link %u->%u: srtt %lld us rttvar %lld us rto %lld us next %u una %u expect %u\n", L.me, n,
                    (long long)L.peers[n].srtt / 1000, (long long)L.peers[n].rttvar / 1000,
                    (long long)L.peers[n].rto / 1000, L.peers[n].next, L.peers[n].una, L.peers[n].expect);
    if (L.bumped)
        nic->backlog_total--;
    for (uint32_t n = 0; L.peers && n < L.nnodes; n++) {
        struct peer *p = &L.peers[n];
        free(p->tx);
        free(p->rx);
        while (p->ph) {
            struct pend *d = p->ph;
            p->ph = d->next;
            free(d);
        }
        while (p->hh) {
            struct held *h = p->hh;
            p->hh = h->next;
            free(h);
        }
    }
    while (L.reorder) {
        struct held *h = L.reorder;
        L.reorder = h->next;
        free(h);
    }
    free(L.peers);
    free(L.ackq);
    free(L.rank_msgs);
    free(L.trk);
    memset(&L, 0, sizeof L);
    emu_link_on = 0;
}
