/* Wire messages to NIC daemons on other hosts, over libfabric (issue 21,
 * docs/multihost.md design 3-4).
 *
 * One reliable-datagram endpoint (FI_EP_RDM) per daemon; the provider is
 * $FI_PROVIDER's or, unset, "tcp" (tcp;ofi_rxm), so verbs or shm work
 * where present. Messages to one peer are batched: up to HOSTLINK_BATCH
 * 256-byte slots behind a 16-byte header travel as one fabric send, in
 * the order they were queued (FI_ORDER_SAS); the receiver checks each
 * batch's sequence number, so a provider that reorders or drops is caught
 * and named, not trusted. A peer is what hostlink_add_peer made of the
 * fabric address another daemon's hostlink_name gave: the launcher moves
 * those names, this module never looks anything up.
 *
 * Single-threaded, like the daemon: every call comes from one thread.
 * Nothing here blocks except hostlink_wait; a send that finds every batch
 * buffer in flight drives the fabric's progress until one is free
 * (bounded by HOSTLINK_SEND_WAIT_MS, then -EBUSY). */
#ifndef EMUNIC_NICD_HOSTLINK_H
#define EMUNIC_NICD_HOSTLINK_H

#include <stddef.h>
#include <stdint.h>

#include "emunic/msg.h"

#define HOSTLINK_BATCH 63 /* slots per fabric send: 16 + 63 x 256 bytes fit ofi_rxm's 16 KiB eager buffers */
#define HOSTLINK_NAME_MAX 64       /* bytes of a fabric address */
#define HOSTLINK_SEND_WAIT_MS 5000 /* a send waits this long for a free buffer */

struct hostlink;

/* Received messages, in their sender's order: n slots from peer. */
typedef void (*hostlink_deliver_fn)(void *arg, uint32_t peer, const struct emu_msg *m, unsigned n);

/* An endpoint bound to address node (when NULL: "127.0.0.1", so tests
 * and one-box jobs stay on loopback; for shm, which is host-local and
 * names its endpoints itself, none). Peers are numbered as the launcher
 * numbers the job's daemons: self is ours, max_peers bounds them, and
 * every daemon adds every name in that order, its own included. job tags
 * each batch, so another job's traffic on the same fabric is refused.
 * 0, or -errno with the fabric's reason in *why (static text). */
int hostlink_open(struct hostlink **out, const char *node, uint32_t self, uint32_t max_peers, uint32_t job,
                  const char **why);
void hostlink_close(struct hostlink *hl);

/* The provider's name ("tcp;ofi_rxm"), for messages and traces. */
const char *hostlink_provider(const struct hostlink *hl);

/* This endpoint's fabric address: *len in, the bytes written out. */
int hostlink_name(struct hostlink *hl, void *buf, size_t *len);

/* The next daemon's address (our own too, at index self); *peer is its
 * index, as hostlink_deliver_fn reports it. -EINVAL for a name the fabric
 * does not take, -ENOSPC past max_peers. */
int hostlink_add_peer(struct hostlink *hl, const void *name, size_t len, uint32_t *peer);

/* Queue n messages for peer (sent once a batch is full, or by
 * hostlink_flush). 0, -EINVAL (no such peer), -EBUSY, -EIO. */
int hostlink_send(struct hostlink *hl, uint32_t peer, const struct emu_msg *m, unsigned n);

/* Send every partly filled batch. 0 or -errno. */
int hostlink_flush(struct hostlink *hl);

/* Drive the fabric: hand every received batch to deliver, recycle sent
 * buffers. Returns the number of messages delivered, or -EPROTO (a batch
 * out of sequence or malformed: its peer is in *bad_peer), -EIO. */
int hostlink_poll(struct hostlink *hl, hostlink_deliver_fn deliver, void *arg, uint32_t *bad_peer);

/* Block until the fabric has something for hostlink_poll, or timeout_ms
 * passes (the provider's own wait, which also makes progress). */
int hostlink_wait(struct hostlink *hl, int timeout_ms);

/* Counters: batches and messages sent and received. */
struct hostlink_stats {
    uint64_t tx_batches, tx_msgs, rx_batches, rx_msgs, tx_waits;
};
void hostlink_stats(const struct hostlink *hl, struct hostlink_stats *out);

#endif
