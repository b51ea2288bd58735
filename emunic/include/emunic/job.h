/* The job segment: one shared-memory object per job holding the header,
 * the rank and node tables, and the ranks' queues. Its size is linear in
 * ranks and nodes (no pair tables), and it is laid out once by the
 * launcher.
 *
 * The wire between the NIC daemons (one ring per node) and the model's
 * link clocks are not in it: they live in a second object, a memfd the
 * launcher hands to its daemons by descriptor (emu_job_wire_create,
 * emu_job_wire_map), which no rank maps or inherits. So a rank's stray
 * store can reach its own queues and entries, never the packets between
 * NICs or the links' state.
 *
 * Within the segment a rank may write only what is its own, and the
 * kernel holds it to that: a rank maps the segment read-only and then
 * maps, writable, just its own rank entry, command queue and completion
 * queue (emu_job_attach_rank), which are laid out in whole pages
 * (EMU_PAGE). Nothing a rank writes is shared with another rank: it rings
 * its NIC through a flag in its own entry (nic_bell) and counts its
 * barriers there (bar_seq). A stray store into the header, another rank's
 * entry or queues, the node table or the network configuration faults in
 * the rank that made it, as a store into another process's queue pair
 * would on a real NIC. */
#ifndef EMUNIC_JOB_H
#define EMUNIC_JOB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "emunic/counters.h"
#include "emunic/netcfg.h"
#include "emunic/region.h"
#include "emunic/ring.h"
#include "emunic/memfd.h"
#include "emunic/waiter.h"

#define EMU_JOB_MAGIC 0x656d756e69636a62ull /* "emunicjb" */
#define EMU_JOB_VERSION 7

#define EMU_MAX_NODES 1024
#define EMU_MAX_RANKS_PER_NODE 1024
#define EMU_DEFAULT_MAX_RANKS 1024
#define EMU_DEFAULT_HEAP (128ull << 20)
/* The grain of a rank's write access to the segment: what a rank may
 * write starts and ends on this boundary. Hosts with larger pages map
 * the rank's segment writable whole (emu_job_attach_rank). */
#define EMU_PAGE 4096u

struct emu_job_params {
    uint32_t nnodes;
    uint32_t ranks_per_node;
    uint64_t heap_size; /* per rank, virtual; pages are reserved on malloc */
    uint32_t cmd_slots; /* per rank, power of two */
    uint32_t cq_slots;  /* per rank, power of two */
    uint32_t wire_slots;/* per node, power of two */
    char nic[16];       /* personality name, informational for the core */
};

/* DONE: the rank finalized, and may initialize again (a PAMI client
 * destroyed and created anew); GONE: the launcher reaped it. Both mean
 * "not a target"; only GONE means "will never enter a barrier". */
enum emu_rank_state { EMU_RANK_NONE = 0, EMU_RANK_UP, EMU_RANK_DONE, EMU_RANK_GONE };

/* Finalized or reaped; the two values exactly, since the word is in the
 * segment and another value is a scribble, not an end. */
static inline int emu_rank_ended(uint32_t state) { return state == EMU_RANK_DONE || state == EMU_RANK_GONE; }

/* EMU_HINT_HOGS: the rank runs a commthread beside threads that may hog a
 * CPU (emunic_expect_hogs); its NIC daemon then looks for hogs too. */
#define EMU_HINT_HOGS 1u

/* A private range the rank moved onto a memfd so that NICs can map it
 * (core/promote.c). Rank-written: a daemon takes it as a hint and checks
 * it with the kernel (xfer_promo.c). */
#define EMU_MAX_PROMO 16
struct emu_promo {
    _Atomic uint64_t base, len; /* len 0: slot free */
    _Atomic int32_t fd;         /* the memfd's number in the rank */
    _Atomic uint32_t key;       /* the region it serves: unusable once retracted */
};

/* Written by its rank (and its NIC), read by everyone: whole pages, so
 * that the rank's writable window holds nothing else. */
struct emu_rank_info {
    _Alignas(EMU_PAGE) _Atomic int32_t pid;
    uint32_t node;
    uint32_t local;
    _Atomic uint32_t state;
    _Atomic uint64_t heap_base; /* heap address in the rank, 0 = none yet */
    uint64_t heap_size;
    _Atomic uint32_t space_key; /* whole-address-space region, 0 = none */
    _Atomic uint32_t hints;     /* EMU_HINT_*, rank-written: only how the NIC polls */
    _Atomic uint64_t refused;   /* its fault-plan refusals: the NIC adds them to its node's */
    struct emu_waiter cq_waiter; /* the rank sleeps here for completions */
    /* its NIC's doorbell as this rank sees it: the daemon arms it (and
     * every local rank's) before it sleeps, the rank rings when armed */
    struct emu_waiter nic_bell;
    _Atomic uint32_t bar_seq;   /* emunic_barrier calls entered; a futex word */
    struct emu_region regions[EMU_MAX_REGIONS];
    _Atomic uint32_t promo_gen; /* bumped after every change of promo[] */
    struct emu_promo promo[EMU_MAX_PROMO];
};

/* The NIC daemon's, read-only to ranks. */
struct emu_node_info {
    _Alignas(64) struct emu_waiter doorbell; /* the daemon sleeps here; other daemons ring it */
    _Atomic int32_t daemon_pid;
    _Atomic uint32_t ready;
    struct emu_nic_counters ctr;
};

struct emu_job_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nnodes;
    uint32_t ranks_per_node;
    uint32_t nranks;
    uint32_t cmd_slots, cq_slots, wire_slots;
    int32_t launcher_pid;
    uint64_t heap_size;
    uint64_t total_size;
    uint64_t off_ranks, off_nodes, off_cmd, off_cq, off_net;
    uint64_t cmd_bytes, cq_bytes, wire_bytes; /* per ring (wire: in the daemons' object) */
    int64_t created_ns;
    char jobid[EMU_JOBID_MAX];
    char nic[16];
    _Atomic uint32_t abort; /* set by the launcher on teardown */
};

/* The job's geometry as it was when the header was validated (create or
 * attach), in the attacher's own memory. Every rank can write the shared
 * header, so a daemon or launcher that re-read nnodes or an offset from it
 * on each use could be steered out of bounds (or into a division by zero)
 * by one stray store; they use this copy instead. */
struct emu_job_geo {
    uint32_t nnodes, ranks_per_node, nranks;
    uint32_t cmd_slots, cq_slots, wire_slots;
    uint64_t heap_size;
    uint64_t off_ranks, off_nodes, off_cmd, off_cq, off_net;
    uint64_t cmd_bytes, cq_bytes, wire_bytes;
    /* the daemons' object: links at 0, the nodes' target locks, the ranks'
     * fenced flags and completion queue accounts, then the rings */
    uint64_t wire_off_locks, wire_off_fenced, wire_off_cqs, wire_off_rings, wire_size;
    /* then one page with the address the launcher mapped it at, and each
     * node's arena (arena_bytes, virtual: pages are made when touched) */
    uint64_t wire_off_home, wire_off_arena, arena_bytes;
    int64_t created_ns;
    int32_t launcher_pid;
    char jobid[EMU_JOBID_MAX];
    char nic[16];
};

struct emu_job {
    struct emu_job_hdr *hdr;
    size_t size;
    int fd;
    void *wire; /* the daemons' object, NULL unless created or mapped */
    int wire_home; /* mapped where the launcher mapped it (emu_job_wire_map) */
    struct emu_rank_info *ranks;
    struct emu_node_info *nodes;
    struct emu_job_geo geo; /* private: use this, not hdr, for geometry */
};

/* Fill defaults for everything but nnodes/ranks_per_node. */
void emu_job_params_default(struct emu_job_params *p);
size_t emu_job_size(const struct emu_job_params *p);

/* Launcher: create (a memfd called emunic.<jobid>.job, held in j->fd
 * while the job lives), size, reserve and lay out the job segment.
 * efds[node] are the daemons' eventfd doorbells. Returns 0 or -errno:
 * -EINVAL for parameters outside the limits above (slot counts must be
 * powers of two in [2, 2^20]), -ENOSPC or -ENOMEM when memory is short. */
int emu_job_create(struct emu_job *j, const char *jobid,
                   const struct emu_job_params *p, const int *efds);
/* Daemons, tools: find the segment among the descriptors of a process
 * that holds it (memfd.h), map and validate it (a snapshot of the header,
 * so a store racing the check cannot slip past it), and fill j->geo; the
 * descriptor stays in j->fd. Returns 0 or -errno: -ENOENT for no such
 * job, -EPROTO for a segment that is not a well-formed job. */
int emu_job_attach(struct emu_job *j, const char *jobid);
/* A rank: as emu_job_attach, but the segment is mapped from a read-only
 * descriptor (mprotect cannot make it writable), only rank's own entry and
 * queues are mapped over it writable, and no descriptor is kept. Returns
 * 0 or -errno; -EINVAL for a rank outside the job. */
int emu_job_attach_rank(struct emu_job *j, const char *jobid, uint32_t rank);
void emu_job_detach(struct emu_job *j);

/* Launcher, after emu_job_create: make the daemons' object (a memfd,
 * close-on-exec), lay out and format its rings, and map it. Returns the
 * descriptor to hand to each daemon, or -errno. */
int emu_job_wire_create(struct emu_job *j);
/* Daemon, after emu_job_attach: map the object it was handed. Returns 0,
 * or -EPROTO if fd is not an object of this job's size. */
int emu_job_wire_map(struct emu_job *j, int fd);

void *emu_job_cmd_ring(const struct emu_job *j, uint32_t rank);
void *emu_job_cq_ring(const struct emu_job *j, uint32_t rank);
/* node's incoming wire ring in the daemons' object (NULL if unmapped) */
void *emu_job_wire_ring(const struct emu_job *j, uint32_t node);
/* The network configuration (netcfg.h); the launcher writes it between
 * emu_job_create and starting the daemons, everyone else only reads. */
struct emu_netcfg *emu_job_netcfg(const struct emu_job *j);
/* nnodes * EMU_NET_LINKS_PER_NODE busy-until times (node n's links at
 * n * EMU_NET_LINKS_PER_NODE), in the daemons' object (NULL if unmapped). */
_Atomic uint64_t *emu_job_links(const struct emu_job *j);
/* Whoever executes target-side work for node's ranks holds node's lock:
 * its own daemon while it runs a turn, or another daemon doing that work
 * for one operation of its own rank (nicd/fastpath.c). A cache line each. */
struct emu_wire_lock {
    _Atomic uint32_t held;
    uint32_t holder; /* node of the holder, for a debugger */
    uint64_t pad[7];
};
struct emu_wire_lock *emu_job_wire_lock(const struct emu_job *j, uint32_t node);
/* The daemons' own account of a rank's completion queue: entries pushed
 * (what its tail must be), and entries parked because it was full. Written
 * only under the lock of the rank's node, so any daemon that holds it may
 * push there and the check of the tail stays exact. */
struct emu_wire_cq {
    _Atomic uint64_t pushed;
    _Atomic uint64_t parked;
};
struct emu_wire_cq *emu_job_wire_cq(const struct emu_job *j, uint32_t rank);
/* Node's arena in the daemons' object: memory its daemon keeps module
 * state in, so that another daemon that maps the object at the same
 * address (wire_home) can run that node's target work (nicd/shared_heap.c).
 * Room per rank of the node: */
#define EMU_ARENA_PER_RANK (128ull << 20)
void *emu_job_arena(const struct emu_job *j, uint32_t node);
/* nranks flags, 1 once the rank's own daemon stopped serving it (guard.c),
 * so another daemon does not serve it either. */
_Atomic uint8_t *emu_job_wire_fenced(const struct emu_job *j);

static inline uint32_t emu_job_node_of(const struct emu_job *j, uint32_t rank)
{
    return rank / j->geo.ranks_per_node;
}

/* Generate a fresh job id (pid + random bits), at most EMU_JOBID_MAX-1. */
void emu_jobid_new(char *buf, size_t n);

#endif
