/* The data server ([XT5-ARMCI] communication helper): executes requests
 * for the ranks it serves -- strided puts, accumulates, gets, RMW, locks --
 * on their memory, which it reaches directly (node-shared heap, or its own
 * memory when every rank serves itself). Runs inside progress of its
 * context, one request at a time, so requests are atomic with respect to
 * each other. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include "chan.h"
#include "config.h"
#include "mem.h"
#include "proto.h"
#include "range.h"
#include "serial.h"

unsigned long armcii_srv_requests, armcii_srv_acks;

struct waiter {
    int client;
    uint32_t seq;
    struct waiter *next;
};

struct mutex_q {
    int owner; /* client rank, -1 when free */
    struct waiter *head, *tail;
};

/* A client may hold two grants at once here: one for a write (its
 * messages fill the spares) and one for a get (it pulls from them). Each
 * ends on its own, so each is released by its own range: releasing every
 * spare the client owned let a get's end free a write's spares, or a
 * write's end a get's, while they were still in use -- and another
 * request then overwrote them (wrong data in GA's matmul, with gets and
 * accumulates in flight together). */
struct grant_range {
    int first, n;
};

struct client {
    uint32_t done, acked;
    struct grant_range write_grant, get_grant;
};

static struct {
    char *region;
    size_t len;
    struct client *cl;
    int *spare_owner; /* client rank, -1 when free */
    struct mutex_q **mtx; /* per target rank */
    int *nmtx;
} S;

int armcii_server_init(void *region, size_t len)
{
    int n = armcii_nproc();
    S.region = region;
    S.len = len;
    S.cl = calloc((size_t)n, sizeof *S.cl);
    S.spare_owner = malloc(sizeof(int) * (size_t)(armcii_cfg.spare_bufs + 1));
    S.mtx = calloc((size_t)n, sizeof *S.mtx);
    S.nmtx = calloc((size_t)n, sizeof *S.nmtx);
    if (!S.cl || !S.spare_owner || !S.mtx || !S.nmtx)
        return -1;
    for (int i = 0; i < armcii_cfg.spare_bufs; i++)
        S.spare_owner[i] = -1;
    return 0;
}

void armcii_server_finalize(void)
{
    for (int t = 0; S.mtx && t < armcii_nproc(); t++) {
        for (int m = 0; m < S.nmtx[t]; m++)
            while (S.mtx[t][m].head) {
                struct waiter *w = S.mtx[t][m].head;
                S.mtx[t][m].head = w->next;
                free(w);
            }
        free(S.mtx[t]);
    }
    free(S.mtx);
    free(S.nmtx);
    free(S.cl);
    free(S.spare_owner);
    memset(&S, 0, sizeof S);
}

static size_t spare_cap(void)
{
    return (armcii_cfg.spare_size - sizeof(struct armcii_rq)) & ~(size_t)15;
}

static char *spare_addr(int j)
{
    return S.region + armcii_spare_off(j);
}

static void send_ack(int ctx, int client, struct armcii_ack *a)
{
    a->kind = ACK_KIND;
    a->seq_done = S.cl[client].done;
    S.cl[client].acked = a->seq_done;
    int rc;
    while ((rc = armcii_dev->send_small(ctx, client, ADEV_CTX_RANK, a, sizeof *a)) == -ENOMEM)
        armcii_dev->progress(ctx, 0);
    if (rc)
        fprintf(stderr, "armci server: rank %d: acknowledging rank %d failed (%d)\n",
                armcii_me(), client, rc);
    armcii_srv_acks++;
}

/* Grant up to want consecutive free spares to client. */
static int grant(int client, int want, int *first)
{
    int nsp = armcii_cfg.spare_bufs, best = 0, best_at = 0;
    for (int i = 0; i < nsp;) {
        if (S.spare_owner[i] != -1) {
            i++;
            continue;
        }
        int j = i;
        while (j < nsp && S.spare_owner[j] == -1 && j - i < want)
            j++;
        if (j - i > best)
            best = j - i, best_at = i;
        i = j + (j < nsp && S.spare_owner[j] != -1);
    }
    for (int i = 0; i < best; i++)
        S.spare_owner[best_at + i] = client;
    *first = best_at;
    return best;
}

static void release_spares(int client, struct grant_range *g)
{
    for (int i = g->first; i < g->first + g->n && i < armcii_cfg.spare_bufs; i++)
        if (S.spare_owner[i] == client)
            S.spare_owner[i] = -1;
    *g = (struct grant_range){0, 0};
}

/* The request's section as the kernels see it, and where it lives here. */
static char *section(const struct armcii_rq *rq, struct armcii_strided *s)
{
    if (rq->levels > ARMCII_MAX_LEVELS || rq->target < 0 || rq->target >= armcii_nproc())
        return NULL;
    s->levels = rq->levels;
    for (int i = 0; i <= rq->levels; i++)
        s->count[i] = rq->count[i];
    for (int i = 0; i < rq->levels; i++)
        s->stride[i] = (long)rq->stride[i];
    size_t runs = armcii_strided_runs(s);
    size_t extent = runs ? armcii_strided_offset(s, runs - 1) + (size_t)s->count[0] : 0;
    return armcii_mem_local(rq->target, (void *)(uintptr_t)rq->dst, extent);
}

static void lock_grant(int ctx, int client, uint32_t seq)
{
    struct armcii_ack a = {.reply_seq = seq};
    send_ack(ctx, client, &a);
}

/* Mutex m of target sits at index m + 1: index 0 is the runtime's own
 * ARMCII_MUTEX_ACC (source-driven accumulate), apart from the user's. */
static struct mutex_q *mutex_of(int target, int m)
{
    if (m < ARMCII_MUTEX_ACC || m > 1 << 20)
        return NULL;
    int i = m + 1;
    if (i >= S.nmtx[target]) {
        struct mutex_q *g = realloc(S.mtx[target], sizeof *g * (size_t)(i + 1));
        if (!g)
            return NULL;
        for (int k = S.nmtx[target]; k <= i; k++)
            g[k] = (struct mutex_q){.owner = -1};
        S.mtx[target] = g;
        S.nmtx[target] = i + 1;
    }
    return &S.mtx[target][i];
}

/* Returns whether the client waits for this request's reply. */
static int execute(int ctx, int src, struct armcii_rq *rq, char *msg, struct armcii_ack *a)
{
    struct armcii_strided s;
    char *base;
    const char *payload = msg + sizeof *rq;
    switch (rq->kind) {
    case RQ_PUTS:
    case RQ_ACC:
        if (!(base = section(rq, &s)))
            goto bad;
        if (rq->kind == RQ_PUTS)
            armcii_unpack_range(base, &s, rq->off, rq->plen, payload);
        else
            armcii_acc_range(rq->acc_type, rq->scale, base, &s, rq->off, rq->plen, payload);
        if (rq->intimate && armcii_cfg.spare_bufs) {
            int first, want = (int)((rq->intimate + spare_cap() - 1) / spare_cap());
            release_spares(src, &S.cl[src].write_grant); /* a client ends one before the next */
            int n = grant(src, want, &first);
            if (n) {
                S.cl[src].write_grant = (struct grant_range){first, n};
                a->flags |= ACKF_GRANT;
                a->grant_first = (uint32_t)first;
                a->grant_n = (uint16_t)n;
            }
            return 1;
        }
        if (rq->flags & RQF_GRANT_END) {
            release_spares(src, &S.cl[src].write_grant);
            a->flags |= ACKF_RELEASE;
            return 1;
        }
        return (rq->flags & RQF_REPLY) != 0;
    case RQ_GETS: {
        if (!(base = section(rq, &s)) || rq->plen > armcii_cfg.buf_size)
            goto bad;
        uint64_t off = rq->off;
        armcii_pack_range(base, &s, off, rq->plen, msg); /* the reply goes where the request was */
        a->data_len = rq->plen;
        off += rq->plen;
        if (rq->intimate && armcii_cfg.spare_bufs) {
            size_t cap = armcii_cfg.spare_size;
            /* the client intimates a get only once it has pulled the last
             * one's spares; their release may still be on its way */
            release_spares(src, &S.cl[src].get_grant);
            int first, n = grant(src, (int)((rq->intimate + cap - 1) / cap), &first);
            uint64_t left = rq->intimate;
            for (int j = 0; j < n; j++) {
                size_t k = left < cap ? left : cap;
                armcii_pack_range(base, &s, off, k, spare_addr(first + j));
                off += k;
                left -= k;
                a->spare_len += k;
            }
            if (n) {
                S.cl[src].get_grant = (struct grant_range){first, n};
                a->flags |= ACKF_GRANT;
                a->grant_first = (uint32_t)first;
                a->grant_n = (uint16_t)n;
            }
        }
        return 1;
    }
    case RQ_RMW: {
        int is_long = rq->rmw_op == ARMCI_FETCH_AND_ADD_LONG || rq->rmw_op == ARMCI_SWAP_LONG;
        size_t sz = is_long ? sizeof(long) : sizeof(int);
        char *p = armcii_mem_local(rq->target, (void *)(uintptr_t)rq->dst, sz);
        if (!p)
            goto bad;
        long old;
        if (is_long) {
            memcpy(&old, p, sizeof old);
        } else {
            int o;
            memcpy(&o, p, sizeof o);
            old = o;
        }
        long v = rq->rmw_op == ARMCI_FETCH_AND_ADD || rq->rmw_op == ARMCI_FETCH_AND_ADD_LONG
                     ? old + (long)rq->value : (long)rq->value;
        if (is_long) {
            memcpy(p, &v, sizeof v);
        } else {
            int iv = (int)v;
            memcpy(p, &iv, sizeof iv);
        }
        a->value = old;
        return 1;
    }
    case RQ_LOCK: {
        struct mutex_q *q = mutex_of(rq->target, (int)rq->value);
        if (!q)
            goto bad;
        if (q->owner == -1) {
            q->owner = src;
            return 1;
        }
        struct waiter *w = malloc(sizeof *w);
        if (!w)
            goto bad;
        *w = (struct waiter){src, rq->seq, NULL};
        if (q->tail)
            q->tail->next = w;
        else
            q->head = w;
        q->tail = w;
        return -1; /* the grant comes at an unlock */
    }
    case RQ_UNLOCK: {
        struct mutex_q *q = mutex_of(rq->target, (int)rq->value);
        if (!q || q->owner != src)
            goto bad;
        q->owner = -1;
        if (q->head) {
            struct waiter *w = q->head;
            q->head = w->next;
            if (!q->head)
                q->tail = NULL;
            q->owner = w->client;
            lock_grant(ctx, w->client, w->seq);
            free(w);
        }
        return 0;
    }
    case RQ_FLUSH:
        return 1;
    default:
        break;
    }
bad:
    fprintf(stderr, "armci server: rank %d: malformed or misdirected request kind %d from rank %d "
            "(target %d, address 0x%llx)\n", armcii_me(), rq->kind, src, rq->target,
            (unsigned long long)rq->dst);
    a->value = -1;
    return 1;
}

/* The helper thread serves requests into this rank's memory, and the
 * application learns they are done through the NIC, another process, so
 * no thread sanitizer sees the order: every request the server finishes
 * releases this counter, and the application's waits acquire it
 * (armcii_server_sync). Costs one atomic per request and per wait. */
static _Atomic unsigned long srv_epoch;

void armcii_server_sync(void)
{
    (void)atomic_load_explicit(&srv_epoch, memory_order_acquire);
}

void armcii_server_on_request(int ctx, int src, void *msg, size_t len)
{
    struct armcii_rq rq;
    if (len < sizeof rq || src < 0 || src >= armcii_nproc() || !S.cl)
        return;
    memcpy(&rq, msg, sizeof rq);
    if (rq.plen > len - sizeof rq && rq.kind != RQ_GETS)
        return;
    armcii_srv_requests++;
    armcii_serial_observe();
    struct armcii_ack a = {0};
    int reply = execute(ctx, src, &rq, msg, &a);
    atomic_fetch_add_explicit(&srv_epoch, 1, memory_order_release);
    S.cl[src].done = rq.seq;
    if (reply > 0) {
        a.reply_seq = rq.seq;
        send_ack(ctx, src, &a);
        return;
    }
    if (reply < 0)
        return;
    /* coalescing: with enough credits, one ack may return half of them */
    uint32_t unacked = S.cl[src].done - S.cl[src].acked;
    if (!armcii_cfg.coalesce || armcii_cfg.bufs < 4 || unacked >= (uint32_t)armcii_cfg.bufs / 2)
        send_ack(ctx, src, &a);
}

void armcii_server_on_small(int ctx, int src, const void *buf, size_t len)
{
    (void)ctx;
    uint32_t first;
    if (len < 1 + sizeof first || *(const uint8_t *)buf != RELEASE_KIND || src < 0 ||
        src >= armcii_nproc() || !S.cl)
        return;
    /* only the grant it names: a late release must not free a newer one */
    memcpy(&first, (const uint8_t *)buf + 1, sizeof first);
    if (S.cl[src].get_grant.n && (uint32_t)S.cl[src].get_grant.first == first)
        release_spares(src, &S.cl[src].get_grant);
}

void armcii_server_idle(int ctx)
{
    for (int c = 0; S.cl && c < armcii_nproc(); c++)
        if (S.cl[c].done != S.cl[c].acked) {
            struct armcii_ack a = {0};
            send_ack(ctx, c, &a);
        }
}
