/* Machine profiles for --machine. Only the built-in ideal machine (no
 * added delay) exists so far; profile files come with the network model. */
#include <string.h>

#include "msg.h"
#include "netopts.h"

int machine_load(const char *spec, uint32_t nnodes, struct emu_machine *m)
{
    (void)nnodes;
    memset(m, 0, sizeof *m);
    if (strcmp(spec, "ideal") == 0) {
        strcpy(m->name, "ideal");
        return 0;
    }
    return msg_usage("--machine: no machine profile '%s' (available: ideal)", spec);
}

int congestion_parse(const char *s, uint32_t *kind, double *load)
{
    (void)kind, (void)load;
    return msg_usage("--congestion '%s': background traffic needs a machine model (not available yet)", s);
}
