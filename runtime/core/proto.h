/* The client <-> data server protocol ([XT5-ARMCI]). A client owns `bufs`
 * buffers of buf_size at each server (its credits) and writes a request
 * into one with a notifying put; the server executes requests in arrival
 * order and acknowledges with a short message whose seq_done is
 * cumulative, so one ack may return several credits (coalescing).
 *
 * Flow intimation: the first message of a multi-buffer transfer carries
 * the bytes still to come. If the server has spare buffers it grants some
 * in that message's ack; the client sends the following messages into
 * them without waiting, and the server answers the whole grant with one
 * ack. Gets work the same way in reverse: the server packs into the slot
 * and the granted spares, and the client pulls from there. */
#ifndef ARMCII_PROTO_H
#define ARMCII_PROTO_H
#include <stdint.h>
#include "kernels.h"

enum {
    RQ_PUTS = 1, /* unpack payload into the target section */
    RQ_ACC,      /* accumulate payload into the target section */
    RQ_GETS,     /* pack the target section into the reply buffers */
    RQ_RMW,
    RQ_LOCK,
    RQ_UNLOCK,
    RQ_FLUSH,    /* answer at once: everything before is done */
};

#define RQF_SPARE 0x1     /* this message sits in a granted spare buffer */
#define RQF_GRANT_END 0x2 /* the last message of a grant: ack the grant */
#define RQF_REPLY 0x4     /* ack this message now (the client waits) */

struct armcii_rq {
    uint32_t seq;
    uint8_t kind, acc_type, levels, flags;
    int32_t target;    /* world rank whose memory is touched */
    int32_t spare;     /* RQF_SPARE: which spare */
    uint64_t dst;      /* section base at the target */
    int32_t count[ARMCII_MAX_LEVELS + 1];
    int32_t pad;
    int64_t stride[ARMCII_MAX_LEVELS];
    uint64_t off, plen;   /* byte range [off, off+plen) of the packed section */
    uint64_t intimate;    /* bytes of this transfer still to come after it */
    uint64_t scale[2];
    int64_t value;        /* RMW operand, mutex number */
    int32_t rmw_op, pad2;
};

#define ACK_KIND 0x41
#define RELEASE_KIND 0x52 /* short message: the client has pulled its get spares */
#define ACKF_GRANT 0x1    /* grant_first/grant_n are spare buffers for the client */
#define ACKF_RELEASE 0x2  /* the grant is over: the spares are free again */

struct armcii_ack {
    uint8_t kind, flags;
    uint16_t grant_n;
    uint32_t seq_done;    /* every request up to this one is done */
    uint32_t grant_first;
    uint32_t reply_seq;   /* the request whose reply this carries, or 0 */
    int64_t value;        /* RMW: the old value */
    uint64_t data_len;    /* GETS: bytes packed into the slot */
    uint64_t spare_len;   /* GETS: bytes packed into the granted spares */
};

#endif
