/* emunic's implementation-defined part of the DCMF interface: the quad and
 * the sizes of the opaque objects clients allocate. The real dcmf.h takes
 * these from a per-platform dcmf_impl.h; this is ours. */
#ifndef EMUNIC_DCMF_IMPL_H
#define EMUNIC_DCMF_IMPL_H

#include <stdint.h>

/* 16 bytes, 16-byte aligned, as on Blue Gene/P. */
typedef struct {
    uint32_t w0, w1, w2, w3;
} __attribute__((aligned(16))) DCQuad;

#define DCMF_PROTOCOL_NQUADS 32  /* 512 bytes */
#define DCMF_REQUEST_NQUADS 32   /* 512 bytes */
#define DCMF_ERROR_NQUADS 4
#define DCMF_CONTROL_NQUADS 2    /* 32 bytes of payload per control message */
#define DCMF_MEMREGION_NQUADS 2  /* rank, key, base, length: copied to peers */
#define DCMF_COLLECTIVE_PROTOCOL_NQUADS 32
#define DCMF_COLLECTIVE_REQUEST_NQUADS 64
#define DCMF_GEOMETRY_NQUADS 32

#endif
