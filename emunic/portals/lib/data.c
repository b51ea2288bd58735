/* Put, Get and the atomics: checked here against the MDs and limits, then
 * handed to this rank's NIC, which matches and executes them at the
 * target and reports back through events and counters. Payloads up to
 * max_volatile_size travel inside the command, so the buffer is reusable
 * on return. */
#include <string.h>

#include "state.h"

/* Address of [off, off+len) of MD i, or 0 with *ok = 0 if outside. */
static uint64_t md_addr(int i, ptl_size_t off, ptl_size_t len, int *ok)
{
    const ptl_md_t *md = &pl.md[i].md;
    *ok = off <= md->length && len <= md->length - off;
    return (uint64_t)(uintptr_t)md->start + off;
}

struct op {
    uint32_t kind;
    int put_md, get_md; /* -1 when the call has none */
    ptl_size_t put_off, get_off, length;
    ptl_ack_req_t ack;
    ptl_process_t target;
    ptl_pt_index_t pt;
    ptl_match_bits_t match_bits;
    ptl_size_t remote_offset;
    void *user_ptr;
    ptl_hdr_data_t hdr_data;
    unsigned aop, type;
    const void *operand;
};

static int post(const struct op *o)
{
    int ni = (int)pl.md[o->put_md >= 0 ? o->put_md : o->get_md].ni;
    if (o->get_md >= 0 && o->put_md >= 0 && pl.md[o->get_md].ni != pl.md[o->put_md].ni)
        return PTL_ARG_INVALID;
    int64_t dst = pl_target_rank((uint32_t)ni, o->target);
    if (dst < 0 || o->pt >= PTLX_MAX_PT || o->ack > PTL_OC_ACK_REQ)
        return PTL_ARG_INVALID;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.op = EMU_OP_MODULE;
    m.module = EMU_MOD_PORTALS;
    m.aop = (uint8_t)o->kind;
    m.dst = (uint32_t)dst;
    m.raddr = o->remote_offset;
    m.len = o->length;
    m.imm = o->hdr_data;
    m.ext = o->match_bits;
    m.cookie = (uint64_t)(uintptr_t)o->user_ptr;
    m.key = (uint32_t)(o->put_md >= 0 ? o->put_md : 0xffff) | (uint32_t)(o->get_md >= 0 ? o->get_md : 0xffff) << 16;
    m.hlen = ptlx_pack(o->pt, (uint32_t)ni, o->ack, o->aop, o->type);
    int ok = 1;
    if (o->get_md >= 0)
        m.aux = md_addr(o->get_md, o->get_off, o->length, &ok);
    if (!ok)
        return PTL_ARG_INVALID;
    if (o->put_md >= 0) {
        m.laddr = md_addr(o->put_md, o->put_off, o->length, &ok);
        if (!ok)
            return PTL_ARG_INVALID;
        if (o->length <= EMU_INLINE_MAX) {
            m.flags = EMU_F_INLINE;
            m.dlen = (uint16_t)o->length;
            if (o->length)
                memcpy(m.data, (const void *)(uintptr_t)m.laddr, o->length);
        }
    }
    if (o->operand)
        memcpy(m.operand, o->operand, emu_dtype_size((unsigned)ptlx_dtype(o->type)));
    return emunic_post_module(&m) == 0 ? PTL_OK : PTL_FAIL;
}

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
           ptl_hdr_data_t hdr_data)
{
    struct op o = {.kind = PTLX_PUT, .put_md = pl_md_of(md_handle), .get_md = -1,
                   .put_off = local_offset, .length = length, .ack = ack_req,
                   .target = target_id, .pt = pt_index, .match_bits = match_bits,
                   .remote_offset = remote_offset, .user_ptr = user_ptr, .hdr_data = hdr_data};
    if (o.put_md < 0)
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr)
{
    struct op o = {.kind = PTLX_GET, .put_md = -1, .get_md = pl_md_of(md_handle),
                   .get_off = local_offset, .length = length, .target = target_id,
                   .pt = pt_index, .match_bits = match_bits, .remote_offset = remote_offset,
                   .user_ptr = user_ptr};
    if (o.get_md < 0)
        return PTL_ARG_INVALID;
    return post(&o);
}

/* op/type/length rules shared by the three atomic calls */
static int atomic_ok(ptl_op_t op, ptl_datatype_t type, ptl_size_t length, int swap)
{
    int dt = ptlx_dtype(type);
    if (dt < 0 || op >= PTL_OP_LAST || emu_aop_is_swap(op) != swap || !emu_aop_valid(op, (unsigned)dt))
        return 0;
    size_t es = emu_dtype_size((unsigned)dt);
    if (length == 0 || length % es || length > EMU_ATOMIC_MAX)
        return 0;
    return !swap || length == es;
}

int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
              ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
    struct op o = {.kind = PTLX_ATOMIC, .put_md = pl_md_of(md_handle), .get_md = -1,
                   .put_off = local_offset, .length = length, .ack = ack_req,
                   .target = target_id, .pt = pt_index, .match_bits = match_bits,
                   .remote_offset = remote_offset, .user_ptr = user_ptr, .hdr_data = hdr_data,
                   .aop = operation, .type = datatype};
    if (o.put_md < 0 || !atomic_ok(operation, datatype, length, 0))
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                   ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                   ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
    struct op o = {.kind = PTLX_FETCH, .put_md = pl_md_of(put_md_handle),
                   .get_md = pl_md_of(get_md_handle), .put_off = local_put_offset,
                   .get_off = local_get_offset, .length = length, .target = target_id,
                   .pt = pt_index, .match_bits = match_bits, .remote_offset = remote_offset,
                   .user_ptr = user_ptr, .hdr_data = hdr_data, .aop = operation, .type = datatype};
    if (o.put_md < 0 || o.get_md < 0 || !atomic_ok(operation, datatype, length, 0))
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
            ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
            const void *operand, ptl_op_t operation, ptl_datatype_t datatype)
{
    struct op o = {.kind = PTLX_SWAP, .put_md = pl_md_of(put_md_handle),
                   .get_md = pl_md_of(get_md_handle), .put_off = local_put_offset,
                   .get_off = local_get_offset, .length = length, .target = target_id,
                   .pt = pt_index, .match_bits = match_bits, .remote_offset = remote_offset,
                   .user_ptr = user_ptr, .hdr_data = hdr_data, .aop = operation,
                   .type = datatype, .operand = operand};
    if (o.put_md < 0 || o.get_md < 0 || !atomic_ok(operation, datatype, length, 1) ||
        (operation != PTL_SWAP && !operand))
        return PTL_ARG_INVALID;
    return post(&o);
}
