/* --dilate for ranks (machine.c): the environment that preloads
 * libemunic_dilate.so so the rank's clocks run K times slower. */
#ifndef EMUNIC_RUN_MACHINE_H
#define EMUNIC_RUN_MACHINE_H

#include <stdint.h>

/* In a rank's child, before exec: when dilate > 1, set EMUNIC_DILATE,
 * EMUNIC_DILATE_T0 (start_ns) and prepend the interposer to LD_PRELOAD
 * (found next to libemunic: the installed lib dir, or the build tree's
 * lib/). Returns 0, or -1 if the library is missing (the caller's rank
 * then runs with undilated clocks; a line on stderr says so). */
int machine_dilate_env(double dilate, int64_t start_ns);

#endif
