/* The node arenas of the daemons' object (emunic/shared_heap.h): a small
 * size-class allocator whose whole state lives in the arena, as offsets,
 * so any daemon holding the node's lock may allocate and free there. */
#include "emunic/shared_heap.h"

#include "emunic/job.h"
#include "emunic/msg.h"

#include <stdatomic.h>
#include <string.h>

/* classes: 16-byte steps up to 1 KiB, then powers of two */
#define SMALL_MAX 1024u
#define NCLASS (SMALL_MAX / 16 + 40)
#define BLOCK_HDR 16u

enum { UNSET = 0, HOME = 1, AWAY = 2 };

struct arena_hdr {
    _Atomic uint32_t ready; /* HOME or AWAY once its daemon formatted it */
    uint32_t node;
    uint64_t size, used; /* bump pointer, from the arena's start */
    uint64_t free_[NCLASS]; /* offsets of free blocks, 0: none */
    _Atomic uint64_t root[EMU_MOD_MAX];
};

/* each block: its class, then the caller's bytes */
struct block {
    uint32_t cls, magic;
    uint64_t next; /* while free */
};
#define MAGIC 0x48504853u

static const struct emu_job *job;
static int home;

static char *arena(uint32_t node) { return job ? emu_job_arena(job, node) : NULL; }

static uint32_t class_of(size_t n, uint64_t *bytes)
{
    if (n <= SMALL_MAX) {
        uint32_t c = (uint32_t)((n + 15) / 16);
        *bytes = (uint64_t)(c ? c : 1) * 16;
        return c ? c - 1 : 0;
    }
    uint32_t c = SMALL_MAX / 16;
    uint64_t b = SMALL_MAX * 2;
    while (b < n) {
        b *= 2;
        c++;
    }
    *bytes = b;
    return c;
}

/* Called by nic_open for our own node: format our arena. */
void shared_heap_open(const struct emu_job *j, uint32_t node)
{
    job = j;
    home = j->wire_home;
    struct arena_hdr *h = (struct arena_hdr *)arena(node);
    if (!h)
        return;
    memset(h, 0, sizeof *h);
    h->node = node;
    h->size = j->geo.arena_bytes;
    h->used = (sizeof *h + 63) & ~(uint64_t)63;
    atomic_store_explicit(&h->ready, home ? HOME : AWAY, memory_order_release);
}

static void *alloc_in(char *base, size_t n)
{
    struct arena_hdr *h = (struct arena_hdr *)base;
    if (!h || atomic_load_explicit(&h->ready, memory_order_acquire) == UNSET || n > h->size)
        return NULL;
    uint64_t bytes;
    uint32_t c = class_of(n, &bytes);
    if (c >= NCLASS)
        return NULL;
    struct block *b;
    if (h->free_[c]) {
        b = (struct block *)(base + h->free_[c]);
        h->free_[c] = b->next;
    } else {
        if (h->used + BLOCK_HDR + bytes > h->size)
            return NULL;
        b = (struct block *)(base + h->used);
        h->used += BLOCK_HDR + bytes;
    }
    b->cls = c;
    b->magic = MAGIC;
    b->next = 0;
    memset(b + 1, 0, n);
    return b + 1;
}

void *emu_shared_alloc(uint32_t node, size_t n) { return alloc_in(arena(node), n); }

/* the arena p lies in */
static char *base_of(const void *p)
{
    char *first = arena(0);
    if (!first || !p)
        return NULL;
    uint64_t off = (uint64_t)((const char *)p - first), per = job->geo.arena_bytes;
    if ((const char *)p < first || off >= per * job->geo.nnodes)
        return NULL;
    return first + off / per * per;
}

void *emu_shared_alloc_near(const void *p, size_t n) { return alloc_in(base_of(p), n); }

void emu_shared_free(void *p)
{
    char *base = base_of(p);
    if (!base)
        return;
    struct arena_hdr *h = (struct arena_hdr *)base;
    struct block *b = (struct block *)p - 1;
    if (b->magic != MAGIC || b->cls >= NCLASS)
        return; /* not ours, or freed twice: leak it rather than corrupt the lists */
    b->magic = 0;
    b->next = h->free_[b->cls];
    h->free_[b->cls] = (uint64_t)((char *)b - base);
}

void emu_shared_set_root(uint32_t node, uint8_t module, void *state)
{
    struct arena_hdr *h = (struct arena_hdr *)arena(node);
    if (h && module < EMU_MOD_MAX)
        atomic_store_explicit(&h->root[module], state ? (uint64_t)((char *)state - (char *)h) : 0,
                              memory_order_release);
}

void *emu_shared_root(uint32_t node, uint8_t module)
{
    struct arena_hdr *h = (struct arena_hdr *)arena(node);
    if (!h || !home || module >= EMU_MOD_MAX || atomic_load_explicit(&h->ready, memory_order_acquire) != HOME)
        return NULL;
    uint64_t off = atomic_load_explicit(&h->root[module], memory_order_acquire);
    return off && off < h->size ? (char *)h + off : NULL;
}
