/* Observability at the launcher: --stats, --stats-json, --trace and the
 * fault summary (stats.c, trace_merge.c), and the counter formatting that
 * emunic-stat shares (stats_fmt.c, compiled into both programs). */
#ifndef EMUNIC_RUN_STATS_H
#define EMUNIC_RUN_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "emunic/job.h"

/* ---- stats_fmt.c ---- */

/* Counters in EMU_COUNTERS order. */
#define STATS_NCTR stats_nctr()
unsigned stats_nctr(void);
const char *stats_ctr_name(unsigned i);
const char *stats_ctr_doc(unsigned i);
/* Snapshot node n's counters (or every node's sum if n == UINT32_MAX)
 * into v[stats_nctr()]. */
void stats_load(const struct emu_job *j, uint32_t n, uint64_t *v);
/* Index of a counter by name, or -1. */
int stats_ctr_index(const char *name);

/* --stats: every NIC's counters and a total, then each rank's wake-ups. */
void stats_print_text(FILE *f, const struct emu_job *j);
/* --stats-json / emunic-stat --json: the document of docs/observe.md.
 * live: written while the job runs (emunic-stat). Returns 0, or -1 if a
 * write failed. */
int stats_print_json(FILE *f, const struct emu_job *j, bool live);
/* "drops 3, dups 1, ..." for the fault counters that are non-zero;
 * returns false (and an empty buffer) if they are all zero. */
bool stats_fault_summary(const struct emu_job *j, char *buf, size_t n);

/* ---- stats.c (emunic-run) ---- */
struct launcher;
/* After the job segment exists, before any daemon starts: opens the
 * --stats-json and --trace outputs (so a bad path fails before the job
 * runs) and makes the trace parts' directory. Returns 0, or 2 after one
 * "emunic-run: ..." line. */
int stats_job_start(struct launcher *L);
/* After every process of the job is gone, before the segment is removed:
 * the fault summary, --stats, --stats-json, --trace. */
void stats_job_end(struct launcher *L);

/* ---- trace_merge.c ---- */
/* Merge dir's *.part files into one Chrome trace-event document on out,
 * with the track names of a job of nnodes x rpn. Returns the number of
 * events written, or -1 with errno set when writing out failed. */
long trace_merge(const char *dir, FILE *out, const struct emu_job *j);
/* Remove dir and the part files in it. */
void trace_dir_remove(const char *dir);

#endif
