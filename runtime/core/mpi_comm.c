/* In a libarmci built for MPI programs, every group carries the MPI
 * communicator of its members, as Global Arrays expects of an MPI-based
 * ARMCI. MPI_COMM_WORLD's ranks are the job's: emunic-run's PMI server
 * gives MPI its ranks from the same numbering. ARMCI's world is the
 * communicator given to ARMCI_Init_mpi_comm (MPI_COMM_WORLD otherwise). */
#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
#include <stdlib.h>
#include "armcii.h"
#include "mpi_comm.h"
#include "serial.h"

static MPI_Comm init_comm = MPI_COMM_NULL; /* set by ARMCI_Init_mpi_comm */
static int own_mpi; /* ARMCI_Init called MPI_Init */

void armcii_mpi_set_init_comm(MPI_Comm comm) { init_comm = comm; }

int armcii_mpi_members(int **members)
{
    *members = NULL;
    if (init_comm == MPI_COMM_NULL || init_comm == MPI_COMM_WORLD)
        return 0;
    int n = 0;
    MPI_Comm_size(init_comm, &n);
    int *in = malloc((size_t)n * sizeof *in), *abs = malloc((size_t)n * sizeof *abs);
    if (!in || !abs) {
        free(in);
        free(abs);
        return -1;
    }
    MPI_Group grp, world;
    MPI_Comm_group(init_comm, &grp);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int same = 1;
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(grp, n, in, world, abs);
    int wn = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    for (int i = 0; i < n; i++)
        same &= abs[i] == i;
    MPI_Group_free(&grp);
    MPI_Group_free(&world);
    free(in);
    if (same && n == wn) {
        free(abs);
        return 0;
    }
    *members = abs;
    return n;
}

void armcii_mpi_init(void)
{
    int up = 0, rank = -1, size = 0;
    MPI_Initialized(&up);
    /* a program that never called MPI_Init still runs: ARMCI brings MPI
     * up and takes it down again at ARMCI_Finalize */
    if (!up && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        armcii_error(1, "ARMCI_Init: MPI_Init failed (this libarmci is built for MPI programs)");
    own_mpi = !up;
    if (init_comm == MPI_COMM_NULL)
        init_comm = MPI_COMM_WORLD;
    MPI_Comm_rank(init_comm, &rank);
    MPI_Comm_size(init_comm, &size);
    if (size != armcii_nproc() || rank != armcii_me())
        armcii_error(1, "ARMCI_Init: the MPI communicator (rank %d of %d) is not the emunic job "
                        "(rank %d of %d)", rank, size, armcii_me(), armcii_nproc());
}

void armcii_mpi_world(ARMCI_Group *g)
{
    MPI_Comm_dup(init_comm, &g->comm);
}

void armcii_mpi_group(ARMCI_Group *g)
{
    g->comm = MPI_COMM_NULL;
    if (g->rank < 0)
        return; /* MPI_Comm_create_group involves the members only */
    MPI_Group world_grp, grp;
    MPI_Comm_group(init_comm, &world_grp);
    MPI_Group_incl(world_grp, g->size, g->grp_to_abs, &grp);
    MPI_Comm_create_group(init_comm, grp, g->id & 0x7fff, &g->comm);
    MPI_Group_free(&grp);
    MPI_Group_free(&world_grp);
}

void armcii_mpi_finalize(void)
{
    if (own_mpi) {
        own_mpi = 0;
        MPI_Finalize();
    }
    init_comm = MPI_COMM_NULL;
}

MPI_Comm armci_group_comm(ARMCI_Group *group)
{
    ARMCII_SERIAL;
    if (!group)
        armcii_error(1, "armci_group_comm: group is NULL");
    return group->comm;
}

void armcii_mpi_free(ARMCI_Group *g)
{
    if (g->comm != MPI_COMM_NULL) {
        int up = 0, down = 0;
        MPI_Initialized(&up);
        MPI_Finalized(&down);
        if (up && !down)
            MPI_Comm_free(&g->comm);
        g->comm = MPI_COMM_NULL;
    }
}
#else
/* an MPI-free build has nothing here (ISO C wants something) */
typedef int armcii_mpi_comm_unused;
#endif
