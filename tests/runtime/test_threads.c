/* Several application threads in ARMCI at once, as GA's thread_perf_*
 * tests and any MPI_THREAD_MULTIPLE program do. Each of NT threads on
 * every rank, ITERS times, over every other rank in turn:
 *  - blocking Put of a pattern naming (rank, thread, iteration) into its
 *    own slot at the target, then a blocking Get of it back, checked byte
 *    by byte (a Get must return its own data, never another thread's);
 *  - a non-blocking Get of the target's read-only area, Wait, checked;
 *  - Acc of 1 into one shared int counter per target, and Rmw fetch-and-add
 *    on a counter at rank 0, whose fetched values each thread checks to
 *    increase.
 * After the threads join: every counter is exact and every slot holds the
 * last iteration's pattern. The runtime used to lose completions and hang
 * (a thread waiting on another's channel state) or return another
 * thread's data; the job's --timeout catches a hang. */
#include <armci.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define NT 4
#define ITERS 40
#define SLOT 1536 /* bytes of one thread's slot: more than one cache line, under a page */
#define RO 4096

static int nproc;
static void **base;

/* A rank's memory: counters, then the read-only area, then one slot per
 * (source rank, thread). */
struct head {
    int acc;  /* Acc target: every thread of every other rank adds 1, ITERS times */
    long rmw; /* at rank 0: fetch-and-add by every thread of every rank */
};
#define HEAD 64

static unsigned char *slot(int p, int src, int t)
{
    return (unsigned char *)base[p] + HEAD + RO + ((size_t)src * NT + (size_t)t) * SLOT;
}

static unsigned char pat(int src, int t, int it, size_t i)
{
    return (unsigned char)(i * 7 + (size_t)src * 31 + (size_t)t * 53 + (size_t)it * 11 + 1);
}

static unsigned char ro_pat(int owner, size_t i)
{
    return (unsigned char)(i * 3 + (size_t)owner * 101 + 5);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    unsigned char out[SLOT], back[SLOT], ro[RO];
    long last = -1;
    for (int it = 0; it < ITERS; it++)
        for (int k = 1; k < nproc || k == 1; k++) {
            int p = (me + k) % nproc;
            for (size_t i = 0; i < SLOT; i++)
                out[i] = pat(me, t, it, i);
            CHECK(ARMCI_Put(out, slot(p, me, t), SLOT, p) == 0, "Put to %d failed", p);
            ARMCI_Fence(p);
            memset(back, 0, sizeof back);
            CHECK(ARMCI_Get(slot(p, me, t), back, SLOT, p) == 0, "Get from %d failed", p);
            for (size_t i = 0; i < SLOT; i++)
                CHECK(back[i] == out[i], "thread %d iteration %d: byte %zu of its slot at rank %d "
                      "is %u, put %u", t, it, i, p, back[i], out[i]);

            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            memset(ro, 0, sizeof ro);
            CHECK(ARMCI_NbGet((char *)base[p] + HEAD, ro, RO, p, &h) == 0, "NbGet from %d", p);
            CHECK(ARMCI_Wait(&h) == 0, "Wait for the NbGet from %d", p);
            for (size_t i = 0; i < RO; i++)
                CHECK(ro[i] == ro_pat(p, i), "thread %d: byte %zu of rank %d's read-only area "
                      "is %u, expected %u", t, i, p, ro[i], ro_pat(p, i));

            int one = 1;
            CHECK(ARMCI_Acc(ARMCI_ACC_INT, &one, &one, &((struct head *)base[p])->acc,
                            (int)sizeof one, p) == 0, "Acc to %d", p);
            long fetched = 0;
            CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &fetched, &((struct head *)base[0])->rmw, 1, 0) == 0,
                  "Rmw at rank 0");
            CHECK(fetched > last, "thread %d: fetch-and-add returned %ld after %ld", t, fetched, last);
            last = fetched;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    ARMCI_Init();
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    size_t bytes = HEAD + RO + (size_t)nproc * NT * SLOT;
    base = calloc((size_t)nproc, sizeof *base);
    CHECK(base && ARMCI_Malloc(base, (armci_size_t)bytes) == 0, "ARMCI_Malloc");
    memset(base[me], 0, bytes);
    for (size_t i = 0; i < RO; i++)
        ((unsigned char *)base[me])[HEAD + i] = ro_pat(me, i);
    ARMCI_Barrier();

    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    ARMCI_AllFence();
    ARMCI_Barrier();

    /* the other ranks' threads each added 1 per iteration (at one rank,
     * all NT threads target it, itself, once per iteration) */
    int others = nproc > 1 ? nproc - 1 : 1;
    struct head *h = base[me];
    CHECK(h->acc == others * NT * ITERS, "accumulated counter is %d, expected %d", h->acc,
          others * NT * ITERS);
    if (me == 0)
        CHECK(h->rmw == (long)nproc * others * NT * ITERS, "fetch-and-add counter is %ld, expected %ld",
              h->rmw, (long)nproc * others * NT * ITERS);
    for (int src = 0; src < nproc; src++)
        for (int t = 0; t < NT; t++) {
            if (src == me && nproc > 1)
                continue;
            const unsigned char *s = slot(me, src, t);
            for (size_t i = 0; i < SLOT; i++)
                CHECK(s[i] == pat(src, t, ITERS - 1, i), "slot of rank %d thread %d: byte %zu is %u, "
                      "expected %u", src, t, i, s[i], pat(src, t, ITERS - 1, i));
        }
    ARMCI_Barrier();
    if (me == 0)
        printf("test_threads: %d ranks x %d threads x %d iterations: puts, gets, nb gets, acc, rmw ok\n",
               nproc, NT, ITERS);
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    return 0;
}
