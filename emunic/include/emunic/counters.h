/* Per-NIC counters, written by the daemon alone (relaxed atomics; ranks
 * count their `refused` in their own entries and the daemon adds them
 * in), readable live by anyone who maps the job. */
#ifndef EMUNIC_COUNTERS_H
#define EMUNIC_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define EMU_COUNTERS(X)                                                    \
    X(cmds, "commands taken from local ranks")                            \
    X(rejected, "malformed commands rejected")                            \
    X(writes, "target writes executed")                                   \
    X(reads, "target reads executed")                                     \
    X(atomics, "target atomics executed")                                 \
    X(ams, "active messages delivered")                                   \
    X(module_ops, "personality module commands")                          \
    X(errors, "operations that completed with an error")                  \
    X(bytes, "payload bytes moved")                                       \
    X(shm_copies, "copies done with memcpy between shm mappings")         \
    X(vm_copies, "copies done with process_vm_readv/writev")              \
    X(wire_tx, "packets sent to other NICs")                              \
    X(wire_rx, "packets received from other NICs")                        \
    X(completions, "completions posted to local ranks")                   \
    X(backlog, "messages parked because a queue was full")                \
    X(polls_idle, "idle polling rounds")                                  \
    X(sleeps, "times the daemon blocked in io_uring")                     \
    X(wakeups, "times the daemon woke from io_uring")                     \
    X(doorbells, "times the daemon rang a rank's or NIC's doorbell")      \
    X(packets, "wire packets (messages cut at the machine's MTU)")        \
    X(delayed, "messages held back by the machine model")                 \
    X(delay_ns, "total modelled delay added, ns")                         \
    X(retransmits, "packets sent again by the reliability protocol")      \
    X(drops, "packets lost (injected faults)")                            \
    X(dups, "duplicate packets (injected, or retransmits) discarded")     \
    X(corrupt, "packets that failed the checksum")                        \
    X(reordered, "packets delivered out of order (injected)")             \
    X(lost, "operations failed because the network lost them")           \
    X(credit_stalls, "messages that waited for an injection slot or credit") \
    X(starved, "messages held back by a credit-starvation fault")         \
    X(refused, "registrations, EQ/CT allocations and events refused by a fault") \
    X(backpressure, "times a rank's commands waited because it left its completions untaken") \
    X(queue_max, "deepest wire backlog seen, messages")                   \
    X(hog_watch, "1 once a local rank runs a commthread beside CPU hogs (EMU_HINT_HOGS)") \
    X(foreign_load, "scans that saw more runnable threads than this job has: the daemon blocked, not polled") \
    X(hog_yields, "yields slower than EMUNIC_HOG_US: the daemon then blocked instead") \
    X(fast_ops, "operations on another node's rank applied here, without the wire") \
    X(fast_busy, "turns put off because another daemon held this node's lock")

struct emu_nic_counters {
#define EMU_CTR_FIELD(name, doc) _Atomic uint64_t name;
    EMU_COUNTERS(EMU_CTR_FIELD)
#undef EMU_CTR_FIELD
};

#define EMU_CTR_ADD(c, field, n) \
    atomic_fetch_add_explicit(&(c)->field, (n), memory_order_relaxed)

/* Print one "name value" line per counter, each prefixed by `prefix`. */
void emu_counters_print(FILE *f, const char *prefix,
                        const struct emu_nic_counters *c);

#endif
