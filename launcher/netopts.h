/* The emulated network's options: --machine, --dilate, --congestion,
 * --fault, --faults, --seed, --unreliable, --stats, --stats-json, --trace.
 * netopts.c checks them while the command line is parsed (so a mistake
 * costs one line and exit 2 before anything starts) and writes the result
 * into the job segment's netcfg (netcfg.h). The parsers of profiles and
 * fault plans live in machine.c and faults.c. */
#ifndef EMUNIC_RUN_NETOPTS_H
#define EMUNIC_RUN_NETOPTS_H

#include <stddef.h>
#include <stdint.h>

#include "emunic/netcfg.h"

struct opts;

int netopts_dilate(const char *s, double *out);
int netopts_add_fault(struct opts *o, const char *spec);
/* After the options: load the machine, build the fault plan, check the
 * combinations. Returns 0, or 2 after one "emunic-run: ..." line. */
int netopts_finish(struct opts *o);
/* Fill the job segment's netcfg from o (the launcher, before daemons). */
void netopts_apply(const struct opts *o, struct emu_netcfg *net, int64_t start_ns);

/* machine.c: the profile NAME (share/emunic/machines/NAME.yaml, or the
 * built-in "ideal") or FILE, for a job of nnodes nodes. Returns 0, or 2
 * after one line (file:line: what for errors in a file). */
int machine_load(const char *spec, uint32_t nnodes, struct emu_machine *m);
/* --congestion uniform|hotspot|bisection[:LOAD] */
int congestion_parse(const char *s, uint32_t *kind, double *load);

/* faults.c: --fault specs (in order) and the --faults file into rules.
 * Returns 0, or 2 after one line. */
int faults_parse(const char *const *specs, size_t nspecs, const char *file, uint32_t nnodes,
                 uint32_t nranks, struct emu_fault_rule *rules, uint32_t *nrules);

#endif
