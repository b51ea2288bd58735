/* The fault plan for --fault and --faults. Not available yet: any fault
 * given is refused with one line, so no experiment runs without them. */
#include "msg.h"
#include "netopts.h"

int faults_parse(const char *const *specs, size_t nspecs, const char *file, uint32_t nnodes,
                 uint32_t nranks, struct emu_fault_rule *rules, uint32_t *nrules)
{
    (void)nnodes, (void)nranks, (void)rules;
    *nrules = 0;
    return msg_usage("fault injection is not available yet (%s)", nspecs ? specs[0] : file);
}
