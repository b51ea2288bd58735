/* RDMA write and read through the NIC: every size class (inline, by
 * reference, up to 16 MiB), heap and private memory on both sides, peers on
 * the same node and across nodes, guard bytes around every target, and
 * per-pair ordering of a large write followed by a small flag. */
#include "itest.h"

#include <sched.h>
#include <time.h>

#define MAXSZ (16u << 20)
#define GUARD 64

struct peer {
    uint64_t dst[2]; /* [0] heap, [1] private */
    uint64_t flag[2];
    uint32_t key[2];  /* for dst */
    uint32_t fkey[2]; /* for flag */
};

static char *dst[2], *src[2];
static volatile uint64_t *flag[2];
static struct peer *peers;

static void fill(char *p, uint32_t rank, uint64_t salt, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        p[i] = (char)pattern(rank, salt, i);
}

static void check_bytes(const char *p, uint32_t rank, uint64_t salt, uint64_t n, const char *what)
{
    for (uint64_t i = 0; i < n; i++)
        CHECK((uint8_t)p[i] == pattern(rank, salt, i), "%s: byte %llu of %llu is %02x, want %02x",
              what, (unsigned long long)i, (unsigned long long)n, (uint8_t)p[i], pattern(rank, salt, i));
}

static void check_guard(const char *p, uint8_t v, const char *what)
{
    for (int i = 0; i < GUARD; i++)
        CHECK((uint8_t)p[i] == v, "%s: guard byte %d changed to %02x", what, i, (uint8_t)p[i]);
}

static void test_write(uint32_t shift, uint64_t size, int sc, int dc)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + shift) % n, from = (me + n - shift) % n;
    uint64_t salt = size * 4 + (uint64_t)sc * 2 + (uint64_t)dc + shift;
    memset(dst[dc], 0xEE, size + 2 * GUARD);
    fill(src[sc], me, salt, size);
    CHECK(emunic_barrier() == 0, "barrier");
    uint64_t c = cookie();
    CHECK(emunic_write(to, peers[to].key[dc], peers[to].dst[dc] + GUARD, src[sc], size,
                       EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ, c, 0) == 0, "post");
    int st = wait_done(c, EMU_DONE_LOCAL | EMU_DONE_REMOTE);
    CHECK(st == 0, "write %llu bytes src %d dst %d to rank %u: status %d", (unsigned long long)size, sc, dc, to, st);
    CHECK(emunic_barrier() == 0, "barrier");
    check_guard(dst[dc], 0xEE, "before");
    check_bytes(dst[dc] + GUARD, from, salt, size, "written data");
    check_guard(dst[dc] + GUARD + size, 0xEE, "after");
    CHECK(emunic_barrier() == 0, "barrier");
}

static void test_read(uint32_t shift, uint64_t size, int sc, int dc)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + shift) % n;
    uint64_t salt = size * 3 + (uint64_t)sc + shift;
    fill(dst[dc] + GUARD, me, salt, size);
    memset(src[sc], 0xAA, size + GUARD);
    CHECK(emunic_barrier() == 0, "barrier");
    uint64_t c = cookie();
    CHECK(emunic_read(to, peers[to].key[dc], peers[to].dst[dc] + GUARD, src[sc], size,
                      EMU_F_REMOTE_CQ, c) == 0, "post");
    int st = wait_done(c, EMU_DONE_REMOTE);
    CHECK(st == 0, "read %llu bytes: status %d", (unsigned long long)size, st);
    check_bytes(src[sc], to, salt, size, "read data");
    check_guard(src[sc] + size, 0xAA, "read sink tail");
    CHECK(emunic_barrier() == 0, "barrier");
}

/* A 1 MiB write by reference, then an 8-byte inline flag to the same
 * target: when the flag is visible, all the data must be. */
static void test_ordering(uint32_t shift)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + shift) % n, from = (me + n - shift) % n;
    const uint64_t size = 1u << 20;
    for (uint64_t it = 1; it <= 16; it++) {
        int c = (int)(it & 1);
        *flag[c] = 0;
        memset(dst[c], 0, size);
        fill(src[c], me, it, size);
        CHECK(emunic_barrier() == 0, "barrier");
        CHECK(emunic_write(to, peers[to].key[c], peers[to].dst[c], src[c], size, 0, 0, 0) == 0, "post");
        CHECK(emunic_write(to, peers[to].fkey[c], peers[to].flag[c], &it, 8, 0, 0, 0) == 0, "post");
        time_t t0 = time(NULL);
        while (*flag[c] != it) {
            CHECK(time(NULL) - t0 < 30, "flag %llu never arrived", (unsigned long long)it);
            sched_yield();
        }
        check_bytes(dst[c], from, it, size, "data before flag");
        /* our source buffer is still in use until the NIC read it */
        CHECK(emunic_barrier() == 0, "barrier");
    }
}

/* Writes that ask for no completion, then one flush: once it completes,
 * every byte is at the target (checked by reading it back). */
static void test_flush(uint32_t shift)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + shift) % n;
    const uint64_t size = 1u << 20;
    for (int c = 0; c < 2; c++) {
        fill(src[c], me, 77, size);
        CHECK(emunic_barrier() == 0, "barrier");
        for (uint64_t off = 0; off < size; off += size / 8)
            CHECK(emunic_write(to, peers[to].key[c], peers[to].dst[c] + off, src[c] + off, size / 8, 0, 0, 0) == 0, "post");
        uint64_t f = cookie();
        CHECK(emunic_flush(to, f) == 0, "flush");
        CHECK(wait_done(f, EMU_DONE_REMOTE) == 0, "flush status");
        char *back = malloc(size);
        uint64_t r = cookie();
        CHECK(emunic_read(to, peers[to].key[c], peers[to].dst[c], back, size, EMU_F_REMOTE_CQ, r) == 0, "post");
        CHECK(wait_done(r, EMU_DONE_REMOTE) == 0, "read back");
        check_bytes(back, me, 77, size, "flushed data");
        free(back);
        CHECK(emunic_barrier() == 0, "barrier");
    }
    CHECK(emunic_flush(n, 1) == -EINVAL, "flush to a rank that does not exist");
}

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    dst[0] = emunic_malloc(MAXSZ + 2 * GUARD);
    src[0] = emunic_malloc(MAXSZ + GUARD);
    flag[0] = emunic_malloc(64);
    dst[1] = aligned_alloc(64, MAXSZ + 2 * GUARD);
    src[1] = aligned_alloc(64, MAXSZ + GUARD);
    flag[1] = aligned_alloc(64, 64);
    CHECK(dst[0] && src[0] && flag[0] && dst[1] && src[1] && flag[1], "allocation");
    int64_t kd = emunic_expose(dst[1], MAXSZ + 2 * GUARD, EMU_PERM_READ | EMU_PERM_WRITE);
    int64_t kf = emunic_expose((void *)flag[1], 64, EMU_PERM_WRITE);
    CHECK(kd > 0 && kf > 0, "expose: %lld %lld", (long long)kd, (long long)kf);
    struct peer mine = {
        .dst = {(uint64_t)(uintptr_t)dst[0], (uint64_t)(uintptr_t)dst[1]},
        .flag = {(uint64_t)(uintptr_t)flag[0], (uint64_t)(uintptr_t)flag[1]},
        .key = {EMU_KEY_HEAP, (uint32_t)kd},
        .fkey = {EMU_KEY_HEAP, (uint32_t)kf},
    };
    peers = calloc(n, sizeof *peers);
    itest_allgather(&mine, sizeof mine, peers);

    static const uint64_t sizes[] = {0, 1, 8, 143, 144, 145, 4096, 65539, 1u << 20, MAXSZ};
    /* shift 1 and n/2 reach a same-node and a cross-node peer in N x n jobs */
    uint32_t shifts[2] = {1, n / 2};
    int nshift = n > 3 ? 2 : (n > 1 ? 1 : 0);
    for (int s = 0; s < nshift; s++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int sc = 0; sc < 2; sc++)
                for (int dc = 0; dc < 2; dc++) {
                    test_write(shifts[s], sizes[i], sc, dc);
                    test_read(shifts[s], sizes[i], sc, dc);
                }
        test_ordering(shifts[s]);
        test_flush(shifts[s]);
        if (me == 0)
            printf("rdma: shift %u: write/read 0 B..16 MiB heap/private, ordering, flush: ok\n", shifts[s]);
    }
    CHECK(emunic_barrier() == 0, "barrier");
    free(peers);
    free(dst[1]);
    free(src[1]);
    free((void *)flag[1]);
    if (me == 0)
        printf("rdma: ok\n");
    emunic_finalize();
    return 0;
}
