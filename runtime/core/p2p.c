/* Two-sided messages on the rank's context. Eager: header and payload in
 * one short device message. Rendezvous: a ready-to-send header; the
 * receiver pulls the payload with one device get straight into the user
 * buffer and answers with a finish message that completes the send.
 *
 * Short messages land in the receiver's device buffers, which only its
 * progress empties, and a device may drop what does not fit (Portals
 * does). So every eager or ready-to-send message spends one of `window`
 * credits per peer; the receiver hands them back in batches of half a
 * window as its progress takes the messages out. Finish and credit
 * messages need none: each answers a credited one. */
#include "p2p.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"

enum { P2P_EAGER = 1, P2P_RTS, P2P_FIN, P2P_CREDIT };

struct p2p_hdr {
    uint8_t kind;
    uint8_t pad[7];
    uint64_t tag;
    uint64_t len;
    uint64_t addr; /* RTS: the sender's buffer */
    uint64_t sreq; /* RTS, FIN: the send request */
};

struct armcii_p2p_req {
    int is_send, done, src;
    uint64_t tag;
    void *buf;
    size_t cap, len;
    struct adev_cmpl get_done;
    struct armcii_p2p_req *next; /* posted receives */
};

/* An arrival nobody has asked for yet (eager bytes are copied). */
struct unexp {
    int src;
    uint8_t kind;
    uint64_t tag, len, addr, sreq;
    struct unexp *next;
    char data[];
};

static struct armcii_p2p_req *posted, *posted_tail;
static struct unexp *unexp_head, *unexp_tail;
static int *credits, *owed, window; /* per peer: ours to spend, theirs to return */
unsigned long armcii_p2p_credit_waits;

/* Budget for credited messages in one receiver's buffers. */
#define P2P_INFLIGHT_BYTES (512 * 1024)

static size_t eager_max(void)
{
    return armcii_dev->small_max - sizeof(struct p2p_hdr);
}

static void send_hdr(int to, const struct p2p_hdr *h, const void *data, size_t len)
{
    char buf[256];
    memcpy(buf, h, sizeof *h);
    if (len)
        memcpy(buf + sizeof *h, data, len);
    ARMCII_POST("armci p2p send",
                armcii_dev->send_small(ADEV_CTX_RANK, to, ADEV_CTX_RANK, buf, sizeof *h + len));
}

static void send_credited(int to, const struct p2p_hdr *h, const void *data, size_t len)
{
    if (!credits[to])
        armcii_p2p_credit_waits++;
    while (!credits[to])
        armcii_progress(1);
    credits[to]--;
    send_hdr(to, h, data, len);
}

/* A credited message from src has left the device's buffers. */
static void took(int src)
{
    if (++owed[src] < window / 2)
        return;
    struct p2p_hdr c = {.kind = P2P_CREDIT, .len = (uint64_t)owed[src]};
    owed[src] = 0;
    send_hdr(src, &c, NULL, 0);
}

static void get_finished(struct adev_cmpl *c, int status)
{
    struct armcii_p2p_req *r = (struct armcii_p2p_req *)((char *)c - offsetof(struct armcii_p2p_req, get_done));
    if (status)
        armcii_error(1, "armci p2p: pulling a message from rank %d failed (%d)", r->src, status);
    r->done = 1;
}

/* Match an arrival to a posted receive: copy or pull its bytes. */
static void deliver(struct armcii_p2p_req *r, int src, uint8_t kind, uint64_t len,
                    uint64_t addr, uint64_t sreq, const void *data)
{
    r->src = src;
    r->len = len;
    size_t n = len < r->cap ? len : r->cap;
    if (kind == P2P_EAGER) {
        if (n)
            memcpy(r->buf, data, n);
        r->done = 1;
        return;
    }
    struct p2p_hdr fin = {.kind = P2P_FIN, .sreq = sreq};
    if (n) {
        r->get_done.fn = get_finished;
        ARMCII_POST("armci p2p pull", armcii_dev->get(ADEV_CTX_RANK, src, (void *)(uintptr_t)addr,
                                                     r->buf, n, &r->get_done));
    } else {
        r->done = 1;
    }
    /* the sender may reuse its buffer once our get is done; a FIN sent now
     * would overtake it, so FIN goes when the get completes (see test) */
    if (n)
        r->next = (void *)(uintptr_t)sreq; /* remembered until the pull is over */
    else
        send_hdr(src, &fin, NULL, 0);
}

static int matches(const struct armcii_p2p_req *r, int src, uint64_t tag)
{
    return r->tag == tag && (r->src == ARMCII_ANY_SOURCE || r->src == src);
}

void armcii_p2p_on_small(int src, const void *buf, size_t len)
{
    struct p2p_hdr h;
    if (len < sizeof h)
        return;
    memcpy(&h, buf, sizeof h);
    const char *data = (const char *)buf + sizeof h;
    if (h.kind == P2P_FIN) {
        ((struct armcii_p2p_req *)(uintptr_t)h.sreq)->done = 1;
        return;
    }
    if (h.kind == P2P_CREDIT) {
        credits[src] += (int)h.len;
        return;
    }
    took(src);
    for (struct armcii_p2p_req **pp = &posted, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        struct armcii_p2p_req *r = *pp;
        if (!matches(r, src, h.tag))
            continue;
        *pp = r->next;
        if (posted_tail == r)
            posted_tail = prev;
        r->next = NULL;
        deliver(r, src, h.kind, h.len, h.addr, h.sreq, data);
        return;
    }
    size_t keep = h.kind == P2P_EAGER ? h.len : 0;
    struct unexp *u = malloc(sizeof *u + keep);
    if (!u)
        armcii_error(1, "armci p2p: out of memory for an unexpected message");
    *u = (struct unexp){.src = src, .kind = h.kind, .tag = h.tag, .len = h.len,
                        .addr = h.addr, .sreq = h.sreq};
    memcpy(u->data, data, keep);
    if (unexp_tail)
        unexp_tail->next = u;
    else
        unexp_head = u;
    unexp_tail = u;
}

armcii_p2p_t armcii_p2p_isend(int to, uint64_t tag, const void *buf, size_t len)
{
    struct armcii_p2p_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->is_send = 1;
    r->tag = tag;
    struct p2p_hdr h = {.tag = tag, .len = len};
    if (len <= eager_max()) {
        h.kind = P2P_EAGER;
        send_credited(to, &h, buf, len);
        r->done = 1;
    } else {
        h.kind = P2P_RTS;
        h.addr = (uint64_t)(uintptr_t)buf;
        h.sreq = (uint64_t)(uintptr_t)r;
        send_credited(to, &h, NULL, 0);
    }
    return r;
}

armcii_p2p_t armcii_p2p_irecv(int from, uint64_t tag, void *buf, size_t cap)
{
    struct armcii_p2p_req *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->tag = tag;
    r->src = from;
    r->buf = buf;
    r->cap = cap;
    for (struct unexp **pp = &unexp_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        struct unexp *u = *pp;
        if (!matches(r, u->src, u->tag))
            continue;
        *pp = u->next;
        if (unexp_tail == u)
            unexp_tail = prev;
        deliver(r, u->src, u->kind, u->len, u->addr, u->sreq, u->data);
        free(u);
        return r;
    }
    if (posted_tail)
        posted_tail->next = r;
    else
        posted = r;
    posted_tail = r;
    return r;
}

int armcii_p2p_test(armcii_p2p_t r, size_t *len, int *src)
{
    if (!r->done)
        armcii_progress(0);
    if (!r->done)
        return 0;
    if (!r->is_send && r->next) {
        /* a pulled message: now the sender may have its buffer back */
        struct p2p_hdr fin = {.kind = P2P_FIN, .sreq = (uint64_t)(uintptr_t)r->next};
        send_hdr(r->src, &fin, NULL, 0);
    }
    if (len)
        *len = r->len;
    if (src)
        *src = r->src;
    free(r);
    return 1;
}

void armcii_p2p_wait(armcii_p2p_t r, size_t *len, int *src)
{
    while (!r->done)
        armcii_progress(1);
    armcii_p2p_test(r, len, src);
}

int armcii_p2p_init(void)
{
    int n = armcii_nproc();
    size_t per_peer = P2P_INFLIGHT_BYTES / ((size_t)n * armcii_dev->small_max);
    window = per_peer < 4 ? 4 : per_peer > 64 ? 64 : (int)per_peer;
    credits = malloc(sizeof *credits * (size_t)n);
    owed = calloc((size_t)n, sizeof *owed);
    if (!credits || !owed)
        return -ENOMEM;
    for (int i = 0; i < n; i++)
        credits[i] = window;
    return 0;
}

void armcii_p2p_finalize(void)
{
    while (unexp_head) {
        struct unexp *n = unexp_head->next;
        free(unexp_head);
        unexp_head = n;
    }
    unexp_tail = NULL;
    posted = posted_tail = NULL;
    free(credits);
    free(owed);
    credits = owed = NULL;
}
