/* Fuzzes what a NIC daemon does with a command queue a rank has scribbled:
 * the ring consumer (emu_ring_pop over arbitrary shared bytes), the
 * structural check of each command (emu_msg_validate), the target-side
 * region check (emu_region_check over an arbitrary region table) and the
 * atomic unit's arithmetic on what passed (emu_atomic_apply). Each is the
 * daemon's own code from emunic/core; only the process copies around them
 * are left out (they need a live rank).
 *
 * Input: byte 0 picks the ring's capacity (2 << (b & 7)); the next
 * REGION_BYTES overlay a region table (repeated to its 512 entries); the
 * rest overlays the whole ring after the daemon attached to it (header,
 * sequence words and slots, as a rank's wild stores would). Properties
 * checked, abort() otherwise:
 *   - pops end within one lap, never read outside the ring
 *     (ASan), and give dlen <= EMU_INLINE_MAX;
 *   - a command that validates has the sizes its op promises;
 *   - a region check that passes means [addr, addr + len) lies inside the
 *     live entry, computed here without overflow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/atomic_op.h"
#include "emunic/msg.h"
#include "emunic/region.h"
#include "emunic/ring.h"

#define NRANKS 4
#define REGION_BYTES (4 * sizeof(struct emu_region))

static struct emu_region regions[EMU_MAX_REGIONS];

/* Independent statement of what emu_region_check promises. */
static void check_region_verdict(uint32_t key, uint64_t addr, uint64_t len, uint32_t need, int st)
{
    if (st != EMU_OK)
        return;
    const struct emu_region *e = &regions[key & (EMU_MAX_REGIONS - 1)];
    uint32_t gen = key >> EMU_REGION_IDX_BITS;
    unsigned __int128 end = (unsigned __int128)addr + len;
    unsigned __int128 rend = (unsigned __int128)e->base + e->len;
    if (!(gen & 1) || e->gen != gen || (e->perm & need) != need || addr < e->base || end > rend)
        abort();
}

/* The atomic unit on a command that validated: inline operand, or a
 * private one of len bytes (as the daemon's bounce buffer holds it). */
static void apply_atomic(const struct emu_msg *m)
{
    unsigned char *target = calloc(1, m->len), *fetch = malloc(m->len), *op = NULL;
    const void *operand = m->data;
    if (!(m->flags & EMU_F_INLINE))
        operand = op = calloc(1, m->len);
    if (!target || !fetch || (!operand))
        abort();
    if (emu_atomic_apply(m->aop, m->dtype, target, operand, m->operand, m->len, fetch) != 0)
        abort(); /* validation passed, so the unit must take it */
    free(target);
    free(fetch);
    free(op);
}

static void check_command(struct emu_msg *m)
{
    if (m->dlen > EMU_INLINE_MAX)
        abort();
    m->src = 0; /* the daemon overwrites it: a rank speaks only for itself */
    int st = emu_msg_validate(m, NRANKS);
    if (st != EMU_OK)
        return;
    int inl = (m->flags & EMU_F_INLINE) != 0;
    switch (m->op) {
    case EMU_OP_WRITE:
        if (inl && (m->len != m->dlen || m->len > EMU_INLINE_MAX))
            abort();
        break;
    case EMU_OP_ATOMIC:
    case EMU_OP_FETCH_ATOMIC:
        if (m->len == 0 || m->len > EMU_ATOMIC_MAX || (inl && m->len > EMU_INLINE_MAX))
            abort();
        apply_atomic(m);
        break;
    case EMU_OP_AM:
        if (m->hlen > m->dlen)
            abort();
        break;
    default:
        break;
    }
    if (m->dst >= NRANKS)
        abort();
    for (uint32_t need = EMU_PERM_READ; need <= EMU_PERM_ALL; need++)
        check_region_verdict(m->key, m->raddr, m->len, need,
                             emu_region_check(regions, m->key, m->raddr, m->len, need));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 + REGION_BYTES)
        return 0;
    uint32_t cap = 2u << (data[0] & 7);
    data++, size--;
    for (size_t i = 0; i < EMU_MAX_REGIONS; i++)
        memcpy(&regions[i], data + (i % 4) * sizeof(struct emu_region), sizeof(struct emu_region));
    data += REGION_BYTES, size -= REGION_BYTES;

    size_t bytes = emu_ring_bytes(cap);
    void *mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!mem)
        abort();
    emu_ring_format(mem, cap);
    struct emu_ring r;
    if (emu_ring_attach(&r, mem, cap) != 0)
        abort();
    memcpy(mem, data, size < bytes ? size : bytes);

    struct emu_msg m;
    uint32_t pops = 0;
    (void)emu_ring_ready(&r);
    (void)emu_ring_depth(&r);
    while (emu_ring_pop(&r, &m) == 0) {
        if (++pops > cap) /* each slot can be full once per lap */
            abort();
        check_command(&m);
    }
    free(mem);
    return 0;
}
