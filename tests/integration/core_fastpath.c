/* What must not change when a cross-node operation is applied by the
 * initiator's daemon instead of the target's (nicd/fastpath.c), with every
 * rank busy at once so that the two roads mix:
 *  - per-pair order: a read posted right behind a write (no wait between)
 *    returns what that write wrote, inline and 4 KiB;
 *  - NIC atomics stay atomic with respect to each other: pipelined
 *    fetch-adds from every rank to one counter fetch each value once;
 *  - a flush completes only when the writes before it are in the target's
 *    memory, as the target itself sees it;
 *  - a bad key or an out-of-bounds address fails as it did on the wire;
 *  - the target's completion queue, which several daemons now fill, gets
 *    inline active messages and notified writes from each peer in the
 *    order they were posted, every field as sent.
 * fastpath.sh runs it with and without the path and checks the counters. */
#include "itest.h"

#define ITERS 3000
#define WIN 16
#define BIG 4096
#define ADDS 512
#define FLUSH_BYTES (256 * 1024)

struct peer {
    uint64_t slots, big, counter, gather, flushed;
};

static uint32_t me, n;
static struct peer *peers;

/* Layout of each rank's heap area (offsets from mine.slots). */
struct area {
    uint64_t slot[64];    /* one 8-byte slot per writer rank */
    char big[64][BIG];    /* one 4 KiB slot per writer rank */
    int64_t counter;
    int64_t fetched[ADDS];
};

static void order(uint32_t to, char *src_big, char *back_big)
{
    uint64_t back[WIN], c_read[WIN];
    int64_t want[WIN];
    int pending = 0;
    for (int i = 0; i < ITERS; i++) {
        int w = i % WIN;
        if (i >= WIN) { /* retire the read of lap i - WIN */
            CHECK(wait_done(c_read[w], EMU_DONE_REMOTE) == 0, "read %d", i - WIN);
            CHECK((int64_t)back[w] == want[w], "to rank %u: read behind write %lld returned %lld", to,
                  (long long)want[w], (long long)back[w]);
            pending--;
        }
        uint64_t v = (uint64_t)i * n + me;
        uint64_t addr = peers[to].slots + (uint64_t)me * 8;
        CHECK(emunic_write(to, EMU_KEY_HEAP, addr, &v, 8, 0, 0, 0) == 0, "post write");
        want[w] = (int64_t)v;
        c_read[w] = cookie();
        CHECK(emunic_read(to, EMU_KEY_HEAP, addr, &back[w], 8, EMU_F_REMOTE_CQ, c_read[w]) == 0, "post read");
        pending++;
        if (i % 64 == 0) { /* a payload that is not inline: read from our heap by the NIC */
            memset(src_big, (int)(i / 64 + me) & 0xff, BIG);
            uint64_t cw = cookie(), cr = cookie();
            uint64_t baddr = peers[to].big + (uint64_t)me * BIG;
            CHECK(emunic_write(to, EMU_KEY_HEAP, baddr, src_big, BIG, EMU_F_LOCAL_CQ, cw, 0) == 0, "post");
            CHECK(emunic_read(to, EMU_KEY_HEAP, baddr, back_big, BIG, EMU_F_REMOTE_CQ, cr) == 0, "post");
            CHECK(wait_done(cw, EMU_DONE_LOCAL) == 0, "big write");
            CHECK(wait_done(cr, EMU_DONE_REMOTE) == 0, "big read");
            for (int b = 0; b < BIG; b++)
                CHECK((unsigned char)back_big[b] == (unsigned char)((i / 64 + me) & 0xff),
                      "to rank %u: 4 KiB read behind its write, byte %d", to, b);
        }
    }
    for (int k = 0; k < pending; k++) {
        int w = (ITERS - pending + k) % WIN;
        CHECK(wait_done(c_read[w], EMU_DONE_REMOTE) == 0, "read");
        CHECK((int64_t)back[w] == want[w], "final reads");
    }
}

static void adds(struct area *mine)
{
    if (me == 0)
        mine->counter = 0;
    CHECK(emunic_barrier() == 0, "barrier");
    uint64_t c[WIN];
    int64_t one = 1;
    for (int i = 0; i < ADDS; i++) {
        if (i >= WIN)
            CHECK(wait_done(c[i % WIN], EMU_DONE_REMOTE) == 0, "fetch-add %d", i - WIN);
        c[i % WIN] = cookie();
        CHECK(emunic_atomic(0, EMU_KEY_HEAP, peers[0].counter, EMU_AOP_SUM, EMU_INT64, &one, 8, NULL,
                            &mine->fetched[i], EMU_F_REMOTE_CQ, c[i % WIN]) == 0, "post");
    }
    for (int i = ADDS - WIN; i < ADDS; i++)
        CHECK(wait_done(c[i % WIN], EMU_DONE_REMOTE) == 0, "fetch-add %d", i);
    /* everyone's fetched values to rank 0 */
    uint64_t cg = cookie();
    CHECK(emunic_write(0, EMU_KEY_HEAP, peers[0].gather + (uint64_t)me * sizeof mine->fetched, mine->fetched,
                       sizeof mine->fetched, EMU_F_REMOTE_CQ, cg, 0) == 0, "post");
    CHECK(wait_done(cg, EMU_DONE_REMOTE) == 0, "gather");
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 0) {
        int64_t total = (int64_t)n * ADDS;
        CHECK(mine->counter == total, "counter %lld, want %lld", (long long)mine->counter, (long long)total);
        const int64_t *all = (const int64_t *)(uintptr_t)peers[0].gather;
        unsigned char *seen = calloc((size_t)total, 1);
        for (int64_t k = 0; k < total; k++) {
            CHECK(all[k] >= 0 && all[k] < total, "fetched value %lld out of range", (long long)all[k]);
            CHECK(!seen[all[k]], "value %lld fetched twice: an add was not atomic", (long long)all[k]);
            seen[all[k]] = 1;
        }
        free(seen);
        printf("fastpath: %lld pipelined fetch-adds from %u ranks, each value fetched once\n", (long long)total, n);
    }
    CHECK(emunic_barrier() == 0, "barrier");
}

static void flush(uint32_t to, uint32_t from, char *src)
{
    for (int b = 0; b < FLUSH_BYTES; b++)
        src[b] = (char)(b * 7 + me);
    uint64_t cw = cookie(), cf = cookie();
    CHECK(emunic_write(to, EMU_KEY_HEAP, peers[to].flushed, src, FLUSH_BYTES, EMU_F_LOCAL_CQ, cw, 0) == 0, "post");
    CHECK(emunic_flush(to, cf) == 0, "post flush");
    CHECK(wait_done(cf, EMU_DONE_REMOTE) == 0, "flush");
    CHECK(wait_done(cw, EMU_DONE_LOCAL) == 0, "write");
    CHECK(emunic_barrier() == 0, "barrier");
    const char *got = (const char *)(uintptr_t)peers[me].flushed;
    for (int b = 0; b < FLUSH_BYTES; b++)
        CHECK(got[b] == (char)(b * 7 + from), "byte %d from rank %u after its flush", b, from);
    CHECK(emunic_barrier() == 0, "barrier");
}

#define ENTRIES 2000
#define AM_ID 7

/* One entry from the peer: check it is the next one and says what was sent. */
static int take_entry(const struct emu_msg *e, uint32_t from, uint64_t base, uint64_t *next)
{
    uint64_t seq;
    if (e->op == EMU_CQ_AM) {
        CHECK(e->imm == AM_ID && e->src == from && e->dlen == 24, "AM entry: handler %llu src %u dlen %u",
              (unsigned long long)e->imm, e->src, e->dlen);
        memcpy(&seq, e->data, 8);
        for (int b = 0; b < 16; b++)
            CHECK((unsigned char)e->data[8 + b] == (unsigned char)(seq + (uint64_t)b), "AM %llu payload byte %d",
                  (unsigned long long)seq, b);
        CHECK(seq % 2 == 0, "AM carries odd sequence %llu", (unsigned long long)seq);
    } else if (e->op == EMU_CQ_TARGET) {
        seq = e->imm;
        CHECK(e->flags == EMU_OP_WRITE && e->src == from && e->dst == me && e->len == 8 && e->key == EMU_KEY_HEAP &&
              e->raddr == base + (uint64_t)from * 8, "notify entry %llu: op %u src %u dst %u len %llu raddr %llx",
              (unsigned long long)seq, e->flags, e->src, e->dst, (unsigned long long)e->len,
              (unsigned long long)e->raddr);
        CHECK(seq % 2 == 1, "notified write carries even sequence %llu", (unsigned long long)seq);
    } else {
        return 0;
    }
    CHECK(seq == *next, "from rank %u: entry %llu arrived when %llu was next", from, (unsigned long long)seq,
          (unsigned long long)*next);
    (*next)++;
    return 1;
}

static void entries(uint32_t to, uint32_t from)
{
    /* the peer's entries arriving meanwhile wait in the stash, in order,
     * while wait_done looks for our own completions */
    uint64_t c[WIN], next = 0;
    struct emu_msg e[16];
    for (uint64_t i = 0; i < ENTRIES; i++) {
        if (i >= WIN)
            CHECK(wait_done(c[i % WIN], EMU_DONE_REMOTE) == 0, "entry %llu", (unsigned long long)(i - WIN));
        c[i % WIN] = cookie();
        if (i % 2 == 0) {
            unsigned char pay[16];
            for (int b = 0; b < 16; b++)
                pay[b] = (unsigned char)(i + (uint64_t)b);
            CHECK(emunic_am_send(to, AM_ID, &i, 8, pay, 16, EMU_F_REMOTE_CQ, c[i % WIN]) == 0, "post AM");
        } else {
            CHECK(emunic_write(to, EMU_KEY_HEAP, peers[to].slots + (uint64_t)me * 8, &i, 8,
                               EMU_F_REMOTE_CQ | EMU_F_TARGET_NOTIFY, c[i % WIN], i) == 0, "post notified write");
        }
    }
    for (uint64_t i = ENTRIES - WIN; i < ENTRIES; i++)
        CHECK(wait_done(c[i % WIN], EMU_DONE_REMOTE) == 0, "entry %llu", (unsigned long long)i);
    while (next < ENTRIES) {
        int k = emunic_wait(e, 16, 60ll * 1000000000);
        CHECK(k > 0, "waited for entry %llu of %d from rank %u: %d", (unsigned long long)next, ENTRIES, from, k);
        for (int j = 0; j < k; j++)
            take_entry(&e[j], from, peers[me].slots, &next);
    }
    CHECK(emunic_barrier() == 0, "barrier");
}

static void errors(uint32_t to)
{
    uint64_t v = 1, c = cookie();
    CHECK(emunic_write(to, 0x7777, peers[to].slots, &v, 8, EMU_F_REMOTE_CQ, c, 0) == 0, "post");
    int st = wait_done(c, EMU_DONE_REMOTE);
    CHECK(st == EMU_E_NOKEY, "write with a key nobody exposed: status %d, want %d", st, EMU_E_NOKEY);
    c = cookie();
    CHECK(emunic_read(to, EMU_KEY_HEAP, emunic_heap_addr(to) - 4, &v, 8, EMU_F_REMOTE_CQ, c) == 0, "post");
    st = wait_done(c, EMU_DONE_REMOTE);
    CHECK(st == EMU_E_ACCES, "read across the heap's start: status %d, want %d", st, EMU_E_ACCES);
}

int main(void)
{
    itest_init();
    me = emunic_rank();
    n = emunic_size();
    CHECK(n <= 64, "at most 64 ranks");
    struct area *a = emunic_malloc(sizeof *a);
    int64_t *gather = emunic_malloc((size_t)n * ADDS * sizeof(int64_t));
    char *flushed = emunic_malloc(FLUSH_BYTES), *src = emunic_malloc(FLUSH_BYTES);
    char *src_big = emunic_malloc(BIG), *back_big = emunic_malloc(BIG);
    CHECK(a && gather && flushed && src && src_big && back_big, "heap");
    struct peer mine = {(uint64_t)(uintptr_t)a->slot, (uint64_t)(uintptr_t)a->big,
                        (uint64_t)(uintptr_t)&a->counter, (uint64_t)(uintptr_t)gather,
                        (uint64_t)(uintptr_t)flushed};
    peers = calloc(n, sizeof *peers);
    itest_allgather(&mine, sizeof mine, peers);
    uint32_t shifts[2] = {1, n / 2 ? n / 2 : 1};
    for (int s = 0; s < 2; s++) {
        uint32_t to = (me + shifts[s]) % n, from = (me + n - shifts[s]) % n;
        order(to, src_big, back_big);
        CHECK(emunic_barrier() == 0, "barrier");
        flush(to, from, src);
        errors(to);
        entries(to, from);
        if (me == 0)
            printf("fastpath: shift %u: %d reads behind writes, a 256 KiB flush, bad key and bounds, "
                   "%d AMs and notified writes in order: ok\n", shifts[s], ITERS, ENTRIES);
    }
    adds(a);
    if (me == 0)
        printf("fastpath: ok\n");
    emunic_finalize();
    return 0;
}
