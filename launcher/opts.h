/* Command line of emunic-run: parsing and every check that can be made
 * before the job creates anything. */
#ifndef EMUNIC_RUN_OPTS_H
#define EMUNIC_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "emunic/netcfg.h"

enum run_mode { MODE_RUN, MODE_INFO, MODE_CLEANUP, MODE_HELP, MODE_VERSION };
enum bind_kind { BIND_NONE, BIND_CORE, BIND_NUMA };

struct opts {
    enum run_mode mode;
    uint32_t nnodes;
    uint32_t rpn;          /* ranks per node */
    char nic[16];
    enum bind_kind bind;
    double timeout_s;      /* 0: no timeout */
    uint64_t heap;         /* per rank; 0: the core's default */
    bool keep_going;
    bool no_prefix;
    bool no_pmi;           /* no PMI server, no PMI_* variables */
    bool pmi_port;         /* PMI_PORT/PMI_ID (TCP) instead of PMI_FD */
    bool no_aslr;          /* ranks start with ADDR_NO_RANDOMIZE */
    bool isolate;          /* --isolate or EMUNIC_ISOLATE=1: own PID+mount ns */
    int verbose;
    /* the emulated network (netopts.c) */
    const char *machine_spec;  /* --machine NAME|FILE; NULL: ideal */
    struct emu_machine machine;
    double dilate;             /* --dilate K (1: none) */
    const char *congestion_spec;
    uint32_t congestion;       /* enum emu_congestion */
    double congestion_load;
    const char **fault_specs;  /* --fault SPEC, in order */
    size_t nfault_specs;
    const char *faults_file;   /* --faults FILE */
    struct emu_fault_rule rules[EMU_FAULT_MAX];
    uint32_t nrules;
    uint64_t seed;             /* --seed N, or drawn at start (printed) */
    bool seed_set;
    bool unreliable;           /* --unreliable: no link-level reliability */
    bool stats;                /* --stats */
    const char *stats_json;    /* --stats-json FILE */
    const char *trace;         /* --trace FILE */
    char *prog_path;       /* the program, resolved as execvp would */
    char **argv;           /* its argv (points into main's argv) */
};

/* Returns 0, or 2 after one "emunic-run: ..." line on stderr. */
int opts_parse(struct opts *o, int argc, char **argv);
void opts_free(struct opts *o);
/* The job parameters these options ask for (what --info reports and what
 * the job is created with must be the same). */
struct emu_job_params;
void opts_job_params(const struct opts *o, struct emu_job_params *p);

const char *bind_kind_name(enum bind_kind k);

void usage_print(FILE *f);

/* Find name the way execvp does (PATH search unless it has a '/').
 * Returns 0 with a malloc'd path, or 2 after one line on stderr. */
int prog_resolve(const char *name, char **path);

#endif
