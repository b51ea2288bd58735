/* emunic PAMI: platform sizes consumed by pami.h.
 *
 * Real PAMI ships one of these per platform; pami.h only needs the sizes of
 * the caller-owned opaque objects from it. emunic uses the "default"/Linux
 * values (8 machine words each) so clients can store the objects by value.
 * Endpoints are real functions in emunic, so unlike BG/Q nothing is added
 * here after pami.h's declarations. */
#ifndef EMUNIC_PAMI_SYS_H
#define EMUNIC_PAMI_SYS_H

#include <stdint.h>

/* bytes in a pami_memregion_t (clients copy it to peers by value) */
#define PAMI_CLIENT_MEMREGION_SIZE_STATIC (8 * sizeof(uintptr_t))

/* bytes in a pami_work_t (storage handed to PAMI_Context_post) */
#define PAMI_WORK_SIZE_STATIC (8 * sizeof(uintptr_t))

/* request size in 16-byte quads, as every real platform defines it */
#define PAMI_REQUEST_NQUADS 512

#endif /* EMUNIC_PAMI_SYS_H */
