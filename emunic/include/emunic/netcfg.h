/* The emulated network's configuration, in the job segment: the machine
 * model, time dilation, the fault plan and what to observe. emunic-run
 * parses the command line and profile files and fills it in before any
 * daemon or rank starts; daemons and ranks only read it, so none of them
 * ever parses a file. The links' busy-until times live next to it, shared
 * by every daemon, because a link carries traffic of many nodes. */
#ifndef EMUNIC_NETCFG_H
#define EMUNIC_NETCFG_H

#include <stdatomic.h>
#include <stdint.h>

#define EMU_NET_MAGIC 0x6e6574636667ull /* "netcfg" */
#define EMU_NET_MAX_DIMS 6
#define EMU_FAULT_MAX 64

/* A machine profile (share/emunic/machines/NAME.yaml). Zero delays and
 * bandwidth 0 mean "no limit": the ideal machine is all zeros. */
struct emu_machine {
    char name[32];
    uint64_t overhead_ns;    /* per message, at the injecting NIC */
    uint64_t ack_overhead_ns; /* the same for a data-less completion ack */
    uint64_t latency_ns;     /* base latency, nearest neighbour */
    uint64_t hop_ns;         /* each further hop */
    uint64_t link_bw;        /* link bandwidth, bytes per second; 0: infinite */
    uint32_t mtu;            /* packet payload, bytes; 0: one packet per message */
    uint32_t fifo_depth;     /* injection FIFO, messages in flight per NIC; 0: unbounded */
    uint32_t credits;        /* messages in flight per destination NIC; 0: unbounded */
    uint32_t ndims;          /* 0: no topology, every pair of nodes one hop apart */
    uint32_t dims[EMU_NET_MAX_DIMS];
    uint32_t torus_mask;     /* bit d set: dimension d wraps around */
    char mapping[16];        /* rank/node placement, e.g. "ABCDET"; "" = node order */
};

enum emu_fault_kind {
    EMU_FAULT_NONE = 0,
    EMU_FAULT_DROP,      /* lose packets (prob, or Gilbert-Elliott) */
    EMU_FAULT_DUP,       /* deliver packets twice */
    EMU_FAULT_CORRUPT,   /* flip payload bits (caught by the checksum) */
    EMU_FAULT_REORDER,   /* hold back unordered packets */
    EMU_FAULT_DELAY,     /* extra delay with jitter */
    EMU_FAULT_LINKDOWN,  /* a link carries nothing in the window */
    EMU_FAULT_THROTTLE,  /* a link's bandwidth times factor */
    EMU_FAULT_SLOW,      /* a node's NIC works factor times slower */
    EMU_FAULT_NICHANG,   /* a node's daemon stops working in the window */
    EMU_FAULT_NICCRASH,  /* a node's daemon exits at start */
    EMU_FAULT_KILL,      /* a rank is killed at start or after N messages */
    EMU_FAULT_REGFAIL,   /* memory registration fails */
    EMU_FAULT_EQFULL,    /* event queues / counters run out */
    EMU_FAULT_CREDITS,   /* a NIC gets no credits */
    EMU_FAULT_KIND_COUNT_
};

/* One rule of the fault plan. Scope fields of -1 match anything. */
struct emu_fault_rule {
    uint32_t kind;           /* enum emu_fault_kind */
    uint32_t op_mask;        /* bit per enum emu_op; 0: every op */
    double prob;             /* per packet */
    double ge_p, ge_r;       /* Gilbert-Elliott: good->bad, bad->good per packet; 0: uniform */
    double ge_loss;          /* loss probability in the bad state */
    double factor;           /* throttle / slow */
    uint64_t delay_ns, jitter_ns;
    int64_t start_ns;        /* window, from the job's start */
    int64_t end_ns;          /* < 0: no end */
    uint64_t after_msgs;     /* kill: after this many messages of the rank */
    int32_t node_a, node_b;  /* a node, or a link between two nodes */
    int32_t rank_a, rank_b;  /* a rank, or a pair of ranks */
};

#define EMU_NET_RELIABLE 0x1 /* link-level reliability protocol on */
#define EMU_NET_TRACE 0x2    /* record a timeline */
#define EMU_NET_STATS 0x4    /* counters printed / written at exit */

enum emu_congestion { EMU_CONG_NONE = 0, EMU_CONG_UNIFORM, EMU_CONG_HOTSPOT, EMU_CONG_BISECTION };

struct emu_netcfg {
    uint64_t magic;
    uint32_t flags;          /* EMU_NET_* */
    uint32_t congestion;     /* enum emu_congestion */
    double congestion_load;  /* offered background load, fraction of link bandwidth */
    uint64_t seed;
    double dilate;           /* >= 1 */
    int64_t start_ns;        /* job start, CLOCK_MONOTONIC */
    struct emu_machine m;
    uint32_t nrules;
    uint32_t pad_;
    struct emu_fault_rule rules[EMU_FAULT_MAX];
    char trace_dir[256];     /* where daemons and ranks write their trace parts */
};

/* Links: every node has 2 * EMU_NET_MAX_DIMS outgoing links (one per
 * direction of each dimension) plus one injection link; their busy-until
 * times (CLOCK_MONOTONIC ns) are shared by all daemons. */
#define EMU_NET_LINKS_PER_NODE (2 * EMU_NET_MAX_DIMS + 1)

#endif
