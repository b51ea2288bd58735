/* Client side of the data-server protocol: credits (buffers at each
 * server), flow intimation, replies and get pulls. Used by the rank's
 * application thread only. */
#include "chan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "coll.h"
#include "config.h"
#include "mem.h"
#include "proto.h"
#include "range.h"

unsigned long armcii_nreq, armcii_ngrants, armcii_credit_waits;

enum { SLOT_FREE, SLOT_SENT, SLOT_PULL };

struct chan;
struct slot_cmpl {
    struct adev_cmpl c;
    int *flag;
};

/* One pull of get data from the server's buffers. */
struct pull {
    struct adev_cmpl c;
    struct chan *ch;
    int slot; /* -1 for a spare */
    char *tmp;
    void *local;
    struct armcii_strided lsec;
    size_t off, len;
    struct armcii_req *req;
    int *spares_left;
};

/* A get request waiting for its reply. */
struct getw {
    uint32_t seq;
    int slot;
    void *local;
    struct armcii_strided lsec;
    size_t off, len;
    struct armcii_req *req;
    size_t spare_len; /* filled from the ack */
    int replied;
    struct getw *next;
};

struct chan {
    int server;
    uint64_t region;
    char *staging, *spare_staging;
    uint32_t next_seq, done_seq;
    uint32_t slot_seq[64];
    int slot_state[64], slot_local[64];
    struct slot_cmpl slot_cmpl[64];
    int spare_local[1024];
    struct slot_cmpl spare_cmpl[1024];
    int grant_first, grant_n, grant_used, grant_open;
    uint32_t wait_seq;
    int wait_done;
    int64_t wait_value;
    int spares_left; /* get spares still being pulled */
    uint32_t get_grant_first; /* named in their release */
    struct getw *gets;
};

static struct chan **chans; /* per server rank, created on first use */
static uint64_t *regions;   /* every rank's server region (0: not a server) */

int armcii_server_of(int proc)
{
    return armcii_cfg.helper ? armcii_node_master(armcii_node_of(proc)) : proc;
}

int armcii_server_ctx(void)
{
    return armcii_cfg.helper ? ADEV_CTX_HELPER : ADEV_CTX_RANK;
}

uint64_t armcii_slot_off(int c, int i)
{
    return ((uint64_t)c * (uint64_t)armcii_cfg.bufs + (uint64_t)i) * armcii_cfg.buf_size;
}

uint64_t armcii_spare_off(int j)
{
    return armcii_slot_off(armcii_nproc(), 0) + (uint64_t)j * armcii_cfg.spare_size;
}

static size_t region_size(void)
{
    return armcii_spare_off(armcii_cfg.spare_bufs);
}

static void flag_done(struct adev_cmpl *c, int status)
{
    (void)status;
    *((struct slot_cmpl *)c)->flag = 0;
}

static struct chan *chan_of(int server)
{
    struct chan *ch = chans[server];
    if (ch)
        return ch;
    ch = calloc(1, sizeof *ch);
    if (!ch || !(ch->staging = armcii_mem_alloc(armcii_cfg.bufs * armcii_cfg.buf_size,
                                                ARMCII_MEM_HEAP)))
        armcii_error(1, "armci: out of memory for the channel to server %d", server);
    ch->server = server;
    ch->region = regions[server];
    ch->next_seq = 1;
    for (int i = 0; i < 64; i++)
        ch->slot_cmpl[i] = (struct slot_cmpl){{flag_done}, &ch->slot_local[i]};
    for (int i = 0; i < 1024; i++)
        ch->spare_cmpl[i] = (struct slot_cmpl){{flag_done}, &ch->spare_local[i]};
    return chans[server] = ch;
}

static int slot_acquire(struct chan *ch)
{
    for (int waited = 0;; waited = 1) {
        for (int i = 0; i < armcii_cfg.bufs; i++)
            if (ch->slot_state[i] == SLOT_FREE && !ch->slot_local[i])
                return i;
        armcii_credit_waits += !waited;
        armcii_progress(1);
    }
}

/* Post the request in staging (slot i, or spare j when spare >= 0). */
static void post(struct chan *ch, struct armcii_rq *rq, int slot, int spare, size_t len)
{
    char *src;
    uint64_t dst;
    struct slot_cmpl *c;
    rq->seq = ch->next_seq++;
    if (spare >= 0) {
        src = ch->spare_staging + (size_t)(spare - ch->grant_first) * armcii_cfg.spare_size;
        dst = ch->region + armcii_spare_off(spare);
        c = &ch->spare_cmpl[spare - ch->grant_first];
    } else {
        src = ch->staging + (size_t)slot * armcii_cfg.buf_size;
        dst = ch->region + armcii_slot_off(armcii_me(), slot);
        c = &ch->slot_cmpl[slot];
        ch->slot_state[slot] = SLOT_SENT;
        ch->slot_seq[slot] = rq->seq;
    }
    memcpy(src, rq, sizeof *rq);
    *c->flag = 1;
    armcii_nreq++;
    ARMCII_POST("armci request", armcii_dev->put_notify(ADEV_CTX_RANK, ch->server,
                                                         armcii_server_ctx(), src,
                                                         (void *)(uintptr_t)dst, len, rq->seq,
                                                         &c->c));
}

static void wait_reply(struct chan *ch, uint32_t seq)
{
    ch->wait_seq = seq;
    ch->wait_done = 0;
    while (!ch->wait_done)
        armcii_progress(1);
    ch->wait_seq = 0;
}

static void fill_section(struct armcii_rq *rq, int proc, void *remote,
                         const struct armcii_strided *rsec)
{
    rq->target = proc;
    rq->dst = (uint64_t)(uintptr_t)remote;
    rq->levels = (uint8_t)rsec->levels;
    for (int i = 0; i <= rsec->levels; i++)
        rq->count[i] = rsec->count[i];
    for (int i = 0; i < rsec->levels; i++)
        rq->stride[i] = rsec->stride[i];
}

static void ensure_spare_staging(struct chan *ch)
{
    if (!ch->spare_staging &&
        !(ch->spare_staging = armcii_mem_alloc((size_t)armcii_cfg.spare_bufs * armcii_cfg.spare_size,
                                               ARMCII_MEM_HEAP)))
        armcii_error(1, "armci: out of memory for spare-buffer staging");
}

static void send_writes(int kind, struct chan *ch, int proc, int acc_type, const void *scale,
                        const void *local, const struct armcii_strided *lsec, void *remote,
                        const struct armcii_strided *rsec)
{
    size_t total = armcii_strided_bytes(lsec), off = 0;
    size_t cap = (armcii_cfg.buf_size - sizeof(struct armcii_rq)) & ~(size_t)15;
    size_t scap = (armcii_cfg.spare_size - sizeof(struct armcii_rq)) & ~(size_t)15;
    struct armcii_rq rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = (uint8_t)kind;
    rq.acc_type = (uint8_t)acc_type;
    if (scale)
        memcpy(rq.scale, scale, armcii_acc_elem_size(acc_type));
    fill_section(&rq, proc, remote, rsec);
    do {
        rq.flags = 0;
        rq.intimate = 0;
        rq.spare = -1;
        if (ch->grant_open && ch->grant_used < ch->grant_n) {
            int j = ch->grant_first + ch->grant_used++;
            while (ch->spare_local[j - ch->grant_first])
                armcii_progress(1);
            size_t n = total - off < scap ? total - off : scap;
            rq.off = off;
            rq.plen = n;
            rq.spare = j;
            rq.flags = RQF_SPARE;
            if (ch->grant_used == ch->grant_n || off + n == total) {
                rq.flags |= RQF_GRANT_END;
                ch->grant_open = 0;
            }
            char *dst = ch->spare_staging + (size_t)(j - ch->grant_first) * armcii_cfg.spare_size;
            armcii_pack_range(local, lsec, off, n, dst + sizeof rq);
            post(ch, &rq, -1, j, sizeof rq + n);
            off += n;
            /* no wait for the grant's ack: the server frees the spares when
             * it reaches this message, before anything we send later, and
             * our staging copies are guarded by their local completion */
            continue;
        }
        int slot = slot_acquire(ch);
        size_t n = total - off < cap ? total - off : cap;
        rq.off = off;
        rq.plen = n;
        int intimate = armcii_cfg.intimation && armcii_cfg.spare_bufs && total - off > n;
        if (intimate)
            rq.intimate = total - off - n;
        armcii_pack_range(local, lsec, off, n, ch->staging + (size_t)slot * armcii_cfg.buf_size +
                                                  sizeof rq);
        post(ch, &rq, slot, -1, sizeof rq + n);
        off += n;
        if (intimate) {
            /* the ack says whether spares are ours */
            ensure_spare_staging(ch);
            wait_reply(ch, rq.seq);
        }
    } while (off < total);
}

static void pull_done(struct adev_cmpl *c, int status)
{
    struct pull *p = (struct pull *)c;
    if (status)
        armcii_error(1, "armci: pulling get data from server %d failed (%d)", p->ch->server, status);
    armcii_unpack_range(p->local, &p->lsec, p->off, p->len, p->tmp);
    free(p->tmp);
    if (p->slot >= 0) {
        p->ch->slot_state[p->slot] = SLOT_FREE;
    } else if (--p->ch->spares_left == 0) {
        uint8_t rel[1 + sizeof(uint32_t)] = {RELEASE_KIND};
        memcpy(rel + 1, &p->ch->get_grant_first, sizeof(uint32_t));
        armcii_dev->send_small(ADEV_CTX_RANK, p->ch->server, armcii_server_ctx(), rel, sizeof rel);
    }
    armcii_req_done(p->req, 0);
    free(p);
}

static void start_pull(struct chan *ch, int slot, uint64_t from, const struct getw *g,
                       size_t off, size_t len)
{
    struct pull *p = calloc(1, sizeof *p);
    if (!p || !(p->tmp = malloc(len ? len : 1)))
        armcii_error(1, "armci: out of memory for a get");
    p->c.fn = pull_done;
    p->ch = ch;
    p->slot = slot;
    p->local = g->local;
    p->lsec = g->lsec;
    p->off = off;
    p->len = len;
    p->req = g->req;
    g->req->pending++;
    ARMCII_POST("armci get", armcii_dev->get(ADEV_CTX_RANK, ch->server, (void *)(uintptr_t)from,
                                              p->tmp, len, &p->c));
}

static void on_get_reply(struct chan *ch, struct getw *g, const struct armcii_ack *a)
{
    uint64_t slot_addr = ch->region + armcii_slot_off(armcii_me(), g->slot);
    ch->slot_state[g->slot] = SLOT_PULL;
    start_pull(ch, g->slot, slot_addr, g, g->off, a->data_len);
    if (a->flags & ACKF_GRANT) {
        armcii_ngrants++;
        size_t off = g->off + a->data_len, left = a->spare_len;
        ch->spares_left = a->grant_n;
        ch->get_grant_first = a->grant_first;
        for (int j = 0; j < a->grant_n; j++) {
            size_t k = left < armcii_cfg.spare_size ? left : armcii_cfg.spare_size;
            start_pull(ch, -1, ch->region + armcii_spare_off((int)a->grant_first + j), g, off, k);
            off += k;
            left -= k;
        }
    }
    g->spare_len = a->spare_len;
    g->replied = 1;
    armcii_req_done(g->req, 0); /* the reply itself */
}

void armcii_chan_on_ack(int src, const void *buf, size_t len)
{
    struct armcii_ack a;
    if (len < sizeof a || !chans || src < 0 || src >= armcii_nproc() || !chans[src])
        return;
    memcpy(&a, buf, sizeof a);
    struct chan *ch = chans[src];
    if ((int32_t)(a.seq_done - ch->done_seq) > 0)
        ch->done_seq = a.seq_done;
    for (int i = 0; i < armcii_cfg.bufs; i++)
        if (ch->slot_state[i] == SLOT_SENT && (int32_t)(ch->slot_seq[i] - ch->done_seq) <= 0)
            ch->slot_state[i] = SLOT_FREE;
    if (!a.reply_seq)
        return;
    for (struct getw **pp = &ch->gets; *pp; pp = &(*pp)->next) {
        struct getw *g = *pp;
        if (g->seq != a.reply_seq)
            continue;
        *pp = g->next;
        on_get_reply(ch, g, &a);
        if (ch->wait_seq == a.reply_seq) {
            ch->wait_done = 1;
            ch->wait_value = (int64_t)g->spare_len;
        }
        free(g);
        return;
    }
    if (a.flags & ACKF_GRANT) {
        armcii_ngrants++;
        ch->grant_first = (int)a.grant_first;
        ch->grant_n = a.grant_n;
        ch->grant_used = 0;
        ch->grant_open = 1;
    }
    if (ch->wait_seq == a.reply_seq) {
        ch->wait_done = 1;
        ch->wait_value = a.value;
    }
}

static void send_gets(struct chan *ch, int proc, void *local, const struct armcii_strided *lsec,
                      void *remote, const struct armcii_strided *rsec, struct armcii_req *req)
{
    size_t total = armcii_strided_bytes(lsec), off = 0;
    struct armcii_rq rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = RQ_GETS;
    rq.spare = -1;
    fill_section(&rq, proc, remote, rsec);
    while (off < total) {
        /* the previous grant's spares are still being pulled: let those
         * pulls finish, so this request can announce the rest again
         * instead of crawling on in single buffers */
        while (armcii_cfg.intimation && ch->spares_left && total - off > armcii_cfg.buf_size)
            armcii_progress(1);
        int slot = slot_acquire(ch);
        size_t n = total - off < armcii_cfg.buf_size ? total - off : armcii_cfg.buf_size;
        int intimate = armcii_cfg.intimation && armcii_cfg.spare_bufs && total - off > n &&
                       !ch->spares_left;
        rq.off = off;
        rq.plen = n;
        rq.intimate = intimate ? total - off - n : 0;
        rq.flags = RQF_REPLY;
        struct getw *g = calloc(1, sizeof *g);
        if (!g)
            armcii_error(1, "armci: out of memory for a get");
        *g = (struct getw){.slot = slot, .local = local, .lsec = *lsec, .off = off, .len = n,
                           .req = req, .next = ch->gets};
        req->pending++;
        /* the seq is assigned in post(): predict it for the reply table */
        g->seq = ch->next_seq;
        ch->gets = g;
        post(ch, &rq, slot, -1, sizeof rq);
        off += n;
        if (intimate) {
            wait_reply(ch, rq.seq);
            off += (size_t)ch->wait_value; /* what the spares carried */
        }
    }
}

void armcii_srv_section(int kind, int proc, int acc_type, const void *scale, void *local,
                        const struct armcii_strided *lsec, void *remote,
                        const struct armcii_strided *rsec, struct armcii_req *req)
{
    struct chan *ch = chan_of(armcii_server_of(proc));
    if (kind == RQ_GETS)
        send_gets(ch, proc, local, lsec, remote, rsec, req);
    else
        send_writes(kind, ch, proc, acc_type, scale, local, lsec, remote, rsec);
}

static int64_t simple_request(int kind, int proc, void *dst, int64_t value, int op, int reply)
{
    struct chan *ch = chan_of(armcii_server_of(proc));
    struct armcii_rq rq;
    memset(&rq, 0, sizeof rq);
    rq.kind = (uint8_t)kind;
    rq.target = proc;
    rq.spare = -1;
    rq.dst = (uint64_t)(uintptr_t)dst;
    rq.value = value;
    rq.rmw_op = op;
    rq.flags = reply ? RQF_REPLY : 0;
    int slot = slot_acquire(ch);
    post(ch, &rq, slot, -1, sizeof rq);
    if (!reply)
        return 0;
    wait_reply(ch, rq.seq);
    return ch->wait_value;
}

int64_t armcii_srv_rmw(int proc, int op, void *prem, int64_t value)
{
    return simple_request(RQ_RMW, proc, prem, value, op, 1);
}

void armcii_srv_lock(int proc, int mutex)
{
    simple_request(RQ_LOCK, proc, NULL, mutex, 0, 1);
}

void armcii_srv_unlock(int proc, int mutex)
{
    simple_request(RQ_UNLOCK, proc, NULL, mutex, 0, 0);
}

void armcii_chan_flush(int server)
{
    struct chan *ch = chans ? chans[server] : NULL;
    if (!ch || ch->done_seq + 1 == ch->next_seq)
        return;
    simple_request(RQ_FLUSH, server, NULL, 0, 0, 1);
}

int armcii_chan_init(void)
{
    int n = armcii_nproc(), me = armcii_me();
    chans = calloc((size_t)n, sizeof *chans);
    regions = calloc((size_t)n, sizeof *regions);
    if (!chans || !regions)
        return -ENOMEM;
    if (armcii_cfg.bufs > 64 || armcii_cfg.spare_bufs > 1024)
        armcii_error(1, "ARMCI_Init: ARMCI_BUFS must be <= 64 and ARMCI_SPARE_BUFS <= 1024");
    uint64_t mine = 0;
    if (armcii_server_of(me) == me) {
        void *r = armcii_mem_alloc(region_size(), ARMCII_MEM_HEAP);
        if (!r || armcii_server_init(r, region_size()) != 0)
            armcii_error(1, "ARMCI_Init: cannot allocate %zu bytes of server buffers; raise "
                         "emunic-run --heap or lower ARMCI_BUFS/ARMCI_SPARE_BUFS", region_size());
        mine = (uint64_t)(uintptr_t)r;
    }
    armcii_coll_allgather(armcii_group_world(), &mine, sizeof mine, regions);
    return 0;
}

void armcii_chan_finalize(void)
{
    for (int s = 0; chans && s < armcii_nproc(); s++) {
        if (!chans[s])
            continue;
        armcii_mem_free(chans[s]->staging, ARMCII_MEM_HEAP);
        armcii_mem_free(chans[s]->spare_staging, ARMCII_MEM_HEAP);
        while (chans[s]->gets) {
            struct getw *g = chans[s]->gets->next;
            free(chans[s]->gets);
            chans[s]->gets = g;
        }
        free(chans[s]);
    }
    free(chans);
    free(regions);
    chans = NULL;
    regions = NULL;
}
