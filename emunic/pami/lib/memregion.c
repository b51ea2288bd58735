/* Memory regions. Each is a region of its own in the NIC's table, so
 * the NIC checks every access against its bounds and a destroyed region
 * stops working at once. When the table is full (512 per task) a region
 * falls back to the task's whole-address-space key: it keeps working with
 * bounds checked at the origin only, since BG/Q has no such limit. */
#include <errno.h>
#include <string.h>

#include "pami_lib.h"
#include "memregion.h"

const struct pamil_mr *pamil_mr_of(const char *fn, const char *side, const pami_memregion_t *mr)
{
    const struct pamil_mr *m = (const struct pamil_mr *)mr;
    if (!m) {
        pamil_fail(PAMI_INVAL, fn, "the %s memory region is NULL", side);
        return NULL;
    }
    if (m->magic != PAMIL_MR_MAGIC) {
        pamil_fail(PAMI_INVAL, fn, "the %s memory region was never created (or was destroyed)", side);
        return NULL;
    }
    return m;
}

int pamil_mr_range(const char *fn, const char *side, const struct pamil_mr *mr, size_t offset, size_t len)
{
    if (offset > mr->bytes || len > mr->bytes - offset) {
        pamil_fail(PAMI_INVAL, fn, "%s range [%zu, %zu) is outside the %llu-byte memory region", side,
                   offset, offset + len, (unsigned long long)mr->bytes);
        return -1;
    }
    return 0;
}

pami_result_t PAMI_Memregion_create(pami_context_t context, void *address, size_t bytes_in,
                                    size_t *bytes_out, pami_memregion_t *memregion)
{
    static const char fn[] = "PAMI_Memregion_create";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (!memregion || !bytes_out)
        return pamil_fail(PAMI_INVAL, fn, "memregion or bytes_out is NULL");
    if (!address && bytes_in)
        return pamil_fail(PAMI_INVAL, fn, "address is NULL");
    if ((uintptr_t)address + bytes_in < (uintptr_t)address)
        return pamil_fail(PAMI_INVAL, fn, "%p + %zu wraps around the address space", address, bytes_in);
    struct pamil_mr m = {
        .magic = PAMIL_MR_MAGIC, .task = c->client->task,
        .base = (uint64_t)(uintptr_t)address, .bytes = bytes_in,
    };
    int64_t key = emunic_expose(address, bytes_in, EMU_PERM_ALL);
    if (key > 0) {
        m.key = (uint32_t)key;
        m.own_key = 1;
    } else if (key == -ENOSPC) {
        m.key = c->client->space_key;
    } else if (key == -ENOMEM) {
        return pamil_fail(PAMI_ENOMEM, fn, "registering %p+%zu failed (the fault plan's regfail)", address, bytes_in);
    } else {
        return pamil_fail(PAMI_ERROR, fn, "the NIC cannot expose %p+%zu", address, bytes_in);
    }
    memset(memregion, 0, sizeof *memregion);
    memcpy(memregion, &m, sizeof m);
    *bytes_out = bytes_in;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Memregion_destroy(pami_context_t context, pami_memregion_t *memregion)
{
    static const char fn[] = "PAMI_Memregion_destroy";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    struct pamil_mr *m = (struct pamil_mr *)memregion;
    if (!pamil_mr_of(fn, "given", memregion))
        return PAMI_INVAL;
    if (m->task != c->client->task)
        return pamil_fail(PAMI_INVAL, fn, "the region belongs to task %u; only its owner may destroy it", m->task);
    if (m->own_key && emunic_unexpose(m->key) != 0)
        return pamil_fail(PAMI_INVAL, fn, "the region was destroyed already");
    m->magic = 0;
    return PAMI_SUCCESS;
}
