/* Endpoints: a task and one of its contexts, in BG/Q's encoding
 * (offset << 23 | task), so endpoints compare and hash as integers. */
#include "pami_lib.h"

pami_endpoint_t PAMI_ENDPOINT_NULL = 0;

pami_result_t PAMI_Endpoint_create(pami_client_t client, pami_task_t task, size_t offset,
                                   pami_endpoint_t *endpoint)
{
    static const char fn[] = "PAMI_Endpoint_create";
    struct pamil_client *cl = pamil_client_of(fn, client);
    if (!cl)
        return PAMI_INVAL;
    if (!endpoint)
        return pamil_fail(PAMI_INVAL, fn, "endpoint is NULL");
    if (task >= cl->size)
        return pamil_fail(PAMI_INVAL, fn, "task %u out of range (%u tasks)", task, cl->size);
    if (offset >= PAMIL_MAX_CONTEXTS)
        return pamil_fail(PAMI_INVAL, fn, "context offset %zu out of range (< %d)", offset, PAMIL_MAX_CONTEXTS);
    *endpoint = PAMIL_EP(task, offset);
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Endpoint_query(pami_endpoint_t endpoint, pami_task_t *task, size_t *offset)
{
    if (!task || !offset)
        return pamil_fail(PAMI_INVAL, "PAMI_Endpoint_query", "task or offset is NULL");
    *task = PAMIL_EP_TASK(endpoint);
    *offset = PAMIL_EP_OFF(endpoint);
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Purge(pami_context_t context, pami_endpoint_t *dest, size_t count)
{
    (void)context, (void)dest, (void)count;
    return pamil_fail(PAMI_UNIMPL, "PAMI_Purge", "dynamic tasks are not emulated");
}

pami_result_t PAMI_Resume(pami_context_t context, pami_endpoint_t *dest, size_t count)
{
    (void)context, (void)dest, (void)count;
    return pamil_fail(PAMI_UNIMPL, "PAMI_Resume", "dynamic tasks are not emulated");
}
