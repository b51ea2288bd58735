/* libarmci built for MPI programs (EMUNIC_ARMCI_MPI): started by
 * emunic-run like any MPICH program, it takes MPI's world as its own and
 * gives every group the communicator of its members, which MPI calls then
 * use. Checks: world comm size and rank, an allreduce over the world
 * group's comm, a group of the even ranks with an allreduce over its comm
 * (odd ranks get MPI_COMM_NULL), and an ARMCI put around the ring.
 *
 * With an argument, ARMCI runs over part of the job, as GA_Initialize_comm
 * does (GA's comm_init.x): "half" starts the even and the odd ranks as two
 * ARMCI worlds at once, "seq" the lower half, then (after it finished) the
 * upper half, "reverse" the whole job numbered backwards. Each world checks
 * its numbering, a put around its ring, a get, a fetch-and-add on its proc
 * 0 and a group of its own, all in its own procs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "armci.h"
#include "message.h"

#define CHECK(c, ...)                                                             \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static void one_world(MPI_Comm comm)
{
    int me, n, wr;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    CHECK(ARMCI_Init_mpi_comm(comm) == 1, "ARMCI_Init_mpi_comm did not return 1");
    CHECK(armci_msg_me() == me && armci_msg_nproc() == n, "ARMCI numbering: %d of %d, want %d of %d",
          armci_msg_me(), armci_msg_nproc(), me, n);
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    int r, sz;
    MPI_Comm_rank(world.comm, &r);
    MPI_Comm_size(world.comm, &sz);
    CHECK(r == me && sz == n, "world comm: rank %d of %d, want %d of %d", r, sz, me, n);

    void **ptr = malloc(sizeof(void *) * (size_t)n);
    CHECK(ptr && ARMCI_Malloc(ptr, 2 * sizeof(long)) == 0, "ARMCI_Malloc");
    long *mine = ptr[me];
    mine[0] = 0;
    mine[1] = 0;
    ARMCI_Barrier();
    long v = 1000 + wr; /* the job rank: who wrote is checked, not just how many */
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    CHECK(ARMCI_Put(&v, (long *)ptr[next] + 1, sizeof v, next) == 0, "put");
    long old = -1;
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, ptr[0], 1 + wr, 0) == 0, "rmw");
    ARMCI_Barrier();
    int pwr = -1;
    MPI_Group g, w;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &prev, w, &pwr);
    CHECK(mine[1] == 1000 + pwr, "ring put: %ld, want %d", mine[1], 1000 + pwr);
    long got[2] = {-1, -1};
    CHECK(ARMCI_Get(ptr[0], got, sizeof got, 0) == 0, "get");
    long want = 0;
    for (int i = 0; i < n; i++) {
        int x = -1;
        MPI_Group_translate_ranks(g, 1, &i, w, &x);
        want += 1 + x;
    }
    CHECK(got[0] == want, "fetch-and-add total %ld, want %ld", got[0], want);
    CHECK(old >= 0 && old < want, "fetched %ld", old);
    MPI_Group_free(&g);
    MPI_Group_free(&w);

    /* a group of this world's proc 0 and the last: numbered in its procs */
    int ends[2] = {0, n - 1};
    ARMCI_Group pair;
    ARMCI_Group_create(n > 1 ? 2 : 1, ends, &pair);
    if (me == 0 || me == n - 1) {
        int pr = -1;
        ARMCI_Group_rank(&pair, &pr);
        CHECK(pr == (me == 0 ? 0 : 1), "pair rank %d", pr);
        MPI_Comm_size(pair.comm, &sz);
        CHECK(sz == (n > 1 ? 2 : 1), "pair comm size %d", sz);
    }
    ARMCI_Group_free(&pair);
    ARMCI_Free(ptr[me]);
    ARMCI_Finalize();
    free(ptr);
    if (me == 0)
        printf("world of %d from job rank %d: ok\n", n, wr);
}

int main(int argc, char **argv)
{
    /* GA's ARMCI test programs start MPI this way: armci_msg_init brings
     * it up in the MPI variant (and armci_msg_finalize takes it down) */
    armci_msg_init(&argc, &argv);
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    CHECK(mpi_up, "MPI is not up after armci_msg_init");
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc > 1) {
        MPI_Comm part;
        const char *how = argv[1];
        int lower = me < n / 2;
        if (!strcmp(how, "half"))
            MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &part);
        else if (!strcmp(how, "seq"))
            MPI_Comm_split(MPI_COMM_WORLD, !lower, me, &part);
        else if (!strcmp(how, "reverse"))
            MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &part);
        else
            CHECK(0, "usage: test_mpi_group [half|seq|reverse]");
        if (strcmp(how, "seq") || lower)
            one_world(part);
        MPI_Barrier(MPI_COMM_WORLD); /* GA's comm_init.x: the upper half after */
        if (!strcmp(how, "seq") && !lower)
            one_world(part);
        MPI_Comm_free(&part);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            printf("mpi subsets (%s) ok on %d ranks\n", how, n);
        MPI_Finalize();
        return 0;
    }
    /* nonzero on success, as GA's ARMCI (GA_Initialize_comm relies on it) */
    CHECK(ARMCI_Init_mpi_comm(MPI_COMM_WORLD) == 1, "ARMCI_Init_mpi_comm did not return 1");
    int r, sz;

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
