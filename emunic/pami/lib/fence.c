/* Fences. The core keeps a task's ordered operations to one destination
 * in order, and a flush completes once all before it are applied there,
 * so a fence is one flush per task written to since the last fence.
 * PAMI wants fences inside a Fence_begin/Fence_end region; emunic checks
 * the bracketing but also honours a fence outside one (it costs nothing
 * extra here), since clients differ in how strictly they follow that. */
#include <string.h>

#include "pami_lib.h"

void pamil_touch(struct pamil_context *c, uint32_t task)
{
    if (!c->touched[task]) {
        c->touched[task] = 1;
        c->touched_list[c->ntouched++] = task;
    }
}

pami_result_t PAMI_Fence_begin(pami_context_t context)
{
    struct pamil_context *c = pamil_context_of("PAMI_Fence_begin", context);
    if (!c)
        return PAMI_INVAL;
    if (c->fence_region)
        return pamil_fail(PAMI_INVAL, "PAMI_Fence_begin", "already inside a fence region (regions do not nest)");
    c->fence_region = 1;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Fence_end(pami_context_t context)
{
    struct pamil_context *c = pamil_context_of("PAMI_Fence_end", context);
    if (!c)
        return PAMI_INVAL;
    if (!c->fence_region)
        return pamil_fail(PAMI_INVAL, "PAMI_Fence_end", "not inside a fence region");
    c->fence_region = 0;
    return PAMI_SUCCESS;
}

/* A completion for op that runs at c's next advance. */
static void complete_later(struct pamil_context *c, struct pamil_op *op)
{
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.op = EMU_CQ_DONE;
    m.flags = EMU_DONE_REMOTE;
    m.cookie = (uint64_t)(uintptr_t)op;
    pamil_inbox_push(c, &m);
}

static pami_result_t fence(const char *fn, struct pamil_context *c, pami_event_function done,
                           void *cookie, const uint32_t *tasks, size_t n)
{
    struct pamil_op *op = pamil_op_new(c, PAMIL_O_FENCE);
    if (!op)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    op->remote_fn = done;
    op->cookie = cookie;
    op->pend_remote = n ? (uint32_t)n : 1;
    if (!n) {
        complete_later(c, op);
        return PAMI_SUCCESS;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = emunic_flush(tasks[i], (uint64_t)(uintptr_t)op);
        if (rc) {
            /* the flushes posted still complete; the rest fail now */
            op->pend_remote = (uint32_t)i + 1;
            op->result = pamil_post_result(fn, rc);
            complete_later(c, op);
            return (pami_result_t)op->result;
        }
    }
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Fence_all(pami_context_t context, pami_event_function done_fn, void *cookie)
{
    static const char fn[] = "PAMI_Fence_all";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    pami_result_t r = fence(fn, c, done_fn, cookie, c->touched_list, c->ntouched);
    for (size_t i = 0; i < c->ntouched; i++)
        c->touched[c->touched_list[i]] = 0;
    c->ntouched = 0;
    return r;
}

pami_result_t PAMI_Fence_endpoint(pami_context_t context, pami_event_function done_fn, void *cookie,
                                  pami_endpoint_t target)
{
    static const char fn[] = "PAMI_Fence_endpoint";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    pami_result_t r = pamil_check_ep(fn, c, target);
    if (r != PAMI_SUCCESS)
        return r;
    uint32_t task = PAMIL_EP_TASK(target);
    return fence(fn, c, done_fn, cookie, &task, 1);
}
