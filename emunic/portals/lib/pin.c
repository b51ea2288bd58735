/* Large memory descriptors and list entries over private memory: exposing
 * them to the core (EMU_PERM_PIN: no access through the key) moves their
 * pages onto a memfd the NIC daemons map, so their data moves with one
 * memcpy instead of process_vm_* (docs/portals.md "Private memory").
 *
 * Only what is unlinked by the program itself is pinned: a use-once or
 * locally managed entry may vanish inside the NIC, and memory the program
 * then frees must not stay reachable through a live pin. */
#include "state.h"

#include <stdint.h>

#define PIN_MIN (64u << 10) /* below: not worth a region slot (the core's threshold) */
/* above: no single mapping can hold it (MDs over the whole address space,
 * as SOS and our runtime bind): not worth a region slot or a maps read */
#define PIN_MAX (1ull << 47)

uint32_t pl_pin(const void *start, ptl_size_t length, unsigned options, int entry)
{
    if ((options & PTL_IOVEC) || length < PIN_MIN || length > PIN_MAX ||
        (uint64_t)(uintptr_t)start + length < (uint64_t)(uintptr_t)start)
        return 0;
    if (entry && (options & (PTL_ME_USE_ONCE | PTL_ME_MANAGE_LOCAL)))
        return 0;
    if (emunic_in_heap(start, (size_t)length))
        return 0; /* mapped by the NIC already */
    int64_t key = emunic_expose(start, (size_t)length, EMU_PERM_PIN);
    return key > 0 ? (uint32_t)key : 0; /* out of slots: the slow road, still right */
}

void pl_unpin(uint32_t *key)
{
    if (*key)
        emunic_unexpose(*key);
    *key = 0;
}
