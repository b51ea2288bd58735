/* What the Portals rank half (lib/) and NIC half (nic/) say to each other,
 * and the objects they share in the rank's heap.
 *
 * Control commands (NI, PT, MD, LE) go to the rank's own NIC and complete
 * synchronously, so an LE is linked when PtlLEAppend returns. Data
 * operations go rank -> own NIC -> target NIC -> own NIC. Event queues and
 * counters live in the rank's registered heap and are written only by the
 * rank's own NIC (the rank reads EQs and may set/increment CTs with
 * atomics), as a real NIC DMA-writes events into host memory. */
#ifndef EMUNIC_PORTALS_PROTO_H
#define EMUNIC_PORTALS_PROTO_H

#include <stdatomic.h>
#include <stdint.h>

#include "emunic/msg.h"
#include "portals4.h"

#define PTLX_MAX_NI 4     /* matching x physical */
#define PTLX_MAX_PT 64    /* max_pt_index 63 */
#define PTLX_MAX_MD 4096  /* per NI */
#define PTLX_MAX_LE 65536 /* per NI */
#define PTLX_MAX_IOV 1024 /* segments of an iovec MD or list entry */
#define PTLX_MAX_MSG (4ull << 30) /* max_msg_size: bytes of one put, get or reply */
#define PTLX_MAX_TRIG 65536 /* max_triggered_ops: held per NI */
#define PTLX_MAX_UH 65536   /* max_unexpected_headers: kept per NI */
/* PTLX_NI_STATUS of this register (beyond PtlNIStatus's): the NIC writes
 * at laddr a bitmap of PTLX_MAX_LE bits, the entry ids still linked, so
 * the rank can reuse the slots of entries the NIC unlinked by itself */
#define PTLX_SR_LINKED PTL_SR_LAST

/* msg.dtype bits of a data operation */
#define PTLX_D_TRIGGERED 0x1 /* trigger in operand[16..31] */
#define PTLX_D_PUT_IOV 0x2   /* source is an iovec: struct ptlx_iov in operand[0..15] */
#define PTLX_D_GET_IOV 0x4   /* sink is an iovec: struct ptlx_iov in operand[16..31] */
#define PTLX_D_BOUNCE 0x8    /* source copied to a bounce slot: msg.laddr is its data */

/* max_volatile_size. A volatile MD's buffer is reusable when the call
 * returns: up to EMU_INLINE_MAX bytes ride in the command, longer ones
 * (up to this) are copied into a bounce slot in the rank's heap, and the
 * NIC marks the slot free once the target has read it. */
#define PTLX_MAX_VOLATILE 512
/* A slot's size: any source up to this may take one (cheaper than the
 * NIC's process_vm_readv of private memory), a volatile one up to
 * PTLX_MAX_VOLATILE must. */
#define PTLX_BOUNCE_MAX 4096
struct ptlx_bounce {
    _Atomic uint32_t busy; /* set by the rank, cleared by its NIC */
    uint32_t pad0;
    uint64_t laddr; /* the source as the MD names it, for the events */
    uint8_t pad[48];
    uint8_t data[PTLX_BOUNCE_MAX];
};

struct ptlx_iov {
    uint64_t addr;  /* the ptl_iovec_t array in the initiator */
    uint64_t count;
};

/* msg.aop of an EMU_OP_MODULE message for EMU_MOD_PORTALS */
enum ptlx_kind {
    PTLX_NI_INIT = 1, /* len: max_list_size, aux: max_unexpected_headers */
    PTLX_NI_FINI,
    PTLX_PT_ALLOC,
    PTLX_PT_FREE,
    PTLX_PT_ENABLE,
    PTLX_PT_DISABLE,
    PTLX_MD_BIND,
    PTLX_MD_RELEASE,
    PTLX_LE_APPEND,
    PTLX_LE_UNLINK,
    PTLX_NI_STATUS,
    PTLX_NI_SETMAP, /* laddr: job rank -> logical rank table in the heap, len: entries */
    PTLX_SEARCH,    /* PtlLESearch/PtlMESearch: key = search op */
    /* data operations */
    PTLX_PUT,
    PTLX_GET,
    PTLX_ATOMIC,
    PTLX_FETCH,
    PTLX_SWAP,
    /* target NIC -> initiator NIC */
    PTLX_RESULT,
    /* triggered counter operations, counter changes, cancellation */
    PTLX_TRIG_CT,
    PTLX_CT_POKE,
    PTLX_TRIG_CANCEL,
    PTLX_KIND_COUNT_
};

/* Field use, data operations (rank -> NIC):
 *   dst     target rank          laddr  source address (put data/operand)
 *   raddr   remote_offset        len    length
 *   aux     sink address (get, fetch, swap)
 *   imm     hdr_data             ext    match_bits
 *   cookie  user_ptr (replaced by a token on the wire)
 *   key     put MD index | get MD index << 16
 *   hlen    packed: pt | ni << 8 | ack_req << 12 | ptl op << 16 | ptl type << 24
 *   operand compare value / mask (swap)
 *   data    payload up to EMU_INLINE_MAX (EMU_F_INLINE)
 * Result (target NIC -> initiator NIC): aop PTLX_RESULT, dtype = the
 * original kind, status = ni_fail_type, len = mlength, raddr =
 * remote_offset, cookie = token, src = target, dst = initiator. */
static inline uint32_t ptlx_pack(uint32_t pt, uint32_t ni, uint32_t ack, uint32_t op, uint32_t type)
{
    return (pt & 0xff) | (ni & 0xf) << 8 | (ack & 0xf) << 12 | (op & 0xff) << 16 | (type & 0xff) << 24;
}
static inline uint32_t ptlx_pt(uint32_t h) { return h & 0xff; }
static inline uint32_t ptlx_ni(uint32_t h) { return (h >> 8) & 0xf; }
static inline uint32_t ptlx_ack(uint32_t h) { return (h >> 12) & 0xf; }
static inline uint32_t ptlx_op(uint32_t h) { return (h >> 16) & 0xff; }
static inline uint32_t ptlx_type(uint32_t h) { return (h >> 24) & 0xff; }

/* NI index from NIInit options: one NI of each kind per process. */
static inline uint32_t ptlx_ni_index(unsigned options)
{
    return ((options & PTL_NI_MATCHING) ? 1u : 0u) | ((options & PTL_NI_PHYSICAL) ? 2u : 0u);
}

/* A triggered command (msg.dtype = 1 on a data operation or
 * PTLX_TRIG_CT) waits at the NIC until the counter at ct reaches
 * threshold; the trigger rides in msg.operand[16..31], so a triggered swap
 * carries at most a 16-byte compare value. */
struct ptlx_trigger {
    uint64_t ct;
    uint64_t threshold;
};
#define PTLX_TRIGGER_AT 16

/* The matching part of an ME, in msg.operand of PTLX_LE_APPEND (msg.dtype
 * = 1 marks an ME). */
struct ptlx_me_match {
    uint64_t match_bits;
    uint64_t ignore_bits;
    uint64_t min_free;
    ptl_process_t match_id;
};
_Static_assert(sizeof(struct ptlx_me_match) == EMU_OPERAND_MAX, "fits msg.operand");

/* Shared objects in the rank's heap. */
struct ptlx_ct_shm {
    _Atomic uint64_t success;
    _Atomic uint64_t failure;
    /* triggered operations on this counter the NIC has fired or dropped
     * (cancel, free): with its own count of those posted, the rank knows
     * how many are held without asking (max_triggered_ops) */
    _Atomic uint64_t trig_done;
};

struct ptlx_eq_shm {
    _Atomic uint64_t head; /* next event the rank takes */
    _Atomic uint64_t tail; /* next slot the NIC fills */
    uint64_t count;        /* slots */
    _Atomic uint32_t dropped; /* set by the NIC, cleared by the rank */
    uint32_t pad_;
    ptl_event_t ev[];
};

/* Portals datatype -> emunic core datatype (the orders differ). */
static inline int ptlx_dtype(unsigned t)
{
    static const signed char map[PTL_DATATYPE_LAST] = {
        [PTL_INT8_T] = 0 /* EMU_INT8 */, [PTL_UINT8_T] = 1, [PTL_INT16_T] = 2,
        [PTL_UINT16_T] = 3, [PTL_INT32_T] = 4, [PTL_UINT32_T] = 5,
        [PTL_FLOAT] = 8, [PTL_INT64_T] = 6, [PTL_UINT64_T] = 7,
        [PTL_DOUBLE] = 9, [PTL_FLOAT_COMPLEX] = 11, [PTL_DOUBLE_COMPLEX] = 12,
        [PTL_LONG_DOUBLE] = 10, [PTL_LONG_DOUBLE_COMPLEX] = 13,
    };
    return t < PTL_DATATYPE_LAST ? map[t] : -1;
}

#endif
