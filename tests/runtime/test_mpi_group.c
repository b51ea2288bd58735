/* libarmci built for MPI programs (EMUNIC_ARMCI_MPI): started by
 * emunic-run like any MPICH program, it takes MPI's world as its own and
 * gives every group the communicator of its members, which MPI calls then
 * use. Checks: world comm size and rank, an allreduce over the world
 * group's comm, a group of the even ranks with an allreduce over its comm
 * (odd ranks get MPI_COMM_NULL), and an ARMCI put around the ring. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci.h"

#define CHECK(c, ...)                                                             \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    /* GA's ARMCI test programs start MPI this way: armci_msg_init brings
     * it up in the MPI variant (and armci_msg_finalize takes it down) */
    armci_msg_init(&argc, &argv);
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    CHECK(mpi_up, "MPI is not up after armci_msg_init");
    if (argc > 1 && !strcmp(argv[1], "half")) {
        /* GA's comm_init.x starts ARMCI on half the job: refused at once
         * in one line (it used to wait in the start-up barrier) */
        MPI_Comm half;
        int wr;
        MPI_Comm_rank(MPI_COMM_WORLD, &wr);
        MPI_Comm_split(MPI_COMM_WORLD, wr % 2, wr, &half);
        ARMCI_Init_mpi_comm(half);
        CHECK(0, "ARMCI_Init_mpi_comm over half the job returned");
    }
    /* nonzero on success, as GA's ARMCI (GA_Initialize_comm relies on it) */
    CHECK(ARMCI_Init_mpi_comm(MPI_COMM_WORLD) == 1, "ARMCI_Init_mpi_comm did not return 1");
    int me, n, r, sz;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    MPI_Comm_rank(world.comm, &r);
    MPI_Comm_size(world.comm, &sz);
    CHECK(r == me && sz == n, "world comm: rank %d of %d, want %d of %d", r, sz, me, n);
    int sum = 0, one = me + 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, world.comm);
    CHECK(sum == n * (n + 1) / 2, "world allreduce %d", sum);

    int *even = malloc(sizeof(int) * (size_t)n), ne = 0;
    for (int i = 0; i < n; i += 2)
        even[ne++] = i;
    ARMCI_Group evens;
    ARMCI_Group_create(ne, even, &evens);
    if (me % 2 == 0) {
        MPI_Comm_size(evens.comm, &sz);
        CHECK(sz == ne, "even comm size %d, want %d", sz, ne);
        int s2 = 0;
        MPI_Allreduce(&me, &s2, 1, MPI_INT, MPI_SUM, evens.comm);
        CHECK(s2 == (ne - 1) * ne, "even allreduce %d, want %d", s2, (ne - 1) * ne);
    } else {
        CHECK(evens.comm == MPI_COMM_NULL, "a non-member has a communicator");
    }
    ARMCI_Group_free(&evens);

    void **ptr = malloc(sizeof(void *) * (size_t)n);
    ARMCI_Malloc(ptr, sizeof(int));
    int v = 1000 + me;
    ARMCI_Put(&v, ptr[(me + 1) % n], sizeof v, (me + 1) % n);
    ARMCI_Barrier();
    int got = *(int *)ptr[me];
    CHECK(got == 1000 + (me + n - 1) % n, "ring put: %d", got);
    ARMCI_Free(ptr[me]);
    ARMCI_Finalize();
    armci_msg_finalize();
    int mpi_down = 0;
    MPI_Finalized(&mpi_down);
    CHECK(mpi_down, "MPI is still up after armci_msg_finalize");
    if (me == 0)
        printf("mpi groups ok on %d ranks\n", n);
    free(ptr);
    free(even);
    return 0;
}
