/* Groups' MPI communicators in a libarmci built for MPI programs
 * (EMUNIC_ARMCI_MPI); without it these do nothing, since there is no
 * communicator to keep. */
#ifndef ARMCII_MPI_COMM_H
#define ARMCII_MPI_COMM_H
#include "armci.h"

#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
/* ARMCI_Init: bring MPI up if the program did not; its ranks must be
 * the job's. */
void armcii_mpi_init(void);
/* ARMCI_Finalize, after the groups are gone: MPI down if we brought it up. */
void armcii_mpi_finalize(void);
/* Before the device starts: the job rank of each rank of the init comm
 * (*members, n returned), or 0 when it is the whole job in order; -1: out
 * of memory. */
int armcii_mpi_members(int **members);
/* ARMCI_Init_mpi_comm: the communicator ARMCI_Init will run over. */
void armcii_mpi_set_init_comm(MPI_Comm comm);
/* The world group's communicator (a duplicate of the init comm). */
void armcii_mpi_world(ARMCI_Group *g);
/* A new group's communicator, over its members (collective over them). */
void armcii_mpi_group(ARMCI_Group *g);
/* Release a group's communicator. */
void armcii_mpi_free(ARMCI_Group *g);
static inline void armcii_mpi_none(ARMCI_Group *g) { g->comm = MPI_COMM_NULL; }
#else
static inline void armcii_mpi_none(ARMCI_Group *g) { (void)g; }
static inline int armcii_mpi_members(int **members) { *members = 0; return 0; }
static inline void armcii_mpi_init(void) {}
static inline void armcii_mpi_finalize(void) {}
static inline void armcii_mpi_world(ARMCI_Group *g) { (void)g; }
static inline void armcii_mpi_group(ARMCI_Group *g) { (void)g; }
static inline void armcii_mpi_free(ARMCI_Group *g) { (void)g; }
#endif
#endif
