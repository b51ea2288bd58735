/* Several threads of one rank share its NIC: concurrent posts into the
 * command queue, each thread waiting for its own completions while others
 * take entries off the same queue. Built for TSan too. */
#include "itest.h"

#include <pthread.h>

#define THREADS 4
#define ITERS 300

struct targ {
    int id;
    uint32_t to;
    uint64_t counter, slots;
};

static _Atomic uint64_t next_cookie = 1;

static void *worker(void *p)
{
    struct targ *a = p;
    uint32_t me = emunic_rank();
    for (int i = 0; i < ITERS; i++) {
        uint64_t v = ((uint64_t)me << 40) | ((uint64_t)a->id << 32) | (uint64_t)i;
        uint64_t c1 = atomic_fetch_add(&next_cookie, 1), c2 = atomic_fetch_add(&next_cookie, 1);
        uint64_t slot = a->slots + (uint64_t)a->id * 8;
        CHECK(emunic_write(a->to, EMU_KEY_HEAP, slot, &v, 8, EMU_F_REMOTE_CQ, c1, 0) == 0, "post");
        int64_t one = 1, old;
        CHECK(emunic_atomic(a->to, EMU_KEY_HEAP, a->counter, EMU_AOP_SUM, EMU_INT64, &one, 8, NULL, &old,
                            EMU_F_REMOTE_CQ, c2) == 0, "post");
        struct emu_msg m;
        CHECK(emunic_wait_cookie(c2, &m) == 0, "fadd");
        CHECK(emunic_wait_cookie(c1, &m) == 0, "write");
    }
    return NULL;
}

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    int64_t *counter = emunic_malloc(64);
    uint64_t *slots = emunic_malloc(THREADS * 8);
    *counter = 0;
    struct { uint64_t counter, slots; } mine = {(uint64_t)(uintptr_t)counter, (uint64_t)(uintptr_t)slots}, *all = calloc(n, sizeof *all);
    itest_allgather(&mine, sizeof mine, all);
    uint32_t to = (me + 1) % n, from = (me + n - 1) % n;
    pthread_t th[THREADS];
    struct targ a[THREADS];
    for (int t = 0; t < THREADS; t++) {
        a[t] = (struct targ){t, to, all[to].counter, all[to].slots};
        CHECK(pthread_create(&th[t], NULL, worker, &a[t]) == 0, "thread");
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    CHECK(emunic_barrier() == 0, "barrier");
    CHECK(*counter == THREADS * ITERS, "counter %lld", (long long)*counter);
    for (int t = 0; t < THREADS; t++)
        CHECK(slots[t] == (((uint64_t)from << 40) | ((uint64_t)t << 32) | (ITERS - 1)), "slot %d", t);
    free(all);
    if (me == 0)
        printf("threads: %d threads x %d ops per rank, all completions matched: ok\n", THREADS, ITERS);
    emunic_finalize();
    return 0;
}
