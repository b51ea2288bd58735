/* The Blue Gene/P shim headers DCMF clients include besides dcmf.h:
 * bpcore/bgp_atomic_ops.h, bpcore/ppc450_inlines.h, spi/bgp_SPI.h.
 *   - threads hammering _bgp_fetch_and_add get an exact total, and every
 *     old value it returned exactly once;
 *   - _bgp_test_and_set / _bgp_compare_and_swap / fetch_and_or/and
 *     semantics, and a test-and-set lock keeping a plain counter exact;
 *   - a LoadReserved/StoreConditional increment loop exact under threads;
 *   - LockBox: one node's ranks exclude each other (TryLock sees a lock
 *     another rank holds, a rank of another node does not), and a counter
 *     in the node's first rank's heap, incremented under the lockbox by
 *     every rank's threads, is exact;
 *   - _bgp_dcache_touch_line takes any object pointer (volatile too) and
 *     changes nothing; Kernel_PhysicalProcessorID and Kernel_ProcessCount
 *     also link from libdcmf for a file without the header
 *     (dcmf_shims_kernel.c), with the inline versions' answers.
 * Run under emunic-run --nic dcmf (any layout; 1x4 and 2x2 registered). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpcore/bgp_atomic_ops.h>
#include <bpcore/ppc450_inlines.h>
#include <dcmf.h>
#include <spi/bgp_SPI.h>

#include "emunic/emunic.h"

#include "dcmf_shims_kernel.h"

#define NTHREADS 4
#define FA_ITERS 100000
#define LLSC_ITERS 50000
#define TAS_ITERS 20000
#define LB_THREADS 2
#define LB_ITERS 10000

static unsigned me;

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "FAIL rank %u line %d: %s: ", me, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static void run_threads(int n, void *(*fn)(void *))
{
    pthread_t t[NTHREADS];
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, fn, NULL) == 0, "pthread_create");
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* ---- _bgp_fetch_and_add ---- */

static _BGP_Atomic fa_word = _BGP_ATOMIC_INIT(0);
static atomic_uchar *fa_seen; /* one mark per old value returned */

static void *fa_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < FA_ITERS; i++) {
        uint32_t old = _bgp_fetch_and_add(&fa_word, 1);
        if (old < NTHREADS * FA_ITERS)
            atomic_fetch_add(&fa_seen[old], 1);
    }
    return NULL;
}

static void test_fetch_and_add(void)
{
    fa_seen = calloc(NTHREADS * FA_ITERS, 1);
    CHECK(fa_seen, "out of memory");
    run_threads(NTHREADS, fa_thread);
    CHECK(_BGP_ATOMIC_READ(&fa_word) == NTHREADS * FA_ITERS, "total %u", _BGP_ATOMIC_READ(&fa_word));
    for (uint32_t v = 0; v < NTHREADS * FA_ITERS; v++)
        CHECK(fa_seen[v] == 1, "old value %u returned %u times", v, (unsigned)fa_seen[v]);
    free(fa_seen);
    _Static_assert(_Alignof(_BGP_Atomic) >= 8, "an atom sits alone in its cache line");
}

/* ---- test-and-set and friends ---- */

static void test_semantics(void)
{
    _BGP_Atomic a = _BGP_ATOMIC_INIT(0);
    CHECK(_bgp_test_and_set(&a, 1) == 1 && a.atom == 1, "set a clear word");
    CHECK(_bgp_test_and_set(&a, 1) == 0 && a.atom == 1, "set word left alone");
    CHECK(_bgp_test_and_set(&a, 2) == 1 && a.atom == 3, "other bit set");
    CHECK(_bgp_test_and_set(&a, 6) == 0 && a.atom == 3, "any bit of the mask set: no change");
    uint32_t old = 3;
    CHECK(_bgp_compare_and_swap(&a, &old, 7) == 1 && a.atom == 7, "cas hit");
    CHECK(_bgp_compare_and_swap(&a, &old, 9) == 0 && old == 7 && a.atom == 7, "cas miss reports %u", old);
    CHECK(_bgp_fetch_and_or(&a, 8) == 7 && a.atom == 15, "fetch_and_or");
    CHECK(_bgp_fetch_and_and(&a, 5) == 15 && a.atom == 5, "fetch_and_and");
    CHECK(_bgp_fetch_and_add(&a, (uint32_t)-5) == 5 && a.atom == 0, "fetch_and_add wraps");
    _bgp_msync();
    _bgp_mbar();
    _bgp_isync();

    volatile uint32_t w = 10, other = 0;
    CHECK(_bgp_StoreConditional(&w, 11) == 0 && w == 10, "no reservation: no store");
    CHECK(_bgp_LoadReserved(&w) == 10, "load");
    CHECK(_bgp_StoreConditional(&other, 1) == 0 && other == 0, "reservation is on another word");
    CHECK(_bgp_StoreConditional(&w, 11) == 0 && w == 10, "the failed store cancelled the reservation");
    (void)_bgp_LoadReserved(&w);
    w = 20; /* someone else stores */
    CHECK(_bgp_StoreConditional(&w, 11) == 0 && w == 20, "reservation lost to a store");
    (void)_bgp_LoadReserved(&w);
    CHECK(_bgp_StoreConditional(&w, 21) == 1 && w == 21, "reservation kept");
    CHECK(_bgp_StoreConditional(&w, 22) == 0 && w == 21, "one store per reservation");
}

static _BGP_Atomic tas_lock = _BGP_ATOMIC_INIT(0);
static uint64_t tas_counter; /* plain: only the lock protects it */

static void *tas_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < TAS_ITERS; i++) {
        while (!_bgp_test_and_set(&tas_lock, 1))
            sched_yield();
        tas_counter++;
        /* an atomic release, so that TSan sees the hand-over (BG/P code
         * stores atom = 0 and runs _bgp_mbar(), which TSan cannot follow) */
        _bgp_fetch_and_and(&tas_lock, 0);
    }
    return NULL;
}

/* ---- LoadReserved / StoreConditional ---- */

static volatile uint32_t llsc_word;

static void *llsc_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < LLSC_ITERS; i++) {
        uint32_t v;
        do
            v = _bgp_LoadReserved(&llsc_word);
        while (!_bgp_StoreConditional(&llsc_word, v + 1));
    }
    return NULL;
}

/* ---- LockBox across the ranks of a node ---- */

static LockBox_Mutex_t lb_mutex;
static volatile uint64_t *lb_counter; /* in the node's first rank's heap */

static void *lb_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < LB_ITERS; i++) {
        CHECK(LockBox_MutexLock(lb_mutex) == 0, "lock");
        uint64_t v = *lb_counter;
        if (i % 128 == 0)
            sched_yield(); /* give a broken lock every chance to show */
        *lb_counter = v + 1;
        CHECK(LockBox_MutexUnlock(lb_mutex) == 0, "unlock");
    }
    return NULL;
}

static void barrier(void)
{
    CHECK(emunic_barrier() == 0, "emunic_barrier");
}

static void test_touch_and_linked(void)
{
    static volatile int shared_idx __attribute__((aligned(16))) = 41;
    static const double table[4] = {1, 2, 3, 4};
    _bgp_dcache_touch_line(&shared_idx);
    _bgp_dcache_touch_line(table + 3);
    _bgp_dcache_touch_line(&fa_word);
    CHECK(shared_idx == 41 && table[3] == 4, "a cache-line touch changed memory");
    int core = -1, count = -1;
    shims_kernel_linked(&core, &count);
    CHECK(core == Kernel_PhysicalProcessorID() && count == Kernel_ProcessCount(),
          "libdcmf's Kernel_PhysicalProcessorID %d / Kernel_ProcessCount %d, the header's %d / %d", core,
          count, Kernel_PhysicalProcessorID(), Kernel_ProcessCount());
}

static void test_lockbox(void)
{
    DCMF_Hardware_t hw;
    CHECK(DCMF_Hardware(&hw) == DCMF_SUCCESS, "DCMF_Hardware");
    CHECK(Kernel_PhysicalProcessorID() == (int)(hw.tCoord % 4), "core %d, DCMF's t coordinate %u",
          Kernel_PhysicalProcessorID(), hw.tCoord);
    CHECK(Kernel_ProcessCount() == (int)hw.tSize, "process count %d, DCMF's t size %u", Kernel_ProcessCount(),
          hw.tSize);
    unsigned local = emunic_local_rank(), lsize = emunic_local_size();
    unsigned first = emunic_node() * lsize; /* the node's local rank 0 */

    LockBox_Counter_t bad;
    CHECK(LockBox_AllocateMutex(1024, &bad, 0, 1, 0) == EINVAL, "id 1024 is out of range");
    CHECK(LockBox_AllocateMutex(3, &bad, 0, 0, 0) == EINVAL, "numcores 0");
    CHECK(LockBox_AllocateMutex(7, &lb_mutex, 0, (uint32_t)Kernel_ProcessCount(), LOCKBOX_ORDERED_ALLOC) == 0,
          "allocate: %s", strerror(errno));
    LockBox_Mutex_t other;
    CHECK(LockBox_AllocateMutex(9, &other, 0, 1, 0) == 0, "allocate 9");

    /* the shared counter: first heap block of the node's first rank */
    uint64_t *mine = emunic_malloc(64);
    CHECK(mine && (uint64_t)(uintptr_t)mine == emunic_heap_addr(me), "first heap block");
    *mine = 0;
    barrier();
    size_t len;
    lb_counter = me == first ? mine : emunic_peer_heap(first, &len);
    CHECK(lb_counter, "map rank %u's heap: %s", first, strerror(errno));

    /* exclusion: a lock held by the node's first rank is busy for the
     * node's other ranks; rank 0's lock 9 does not exist on other nodes */
    if (local == 0)
        CHECK(LockBox_MutexTryLock(lb_mutex) == 0, "trylock a free mutex");
    if (me == 0)
        LockBox_MutexLock(other);
    barrier();
    if (local != 0) {
        CHECK(LockBox_Query(lb_mutex) > 0, "the held mutex reads as locked");
        CHECK(LockBox_MutexTryLock(lb_mutex) == EBUSY, "trylock of a mutex held by rank %u", first);
    }
    if (first != 0 && local == 0) { /* one per node: two would race */
        CHECK(LockBox_MutexTryLock(other) == 0, "node %u's lock 9 is not node 0's", emunic_node());
        LockBox_MutexUnlock(other);
    } else if (first == 0 && me != 0) {
        CHECK(LockBox_MutexTryLock(other) == EBUSY, "rank 0 holds lock 9 of this node");
    }
    barrier();
    if (local == 0)
        LockBox_MutexUnlock(lb_mutex);
    if (me == 0)
        LockBox_MutexUnlock(other);
    barrier();
    CHECK(LockBox_Query(lb_mutex) == 0, "free again, not %u", LockBox_Query(lb_mutex));
    barrier(); /* before anyone's threads take it again */

    /* every rank's threads increment the node's counter under the lock */
    pthread_t t[LB_THREADS];
    for (int i = 0; i < LB_THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, lb_thread, NULL) == 0, "pthread_create");
    for (int i = 0; i < LB_THREADS; i++)
        pthread_join(t[i], NULL);
    barrier();
    uint64_t want = (uint64_t)lsize * LB_THREADS * LB_ITERS;
    CHECK(*lb_counter == want, "node %u counter %llu, want %llu", emunic_node(),
          (unsigned long long)*lb_counter, (unsigned long long)want);
    barrier();
}

int main(void)
{
    DCMF_Messager_initialize();
    me = (unsigned)DCMF_Messager_rank();

    test_semantics();
    test_fetch_and_add();
    run_threads(NTHREADS, tas_thread);
    CHECK(tas_counter == (uint64_t)NTHREADS * TAS_ITERS, "test-and-set lock counter %llu",
          (unsigned long long)tas_counter);
    run_threads(NTHREADS, llsc_thread);
    CHECK(llsc_word == NTHREADS * LLSC_ITERS, "LL/SC counter %u", llsc_word);
    test_touch_and_linked();
    test_lockbox();

    DCMF_Messager_finalize();
    printf("rank %u ok\n", me);
    return 0;
}
