/* An experiment, not a feature: what Sandia OpenSHMEM would gain if the
 * memory it exposes were shared memory the NIC copies with one memcpy
 * instead of private memory it reaches with process_vm_readv/writev.
 * Preloaded into an unmodified SOS program, it serves SOS's symmetric heap
 * (its one large anonymous mmap with an address hint) from this rank's
 * emunic heap and ignores SOS's munmap of it:
 *   SHMEM_SYMMETRIC_SIZE=64M LD_PRELOAD=libsos_shm_heap.so \
 *       emunic-run -N 2 -n 1 --nic portals -- shmem_bw_put_perf
 * The heap must fit the emunic heap (emunic-run --heap, default 128M).
 * SOS's static data, bounce buffers and everything else stay private. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emunic/emunic.h"

#define SOS_HEAP_MIN (8u << 20) /* SOS's heap is the first anonymous mmap this big */

static char *lo, *hi;

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "sos_shm_heap: no %s\n", name);
        abort();
    }
    return f;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    if (!real)
        real = (void *(*)(void *, size_t, int, int, int, off_t))next("mmap");
    if (!lo && addr && len >= SOS_HEAP_MIN && (flags & MAP_ANONYMOUS) && (flags & MAP_PRIVATE) &&
        !(flags & MAP_FIXED) && emunic_init() == 0) {
        long page = sysconf(_SC_PAGESIZE);
        char *p = emunic_malloc(len + (size_t)page);
        if (p) {
            lo = (char *)(((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1));
            hi = lo + len;
            return lo; /* addr was only a hint */
        }
        fprintf(stderr, "sos_shm_heap: %zu bytes do not fit the emunic heap (emunic-run --heap); heap stays private\n",
                len);
    }
    return real(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
    static int (*real)(void *, size_t);
    if (!real)
        real = (int (*)(void *, size_t))next("munmap");
    if (lo && (char *)addr >= lo && (char *)addr < hi)
        return 0; /* part of the emunic heap, released with the job */
    return real(addr, len);
}
