/* A Global Arrays 5.x C program (Debian's libga-mpich, built against an
 * external ARMCI) over emunic's libarmci_mpi. */
#include <mpi.h>
#include <stdio.h>
#include "ga.h"
#include "macdecls.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GA_Initialize();
    MA_init(C_DBL, 100000, 100000);
    int me = GA_Nodeid(), n = GA_Nnodes();
    int dims[2] = {64, 64}, chunk[2] = {-1, -1};
    int g = NGA_Create(C_DBL, 2, dims, "A", chunk);
    GA_Zero(g);
    double buf[64];
    for (int i = 0; i < 64; i++) buf[i] = me + 1;
    int lo[2] = {me % 64, 0}, hi[2] = {me % 64, 63}, ld = 64;
    NGA_Acc(g, lo, hi, buf, &ld, &(double){1.0});
    GA_Sync();
    double sum = GA_Ddot(g, g);
    double want = 0; for (int r = 0; r < n; r++) want += 64.0 * (r + 1) * (r + 1);
    /* a shared counter: every task's NGA_Read_inc gets a distinct value */
    int cdims[1] = {1}, cchunk[1] = {-1}, sub[1] = {0};
    int c = NGA_Create(C_LONG, 1, cdims, "counter", cchunk);
    GA_Zero(c);
    long got = NGA_Read_inc(c, sub, 1);
    long all[256] = {0};
    if (n <= 256) { all[me] = got; GA_Lgop(all, n, "+"); }
    int distinct = 1;
    for (int a = 0; a < n && n <= 256; a++)
        for (int b = a + 1; b < n; b++)
            if (all[a] == all[b]) distinct = 0;
    GA_Destroy(c);
    GA_Sync();
    if (me == 0) printf("GA read_inc: %s\n", distinct ? "distinct" : "DUPLICATES");
    if (!distinct) sum = -1;
    if (me == 0) printf("GA %d tasks: ddot %.0f (want %.0f) %s\n", n, sum, want, sum == want ? "ok" : "WRONG");
    GA_Destroy(g);
    GA_Terminate();
    MPI_Finalize();
    return sum == want ? 0 : 1;
}
