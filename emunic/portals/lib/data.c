/* Put, Get and the atomics: checked here against the MDs and limits, then
 * handed to this rank's NIC, which matches and executes them at the
 * target and reports back through events and counters. Payloads up to
 * EMU_INLINE_MAX travel inside the command, so the buffer is reusable on
 * return; longer sources up to PTLX_BOUNCE_MAX may go through a bounce
 * slot, and a volatile MD's up to max_volatile_size must (bounce.c). */
#include <string.h>

#include "state.h"

static bool md_iov(int i) { return (pl.md[i].md.options & PTL_IOVEC) != 0; }

/* Address of [off, off+len) of MD i (for an iovec MD: the offset into
 * its segments), or 0 with *ok = 0 if outside. */
static uint64_t md_addr(int i, ptl_size_t off, ptl_size_t len, int *ok)
{
    const ptl_md_t *md = &pl.md[i].md;
    *ok = off <= pl.md[i].total && len <= pl.md[i].total - off;
    return md_iov(i) ? off : (uint64_t)(uintptr_t)md->start + off;
}

/* Copy len bytes at off of iovec MD i into out. */
static void iov_gather(int i, ptl_size_t off, ptl_size_t len, void *out)
{
    const ptl_iovec_t *v = pl.md[i].md.start;
    char *o = out;
    for (ptl_size_t k = 0; k < pl.md[i].md.length && len; k++) {
        if (off >= v[k].iov_len) {
            off -= v[k].iov_len;
            continue;
        }
        ptl_size_t n = v[k].iov_len - off < len ? v[k].iov_len - off : len;
        memcpy(o, (const char *)v[k].iov_base + off, n);
        o += n;
        len -= n;
        off = 0;
    }
}

static void set_iov(struct emu_msg *m, int i, int at, uint8_t bit)
{
    struct ptlx_iov v = {(uint64_t)(uintptr_t)pl.md[i].md.start, pl.md[i].md.length};
    memcpy(m->operand + at, &v, sizeof v);
    m->dtype |= bit;
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
    int trig_ct; /* -1: not triggered */
    ptl_size_t threshold;
};

/* The put's payload, copied now (inline or into a bounce slot). */
static void copy_source(const struct op *o, uint64_t laddr, void *out)
{
    if (o->length && md_iov(o->put_md))
        iov_gather(o->put_md, o->put_off, o->length, out);
    else if (o->length)
        memcpy(out, (const void *)(uintptr_t)laddr, o->length);
}

/* A bounce slot for a source too long for the command. A volatile MD's
 * source up to max_volatile_size must have one (NO_SLOT if the NIC is
 * gone); any other source up to a slot's size takes one only if one is
 * free at once: a memcpy here costs less than the NIC reaching private
 * memory with process_vm_readv. NULL: the NIC reads the source in place
 * (for a volatile atomic over max_volatile_size: at its SEND event). */
#define NO_SLOT ((struct ptlx_bounce *)1)
static struct ptlx_bounce *bounce_for(const struct op *o, ptl_size_t max_volatile)
{
    if (o->length > PTLX_BOUNCE_MAX)
        return NULL;
    if (!(pl.md[o->put_md].md.options & PTL_MD_VOLATILE))
        return pl_bounce_take(0);
    if (o->length > max_volatile)
        return NULL;
    struct ptlx_bounce *b = pl_bounce_take(1);
    return b ? b : NO_SLOT;
}

static void set_trigger(struct emu_msg *m, int ct, ptl_size_t threshold)
{
    struct ptlx_trigger t = {(uint64_t)(uintptr_t)pl.ct[ct].shm, threshold};
    memcpy(m->operand + PTLX_TRIGGER_AT, &t, sizeof t);
    m->dtype |= PTLX_D_TRIGGERED;
    atomic_store(&pl.triggers_used, 1);
}

static int post(const struct op *o)
{
    int ni = (int)pl.md[o->put_md >= 0 ? o->put_md : o->get_md].ni;
    if (o->get_md >= 0 && o->put_md >= 0 && pl.md[o->get_md].ni != pl.md[o->put_md].ni)
        return PTL_ARG_INVALID;
    int64_t dst = pl_target_rank((uint32_t)ni, o->target);
    if (dst < 0 || o->pt >= PTLX_MAX_PT || o->ack > PTL_OC_ACK_REQ || o->length > pl.ni[ni].lim.max_msg_size)
        return PTL_ARG_INVALID;
    /* an ack needs somewhere to land: a full one the MD's EQ, a counting
     * one its counter */
    if (o->put_md >= 0 && ((o->ack == PTL_ACK_REQ && pl.md[o->put_md].md.eq_handle == PTL_EQ_NONE) ||
                           (o->ack == PTL_CT_ACK_REQ && pl.md[o->put_md].md.ct_handle == PTL_CT_NONE)))
        return PTL_ARG_INVALID;
    /* as the reference: a volatile MD holds only what can be copied now */
    if (o->kind == PTLX_PUT && (pl.md[o->put_md].md.options & PTL_MD_VOLATILE) &&
        o->length > pl.ni[ni].lim.max_volatile_size)
        return PTL_ARG_INVALID;
    struct ptlx_bounce *bounce = NULL;
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    pl_msg_to(&m, o->kind, (uint32_t)dst);
    m.raddr = o->remote_offset;
    m.len = o->length;
    m.imm = o->hdr_data;
    m.ext = o->match_bits;
    m.cookie = (uint64_t)(uintptr_t)o->user_ptr;
    m.key = (uint32_t)(o->put_md >= 0 ? o->put_md : 0xffff) | (uint32_t)(o->get_md >= 0 ? o->get_md : 0xffff) << 16;
    m.hlen = ptlx_pack(o->pt, (uint32_t)ni, o->ack, o->aop, o->type);
    int ok = 1;
    if (o->get_md >= 0) {
        m.aux = md_addr(o->get_md, o->get_off, o->length, &ok);
        if (ok && md_iov(o->get_md)) {
            if (o->trig_ct >= 0) /* both want operand[16..31] */
                return pl_unsupported("triggered operations", "an iovec get MD");
            set_iov(&m, o->get_md, 16, PTLX_D_GET_IOV);
        }
    }
    if (!ok)
        return PTL_ARG_INVALID;
    if (o->put_md >= 0) {
        m.laddr = md_addr(o->put_md, o->put_off, o->length, &ok);
        if (!ok)
            return PTL_ARG_INVALID;
        /* a triggered operation reads its buffer when it fires, so never
         * inline (collectives forward data that arrives in the meantime) */
        if (o->length <= EMU_INLINE_MAX && o->trig_ct < 0) {
            m.flags = EMU_F_INLINE;
            m.dlen = (uint16_t)o->length;
            copy_source(o, m.laddr, m.data);
        } else if (o->trig_ct < 0 && (bounce = bounce_for(o, pl.ni[ni].lim.max_volatile_size))) {
            if (bounce == NO_SLOT)
                return PTL_FAIL;
            copy_source(o, m.laddr, bounce->data);
            bounce->laddr = m.laddr;
            m.laddr = (uint64_t)(uintptr_t)bounce->data;
            m.dtype |= PTLX_D_BOUNCE;
        } else if (md_iov(o->put_md)) {
            set_iov(&m, o->put_md, 0, PTLX_D_PUT_IOV);
        }
    }
    if (o->operand)
        memcpy(m.operand, o->operand, emu_dtype_size((unsigned)ptlx_dtype(o->type)));
    if (o->trig_ct >= 0) {
        set_trigger(&m, o->trig_ct, o->threshold);
        if (!pl_trig_claim(o->trig_ct))
            return PTL_NO_SPACE; /* max_triggered_ops held */
    }
    if (emunic_post_module(&m) == 0)
        return PTL_OK;
    if (o->trig_ct >= 0)
        pl_trig_unclaim(o->trig_ct);
    if (bounce)
        pl_bounce_give_back(bounce);
    return PTL_FAIL;
}

static int do_PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
           ptl_hdr_data_t hdr_data, int trig_ct, ptl_size_t threshold)
{
    struct op o = {.trig_ct = trig_ct, .threshold = threshold, .kind = PTLX_PUT, .put_md = pl_md_of(md_handle), .get_md = -1,
                   .put_off = local_offset, .length = length, .ack = ack_req,
                   .target = target_id, .pt = pt_index, .match_bits = match_bits,
                   .remote_offset = remote_offset, .user_ptr = user_ptr, .hdr_data = hdr_data};
    if (o.put_md < 0)
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
           ptl_hdr_data_t hdr_data)
{
    PL_NEED_INIT;
    return do_PtlPut(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data, -1, 0);
}

static int do_PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr, int trig_ct, ptl_size_t threshold)
{
    struct op o = {.trig_ct = trig_ct, .threshold = threshold, .kind = PTLX_GET, .put_md = -1, .get_md = pl_md_of(md_handle),
                   .get_off = local_offset, .length = length, .target = target_id,
                   .pt = pt_index, .match_bits = match_bits, .remote_offset = remote_offset,
                   .user_ptr = user_ptr};
    if (o.get_md < 0)
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr)
{
    PL_NEED_INIT;
    return do_PtlGet(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr, -1, 0);
}

/* op/type/length rules shared by the three atomic calls; md is the put
 * MD (index), whose NI's limits apply */
static int atomic_ok(ptl_op_t op, ptl_datatype_t type, ptl_size_t length, int md, int fetch, int swap)
{
    if (md < 0)
        return 0;
    const ptl_ni_limits_t *lim = &pl.ni[pl.md[md].ni].lim;
    int dt = ptlx_dtype(type);
    if (dt < 0 || op >= PTL_OP_LAST || emu_aop_is_swap(op) != swap || !emu_aop_valid(op, (unsigned)dt))
        return 0;
    size_t es = emu_dtype_size((unsigned)dt);
    if (length == 0 || length % es || length > (fetch ? lim->max_fetch_atomic_size : lim->max_atomic_size))
        return 0;
    return !swap || op == PTL_SWAP || length == es; /* PTL_SWAP: any whole elements */
}

static int do_PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
              ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype, int trig_ct, ptl_size_t threshold)
{
    struct op o = {.trig_ct = trig_ct, .threshold = threshold, .kind = PTLX_ATOMIC, .put_md = pl_md_of(md_handle), .get_md = -1,
                   .put_off = local_offset, .length = length, .ack = ack_req,
                   .target = target_id, .pt = pt_index, .match_bits = match_bits,
                   .remote_offset = remote_offset, .user_ptr = user_ptr, .hdr_data = hdr_data,
                   .aop = operation, .type = datatype};
    if (!atomic_ok(operation, datatype, length, o.put_md, 0, 0))
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
              ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
    PL_NEED_INIT;
    return do_PtlAtomic(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data, operation, datatype, -1, 0);
}

static int do_PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                   ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                   ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype, int trig_ct, ptl_size_t threshold)
{
    struct op o = {.trig_ct = trig_ct, .threshold = threshold, .kind = PTLX_FETCH, .put_md = pl_md_of(put_md_handle),
                   .get_md = pl_md_of(get_md_handle), .put_off = local_put_offset,
                   .get_off = local_get_offset, .length = length, .target = target_id,
                   .pt = pt_index, .match_bits = match_bits, .remote_offset = remote_offset,
                   .user_ptr = user_ptr, .hdr_data = hdr_data, .aop = operation, .type = datatype};
    if (o.get_md < 0 || !atomic_ok(operation, datatype, length, o.put_md, 1, 0))
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                   ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                   ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
    PL_NEED_INIT;
    return do_PtlFetchAtomic(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data, operation, datatype, -1, 0);
}

static int do_PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
            ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
            const void *operand, ptl_op_t operation, ptl_datatype_t datatype, int trig_ct, ptl_size_t threshold)
{
    struct op o = {.trig_ct = trig_ct, .threshold = threshold, .kind = PTLX_SWAP, .put_md = pl_md_of(put_md_handle),
                   .get_md = pl_md_of(get_md_handle), .put_off = local_put_offset,
                   .get_off = local_get_offset, .length = length, .target = target_id,
                   .pt = pt_index, .match_bits = match_bits, .remote_offset = remote_offset,
                   .user_ptr = user_ptr, .hdr_data = hdr_data, .aop = operation,
                   .type = datatype, .operand = operand};
    if (o.get_md < 0 || !atomic_ok(operation, datatype, length, o.put_md, 1, 1) ||
        (operation != PTL_SWAP && !operand))
        return PTL_ARG_INVALID;
    return post(&o);
}

int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
            ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
            const void *operand, ptl_op_t operation, ptl_datatype_t datatype)
{
    PL_NEED_INIT;
    return do_PtlSwap(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data, operand, operation, datatype, -1, 0);
}

/* ---- triggered operations: the same operations, held by the NIC until
 * the counter trig_ct_handle reaches threshold ---- */

static int trig_index(ptl_handle_ct_t h)
{
    return pl_ct_of(h);
}

int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                    ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                    ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    PL_NEED_INIT;
    int t = trig_index(trig_ct_handle);
    if (t < 0)
        return PTL_ARG_INVALID;
    return do_PtlPut(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset,
                     user_ptr, hdr_data, t, threshold);
}

int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void *user_ptr, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold)
{
    PL_NEED_INIT;
    int t = trig_index(trig_ct_handle);
    if (t < 0)
        return PTL_ARG_INVALID;
    return do_PtlGet(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr, t,
                     threshold);
}

int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                       ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                       ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                       ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                       ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    PL_NEED_INIT;
    int t = trig_index(trig_ct_handle);
    if (t < 0)
        return PTL_ARG_INVALID;
    return do_PtlAtomic(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset,
                        user_ptr, hdr_data, operation, datatype, t, threshold);
}

int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                            ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void *user_ptr,
                            ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    PL_NEED_INIT;
    int t = trig_index(trig_ct_handle);
    if (t < 0)
        return PTL_ARG_INVALID;
    return do_PtlFetchAtomic(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id,
                             pt_index, match_bits, remote_offset, user_ptr, hdr_data, operation, datatype, t,
                             threshold);
}

int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                     ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                     ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                     ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
                     const void *operand, ptl_op_t operation, ptl_datatype_t datatype,
                     ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
    PL_NEED_INIT;
    int t = trig_index(trig_ct_handle);
    if (t < 0)
        return PTL_ARG_INVALID;
    int dt = ptlx_dtype(datatype);
    if (operand && dt >= 0 && emu_dtype_size((unsigned)dt) > PTLX_TRIGGER_AT)
        return pl_unsupported("PtlTriggeredSwap", "compare values over 16 bytes (long double complex)");
    return do_PtlSwap(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id, pt_index,
                      match_bits, remote_offset, user_ptr, hdr_data, operand, operation, datatype, t, threshold);
}
