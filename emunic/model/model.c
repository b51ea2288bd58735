/* The machine model (see emunic/model.h). Only the ideal machine exists so
 * far (launcher/machine.c refuses every other profile): no added delay. */
#include "emunic/model.h"

uint32_t emu_model_hops(const struct emu_machine *m, uint32_t nnodes, uint32_t a, uint32_t b)
{
    (void)m, (void)nnodes;
    return a == b ? 0 : 1;
}

int64_t emu_model_arrival(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes,
                          uint32_t src, uint32_t dst, uint64_t bytes, int64_t now_ns)
{
    (void)net, (void)links, (void)nnodes, (void)src, (void)dst, (void)bytes;
    return now_ns;
}
