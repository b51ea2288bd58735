/* Blue Gene/P shim: the part of the system programming interface
 * (`#include <spi/bgp_SPI.h>`) DCMF clients use: which core a process runs
 * on, and the lockbox, BG/P's node-wide hardware locks and counters. Names,
 * types, signatures and values are BG/P's; the code is emunic's own.
 *
 * Under emunic-run an emulated node's ranks play the node's cores: rank
 * EMUNIC_LOCAL_RANK runs on core EMUNIC_LOCAL_RANK % 4. The lockbox is a
 * page of lock words in a shared-memory object of the job and node
 * (<EMUNIC_SHM_DIR>/emunic.<job>.lockbox.n<node>), so the ranks of one
 * emulated node really exclude each other and ranks of other nodes do not
 * meet them; emunic-run removes it when the job ends. Outside
 * emunic-run the lockbox is private to the process.
 *
 * Differences from the hardware: lock id 0..1023 always allocates (the
 * same id on two ranks of a node names the same lock, which is how BG/P
 * cores meet on one, and numcores may exceed 4 since emulated nodes may
 * have more ranks); the allocation flags (LOCKBOX_ORDERED_ALLOC) are
 * accepted and ignored; a contended LockBox_MutexLock sleeps on a futex
 * after a short spin instead of spinning on the bus.
 * Needs POSIX and Linux declarations (gcc's default gnu modes, or
 * _GNU_SOURCE / _DEFAULT_SOURCE) and C11 atomics.
 *
 * Kernel_PhysicalProcessorID and Kernel_ProcessCount are also functions
 * of libdcmf, for programs that call them without this header. */
#ifndef EMUNIC_BGP_SPI_H
#define EMUNIC_BGP_SPI_H

/* strict ISO modes hide syscall(), ftruncate() and MAP_ANONYMOUS: say so
 * once instead of a page of implicit-declaration errors */
#if defined(__STRICT_ANSI__) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#error "spi/bgp_SPI.h needs POSIX and Linux declarations: build with -std=gnu11 or define _DEFAULT_SOURCE"
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpcore/ppc450_inlines.h>

/* ---- cores ---- */

static inline unsigned emu_bgp_env_(const char *name, unsigned dflt)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return dflt;
    unsigned long v = strtoul(s, &end, 10);
    return *end ? dflt : (unsigned)v;
}

/* The PPC450 core (0..3) the caller runs on. */
static inline int Kernel_PhysicalProcessorID(void)
{
    unsigned lr = emu_bgp_env_("EMUNIC_LOCAL_RANK", ~0u);
    if (lr != ~0u)
        return (int)(lr % 4);
#ifdef _GNU_SOURCE
    int cpu = sched_getcpu(); /* not under emunic-run: the host CPU stands in */
    return cpu < 0 ? 0 : cpu % 4;
#else
    return 0;
#endif
}

/* Processes on this node (1, 2 or 4 on BG/P; the emulated node's ranks). */
static inline int Kernel_ProcessCount(void)
{
    return (int)emu_bgp_env_("EMUNIC_LOCAL_SIZE", 1);
}

/* ---- lockbox ---- */

#define LOCKBOX_ORDERED_ALLOC 0x100 /* allocation rendezvous in core order */

typedef uint32_t *LockBox_Counter_t;
typedef LockBox_Counter_t LockBox_Mutex_t;

#define EMU_LOCKBOX_IDS_ 1024
#define EMU_LOCKBOX_STRIDE_ 16 /* words: one 64-byte line per lock */
#define EMU_LOCKBOX_BYTES_ (EMU_LOCKBOX_IDS_ * EMU_LOCKBOX_STRIDE_ * sizeof(uint32_t))

/* The node's lock words, mapped once per translation unit (every mapping
 * shows the same object). NULL with errno set on failure. */
static inline uint32_t *emu_lockbox_base_(void)
{
    static _Atomic(uint32_t *) base;
    uint32_t *b = atomic_load_explicit(&base, memory_order_acquire);
    if (b)
        return b;
    const char *job = getenv("EMUNIC_JOBID");
    void *p;
    if (job && *job) {
        const char *dir = getenv("EMUNIC_SHM_DIR");
        char path[512];
        int n = snprintf(path, sizeof path, "%s/emunic.%s.lockbox.n%u", dir && *dir ? dir : "/dev/shm",
                         job, emu_bgp_env_("EMUNIC_NODE", 0));
        if (n < 0 || (size_t)n >= sizeof path) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        /* every rank creates-or-opens and sizes it: same size, zero-filled,
         * so whoever comes first, no lock word is ever reset */
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
            return NULL;
        if (ftruncate(fd, (off_t)EMU_LOCKBOX_BYTES_) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return NULL;
        }
        p = mmap(NULL, EMU_LOCKBOX_BYTES_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
    } else {
        p = mmap(NULL, EMU_LOCKBOX_BYTES_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    }
    if (p == MAP_FAILED)
        return NULL;
    if (!atomic_compare_exchange_strong(&base, &b, (uint32_t *)p)) {
        munmap(p, EMU_LOCKBOX_BYTES_); /* another thread mapped it first */
        return b;
    }
    return (uint32_t *)p;
}

/* Counter (or mutex) number `desired` (0..1023) of this node. mastercore
 * and flags are accepted for BG/P's allocation rendezvous and ignored.
 * Returns 0, EINVAL for a bad id or numcores, -1 with errno set when the
 * lockbox cannot be mapped. */
static inline int LockBox_AllocateCounter(uint32_t desired, LockBox_Counter_t *ptr, uint32_t mastercore,
                                          uint32_t numcores, uint32_t flags)
{
    (void)mastercore;
    (void)flags;
    if (!ptr || numcores == 0 || desired >= EMU_LOCKBOX_IDS_)
        return EINVAL;
    uint32_t *b = emu_lockbox_base_();
    if (!b)
        return -1;
    *ptr = b + (size_t)desired * EMU_LOCKBOX_STRIDE_;
    return 0;
}

static inline int LockBox_AllocateMutex(uint32_t desired, LockBox_Mutex_t *ptr, uint32_t mastercore,
                                        uint32_t numcores, uint32_t flags)
{
    return LockBox_AllocateCounter(desired, ptr, mastercore, numcores, flags);
}

static inline uint32_t LockBox_Query(LockBox_Counter_t c)
{
    return atomic_load_explicit(EMU_BGP_ATOMIC32_(c), memory_order_seq_cst);
}
/* Not atomic with respect to the fetch operations on BG/P either. */
static inline void LockBox_Write(LockBox_Counter_t c, uint32_t value)
{
    atomic_store_explicit(EMU_BGP_ATOMIC32_(c), value, memory_order_seq_cst);
}
static inline uint32_t LockBox_FetchAndInc(LockBox_Counter_t c)
{
    return atomic_fetch_add_explicit(EMU_BGP_ATOMIC32_(c), 1, memory_order_seq_cst);
}
static inline uint32_t LockBox_FetchAndDec(LockBox_Counter_t c)
{
    return atomic_fetch_sub_explicit(EMU_BGP_ATOMIC32_(c), 1, memory_order_seq_cst);
}
static inline uint32_t LockBox_FetchAndClear(LockBox_Counter_t c)
{
    return atomic_exchange_explicit(EMU_BGP_ATOMIC32_(c), 0, memory_order_seq_cst);
}

/* A mutex word is 0 when free, 1 when held, 2 when held and someone may
 * sleep on it (so the unlock must wake); LockBox_Query > 0 means locked,
 * as on BG/P. The futex is a shared one: the word lives in a mapping that
 * other processes share. */
static inline long emu_lockbox_futex_(uint32_t *w, int op, uint32_t val)
{
    return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

/* Returns 0 when the caller holds the mutex, EBUSY (and no change) when
 * someone else does. */
static inline int LockBox_MutexTryLock(LockBox_Mutex_t m)
{
    uint32_t free_ = 0;
    return atomic_compare_exchange_strong_explicit(EMU_BGP_ATOMIC32_(m), &free_, 1, memory_order_acquire,
                                                   memory_order_relaxed)
               ? 0
               : EBUSY;
}

static inline int LockBox_MutexLock(LockBox_Mutex_t m)
{
    /* the hardware spins; a short spin covers the uncontended hand-over,
     * then sleep so that a waiter does not take the CPU from the holder on
     * a host with fewer cores than ranks */
    for (int i = 0; i < 64; i++) {
        if (LockBox_MutexTryLock(m) == 0)
            return 0;
        if (i >= 8)
            sched_yield();
    }
    while (atomic_exchange_explicit(EMU_BGP_ATOMIC32_(m), 2, memory_order_acquire) != 0)
        emu_lockbox_futex_(m, FUTEX_WAIT, 2);
    return 0;
}

static inline int LockBox_MutexUnlock(LockBox_Mutex_t m)
{
    if (atomic_exchange_explicit(EMU_BGP_ATOMIC32_(m), 0, memory_order_release) == 2)
        emu_lockbox_futex_(m, FUTEX_WAKE, 1);
    return 0;
}

#endif
