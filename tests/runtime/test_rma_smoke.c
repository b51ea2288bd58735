/* One pass over the data paths: contiguous put/get, accumulate from every
 * rank, strided put/get, fetch-and-add from every rank, and a mutex-guarded
 * read-modify-write counter. rma.cmake runs it under each option set. */
#include <armci.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtest.h"
int main(void)
{
    ARMCI_Init();
    me = armci_msg_me();
    int n = armci_msg_nproc();
    void **base = malloc(sizeof(void*) * n);
    ARMCI_Malloc(base, 1 << 20);
    long *mine = base[me];
    for (int i = 0; i < 1024; i++) mine[i] = -1;
    ARMCI_Barrier();
    int to = (me + 1) % n;
    long buf[1024];
    for (int i = 0; i < 1024; i++) buf[i] = me * 10000 + i;
    ARMCI_Put(buf, base[to], sizeof buf, to);
    ARMCI_Barrier();
    int from = (me + n - 1) % n;
    for (int i = 0; i < 1024; i++) CHECK(mine[i] == from * 10000 + i, "put: element %d is %ld", i, mine[i]);
    long got[1024];
    ARMCI_Get(base[to], got, sizeof got, to);
    for (int i = 0; i < 1024; i++) CHECK(got[i] == me * 10000 + i, "get: element %d is %ld", i, got[i]);
    /* acc */
    ARMCI_Barrier();
    for (int i = 0; i < 1024; i++) mine[i] = 0;
    ARMCI_Barrier();
    double scale = 2.0; (void)scale;
    long lscale = 3;
    long one[1024]; for (int i = 0; i < 1024; i++) one[i] = i;
    for (int p = 0; p < n; p++) ARMCI_Acc(ARMCI_ACC_LNG, &lscale, one, base[p], sizeof one, p);
    ARMCI_Barrier();
    for (int i = 0; i < 1024; i++) CHECK(mine[i] == 3L * i * n, "acc: element %d is %ld", i, mine[i]);
    /* strided */
    int sstr[1] = {64 * 8}, dstr[1] = {32 * 8}, cnt[2] = {16 * 8, 8};
    long sb[64 * 8]; for (int i = 0; i < 512; i++) sb[i] = i + 7;
    ARMCI_Barrier();
    ARMCI_PutS(sb, sstr, base[to], dstr, cnt, 1, to);
    ARMCI_Barrier();
    for (int r = 0; r < 8; r++) for (int c = 0; c < 16; c++) CHECK(mine[r * 32 + c] == r * 64 + c + 7, "puts: row %d col %d is %ld", r, c, mine[r * 32 + c]);
    long gb[64 * 8]; memset(gb, 0, sizeof gb);
    ARMCI_GetS(base[to], dstr, gb, sstr, cnt, 1, to);
    for (int r = 0; r < 8; r++) for (int c = 0; c < 16; c++) CHECK(gb[r * 64 + c] == r * 64 + c + 7, "gets: row %d col %d is %ld", r, c, gb[r * 64 + c]);
    /* rmw */
    ARMCI_Barrier();
    if (me == 0) mine[0] = 0;
    ARMCI_Barrier();
    for (int k = 0; k < 100; k++) { long old; ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, base[0], 1, 0); }
    ARMCI_Barrier();
    if (me == 0) CHECK(mine[0] == 100L * n, "fetch-and-add counter is %ld", mine[0]);
    /* lock */
    ARMCI_Create_mutexes(1);
    ARMCI_Barrier();
    if (me == 0) mine[1] = 0;
    ARMCI_Barrier();
    for (int k = 0; k < 20; k++) {
        ARMCI_Lock(0, 0);
        long v; ARMCI_Get((long*)base[0] + 1, &v, sizeof v, 0);
        v++;
        ARMCI_Put(&v, (long*)base[0] + 1, sizeof v, 0);
        ARMCI_Unlock(0, 0);
    }
    ARMCI_Barrier();
    if (me == 0) CHECK(mine[1] == 20L * n, "locked counter is %ld", mine[1]);
    ARMCI_Destroy_mutexes();
    ARMCI_Free(base[me]);
    free(base);
    if (me == 0) printf("smoke OK on %d ranks\n", n);
    ARMCI_Finalize();
    return 0;
}
