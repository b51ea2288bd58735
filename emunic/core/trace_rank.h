/* Rank-side --trace recording (trace_rank.c), used by client_ops.c. Hooks
 * are written as
 *     int64_t t0 = EMU_TR_BEGIN();  ...post...  EMU_TR_POST(t0, &m, rc);
 *     EMU_TR_DONE(&cqe);
 * so that with tracing off each costs one predictable branch. */
#ifndef EMUNIC_TRACE_RANK_H
#define EMUNIC_TRACE_RANK_H

#include <stdint.h>

#include "emunic/msg.h"

enum { EMU_TR_UNKNOWN = 0, EMU_TR_OFF = 1, EMU_TR_ON = 2 };
extern int emu_trace_rank_state;

#define EMU_TR_ACTIVE() \
    __builtin_expect(__atomic_load_n(&emu_trace_rank_state, __ATOMIC_RELAXED) != EMU_TR_OFF, 0)
#define EMU_TR_BEGIN() (EMU_TR_ACTIVE() ? emu_trace_rank_begin() : 0)
#define EMU_TR_POST(t0, m, rc)                                                                     \
    do {                                                                                           \
        if (EMU_TR_ACTIVE())                                                                       \
            emu_trace_rank_post((t0), (m), (rc));                                                  \
    } while (0)
#define EMU_TR_DONE(cqe)                                                                           \
    do {                                                                                           \
        if (EMU_TR_ACTIVE())                                                                       \
            emu_trace_rank_done(cqe);                                                              \
    } while (0)

/* The time a post starts (0 when not recording); decides on first use
 * whether this rank records, from the job's netcfg. */
int64_t emu_trace_rank_begin(void);
/* After emu_client_post returned rc for m (m as posted). */
void emu_trace_rank_post(int64_t t0, const struct emu_msg *m, int rc);
/* A completion taken off the rank's queue. */
void emu_trace_rank_done(const struct emu_msg *cqe);
/* An instant on the rank's track: the fault plan refused something (what,
 * a JSON-safe word; n: which one of its kind). */
void emu_trace_rank_fault(const char *what, uint64_t n);

#endif
