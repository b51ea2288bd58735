/* Private bookkeeping for the registered heap: a list of blocks (free and
 * used) sorted by offset, covering [0, size) without gaps. */
#include "emunic/heap.h"

#include <stdbool.h>
#include <stdlib.h>

struct emu_heap_blk {
    uint64_t off, len;
    bool used;
    struct emu_heap_blk *next;
};

static struct emu_heap_blk *blk_new(uint64_t off, uint64_t len, bool used,
                                    struct emu_heap_blk *next)
{
    struct emu_heap_blk *b = malloc(sizeof *b);
    if (b) {
        b->off = off;
        b->len = len;
        b->used = used;
        b->next = next;
    }
    return b;
}

int emu_heap_init(struct emu_heap *h, uint64_t size)
{
    h->size = size;
    h->in_use = 0;
    h->head = size ? blk_new(0, size, false, NULL) : NULL;
    return size && !h->head ? -1 : 0;
}

void emu_heap_destroy(struct emu_heap *h)
{
    struct emu_heap_blk *b = h->head;
    while (b) {
        struct emu_heap_blk *n = b->next;
        free(b);
        b = n;
    }
    h->head = NULL;
}

int64_t emu_heap_alloc(struct emu_heap *h, uint64_t len, uint64_t align)
{
    if (align == 0 || (align & (align - 1)) != 0)
        return -1;
    if (len == 0)
        len = 1;
    for (struct emu_heap_blk *b = h->head; b; b = b->next) {
        if (b->used)
            continue;
        uint64_t start = (b->off + align - 1) & ~(align - 1);
        uint64_t pad = start - b->off;
        if (start < b->off || pad > b->len || len > b->len - pad)
            continue;
        /* split off the alignment pad and the tail as free blocks */
        if (pad) {
            struct emu_heap_blk *rest = blk_new(start, b->len - pad, false, b->next);
            if (!rest)
                return -1;
            b->len = pad;
            b->next = rest;
            b = rest;
        }
        if (b->len > len) {
            struct emu_heap_blk *tail = blk_new(b->off + len, b->len - len, false, b->next);
            if (!tail)
                return -1;
            b->next = tail;
            b->len = len;
        }
        b->used = true;
        h->in_use += len;
        return (int64_t)b->off;
    }
    return -1;
}

int64_t emu_heap_free(struct emu_heap *h, uint64_t off)
{
    struct emu_heap_blk *prev = NULL, *b = h->head;
    while (b && b->off < off) {
        prev = b;
        b = b->next;
    }
    if (!b || b->off != off || !b->used)
        return -1;
    int64_t len = (int64_t)b->len;
    b->used = false;
    h->in_use -= b->len;
    struct emu_heap_blk *n = b->next;
    if (n && !n->used) {
        b->len += n->len;
        b->next = n->next;
        free(n);
    }
    if (prev && !prev->used) {
        prev->len += b->len;
        prev->next = b->next;
        free(b);
    }
    return len;
}

int64_t emu_heap_block_len(const struct emu_heap *h, uint64_t off)
{
    for (const struct emu_heap_blk *b = h->head; b && b->off <= off; b = b->next)
        if (b->off == off && b->used)
            return (int64_t)b->len;
    return -1;
}
