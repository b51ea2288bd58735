/* Random one-sided traffic under injected faults, every byte checked.
 *
 *   fault_stress OPS [lossy|reliable] [solo]
 *
 * Each rank issues OPS random operations (writes of 1..512 bytes, so
 * inline, fragmented-inline and by-reference payloads; reads; ordered
 * fetch-adds; unordered adds) to random peers, up to WIN at a time. Every
 * rank writes only its own blocks at each peer and keeps a shadow of them,
 * so each read and fetch has one right answer. Every operation must
 * complete exactly once (a completion with an unknown or already used
 * cookie fails the run).
 *
 * Default (reliable network): every status must be 0 and every value right.
 * "lossy" (--unreliable): a status may be EMU_E_LOST; what a lost write or
 * add touched is no longer checked, everything else still is. "solo":
 * only rank 0 works, with writes of at most 64 bytes, so that the
 * packets on each link, and with them the faults a seed injects, are the
 * same from run to run. Prints "stress: rank R ops N ok K lost L" per
 * rank. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/atomic_op.h"
#include "emunic/emunic.h"

#define WIN 32
#define BS 512 /* block size */
#define NB 16  /* blocks per writer per target */
#define MAXR 64

#define FAIL(...)                                                                        \
    do {                                                                                 \
        fprintf(stderr, "FAIL rank %u line %d: ", emunic_rank(), __LINE__);              \
        fprintf(stderr, __VA_ARGS__);                                                    \
        fputc('\n', stderr);                                                             \
        exit(1);                                                                         \
    } while (0)

struct area {
    uint64_t ctr[MAXR];  /* fetch-add target, one per writer */
    uint64_t uctr[MAXR]; /* unordered adds, one per writer */
    uint8_t blk[MAXR][NB][BS];
};

enum kind { K_WRITE, K_READ, K_FETCH, K_UADD };

struct slot {
    int busy;
    uint64_t seq;
    enum kind k;
    uint32_t dst, blk, off, len;
    uint64_t want; /* fetch: expected old value */
    int known;     /* the expectation is exact (nothing lost before) */
    uint8_t buf[BS];
    uint8_t exp[BS];
    uint64_t fetched;
};

static struct area *A;
static uint32_t me, n;
static uint8_t shadow[MAXR][NB][BS];
static uint8_t tainted[MAXR][NB];
static uint64_t ctr_shadow[MAXR], uctr_count[MAXR];
static int ctr_tainted[MAXR], uctr_tainted[MAXR];
/* lossy: operations in flight whose loss would change what a later read
 * or fetch sees; such a read or fetch is not checked */
static uint32_t wpend[MAXR][NB], fpend[MAXR];
static struct slot S[WIN];
static uint64_t rng_state;
static int lossy, solo;
static uint64_t n_ok, n_lost, outstanding;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t raddr(uint32_t dst, const void *local)
{
    return emunic_heap_addr(dst) + (uint64_t)((const char *)local - (const char *)A);
}

static void complete(const struct emu_msg *c)
{
    if (c->op != EMU_CQ_DONE)
        FAIL("unexpected completion kind %u", c->op);
    uint32_t i = (uint32_t)(c->cookie & 0xffff);
    uint64_t seq = c->cookie >> 16;
    if (i >= WIN || !S[i].busy || S[i].seq != seq)
        FAIL("completion for cookie %llx matches no outstanding operation (twice?)",
             (unsigned long long)c->cookie);
    struct slot *s = &S[i];
    s->busy = 0;
    outstanding--;
    if (s->k == K_WRITE)
        wpend[s->dst][s->blk]--;
    else if (s->k == K_FETCH)
        fpend[s->dst]--;
    if (c->status == EMU_E_LOST && lossy) {
        n_lost++;
        if (s->k == K_WRITE)
            tainted[s->dst][s->blk] = 1;
        else if (s->k == K_FETCH)
            ctr_tainted[s->dst] = 1;
        else if (s->k == K_UADD)
            uctr_tainted[s->dst] = 1;
        return;
    }
    if (c->status)
        FAIL("operation %d to rank %u failed: %s", s->k, s->dst, emu_status_str(c->status));
    n_ok++;
    if (s->k == K_READ && s->known && memcmp(s->buf, s->exp, s->len))
        FAIL("read of %u bytes at block %u+%u from rank %u returned wrong data", s->len, s->blk, s->off, s->dst);
    if (s->k == K_FETCH && s->known && s->fetched != s->want)
        FAIL("fetch-add at rank %u returned %llu, want %llu", s->dst, (unsigned long long)s->fetched,
             (unsigned long long)s->want);
}

static void drain(int block)
{
    struct emu_msg c[16];
    int k = block ? emunic_wait(c, 16, 5000000000ll) : emunic_poll(c, 16);
    if (k < 0)
        FAIL("wait: %d", k);
    for (int j = 0; j < k; j++)
        complete(&c[j]);
}

static struct slot *take(uint64_t seq)
{
    for (;;) {
        for (uint32_t i = 0; i < WIN; i++)
            if (!S[i].busy) {
                S[i].busy = 1;
                S[i].seq = seq;
                outstanding++;
                return &S[i];
            }
        drain(1);
    }
}

static void issue(uint64_t seq, int final_read, uint32_t fdst, uint32_t fblk)
{
    struct slot *s = take(seq);
    uint64_t cookie = seq << 16 | (uint64_t)(s - S);
    uint32_t dst;
    do
        dst = (uint32_t)(rnd() % n);
    while (dst == me && n > 1);
    uint64_t r = rnd() % 100;
    s->k = final_read ? K_READ : r < 35 ? K_WRITE : r < 70 ? K_READ : r < 90 ? K_FETCH : K_UADD;
    s->dst = final_read ? fdst : dst;
    s->blk = final_read ? fblk : (uint32_t)(rnd() % NB);
    s->len = final_read ? BS : 1 + (uint32_t)(rnd() % (solo && s->k == K_WRITE ? 64 : BS));
    s->off = final_read ? 0 : (uint32_t)(rnd() % (BS - s->len + 1));
    uint8_t *target = A->blk[me][s->blk] + s->off;
    int rc = 0;
    switch (s->k) {
    case K_WRITE:
        for (uint32_t i = 0; i < s->len; i++)
            s->buf[i] = (uint8_t)rnd();
        memcpy(shadow[s->dst][s->blk] + s->off, s->buf, s->len);
        wpend[s->dst][s->blk]++;
        rc = emunic_write(s->dst, EMU_KEY_HEAP, raddr(s->dst, target), s->buf, s->len, EMU_F_REMOTE_CQ,
                          cookie, 0);
        break;
    case K_READ:
        memcpy(s->exp, shadow[s->dst][s->blk] + s->off, s->len);
        s->known = !tainted[s->dst][s->blk] && !(lossy && wpend[s->dst][s->blk]);
        memset(s->buf, 0xA5, s->len);
        rc = emunic_read(s->dst, EMU_KEY_HEAP, raddr(s->dst, target), s->buf, s->len, EMU_F_REMOTE_CQ, cookie);
        break;
    case K_FETCH: {
        uint64_t one = 1;
        s->want = ctr_shadow[s->dst]++;
        s->known = !ctr_tainted[s->dst] && !(lossy && fpend[s->dst]);
        fpend[s->dst]++;
        rc = emunic_atomic(s->dst, EMU_KEY_HEAP, raddr(s->dst, &A->ctr[me]), EMU_AOP_SUM, EMU_UINT64, &one, 8,
                           NULL, &s->fetched, EMU_F_REMOTE_CQ, cookie);
        break;
    }
    case K_UADD: {
        uint64_t one = 1;
        uctr_count[s->dst]++;
        rc = emunic_atomic(s->dst, EMU_KEY_HEAP, raddr(s->dst, &A->uctr[me]), EMU_AOP_SUM, EMU_UINT64, &one, 8,
                           NULL, NULL, EMU_F_REMOTE_CQ | EMU_F_UNORDERED, cookie);
        break;
    }
    }
    if (rc)
        FAIL("post: %d", rc);
}

int main(int argc, char **argv)
{
    uint64_t ops = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
    lossy = argc > 2 && !strcmp(argv[2], "lossy");
    solo = argc > 3 && !strcmp(argv[3], "solo");
    int rc = emunic_init();
    if (rc) {
        fprintf(stderr, "emunic_init: %d\n", rc);
        return 1;
    }
    me = emunic_rank();
    n = emunic_size();
    if (n > MAXR)
        FAIL("at most %d ranks", MAXR);
    A = emunic_malloc(sizeof *A);
    if (!A || (uint64_t)(uintptr_t)A != emunic_heap_addr(me))
        FAIL("the area must be the first heap block");
    memset(A, 0, sizeof *A);
    rng_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)me * 0x2545f4914f6cdd1dull) ^ ops;
    if (emunic_barrier())
        FAIL("barrier");
    uint64_t seq = 1;
    if (solo && me != 0)
        ops = 0;
    for (uint64_t i = 0; i < ops; i++) {
        issue(seq++, 0, 0, 0);
        drain(0);
    }
    while (outstanding)
        drain(1);
    /* read back everything this rank wrote, and the counters */
    for (uint32_t d = 0; d < n; d++) {
        if ((d == me && n > 1) || (solo && me != 0))
            continue;
        for (uint32_t b = 0; b < NB; b++) {
            for (;;) {
                uint64_t lost = n_lost;
                issue(seq++, 1, d, b);
                while (outstanding)
                    drain(1);
                if (n_lost == lost)
                    break; /* a lost read-back is tried again */
            }
        }
        uint64_t v[2];
        for (int which = 0; which < 2; which++) {
            for (;;) {
                uint64_t c = seq++ << 16 | 0xfffe;
                struct emu_msg m;
                uint64_t *p = which ? &A->uctr[me] : &A->ctr[me];
                if (emunic_read(d, EMU_KEY_HEAP, raddr(d, p), &v[which], 8, EMU_F_REMOTE_CQ, c))
                    FAIL("post");
                int st = emunic_wait_cookie(c, &m);
                if (st == EMU_E_LOST && lossy) {
                    n_lost++;
                    continue;
                }
                if (st)
                    FAIL("read-back of counters: %d", st);
                break;
            }
        }
        if (!ctr_tainted[d] && v[0] != ctr_shadow[d])
            FAIL("fetch-add counter at rank %u is %llu, want %llu", d, (unsigned long long)v[0],
                 (unsigned long long)ctr_shadow[d]);
        if (!uctr_tainted[d] && v[1] != uctr_count[d])
            FAIL("unordered counter at rank %u is %llu, want %llu", d, (unsigned long long)v[1],
                 (unsigned long long)uctr_count[d]);
    }
    if (emunic_barrier())
        FAIL("barrier");
    printf("stress: rank %u ops %llu ok %llu lost %llu\n", me, (unsigned long long)ops, (unsigned long long)n_ok,
           (unsigned long long)n_lost);
    emunic_finalize();
    return 0;
}
