/* Ranks' exposed private memory that they moved onto memfds
 * (core/promote.c), mapped here so copies are one memcpy.
 *
 * A rank's promo[] table is only a hint: the descriptor is taken from the
 * rank's own process (pidfd_getfd) and accepted only if that process maps
 * exactly that file at exactly that range (/proc/PID/maps), so a garbage
 * table costs the rank its fast path and nothing else. A mapping is used
 * while the region it was exposed for is live; then process_vm_* again. */
#include "nic.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Re-reading a table costs us time (/proc/PID/maps), so it is paid from a
 * budget that refills at a tenth of the wall clock: a rank scribbling its
 * promo_gen cannot starve its neighbours. The budget holds a few scans, so
 * an honest burst (unexpose, expose anew, write) is never refused: a
 * refusal means a process_vm_* copy, which is slower, and which tests of
 * moved memory count. */
#define RESCAN_BUDGET_NS 5000000ll
#define PROMO_MAX_LEN (1ull << 40)

struct promo_map {
    char *ptr; /* our mapping, NULL: none */
    uint64_t rbase, len;
    uint32_t key;
    ino_t ino;
    dev_t dev;
};

struct promo_set {
    uint32_t gen;
    int pidfd; /* -1 until first needed */
    pid_t pid;
    int64_t budget, refilled; /* ns of scanning we may spend, and when it was last topped up */
    struct promo_map m[EMU_MAX_PROMO];
};

int xfer_promo_init(struct emu_nic *nic)
{
    nic->promos = calloc(nic->nranks, sizeof *nic->promos);
    if (!nic->promos)
        return -1;
    int64_t now = emu_now_ns();
    for (uint32_t r = 0; r < nic->nranks; r++)
        nic->promos[r] = (struct promo_set){.pidfd = -1, .budget = RESCAN_BUDGET_NS, .refilled = now};
    return 0;
}

static void unmap(struct promo_map *m)
{
    if (m->ptr)
        munmap(m->ptr, m->len);
    memset(m, 0, sizeof *m);
}

void xfer_promo_fini(struct emu_nic *nic)
{
    for (uint32_t r = 0; nic->promos && r < nic->nranks; r++) {
        for (int i = 0; i < EMU_MAX_PROMO; i++)
            unmap(&nic->promos[r].m[i]);
        if (nic->promos[r].pidfd >= 0)
            close(nic->promos[r].pidfd);
    }
    free(nic->promos);
    nic->promos = NULL;
}

/* Whether pid still maps (dev, ino) at exactly [base, base+len). */
static int mapped_at(pid_t pid, dev_t dev, ino_t ino, uint64_t base, uint64_t len)
{
    uint64_t end = 0;
    return guard_map_base(pid, dev, ino, &end) == base && end == base + len;
}

/* Take the rank's memfd number fd and map it, if it is what slot says. */
static int take(struct promo_set *ps, struct promo_map *m, int fd, uint64_t base, uint64_t len, uint32_t key)
{
    int local = (int)syscall(SYS_pidfd_getfd, ps->pidfd, fd, 0);
    if (local < 0)
        return -1;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(local, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len &&
        mapped_at(ps->pid, st.st_dev, st.st_ino, base, len))
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, local, 0);
    close(local);
    if (p == MAP_FAILED)
        return -1;
    *m = (struct promo_map){.ptr = p, .rbase = base, .len = len, .key = key, .ino = st.st_ino, .dev = st.st_dev};
    return 0;
}

/* Bring our mappings in line with the rank's table. */
static void rescan(struct emu_nic *nic, uint32_t rank, struct promo_set *ps, pid_t pid, uint32_t gen)
{
    if (ps->pid != pid) { /* first use, or the rank is another process now */
        for (int i = 0; i < EMU_MAX_PROMO; i++)
            unmap(&ps->m[i]);
        if (ps->pidfd >= 0)
            close(ps->pidfd);
        ps->pid = pid;
        ps->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    }
    ps->gen = gen;
    struct emu_promo *tab = nic->job.ranks[rank].promo;
    uint64_t pgmask = (uint64_t)sysconf(_SC_PAGESIZE) - 1;
    for (int i = 0; i < EMU_MAX_PROMO; i++) {
        struct promo_map *m = &ps->m[i];
        uint64_t len = atomic_load_explicit(&tab[i].len, memory_order_acquire);
        uint64_t base = atomic_load_explicit(&tab[i].base, memory_order_relaxed);
        int32_t fd = atomic_load_explicit(&tab[i].fd, memory_order_relaxed);
        uint32_t key = atomic_load_explicit(&tab[i].key, memory_order_relaxed);
        if (!len || len > PROMO_MAX_LEN || (base | len) & pgmask || base + len < base || fd < 0 ||
            !key || ps->pidfd < 0) {
            unmap(m);
            continue;
        }
        if (m->ptr && m->rbase == base && m->len == len && mapped_at(pid, m->dev, m->ino, base, len)) {
            m->key = key; /* the same memory, exposed anew */
            continue;
        }
        unmap(m);
        take(ps, m, fd, base, len, key);
    }
}

char *xfer_promo_ptr(struct emu_nic *nic, uint32_t rank, pid_t pid, uint64_t addr, uint64_t len)
{
    if (rank >= nic->nranks || pid <= 0)
        return NULL;
    struct promo_set *ps = &nic->promos[rank];
    struct emu_rank_info *ri = &nic->job.ranks[rank];
    uint32_t gen = atomic_load_explicit(&ri->promo_gen, memory_order_acquire);
    if (gen != ps->gen || pid != ps->pid) {
        int64_t now = emu_now_ns();
        ps->budget += (now - ps->refilled) / 10;
        if (ps->budget > RESCAN_BUDGET_NS)
            ps->budget = RESCAN_BUDGET_NS;
        ps->refilled = now;
        if (ps->budget <= 0)
            return NULL; /* process_vm_* meanwhile: slower, never wrong */
        rescan(nic, rank, ps, pid, gen);
        int64_t end = emu_now_ns();
        ps->budget -= end - now;
        ps->refilled = end;
    }
    for (int i = 0; i < EMU_MAX_PROMO; i++) {
        struct promo_map *m = &ps->m[i];
        if (!m->ptr || !emu_range_within(addr, len, m->rbase, m->len))
            continue;
        /* the program may unmap memory once it is no longer exposed */
        if (emu_region_check(ri->regions, m->key, addr, len, 0) != EMU_OK)
            return NULL;
        return m->ptr + (addr - m->rbase);
    }
    return NULL;
}
