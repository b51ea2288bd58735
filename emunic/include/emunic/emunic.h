/* The rank side of the emulated NIC core: what a personality's lib/ half
 * (and the core's own tests and benchmarks) use to talk to its node's NIC.
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure, with no output; callers turn that into their API's error. Calls
 * are thread-safe. Completions are emu_msg entries (see msg.h). */
#ifndef EMUNIC_EMUNIC_H
#define EMUNIC_EMUNIC_H

#include <stddef.h>
#include <stdint.h>

#include "emunic/atomic_op.h"
#include "emunic/msg.h"
#include "emunic/region.h"

/* Attach to the job named by the environment emunic-run exports. Returns
 * 0, -ENOENT when not started by emunic-run, or another -errno. Nested
 * init/finalize pairs are counted. */
int emunic_init(void);
int emunic_finalize(void);
int emunic_initialized(void);

uint32_t emunic_rank(void);
uint32_t emunic_size(void);
uint32_t emunic_node(void);
uint32_t emunic_nnodes(void);
uint32_t emunic_local_rank(void);
uint32_t emunic_local_size(void);
const char *emunic_nic_name(void);
const char *emunic_jobid(void);

/* The job's network seen as a torus (topology queries of the
 * personalities): the machine model's dimensions and wrap-around when it
 * has a topology, else one open line of the job's nodes; the ranks of a
 * node are one more, last dimension (wraps). Coordinates have ndims
 * entries. emunic_torus_rank: -EINVAL for coordinates out of the shape,
 * -ENOENT where the job has no node. */
#define EMUNIC_TORUS_MAX_DIMS 7
struct emunic_torus {
    uint32_t ndims;
    uint32_t size[EMUNIC_TORUS_MAX_DIMS];
    uint32_t wrap[EMUNIC_TORUS_MAX_DIMS];
};
int emunic_torus_shape(struct emunic_torus *t);
int emunic_torus_coords(uint32_t rank, uint32_t *coords);
int emunic_torus_rank(const uint32_t *coords, uint32_t *rank);

/* Registered heap: memory the NIC copies with a single memcpy. Exposed to
 * all peers under EMU_KEY_HEAP. NULL with errno ENOMEM (heap exhausted) or
 * ENOSPC (shm dir full; a one-line message says so). */
void *emunic_malloc(size_t size);
void emunic_free(void *p);
/* Whether [p, p+len) lies inside this rank's heap. */
int emunic_in_heap(const void *p, size_t len);
/* Where rank's heap sits in rank's address space (0 if it has not attached
 * yet; valid for every rank after an emunic_barrier). The first block a
 * rank allocates starts there, which is how bootstrap code finds a peer's
 * exchange area without any other channel. */
uint64_t emunic_heap_addr(uint32_t rank);

/* Map the heap of a rank on this node into this process (node-shared
 * memory, as ARMCI's shm segments give a node's processes). Returns the
 * local address of that heap's start (its rank-side address is
 * emunic_heap_addr(rank)) and its size in *len; NULL with errno EINVAL
 * (another node, bad rank) or ENOENT (no heap yet). Cached; never unmapped
 * before exit. */
void *emunic_peer_heap(uint32_t rank, size_t *len);
/* Expose any memory (private or heap) to peers. Returns a key > 0, or
 * -ENOSPC when the region table is full, -EINVAL for bad perms, -ENOMEM
 * when the fault plan makes the registration fail (regfail). */
int64_t emunic_expose(const void *base, size_t len, unsigned perm);
int emunic_unexpose(uint32_t key);
/* Expose this rank's whole address space (read, write, atomic) and publish
 * the key in the job segment, where every rank can look it up: what RMA
 * by virtual address needs (PAMI_Put/PAMI_Get may name any target
 * address). Idempotent: later calls return the same key. */
int64_t emunic_expose_space(void);
/* The key rank published with emunic_expose_space, or 0 if it has not
 * (yet). */
uint32_t emunic_space_key(uint32_t rank);

/* Resource exhaustion from the job's fault plan (--fault regfail=P and
 * eqfull=P, docs/faults.md): whether this rank's allocation of the kind
 * must fail now. Each refusal is counted (counter "refused") and traced.
 * emunic_expose asks for EMUNIC_RES_REG itself; a personality asks before
 * its own registrations (Portals MDs, list entries) and event queues or
 * counters, and reports a refusal as its API's out-of-resources error. */
#define EMUNIC_RES_REG 0 /* a memory registration */
#define EMUNIC_RES_EQ 1  /* an event queue or counter */
int emunic_fault_refuse(unsigned what);

/* One-sided operations. dst is a rank; key/raddr name target memory.
 * Payloads up to EMU_INLINE_MAX travel inline and are locally complete on
 * return; larger ones are read by the NIC later, so the source buffer stays
 * untouched until EMU_DONE_LOCAL. flags: EMU_F_LOCAL_CQ, EMU_F_REMOTE_CQ,
 * EMU_F_TARGET_NOTIFY (imm is then passed to the target), EMU_F_UNORDERED.
 * A read, or a fetch-atomic's old value, of up to EMU_INLINE_MAX bytes with
 * a completion may reach buf (fetch) only as its completion is polled; the
 * call touches the sink's first and last byte, so a sink this rank cannot
 * write faults in the call.
 */
int emunic_write(uint32_t dst, uint32_t key, uint64_t raddr, const void *src,
                 size_t len, unsigned flags, uint64_t cookie, uint64_t imm);
int emunic_read(uint32_t dst, uint32_t key, uint64_t raddr, void *buf,
                size_t len, unsigned flags, uint64_t cookie);
/* operand2: compare value or mask for the swap family (one element).
 * fetch: where the old target contents go (NULL for a plain atomic). */
int emunic_atomic(uint32_t dst, uint32_t key, uint64_t raddr, unsigned aop,
                  unsigned dtype, const void *operand, size_t len,
                  const void *operand2, void *fetch, unsigned flags,
                  uint64_t cookie);

/* Flush: completes (EMU_CQ_DONE, EMU_DONE_REMOTE, cookie) once every
 * ordered operation this rank posted to dst before it has been applied at
 * dst, whatever completions those asked for. One round trip, no data. */
int emunic_flush(uint32_t dst, uint64_t cookie);

/* Active messages. The target sees an EMU_CQ_AM entry: msg.imm = handler,
 * data[0..hlen) = header, then the payload if it fit inline
 * (msg.dlen == hlen + len); otherwise the payload waits at the source until
 * the target calls emunic_am_accept with a buffer. hlen <= EMU_INLINE_MAX. */
int emunic_am_send(uint32_t dst, uint64_t handler, const void *hdr,
                   size_t hlen, const void *payload, size_t len,
                   unsigned flags, uint64_t cookie);
/* Pull a long AM payload into buf (any memory). Completes with EMU_CQ_DONE
 * (cookie) once the bytes are in buf; status EMU_E_TRUNC if cap < len (the
 * first cap bytes are delivered). */
int emunic_am_accept(const struct emu_msg *am, void *buf, size_t cap,
                     uint64_t cookie);

/* A handler run inside emunic_poll/emunic_wait for AM entries with this id
 * (ids < 256). Entries with no handler are returned to the caller. */
typedef void (*emunic_am_fn)(const struct emu_msg *am, void *arg);
int emunic_am_register(uint64_t handler, emunic_am_fn fn, void *arg);

/* Personality commands: m->op must be EMU_OP_MODULE; src is filled in. */
int emunic_post_module(struct emu_msg *m);

/* Completions: up to max entries, without blocking. */
int emunic_poll(struct emu_msg *out, int max);
/* Whether emunic_poll would return something, without taking it: lets a
 * thread wait for work and then take a lock before consuming, so that
 * entries are handled in queue order whichever thread handles them. */
int emunic_pending(void);
/* Poll briefly, then sleep until something arrives or timeout_ns passes
 * (< 0: no limit). Returns the count: 0 on timeout, and also 0 as soon as
 * an AM handler has run (its effects may be what the caller waits for).
 * -EPIPE when the
 * node's NIC daemon is gone or the job is being torn down. */
int emunic_wait(struct emu_msg *out, int max, int64_t timeout_ns);
/* Wait for the EMU_CQ_DONE carrying cookie, stashing other entries for
 * later emunic_poll calls. Returns its status (>= 0) or -EPIPE. */
int emunic_wait_cookie(uint64_t cookie, struct emu_msg *out);

/* Wait until cond(arg) holds, the way every emunic wait does: poll with
 * sched_yield for the poll budget, then sleep on this rank's doorbell,
 * which the NIC rings after it writes anything for this rank (completions,
 * or a personality's events and counters in rank memory). Returns 1 when
 * cond held, 0 on timeout (timeout_ns < 0: none), -EPIPE when the NIC or
 * job is gone. cond must be cheap and may be called from any thread. */
int emunic_wait_until(int (*cond)(void *), void *arg, int64_t timeout_ns);

/* Ring this rank's own doorbell: threads of this process asleep in
 * emunic_wait/emunic_wait_until re-check their conditions. For one thread
 * handing work to another (a context's queue filled by a peer thread). */
void emunic_ring_self(void);

/* This rank now runs a thread beside application threads that may spin or
 * compute without yielding (a PAMI commthread): this process and its
 * node's NIC daemon stop yielding to such a hog as soon as they see one
 * (emu_poll_expect_hogs; EMUNIC_HOG_US, 0 included, overrides). */
void emunic_expect_hogs(void);

/* Job-wide barrier through shared memory (not through the NIC). Returns 0,
 * or -EPIPE when the job is aborting or a rank has exited or been killed
 * (--keep-going) before arriving, so the barrier can never complete. */
int emunic_barrier(void);

/* Test hook: push m into this rank's command queue exactly as given, with
 * no checks, to prove the NIC survives garbage. */
int emunic_post_raw(const struct emu_msg *m);

/* This rank's wake-up count (times it slept on its completion queue). */
uint64_t emunic_wakeups(void);

#endif
