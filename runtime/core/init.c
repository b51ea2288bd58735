/* Start-up and shut-down, the world's shape, errors, progress and the
 * helper thread. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "armcii.h"
#include "chan.h"
#include "emunic/emunic.h"
#include "coll.h"
#include "config.h"
#include "mem.h"
#include "op.h"
#include "order.h"
#include "p2p.h"
#include "proto.h"
#include "xfer.h"
#include "serial.h"
#include "subset.h"
#include "mpi_comm.h"

const struct armci_device *armcii_dev;
static const struct armci_device *const devices[] = {&armcii_dev_portals, &armcii_dev_dcmf, &armcii_dev_pami};
#define NDEVICES (sizeof devices / sizeof *devices)

static int initialized;
static struct adev_job job;
static int *node_first, *node_count, *node_ranks; /* ranks grouped by node */
static int *members; /* job rank of each proc when ARMCI runs over part of the job */

static pthread_t helper_thread;
static atomic_int helper_stop;
static int helper_running;

void armcii_helper_bind(void);
void armcii_sync_finalize(void);

void ARMCI_Error(const char *msg, int code)
{
    fprintf(stderr, "ARMCI_Error: rank %d: %s (code %d)\n", job.me, msg ? msg : "", code);
    fflush(stderr);
    exit(code ? code : 1);
}

void armcii_error(int code, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ARMCI_Error(buf, code);
    exit(1); /* ARMCI_Error does not return */
}

void armcii_need_init(const char *fn)
{
    if (!initialized) {
        fprintf(stderr, "ARMCI_Error: %s: ARMCI is not initialised (call ARMCI_Init first)\n", fn);
        exit(1);
    }
}

int armcii_me(void) { return job.me; }
int armcii_nproc(void) { return job.nproc; }
int armcii_nnodes(void) { return job.nnodes; }
int armcii_node_of(int proc) { return job.node_of[proc]; }
int armcii_node_master(int node) { return node_ranks[node_first[node]]; }
int armcii_node_nprocs(int node) { return node_count[node]; }
int armcii_node_rank(int node, int i) { return node_ranks[node_first[node] + i]; }

static void on_small(int ctx, int src, const void *buf, size_t len)
{
    uint8_t kind = len ? *(const uint8_t *)buf : 0;
    if (kind == ACK_KIND)
        armcii_chan_on_ack(src, buf, len);
    else if (kind == RELEASE_KIND)
        armcii_server_on_small(ctx, src, buf, len);
    else if (ctx == ADEV_CTX_RANK)
        armcii_p2p_on_small(src, buf, len);
}

static void on_notify(int ctx, int src, uint64_t imm, void *addr, size_t len)
{
    (void)imm;
    armcii_server_on_request(ctx, src, addr, len);
}

void armcii_progress(int block)
{
    /* another application thread waiting to enter the runtime must not
     * wait out this one's sleep: block briefly, then let it in */
    int64_t sleep_ns = !block ? 0 : armcii_serial_wanted() ? 200 * 1000 : 10 * 1000 * 1000;
    int n = armcii_dev->progress(ADEV_CTX_RANK, sleep_ns);
    if (n < 0)
        armcii_error(1, "armci: the network failed (%d)", n);
    if (!armcii_cfg.helper)
        armcii_server_idle(ADEV_CTX_RANK);
}

void ARMCIX_Progress(void)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCIX_Progress");
    armcii_progress(0);
}

static void *helper_main(void *arg)
{
    (void)arg;
    if (armcii_cfg.helper_bind)
        armcii_helper_bind();
    while (!atomic_load(&helper_stop)) {
        armcii_dev->progress(ADEV_CTX_HELPER, 10 * 1000 * 1000);
        armcii_server_idle(ADEV_CTX_HELPER);
    }
    return NULL;
}

static int group_by_node(void)
{
    int n = job.nproc, k = job.nnodes;
    node_first = calloc((size_t)k + 1, sizeof *node_first);
    node_count = calloc((size_t)k, sizeof *node_count);
    node_ranks = calloc((size_t)n, sizeof *node_ranks);
    if (!node_first || !node_count || !node_ranks)
        return -ENOMEM;
    for (int r = 0; r < n; r++)
        node_count[job.node_of[r]]++;
    for (int i = 0; i < k; i++)
        node_first[i + 1] = node_first[i] + node_count[i];
    int *fill = calloc((size_t)k, sizeof *fill);
    if (!fill)
        return -ENOMEM;
    for (int r = 0; r < n; r++) {
        int nd = job.node_of[r];
        node_ranks[node_first[nd] + fill[nd]++] = r;
    }
    free(fill);
    return 0;
}

static void *heap_alloc(size_t len)
{
    return armcii_mem_alloc(len, ARMCII_MEM_HEAP);
}

static void heap_release(void *p)
{
    armcii_mem_free(p, ARMCII_MEM_HEAP);
}

static int own_emunic; /* ARMCI_Init attached the rank to emunic */

/* The device for the job's NIC (ARMCI_DEVICE=auto), or the one named,
 * which must then be the job's. Before any device is up: a failure here
 * ends the process with one line. */
static const struct armci_device *choose_device(void)
{
    static char names[64];
    names[0] = '\0';
    for (size_t i = 0; i < NDEVICES; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                 devices[i]->name);
    /* kept until ARMCI_Finalize: letting go now would detach the rank
     * (and mark it finished) before the device attaches it again */
    int e = 0;
    if (!emunic_initialized() && (e = emunic_init()) == 0)
        own_emunic = 1;
    if (e) {
        fprintf(stderr, "ARMCI_Error: ARMCI_Init: not an emunic job (%s); start the program with "
                "emunic-run --nic <%s>\n", strerror(-e), names);
        exit(1);
    }
    const char *nic = emunic_nic_name(), *want = armcii_cfg.device;
    int automatic = !strcmp(want, "auto");
    for (size_t i = 0; i < NDEVICES; i++) {
        if (strcmp(devices[i]->name, automatic ? nic : want))
            continue;
        if (strcmp(devices[i]->name, nic)) {
            fprintf(stderr, "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=%s, but this job's NIC is %s "
                    "(set ARMCI_DEVICE=%s or auto, or start the job with emunic-run --nic %s)\n",
                    want, nic, nic, want);
            exit(1);
        }
        return devices[i];
    }
    if (automatic)
        fprintf(stderr, "ARMCI_Error: ARMCI_Init: this job's NIC is %s and the runtime has no "
                "device for it (devices: %s)\n", nic, names);
    else
        fprintf(stderr, "ARMCI_Error: ARMCI_Init: ARMCI_DEVICE=%s is not a device (devices: %s, "
                "or auto)\n", want, names);
    exit(1);
}

int ARMCI_Init(void)
{
    ARMCII_SERIAL;
    if (initialized++)
        return 0;
    armcii_config_load();
    static const struct adev_handlers h = {on_small, on_notify};
    job.alloc = heap_alloc;
    job.release = heap_release;
    armcii_dev = choose_device();
    struct adev_handlers dev_h = h;
    int rc = 0, nmembers = armcii_mpi_members(&members);
    if (nmembers < 0)
        armcii_error(1, "ARMCI_Init: out of memory");
    if (nmembers && armcii_subset_begin(members, nmembers, (int)emunic_size(), (int)emunic_rank(),
                                        &h, &dev_h))
        armcii_error(1, "ARMCI_Init_mpi_comm: the communicator's ranks are not the job's "
                     "(%d ranks, job rank %u among them?)", nmembers, emunic_rank());
    job.members = members;
    job.nmembers = nmembers;
    rc = armcii_dev->init(&job, &dev_h, armcii_cfg.helper);
    if (!rc && nmembers) {
        const struct armci_device *view = armcii_subset_end(armcii_dev, &job);
        if (!view) {
            armcii_dev->finalize();
            rc = -ENOMEM;
        }
        armcii_dev = view;
    }
    if (rc) {
        initialized = 0;
        fprintf(stderr, "ARMCI_Error: ARMCI_Init: the %s device could not start (%d)\n",
                emunic_nic_name(), rc);
        exit(1);
    }
    armcii_config_check();
    if (group_by_node() || armcii_ops_init(job.nproc) || armcii_order_init(job.nproc) ||
        armcii_p2p_init() || armcii_coll_init())
        armcii_error(1, "ARMCI_Init: out of memory");
    if (armcii_chan_init())
        armcii_error(1, "ARMCI_Init: out of memory");
    if (armcii_cfg.helper && armcii_server_of(job.me) == job.me) {
        if (pthread_create(&helper_thread, NULL, helper_main, NULL) != 0)
            armcii_error(1, "ARMCI_Init: cannot start the helper thread");
        helper_running = 1;
    }
    armcii_coll_barrier(armcii_group_world());
    if (armcii_cfg.verbose && job.me == 0)
        armcii_config_print(armcii_dev->name, job.nproc, job.nnodes);
    return 0;
}

int ARMCI_Init_args(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return ARMCI_Init();
}

int ARMCI_Init_thread(int armci_requested)
{
    (void)armci_requested; /* any level: public calls are serialised (serial.h) */
    return ARMCI_Init();
}

#if defined(EMUNIC_ARMCI_MPI) && EMUNIC_ARMCI_MPI
/* As GA's ARMCI: nonzero on success (GA_Initialize_comm initializes GA
 * only then). ARMCI's world is comm: its ranks are ARMCI's procs, and the
 * job's other ranks may run nothing, or an ARMCI of their own over another
 * communicator (core/subset.c). */
int ARMCI_Init_mpi_comm(MPI_Comm comm)
{
    ARMCII_SERIAL;
    int n = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &n) != MPI_SUCCESS) {
        fprintf(stderr, "ARMCI_Error: ARMCI_Init_mpi_comm: the communicator is not valid\n");
        exit(1);
    }
    if (!initialized)
        armcii_mpi_set_init_comm(comm);
    return ARMCI_Init() == 0;
}
#else
/* Declared by armci.h only next to <mpi.h>; the communicator's type varies
 * between MPI libraries, and the job is always emunic's whole job. */
int ARMCI_Init_mpi_comm(void *comm);
int ARMCI_Init_mpi_comm(void *comm)
{
    (void)comm;
    return ARMCI_Init() == 0; /* nonzero on success, as GA's ARMCI */
}
#endif

int ARMCI_Initialized(void)
{
    return initialized > 0;
}

/* ARMCI_STATS=1: what the options did, one line per rank (the server
 * counters belong to the rank hosting the helper). */
static void print_stats(void)
{
    fprintf(stderr,
            "armci stats rank %d: requests %lu grants %lu credit_waits %lu flush_ack %lu flush_put %lu "
            "flush_send %lu flush_noop %lu handoffs %lu handoff_stalls %lu srv_requests %lu "
            "srv_acks %lu p2p_credit_waits %lu\n",
            job.me, armcii_nreq, armcii_ngrants, armcii_credit_waits, armcii_nflush_ack, armcii_nflush_put,
            armcii_nflush_send, armcii_nflush_noop, armcii_handoffs, armcii_handoff_stalls,
            armcii_srv_requests, armcii_srv_acks, armcii_p2p_credit_waits);
}

int ARMCI_Finalize(void)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Finalize");
    if (--initialized > 0)
        return 0;
    initialized = 1; /* still usable while shutting down */
    ARMCI_AllFence();
    armcii_coll_barrier(armcii_group_world());
    if (armcii_cfg.stats)
        print_stats();
    if (helper_running) {
        atomic_store(&helper_stop, 1);
        armcii_dev->wakeup(ADEV_CTX_HELPER);
        pthread_join(helper_thread, NULL);
        helper_running = 0;
    }
    armcii_chan_finalize();
    armcii_handoff_finalize();
    armcii_server_finalize();
    armcii_sync_finalize();
    armcii_coll_finalize();
    armcii_p2p_finalize();
    armcii_mem_finalize();
    armcii_dev->finalize();
    free(members);
    members = NULL;
    if (own_emunic) {
        emunic_finalize();
        own_emunic = 0;
    }
    armcii_order_finalize();
    armcii_ops_finalize();
    free(node_first);
    free(node_count);
    free(node_ranks);
    initialized = 0;
    return 0;
}

void ARMCI_Cleanup(void)
{
    /* nothing outlives the process: the job's shared memory is emunic-run's */
}

void ARMCI_Barrier(void)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Barrier");
    ARMCI_AllFence();
    armcii_coll_barrier(armcii_group_world());
}
