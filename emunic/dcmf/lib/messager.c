/* The messager: start-up and shut-down, configuration, the critical
 * section, the machine's shape (an emulated BG/P torus) and its clocks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcmf_lib.h"

struct dcmfl_state dcmfl;
int32_t DCMF_CriticalSection_flag;

static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&dcmfl.cs, &a);
    pthread_mutexattr_destroy(&a);
}

/* ---- errors ---- */

DCMF_Result dcmfl_fail(DCMF_Result rc, const char *fn, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "emunic dcmf: rank %u: %s: %s\n", dcmfl.rank, fn, buf);
    return rc;
}

DCMF_Result dcmfl_need_init(const char *fn)
{
    if (dcmfl.refs > 0)
        return DCMF_SUCCESS;
    return dcmfl_fail(DCMF_ERROR, fn, "the messager is not initialised (call DCMF_Messager_initialize)");
}

DCMF_Result dcmfl_check_consistency(const char *fn, DCMF_Consistency c)
{
    if ((unsigned)c > DCMF_WEAK_CONSISTENCY)
        return dcmfl_fail(DCMF_INVAL, fn, "consistency %d is not a DCMF_Consistency", (int)c);
    return DCMF_SUCCESS;
}

DCMF_Result dcmfl_check_rank(const char *fn, size_t rank)
{
    if (rank >= dcmfl.size)
        return dcmfl_fail(DCMF_INVAL, fn, "rank %zu out of range (size %u)", rank, dcmfl.size);
    return DCMF_SUCCESS;
}

DCMF_Result dcmfl_check_free(const char *fn, const void *p, size_t len)
{
    if (dcmfl_busy_overlaps(p, len))
        return dcmfl_fail(DCMF_INVAL, fn, "the request is still in use by an operation that has not completed");
    return DCMF_SUCCESS;
}

DCMF_Result dcmfl_check_network(const char *fn, DCMF_Network net)
{
    if ((unsigned)net >= DCMF_NETWORK_COUNT)
        return dcmfl_fail(DCMF_INVAL, fn, "network %d is not a DCMF_Network", (int)net);
    if (net == DCMF_SOCKET_NETWORK)
        return dcmfl_fail(DCMF_UNIMPL, fn, "emunic has no socket network");
    return DCMF_SUCCESS;
}

struct dcmfl_proto *dcmfl_proto_of(const char *fn, DCMF_Protocol_t *p, enum dcmfl_proto_kind kind)
{
    static const char *const names[] = {"?", "send", "control", "put", "get",
                                        "global barrier", "global broadcast",
                                        "global allreduce", "multicast", "many-to-many"};
    struct dcmfl_proto *pr = (struct dcmfl_proto *)p;
    if (!pr) {
        dcmfl_fail(DCMF_INVAL, fn, "the protocol registration is NULL");
        return NULL;
    }
    if (pr->magic != DCMFL_PROTO_MAGIC) {
        dcmfl_fail(DCMF_INVAL, fn, "the protocol was never registered");
        return NULL;
    }
    if (pr->kind != (uint32_t)kind) {
        dcmfl_fail(DCMF_INVAL, fn, "a %s protocol was passed where a %s protocol belongs",
                   pr->kind < sizeof names / sizeof *names ? names[pr->kind] : "?", names[kind]);
        return NULL;
    }
    return pr;
}

DCMF_Result dcmfl_post_result(const char *fn, int rc)
{
    if (rc == 0)
        return DCMF_SUCCESS;
    if (rc == -EPIPE)
        return dcmfl_fail(DCMF_SHUTDOWN, fn, "the node's NIC is gone or the job is ending");
    return dcmfl_fail(DCMF_ERROR, fn, "the NIC refused the command (%s)", strerror(-rc));
}

/* ---- critical section ---- */

void DCMF_CriticalSection_enter_func(uint32_t x)
{
    (void)x; /* one global lock: every x names it */
    pthread_once(&cs_once, cs_init);
    pthread_mutex_lock(&dcmfl.cs);
}

void DCMF_CriticalSection_exit_func(uint32_t x)
{
    (void)x;
    pthread_once(&cs_once, cs_init);
    pthread_mutex_unlock(&dcmfl.cs);
}

void DCMF_CriticalSection_cycle_func(uint32_t x)
{
    DCMF_CriticalSection_exit_func(x);
    sched_yield(); /* let a waiting thread in */
    DCMF_CriticalSection_enter_func(x);
}

void dcmfl_lock(void)
{
    if (DCMF_CriticalSection_flag)
        DCMF_CriticalSection_enter_func(0);
}

void dcmfl_unlock(void)
{
    if (DCMF_CriticalSection_flag)
        DCMF_CriticalSection_exit_func(0);
}

/* ---- start-up ---- */

static unsigned env_unsigned(const char *name, unsigned dflt, unsigned lo, unsigned hi)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr, "emunic dcmf: %s=%s is not a number in %u..%u; using %u\n", name, s,
                lo, hi, dflt);
        return dflt;
    }
    return (unsigned)v;
}

unsigned DCMF_Messager_initialize(void)
{
    pthread_once(&cs_once, cs_init);
    if (dcmfl.refs > 0) {
        dcmfl.refs++;
        return 0;
    }
    int e = emunic_init();
    if (e) {
        fprintf(stderr, "emunic dcmf: DCMF_Messager_initialize: not started by emunic-run --nic dcmf (%s)\n",
                strerror(-e));
        exit(1);
    }
    if (strcmp(emunic_nic_name(), "dcmf") != 0) {
        fprintf(stderr, "emunic dcmf: DCMF_Messager_initialize: this job's NIC is '%s'; start it with emunic-run --nic dcmf\n",
                emunic_nic_name());
        exit(1);
    }
    dcmfl.rank = emunic_rank();
    dcmfl.size = emunic_size();
    dcmfl.fifo_depth = env_unsigned("EMUNIC_DCMF_FIFO_DEPTH", 128, 1, 1u << 20);
    dcmfl.idle_sleep_ns = 1000 * (int64_t)env_unsigned("EMUNIC_DCMF_IDLE_SLEEP_US", 5000, 0, 1000000);
    dcmfl.cfg.thread_level = DCMF_THREAD_SINGLE;
    dcmfl.cfg.interrupts = env_unsigned("DCMF_INTERRUPTS", 0, 0, 1) ? DCMF_INTERRUPTS_ON
                                                                     : DCMF_INTERRUPTS_OFF;
    dcmfl.refs = 1;
    /* before anything can dispatch: a peer's first collective message may
     * arrive before this rank makes any collective call */
    dcmfl_collectives_init();
    if (dcmfl.cfg.interrupts == DCMF_INTERRUPTS_ON) {
        DCMF_CriticalSection_flag = 1;
        dcmfl_irq_start();
    }
    return 1;
}

unsigned DCMF_Messager_finalize(void)
{
    if (dcmfl.refs <= 0)
        return 0;
    if (dcmfl.refs > 1) {
        dcmfl.refs--;
        return 0;
    }
    /* the interrupt thread may still be running callbacks that call
     * DCMF: stop it while the messager is still up */
    dcmfl_irq_stop();
    dcmfl.refs = 0;
    /* our own operations in flight belong to nobody now (the NIC stops
     * touching this rank once it has finalized); senders of arrivals we
     * never took are released */
    dcmfl_release_arrivals();
    dcmfl_collectives_fini();
    emunic_finalize();
    dcmfl_fifo_fini();
    dcmfl_later_fini();
    dcmfl_m2m_fini();
    dcmfl_busy_clear();
    int32_t flag = DCMF_CriticalSection_flag;
    memset(&dcmfl.send, 0, sizeof dcmfl.send);
    memset(&dcmfl.ctl, 0, sizeof dcmfl.ctl);
    memset(&dcmfl.internal, 0, sizeof dcmfl.internal);
    memset(&dcmfl.mcast, 0, sizeof dcmfl.mcast);
    memset(&dcmfl.m2m, 0, sizeof dcmfl.m2m);
    dcmfl.nmcast = dcmfl.nm2m = 0;
    dcmfl.nsend = dcmfl.nctl = dcmfl.nput = dcmfl.nget = 0;
    dcmfl.fifo_used = 0;
    DCMF_CriticalSection_flag = flag;
    return 1;
}

DCMF_Result DCMF_Messager_configure(DCMF_Configure_t *config, DCMF_Configure_t *out)
{
    DCMF_Result rc = dcmfl_need_init("DCMF_Messager_configure");
    if (rc != DCMF_SUCCESS)
        return rc;
    if (config) {
        DCMF_Configure_t in = *config; /* config and out may be the same */
        if ((unsigned)in.thread_level > DCMF_THREAD_MULTIPLE)
            return dcmfl_fail(DCMF_INVAL, "DCMF_Messager_configure", "thread level %d is not a DCMF_Thread",
                              (int)in.thread_level);
        if ((unsigned)in.interrupts > DCMF_INTERRUPTS_ON)
            return dcmfl_fail(DCMF_INVAL, "DCMF_Messager_configure", "interrupts %d is not a DCMF_Interrupts",
                              (int)in.interrupts);
        dcmfl.cfg.thread_level = in.thread_level;
        /* the flag is read without a lock: set it before an interrupt
         * thread starts, and never write it while one runs */
        if (!DCMF_CriticalSection_flag &&
            (in.thread_level > DCMF_THREAD_FUNNELED || in.interrupts == DCMF_INTERRUPTS_ON))
            DCMF_CriticalSection_flag = 1;
        if (in.interrupts != dcmfl.cfg.interrupts) {
            dcmfl.cfg.interrupts = in.interrupts;
            if (in.interrupts == DCMF_INTERRUPTS_ON)
                dcmfl_irq_start();
            else
                dcmfl_irq_stop();
        }
    }
    if (out)
        *out = dcmfl.cfg;
    return DCMF_SUCCESS;
}

size_t DCMF_Messager_rank(void) { return dcmfl.rank; }
size_t DCMF_Messager_size(void) { return dcmfl.size; }

DCMF_Result DCMF_Messager_suspend(void)
{
    return dcmfl_fail(DCMF_UNIMPL, "DCMF_Messager_suspend", "suspending the message layer is not supported by emunic");
}

DCMF_Result DCMF_Messager_resume(void)
{
    return dcmfl_fail(DCMF_UNIMPL, "DCMF_Messager_resume", "suspending the message layer is not supported by emunic");
}

DCMF_Result DCMF_Error_register(DCMF_Error_request_t *req, DCMF_GlobalError func)
{
    if (!req)
        return dcmfl_fail(DCMF_INVAL, "DCMF_Error_register", "the request storage is NULL");
    dcmfl.on_error = func;
    return DCMF_SUCCESS;
}

/* ---- time: an 850 MHz PowerPC 450 timebase ---- */

#define DCMFL_CLOCK_MHZ 850

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double DCMF_Timer(void) { return (double)now_ns() * 1e-9; }
double DCMF_Tick(void) { return 1.0 / (DCMFL_CLOCK_MHZ * 1e6); }
unsigned long long DCMF_Timebase(void)
{
    return (unsigned long long)now_ns() * DCMFL_CLOCK_MHZ / 1000u;
}

/* ---- shape: nodes on an X x Y x Z torus, ranks on a node along T ---- */

static void torus_dims(uint32_t n, uint32_t d[3])
{
    /* the most cube-like factorisation, largest dimension first (X) */
    uint32_t best[3] = {n, 1, 1};
    uint32_t spread = n;
    for (uint32_t z = 1; z * z * z <= n; z++) {
        if (n % z)
            continue;
        for (uint32_t y = z; y * y <= n / z; y++) {
            if ((n / z) % y)
                continue;
            uint32_t x = n / z / y;
            if (x - z < spread) {
                spread = x - z;
                best[0] = x;
                best[1] = y;
                best[2] = z;
            }
        }
    }
    memcpy(d, best, sizeof best);
}

static void coords_of(uint32_t node, const uint32_t d[3], uint32_t c[3])
{
    c[0] = node % d[0];
    c[1] = node / d[0] % d[1];
    c[2] = node / d[0] / d[1];
}

#define DCMFL_PSET_NODES 32 /* compute nodes per I/O node */

DCMF_Result DCMF_Hardware(DCMF_Hardware_t *hw)
{
    DCMF_Result rc = dcmfl_need_init("DCMF_Hardware");
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!hw)
        return dcmfl_fail(DCMF_INVAL, "DCMF_Hardware", "hw is NULL");
    memset(hw, 0, sizeof *hw);
    uint32_t nn = emunic_nnodes(), node = emunic_node(), d[3], c[3];
    torus_dims(nn, d);
    coords_of(node, d, c);
    hw->lrank = hw->prank = dcmfl.rank;
    hw->lsize = hw->psize = dcmfl.size;
    hw->tSize = emunic_local_size();
    hw->xSize = d[0];
    hw->ySize = d[1];
    hw->zSize = d[2];
    hw->tCoord = emunic_local_rank();
    hw->xCoord = c[0];
    hw->yCoord = c[1];
    hw->zCoord = c[2];
    /* a midplane (8 nodes a side) and up is wired as a torus */
    hw->tTorus = 1;
    hw->xTorus = d[0] >= 8;
    hw->yTorus = d[1] >= 8;
    hw->zTorus = d[2] >= 8;
    hw->sizeOfPset = nn < DCMFL_PSET_NODES ? nn : DCMFL_PSET_NODES;
    hw->idOfPset = node / DCMFL_PSET_NODES;
    hw->rankInPset = node % DCMFL_PSET_NODES;
    hw->clockMHz = DCMFL_CLOCK_MHZ;
    hw->memSize = 2048;
    snprintf(hw->name, sizeof hw->name, "emunic-bgp-R%02u-x%uy%uz%u", hw->idOfPset, c[0], c[1], c[2]);
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Messager_rank2network(size_t rank, DCMF_Network network, DCMF_NetworkCoord_t *address)
{
    const char *fn = "DCMF_Messager_rank2network";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS || (rc = dcmfl_check_rank(fn, rank)) != DCMF_SUCCESS)
        return rc;
    if (!address)
        return dcmfl_fail(DCMF_INVAL, fn, "address is NULL");
    uint32_t per = emunic_local_size(), d[3], c[3];
    torus_dims(emunic_nnodes(), d);
    coords_of((uint32_t)rank / per, d, c);
    memset(address, 0, sizeof *address);
    switch (network) {
    case DCMF_DEFAULT_NETWORK:
    case DCMF_TORUS_NETWORK:
        address->network = DCMF_TORUS_NETWORK;
        address->torus.x = c[0];
        address->torus.y = c[1];
        address->torus.z = c[2];
        address->torus.t = rank % per;
        return DCMF_SUCCESS;
    case DCMF_SHMEM_NETWORK:
        address->network = DCMF_SHMEM_NETWORK;
        address->shmem.rank = rank;
        address->shmem.peer = rank % per;
        return DCMF_SUCCESS;
    case DCMF_SOCKET_NETWORK:
        return dcmfl_fail(DCMF_UNIMPL, fn, "emunic has no socket network");
    default:
        return dcmfl_fail(DCMF_INVAL, fn, "network %d is not a DCMF_Network", (int)network);
    }
}

DCMF_Result DCMF_Messager_network2rank(const DCMF_NetworkCoord_t *address, size_t *rank,
                                       DCMF_Network *network)
{
    const char *fn = "DCMF_Messager_network2rank";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!address || !rank)
        return dcmfl_fail(DCMF_INVAL, fn, "address or rank is NULL");
    uint32_t per = emunic_local_size(), d[3];
    torus_dims(emunic_nnodes(), d);
    size_t r;
    switch (address->network) {
    case DCMF_DEFAULT_NETWORK:
    case DCMF_TORUS_NETWORK:
        if (address->torus.x >= d[0] || address->torus.y >= d[1] || address->torus.z >= d[2] ||
            address->torus.t >= per)
            return dcmfl_fail(DCMF_INVAL, fn, "(%zu,%zu,%zu,%zu) is outside the %ux%ux%ux%u torus",
                              address->torus.x, address->torus.y, address->torus.z,
                              address->torus.t, d[0], d[1], d[2], per);
        r = ((address->torus.z * d[1] + address->torus.y) * d[0] + address->torus.x) * per +
            address->torus.t;
        break;
    case DCMF_SHMEM_NETWORK:
        if (address->shmem.rank >= dcmfl.size)
            return dcmfl_fail(DCMF_INVAL, fn, "shmem rank %zu out of range", address->shmem.rank);
        r = address->shmem.rank;
        break;
    case DCMF_SOCKET_NETWORK:
        return dcmfl_fail(DCMF_UNIMPL, fn, "emunic has no socket network");
    default:
        return dcmfl_fail(DCMF_INVAL, fn, "network %d is not a DCMF_Network", (int)address->network);
    }
    *rank = r;
    if (network)
        *network = address->network == DCMF_DEFAULT_NETWORK ? DCMF_TORUS_NETWORK : address->network;
    return DCMF_SUCCESS;
}

/* ---- DMA channels: one per rank here ---- */

DCMF_Result DCMF_Channel_info(DCMF_Protocol_t *p, unsigned *base, unsigned *count, unsigned *current)
{
    (void)p;
    if (base)
        *base = 0;
    if (count)
        *count = 1;
    if (current)
        *current = 0;
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Channel_acquire(unsigned channel)
{
    if (channel != 0 && channel != DCMF_CHANNEL_ALL)
        return dcmfl_fail(DCMF_INVAL, "DCMF_Channel_acquire", "channel %u does not exist (this NIC has 1)", channel);
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Channel_release(void) { return DCMF_SUCCESS; }

DCMF_Result DCMF_Channel_handoff(unsigned channel, DCMF_Callback_t cb)
{
    (void)cb;
    return dcmfl_fail(DCMF_UNIMPL, "DCMF_Channel_handoff", "channel %u: hand-off between threads is not supported by emunic", channel);
}

unsigned DCMF_Channel_current(void) { return 0; }

int DCMF_Messager_use_channel(unsigned channel)
{
    return DCMF_Channel_acquire(channel);
}
