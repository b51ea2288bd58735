/* Sequence-numbered bounded queue (after the classic per-cell sequence
 * design): slot i is free for position p when seq == p, full when
 * seq == p + 1. */
#include "emunic/ring.h"

#include <sched.h>
#include <string.h>

/* A producer that keeps losing the race (or faces a scribbled ring) gives
 * up after this many tries and reports "full"; the caller backs off. */
#define PUSH_TRIES 256

static size_t seq_bytes(uint32_t capacity)
{
    size_t b = (size_t)capacity * sizeof(uint64_t);
    return (b + 63) & ~(size_t)63;
}

size_t emu_ring_bytes(uint32_t capacity)
{
    return sizeof(struct emu_ring_shm) + seq_bytes(capacity) +
           (size_t)capacity * sizeof(struct emu_msg);
}

static int capacity_ok(uint32_t capacity)
{
    return capacity >= 2 && (capacity & (capacity - 1)) == 0;
}

static void bind_view(struct emu_ring *r, void *mem, uint32_t capacity)
{
    r->shm = mem;
    r->seq = (_Atomic uint64_t *)((char *)mem + sizeof(struct emu_ring_shm));
    r->slot = (struct emu_msg *)((char *)r->seq + seq_bytes(capacity));
    r->mask = capacity - 1;
}

void emu_ring_format(void *mem, uint32_t capacity)
{
    struct emu_ring r;
    memset(mem, 0, sizeof(struct emu_ring_shm));
    bind_view(&r, mem, capacity);
    r.shm->capacity = capacity;
    for (uint32_t i = 0; i < capacity; i++)
        atomic_store_explicit(&r.seq[i], i, memory_order_relaxed);
    atomic_store_explicit(&r.shm->tail, 0, memory_order_relaxed);
    atomic_store_explicit(&r.shm->head, 0, memory_order_relaxed);
    r.shm->magic = EMU_RING_MAGIC;
    atomic_thread_fence(memory_order_release);
}

int emu_ring_attach(struct emu_ring *r, void *mem, uint32_t capacity)
{
    const struct emu_ring_shm *s = mem;
    if (!mem || !capacity_ok(capacity) || s->magic != EMU_RING_MAGIC ||
        s->capacity != capacity)
        return -1;
    bind_view(r, mem, capacity);
    r->head = atomic_load_explicit(&r->shm->head, memory_order_acquire);
    return 0;
}

static size_t msg_bytes(const struct emu_msg *m)
{
    size_t d = m->dlen <= EMU_INLINE_MAX ? m->dlen : EMU_INLINE_MAX;
    return EMU_MSG_HDR_SIZE + d;
}

int emu_ring_push(struct emu_ring *r, const struct emu_msg *m)
{
    uint64_t pos = atomic_load_explicit(&r->shm->tail, memory_order_relaxed);
    for (int tries = 0; tries < PUSH_TRIES; tries++) {
        _Atomic uint64_t *seq = &r->seq[pos & r->mask];
        uint64_t s = atomic_load_explicit(seq, memory_order_acquire);
        int64_t dif = (int64_t)(s - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(
                    &r->shm->tail, &pos, pos + 1, memory_order_relaxed,
                    memory_order_relaxed)) {
                memcpy(&r->slot[pos & r->mask], m, msg_bytes(m));
                atomic_store_explicit(seq, pos + 1, memory_order_release);
                return 0;
            }
            /* CAS failure reloaded pos */
        } else if (dif < 0) {
            return -1; /* full: the consumer has not freed this slot */
        } else {
            pos = atomic_load_explicit(&r->shm->tail, memory_order_relaxed);
        }
    }
    return -1;
}

int emu_ring_pop(struct emu_ring *r, struct emu_msg *out)
{
    uint64_t pos = r->head;
    _Atomic uint64_t *seq = &r->seq[pos & r->mask];
    uint64_t s = atomic_load_explicit(seq, memory_order_acquire);
    if (s != pos + 1)
        return -1;
    const struct emu_msg *slot = &r->slot[pos & r->mask];
    memcpy(out, slot, EMU_MSG_HDR_SIZE);
    /* dlen may have been scribbled: clamp before copying the payload */
    if (out->dlen > EMU_INLINE_MAX)
        out->dlen = EMU_INLINE_MAX;
    memcpy(out->data, slot->data, out->dlen);
    atomic_store_explicit(seq, pos + r->mask + 1, memory_order_release);
    r->head = pos + 1;
    atomic_store_explicit(&r->shm->head, pos + 1, memory_order_relaxed);
    return 0;
}

bool emu_ring_ready(const struct emu_ring *r)
{
    uint64_t s = atomic_load_explicit(&r->seq[r->head & r->mask],
                                      memory_order_acquire);
    return s == r->head + 1;
}

uint64_t emu_ring_depth(const struct emu_ring *r)
{
    uint64_t t = atomic_load_explicit(&r->shm->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&r->shm->head, memory_order_relaxed);
    return t >= h ? t - h : 0;
}
