/* DCMF_GlobalBarrier and DCMF_GlobalBcast, and collectives back to back:
 *  - barrier semantics: rank r enters r*20 ms late; no rank may leave
 *    before the last one entered (DCMF_Timer is one clock for the host);
 *  - broadcast from every root of 0, 1, 100, 4096 and 1 MiB bytes, every
 *    byte checked, nothing written past the end;
 *  - callbacks run only inside DCMF_Messager_advance, never in the call;
 *  - a collective message reaching a rank that has made no collective
 *    call yet (it is advancing for other reasons) is kept;
 *  - back to back without barriers (ranks drift apart, so messages
 *    arrive for instances not started yet), several instances of each
 *    kind in flight at once, and a chain started from callbacks.
 * Usage: dcmf_coll_bcast [quick]   (quick: 1 MiB from three roots only) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dcmf.h>
#include <dcmf_globalcollectives.h>

#include "coll_test.h"

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (double)(time_t)(ms / 1000) * 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

static DCMF_Protocol_t barp, gibarp, bcp, arp;
static volatile int ndone;

#define CB ((DCMF_Callback_t){coll_count_done, (void *)&ndone})

/* Start a collective: its callback must not run inside the call. */
#define START(call)                                                             \
    do {                                                                        \
        int before_ = ndone;                                                    \
        DCMF_Result rc_ = (call);                                               \
        if (rc_ != DCMF_SUCCESS)                                                \
            FAIL("%s returned %d", #call, rc_);                                 \
        if (ndone != before_)                                                   \
            FAIL("%s ran its callback inside the call", #call);                 \
    } while (0)

static double allreduce_double(double v, DCMF_Op op)
{
    DCMF_Request_t req;
    double out = 0;
    int t = ndone + 1;
    START(DCMF_GlobalAllreduce(&arp, &req, CB, DCMF_MATCH_CONSISTENCY, -1, (char *)&v, (char *)&out,
                               1, DCMF_DOUBLE, op));
    coll_wait_count(&ndone, t);
    return out;
}

static void barrier_semantics(void)
{
    for (int rep = 0; rep < 2; rep++) {
        DCMF_Request_t req;
        sleep_ms(20.0 * (double)me);
        double in = DCMF_Timer();
        int t = ndone + 1;
        START(DCMF_GlobalBarrier(rep ? &gibarp : &barp, &req, CB));
        coll_wait_count(&ndone, t);
        double out = DCMF_Timer();
        double last_in = allreduce_double(in, DCMF_MAX), first_out = allreduce_double(out, DCMF_MIN);
        if (first_out < last_in)
            FAIL("a rank left the barrier at %.6f before the last rank entered at %.6f", first_out, last_in);
    }
}

static unsigned char pat(size_t root, size_t size, size_t i)
{
    return (unsigned char)(i * 131 + root * 7 + size + (i >> 9));
}

#define GUARD 64

static void bcast_all(int quick)
{
    static const size_t sizes[] = {0, 1, 100, 4096, 1 << 20};
    char *buf = malloc((1 << 20) + GUARD);
    if (!buf)
        FAIL("out of memory");
    for (size_t root = 0; root < np; root++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            size_t size = sizes[k];
            if (quick && size == 1 << 20 && root != 0 && root != np / 2 + 1 && root != np - 1)
                continue;
            for (size_t i = 0; i < size; i++)
                buf[i] = me == root ? (char)pat(root, size, i) : 0x5a;
            memset(buf + size, 0x3c, GUARD);
            DCMF_Request_t req;
            int t = ndone + 1;
            START(DCMF_GlobalBcast(&bcp, &req, CB, k % 2 ? DCMF_RELAXED_CONSISTENCY : DCMF_MATCH_CONSISTENCY,
                                   (unsigned)root, buf, (unsigned)size));
            coll_wait_count(&ndone, t);
            for (size_t i = 0; i < size; i++)
                if ((unsigned char)buf[i] != pat(root, size, i))
                    FAIL("bcast root %zu size %zu: byte %zu is %02x, expected %02x", root, size, i,
                         (unsigned char)buf[i], pat(root, size, i));
            for (size_t i = size; i < size + GUARD; i++)
                if (buf[i] != 0x3c)
                    FAIL("bcast root %zu size %zu: byte %zu past the end was written", root, size, i);
        }
    free(buf);
}

/* Back to back: each rank sleeps now and then (a different rank each
 * time), so the others run ahead into later instances. */
static void back_to_back(int iters)
{
    char buf[1000];
    int v[3], out[3];
    for (int it = 0; it < iters; it++) {
        if ((size_t)it % np == me && it % 3 == 0)
            sleep_ms(2);
        size_t root = (size_t)it % np;
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = me == root ? (char)(i + (size_t)it) : 0;
        DCMF_Request_t r1, r2;
        int t = ndone + 1;
        START(DCMF_GlobalBcast(&bcp, &r1, CB, DCMF_MATCH_CONSISTENCY, (unsigned)root, buf, sizeof buf));
        coll_wait_count(&ndone, t);
        for (size_t i = 0; i < sizeof buf; i++)
            if (buf[i] != (char)(i + (size_t)it))
                FAIL("back-to-back bcast %d: byte %zu wrong", it, i);
        for (int k = 0; k < 3; k++)
            v[k] = (int)me * (k + 1) + it;
        t = ndone + 1;
        START(DCMF_GlobalAllreduce(&arp, &r2, CB, DCMF_MATCH_CONSISTENCY, -1, (char *)v, (char *)out, 3,
                                   DCMF_SIGNED_INT, DCMF_SUM));
        coll_wait_count(&ndone, t);
        for (int k = 0; k < 3; k++) {
            int want = (int)(np * (np - 1) / 2) * (k + 1) + it * (int)np;
            if (out[k] != want)
                FAIL("back-to-back allreduce %d: [%d] = %d, expected %d", it, k, out[k], want);
        }
    }
}

/* Many instances at once: NB broadcasts from different roots (one of
 * them long), NA allreduces and two barriers, all started before any is
 * waited for. */
#define NB 4
#define NA 3
static void overlapped(int quick)
{
    size_t len[NB] = {10, 5000, quick ? 70000 : 300000, 1};
    char *b[NB];
    DCMF_Request_t rb[NB], ra[NA], rbar[2];
    long long s[NA][50], o[NA][50];
    int t = ndone + NB + NA + 2;
    START(DCMF_GlobalBarrier(&barp, &rbar[0], CB));
    for (int k = 0; k < NB; k++) {
        size_t root = ((size_t)k * 5 + 1) % np;
        b[k] = malloc(len[k]);
        if (!b[k])
            FAIL("out of memory");
        for (size_t i = 0; i < len[k]; i++)
            b[k][i] = me == root ? (char)(i * 3 + (size_t)k) : 0;
        START(DCMF_GlobalBcast(&bcp, &rb[k], CB, DCMF_RELAXED_CONSISTENCY, (unsigned)root, b[k],
                               (unsigned)len[k]));
        if (k < NA) {
            for (int i = 0; i < 50; i++)
                s[k][i] = (long long)me * 1000 + i + k;
            START(DCMF_GlobalAllreduce(&arp, &ra[k], CB, DCMF_SEQUENTIAL_CONSISTENCY, -1, (char *)s[k],
                                       (char *)o[k], 50, DCMF_SIGNED_LONG_LONG, DCMF_MAX));
        }
    }
    START(DCMF_GlobalBarrier(&gibarp, &rbar[1], CB));
    coll_wait_count(&ndone, t);
    for (int k = 0; k < NB; k++) {
        for (size_t i = 0; i < len[k]; i++)
            if (b[k][i] != (char)(i * 3 + (size_t)k))
                FAIL("overlapped bcast %d: byte %zu wrong", k, i);
        free(b[k]);
    }
    for (int k = 0; k < NA; k++)
        for (int i = 0; i < 50; i++)
            if (o[k][i] != (long long)(np - 1) * 1000 + i + k)
                FAIL("overlapped allreduce %d: [%d] = %lld", k, i, o[k][i]);
}

/* A chain: each allreduce's callback starts the next one. */
#define CHAIN 20
static DCMF_Request_t chain_req;
static int chain_in, chain_out;
static volatile int chain_n;

static void chain_cb(void *cd, DCMF_Error_t *e)
{
    (void)cd;
    if (e)
        FAIL("chained allreduce completed with error %d", e->result);
    if (chain_out != chain_n * (int)np + (int)(np * (np - 1) / 2))
        FAIL("chained allreduce %d gave %d", chain_n, chain_out);
    if (++chain_n == CHAIN)
        return;
    chain_in = chain_n + (int)me;
    if (DCMF_GlobalAllreduce(&arp, &chain_req, (DCMF_Callback_t){chain_cb, NULL},
                             DCMF_MATCH_CONSISTENCY, -1, (char *)&chain_in, (char *)&chain_out, 1,
                             DCMF_SIGNED_INT, DCMF_SUM) != DCMF_SUCCESS)
        FAIL("chained allreduce %d refused", chain_n);
}

static void chained(void)
{
    chain_in = (int)me;
    if (DCMF_GlobalAllreduce(&arp, &chain_req, (DCMF_Callback_t){chain_cb, NULL},
                             DCMF_MATCH_CONSISTENCY, -1, (char *)&chain_in, (char *)&chain_out, 1,
                             DCMF_SIGNED_INT, DCMF_SUM) != DCMF_SUCCESS)
        FAIL("chained allreduce refused");
    coll_wait_count(&chain_n, CHAIN);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    DCMF_Messager_initialize();
    me = DCMF_Messager_rank();
    np = DCMF_Messager_size();
    /* rank 0's first barrier message reaches the others while they
     * advance before making any collective call: it must not be lost */
    if (me != 0) {
        double end = DCMF_Timer() + 0.1;
        while (DCMF_Timer() < end)
            DCMF_Messager_advance();
    }
    DCMF_GlobalBarrier_Configuration_t bc = {DCMF_DEFAULT_GLOBALBARRIER_PROTOCOL};
    DCMF_GlobalBarrier_Configuration_t gc = {DCMF_GI_GLOBALBARRIER_PROTOCOL};
    DCMF_GlobalBcast_Configuration_t cc = {DCMF_TREE_GLOBALBCAST_PROTOCOL};
    DCMF_GlobalAllreduce_Configuration_t ac = {DCMF_TREE_GLOBALALLREDUCE_PROTOCOL};
    if (DCMF_GlobalBarrier_register(&barp, &bc) || DCMF_GlobalBarrier_register(&gibarp, &gc) ||
        DCMF_GlobalBcast_register(&bcp, &cc) || DCMF_GlobalAllreduce_register(&arp, &ac))
        FAIL("register");
    DCMF_Request_t first;
    START(DCMF_GlobalBarrier(&barp, &first, CB));
    coll_wait_count(&ndone, 1);
    barrier_semantics();
    bcast_all(quick);
    back_to_back(quick ? 40 : 200);
    overlapped(quick);
    chained();
    barrier_semantics();
    if (me == 0)
        printf("dcmf_coll_bcast on %zu ranks: ok\n", np);
    DCMF_Messager_finalize();
    return 0;
}
