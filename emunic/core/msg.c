/* Structural validation of messages read from shared memory. Semantic
 * checks (keys, bounds, permissions) happen at the target NIC. */
#include "emunic/msg.h"

#include "emunic/atomic_op.h"

static int check_atomic(const struct emu_msg *m)
{
    if (!emu_aop_valid(m->aop, m->dtype))
        return EMU_E_INVAL;
    size_t es = emu_dtype_size(m->dtype);
    if (m->len == 0 || m->len % es != 0 || m->len > EMU_ATOMIC_MAX)
        return EMU_E_INVAL;
    if (emu_aop_is_swap(m->aop) && m->len != es)
        return EMU_E_INVAL;
    return EMU_OK;
}

int emu_msg_validate(const struct emu_msg *m, uint32_t nranks)
{
    if (m->op >= EMU_OP_COUNT_)
        return EMU_E_INVAL;
    if (m->src >= nranks || m->dst >= nranks || m->dlen > EMU_INLINE_MAX)
        return EMU_E_INVAL;
    int inl = (m->flags & EMU_F_INLINE) != 0;
    if (m->op != EMU_OP_ACK && (m->flags & ~EMU_F_ALL_))
        return EMU_E_INVAL;
    switch (m->op) {
    case EMU_OP_NOP:
        return (!inl && m->dlen == 0) ? EMU_OK : EMU_E_INVAL;
    case EMU_OP_WRITE:
        return (inl ? m->dlen == m->len : m->dlen == 0) ? EMU_OK : EMU_E_INVAL;
    case EMU_OP_READ:
        return (!inl && m->dlen == 0) ? EMU_OK : EMU_E_INVAL;
    case EMU_OP_ATOMIC:
    case EMU_OP_FETCH_ATOMIC:
        if (inl ? m->dlen != m->len : m->dlen != 0)
            return EMU_E_INVAL;
        return check_atomic(m);
    case EMU_OP_AM:
        if (m->hlen > m->dlen)
            return EMU_E_INVAL;
        return (inl ? m->dlen == m->hlen + m->len : m->dlen == m->hlen)
                   ? EMU_OK : EMU_E_INVAL;
    case EMU_OP_AM_ACCEPT:
        return (!inl && m->dlen == 0) ? EMU_OK : EMU_E_INVAL;
    case EMU_OP_MODULE:
        return m->module != 0 ? EMU_OK : EMU_E_INVAL;
    case EMU_OP_ACK:
        if (m->flags & ~(EMU_DONE_LOCAL | EMU_DONE_REMOTE | EMU_DONE_DATA))
            return EMU_E_INVAL;
        /* a result carried back is all of it, and there is a completion to carry it */
        if ((m->flags & EMU_DONE_DATA) &&
            (m->dlen != m->len || !(m->flags & (EMU_DONE_LOCAL | EMU_DONE_REMOTE))))
            return EMU_E_INVAL;
        return EMU_OK;
    default:
        return EMU_E_INVAL;
    }
}

const char *emu_op_name(unsigned op)
{
    static const char *const names[EMU_OP_COUNT_] = {
        "nop", "write", "read", "atomic", "fetch-atomic", "am",
        "am-accept", "module", "ack",
    };
    return op < EMU_OP_COUNT_ ? names[op] : "?";
}

const char *emu_status_str(unsigned status)
{
    switch (status) {
    case EMU_OK: return "ok";
    case EMU_E_INVAL: return "malformed command";
    case EMU_E_ACCES: return "access outside the exposed region or not permitted";
    case EMU_E_NOKEY: return "no such exposed region";
    case EMU_E_FAULT: return "the kernel refused to access the memory";
    case EMU_E_NOTSUP: return "not supported";
    case EMU_E_DEAD: return "peer gone";
    case EMU_E_TRUNC: return "payload truncated";
    case EMU_E_LOST: return "lost by the network";
    case EMU_E_NORESULT: return "done, but the initiator is gone";
    default: return "unknown status";
    }
}
