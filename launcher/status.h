/* Wait statuses in words and as shell-style exit codes. */
#ifndef EMUNIC_RUN_STATUS_H
#define EMUNIC_RUN_STATUS_H

#include <stdbool.h>
#include <stddef.h>

bool status_ok(int wstatus);
/* exit code, or 128+signal */
int status_code(int wstatus);
/* "exited with code 3" / "killed by signal 9 (Killed)" */
void status_describe(int wstatus, char *buf, size_t n);

#endif
