/* PAMI_Rmw: one module command that the target node's NIC executes whole
 * (nic/module.c), so every pami_atomic_t is indivisible, including the
 * compare-and-modify forms; the old value comes back in the ack. */
#include <string.h>

#include "pami_lib.h"

#define OP_FETCH 1u
#define OP_COMPARE 2u
#define OP_MODIFY(op) (((op) >> 2) & 7u)

pami_result_t PAMI_Rmw(pami_context_t context, pami_rmw_t *p)
{
    static const char fn[] = "PAMI_Rmw";
    struct pamil_context *c = pamil_context_of(fn, context);
    if (!c)
        return PAMI_INVAL;
    if (!p)
        return pamil_fail(PAMI_INVAL, fn, "parameters is NULL");
    pami_result_t r = pamil_check_ep(fn, c, p->dest);
    if (r != PAMI_SUCCESS)
        return r;
    unsigned op = (unsigned)p->operation;
    if (op > 0x17 || OP_MODIFY(op) > 5 || !(op & OP_FETCH || OP_MODIFY(op)))
        return pamil_fail(PAMI_INVAL, fn, "operation 0x%x is not a pami_atomic_t that fetches or modifies", op);
    int dtype = pamil_type_rmw_dtype(p->type);
    if (dtype < 0)
        return pamil_fail(PAMI_INVAL, fn, "the type must be PAMI_TYPE_[UN]SIGNED_INT, _LONG or _LONG_LONG");
    size_t len = emu_dtype_size((unsigned)dtype);
    if (!p->remote)
        return pamil_fail(PAMI_INVAL, fn, "remote is NULL");
    if ((op & OP_FETCH) && !p->local)
        return pamil_fail(PAMI_INVAL, fn, "a fetching operation needs local");
    if (OP_MODIFY(op) && !p->value)
        return pamil_fail(PAMI_INVAL, fn, "a modifying operation needs value");
    if ((op & OP_COMPARE) && !p->test)
        return pamil_fail(PAMI_INVAL, fn, "a comparing operation needs test");
    uint32_t task = PAMIL_EP_TASK(p->dest);
    uint32_t key = pamil_space_key(fn, task);
    if (!key)
        return PAMI_ERROR;
    struct pamil_op *o = pamil_op_new(c, PAMIL_O_RMW);
    if (!o)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    o->local_fn = p->done_fn;
    o->cookie = p->cookie;
    o->pend_local = 1;
    o->fetch = (op & OP_FETCH) ? p->local : NULL;
    o->fetch_len = len;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.op = EMU_OP_MODULE;
    m.module = EMU_MOD_PAMI;
    m.aop = PAMIX_RMW;
    m.dtype = (uint8_t)dtype;
    m.flags = EMU_F_LOCAL_CQ;
    m.dst = task;
    m.key = key;
    m.raddr = (uint64_t)(uintptr_t)p->remote;
    m.len = len;
    m.ext = op;
    m.cookie = (uint64_t)(uintptr_t)o;
    if (OP_MODIFY(op))
        memcpy(m.operand, p->value, len);
    if (op & OP_COMPARE)
        memcpy(m.operand + 8, p->test, len);
    pamil_touch(c, task);
    int rc = emunic_post_module(&m);
    if (rc) {
        pamil_op_free(o);
        return pamil_post_result(fn, rc);
    }
    return PAMI_SUCCESS;
}
