/* Every atomic op x datatype executed by the target NIC, on heap and on
 * private memory, same-node and cross-node: the target bytes afterwards and
 * the fetched old bytes must equal a local computation, byte for byte. */
#include "itest.h"

#include <complex.h>

#define SLOT 128 /* 3 elements of the largest type (32 B) fit with room */
#define NSLOT (EMU_AOP_COUNT_ * EMU_DTYPE_COUNT_)

struct peer {
    uint64_t area[2];
    uint32_t key[2];
};

static void store(unsigned dtype, void *p, double v)
{
    switch (dtype) {
    case EMU_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case EMU_UINT8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case EMU_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case EMU_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case EMU_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case EMU_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case EMU_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    case EMU_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case EMU_FLOAT: { float x = (float)v; memcpy(p, &x, sizeof x); break; }
    case EMU_DOUBLE: { memcpy(p, &v, sizeof v); break; }
    case EMU_LONG_DOUBLE: { long double x = v; memset(p, 0, sizeof x); memcpy(p, &x, 10); break; }
    case EMU_FLOAT_COMPLEX: { float _Complex x = (float)v + (float)(v / 2) * I; memcpy(p, &x, sizeof x); break; }
    case EMU_DOUBLE_COMPLEX: { double _Complex x = v + (v / 2) * I; memcpy(p, &x, sizeof x); break; }
    case EMU_LONG_DOUBLE_COMPLEX: {
        long double re = v, im = v / 2;
        memset(p, 0, 32);
        memcpy(p, &re, 10);
        memcpy((char *)p + 16, &im, 10);
        break;
    }
    }
}

/* Initial target contents of slot s, owned by rank owner. */
static void init_slot(char *slot, unsigned aop, unsigned dtype, uint32_t owner)
{
    size_t es = emu_dtype_size(dtype);
    memset(slot, 0, SLOT);
    for (int i = 0; i < 3; i++)
        store(dtype, slot + i * es, (double)((aop + dtype + owner + i) % 7) + 1);
}

static void make_operands(unsigned aop, unsigned dtype, uint32_t owner, char *op, char *op2, size_t *len)
{
    size_t es = emu_dtype_size(dtype);
    *len = emu_aop_is_swap(aop) ? es : 3 * es;
    memset(op, 0, SLOT);
    memset(op2, 0, 32);
    for (int i = 0; i < 3; i++)
        store(dtype, op + i * es, (double)((aop * 3 + i) % 5) + 2);
    /* compare with the current value for half the combinations, so both
     * the swapping and the non-swapping branch are exercised */
    char init[SLOT];
    init_slot(init, aop, dtype, owner);
    if ((aop + dtype) % 2)
        memcpy(op2, init, es);
    else
        store(dtype, op2, 3);
}

static void run(uint32_t shift, int cls, struct peer *peers, char *area[2])
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + shift) % n;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_; aop++)
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
            unsigned s = aop * EMU_DTYPE_COUNT_ + dt;
            init_slot(area[cls] + s * SLOT, aop, dt, me);
            init_slot(area[cls] + (NSLOT + s) * SLOT, aop, dt, me);
        }
    CHECK(emunic_barrier() == 0, "barrier");
    int done = 0;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_; aop++)
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
            if (!emu_aop_valid(aop, dt))
                continue;
            unsigned s = aop * EMU_DTYPE_COUNT_ + dt;
            char op[SLOT], op2[32], fetched[SLOT], expect[SLOT], old[SLOT], back[SLOT];
            size_t len;
            make_operands(aop, dt, to, op, op2, &len);
            init_slot(expect, aop, dt, to);
            memcpy(old, expect, SLOT);
            CHECK(emu_atomic_apply(aop, dt, expect, op, op2, len, NULL) == 0, "reference");
            uint64_t plain = peers[to].area[cls] + s * SLOT;
            uint64_t withf = peers[to].area[cls] + (NSLOT + s) * SLOT;
            uint64_t c1 = cookie(), c2 = cookie(), c3 = cookie(), c4 = cookie();
            memset(fetched, 0x5A, sizeof fetched);
            CHECK(emunic_atomic(to, peers[to].key[cls], plain, aop, dt, op, len, op2, NULL,
                                EMU_F_REMOTE_CQ, c1) == 0, "post");
            CHECK(emunic_atomic(to, peers[to].key[cls], withf, aop, dt, op, len, op2, fetched,
                                EMU_F_REMOTE_CQ, c2) == 0, "post");
            CHECK(wait_done(c1, EMU_DONE_REMOTE) == 0, "atomic %s %s", emu_aop_name(aop), emu_dtype_name(dt));
            CHECK(wait_done(c2, EMU_DONE_REMOTE) == 0, "fetch-atomic %s %s", emu_aop_name(aop), emu_dtype_name(dt));
            CHECK(memcmp(fetched, old, len) == 0, "fetched old value differs: %s %s", emu_aop_name(aop), emu_dtype_name(dt));
            CHECK((uint8_t)fetched[len] == 0x5A, "fetch wrote past len");
            CHECK(emunic_read(to, peers[to].key[cls], plain, back, SLOT, EMU_F_REMOTE_CQ, c3) == 0, "post");
            CHECK(wait_done(c3, EMU_DONE_REMOTE) == 0, "read back");
            CHECK(memcmp(back, expect, SLOT) == 0, "target after %s %s differs from reference", emu_aop_name(aop), emu_dtype_name(dt));
            CHECK(emunic_read(to, peers[to].key[cls], withf, back, SLOT, EMU_F_REMOTE_CQ, c4) == 0, "post");
            CHECK(wait_done(c4, EMU_DONE_REMOTE) == 0, "read back");
            CHECK(memcmp(back, expect, SLOT) == 0, "target after fetch %s %s differs", emu_aop_name(aop), emu_dtype_name(dt));
            done++;
        }
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 0)
        printf("atomic: shift %u %s memory: %d op/type pairs ok\n", shift, cls ? "private" : "heap", done);
}

/* All ranks add 1 to one counter on rank 0 many times: the NIC serialises
 * them, so the total is exact and each fetched value is unique per rank. */
static void hammer(struct peer *peers)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    const int iters = 200;
    if (me == 0)
        memset((void *)(uintptr_t)peers[0].area[0], 0, 8);
    CHECK(emunic_barrier() == 0, "barrier");
    int64_t one = 1, prev = -1;
    for (int i = 0; i < iters; i++) {
        int64_t got;
        uint64_t c = cookie();
        CHECK(emunic_atomic(0, EMU_KEY_HEAP, peers[0].area[0], EMU_AOP_SUM, EMU_INT64, &one, 8, NULL,
                            &got, EMU_F_REMOTE_CQ, c) == 0, "post");
        CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "fadd");
        CHECK(got > prev && got < (int64_t)n * iters, "fetched %lld after %lld", (long long)got, (long long)prev);
        prev = got;
    }
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 0) {
        int64_t total;
        memcpy(&total, (void *)(uintptr_t)peers[0].area[0], 8);
        CHECK(total == (int64_t)n * iters, "counter %lld, want %lld", (long long)total, (long long)n * iters);
        printf("atomic: counter hammered by %u ranks: %lld exact\n", n, (long long)total);
    }
    CHECK(emunic_barrier() == 0, "barrier");
}

/* Vectors too long to travel inline: the target NIC reads the operand
 * from the initiator's memory and, for fetches over 144 bytes, sends the
 * old contents back before applying. Up to the 1 MiB limit. */
static void big_vectors(struct peer *peers, char *area[2])
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + n / 2) % n, from = (me + n - n / 2) % n;
    static const size_t lens[] = {152, 4096, EMU_ATOMIC_MAX};
    for (int cls = 0; cls < 2; cls++)
        for (size_t li = 0; li < 3; li++) {
            size_t len = lens[li], cnt = len / 8;
            int64_t *tgt = (int64_t *)area[cls], *op = malloc(len), *fetched = malloc(len);
            for (size_t i = 0; i < cnt; i++) {
                tgt[i] = (int64_t)(i * 3 + me);
                op[i] = (int64_t)(i + 1) * (cls ? -1 : 1);
            }
            CHECK(emunic_barrier() == 0, "barrier");
            uint64_t c = cookie();
            CHECK(emunic_atomic(to, peers[to].key[cls], peers[to].area[cls], EMU_AOP_SUM, EMU_INT64, op, len, NULL,
                                fetched, EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ, c) == 0, "post");
            CHECK(wait_done(c, EMU_DONE_LOCAL | EMU_DONE_REMOTE) == 0, "fetch-add of %zu bytes", len);
            for (size_t i = 0; i < cnt; i++)
                CHECK(fetched[i] == (int64_t)(i * 3 + to), "fetched element %zu of %zu", i, cnt);
            CHECK(emunic_barrier() == 0, "barrier");
            for (size_t i = 0; i < cnt; i++)
                CHECK(tgt[i] == (int64_t)(i * 3 + me) + (int64_t)(i + 1) * (cls ? -1 : 1),
                      "element %zu of a %zu-byte vector (%s memory) from rank %u: %lld", i, len, cls ? "private" : "heap", from, (long long)tgt[i]);
            CHECK(emunic_barrier() == 0, "barrier");
            free(op);
            free(fetched);
        }
    int64_t x = 0;
    CHECK(emunic_atomic(to, EMU_KEY_HEAP, 0, EMU_AOP_SUM, EMU_INT64, &x, EMU_ATOMIC_MAX + 8, NULL, NULL, 0, 0) == -EINVAL,
          "over the atomic limit");
    if (me == 0)
        printf("atomic: vectors of 152 B, 4 KiB and 1 MiB by reference with fetch: ok\n");
}

int main(void)
{
    itest_init();
    uint32_t n = emunic_size();
    size_t bytes = 2 * NSLOT * SLOT > EMU_ATOMIC_MAX ? 2 * NSLOT * SLOT : EMU_ATOMIC_MAX;
    char *area[2] = {emunic_malloc(bytes), aligned_alloc(64, bytes)};
    CHECK(area[0] && area[1], "alloc");
    int64_t k = emunic_expose(area[1], bytes, EMU_PERM_ALL);
    CHECK(k > 0, "expose");
    struct peer mine = {{(uint64_t)(uintptr_t)area[0], (uint64_t)(uintptr_t)area[1]}, {EMU_KEY_HEAP, (uint32_t)k}};
    struct peer *peers = calloc(n, sizeof *peers);
    itest_allgather(&mine, sizeof mine, peers);
    uint32_t shifts[2] = {1, n / 2};
    int nshift = n > 3 ? 2 : 1;
    for (int s = 0; s < nshift; s++)
        for (int cls = 0; cls < 2; cls++)
            run(n > 1 ? shifts[s] : 0, cls, peers, area);
    hammer(peers);
    big_vectors(peers, area);
    free(peers);
    free(area[1]);
    if (emunic_rank() == 0)
        printf("atomic: ok\n");
    emunic_finalize();
    return 0;
}
