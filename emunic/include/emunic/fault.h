/* The fault plan's decisions that more than one process makes: whether a
 * rule's scope and window cover something, and the seeded draws that make
 * a run replayable. The daemons' link layer (nicd/link.c) and injection
 * (nicd/inject.c), the NIC modules and the ranks' core all decide through
 * these, so a rule means the same wherever it is checked. */
#ifndef EMUNIC_FAULT_H
#define EMUNIC_FAULT_H

#include <stdint.h>

#include "emunic/netcfg.h"

/* What a rule is checked against; op -1 (a control packet, or an
 * allocation) matches no op= or rank= scope, rank -1 matches no rank=. */
struct emu_fault_subject {
    uint32_t node_a, node_b; /* from, to (equal for something local to a node) */
    int32_t op;              /* enum emu_op, or -1 */
    int32_t src, dst;        /* ranks, or -1 */
};

/* Does rule r cover the subject at job time t (ns since the job's start)? */
int emu_fault_covers(const struct emu_fault_rule *r, const struct emu_fault_subject *s, int64_t t);

/* A 64-bit mixing function (splitmix64's finaliser): the draws' hash, and
 * the link layer's checksum. */
uint64_t emu_fault_mix(uint64_t x);

/* Uniform in [0,1): one decision, a pure function of the seed and the
 * four keys (who decides, about what, which rule, which question). */
double emu_fault_draw(uint64_t seed, uint64_t who, uint64_t id, uint32_t rule, uint32_t what);

/* Resource exhaustion (regfail, eqfull): does the plan refuse rank's
 * allocation or event number `n` of that kind on node `node` now? kind is
 * EMU_FAULT_REGFAIL or EMU_FAULT_EQFULL. */
int emu_fault_refuse(const struct emu_netcfg *net, uint32_t kind, uint32_t node, uint32_t rank, uint64_t n);

#endif
