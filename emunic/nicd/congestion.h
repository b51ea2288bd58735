/* Background traffic for --congestion (see congestion.c). */
#ifndef EMUNIC_NICD_CONGESTION_H
#define EMUNIC_NICD_CONGESTION_H

#include <stdatomic.h>
#include <stdint.h>

#include "emunic/netcfg.h"

/* Start generating this node's share of the pattern netcfg names (nothing
 * when it names none or the machine has no finite link bandwidth). */
void cong_init(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes, uint32_t node,
               int64_t now);
/* Reserve the background traffic due up to now; returns when to call again
 * (INT64_MAX: never). */
int64_t cong_progress(int64_t now);

#endif
