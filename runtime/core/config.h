/* Runtime options, read once from ARMCI_* environment variables (see
 * docs/runtime.md for each one's default and measured effect). */
#ifndef ARMCII_CONFIG_H
#define ARMCII_CONFIG_H
#include <stddef.h>

enum armcii_order { ARMCII_ORDER_STRICT, ARMCII_ORDER_PARTIAL, ARMCII_ORDER_UNORDERED };
/* AllFence: flush the targets written since the last fence ([OSPRI]), or
 * every rank whatever was written (ARMCI's generic AllFence). */
enum armcii_allfence { ARMCII_ALLFENCE_TOUCHED, ARMCII_ALLFENCE_ALL };
/* SOURCE: accumulate only -- the origin gets, adds and puts back under a
 * lock (source-driven), where HELPER is the target-driven protocol. */
enum armcii_path { ARMCII_PATH_AUTO, ARMCII_PATH_RDMA, ARMCII_PATH_NIC, ARMCII_PATH_HELPER,
                   ARMCII_PATH_SOURCE };

struct armcii_config {
    int verbose;          /* ARMCI_VERBOSE: print the configuration (rank 0) */
    int stats;            /* ARMCI_STATS: each rank prints its protocol counters at finalize */
    const char *device;   /* ARMCI_DEVICE: portals | dcmf | auto */
    int helper;           /* ARMCI_HELPER: one communication helper per node */
    int helper_bind;      /* ARMCI_HELPER_BIND: move the helper to an idle core */
    int order;            /* ARMCI_ORDER: strict | partial | unordered */
    int allfence;         /* ARMCI_ALLFENCE: touched | all */
    int conflict;         /* ARMCI_CONFLICT_TRACKING: per-region read/write state */
    int acc_path;         /* ARMCI_ACC: helper | nic | source | auto */
    int rmw_path;         /* ARMCI_RMW: nic | helper | auto */
    int noncontig_path;   /* ARMCI_NONCONTIG: rdma | helper | auto */
    size_t noncontig_rdma_min; /* ARMCI_NONCONTIG_RDMA_MIN: auto uses RDMA for runs this long */
    int bufs;             /* ARMCI_BUFS: buffers per client at the helper (credits) */
    size_t buf_size;      /* ARMCI_BUF_SIZE */
    int intimation;       /* ARMCI_FLOW_INTIMATION */
    int spare_bufs;       /* ARMCI_SPARE_BUFS: shared spare buffers per helper */
    size_t spare_size;    /* ARMCI_SPARE_SIZE */
    int coalesce;         /* ARMCI_ACK_COALESCE: one ack for several requests (>= 4 bufs) */
    int shm;              /* ARMCI_SHM: same-node transfers by direct copy */
    int handoff;          /* ARMCI_HANDOFF: blocking put/acc return once copied to a pool buffer */
    int handoff_bufs;     /* ARMCI_HANDOFF_BUFS: buffers in the pool */
    size_t handoff_size;  /* ARMCI_HANDOFF_SIZE: bytes per buffer (larger transfers bypass it) */
};

extern struct armcii_config armcii_cfg;
/* Parse the environment. A malformed value is an error naming the
 * variable, raised by armcii_config_check (after the device is up, so the
 * message names the rank; until then the default stands in). */
void armcii_config_load(void);
void armcii_config_check(void);
void armcii_config_print(const char *device, int nproc, int nnodes);
#endif
