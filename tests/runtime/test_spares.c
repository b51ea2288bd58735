/* Gets and writes in flight together through one data server, each large
 * enough to be granted spare buffers (flow intimation): a get's spares
 * must stay the get's until the client has pulled them, whatever writes
 * end their own grants meanwhile. The server once released every spare a
 * client held when either grant ended, and the freed spares were granted
 * again and overwritten while still being pulled: GA's matmul got wrong
 * blocks (non-blocking gets of A and B in flight with accumulates into C).
 *
 * Every rank, ROUNDS times: NbGetS a strided section of its neighbour's
 * read-only area (two of them, one before and one after the writes),
 * AccS and PutS strided sections into its own slots at the neighbour,
 * then waits and checks the gotten bytes one by one; at the end every
 * rank checks the accumulated and put slots it hosts. Rows are shorter
 * than ARMCI_NONCONTIG_RDMA_MIN, so the server carries all of it. */
#include <armci.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define ROWS 96
#define ROW 600     /* bytes of a row: under the 2048-byte RDMA minimum */
#define STRIDE 1000 /* bytes between rows at either end */
#define AREA ((size_t)ROWS * STRIDE)
#define ROUNDS 30

static int nproc;
static void **base;

/* A rank's memory: its read-only area, then per source rank an
 * accumulate slot and a put slot. */
static char *ro_area(int p) { return base[p]; }
static char *acc_slot(int p, int src) { return (char *)base[p] + AREA * (1 + 2 * (size_t)src); }
static char *put_slot(int p, int src) { return (char *)base[p] + AREA * (2 + 2 * (size_t)src); }

static unsigned char ro_pat(int owner, size_t i)
{
    return (unsigned char)(i * 7 + (i >> 9) + (size_t)owner * 59 + 1);
}

static unsigned char put_pat(int src, int round, size_t i)
{
    return (unsigned char)(i * 3 + (size_t)src * 17 + (size_t)round * 5 + 2);
}

static void check_get(const unsigned char *got, int p, int round, const char *which)
{
    for (size_t r = 0; r < ROWS; r++)
        for (size_t i = 0; i < ROW; i++) {
            size_t at = r * STRIDE + i;
            CHECK(got[r * ROW + i] == ro_pat(p, at), "round %d %s get from rank %d: row %zu byte %zu "
                  "is %u, expected %u", round, which, p, r, i, got[r * ROW + i], ro_pat(p, at));
        }
}

int main(void)
{
    ARMCI_Init();
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    size_t bytes = AREA * (1 + 2 * (size_t)nproc);
    base = calloc((size_t)nproc, sizeof *base);
    CHECK(base && ARMCI_Malloc(base, (armci_size_t)bytes) == 0, "ARMCI_Malloc");
    memset(base[me], 0, bytes);
    for (size_t i = 0; i < AREA; i++)
        ((unsigned char *)ro_area(me))[i] = ro_pat(me, i);
    ARMCI_Barrier();

    int p = (me + 1) % nproc;
    int far_stride[1] = {STRIDE}, near_stride[1] = {ROW}, count[2] = {ROW, ROWS};
    unsigned char *g1 = malloc((size_t)ROWS * ROW), *g2 = malloc((size_t)ROWS * ROW);
    int *ones = malloc((size_t)ROWS * ROW);
    unsigned char *src = malloc((size_t)ROWS * ROW);
    CHECK(g1 && g2 && ones && src, "out of memory");
    for (size_t i = 0; i < (size_t)ROWS * ROW / sizeof(int); i++)
        ones[i] = 1;
    for (int round = 0; round < ROUNDS; round++) {
        armci_hdl_t h1, h2;
        ARMCI_INIT_HANDLE(&h1);
        ARMCI_INIT_HANDLE(&h2);
        memset(g1, 0, (size_t)ROWS * ROW);
        memset(g2, 0, (size_t)ROWS * ROW);
        CHECK(ARMCI_NbGetS(ro_area(p), far_stride, g1, near_stride, count, 1, p, &h1) == 0, "NbGetS");
        int scale = 1;
        CHECK(ARMCI_AccS(ARMCI_ACC_INT, &scale, ones, near_stride, acc_slot(p, me), far_stride,
                         count, 1, p) == 0, "AccS");
        for (size_t i = 0; i < (size_t)ROWS * ROW; i++)
            src[i] = put_pat(me, round, i);
        CHECK(ARMCI_PutS(src, near_stride, put_slot(p, me), far_stride, count, 1, p) == 0, "PutS");
        CHECK(ARMCI_NbGetS(ro_area(p), far_stride, g2, near_stride, count, 1, p, &h2) == 0, "NbGetS");
        CHECK(ARMCI_AccS(ARMCI_ACC_INT, &scale, ones, near_stride, acc_slot(p, me), far_stride,
                         count, 1, p) == 0, "AccS");
        CHECK(ARMCI_Wait(&h1) == 0 && ARMCI_Wait(&h2) == 0, "Wait");
        check_get(g1, p, round, "first");
        check_get(g2, p, round, "second");
    }
    ARMCI_AllFence();
    ARMCI_Barrier();

    /* what the rank before this one wrote here */
    int from = (me + nproc - 1) % nproc;
    for (size_t r = 0; r < ROWS; r++)
        for (size_t i = 0; i < ROW; i += sizeof(int)) {
            int v;
            memcpy(&v, acc_slot(me, from) + r * STRIDE + i, sizeof v);
            CHECK(v == 2 * ROUNDS, "accumulated int at row %zu byte %zu from rank %d is %d, expected %d",
                  r, i, from, v, 2 * ROUNDS);
        }
    for (size_t r = 0; r < ROWS; r++)
        for (size_t i = 0; i < ROW; i++) {
            unsigned char v = (unsigned char)put_slot(me, from)[r * STRIDE + i];
            CHECK(v == put_pat(from, ROUNDS - 1, r * ROW + i), "put byte at row %zu byte %zu from rank "
                  "%d is %u, expected %u", r, i, from, v, put_pat(from, ROUNDS - 1, r * ROW + i));
        }
    ARMCI_Barrier();
    if (me == 0)
        printf("test_spares: %d ranks x %d rounds of 2 gets + 3 writes of %d x %d B through the servers: ok\n",
               nproc, ROUNDS, ROWS, ROW);
    free(g1);
    free(g2);
    free(ones);
    free(src);
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    return 0;
}
