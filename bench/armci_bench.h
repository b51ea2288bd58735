/* What the ARMCI benchmarks (armci_perf, armci_rmw_counter, armci_flow)
 * share: the start-up check, the ARMCI_* settings as a CSV comment, a
 * busy loop that makes no calls, and the runtime's own protocol counters. */
#ifndef EMUNIC_ARMCI_BENCH_H
#define EMUNIC_ARMCI_BENCH_H

#include <stdint.h>
#include <stdio.h>

/* Exit 2 with a message naming prog unless this process was started by
 * emunic-run --nic portals (ARMCI_Init would fail later, less clearly). */
void ab_require_portals_job(const char *prog);

/* "# env ARMCI_HELPER=0 ARMCI_RMW=helper" -- every ARMCI_* variable set,
 * sorted, or "# env (no ARMCI_* variables: defaults)". */
void ab_env_comment(FILE *f);

/* Value of an ARMCI_* variable, or def when unset or empty. */
const char *ab_env_or(const char *name, const char *def);

/* Compute for ns nanoseconds without any call but the clock (vDSO): the
 * "rank is busy" of the counter experiment must not progress ARMCI. */
void ab_spin_ns(int64_t ns);

/* Counters of the data-server protocol that libarmci keeps internally.
 * They are not part of the ARMCI API; they are read through weak
 * references, so a runtime without them still links (have = 0). */
struct ab_proto_ctrs {
    int have;
    unsigned long requests;     /* client: requests posted to servers */
    unsigned long grants;       /* client: spare-buffer grants received */
    unsigned long credit_waits; /* client: requests that found no free buffer */
    unsigned long srv_requests; /* server: requests executed */
    unsigned long srv_acks;     /* server: acks sent */
};
void ab_proto_read(struct ab_proto_ctrs *c);
/* after - before, field by field. */
void ab_proto_sub(const struct ab_proto_ctrs *after, const struct ab_proto_ctrs *before,
                  struct ab_proto_ctrs *d);
/* Sum the counters of every rank (collective: armci_msg_lgop) into *c. */
void ab_proto_allsum(struct ab_proto_ctrs *c);

#endif
