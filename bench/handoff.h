/* Raw cross-process hand-off baselines: the floor for any path that passes
 * a token between processes through shared memory on this host, measured
 * without emunic. A forked chain of P processes passes an 8-byte token
 * 0 -> 1 -> ... -> P-1 -> ... -> 1 -> 0 (2(P-1) hand-offs per lap), the
 * shape of an emunic round trip: P = 2 is a plain ping-pong, P = 3 is
 * rank -> NIC -> NIC -> NIC -> rank (a write with remote completion), P = 4
 * is rank -> NIC -> NIC -> rank -> NIC -> NIC -> rank (a notified
 * ping-pong). Children are forked from the caller and exit with _exit. */
#ifndef EMUNIC_BENCH_HANDOFF_H
#define EMUNIC_BENCH_HANDOFF_H

enum handoff_wait {
    HANDOFF_YIELD, /* poll the shared word, sched_yield between looks */
    HANDOFF_FUTEX  /* block on a shared futex after every hand-off */
};

/* Context switches of all the chain's processes, per lap (warm-up laps
 * included), from getrusage of the caller and its reaped children. */
struct handoff_csw {
    double vcsw, ivcsw;
};

/* Run warm + laps laps; samples[i] (laps entries) gets each lap's time in
 * microseconds as seen by process 0. csw may be NULL. Returns 0, or -1 if
 * a child failed or the chain stalled for 60 s. */
int handoff_chain(int procs, enum handoff_wait how, long laps, long warm, double *samples,
                  struct handoff_csw *csw);

static inline int handoff_count(int procs) { return 2 * (procs - 1); }

#endif
