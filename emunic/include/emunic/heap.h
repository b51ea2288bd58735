/* Offset allocator for a rank's registered heap. Its bookkeeping lives in
 * the rank's private memory, never in the heap itself: the heap is exposed
 * to remote writes, and a peer's stray put must not be able to corrupt the
 * allocator. First fit over an offset-sorted block list, coalescing on
 * free; the counts of live blocks in one-sided codes are small. */
#ifndef EMUNIC_HEAP_H
#define EMUNIC_HEAP_H

#include <stdint.h>

struct emu_heap_blk;

struct emu_heap {
    uint64_t size;
    uint64_t in_use;
    struct emu_heap_blk *head;
};

int emu_heap_init(struct emu_heap *h, uint64_t size);
void emu_heap_destroy(struct emu_heap *h);
/* Offset of a block of len bytes aligned to align (power of two, >= 1),
 * or -1 when no free block fits. len 0 gets a distinct 1-byte block. */
int64_t emu_heap_alloc(struct emu_heap *h, uint64_t len, uint64_t align);
/* Returns the freed block's length, or -1 if off is not the start of a live
 * block (double free, wild pointer). */
int64_t emu_heap_free(struct emu_heap *h, uint64_t off);
/* Length of the live block starting at off, or -1. */
int64_t emu_heap_block_len(const struct emu_heap *h, uint64_t off);

#endif
