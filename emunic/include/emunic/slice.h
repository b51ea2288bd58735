#ifndef EMUNIC_SLICE_H
#define EMUNIC_SLICE_H
#include <stdbool.h>
#include <stdint.h>
/* Sharing a CPU with threads that never yield.
 *
 * A short scheduler slice for the threads that do a NIC's work (the NIC
 * daemon, a personality's progress thread).
 *
 * Why: on a host with fewer cores than processes, a NIC hand-off waits
 * until the thread that holds the CPU ends its slice: a rank that spins
 * on a flag (IBM's allreduce_commthr, GA's busy loops) or computes makes
 * every hand-off cost up to a slice (~3 ms). Linux >= 6.12 (EEVDF) lets an
 * unprivileged SCHED_OTHER thread ask for a shorter slice (sched_attr's
 * sched_runtime), and a woken thread with a shorter slice preempts one
 * with a longer slice at once (PREEMPT_SHORT). Older kernels ignore the
 * request; nothing else changes: priority, nice and CPU share stay.
 *
 * EMUNIC_SLICE_US sets the slice in microseconds (the kernel clamps it to
 * 100..100000); unset or 0, nothing is asked: the short slice helps a
 * progress thread serve a computing rank at 8 and 16 tasks on 2 cores and
 * costs 2-tasks latency (docs/PERFORMANCE.md). Returns 0 if the slice was
 * set, -errno if the kernel refused or the variable is not a number (said
 * on stderr), 1 if not asked (off, or not SCHED_OTHER). */
int emu_sched_short_slice(void);

/* The same with a slice of its own when EMUNIC_SLICE_US is unset (0: none):
 * for a thread whose job is to run beside an application thread that
 * holds the CPU (a PAMI commthread). */
int emu_sched_short_slice_or(long us);

/* One sched_yield of a poll loop; false: stop polling now and block.
 * A yield hands the CPU over for ~1 us, unless a thread that never yields
 * (a spinning or computing rank) shares the CPU: then it returns only
 * after that thread's slice, up to a timer tick (4 ms at HZ=250), each
 * time. With EMUNIC_HOG_US set (off by default), a yield that took longer
 * marks this thread's CPU as shared with such a thread for the next
 * 100 ms, during which this returns false at once without yielding: a
 * blocked thread is woken the moment its work arrives, a yielding one
 * only when the tick comes. Thread-local; counted in emu_poll_hogs(). */
bool emu_poll_yield(void);

/* This process runs a thread beside application threads that spin or
 * compute (a PAMI commthread): look for hogs, with EMUNIC_HOG_US=250
 * unless the variable is set (0 keeps detection off). */
void emu_poll_expect_hogs(void);

/* Other work on the host, for a NIC daemon. A daemon that yield-polls lets
 * a command that arrives meanwhile wait out the slice of every runnable
 * thread ahead of it, and another job's CPU hogs (a build, a second test
 * run) make that many milliseconds (measured with a case of the Portals 4
 * reference's sfw, docs/PERFORMANCE.md); a blocked daemon is woken at
 * once. Our own ranks crowd the CPU the same way at 16x16, where blocking
 * would halve the message rate, so this acts only while the host runs more
 * threads than our job could: emu_poll_watch_foreign reads /proc/loadavg
 * and, if its runnable count passes emu_foreign_load, makes the calling
 * thread's emu_poll_yield return false (block) for the next 100 ms, and
 * returns true; nothing outlasts those 100 ms, so a daemon that calls it
 * every 50 ms blocks while the load lasts and polls again after.
 * EMUNIC_HOG_US=0 turns it off with hog detection. emu_loadavg_runnable:
 * that count from the file's text, -1 if it is not the kernel's format. */
long emu_loadavg_runnable(const char *text);
bool emu_foreign_load(long runnable, unsigned job_procs);
bool emu_poll_watch_foreign(unsigned job_procs);

/* For poll loops with nothing to block on (peers' flags in shared memory):
 * a yield, or while a hog is seen a 20 us sleep, whose timer wake-up
 * comes in time where a yield would wait out the hog's slice. */
void emu_poll_pause(void);

/* How many times this process saw a yield take longer than EMUNIC_HOG_US. */
uint64_t emu_poll_hogs(void);

#endif
