/* One fixed-size message format for every queue: rank -> NIC commands,
 * NIC -> NIC wire packets and NIC -> rank completions. A single format
 * keeps forwarding a copy of one slot and lets personalities extend it
 * through EMU_OP_MODULE without touching the core. */
#ifndef EMUNIC_MSG_H
#define EMUNIC_MSG_H

#include <stddef.h>
#include <stdint.h>

#define EMU_SLOT_SIZE 256
#define EMU_MSG_HDR_SIZE 112
#define EMU_INLINE_MAX (EMU_SLOT_SIZE - EMU_MSG_HDR_SIZE) /* 144 bytes */
#define EMU_OPERAND_MAX 32 /* long double complex */

/* Operations (commands and wire requests). */
enum emu_op {
    EMU_OP_NOP = 0,      /* ordered no-op: completes after earlier ops */
    EMU_OP_WRITE,        /* initiator laddr|inline -> target raddr */
    EMU_OP_READ,         /* target raddr -> initiator laddr */
    EMU_OP_ATOMIC,       /* target raddr op= operand */
    EMU_OP_FETCH_ATOMIC, /* as ATOMIC, old value -> initiator laddr2 */
    EMU_OP_AM,           /* active message into target rank's queue */
    EMU_OP_AM_ACCEPT,    /* target rank pulls a long AM payload */
    EMU_OP_MODULE,       /* personality command, dispatched by msg.module */
    EMU_OP_ACK,          /* wire: target -> initiator NIC, op finished */
    EMU_OP_COUNT_
};

/* Completion kinds delivered to a rank (msg.op in the completion queue). */
enum emu_cq_kind {
    EMU_CQ_DONE = 0x40, /* initiator: local and/or remote completion */
    EMU_CQ_TARGET,      /* target: someone wrote/atomically updated us */
    EMU_CQ_AM,          /* target: active message arrived */
    EMU_CQ_MODULE       /* personality event */
};

/* msg.module: which personality's NIC half handles an EMU_OP_MODULE. */
enum emu_module_id {
    EMU_MOD_SELFTEST = 1, /* core's own test module */
    EMU_MOD_PORTALS = 2,
    EMU_MOD_PAMI = 3,
    EMU_MOD_DCMF = 4,
    EMU_MOD_MAX = 16
};

/* msg.flags */
#define EMU_F_LOCAL_CQ 0x01      /* tell initiator when source may be reused */
#define EMU_F_REMOTE_CQ 0x02     /* tell initiator when applied at target */
#define EMU_F_TARGET_NOTIFY 0x04 /* give target rank an EMU_CQ_TARGET entry */
#define EMU_F_UNORDERED 0x08     /* may pass earlier ops to the same target */
#define EMU_F_INLINE 0x10        /* payload travels in msg.data */
/* read/fetch-atomic: the rank library takes a small result back in the
 * completion (EMU_DONE_DATA) when the NIC cannot write its sink directly */
#define EMU_F_DATA_BACK 0x20
#define EMU_F_ALL_ 0x3f

/* Completion flags reported in msg.flags of EMU_CQ_DONE. */
#define EMU_DONE_LOCAL 0x01
#define EMU_DONE_REMOTE 0x02
/* data[0..dlen) is the result for laddr: the rank library stores it there
 * before anyone sees the entry, and clears this flag */
#define EMU_DONE_DATA 0x04

/* msg.status: 0 or a positive errno-style code. */
enum emu_status {
    EMU_OK = 0,
    EMU_E_INVAL = 22,   /* malformed command */
    EMU_E_ACCES = 13,   /* permission/bounds check failed */
    EMU_E_NOKEY = 2,    /* no such exposed region (or stale key) */
    EMU_E_FAULT = 14,   /* kernel refused to touch the memory */
    EMU_E_NOTSUP = 95,  /* op/type combination not supported */
    EMU_E_DEAD = 64,    /* peer rank or NIC gone */
    EMU_E_TRUNC = 90,   /* accepted buffer shorter than payload */
    EMU_E_LOST = 67,    /* the network lost the request or its reply (--unreliable) */
    EMU_E_NORESULT = 61 /* done at the target; the initiator that wanted the result is gone */
};

struct emu_msg {
    uint8_t op;      /* enum emu_op or enum emu_cq_kind */
    uint8_t flags;   /* EMU_F_* (commands) or EMU_DONE_* (completions) */
    uint8_t aop;     /* enum emu_aop */
    uint8_t dtype;   /* enum emu_dtype */
    uint8_t module;  /* personality module id (EMU_OP_MODULE) */
    uint8_t status;  /* enum emu_status */
    uint16_t dlen;   /* bytes valid in data[] */
    uint32_t src;    /* initiator rank */
    uint32_t dst;    /* target rank */
    uint32_t key;    /* target exposed-region key */
    uint32_t hlen;   /* AM: user header length (header is data[0..hlen)) */
    uint64_t laddr;  /* initiator address: source of write, sink of read */
    uint64_t raddr;  /* target address */
    uint64_t len;    /* payload length */
    uint64_t cookie; /* initiator's tag, echoed in completions */
    uint64_t imm;    /* immediate: AM handler id, notify value, module arg */
    uint64_t aux;    /* fetch sink address; AM long-payload ticket */
    uint64_t ext;    /* module-defined (e.g. match bits) */
    uint8_t operand[EMU_OPERAND_MAX]; /* compare value / swap mask */
    uint8_t data[EMU_INLINE_MAX];
};

_Static_assert(offsetof(struct emu_msg, data) == EMU_MSG_HDR_SIZE, "header size");
_Static_assert(sizeof(struct emu_msg) == EMU_SLOT_SIZE, "slot size");

/* Check a message's self-consistency; the NIC calls this on everything it
 * reads from shared memory before acting on it. nranks bounds src/dst.
 * Returns EMU_OK or EMU_E_INVAL. */
int emu_msg_validate(const struct emu_msg *m, uint32_t nranks);

const char *emu_op_name(unsigned op);
const char *emu_status_str(unsigned status);

#endif
