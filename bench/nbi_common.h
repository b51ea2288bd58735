/* What the nbi_* benchmarks (the [SHMEM-NBI] study on ARMCI) share: the
 * start-up, the name of the design being measured, the CSV preamble and a
 * calibrated compute loop. */
#ifndef EMUNIC_NBI_COMMON_H
#define EMUNIC_NBI_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit 2 unless under emunic-run --nic portals, then ARMCI_Init_args. */
void nbi_init(const char *prog, int *argc, char ***argv);

/* "shm" (rank 0 and peer on one node, ARMCI_SHM=1: direct copy), "lb"
 * (one node, ARMCI_SHM=0: loopback through the NIC) or "inter" (peer on
 * another node). Collective-free; peer < 0 means "any other rank". */
const char *nbi_design(int peer);

/* Rank 0: the bench_util header, the ARMCI_* env, and a "# layout" line. */
void nbi_preamble(int argc, char **argv, const char *design, const char *what);

/* Calibrated busy loop: work that takes a known time when the core is
 * ours, and longer when it is not (a clock-driven spin would hide the
 * CPU the NIC daemon takes from us). nbi_calibrate once, then
 * nbi_compute_ns as often as needed. */
void nbi_calibrate(void);
void nbi_compute_ns(double ns);

/* Sizes "LO:HI" etc. (bench_parse_sizes), exits 2 on garbage or > max. */
void nbi_sizes(const char *prog, const char *s, uint64_t max, uint64_t **out, size_t *n);

double nbi_now_us(void);

/* Exit 2 (all ranks) with one line if the job has fewer than n ranks. */
void nbi_need_ranks(const char *prog, int n);

/* After getopt_long returned '?' or ':': one line naming the argument;
 * returns the exit status (2). */
int nbi_bad_option(const char *prog, char **argv);
/* After the options: 2 (with one line) if a stray argument is left, else 0. */
int nbi_stray_args(const char *prog, int argc, char **argv);
/* ARMCI_Malloc of bytes on every rank; the table of every rank's block,
 * or exit(1) with one line. */
void **nbi_malloc_all(const char *prog, size_t bytes);

#endif
