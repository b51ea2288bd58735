/* Moving bytes between ranks. Heap memory, and exposed private memory a
 * rank moved onto a memfd (xfer_promo.c), is mapped here and copied with
 * one memcpy; any other address is reached with process_vm_readv/writev on
 * the owning rank. Private-to-private needs a bounce through our memory:
 * the kernel offers no remote-to-remote copy. */
#include "emunic/ctl.h"
#include "nic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define BOUNCE_BYTES (2u << 20)

int xfer_init(struct emu_nic *nic)
{
    nic->heaps = calloc(nic->nranks, sizeof *nic->heaps);
    nic->bounce = malloc(BOUNCE_BYTES);
    return nic->heaps && nic->bounce && xfer_promo_init(nic) == 0 ? 0 : -ENOMEM;
}

void xfer_fini(struct emu_nic *nic)
{
    for (uint32_t r = 0; nic->heaps && r < nic->nranks; r++)
        if (nic->heaps[r].ptr)
            munmap(nic->heaps[r].ptr, nic->heaps[r].size);
    xfer_promo_fini(nic);
    free(nic->heaps);
    free(nic->bounce);
    free(nic->tickets);
    nic->heaps = NULL;
    nic->bounce = NULL;
    nic->tickets = NULL;
}

/* Latch rank's process and heap, once. The pid the rank published is
 * accepted only if it is the process the launcher started as that rank
 * or a descendant of it (a wrapper may fork); the heap's address in that
 * process is read from the kernel, not from the rank's own entry. Until
 * the rank is up (its heap mapped) nothing is latched and accesses to its
 * memory fail; a pid naming somebody else's process fences the rank. */
static struct heap_map *latch(struct emu_nic *nic, uint32_t rank)
{
    struct heap_map *h = &nic->heaps[rank];
    if (nic->fenced[rank] ||
        atomic_load_explicit(&nic->job.ranks[rank].state, memory_order_acquire) != EMU_RANK_UP)
        return NULL;
    pid_t started = guard_rank_pid(nic, rank);
    /* up means forked: the launcher records the pid right after fork, so
     * a miss is a moment's race, not an absence */
    for (int i = 0; started <= 0 && i < 2000; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        started = guard_rank_pid(nic, rank);
    }
    pid_t claim = atomic_load(&nic->job.ranks[rank].pid);
    if (started <= 0)
        return NULL;
    if (claim <= 0 || (claim != started && !guard_descends(claim, started))) {
        nic_fence(nic, rank, EMU_CTL_PROC, "its pid entry says %d, which is not process %d (started as rank %u) "
                  "nor one of its descendants", (int)claim, (int)started, rank);
        return NULL;
    }
    /* the heap the rank holds under its name: a rank that opened or
     * forged another object would not have it mapped at its heap base */
    char name[EMU_OBJ_NAME_MAX], what[32];
    snprintf(what, sizeof what, "heap.%u", rank);
    if (emu_obj_name(name, sizeof name, nic->job.geo.jobid, what) != 0)
        return NULL;
    int fd = emu_memfd_open(claim, name, O_RDWR);
    if (fd < 0)
        return NULL;
    size_t size;
    void *p = emu_fd_map(fd, PROT_READ | PROT_WRITE, &size);
    if (!p) {
        close(fd);
        return NULL;
    }
    struct stat st;
    uint64_t base = 0;
    if (size == nic->job.geo.heap_size && fstat(fd, &st) == 0)
        base = guard_map_base(claim, st.st_dev, st.st_ino, NULL);
    close(fd);
    if (!base) { /* not mapped there (yet): try again on the next access */
        munmap(p, size);
        return NULL;
    }
    h->ptr = p;
    h->size = size;
    h->rbase = base;
    h->pid = claim;
    return h;
}

static inline struct heap_map *heap_of(struct emu_nic *nic, uint32_t rank)
{
    struct heap_map *h = &nic->heaps[rank];
    return h->pid ? h : latch(nic, rank);
}

char *xfer_heap_ptr(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len)
{
    if (rank >= nic->nranks)
        return NULL;
    struct heap_map *h = heap_of(nic, rank);
    if (!h || !emu_range_within(addr, len, h->rbase, h->size))
        return NULL;
    return h->ptr + (addr - h->rbase);
}

int xfer_latch(struct emu_nic *nic, uint32_t rank)
{
    return rank < nic->nranks && heap_of(nic, rank) != NULL;
}

static pid_t pid_of(struct emu_nic *nic, uint32_t rank)
{
    if (rank >= nic->nranks)
        return 0;
    struct heap_map *h = heap_of(nic, rank);
    return h ? h->pid : 0;
}

/* Where we reach [addr, addr+len) of rank's memory with memcpy, or NULL. */
static char *map_ptr(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len)
{
    char *p = xfer_heap_ptr(nic, rank, addr, len);
    return p ? p : xfer_promo_ptr(nic, rank, pid_of(nic, rank), addr, len);
}

int xfer_mapped(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len)
{
    return map_ptr(nic, rank, addr, len) != NULL;
}

/* One direction of process_vm_*, looping over partial transfers. A rank
 * that has exited (or finished: the state is only a hint, for the status
 * code) gets EMU_E_DEAD, so a target can tell its own failure from an
 * initiator that left before its result came back. */
static int vm_copy(struct emu_nic *nic, uint32_t rank, int to_remote, void *local,
                   uint64_t raddr, uint64_t len)
{
    pid_t pid = pid_of(nic, rank);
    if (pid <= 0)
        return rank < nic->nranks && emu_rank_ended(atomic_load(&nic->job.ranks[rank].state)) ? EMU_E_DEAD
                                                                                               : EMU_E_FAULT;
    EMU_CTR_ADD(nic->ctr, vm_copies, 1);
    uint64_t done = 0;
    while (done < len) {
        struct iovec l = {(char *)local + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(raddr + done), len - done};
        ssize_t n = to_remote ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                              : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return n < 0 && errno == ESRCH ? EMU_E_DEAD : EMU_E_FAULT; /* ESRCH: exited */
        }
        done += (uint64_t)n;
    }
    return EMU_OK;
}

int emu_nic_copy_in(struct emu_nic *nic, uint32_t drank, uint64_t daddr,
                    const void *src, uint64_t len)
{
    char *d = map_ptr(nic, drank, daddr, len);
    if (d) {
        memcpy(d, src, len);
        EMU_CTR_ADD(nic->ctr, shm_copies, 1);
        return EMU_OK;
    }
    return vm_copy(nic, drank, 1, (void *)src, daddr, len);
}

int emu_nic_copy_out(struct emu_nic *nic, void *dst, uint32_t srank,
                     uint64_t saddr, uint64_t len)
{
    char *s = map_ptr(nic, srank, saddr, len);
    if (s) {
        memcpy(dst, s, len);
        EMU_CTR_ADD(nic->ctr, shm_copies, 1);
        return EMU_OK;
    }
    return vm_copy(nic, srank, 0, dst, saddr, len);
}

int emu_nic_copy(struct emu_nic *nic, uint32_t drank, uint64_t daddr,
                 uint32_t srank, uint64_t saddr, uint64_t len)
{
    char *s = map_ptr(nic, srank, saddr, len);
    if (s) /* covers shm->shm (memmove: a rank may copy within its heap) */ {
        char *d = map_ptr(nic, drank, daddr, len);
        if (d) {
            memmove(d, s, len);
            EMU_CTR_ADD(nic->ctr, shm_copies, 1);
            return EMU_OK;
        }
        return emu_nic_copy_in(nic, drank, daddr, s, len);
    }
    char *d = map_ptr(nic, drank, daddr, len);
    if (d)
        return emu_nic_copy_out(nic, d, srank, saddr, len);
    for (uint64_t off = 0; off < len; off += BOUNCE_BYTES) {
        uint64_t n = len - off < BOUNCE_BYTES ? len - off : BOUNCE_BYTES;
        int st = emu_nic_copy_out(nic, nic->bounce, srank, saddr + off, n);
        if (st == EMU_OK)
            st = emu_nic_copy_in(nic, drank, daddr + off, nic->bounce, n);
        if (st != EMU_OK)
            return st;
    }
    return EMU_OK;
}
