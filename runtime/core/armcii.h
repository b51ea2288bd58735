/* Shared state and services of the device-independent core. */
#ifndef ARMCII_H
#define ARMCII_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "armci.h"
#include "device.h"

/* Report misuse: "ARMCI_PutS: count[2] < 0 (-1)" style text, then
 * ARMCI_Error(text, code) -- which prints it and aborts the job. */
void armcii_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* Check the runtime is initialised; names the calling function otherwise. */
void armcii_need_init(const char *fn);

int armcii_me(void);
int armcii_nproc(void);
int armcii_node_of(int proc);
int armcii_nnodes(void);
int armcii_node_master(int node);   /* lowest world rank on that node */
int armcii_node_nprocs(int node);
int armcii_node_rank(int node, int i); /* i-th world rank on node */

/* Progress of the rank's own context: completions and arrivals. With
 * block != 0 and nothing to do, sleep in the device (up to ~10 ms, so
 * callers re-check their condition) instead of spinning. */
void armcii_progress(int block);

extern const struct armci_device *armcii_dev;
#endif
