/* The daemon's private state and the split of its work across files:
 * engine.c (loop, routing, queues), target.c (target-side execution),
 * xfer.c (moving bytes between processes), idle.c (sleeping in io_uring),
 * modules.c (personality dispatch), guard.c (what the daemon trusts about
 * a rank, and what it does when a rank breaks its own structures).
 *
 * Trust: the job segment is writable by every rank. Everything the daemon
 * indexes or addresses with (geometry, the network configuration, the
 * doorbells, each rank's process and heap) is a private copy taken at
 * start-up, from the launcher's control block or verified with the kernel;
 * what stays shared (ring slots and sequence numbers) is checked on use. */
#ifndef EMUNIC_NICD_NIC_H
#define EMUNIC_NICD_NIC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "emunic/job.h"
#include "emunic/module.h"

/* FIFO of messages parked because their queue was full. A local rank's
 * completions are bounded: from PARK_SOFT parked on, its commands are not
 * taken (back-pressure) until it takes completions; a rank that reaches
 * PARK_HARD anyway (peers' events, work already under way) is stopped. */
#define PARK_SOFT 4096
#define PARK_HARD 32768
/* Messages parked for full peer queues: from this many on, no local
 * command is taken until they drain (which bounds what a rank has under
 * way, and so what can come back to its completion queue). */
#define PARK_WIRE 4096
struct mq_node;
struct mq {
    struct mq_node *head, *tail;
    size_t n;
};

/* What we know of a rank's process, latched once (xfer.c): its pid,
 * checked against the process the launcher started, and where that
 * process has its heap mapped, read from the kernel (/proc/PID/maps). */
struct heap_map {
    char *ptr;      /* our mapping, NULL until latched */
    uint64_t rbase; /* the heap's address inside its rank */
    uint64_t size;
    pid_t pid;      /* 0 until latched */
};

/* A long AM payload waiting at the source for the target to accept it. */
struct am_ticket {
    int live;
    uint32_t gen;
    struct emu_msg am; /* the original request (header only) */
};

struct emu_idle; /* idle.c */
struct promo_set; /* xfer_promo.c */

/* idle.c */

struct emu_ctl;

struct emu_nic {
    struct emu_job job;
    uint32_t node, first, nlocal, nranks, nnodes, rpn;
    /* what the loop touches on every turn first, the rest after */
    struct emu_nic_counters *ctr;
    struct emu_waiter *doorbell;
    int *doorbell_fd;          /* [nnodes] our descriptors of the daemons' doorbells */
    uint8_t *fenced;           /* [nranks] 1: no longer served (guard.c) */
    struct emu_wire_cq *cqacct; /* [nranks] the daemons' count of each rank's CQ (wire object) */
    size_t wire_parked;        /* messages in wire_backlog[] */
    uint64_t wire_held;        /* turns without taking commands for it */
    int64_t last_scan;
    bool hogs_expected; /* a local rank said EMU_HINT_HOGS */
    uint64_t *refused_seen;    /* [nlocal] each rank's own refusal count, as last added */
    struct emu_ring *cmd;      /* [nlocal] we consume */
    struct emu_ring *cq;       /* [nlocal] we produce */
    struct mq *cq_backlog;     /* [nlocal] */
    struct emu_ring wire_in;   /* we consume */
    struct emu_ring *wire_out; /* [nnodes] we produce */
    struct mq *wire_backlog;   /* [nnodes] */
    size_t backlog_total;
    struct heap_map *heaps;    /* [nranks] */
    struct promo_set *promos;  /* [nranks] (xfer_promo.c) */
    struct am_ticket *tickets;
    uint32_t nticket;
    char *bounce;              /* private->private copies */
    int64_t poll_ns;
    struct emu_idle *idle;
    void *mod_state[EMU_MOD_MAX];
    uint64_t *eq_asked;        /* [nlocal] events checked against eqfull */
    volatile sig_atomic_t stop;
    const struct emu_ctl *ctl; /* the launcher's control block, read-only */
    size_t ctl_size;
    int report_fd;             /* to the launcher, or -1 */
    pid_t launcher_pid;
    int64_t *cmd_stuck;        /* [nlocal] since when a claimed command slot stays empty */
    int64_t *held_since;       /* [nlocal] back-pressure on since (engine.c), -1: warned */
    size_t *held_at;           /* [nlocal] parked completions when last seen reaping */
    struct emu_netcfg net;     /* private copy, taken before any rank ran */
};

/* engine.c */
int nic_open(struct emu_nic *nic, const char *jobid, uint32_t node, int ctl_fd, int report_fd, int wire_fd);
void nic_close(struct emu_nic *nic);
int nic_run(struct emu_nic *nic);

/* target.c */
void nic_target(struct emu_nic *nic, struct emu_msg *m);
/* The same for another node's rank (fastpath.c): ctr is that node's. */
void nic_target_for(struct emu_nic *nic, struct emu_msg *m, struct emu_nic_counters *ctr);
void nic_accept(struct emu_nic *nic, struct emu_msg *m);
void nic_complete(struct emu_nic *nic, const struct emu_msg *ack);
/* atomic_unit.c: emu_nic_atomic with fetch, the old value (m->len <=
 * EMU_INLINE_MAX bytes) into old instead of the initiator's memory. */
int nic_atomic_into(struct emu_nic *nic, const struct emu_msg *m, void *old);
/* engine.c: emu_nic_ack carrying a small result (dlen bytes of data) back
 * to a rank that asked for it (EMU_F_DATA_BACK): EMU_DONE_DATA. */
void nic_ack_data(struct emu_nic *nic, const struct emu_msg *req, int status, uint64_t imm,
                  const void *data, uint16_t dlen);

/* xfer.c */
int xfer_init(struct emu_nic *nic);
void xfer_fini(struct emu_nic *nic);
/* Daemon pointer to [addr, addr+len) of rank's heap, or NULL if the range
 * is not entirely inside it (then process_vm_* is the road). */
char *xfer_heap_ptr(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len);
/* Whether [addr, addr+len) of rank's memory is mapped here (heap or a
 * moved range), i.e. reached with memcpy rather than process_vm_*. */
int xfer_mapped(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len);
/* Whether rank's process and heap are known here (latching them if it is
 * up), so accesses to its memory need no /proc look-up. */
int xfer_latch(struct emu_nic *nic, uint32_t rank);

/* xfer_promo.c */
int xfer_promo_init(struct emu_nic *nic);
void xfer_promo_fini(struct emu_nic *nic);
/* Daemon pointer to [addr, addr+len) of private memory that rank (process
 * pid) moved onto a memfd and still exposes, or NULL. */
char *xfer_promo_ptr(struct emu_nic *nic, uint32_t rank, pid_t pid, uint64_t addr, uint64_t len);

/* guard.c */
/* Map the control block (ctl_fd is closed) and take the doorbells from it. */
int guard_open(struct emu_nic *nic, int ctl_fd, int report_fd);
void guard_close(struct emu_nic *nic);
/* Whether a daemon stopped serving rank: we (nic_fence), or another
 * daemon, through the rank's flag in the wire object. */
int nic_fenced(const struct emu_nic *nic, uint32_t rank);
/* The pid of the process the launcher started as rank, 0 if not yet. */
pid_t guard_rank_pid(const struct emu_nic *nic, uint32_t rank);
/* Whether pid is anc or one of its descendants (walks /proc PPid links). */
int guard_descends(pid_t pid, pid_t anc);
/* Start of pid's one mapping of the file (dev, ino) at offset 0 (its end
 * to *end if not NULL), or 0 if it has none or several. */
uint64_t guard_map_base(pid_t pid, dev_t dev, ino_t ino, uint64_t *end);
/* Stop serving rank: say why on stderr ("rank R (node N) corrupted its
 * <what>: <detail>"), tell the launcher, drop its parked completions. */
void nic_fence(struct emu_nic *nic, uint32_t rank, int what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Checks of a local rank's command queue the consumer can make: called
 * when idle and every GUARD_SCAN_NS while busy. */
void guard_scan(struct emu_nic *nic, int64_t now);
/* Take up the local ranks' EMU_HINT_HOGS (emunic_expect_hogs), add what
 * they counted themselves (refusals: the node's counters are read-only to
 * ranks) and publish the hog counters: at every scan, before every sleep
 * and once more at the end. */
void guard_hints(struct emu_nic *nic);
#define GUARD_SCAN_NS 50000000ll
/* Push to local rank l's completion queue (the daemons are its only
 * producers, under its node's lock) and check the shared tail and sequence
 * against the daemons' own count (emu_wire_cq). 0 or -1 (full,
 * or the rank was fenced for a corrupt queue). */
int guard_cq_push(struct emu_nic *nic, uint32_t l, const struct emu_msg *m);
/* The same for any rank's queue r, under the lock of that rank's node. */
int guard_cq_push_ring(struct emu_nic *nic, uint32_t rank, struct emu_ring *r, const struct emu_msg *m);

/* fastpath.c */
/* Decide whether this job may take the path (after the model, links and
 * trace are set up). */
/* shared_heap.c: format our node's arena (before modules_init) */
void shared_heap_open(const struct emu_job *j, uint32_t node);
void fast_init(struct emu_nic *nic, int model_on);
/* Take our node's lock for a turn: 0 if another daemon holds it (then
 * the turn is put off). */
int fast_turn_begin(struct emu_nic *nic);
void fast_turn_end(struct emu_nic *nic);
/* Apply m, addressed to a rank of node, here: 1 if done (completion
 * delivered), 0 if it must go on the wire. */
int fast_try(struct emu_nic *nic, uint32_t node, const struct emu_msg *m);
/* emu_nic_deliver for another node's rank: only while fast_try applies an
 * operation there (under that node's lock); otherwise dropped. */
void fast_deliver(struct emu_nic *nic, uint32_t rank, const struct emu_msg *cqe);

/* orphan.c */
/* Whether the launcher died (we were reparented and it is gone). */
int orphan_launcher_gone(const struct emu_nic *nic);
/* The launcher is gone: once every rank of the job is gone too, end what
 * is left in the job's cgroup and remove the files clients named after the
 * job. Returns how many, or -1 if a rank lives on. */
int orphan_cleanup(struct emu_nic *nic);

/* idle.c */
struct emu_idle *idle_open(int efd);
void idle_close(struct emu_idle *id);
/* Block until the doorbell rings or timeout_ns passes. */
void idle_wait(struct emu_idle *id, int64_t timeout_ns);

/* modules.c */
int modules_init(struct emu_nic *nic);
void modules_fini(struct emu_nic *nic);
void modules_local(struct emu_nic *nic, struct emu_msg *m);
void modules_target(struct emu_nic *nic, struct emu_msg *m);
int modules_progress(struct emu_nic *nic);
/* Whether module id can run another node's target work, and running it
 * for node under its lock: 1 done, 0 left to the wire. */
int modules_has_peer(uint8_t id);
int modules_peer_target(struct emu_nic *nic, uint32_t node, struct emu_msg *m);

#endif
