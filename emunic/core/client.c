/* Rank side: attach to the job, own the heap and region table, take
 * completions off the queue, and wait without burning the host. */
#include "client.h"
#include "promote.h"
#include "emunic/slice.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct emu_client emu_cl = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .cq_mu = PTHREAD_MUTEX_INITIALIZER,
    .heap_fd = -1,
};

#define CL emu_cl

static int env_u32(const char *name, uint32_t *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || x > UINT32_MAX)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

/* The heap is a memfd so the NIC can map it and copy with memcpy. We hold
 * it for the life of the process: that is how the NIC and the node's other
 * ranks find it (emu_memfd_open on our pid). */
static int heap_open(void)
{
    if (CL.heap_base)
        return 0;
    char name[EMU_OBJ_NAME_MAX], what[32];
    snprintf(what, sizeof what, "heap.%u", CL.rank);
    if (emu_obj_name(name, sizeof name, CL.job.geo.jobid, what) != 0)
        return -ENAMETOOLONG;
    uint64_t size = CL.job.geo.heap_size;
    int fd = emu_memfd_create(name, size, false);
    if (fd < 0)
        return fd;
    size_t got;
    void *p = emu_fd_map(fd, PROT_READ | PROT_WRITE, &got);
    if (!p) {
        int e = errno;
        close(fd);
        return -e;
    }
    CL.heap_fd = fd;
    if (emu_heap_init(&CL.heap, size) != 0) {
        munmap(p, size);
        return -ENOMEM;
    }
    CL.heap_base = p;
    return 0;
}

static void heap_publish(void)
{
    struct emu_region *r0 = &CL.me->regions[0];
    r0->base = (uint64_t)(uintptr_t)CL.heap_base;
    r0->len = CL.job.geo.heap_size;
    r0->perm = EMU_PERM_ALL;
    atomic_store_explicit(&r0->gen, EMU_KEY_HEAP >> EMU_REGION_IDX_BITS, memory_order_release);
    atomic_store_explicit(&CL.me->heap_base, (uint64_t)(uintptr_t)CL.heap_base, memory_order_release);
}

int emunic_init(void)
{
    pthread_mutex_lock(&CL.mu);
    if (CL.refs > 0) {
        CL.refs++;
        pthread_mutex_unlock(&CL.mu);
        return 0;
    }
    int rc = 0;
    const char *jobid = getenv("EMUNIC_JOBID");
    uint32_t rank;
    if (!jobid || env_u32("EMUNIC_RANK", &rank) != 0) {
        rc = -ENOENT;
        goto out;
    }
    /* writable: our own entry and queues; a stray store anywhere else in
     * the segment faults here */
    rc = emu_job_attach_rank(&CL.job, jobid, rank);
    if (rc)
        goto out;
    const struct emu_job_geo *g = &CL.job.geo;
    CL.rank = rank;
    CL.size = g->nranks;
    CL.nnodes = g->nnodes;
    CL.lsize = g->ranks_per_node;
    CL.node = rank / g->ranks_per_node;
    CL.local = rank % g->ranks_per_node;
    CL.me = &CL.job.ranks[rank];
    CL.bell = &CL.me->nic_bell;
    if (emu_ring_attach(&CL.cmd, emu_job_cmd_ring(&CL.job, rank), g->cmd_slots) ||
        emu_ring_attach(&CL.cq, emu_job_cq_ring(&CL.job, rank), g->cq_slots)) {
        emu_job_detach(&CL.job);
        rc = -EPROTO;
        goto out;
    }
    /* Our node's doorbell and who may trace us come from the launcher, not
     * from the segment, which a rank that opens it by name can write. */
    uint32_t efd, tracer;
    if (env_u32("EMUNIC_DOORBELL_FD", &efd) != 0 || efd > INT32_MAX || fcntl((int)efd, F_GETFD) < 0) {
        fprintf(stderr, "emunic: EMUNIC_DOORBELL_FD is not an open descriptor: start ranks with emunic-run\n");
        emu_job_detach(&CL.job);
        rc = -EBADF;
        goto out;
    }
    CL.doorbell_fd = (int)efd;
    uint32_t nic;
    CL.nic_pid = env_u32("EMUNIC_NIC_PID", &nic) == 0 && nic <= INT32_MAX ? (int32_t)nic : 0;
    /* The NIC daemons read and write our private memory with process_vm_*;
     * under Yama that needs our consent, which we give the launcher (whose
     * descendants the daemons are) and nobody else. EINVAL: no Yama. */
    if (env_u32("EMUNIC_LAUNCHER_PID", &tracer) == 0 && tracer > 0 && tracer <= INT32_MAX)
        prctl(PR_SET_PTRACER, (unsigned long)tracer, 0, 0, 0);
    atomic_store(&CL.me->pid, (int32_t)getpid());
    rc = heap_open();
    if (rc) {
        emu_job_detach(&CL.job);
        goto out;
    }
    heap_publish();
    CL.poll_ns = emu_poll_budget_ns(g->nranks + g->nnodes);
    atomic_store(&CL.me->state, EMU_RANK_UP);
    CL.refs = 1;
out:
    pthread_mutex_unlock(&CL.mu);
    return rc;
}

int emunic_finalize(void)
{
    pthread_mutex_lock(&CL.mu);
    if (CL.refs == 0) {
        pthread_mutex_unlock(&CL.mu);
        return -EINVAL;
    }
    if (--CL.refs == 0) {
        atomic_store(&CL.me->state, EMU_RANK_DONE);
        emu_job_detach(&CL.job);
        CL.me = NULL;
        CL.bell = NULL;
        free(CL.stash);
        CL.stash = NULL;
        CL.stash_head = CL.stash_n = CL.stash_cap = 0;
    }
    pthread_mutex_unlock(&CL.mu);
    return 0;
}

int emunic_initialized(void) { return CL.refs > 0; }
uint32_t emunic_rank(void) { return CL.rank; }
uint32_t emunic_size(void) { return CL.size; }
uint32_t emunic_node(void) { return CL.node; }
uint32_t emunic_nnodes(void) { return CL.nnodes; }
uint32_t emunic_local_rank(void) { return CL.local; }
uint32_t emunic_local_size(void) { return CL.lsize; }
const char *emunic_nic_name(void) { return CL.refs ? CL.job.geo.nic : ""; }
const char *emunic_jobid(void) { return CL.refs ? CL.job.geo.jobid : ""; }
uint64_t emunic_wakeups(void) { return CL.me ? atomic_load(&CL.me->cq_waiter.wakeups) : 0; }

int emu_client_dead(void)
{
    if (!CL.refs || atomic_load(&CL.job.hdr->abort))
        return 1;
    int32_t pid = CL.nic_pid; /* the launcher's word, not the node table's */
    return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

/* ---- heap ---- */

void *emunic_malloc(size_t size)
{
    if (!CL.refs) {
        errno = EINVAL;
        return NULL;
    }
    pthread_mutex_lock(&CL.mu);
    int64_t off = emu_heap_alloc(&CL.heap, size, 64);
    int err = 0;
    if (off < 0) {
        err = ENOMEM;
    } else if (size && (err = posix_fallocate(CL.heap_fd, off, (off_t)size)) != 0) {
        /* reserve the pages now: memory running out must be an error
         * here, not SIGBUS at the first store */
        emu_heap_free(&CL.heap, (uint64_t)off);
        if (err == ENOSPC || err == ENOMEM)
            fprintf(stderr, "emunic: rank %u: no memory left for a %zu-byte heap block\n", CL.rank, size);
    }
    pthread_mutex_unlock(&CL.mu);
    if (err) {
        errno = err;
        return NULL;
    }
    return CL.heap_base + off;
}

void emunic_free(void *p)
{
    if (!p || !CL.heap_base)
        return;
    pthread_mutex_lock(&CL.mu);
    char *c = p;
    if (c >= CL.heap_base && c < CL.heap_base + CL.heap.size) {
        uint64_t off = (uint64_t)(c - CL.heap_base);
        int64_t len = emu_heap_free(&CL.heap, off);
        if (len > 0) /* give the pages back to tmpfs */
            fallocate(CL.heap_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, len);
        else
            fprintf(stderr, "emunic: rank %u: emunic_free(%p): not a live heap block\n", CL.rank, p);
    } else {
        fprintf(stderr, "emunic: rank %u: emunic_free(%p): not in the emunic heap\n", CL.rank, p);
    }
    pthread_mutex_unlock(&CL.mu);
}

uint64_t emunic_heap_addr(uint32_t rank)
{
    if (!CL.refs || rank >= CL.size)
        return 0;
    return atomic_load_explicit(&CL.job.ranks[rank].heap_base, memory_order_acquire);
}

int emunic_in_heap(const void *p, size_t len)
{
    const char *c = p;
    return CL.heap_base && c >= CL.heap_base &&
           (uint64_t)(c - CL.heap_base) <= CL.heap.size &&
           len <= CL.heap.size - (uint64_t)(c - CL.heap_base);
}

/* ---- regions ---- */

int64_t emunic_expose(const void *base, size_t len, unsigned perm)
{
    if (!CL.refs)
        return -EINVAL;
    if (!perm || (perm & ~(EMU_PERM_ALL | EMU_PERM_PIN)))
        return -EINVAL;
    if (emunic_fault_refuse(EMUNIC_RES_REG))
        return -ENOMEM;
    pthread_mutex_lock(&CL.mu);
    /* slot 0 is the heap and always live, so the search never takes it */
    /* moved before it is published: no NIC reaches it mid-move by its key */
    int slot = emu_promote(CL.me, (uint64_t)(uintptr_t)base, len);
    uint32_t key = emu_region_publish(CL.me->regions, 1, (uint64_t)(uintptr_t)base, len, perm);
    if (key && slot >= 0)
        emu_promote_serve(CL.me, slot, key);
    pthread_mutex_unlock(&CL.mu);
    return key ? (int64_t)key : -ENOSPC;
}

int emunic_unexpose(uint32_t key)
{
    uint32_t idx = emu_region_idx(key);
    if (!CL.refs || idx == 0 || idx >= EMU_MAX_REGIONS)
        return -EINVAL;
    pthread_mutex_lock(&CL.mu);
    int rc = emu_region_retract(CL.me->regions, key);
    if (rc == 0 && atomic_load(&CL.me->space_key) == key)
        atomic_store(&CL.me->space_key, 0);
    if (rc == 0)
        emu_promote_release(CL.me, key);
    pthread_mutex_unlock(&CL.mu);
    return rc ? -ENOENT : 0;
}

int64_t emunic_expose_space(void)
{
    if (!CL.refs)
        return -EINVAL;
    pthread_mutex_lock(&CL.mu);
    uint32_t key = atomic_load(&CL.me->space_key);
    if (!key) {
        key = emu_region_publish(CL.me->regions, 1, 0, UINT64_MAX, EMU_PERM_ALL);
        if (key)
            atomic_store_explicit(&CL.me->space_key, key, memory_order_release);
    }
    pthread_mutex_unlock(&CL.mu);
    return key ? (int64_t)key : -ENOSPC;
}

uint32_t emunic_space_key(uint32_t rank)
{
    if (!CL.refs || rank >= CL.size)
        return 0;
    return atomic_load_explicit(&CL.job.ranks[rank].space_key, memory_order_acquire);
}

void emunic_ring_self(void)
{
    if (CL.refs)
        emu_waiter_notify(&CL.me->cq_waiter);
}

void emunic_expect_hogs(void)
{
    emu_poll_expect_hogs();
    if (CL.refs)
        atomic_fetch_or_explicit(&CL.me->hints, EMU_HINT_HOGS, memory_order_relaxed);
}

/* ---- barrier ---- */

/* Whether a rank from `from` on has exited (or was killed, --keep-going)
 * before entering barrier `want`: it never will. One that only finalized
 * may initialize again and come (PAMI_Client_destroy, then _create). Its
 * count is read after its state, since it may have arrived and exited since. */
static int rank_missing(uint32_t from, uint32_t want)
{
    for (uint32_t r = from; r < CL.size; r++)
        if (atomic_load_explicit(&CL.job.ranks[r].state, memory_order_acquire) == EMU_RANK_GONE &&
            (int32_t)(atomic_load(&CL.job.ranks[r].bar_seq) - want) < 0)
            return 1;
    return 0;
}

/* Each rank counts the barriers it has entered in its own entry and wakes
 * whoever waits on that word; a rank waits until every rank's count has
 * reached its own. Nothing here is written by more than one rank, so no
 * rank's stray store can release or wedge another's barrier. */
int emunic_barrier(void)
{
    if (!CL.refs)
        return -EINVAL;
    uint32_t want = atomic_fetch_add(&CL.me->bar_seq, 1) + 1;
    syscall(SYS_futex, (uint32_t *)&CL.me->bar_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    int64_t start = emu_now_ns();
    for (uint32_t r = 0; r < CL.size;) {
        _Atomic uint32_t *seq = &CL.job.ranks[r].bar_seq;
        uint32_t v = atomic_load(seq);
        if ((int32_t)(v - want) >= 0) {
            r++;
            continue;
        }
        if (emu_now_ns() - start < CL.poll_ns) {
            atomic_fetch_add_explicit(&CL.me->cq_waiter.yields, 1, memory_order_relaxed);
            sched_yield();
            continue;
        }
        /* a read-only view is enough for FUTEX_WAIT on a shared mapping;
         * should the kernel refuse it all the same, sleep rather than spin */
        struct timespec ts = {0, 100000000};
        if (syscall(SYS_futex, (uint32_t *)seq, FUTEX_WAIT, v, &ts, NULL, 0) != 0 &&
            errno != ETIMEDOUT && errno != EAGAIN && errno != EINTR) {
            struct timespec nap = {0, 1000000};
            nanosleep(&nap, NULL);
        }
        if (atomic_load(&CL.job.hdr->abort) || rank_missing(r, want))
            return -EPIPE;
    }
    return 0;
}
