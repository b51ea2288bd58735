/* Bounded lock-free queue of emu_msg slots in shared memory.
 *
 * Many producers, one consumer (a rank's threads or several NICs push; one
 * NIC or one rank pops). Each slot carries a sequence number, so a producer
 * never needs the consumer's index, and a consumer never trusts anything
 * but its own private copy of its index: a process that scribbles over the
 * ring can stall that ring but never make a reader touch memory outside it. */
#ifndef EMUNIC_RING_H
#define EMUNIC_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emunic/msg.h"

#define EMU_RING_MAGIC 0x656d7572696e6731ull /* "emuring1" */

struct emu_ring_shm {
    _Alignas(64) _Atomic uint64_t tail; /* next position producers claim */
    _Alignas(64) _Atomic uint64_t head; /* consumer's progress, for depth */
    _Alignas(64) uint64_t magic;
    uint32_t capacity;
    uint32_t pad_;
    /* then: _Atomic uint64_t seq[capacity]; struct emu_msg slot[capacity] */
};

/* Process-private view. Only mask and the pointers derived at attach time
 * are used to index, never a value re-read from shared memory. */
struct emu_ring {
    struct emu_ring_shm *shm;
    _Atomic uint64_t *seq;
    struct emu_msg *slot;
    uint32_t mask;
    uint64_t head; /* consumer only */
};

size_t emu_ring_bytes(uint32_t capacity); /* capacity: power of two >= 2 */
void emu_ring_format(void *mem, uint32_t capacity);
/* Returns 0, or -1 if mem does not hold a ring of that capacity. */
int emu_ring_attach(struct emu_ring *r, void *mem, uint32_t capacity);

/* 0 on success, -1 if full (or if a corrupt ring keeps a producer from
 * claiming a slot after a bounded number of tries). Copies the header and
 * m->dlen inline bytes only. */
int emu_ring_push(struct emu_ring *r, const struct emu_msg *m);
/* Single consumer: 0 and *out filled, or -1 if empty. */
int emu_ring_pop(struct emu_ring *r, struct emu_msg *out);
/* Consumer-side check without popping. */
bool emu_ring_ready(const struct emu_ring *r);
/* Approximate number of queued messages (for counters and traces). */
uint64_t emu_ring_depth(const struct emu_ring *r);

#endif
