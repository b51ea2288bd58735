/* armci_msg_init/armci_msg_finalize: in GA's ARMCI they start and stop the
 * message layer (MPI). Here the job is emunic-run's; only the MPI variant
 * has a message library of its own to bring up and down. */
#include "message.h"
#include "armci.h"
#include "serial.h"

#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
static int own_mpi; /* armci_msg_init called MPI_Init */

void armci_msg_init(int *argc, char ***argv)
{
    ARMCII_SERIAL;
    int up = 0;
    MPI_Initialized(&up);
    if (!up) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS)
            ARMCI_Error("armci_msg_init: MPI_Init failed", 1);
        own_mpi = 1;
    }
}

void armci_msg_finalize(void)
{
    ARMCII_SERIAL;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (own_mpi && up && !down)
        MPI_Finalize();
    own_mpi = 0;
}
#else
void armci_msg_init(int *argc, char ***argv)
{
    ARMCII_SERIAL;
    (void)argc, (void)argv;
}

void armci_msg_finalize(void)
{
    ARMCII_SERIAL;
}
#endif
