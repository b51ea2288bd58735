/* Exposed private memory onto memfds, so NIC daemons can map it and copy
 * with memcpy instead of two process_vm_* calls (docs/core.md "Data path").
 *
 * emunic_expose of a large range of private anonymous memory moves the
 * pages inside it onto a memfd at the same address, contents kept: a
 * userfaultfd holds every thread that touches the range while it moves
 * (no write is lost, no read sees a hole), then the memfd is mapped over
 * it. The rank keeps the memfd open and lists it in its promo[] table;
 * daemons take it with pidfd_getfd and check it against /proc/PID/maps.
 *
 * While exposed, the range is shared with fork children instead of copied
 * on write; unexposed, it moves back onto anonymous memory (allocators
 * expect MADV_DONTNEED to give zeros). Where the kernel refuses any step
 * nothing changes and the NIC keeps using process_vm_* (always correct,
 * slower). */
#include "emunic/job.h"
#include "promote.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel holds other threads while a range moves (userfaultfd), which
 * ThreadSanitizer cannot see: our own accesses to the range then are not
 * its business. */
#if defined(__SANITIZE_THREAD__)
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define UNSEEN_BEGIN() (AnnotateIgnoreReadsBegin(__FILE__, __LINE__), AnnotateIgnoreWritesBegin(__FILE__, __LINE__))
#define UNSEEN_END() (AnnotateIgnoreWritesEnd(__FILE__, __LINE__), AnnotateIgnoreReadsEnd(__FILE__, __LINE__))
#else
#define UNSEEN_BEGIN() ((void)0)
#define UNSEEN_END() ((void)0)
#endif

#define MEMFD_NAME "emunic-private"
#define MIN_DEFAULT (64u << 10)

static uint64_t min_bytes(void)
{
    const char *e = getenv("EMUNIC_PRIVATE_MAP");
    if (e && !strcmp(e, "0"))
        return 0;
    const char *m = getenv("EMUNIC_PRIVATE_MAP_MIN");
    char *end;
    unsigned long long v = m ? strtoull(m, &end, 0) : 0;
    return m && *m && !*end && v ? v : MIN_DEFAULT;
}

/* The mapping holding [lo, hi): 1 private anonymous (can move), 2 one of
 * our memfds (moved before; its inode to *ino), 0 anything else. */
static int classify(uint64_t lo, uint64_t hi, uint64_t sp, unsigned long long *ino)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return 0;
    char line[768];
    int kind = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a, b, off, inode;
        unsigned maj, mn;
        char perm[8];
        int n = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &a, &b, perm, &off, &maj, &mn, &inode, &n) != 7)
            continue;
        if (a > lo || b < hi)
            continue;
        const char *path = line + n;
        /* our own stack may not move under us: we touch it meanwhile */
        if (sp >= a && sp < b)
            break;
        if (!strcmp(perm, "rw-p") && inode == 0 && (*path == '\n' || *path == 0 || !strncmp(path, "[heap]", 6)))
            kind = 1;
        else if (!strcmp(perm, "rw-s") && !strncmp(path, "/memfd:" MEMFD_NAME, 7 + strlen(MEMFD_NAME)) && off == 0 &&
                 a == lo && b == hi) {
            kind = 2;
            *ino = inode;
        }
        break;
    }
    fclose(f);
    return kind;
}

/* Write [off, off+n) of memory src into fd at off: pwrite allocates the
 * file's pages in the kernel, without a page fault each. */
static int put_run(int fd, const char *src, uint64_t off, uint64_t n)
{
    for (uint64_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, src + off + done, n - done, (off_t)(off + done));
        if (w <= 0 && errno != EINTR)
            return -1;
        done += w > 0 ? (uint64_t)w : 0;
    }
    return 0;
}

/* Copy what the range at src holds into memfd fd: only pages that are
 * present or swapped out (/proc/self/pagemap bits 63 and 62), so a large,
 * mostly untouched range (a symmetric heap) does not become a fully
 * allocated memfd. */
static int copy_used(int fd, const char *src, uint64_t len, uint64_t pg)
{
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    uint64_t ent[512];
    int rc = 0;
    for (uint64_t off = 0; off < len && rc == 0;) {
        uint64_t n = (len - off) / pg < 512 ? (len - off) / pg : 512;
        off_t at = (off_t)(((uint64_t)(uintptr_t)src + off) / pg * sizeof ent[0]);
        if (pm < 0 || pread(pm, ent, n * sizeof ent[0], at) != (ssize_t)(n * sizeof ent[0])) {
            rc = put_run(fd, src, off, len - off); /* no map of what is used: all of it */
            break;
        }
        for (uint64_t i = 0; i < n && rc == 0;) {
            uint64_t j = i;
            while (j < n && ent[j] >> 62)
                j++;
            if (j > i)
                rc = put_run(fd, src, off + i * pg, (j - i) * pg);
            i = j + 1;
        }
        off += n * pg;
    }
    if (pm >= 0)
        close(pm);
    return rc;
}

static int uffd_open(uint64_t features)
{
    /* user-mode-only faults need no privilege; a full one also holds the
     * kernel's own accesses (a NIC's process_vm_* into the range) */
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    if (fd < 0)
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
    if (fd < 0)
        return -1;
    struct uffdio_api api = {.api = UFFD_API, .features = features};
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Move [lo, lo+len) onto a new memfd; its descriptor, or -1. */
static int move_range(uint64_t lo, uint64_t len)
{
    int mfd = memfd_create(MEMFD_NAME, MFD_CLOEXEC);
    if (mfd < 0)
        return -1;
    void *old = MAP_FAILED;
    int uffd = -1, ok = 0;
    if (ftruncate(mfd, (off_t)len) != 0)
        goto out;
    if ((uffd = uffd_open(0)) < 0)
        goto out;
    /* a signal handler of ours touching the range would wait on itself */
    sigset_t all, prev;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &prev);
    struct uffdio_register reg = {.range = {.start = lo, .len = len}, .mode = UFFDIO_REGISTER_MODE_MISSING};
    UNSEEN_BEGIN();
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) == 0) {
        /* the pages go to `old`; [lo, lo+len) stays, empty and registered:
         * whoever touches it now waits until uffd is closed */
        /* the fifth argument given: a sanitizer's wrapper passes it on */
        old = mremap((void *)(uintptr_t)lo, len, len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, (void *)0);
        if (old != MAP_FAILED) {
            ok = copy_used(mfd, old, len, (uint64_t)sysconf(_SC_PAGESIZE)) == 0 &&
                 mmap((void *)(uintptr_t)lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mfd, 0) !=
                 MAP_FAILED;
            if (!ok) /* put the pages back where they were */
                ok = -(mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(uintptr_t)lo) == MAP_FAILED);
            else
                munmap(old, len);
            old = MAP_FAILED;
        }
    }
    UNSEEN_END();
    close(uffd); /* wakes the waiters: they retry on the final mapping */
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    if (ok < 0)
        fprintf(stderr, "emunic: moving exposed memory %#llx+%llu onto a memfd failed halfway: %s\n",
                (unsigned long long)lo, (unsigned long long)len, strerror(errno));
out:
    if (ok != 1) {
        close(mfd);
        return -1;
    }
    return mfd;
}

/* Which live exposures moved which slot, by region index: the rank's own
 * record (a daemon reads only the one key published per slot). Two
 * exposures of the same range (a Portals MD and ME over one buffer) share
 * a slot, and it stays moved until the last of them ends. */
static struct {
    uint32_t key;
    int slot; /* slot + 1; 0: none */
} holds[EMU_MAX_REGIONS];

/* What each promo[] slot holds, as this rank made it: the shared table is
 * only published for the daemons. A stray store into it must not make the
 * rank close a descriptor of its own or move back memory it never moved. */
static struct {
    uint64_t base, len; /* len 0: slot free */
    int fd;
} mine[EMU_MAX_PROMO];

static void publish(struct emu_rank_info *me, int slot, uint64_t base, uint64_t len, int fd, uint32_t key)
{
    mine[slot].base = base;
    mine[slot].len = len;
    mine[slot].fd = fd;
    struct emu_promo *p = &me->promo[slot];
    atomic_store_explicit(&p->len, 0, memory_order_relaxed);
    atomic_store_explicit(&p->base, base, memory_order_relaxed);
    atomic_store_explicit(&p->fd, fd, memory_order_relaxed);
    atomic_store_explicit(&p->key, key, memory_order_relaxed);
    atomic_store_explicit(&p->len, len, memory_order_release);
    atomic_fetch_add_explicit(&me->promo_gen, 1, memory_order_release);
}

/* Whether slot's memfd is still what the program has mapped at its range. */
static int still_moved(int slot)
{
    uint64_t len = mine[slot].len, base = mine[slot].base;
    struct stat st;
    unsigned long long ino = 0;
    return len && fstat(mine[slot].fd, &st) == 0 && classify(base, base + len, 0, &ino) == 2 &&
           ino == (unsigned long long)st.st_ino;
}

/* Free slot: daemons drop their mapping at their next look. */
static void retire(struct emu_rank_info *me, int slot)
{
    for (int i = 0; i < EMU_MAX_REGIONS; i++)
        if (holds[i].slot == slot + 1)
            holds[i].slot = 0;
    atomic_store_explicit(&me->promo[slot].len, 0, memory_order_release);
    atomic_fetch_add_explicit(&me->promo_gen, 1, memory_order_release);
    close(mine[slot].fd);
    mine[slot].len = 0;
    mine[slot].fd = -1;
}

/* Forget slots whose memfd is no longer what the program has there (the
 * program unmapped it): a daemon must not keep writing into it. */
static void drop_stale(struct emu_rank_info *me)
{
    for (int i = 0; i < EMU_MAX_PROMO; i++)
        if (mine[i].len && !still_moved(i))
            retire(me, i);
}

int emu_promote(struct emu_rank_info *me, uint64_t base, uint64_t len)
{
    uint64_t min = min_bytes();
    long pg = sysconf(_SC_PAGESIZE);
    if (!min || len < min || base + len < base || pg <= 0)
        return -1;
    uint64_t lo = (base + (uint64_t)pg - 1) & ~((uint64_t)pg - 1);
    uint64_t hi = (base + len) & ~((uint64_t)pg - 1);
    if (hi <= lo || hi - lo < min)
        return -1;
    /* the real stack, not a sanitizer's fake frame for our locals */
    uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    unsigned long long ino = 0;
    int kind = classify(lo, hi, sp, &ino);
    if (kind == 2) { /* moved before */
        for (int i = 0; i < EMU_MAX_PROMO; i++) {
            struct stat st;
            if (mine[i].len == hi - lo && mine[i].base == lo && fstat(mine[i].fd, &st) == 0 &&
                (unsigned long long)st.st_ino == ino)
                return i;
        }
        return -1;
    }
    if (kind != 1)
        return -1;
    drop_stale(me);
    int slot = -1;
    for (int i = 0; i < EMU_MAX_PROMO && slot < 0; i++)
        if (!mine[i].len)
            slot = i;
    if (slot < 0)
        return -1;
    int fd = move_range(lo, hi - lo);
    if (fd < 0)
        return -1;
    publish(me, slot, lo, hi - lo, fd, 0);
    return slot;
}

/* Copy the parts of memfd fd that hold data (SEEK_DATA/SEEK_HOLE) into
 * fresh anonymous memory at dst, its pages made in one go first. */
static int copy_data(int fd, char *dst, uint64_t len)
{
    off_t at = 0;
    while ((uint64_t)at < len) {
        off_t d = lseek(fd, at, SEEK_DATA);
        if (d < 0)
            return errno == ENXIO ? 0 : -1; /* ENXIO: no data after at */
        off_t h = lseek(fd, d, SEEK_HOLE);
        if (h < 0 || (uint64_t)h > len)
            h = (off_t)len;
        (void)madvise(dst + d, (size_t)(h - d), MADV_POPULATE_WRITE); /* only faster */
        for (off_t k = d; k < h;) {
            ssize_t r = pread(fd, dst + k, (size_t)(h - k), k);
            if (r <= 0 && errno != EINTR)
                return -1;
            k += r > 0 ? r : 0;
        }
        at = h;
    }
    return 0;
}

/* Put [lo, lo+len) back on private anonymous memory, contents kept: writers
 * wait on a write-protecting userfaultfd meanwhile (readers go on: nothing
 * changes under them). Without it, the range stays moved. */
static int move_back(int mfd, uint64_t lo, uint64_t len)
{
    int uffd = uffd_open(UFFD_FEATURE_WP_HUGETLBFS_SHMEM);
    if (uffd < 0)
        return -1;
    void *fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int ok = 0;
    sigset_t all, prev;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &prev);
    struct uffdio_register reg = {.range = {.start = lo, .len = len}, .mode = UFFDIO_REGISTER_MODE_WP};
    struct uffdio_writeprotect wp = {.range = {.start = lo, .len = len}, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    UNSEEN_BEGIN();
    if (fresh != MAP_FAILED && ioctl(uffd, UFFDIO_REGISTER, &reg) == 0 && ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0) {
        ok = copy_data(mfd, fresh, len) == 0 &&
             mremap(fresh, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(uintptr_t)lo) != MAP_FAILED;
    }
    UNSEEN_END();
    close(uffd); /* writers retry, on the anonymous pages if they moved */
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    if (!ok && fresh != MAP_FAILED)
        munmap(fresh, len);
    return ok ? 0 : -1;
}

void emu_promote_release(struct emu_rank_info *me, uint32_t key)
{
    uint32_t idx = emu_region_idx(key);
    if (!holds[idx].slot || holds[idx].key != key)
        return;
    int slot = holds[idx].slot - 1;
    holds[idx].slot = 0;
    uint64_t len = mine[slot].len, base = mine[slot].base;
    int fd = mine[slot].fd;
    if (!len)
        return;
    for (int i = 0; i < EMU_MAX_REGIONS; i++)
        if (holds[i].slot == slot + 1) { /* still exposed: served under that key now */
            publish(me, slot, base, len, fd, holds[i].key);
            return;
        }
    /* no NIC uses it from here (its regions are gone): an allocator that
     * frees these pages with MADV_DONTNEED expects zeros back, which a
     * memfd does not give, so they go back to anonymous memory */
    if (still_moved(slot) && move_back(fd, base, len) != 0) {
        publish(me, slot, base, len, fd, 0); /* stays moved, serves nobody */
        return;
    }
    retire(me, slot);
}

void emu_promote_serve(struct emu_rank_info *me, int slot, uint32_t key)
{
    holds[emu_region_idx(key)].key = key;
    holds[emu_region_idx(key)].slot = slot + 1;
    publish(me, slot, mine[slot].base, mine[slot].len, mine[slot].fd, key);
}
