/* Wire messages to daemons on other hosts over libfabric (hostlink.h says
 * what and why). */
#include "hostlink.h"

#include <errno.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NTX 16 /* batch buffers a daemon may have in flight */
#define NRX 16 /* receives kept posted */
#define HL_MAGIC 0x454d4c4bu /* "EMLK" */

struct batch_hdr {
    uint32_t magic;
    uint32_t job;
    uint32_t src;  /* sender's index */
    uint16_t n;    /* slots that follow */
    uint16_t seq;  /* per (sender, receiver), wraps */
};
_Static_assert(sizeof(struct batch_hdr) == 16, "batch header");

#define BATCH_BYTES (sizeof(struct batch_hdr) + HOSTLINK_BATCH * sizeof(struct emu_msg))

/* A fabric operation's context comes first, so a completion's op_context
 * is the buffer it belongs to. */
struct buf {
    struct fi_context ctx;
    int is_rx;
    int busy;       /* tx: posted, not completed; or being filled */
    struct batch_hdr *b;
};

/* A batch received while we waited (for a free send buffer, or in
 * hostlink_wait): copied out so its receive can be posted again at once,
 * and delivered by the next hostlink_poll, the one place that delivers. */
struct stash {
    struct stash *next;
    size_t len;
    struct batch_hdr b[];
};

struct hostlink {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    void *desc;
    uint8_t *mem; /* NTX + NRX batches */
    struct buf tx[NTX], rx[NRX];
    uint32_t self, max_peers, npeers, job;
    fi_addr_t *addr;   /* [max_peers] */
    int *filling;      /* [max_peers] tx buffer being filled, or -1 */
    uint16_t *tx_seq;  /* [max_peers] */
    uint16_t *rx_seq;  /* [max_peers] next expected */
    struct stash *stash_head, **stash_tail; /* received outside hostlink_poll */
    struct hostlink_stats st;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int post_rx(struct hostlink *hl, struct buf *r)
{
    for (;;) {
        ssize_t rc = fi_recv(hl->ep, r->b, BATCH_BYTES, hl->desc, FI_ADDR_UNSPEC, &r->ctx);
        if (rc == 0)
            return 0;
        if (rc != -FI_EAGAIN)
            return -EIO;
        fi_cq_read(hl->cq, NULL, 0); /* progress, then retry */
    }
}

int hostlink_open(struct hostlink **out, const char *node, uint32_t self, uint32_t max_peers, uint32_t job,
                  const char **why)
{
    *out = NULL;
    *why = "out of memory";
    if (max_peers == 0 || self >= max_peers) {
        *why = "own index not below the peer count";
        return -EINVAL;
    }
    struct hostlink *hl = calloc(1, sizeof *hl);
    if (!hl)
        return -ENOMEM;
    hl->self = self;
    hl->max_peers = max_peers;
    hl->job = job;
    hl->addr = calloc(max_peers, sizeof *hl->addr);
    hl->filling = malloc(max_peers * sizeof *hl->filling);
    hl->tx_seq = calloc(max_peers, sizeof *hl->tx_seq);
    hl->rx_seq = calloc(max_peers, sizeof *hl->rx_seq);
    hl->mem = aligned_alloc(4096, ((NTX + NRX) * BATCH_BYTES + 4095) / 4096 * 4096);
    if (!hl->addr || !hl->filling || !hl->tx_seq || !hl->rx_seq || !hl->mem) {
        hostlink_close(hl);
        return -ENOMEM;
    }
    for (uint32_t p = 0; p < max_peers; p++)
        hl->filling[p] = -1;
    hl->stash_tail = &hl->stash_head;

    struct fi_info *hints = fi_allocinfo();
    if (!hints) {
        hostlink_close(hl);
        return -ENOMEM;
    }
    const char *prov = getenv("FI_PROVIDER");
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG;
    hints->mode = FI_CONTEXT;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    prov = prov && *prov ? prov : "tcp";
    hints->fabric_attr->prov_name = strdup(prov);
    /* shm names its endpoints itself (one per process); an address given
     * to it would be the same for every daemon of the host */
    if (!node && strncmp(prov, "shm", 3) != 0)
        node = "127.0.0.1";
    int rc = fi_getinfo(FI_VERSION(1, 9), node, NULL, node ? FI_SOURCE : 0, hints, &hl->info);
    fi_freeinfo(hints);
    if (rc) {
        *why = "no libfabric provider gives ordered reliable datagrams here (FI_PROVIDER, fi_getinfo)";
        hostlink_close(hl);
        return -ENODEV;
    }
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_UNSPEC, .size = 4 * (NTX + NRX)};
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = max_peers};
    *why = "libfabric refused to open the fabric, domain, queues or endpoint";
    if (fi_fabric(hl->info->fabric_attr, &hl->fabric, NULL) || fi_domain(hl->fabric, hl->info, &hl->domain, NULL) ||
        fi_cq_open(hl->domain, &cqa, &hl->cq, NULL) || fi_av_open(hl->domain, &ava, &hl->av, NULL) ||
        fi_endpoint(hl->domain, hl->info, &hl->ep, NULL) || fi_ep_bind(hl->ep, &hl->cq->fid, FI_TRANSMIT | FI_RECV) ||
        fi_ep_bind(hl->ep, &hl->av->fid, 0) || fi_enable(hl->ep)) {
        hostlink_close(hl);
        return -EIO;
    }
    if (hl->info->domain_attr->mr_mode & FI_MR_LOCAL) {
        if (fi_mr_reg(hl->domain, hl->mem, (NTX + NRX) * BATCH_BYTES, FI_SEND | FI_RECV, 0, 0, 0, &hl->mr, NULL)) {
            *why = "libfabric refused to register the batch buffers";
            hostlink_close(hl);
            return -EIO;
        }
        hl->desc = fi_mr_desc(hl->mr);
    }
    for (int i = 0; i < NTX + NRX; i++) {
        struct buf *b = i < NTX ? &hl->tx[i] : &hl->rx[i - NTX];
        b->is_rx = i >= NTX;
        b->b = (struct batch_hdr *)(hl->mem + (size_t)i * BATCH_BYTES);
    }
    for (int i = 0; i < NRX; i++)
        if (post_rx(hl, &hl->rx[i])) {
            *why = "libfabric refused to post receives";
            hostlink_close(hl);
            return -EIO;
        }
    *why = NULL;
    *out = hl;
    return 0;
}

void hostlink_close(struct hostlink *hl)
{
    if (!hl)
        return;
    if (hl->ep)
        fi_close(&hl->ep->fid);
    if (hl->mr)
        fi_close(&hl->mr->fid);
    if (hl->av)
        fi_close(&hl->av->fid);
    if (hl->cq)
        fi_close(&hl->cq->fid);
    if (hl->domain)
        fi_close(&hl->domain->fid);
    if (hl->fabric)
        fi_close(&hl->fabric->fid);
    if (hl->info)
        fi_freeinfo(hl->info);
    while (hl->stash_head) {
        struct stash *x = hl->stash_head;
        hl->stash_head = x->next;
        free(x);
    }
    free(hl->mem);
    free(hl->addr);
    free(hl->filling);
    free(hl->tx_seq);
    free(hl->rx_seq);
    free(hl);
}

const char *hostlink_provider(const struct hostlink *hl) { return hl->info->fabric_attr->prov_name; }

int hostlink_name(struct hostlink *hl, void *buf, size_t *len)
{
    return fi_getname(&hl->ep->fid, buf, len) ? -ENOSPC : 0;
}

int hostlink_add_peer(struct hostlink *hl, const void *name, size_t len, uint32_t *peer)
{
    if (hl->npeers >= hl->max_peers)
        return -ENOSPC;
    if (!name || len == 0 || len > HOSTLINK_NAME_MAX)
        return -EINVAL;
    fi_addr_t a;
    if (fi_av_insert(hl->av, name, 1, &a, 0, NULL) != 1)
        return -EINVAL;
    *peer = hl->npeers;
    hl->addr[hl->npeers++] = a;
    return 0;
}

/* A received batch, checked, to deliver: its slot count, or -EPROTO with
 * the sender (UINT32_MAX when there is none to name) in *bad_peer. */
static int deliver_batch(struct hostlink *hl, const struct batch_hdr *h, size_t len, hostlink_deliver_fn deliver,
                         void *arg, uint32_t *bad_peer)
{
    if (len < sizeof *h || h->magic != HL_MAGIC || h->job != hl->job || h->src >= hl->npeers || h->n < 1 ||
        h->n > HOSTLINK_BATCH || len != sizeof *h + (size_t)h->n * sizeof(struct emu_msg)) {
        if (bad_peer)
            *bad_peer = len >= sizeof *h && h->magic == HL_MAGIC && h->src < hl->npeers ? h->src : UINT32_MAX;
        return -EPROTO;
    }
    if (h->seq != hl->rx_seq[h->src]) {
        if (bad_peer)
            *bad_peer = h->src;
        return -EPROTO;
    }
    hl->rx_seq[h->src]++;
    hl->st.rx_batches++;
    hl->st.rx_msgs += h->n;
    deliver(arg, h->src, (const struct emu_msg *)(h + 1), h->n);
    return h->n;
}

/* One completion outside hostlink_poll: a send's buffer comes free, a
 * received batch is stashed and its receive posted again. */
static int stash_one(struct hostlink *hl, const struct fi_cq_msg_entry *e)
{
    struct buf *b = e->op_context;
    if (!b->is_rx) {
        b->busy = 0;
        return 0;
    }
    size_t len = e->len <= BATCH_BYTES ? e->len : BATCH_BYTES;
    struct stash *x = malloc(sizeof *x + len);
    if (!x)
        return -ENOMEM;
    x->next = NULL;
    x->len = e->len; /* a wrong length is caught on delivery */
    memcpy(x->b, b->b, len);
    *hl->stash_tail = x;
    hl->stash_tail = &x->next;
    return post_rx(hl, b);
}

static int cq_error(struct hostlink *hl)
{
    struct fi_cq_err_entry err = {0};
    fi_cq_readerr(hl->cq, &err, 0);
    return -EIO;
}

int hostlink_poll(struct hostlink *hl, hostlink_deliver_fn deliver, void *arg, uint32_t *bad_peer)
{
    int total = 0;
    while (hl->stash_head) {
        struct stash *x = hl->stash_head;
        if (!(hl->stash_head = x->next))
            hl->stash_tail = &hl->stash_head;
        int n = deliver_batch(hl, x->b, x->len, deliver, arg, bad_peer);
        free(x);
        if (n < 0)
            return n;
        total += n;
    }
    struct fi_cq_msg_entry e[16];
    for (;;) {
        ssize_t got = fi_cq_read(hl->cq, e, 16);
        if (got == -FI_EAGAIN)
            return total;
        if (got < 0)
            return cq_error(hl);
        for (ssize_t i = 0; i < got; i++) {
            struct buf *b = e[i].op_context;
            if (!b->is_rx) {
                b->busy = 0;
                continue;
            }
            int n = deliver_batch(hl, b->b, e[i].len, deliver, arg, bad_peer);
            if (post_rx(hl, b))
                return -EIO;
            if (n < 0)
                return n;
            total += n;
        }
    }
}

int hostlink_wait(struct hostlink *hl, int timeout_ms)
{
    if (hl->stash_head)
        return 0;
    struct fi_cq_msg_entry e;
    ssize_t rc = fi_cq_sread(hl->cq, &e, 1, NULL, timeout_ms);
    if (rc == 1)
        return stash_one(hl, &e);
    if (rc == -FI_EAGAIN || rc == -FI_ETIMEDOUT)
        return -ETIMEDOUT;
    return rc == -FI_EAVAIL ? cq_error(hl) : -EIO;
}

/* Progress while a send waits for the fabric. */
static int reap(struct hostlink *hl)
{
    struct fi_cq_msg_entry e;
    ssize_t got = fi_cq_read(hl->cq, &e, 1);
    if (got == -FI_EAGAIN)
        return 0;
    if (got < 0)
        return cq_error(hl);
    return stash_one(hl, &e);
}

static int post_tx(struct hostlink *hl, uint32_t peer)
{
    int i = hl->filling[peer];
    struct buf *b = &hl->tx[i];
    size_t len = sizeof *b->b + (size_t)b->b->n * sizeof(struct emu_msg);
    int64_t start = now_ms();
    for (;;) {
        ssize_t rc = fi_send(hl->ep, b->b, len, hl->desc, hl->addr[peer], &b->ctx);
        if (rc == 0)
            break;
        if (rc != -FI_EAGAIN)
            return -EIO;
        if ((rc = reap(hl)) != 0)
            return (int)rc;
        if (now_ms() - start > HOSTLINK_SEND_WAIT_MS)
            return -EBUSY;
    }
    hl->filling[peer] = -1;
    hl->tx_seq[peer]++;
    hl->st.tx_batches++;
    hl->st.tx_msgs += b->b->n;
    return 0;
}

static int take_tx(struct hostlink *hl, uint32_t peer)
{
    int64_t start = 0;
    for (;;) {
        for (int i = 0; i < NTX; i++)
            if (!hl->tx[i].busy) {
                struct buf *b = &hl->tx[i];
                b->busy = 1;
                *b->b = (struct batch_hdr){.magic = HL_MAGIC, .job = hl->job, .src = hl->self, .seq = hl->tx_seq[peer]};
                hl->filling[peer] = i;
                return 0;
            }
        if (!start) {
            start = now_ms();
            hl->st.tx_waits++;
        }
        int rc = reap(hl);
        if (rc)
            return rc;
        if (now_ms() - start > HOSTLINK_SEND_WAIT_MS)
            return -EBUSY;
    }
}

int hostlink_send(struct hostlink *hl, uint32_t peer, const struct emu_msg *m, unsigned n)
{
    if (peer >= hl->npeers)
        return -EINVAL;
    for (unsigned k = 0; k < n; k++) {
        int rc;
        if (hl->filling[peer] < 0 && (rc = take_tx(hl, peer)) != 0)
            return rc;
        struct batch_hdr *h = hl->tx[hl->filling[peer]].b;
        memcpy((struct emu_msg *)(h + 1) + h->n, &m[k], sizeof *m);
        if (++h->n == HOSTLINK_BATCH && (rc = post_tx(hl, peer)) != 0)
            return rc;
    }
    return 0;
}

int hostlink_flush(struct hostlink *hl)
{
    for (uint32_t p = 0; p < hl->npeers; p++)
        if (hl->filling[p] >= 0) {
            int rc = post_tx(hl, p);
            if (rc)
                return rc;
        }
    return 0;
}

void hostlink_stats(const struct hostlink *hl, struct hostlink_stats *out) { *out = hl->st; }
