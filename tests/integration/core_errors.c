/* What the NIC refuses: out-of-region, stale and unknown keys, missing
 * permissions, memory the kernel will not touch, bad arguments at the API,
 * and garbage pushed straight into the command queue. After each refusal
 * the target memory is unchanged and the NIC still works. */
#include "itest.h"

#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "emunic/job.h"

struct peer {
    uint64_t buf, ro, gone, stale;
    uint32_t kbuf, kro, kgone, kstale;
};

#define BUF 4096

static int post_wait(int rc, uint64_t c)
{
    CHECK(rc == 0, "post: %d", rc);
    return wait_done(c, EMU_DONE_REMOTE);
}

static uint64_t rejected_on_my_node(void)
{
    struct emu_job j;
    CHECK(emu_job_attach(&j, emunic_jobid()) == 0, "attach for counters");
    uint64_t v = atomic_load(&j.nodes[emunic_node()].ctr.rejected);
    emu_job_detach(&j);
    return v;
}

/* Garbage: random bytes made invalid in one of several ways. Returns how
 * many of them asked for a completion (each must come back as an error). */
static int push_garbage(int count)
{
    int asked = 0;
    for (int i = 0; i < count; i++) {
        struct emu_msg m;
        CHECK(getrandom(&m, sizeof m, 0) == (ssize_t)sizeof m, "getrandom");
        m.dlen %= EMU_INLINE_MAX + 1;
        switch (i % 6) {
        case 0: m.op = (uint8_t)(EMU_OP_COUNT_ + m.op % 100); break;
        case 1: m.op = EMU_OP_WRITE; m.dst = emunic_size() + m.dst % 1000; break;
        case 2: m.op = EMU_OP_READ; m.flags |= 0x80; break;             /* unknown flag */
        case 3: m.op = EMU_OP_ACK; break;                                /* ranks may not ack */
        case 4: m.op = EMU_OP_ATOMIC; m.dtype = EMU_DTYPE_COUNT_ + 1; m.flags &= EMU_F_ALL_; break;
        case 5: m.op = EMU_OP_AM; m.dst %= emunic_size(); m.flags = EMU_F_INLINE | (m.flags & 3);
                m.hlen = m.dlen + 1u; break;                             /* header longer than data */
        }
        if (i % 2)
            m.flags &= (uint8_t)~(EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ);
        else
            m.flags |= EMU_F_REMOTE_CQ;
        m.cookie = 0xBAD0000000000000ull + (uint64_t)i;
        if (m.flags & (EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ))
            asked++;
        CHECK(emunic_post_raw(&m) == 0, "raw post");
    }
    return asked;
}

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t to = (me + 1) % n;
    char *buf = aligned_alloc(4096, BUF), *ro = aligned_alloc(4096, BUF);
    memset(buf, 0xEE, BUF);
    memset(ro, 0x33, BUF);
    char *gone = mmap(NULL, 2 * BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(gone != MAP_FAILED, "mmap");
    struct peer mine = {.buf = (uint64_t)(uintptr_t)buf, .ro = (uint64_t)(uintptr_t)ro, .gone = (uint64_t)(uintptr_t)gone};
    int64_t k;
    CHECK((k = emunic_expose(buf, BUF, EMU_PERM_READ | EMU_PERM_WRITE)) > 0, "expose");
    mine.kbuf = (uint32_t)k;
    CHECK((k = emunic_expose(ro, BUF, EMU_PERM_READ)) > 0, "expose");
    mine.kro = (uint32_t)k;
    CHECK((k = emunic_expose(gone, 2 * BUF, EMU_PERM_ALL)) > 0, "expose");
    mine.kgone = (uint32_t)k;
    CHECK((k = emunic_expose(buf, BUF, EMU_PERM_ALL)) > 0, "expose");
    mine.kstale = (uint32_t)k;
    /* exposed but no longer accessible: PROT_NONE keeps the addresses
     * reserved, where after munmap a later mapping of this process (or of
     * a library in it) may land and make the access succeed */
    CHECK(mmap(gone, 2 * BUF, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == gone, "unmap");
    CHECK(emunic_unexpose(mine.kstale) == 0, "unexpose");
    CHECK(emunic_unexpose(mine.kstale) == -ENOENT, "double unexpose");
    struct peer *peers = calloc(n, sizeof *peers);
    itest_allgather(&mine, sizeof mine, peers);
    struct peer *p = &peers[to];
    char data[64];
    memset(data, 0x11, sizeof data);
    uint64_t c;

    /* one byte past the region: refused whole, nothing written */
    c = cookie();
    CHECK(post_wait(emunic_write(to, p->kbuf, p->buf + BUF - 8, data, 9, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_ACCES, "past end");
    char big[8192];
    memset(big, 0x22, sizeof big);
    c = cookie();
    CHECK(post_wait(emunic_write(to, p->kbuf, p->buf, big, sizeof big, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_ACCES, "too long");
    c = cookie();
    CHECK(post_wait(emunic_write(to, p->kbuf, p->buf - 1, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_ACCES, "before start");
    c = cookie();
    CHECK(post_wait(emunic_write(to, p->kbuf, UINT64_MAX - 3, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_ACCES, "wrapping range");
    /* read-only region: write and atomic refused, read allowed */
    c = cookie();
    CHECK(post_wait(emunic_write(to, p->kro, p->ro, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_ACCES, "write to read-only");
    int64_t one = 1;
    c = cookie();
    CHECK(post_wait(emunic_atomic(to, p->kro, p->ro, EMU_AOP_SUM, EMU_INT64, &one, 8, NULL, NULL, EMU_F_REMOTE_CQ, c), c) == EMU_E_ACCES, "atomic on read-only");
    c = cookie();
    CHECK(post_wait(emunic_read(to, p->kro, p->ro, data, 8, EMU_F_REMOTE_CQ, c), c) == 0, "read read-only");
    CHECK((uint8_t)data[0] == 0x33, "read-only content");
    /* stale and never-issued keys */
    c = cookie();
    CHECK(post_wait(emunic_write(to, p->kstale, p->buf, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_NOKEY, "stale key");
    c = cookie();
    CHECK(post_wait(emunic_write(to, (1u << EMU_REGION_IDX_BITS) | 400, p->buf, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_NOKEY, "unknown key");
    c = cookie();
    CHECK(post_wait(emunic_write(to, 0, p->buf, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == EMU_E_NOKEY, "key 0");
    /* exposed but unmapped: the kernel refuses, the NIC reports it */
    int st;
    c = cookie();
    st = post_wait(emunic_write(to, p->kgone, p->gone, data, 64, EMU_F_REMOTE_CQ, c, 0), c);
    CHECK(st == EMU_E_FAULT, "unmapped target: status %d", st);
    c = cookie();
    st = post_wait(emunic_read(to, p->kgone, p->gone, data, 64, EMU_F_REMOTE_CQ, c), c);
    CHECK(st == EMU_E_FAULT, "unmapped read: status %d", st);
    /* our own source inaccessible: a by-reference write fails cleanly */
    char *mysrc = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(mysrc != MAP_FAILED, "mmap");
    c = cookie();
    st = post_wait(emunic_write(to, p->kbuf, p->buf, mysrc, 1024, EMU_F_REMOTE_CQ, c, 0), c);
    CHECK(st == EMU_E_FAULT, "unmapped source: status %d", st);
    if (me == 0)
        printf("errors: bounds, permissions, keys, faults reported: ok\n");

    /* API-level refusals: nothing is posted */
    CHECK(emunic_write(n, EMU_KEY_HEAP, 0, data, 8, 0, 0, 0) == -EINVAL, "dst out of range");
    CHECK(emunic_write(to, EMU_KEY_HEAP, 0, data, 8, 0x80, 0, 0) == -EINVAL, "bad flags");
    CHECK(emunic_write(to, EMU_KEY_HEAP, 0, NULL, 8, 0, 0, 0) == -EINVAL, "null source");
    CHECK(emunic_atomic(to, EMU_KEY_HEAP, 0, EMU_AOP_BAND, EMU_DOUBLE, data, 8, NULL, NULL, 0, 0) == -EINVAL, "band on double");
    CHECK(emunic_atomic(to, EMU_KEY_HEAP, 0, EMU_AOP_SUM, EMU_INT32, data, 6, NULL, NULL, 0, 0) == -EINVAL, "partial element");
    CHECK(emunic_atomic(to, EMU_KEY_HEAP, 0, EMU_AOP_CSWAP, EMU_INT32, data, 4, NULL, NULL, 0, 0) == -EINVAL, "cswap without compare");
    CHECK(emunic_am_send(to, 1, data, EMU_INLINE_MAX + 1, NULL, 0, 0, 0) == -EINVAL, "header too long");
    CHECK(emunic_expose(buf, 16, 0) == -EINVAL, "no permissions");
    CHECK(emunic_unexpose(EMU_KEY_HEAP) == -EINVAL, "heap cannot be unexposed");
    CHECK(emunic_barrier() == 0, "barrier");

    /* garbage straight into the queue, one rank at a time so the node's
     * rejected counter can be checked exactly */
    for (uint32_t r = 0; r < n; r++) {
        if (r == me) {
            uint64_t before = rejected_on_my_node();
            int asked = push_garbage(600);
            for (int i = 0; i < asked; i++) {
                struct emu_msg m;
                CHECK(emunic_wait(&m, 1, 30000000000LL) == 1, "error completion %d of %d missing", i, asked);
                CHECK(m.op == EMU_CQ_DONE && m.status == EMU_E_INVAL && (m.cookie >> 52) == 0xBAD,
                      "garbage answer op %u status %u", m.op, m.status);
            }
            /* a good command still works after the garbage */
            c = cookie();
            memset(data, 0x44, 8);
            CHECK(post_wait(emunic_write(to, p->kbuf, p->buf + 128, data, 8, EMU_F_REMOTE_CQ, c, 0), c) == 0, "after garbage");
            uint64_t after = rejected_on_my_node();
            CHECK(after - before == 600, "rejected counter moved by %llu, want 600", (unsigned long long)(after - before));
        }
        CHECK(emunic_barrier() == 0, "barrier");
    }
    /* what was refused left the target untouched */
    for (int i = 0; i < BUF; i++) {
        uint8_t want = (i >= 128 && i < 136) ? 0x44 : 0xEE;
        CHECK((uint8_t)buf[i] == want, "buf byte %d is %02x want %02x", i, (uint8_t)buf[i], want);
        CHECK((uint8_t)ro[i] == 0x33, "read-only byte %d changed", i);
    }
    free(peers);
    free(buf);
    free(ro);
    if (me == 0)
        printf("errors: 600 garbage commands per rank rejected and counted, NIC still serving: ok\n");
    /* the last rank leaves; its memory stops being a target (EMU_E_DEAD) */
    CHECK(emunic_barrier() == 0, "barrier");
    if (n > 1 && me == n - 1) {
        emunic_finalize();
        return 0;
    }
    if (n > 1 && me == 0) {
        int st = 0;
        for (int tries = 0; tries < 10000 && st != EMU_E_DEAD; tries++) {
            c = cookie();
            st = post_wait(emunic_write(n - 1, EMU_KEY_HEAP, emunic_heap_addr(n - 1), data, 8, EMU_F_REMOTE_CQ, c, 0), c);
            CHECK(st == 0 || st == EMU_E_DEAD, "write to a leaving rank: %d", st);
            if (st == 0)
                usleep(1000);
        }
        CHECK(st == EMU_E_DEAD, "rank %u left but its memory is still a target", n - 1);
        printf("errors: operations on a rank that has ended fail with EMU_E_DEAD: ok\n");
    }
    emunic_finalize();
    return 0;
}
