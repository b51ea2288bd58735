/* An MPICH program started by emunic-run: MPI_Init bootstraps through
 * emunic-run's PMI-1 server (MPI traffic then goes over MPICH's own
 * channels), and an allreduce proves every rank joined. */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int sum = 0, one = r + 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d of %d: allreduce %d (want %d)\n", r, n, sum, n * (n + 1) / 2);
    MPI_Finalize();
    return sum == n * (n + 1) / 2 ? 0 : 1;
}
