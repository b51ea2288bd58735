/* Two-sided messages between world ranks, the transport of armci_msg_* and
 * of the collectives. Small messages go eagerly in one device send; larger
 * ones send a ready-to-send header and the receiver pulls the bytes with a
 * device get, then tells the sender (rendezvous). Per-peer credits bound
 * the short messages in flight to a receiver, so no receive buffer is ever
 * overrun. Messages between one pair with one tag match in order. */
#ifndef ARMCII_P2P_H
#define ARMCII_P2P_H
#include <stddef.h>
#include <stdint.h>

#define ARMCII_ANY_SOURCE (-1)

/* Tag spaces keep armci_msg_snd tags apart from collective traffic. A
 * collective's tag should carry its group id and sequence number so that
 * several may be in flight. */
#define ARMCII_TAG_USER(t) ((uint64_t)(uint32_t)(t))
#define ARMCII_TAG_COLL(group_id, seq, phase)                                   \
    ((1ull << 63) | ((uint64_t)(uint16_t)(group_id) << 40) |                     \
     ((uint64_t)(uint32_t)(seq) << 8) | (uint64_t)(uint8_t)(phase))

typedef struct armcii_p2p_req *armcii_p2p_t;

/* Start a send of len bytes to world rank `to`; buf stays untouched until
 * the request completes. NULL only on out-of-memory (message printed). */
armcii_p2p_t armcii_p2p_isend(int to, uint64_t tag, const void *buf, size_t len);
/* Start a receive from `from` (or ARMCII_ANY_SOURCE) with tag into buf. A
 * message longer than cap is truncated to cap; its real length is reported. */
armcii_p2p_t armcii_p2p_irecv(int from, uint64_t tag, void *buf, size_t cap);
/* 1 and frees the request when it is complete (*len: the message's full
 * length, *src: its sender; either may be NULL); 0 when not yet. Makes
 * progress, never blocks. */
int armcii_p2p_test(armcii_p2p_t r, size_t *len, int *src);
/* Block (poll briefly, then sleep in the device) until complete. */
void armcii_p2p_wait(armcii_p2p_t r, size_t *len, int *src);

/* internal: wiring to the device */
int armcii_p2p_init(void);
void armcii_p2p_finalize(void);
void armcii_p2p_on_small(int src, const void *buf, size_t len);
extern unsigned long armcii_p2p_credit_waits; /* sends that waited for a credit */
#endif
