/* Fuzzes the daemon's link layer (emunic/nicd/link.c) on packets a rank
 * has scribbled into a wire ring: trailer decoding, checksum, the
 * sequence window, selective acks, in-order buffering and the reassembly
 * of two fragments, plus the sending side they act on (acks and SACKs
 * against packets this NIC sent, retransmits, holds of the fault plan).
 *
 * The wire rings sit in the job segment that every rank maps (issue 19's
 * second half), so whatever the ring consumer hands link_recv may be
 * garbage. A random store rarely passes the checksum, but a rank that
 * copies a sealed packet does, and so does a daemon's own bug: the
 * harness seals most packets with the link layer's own checksum so that
 * fuzzing reaches past it. link.c is included, not linked, for that
 * checksum and its private trailer layout.
 *
 * Input: byte 0 picks the fault rule (drop, dup, corrupt, reorder or a
 * short delay, always with the reliability protocol or always without),
 * byte 1 its probability; then records, each a control byte and its
 * bytes:
 *   action 0  receive: a packet from the record's bytes (header, payload
 *             and trailer), dlen <= EMU_INLINE_MAX as the ring consumer
 *             clamps it; sealed (valid source, odlen, checksum) unless
 *             bit 2; with bit 3 its sequence number is the peer's next
 *             expected one plus a signed byte
 *   action 1  send: link_send of a message to another node
 *   action 2  link_progress (acks, holds, retransmits)
 * Properties, abort() otherwise (ASan catches the overflows):
 *   - every message link_recv/link_recv_next hands on has dlen <=
 *     EMU_INLINE_MAX and lies inside its struct;
 *   - link_recv_next ends within one window;
 *   - every packet the link layer puts on the wire has dlen <=
 *     EMU_INLINE_MAX, unless the corrupt rule flipped a bit of it (that
 *     may be dlen's: the ring push clamps, the receiver's checksum drops);
 *   - no rank is killed (there is no kill rule). */
#include "../../emunic/nicd/link.c"

#define NNODES 4u
#define RPN 2u

/* ---- what link.c calls in the rest of the daemon ---- */

int emu_nic_trace_on;

static uint64_t on_wire, routed;
static int corrupting;

static void check_out(const struct emu_msg *m)
{
    if (m->dlen > EMU_INLINE_MAX && !corrupting)
        abort();
}

void emu_nic_route(struct emu_nic *nic, const struct emu_msg *m)
{
    (void)nic;
    check_out(m);
    routed++;
}

void emu_nic_deliver(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe)
{
    (void)nic;
    if (rank >= NNODES * RPN)
        abort();
    check_out(cqe);
}

uint32_t emu_nic_node_of(const struct emu_nic *nic, uint32_t rank)
{
    (void)nic;
    return rank / RPN;
}

pid_t guard_rank_pid(const struct emu_nic *nic, uint32_t rank)
{
    (void)nic;
    (void)rank;
    abort(); /* only kill rules get here, and the harness has none */
}

void trace_fault(struct emu_nic *nic, const char *what, uint32_t node_a, uint32_t node_b, const struct emu_msg *m)
{
    (void)nic, (void)what, (void)node_a, (void)node_b, (void)m;
}

static void wire_out(struct emu_nic *nic, uint32_t node, const struct emu_msg *m)
{
    (void)nic;
    if (node >= NNODES || node == 0)
        abort();
    check_out(m);
    on_wire++;
}

/* ---- the harness ---- */

static struct emu_nic nic;
static struct emu_nic_counters ctr;

static const uint32_t kinds[] = {EMU_FAULT_DROP, EMU_FAULT_DUP, EMU_FAULT_CORRUPT, EMU_FAULT_REORDER,
                                 EMU_FAULT_DELAY};

static void setup(uint8_t pick, uint8_t prob)
{
    memset(&nic, 0, sizeof nic);
    memset(&ctr, 0, sizeof ctr);
    nic.node = 0;
    nic.first = 0;
    nic.nlocal = RPN;
    nic.nranks = NNODES * RPN;
    nic.nnodes = NNODES;
    nic.rpn = RPN;
    nic.ctr = &ctr;
    nic.net.nrules = 1;
    nic.net.flags = (pick & 0x80) ? EMU_NET_RELIABLE : 0;
    nic.net.seed = pick;
    nic.net.start_ns = emu_now_ns();
    struct emu_fault_rule *r = &nic.net.rules[0];
    r->kind = kinds[(pick & 0x7f) % (sizeof kinds / sizeof kinds[0])];
    r->prob = prob / 255.0;
    corrupting = r->kind == EMU_FAULT_CORRUPT;
    r->delay_ns = 20000; /* short enough for link_progress to release within a run */
    r->end_ns = -1;
    r->node_a = r->node_b = r->rank_a = r->rank_b = -1;
    if (link_init(&nic, wire_out) != 0 || !emu_link_on)
        abort();
}

/* Take n bytes of input (zeros past its end). */
static const uint8_t *take(const uint8_t **d, size_t *n, size_t want, uint8_t *buf)
{
    size_t k = *n < want ? *n : want;
    memset(buf, 0, want);
    memcpy(buf, *d, k);
    *d += k;
    *n -= k;
    return buf;
}

static void check_in(const struct emu_msg *m)
{
    if (m->dlen > EMU_INLINE_MAX)
        abort();
}

static void receive_one(uint8_t ctl, const uint8_t **d, size_t *n)
{
    uint8_t buf[sizeof(struct emu_msg) + 2];
    take(d, n, sizeof buf, buf);
    struct emu_msg m;
    memcpy(&m, buf + 2, sizeof m);
    m.dlen = (uint16_t)((buf[0] | buf[1] << 8) % (EMU_INLINE_MAX + 1));
    if (!(ctl & 0x04) && m.dlen >= LINK_TRAILER_SIZE) {
        struct link_trailer t;
        memcpy(&t, m.data + m.dlen - LINK_TRAILER_SIZE, sizeof t);
        t.src = (uint16_t)(1 + t.src % (NNODES - 1));
        if (ctl & 0x08)
            t.seq = L.peers[t.src].expect + (uint32_t)(int32_t)(int8_t)t.seq;
        t.odlen = (uint16_t)(m.dlen - LINK_TRAILER_SIZE);
        t.csum = 0;
        memcpy(m.data + m.dlen - LINK_TRAILER_SIZE, &t, sizeof t);
        t.csum = csum(&m);
        memcpy(m.data + m.dlen - LINK_TRAILER_SIZE, &t, sizeof t);
    }
    if (!link_recv(&nic, &m))
        return;
    check_in(&m);
    for (unsigned k = 0; link_recv_next(&nic, &m); k++) {
        check_in(&m);
        if (k > LINK_WIN)
            abort();
    }
}

static void send_one(const uint8_t **d, size_t *n)
{
    uint8_t buf[sizeof(struct emu_msg) + 1];
    take(d, n, sizeof buf, buf);
    struct emu_msg m;
    memcpy(&m, buf + 1, sizeof m);
    m.dlen %= EMU_INLINE_MAX + 1; /* what routing hands on: validated */
    link_send(&nic, 1 + buf[0] % (NNODES - 1), &m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    setup(data[0], data[1]);
    const uint8_t *d = data + 2;
    size_t n = size - 2;
    while (n > 0) {
        uint8_t ctl = *d++;
        n--;
        switch (ctl & 3) {
        case 0:
        case 3:
            receive_one(ctl, &d, &n);
            break;
        case 1:
            send_one(&d, &n);
            break;
        case 2:
            link_progress(&nic);
            break;
        }
    }
    nic.ctr = NULL; /* no fault summary on stderr for every input */
    link_fini(&nic);
    return 0;
}
