/* The memory provider. Not a device: devices see only their personality's
 * header. This file is the one place the runtime uses emunic's own API,
 * for registered memory and node-shared mappings, as ARMCI on a real
 * machine uses the vendor's registration and System V shared memory. */
#include "mem.h"

#include <stdlib.h>
#include "armcii.h"
#include "subset.h"
#include "emunic/emunic.h"

void *armcii_mem_alloc(size_t len, int kind)
{
    if (kind == ARMCII_MEM_HEAP) {
        if (!emunic_initialized() && emunic_init() != 0)
            return NULL;
        return emunic_malloc(len ? len : 1);
    }
    void *p = NULL;
    return posix_memalign(&p, 64, len ? len : 1) == 0 ? p : NULL;
}

void armcii_mem_free(void *p, int kind)
{
    if (!p)
        return;
    if (kind == ARMCII_MEM_HEAP)
        emunic_free(p);
    else
        free(p);
}

void *armcii_mem_local(int proc, const void *raddr, size_t len)
{
    if (proc == armcii_me())
        return (void *)raddr;
    if (armcii_node_of(proc) != armcii_node_of(armcii_me()))
        return NULL;
    size_t size;
    uint32_t rank = (uint32_t)armcii_job_rank(proc);
    char *base = emunic_peer_heap(rank, &size);
    uint64_t rbase = emunic_heap_addr(rank);
    uint64_t a = (uint64_t)(uintptr_t)raddr;
    if (!base || !rbase || a < rbase || a - rbase > size || len > size - (a - rbase))
        return NULL;
    return base + (a - rbase);
}
