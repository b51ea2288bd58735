/* Exposed private memory moved onto memfds (core/promote.c, nicd/xfer_promo.c):
 * data right byte by byte through the moved and the unmoved parts, no write
 * of a busy thread lost while its memory moves, a moved range unmapped after
 * its exposure ends is never written through a stale mapping, and what must
 * not move (the stack, EMUNIC_PRIVATE_MAP=0) does not, and a rank that
 * scribbles its own promo[] table does not make itself close a descriptor.
 * Two ranks; rank 1 exposes, rank 0 writes and reads. "fast" as argv[1]:
 * only page-aligned ops inside moved memory (tests/integration/private_map.sh
 * then checks the NICs made no process_vm_* copy). */
#include "itest.h"
#include "../common/memfd_moved.h"
#include "emunic/job.h"

#include <pthread.h>
#include <stdatomic.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIG (1u << 20)

struct where {
    uint64_t addr;
    uint64_t key;
};

static uint64_t pagesz(void) { return (uint64_t)sysconf(_SC_PAGESIZE); }

static int moved(uint64_t lo, uint64_t hi)
{
    int m = memfd_moved(lo, hi);
    CHECK(m >= 0, "open maps");
    return m;
}

static unsigned char pat(size_t i, unsigned seed)
{
    return (unsigned char)(i * 131u + seed + (i >> 9));
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(i, seed);
}

/* p[0..n) holds bytes first.. of pattern seed */
static void expect_from(const unsigned char *p, size_t n, unsigned seed, size_t first, const char *what)
{
    for (size_t i = 0; i < n; i++)
        CHECK(p[i] == pat(first + i, seed), "%s: byte %zu is %u, want %u", what, i, p[i],
              pat(first + i, seed));
}

static void expect(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
    expect_from(p, n, seed, 0, what);
}

/* rank 1 publishes (addr, key) into rank 0's heap (inline, so no copy
 * touches private memory: the counters test counts those) */
static struct where share(uint64_t addr, int64_t key)
{
    struct where mine = {addr, (uint64_t)key};
    if (emunic_rank() == 1) {
        uint64_t c = cookie();
        CHECK(emunic_write(0, EMU_KEY_HEAP, emunic_heap_addr(0) + 64, &mine, sizeof mine, EMU_F_REMOTE_CQ, c, 0) == 0,
              "post");
        CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "share");
    }
    CHECK(emunic_barrier() == 0, "barrier");
    if (emunic_rank() == 0)
        memcpy(&mine, itest_exch + 64, sizeof mine);
    CHECK(emunic_barrier() == 0, "barrier");
    return mine;
}

/* rank 0: write len bytes of pattern seed at off of w, then read them back */
static void put_get(struct where w, uint64_t off, size_t len, unsigned seed, unsigned char *src,
                    unsigned char *dst)
{
    fill(src, len, seed);
    uint64_t c = cookie();
    CHECK(emunic_write(1, (uint32_t)w.key, w.addr + off, src, len, EMU_F_REMOTE_CQ, c, 0) == 0, "post write");
    CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "write %zu B at +%llu", len, (unsigned long long)off);
    memset(dst, 0, len);
    c = cookie();
    CHECK(emunic_read(1, (uint32_t)w.key, w.addr + off, dst, len, EMU_F_REMOTE_CQ, c) == 0, "post read");
    CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "read %zu B at +%llu", len, (unsigned long long)off);
    expect(dst, len, seed, "read back");
}

static void *map_anon(size_t len, void *at)
{
    void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
    CHECK(p != MAP_FAILED, "mmap");
    return p;
}

/* Moved memory: whole range from rank 0, then sub-ranges inside the moved
 * pages, across their edge, and in the unmoved head. */
static void data_through_moved(unsigned char *src, unsigned char *dst, int fast)
{
    uint32_t me = emunic_rank();
    uint64_t head = fast ? 0 : 123; /* an unaligned base keeps its head page unmoved */
    unsigned char *buf = NULL;
    int64_t key = 0;
    if (me == 1) {
        buf = map_anon(BIG + 2 * pagesz(), NULL);
        fill(buf, BIG + 2 * pagesz(), 7);
        key = emunic_expose(buf + head, BIG, EMU_PERM_ALL);
        CHECK(key > 0, "expose: %lld", (long long)key);
        uint64_t lo = ((uint64_t)(uintptr_t)buf + head + pagesz() - 1) & ~(pagesz() - 1);
        uint64_t hi = ((uint64_t)(uintptr_t)buf + head + BIG) & ~(pagesz() - 1);
        const char *e = getenv("EMUNIC_PRIVATE_MAP");
        int want = !e || strcmp(e, "0");
        CHECK(moved(lo, hi) == want, "the exposed pages were %s onto a memfd", want ? "not moved" : "moved");
        expect(buf, BIG + 2 * pagesz(), 7, "contents after the move");
    }
    struct where w = share((uint64_t)(uintptr_t)(buf + head), key);
    if (me == 0) {
        /* the source is moved memory too: both ends memcpy */
        CHECK(emunic_expose(src, BIG, EMU_PERM_ALL) > 0 && emunic_expose(dst, BIG, EMU_PERM_ALL) > 0,
              "expose source and destination");
        put_get(w, 0, BIG, 11, src, dst);
        put_get(w, pagesz() * 3, 8, 12, src, dst);
        put_get(w, pagesz() * 5, 65536, 13, src, dst);
        if (!fast) {
            put_get(w, 0, 64, 14, src, dst);                 /* head page, unmoved */
            put_get(w, pagesz() - 200, 400, 15, src, dst);   /* across the edge */
            put_get(w, BIG - 300, 300, 16, src, dst);        /* tail, unmoved */
        }
    }
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 1) {
        /* what rank 0 wrote last at each place, the rest untouched */
        unsigned char *b = buf + head;
        if (!fast) {
            expect(b + BIG - 300, 300, 16, "tail");
            expect(b + pagesz() - 200, 400, 15, "edge");
            expect(b, 64, 14, "head");
            expect_from(b + 64, pagesz() - 264, 11, 64, "between");
        }
        CHECK(emunic_unexpose((uint32_t)key) == 0, "unexpose");
        /* exposed anew: the same memfd serves the new key */
        int64_t k2 = emunic_expose(buf + head, BIG, EMU_PERM_ALL);
        CHECK(k2 > 0 && k2 != key, "expose again");
        key = k2;
    }
    w = share((uint64_t)(uintptr_t)(buf + head), key);
    if (me == 0)
        put_get(w, pagesz() * 7, 200000, 17, src, dst);
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 1) {
        expect(buf + head + pagesz() * 7, 200000, 17, "after exposing again");
        CHECK(emunic_unexpose((uint32_t)key) == 0, "unexpose");
        /* back on anonymous memory, contents kept, and what allocators
         * count on: MADV_DONTNEED gives zeros back */
        uint64_t lo = ((uint64_t)(uintptr_t)buf + head + pagesz() - 1) & ~(pagesz() - 1);
        CHECK(!moved(lo, ((uint64_t)(uintptr_t)buf + head + BIG) & ~(pagesz() - 1)), "still moved after unexpose");
        expect(buf + head + pagesz() * 7, 200000, 17, "after unexpose");
        unsigned char *pgs = (unsigned char *)(uintptr_t)lo + pagesz() * 8;
        CHECK(madvise(pgs, pagesz() * 4, MADV_DONTNEED) == 0, "madvise");
        for (size_t i = 0; i < pagesz() * 4; i++)
            CHECK(pgs[i] == 0, "byte %zu after MADV_DONTNEED is %u", i, pgs[i]);
        munmap(buf, BIG + 2 * pagesz());
    }
}

static atomic_int stop_hammer;
static atomic_long hammer_bad;

/* Each word counts up; a value that is not the last one written is a lost
 * write (or a read of a hole) while the pages moved. */
static void *hammer(void *arg)
{
    volatile uint64_t *w = arg;
    size_t nw = (256u << 10) / sizeof *w;
    uint64_t round = 0;
    while (!atomic_load_explicit(&stop_hammer, memory_order_relaxed)) {
        for (size_t i = 0; i < nw; i += 512) {
            if (w[i] != round)
                atomic_fetch_add(&hammer_bad, 1);
            w[i] = round + 1;
        }
        round++;
    }
    return NULL;
}

static void no_write_lost(void)
{
    size_t len = 256u << 10;
    for (int it = 0; it < 20; it++) {
        uint64_t *b = map_anon(len, NULL);
        uint64_t lo = (uint64_t)(uintptr_t)b;
        memset(b, 0, len);
        atomic_store(&stop_hammer, 0);
        pthread_t t;
        CHECK(pthread_create(&t, NULL, hammer, b) == 0, "thread");
        usleep(200);
        int64_t key = emunic_expose(b, len, EMU_PERM_ALL);
        usleep(200);
        int moved_in = moved(lo, lo + len);
        /* and back to anonymous memory, still under fire */
        int un = emunic_unexpose((uint32_t)key);
        usleep(200);
        atomic_store(&stop_hammer, 1);
        pthread_join(t, NULL);
        CHECK(key > 0 && un == 0, "expose %lld, unexpose %d", (long long)key, un);
        CHECK(moved_in, "not moved (round %d)", it);
        CHECK(!moved(lo, lo + len), "still on a memfd after unexpose (round %d)", it);
        CHECK(atomic_load(&hammer_bad) == 0, "round %d: %ld lost writes while the pages moved", it,
              atomic_load(&hammer_bad));
        munmap(b, len);
    }
}

/* Bytes allocated to our memfd of exactly len bytes (the only one). */
static long long memfd_bytes(size_t len)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d, "open /proc/self/fd");
    struct dirent *e;
    long long got = -1;
    while ((e = readdir(d)) != NULL) {
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        struct stat st;
        if (n <= 0)
            continue;
        target[n] = 0;
        if (strstr(target, "memfd:emunic-private") && stat(path, &st) == 0 && (size_t)st.st_size == len)
            got = (long long)st.st_blocks * 512;
    }
    closedir(d);
    return got;
}

/* A large range with few pages ever touched moves without allocating the
 * rest (a symmetric heap is mostly untouched), contents kept. */
static void sparse_moves_sparse(void)
{
    size_t len = 32u << 20, pg = pagesz(), touched = 0;
    unsigned char *b = map_anon(len, NULL);
    for (size_t off = 0; off < len; off += 37 * pg, touched++)
        fill(b + off, 100, (unsigned)(off / pg));
    int64_t key = emunic_expose(b, len, EMU_PERM_ALL);
    CHECK(key > 0 && moved((uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)b + len), "expose and move");
    long long used = memfd_bytes(len);
    CHECK(used >= (long long)(touched * pg) && used <= (long long)(touched * pg) + (1 << 20),
          "moving %zu touched pages of %zu allocated %lld bytes", touched, len / pg, used);
    for (size_t off = 0; off < len; off += pg) {
        if (off % (37 * pg) == 0)
            expect(b + off, 100, (unsigned)(off / pg), "touched page");
        for (size_t i = off % (37 * pg) == 0 ? 100 : 0; i < pg; i++)
            CHECK(b[off + i] == 0, "byte %zu of page %zu is %u, want 0", i, off / pg, b[off + i]);
    }
    CHECK(emunic_unexpose((uint32_t)key) == 0, "unexpose");
    munmap(b, len);
}

/* A moved range unmapped once unexposed, new memory at its address reached
 * through the whole-address-space key: the NIC must write the new memory. */
static void no_stale_mapping(unsigned char *src, unsigned char *dst)
{
    uint32_t me = emunic_rank();
    size_t len = 512u << 10;
    unsigned char *c = NULL;
    int64_t key = 0;
    if (me == 1) {
        c = map_anon(len, NULL);
        key = emunic_expose(c, len, EMU_PERM_ALL);
        CHECK(key > 0 && moved((uint64_t)(uintptr_t)c, (uint64_t)(uintptr_t)c + len), "expose and move");
    }
    struct where w = share((uint64_t)(uintptr_t)c, key);
    if (me == 0)
        put_get(w, 0, len, 21, src, dst);
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 1) {
        expect(c, len, 21, "before the unmap");
        CHECK(emunic_unexpose((uint32_t)key) == 0, "unexpose");
        munmap(c, len);
        CHECK(map_anon(len, c) == c, "new memory at the old address");
        key = emunic_expose_space();
        CHECK(key > 0, "expose space");
    }
    w = share((uint64_t)(uintptr_t)c, key);
    if (me == 0)
        put_get(w, 0, len, 22, src, dst);
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 1) {
        expect(c, len, 22, "the new memory");
        munmap(c, len);
    }
}

/* What must not move: the stack we run on, and anything with
 * EMUNIC_PRIVATE_MAP=0. Data still right (process_vm_*). */
static void not_moved(unsigned char *src, unsigned char *dst)
{
    uint32_t me = emunic_rank();
    static unsigned char stackbuf_ok;
    unsigned char stackbuf[256u << 10];
    int64_t key = 0;
    if (me == 1) {
        memset(stackbuf, 0, sizeof stackbuf);
        key = emunic_expose(stackbuf, sizeof stackbuf, EMU_PERM_ALL);
        CHECK(key > 0, "expose stack");
        uint64_t lo = ((uint64_t)(uintptr_t)stackbuf + pagesz() - 1) & ~(pagesz() - 1);
        CHECK(!moved(lo, lo + pagesz()), "a buffer on the running stack was moved");
    }
    struct where w = share((uint64_t)(uintptr_t)stackbuf, key);
    if (me == 0)
        put_get(w, 1000, 100000, 31, src, dst);
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 1) {
        expect(stackbuf + 1000, 100000, 31, "stack buffer");
        stackbuf_ok = 1;
        CHECK(emunic_unexpose((uint32_t)key) == 0, "unexpose");
        setenv("EMUNIC_PRIVATE_MAP", "0", 1);
        unsigned char *b = map_anon(BIG, NULL);
        key = emunic_expose(b, BIG, EMU_PERM_ALL);
        CHECK(key > 0 && !moved((uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)b + BIG),
              "moved with EMUNIC_PRIVATE_MAP=0");
        w.addr = (uint64_t)(uintptr_t)b;
    }
    w = share(w.addr, key);
    if (me == 0)
        put_get(w, 0, BIG, 32, src, dst);
    CHECK(emunic_barrier() == 0, "barrier");
    if (me == 1) {
        expect((unsigned char *)(uintptr_t)w.addr, BIG, 32, "unmoved buffer");
        CHECK(stackbuf_ok, "stack");
    }
}

/* The promo[] table is in the job segment, so the rank's own stray store
 * can reach it: the rank must take what it closes and moves back from its
 * own record, not from the table. */
static void own_table_scribbled(void)
{
    struct emu_job j;
    CHECK(emu_job_attach(&j, emunic_jobid()) == 0, "attach the job");
    struct emu_rank_info *ri = &j.ranks[emunic_rank()];
    int canary = dup(STDERR_FILENO);
    CHECK(canary >= 0, "dup");
    unsigned char *b = map_anon(BIG, NULL);
    fill(b, BIG, 41);
    int64_t key = emunic_expose(b, BIG, EMU_PERM_ALL);
    CHECK(key > 0 && moved((uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)b + BIG), "expose and move");
    for (int i = 0; i < EMU_MAX_PROMO; i++) {
        atomic_store(&ri->promo[i].fd, canary);
        atomic_store(&ri->promo[i].base, 4096);
        atomic_store(&ri->promo[i].len, 1u << 30);
    }
    CHECK(emunic_unexpose((uint32_t)key) == 0, "unexpose");
    CHECK(fcntl(canary, F_GETFD) >= 0, "unexposing closed descriptor %d, named by the scribbled table", canary);
    CHECK(!moved((uint64_t)(uintptr_t)b, (uint64_t)(uintptr_t)b + BIG), "the range did not move back");
    expect(b, BIG, 41, "after moving back");
    CHECK(memfd_bytes(BIG) == -1, "the memfd was not closed");
    /* the table is the rank's own to break; put it right for what follows */
    for (int i = 0; i < EMU_MAX_PROMO; i++)
        atomic_store(&ri->promo[i].len, 0);
    close(canary);
    munmap(b, BIG);
    emu_job_detach(&j);
}

int main(int argc, char **argv)
{
    itest_init();
    CHECK(emunic_size() == 2, "run with two ranks");
    int fast = argc > 1 && !strcmp(argv[1], "fast");
    unsigned char *src = map_anon(BIG, NULL), *dst = map_anon(BIG, NULL);
    data_through_moved(src, dst, fast);
    if (!fast) {
        if (emunic_rank() == 1) {
            no_write_lost();
            sparse_moves_sparse();
            own_table_scribbled();
        }
        no_stale_mapping(src, dst);
        not_moved(src, dst);
    }
    CHECK(emunic_barrier() == 0, "barrier");
    if (emunic_rank() == 0)
        printf("private map%s: ok\n", fast ? " (fast)" : "");
    emunic_finalize();
    return 0;
}
