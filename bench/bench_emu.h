/* emunic-specific helpers of the benchmark programs: start-up, finding a
 * peer's buffers, waiting for completions, and the wake-up counters of the
 * whole job (rank completion queues, NIC daemons, context switches). */
#ifndef EMUNIC_BENCH_EMU_H
#define EMUNIC_BENCH_EMU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emunic/emunic.h"

#define BE_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "bench rank %u %s:%d: %s: ", emunic_rank(),       \
                    __FILE__, __LINE__, #cond);                               \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

/* emunic_init, then allocate this rank's info block (info_len bytes, the
 * first heap block, so it sits at emunic_heap_addr(rank) for everyone), then
 * a barrier. Exits with a message when not run under emunic-run. */
void *be_init(size_t info_len);
void be_barrier(void);
/* Copy len bytes of rank's info block here, through the NIC (a read). */
void be_fetch_info(uint32_t rank, void *out, size_t len);
/* Wait for cookie's completion; exits on an error status. */
void be_wait_cookie(uint64_t cookie);
/* Wait for n EMU_CQ_DONE entries (any cookies); exits on an error status. */
void be_wait_dones(long n);
uint64_t be_cookie(void);

/* Job-wide counters, summed over every rank and NIC of the job. */
struct be_ctrs {
    uint64_t rank_sleeps;    /* ranks blocked on their completion queue */
    uint64_t rank_wakeups;   /* ... and woke up again */
    uint64_t rank_doorbells; /* NIC had to ring a sleeping rank */
    uint64_t nic_sleeps;     /* NIC daemons blocked in io_uring */
    uint64_t nic_wakeups;
    uint64_t nic_doorbells;  /* ranks/NICs had to ring a sleeping NIC */
    uint64_t nic_idle_polls; /* daemon idle rounds (one sched_yield each) */
    uint64_t nic_cmds;
    uint64_t shm_copies, vm_copies, backlog;
    uint64_t vcsw, ivcsw;    /* context switches of ranks and daemons */
};

/* Map the job's counters (emu_job_attach of emunic_jobid()). */
void be_ctrs_open(void);
void be_ctrs_read(struct be_ctrs *c);
void be_ctrs_sub(const struct be_ctrs *after, const struct be_ctrs *before,
                 struct be_ctrs *d);
/* CSV columns: per-operation rates of the counters that matter. */
#define BE_CTRS_CSV_HEADER                                                    \
    "rank_wakeups_op,nic_sleeps_op,nic_wakeups_op,doorbells_op,"              \
    "nic_idle_polls_op,vcsw_op,ivcsw_op"
void be_ctrs_csv(FILE *f, const struct be_ctrs *d, double ops);
void be_ctrs_csv_blank(FILE *f);

#endif
