/* Small results carried back in the completion (EMU_F_DATA_BACK): reads of
 * up to EMU_INLINE_MAX bytes and fetch-atomics into private memory land
 * byte for byte, nothing around the sink is touched, the completion looks
 * as it always did, and the NICs make one process_vm copy per read of
 * private memory instead of two. Larger reads, heap sinks, reads without
 * a completion (then a flush), failures and an unwritable sink keep their
 * old behaviour. */
#include "itest.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emunic/job.h"

#define SRC 4096 /* target's private, exposed, not moved (below 64 KiB) */
#define GUARD 32

struct peer {
    uint64_t src, ctr, gone;
    uint32_t ksrc, kctr, kgone;
};

#define SEGV_EXIT 42
static void on_segv(int sig)
{
    (void)sig;
    _exit(SEGV_EXIT);
}

static uint64_t vm_copies_all(void)
{
    struct emu_job j;
    CHECK(emu_job_attach(&j, emunic_jobid()) == 0, "attach for counters");
    uint64_t v = 0;
    for (uint32_t i = 0; i < j.geo.nnodes; i++)
        v += atomic_load(&j.nodes[i].ctr.vm_copies);
    emu_job_detach(&j);
    return v;
}

/* One read of len bytes at off into a guarded private sink, checked. */
static void read_checked(uint32_t to, const struct peer *p, char *sink, size_t off, size_t len,
                         unsigned flags)
{
    memset(sink, 0xA5, len + 2 * GUARD);
    uint64_t c = cookie();
    CHECK(emunic_read(to, p->ksrc, p->src + off, sink + GUARD, len, flags, c) == 0, "post read");
    struct emu_msg m;
    unsigned want = flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ), got = 0;
    while (got != want) {
        CHECK(emunic_wait_cookie(c, &m) == 0, "read %zu B: status %d", len, m.status);
        /* what the caller sees is what it always saw */
        CHECK(m.op == EMU_CQ_DONE && !(m.flags & ~(EMU_DONE_LOCAL | EMU_DONE_REMOTE)) && m.dlen == 0 &&
                  m.len == len && m.dst == to,
              "read %zu B: completion op %u flags %#x dlen %u len %llu dst %u", len, m.op, m.flags, m.dlen,
              (unsigned long long)m.len, m.dst);
        got |= m.flags;
    }
    for (size_t i = 0; i < len; i++)
        CHECK((uint8_t)sink[GUARD + i] == pattern(to, 1, off + i), "read %zu B at %zu: byte %zu is %#x", len, off,
              i, (uint8_t)sink[GUARD + i]);
    for (size_t i = 0; i < GUARD; i++)
        CHECK((uint8_t)sink[i] == 0xA5 && (uint8_t)sink[GUARD + len + i] == 0xA5,
              "read %zu B: guard byte %zu touched", len, i);
}

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + 1) % n;
    char *src = aligned_alloc(4096, SRC);
    for (size_t i = 0; i < SRC; i++)
        src[i] = (char)pattern(me, 1, i);
    int64_t *ctr = aligned_alloc(64, 64);
    memset(ctr, 0, 64);
    char *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(gone != MAP_FAILED, "mmap");
    struct peer mine = {.src = (uint64_t)(uintptr_t)src, .ctr = (uint64_t)(uintptr_t)ctr,
                        .gone = (uint64_t)(uintptr_t)gone};
    int64_t k;
    CHECK((k = emunic_expose(src, SRC, EMU_PERM_READ)) > 0, "expose");
    mine.ksrc = (uint32_t)k;
    CHECK((k = emunic_expose(ctr, 64, EMU_PERM_ALL)) > 0, "expose");
    mine.kctr = (uint32_t)k;
    CHECK((k = emunic_expose(gone, 4096, EMU_PERM_ALL)) > 0, "expose");
    mine.kgone = (uint32_t)k;
    CHECK(mmap(gone, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == gone, "protect");
    struct peer *peers = calloc(n, sizeof *peers);
    itest_allgather(&mine, sizeof mine, peers);
    const struct peer *p = &peers[to];

    /* sizes around the inline limit, both completion kinds, odd offsets */
    char *sink = malloc(2 * EMU_INLINE_MAX + 2 * GUARD + 64);
    static const size_t sizes[] = {1, 7, 8, 63, 64, EMU_INLINE_MAX - 1, EMU_INLINE_MAX, EMU_INLINE_MAX + 1, 300};
    static const unsigned kinds[] = {EMU_F_REMOTE_CQ, EMU_F_LOCAL_CQ, EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t f = 0; f < 3; f++)
            read_checked(to, p, sink, (s * 37 + f * 11) % 1024, sizes[s], kinds[f]);
    /* onto the stack, and into the heap (which the NIC writes directly) */
    char stack_sink[8 + 2 * GUARD];
    read_checked(to, p, stack_sink, 5, 8, EMU_F_REMOTE_CQ);
    char *heap_sink = emunic_malloc(EMU_INLINE_MAX + 2 * GUARD);
    CHECK(heap_sink, "emunic_malloc");
    read_checked(to, p, heap_sink, 100, EMU_INLINE_MAX, EMU_F_REMOTE_CQ);
    /* no completion asked: the bytes are there once a flush completes */
    char quiet[16];
    memset(quiet, 0, sizeof quiet);
    uint64_t c = cookie();
    CHECK(emunic_read(to, p->ksrc, p->src + 3, quiet, sizeof quiet, 0, 0) == 0, "post read");
    CHECK(emunic_flush(to, c) == 0 && wait_done(c, EMU_DONE_REMOTE) == 0, "flush");
    for (size_t i = 0; i < sizeof quiet; i++)
        CHECK((uint8_t)quiet[i] == pattern(to, 1, 3 + i), "read before flush: byte %zu", i);
    if (me == 0)
        printf("data_back: reads of 1..300 B into malloc, stack and heap sinks: ok\n");

    /* fetch-atomics: every rank adds to the next one's counter; the old
     * values each rank sees are all distinct and cover 0..rounds-1 */
    enum { ROUNDS = 64 };
    int64_t one = 1, olds[ROUNDS];
    CHECK(emunic_barrier() == 0, "barrier");
    for (int r = 0; r < ROUNDS; r++) {
        c = cookie();
        olds[r] = -1;
        CHECK(emunic_atomic(to, p->kctr, p->ctr, EMU_AOP_SUM, EMU_INT64, &one, 8, NULL, &olds[r],
                            EMU_F_REMOTE_CQ, c) == 0, "post fetch-add");
        CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "fetch-add");
        CHECK(olds[r] == r, "fetch-add %d: old value %lld", r, (long long)olds[r]);
    }
    int64_t swapped = 0, want = 99;
    c = cookie();
    CHECK(emunic_atomic(to, p->kctr, p->ctr + 8, EMU_AOP_CSWAP, EMU_INT64, &want, 8, &swapped, &swapped,
                        EMU_F_REMOTE_CQ, c) == 0, "post cswap");
    CHECK(wait_done(c, EMU_DONE_REMOTE) == 0 && swapped == 0, "cswap: old %lld", (long long)swapped);
    CHECK(emunic_barrier() == 0, "barrier");
    CHECK(ctr[0] == ROUNDS && ctr[1] == 99, "counter %lld, swapped word %lld", (long long)ctr[0],
          (long long)ctr[1]);
    if (me == 0)
        printf("data_back: fetch-add and compare-swap old values into private memory: ok\n");

    /* one copy per small read of private memory: rank 0 alone reads */
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 0) {
        enum { N = 200 };
        uint64_t before = vm_copies_all();
        for (int i = 0; i < N; i++)
            read_checked(to, p, sink, (size_t)i % 512, 8, EMU_F_REMOTE_CQ);
        uint64_t d = vm_copies_all() - before;
        CHECK(d == N, "%d reads of 8 private bytes into private memory: %llu process_vm copies, want %d", N,
              (unsigned long long)d, N);
        printf("data_back: %d small private reads, %llu process_vm copies: ok\n", N, (unsigned long long)d);
    }
    CHECK(emunic_barrier() == 0, "barrier");

    /* failures: the sink is left alone */
    memset(sink, 0x5A, 64);
    c = cookie();
    CHECK(emunic_read(to, p->kgone, p->gone, sink, 64, EMU_F_REMOTE_CQ, c) == 0, "post");
    int st = wait_done(c, EMU_DONE_REMOTE);
    CHECK(st == EMU_E_FAULT, "read of unmapped target memory: status %d", st);
    for (int i = 0; i < 64; i++)
        CHECK((uint8_t)sink[i] == 0x5A, "failed read wrote byte %d", i);
    /* a sink this rank cannot write faults in the call, where the bug is */
    pid_t kid = fork();
    CHECK(kid >= 0, "fork");
    if (kid == 0) {
        signal(SIGSEGV, on_segv); /* ours, not a sanitizer's report */
        char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        emunic_read(to, p->ksrc, p->src, ro, 8, EMU_F_REMOTE_CQ, 1);
        _exit(0); /* not reached */
    }
    int ws;
    CHECK(waitpid(kid, &ws, 0) == kid && WIFEXITED(ws) && WEXITSTATUS(ws) == SEGV_EXIT,
          "read into read-only memory: the call did not fault (status %#x)", ws);
    if (me == 0)
        printf("data_back: failed read leaves the sink, unwritable sink faults in emunic_read: ok\n");

    CHECK(emunic_barrier() == 0, "barrier");
    CHECK(emunic_unexpose(mine.ksrc) == 0 && emunic_unexpose(mine.kctr) == 0 && emunic_unexpose(mine.kgone) == 0,
          "unexpose");
    emunic_free(heap_sink);
    free(sink);
    free(peers);
    free(ctr);
    free(src);
    munmap(gone, 4096);
    emunic_finalize();
    return 0;
}
