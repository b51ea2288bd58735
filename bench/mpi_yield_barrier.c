/* LD_PRELOAD glue for benchmarks whose timed loop ends in MPI_Barrier
 * (OSPRI's ARMCI_AllFlushAll_latency): Debian MPICH's ch4:ucx barrier
 * spins, and with more ranks than cores each barrier then costs what the
 * scheduler takes to rotate the spinners (about 12 ms at 4 ranks on 2
 * cores), whatever the runtime under test does. Here the barrier is
 * MPI_Ibarrier tested in a loop that yields and, once it has waited a
 * while, naps, so the other ranks and the NIC daemons get the CPU. Only
 * the benchmark's own calls go through it (a runtime that calls
 * PMPI_Barrier is untouched). Built by bench/run_a1.sh. */
#include <mpi.h>
#include <sched.h>
#include <time.h>

int MPI_Barrier(MPI_Comm comm)
{
    MPI_Request req;
    int rc = PMPI_Ibarrier(comm, &req);
    for (unsigned polls = 0; rc == MPI_SUCCESS; polls++) {
        int done = 0;
        rc = PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            break;
        if (polls < 64) {
            sched_yield();
        } else {
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
    }
    return rc;
}
