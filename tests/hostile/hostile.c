/* A rank that writes where it should not, while the others run checked
 * traffic: the start of the hostile test of issue 19.
 *
 *   hostile FIELD [VALUE|rand] [SECONDS] [SEED]
 *
 * The last rank is hostile. After the start-up barrier it overwrites FIELD
 * of the job segment (a header field, one of its own rank or node table
 * entries, or its own command/completion queue) through a writable mapping
 * it opens by name (its own view is read-only outside its entry and
 * queues: core_segment_ro), then goes on with traffic of its own. Every other rank is a victim: for SECONDS (default
 * 1) it writes random bytes from private memory into its peer's heap,
 * reads them back into private memory, compares, and fetch-adds a counter
 * only it touches, checking every value; then it prints
 * "victim: rank R ops N" and exits 0. A mismatch whose status said success
 * prints "SILENT CORRUPTION: ..." and exits 2; an error status exits 3.
 * The hostile rank prints "hostile: FIELD := VALUE at NS" (CLOCK_REALTIME)
 * when it strikes, and "hostile: done" if it is still served at the end.
 * `hostile list` prints every FIELD. tests/hostile/hostile.sh drives it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emunic/atomic_op.h"
#include "emunic/emunic.h"
#include "emunic/job.h"

enum where { HDR, RANK, NODE, CMDQ, CQ, NET };

struct field {
    const char *name;
    enum where where;
    size_t off, size;
};

#define F(w, type, m, name) {name, w, offsetof(type, m), sizeof(((type *)0)->m)}
static const struct field fields[] = {
    F(HDR, struct emu_job_hdr, magic, "hdr.magic"),
    F(HDR, struct emu_job_hdr, version, "hdr.version"),
    F(HDR, struct emu_job_hdr, nnodes, "hdr.nnodes"),
    F(HDR, struct emu_job_hdr, ranks_per_node, "hdr.ranks_per_node"),
    F(HDR, struct emu_job_hdr, nranks, "hdr.nranks"),
    F(HDR, struct emu_job_hdr, cmd_slots, "hdr.cmd_slots"),
    F(HDR, struct emu_job_hdr, cq_slots, "hdr.cq_slots"),
    F(HDR, struct emu_job_hdr, wire_slots, "hdr.wire_slots"),
    F(HDR, struct emu_job_hdr, launcher_pid, "hdr.launcher_pid"),
    F(HDR, struct emu_job_hdr, heap_size, "hdr.heap_size"),
    F(HDR, struct emu_job_hdr, total_size, "hdr.total_size"),
    F(HDR, struct emu_job_hdr, off_ranks, "hdr.off_ranks"),
    F(HDR, struct emu_job_hdr, off_nodes, "hdr.off_nodes"),
    F(HDR, struct emu_job_hdr, off_cmd, "hdr.off_cmd"),
    F(HDR, struct emu_job_hdr, off_cq, "hdr.off_cq"),
    F(HDR, struct emu_job_hdr, off_net, "hdr.off_net"),
    F(HDR, struct emu_job_hdr, cmd_bytes, "hdr.cmd_bytes"),
    F(HDR, struct emu_job_hdr, cq_bytes, "hdr.cq_bytes"),
    F(HDR, struct emu_job_hdr, wire_bytes, "hdr.wire_bytes"),
    F(HDR, struct emu_job_hdr, jobid, "hdr.jobid"),
    F(HDR, struct emu_job_hdr, nic, "hdr.nic"),
    F(RANK, struct emu_rank_info, pid, "rank.pid"),
    F(RANK, struct emu_rank_info, node, "rank.node"),
    F(RANK, struct emu_rank_info, local, "rank.local"),
    F(RANK, struct emu_rank_info, heap_base, "rank.heap_base"),
    F(RANK, struct emu_rank_info, heap_size, "rank.heap_size"),
    F(RANK, struct emu_rank_info, cq_waiter.efd, "rank.cq_efd"),
    F(RANK, struct emu_rank_info, promo_gen, "rank.promo_gen"),
    F(RANK, struct emu_rank_info, promo[0], "rank.promo"),
    F(RANK, struct emu_rank_info, nic_bell.sleeping, "rank.nic_bell"),
    F(RANK, struct emu_rank_info, bar_seq, "rank.bar_seq"),
    F(NODE, struct emu_node_info, doorbell.efd, "node.doorbell_efd"),
    F(NODE, struct emu_node_info, daemon_pid, "node.daemon_pid"),
    F(NET, struct emu_netcfg, nrules, "net.nrules"),
    F(NET, struct emu_netcfg, m.ndims, "net.ndims"),
    F(NET, struct emu_netcfg, m.dims, "net.dims"),
    F(NET, struct emu_netcfg, flags, "net.flags"),
    F(NET, struct emu_netcfg, trace_dir, "net.trace_dir"),
    {"cmdq.seq", CMDQ, 0, 8},  /* the sequence word of the next slot */
    {"cmdq.tail", CMDQ, 1, 8}, /* the producers' tail */
    {"cq.seq", CQ, 0, 8},      /* the sequence word of the NIC's next slot */
    {"cq.tail", CQ, 1, 8},
};
#define NFIELDS (sizeof fields / sizeof fields[0])
#define DONE_OFF 60000 /* in rank 0's heap: how many victims are done */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state += 0x9e3779b97f4a7c15ull;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Address of the field in the hostile rank's (our) own part of the job. */
static void *locate(const struct emu_job *j, const struct field *f, uint32_t me)
{
    switch (f->where) {
    case HDR:
        return (char *)j->hdr + f->off;
    case RANK:
        return (char *)&j->ranks[me] + f->off;
    case NODE:
        return (char *)&j->nodes[emunic_node()] + f->off;
    case NET:
        return (char *)emu_job_netcfg(j) + f->off;
    case CMDQ:
    case CQ: {
        struct emu_ring r;
        void *mem = f->where == CMDQ ? emu_job_cmd_ring(j, me) : emu_job_cq_ring(j, me);
        if (emu_ring_attach(&r, mem, f->where == CMDQ ? j->geo.cmd_slots : j->geo.cq_slots) != 0)
            return NULL;
        if (f->off == 1)
            return (void *)&r.shm->tail;
        /* the next slot the consumer (cmdq: the NIC, cq: us) or the
         * producer (cq: the NIC) will look at */
        uint64_t pos = atomic_load(&r.shm->tail);
        return (void *)&r.seq[pos & r.mask];
    }
    }
    return NULL;
}

/* VALUE: a number, "rand" (random bytes over the whole field), or the
 * value that does the most harm to someone else: "peer_pid" (the pid of
 * the rank we talk to), "launcher_pid", "peer_base" (its heap address). */
static void strike(const struct field *f, void *at, const char *value, const struct emu_job *j, uint32_t peer)
{
    uint8_t buf[256];
    size_t n = f->size < sizeof buf ? f->size : sizeof buf;
    if (!strcmp(value, "rand")) {
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)rnd();
    } else {
        uint64_t v = strtoull(value, NULL, 0);
        if (!strcmp(value, "peer_pid"))
            v = (uint64_t)atomic_load(&j->ranks[peer].pid);
        else if (!strcmp(value, "launcher_pid"))
            v = (uint64_t)getppid();
        else if (!strcmp(value, "peer_base"))
            v = emunic_heap_addr(peer);
        memset(buf, 0, n);
        memcpy(buf, &v, n < 8 ? n : 8);
    }
    memcpy(at, buf, n);
}

static int fail(const char *what, uint32_t me, int code)
{
    fprintf(stderr, "%s: rank %u\n", what, me);
    return code;
}

/* One checked round to peer: write, read back, fetch-add. */
static int round_trip(uint32_t me, uint32_t peer, uint64_t area, uint8_t *src, uint8_t *back,
                      uint64_t *expect, uint64_t *cookie)
{
    size_t len = (rnd() & 1) ? 1 + rnd() % 120 : 200 + rnd() % 3800; /* inline or by reference */
    for (size_t i = 0; i < len; i++)
        src[i] = (uint8_t)rnd();
    struct emu_msg m;
    if (emunic_write(peer, EMU_KEY_HEAP, area, src, len, EMU_F_REMOTE_CQ, ++*cookie, 0))
        return fail("post write", me, 3);
    int st = emunic_wait_cookie(*cookie, &m);
    if (st)
        return fail(st < 0 ? "NIC gone" : emu_status_str((unsigned)st), me, 3);
    memset(back, 0, len);
    if (emunic_read(peer, EMU_KEY_HEAP, area, back, len, EMU_F_REMOTE_CQ, ++*cookie))
        return fail("post read", me, 3);
    if ((st = emunic_wait_cookie(*cookie, &m)) != 0)
        return fail(st < 0 ? "NIC gone" : emu_status_str((unsigned)st), me, 3);
    if (memcmp(src, back, len)) {
        fprintf(stderr, "SILENT CORRUPTION: rank %u read back other bytes than it wrote (%zu)\n", me, len);
        return 2;
    }
    uint64_t one = 1, old = ~0ull;
    if (emunic_atomic(peer, EMU_KEY_HEAP, area + 4096, EMU_AOP_SUM, EMU_UINT64, &one, 8, NULL, &old,
                      EMU_F_REMOTE_CQ, ++*cookie))
        return fail("post atomic", me, 3);
    if ((st = emunic_wait_cookie(*cookie, &m)) != 0)
        return fail(st < 0 ? "NIC gone" : emu_status_str((unsigned)st), me, 3);
    if (old != (*expect)++) {
        fprintf(stderr, "SILENT CORRUPTION: rank %u fetched %" PRIu64 ", expected %" PRIu64 "\n", me, old,
                *expect - 1);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "list")) {
        for (size_t i = 0; i < NFIELDS; i++)
            printf("%s\n", fields[i].name);
        return 0;
    }
    if (argc < 2)
        return fail("usage: hostile FIELD [VALUE|rand] [SECONDS] [SEED]", 0, 64);
    const char *value = argc > 2 ? argv[2] : "rand";
    double secs = argc > 3 ? atof(argv[3]) : 1;
    const struct field *f = NULL;
    for (size_t i = 0; i < NFIELDS; i++)
        if (!strcmp(fields[i].name, argv[1]))
            f = &fields[i];
    if (!f)
        return fail("unknown field", 0, 64);
    if (emunic_init())
        return 1;
    uint32_t me = emunic_rank(), n = emunic_size(), per = emunic_local_size();
    uint32_t hostile = n - 1;
    rng_state = (argc > 4 ? strtoull(argv[4], NULL, 0) : 1) * 1000 + me;
    /* every rank's heap: [1024*4 * r, ...) is where rank r writes, and
     * its counter is 4096 bytes further */
    uint8_t *heap = emunic_malloc(64 << 10);
    static uint8_t src[4096], back[4096]; /* private memory: the NIC reaches it by process_vm_* */
    if (!heap || (uint64_t)(uintptr_t)heap != emunic_heap_addr(me) || emunic_barrier())
        return 1;
    uint32_t peer = (me + per) % n;
    if (peer == hostile)
        peer = (peer + 1) % n == hostile ? 0 : (peer + 1) % n;
    if (peer == me)
        peer = (me + 1) % hostile;
    uint64_t area = emunic_heap_addr(peer) + 8192 * (uint64_t)me;
    uint64_t cookie = 0, expect = 0, ops = 0;
    double t0 = now_s();
    if (me != hostile) {
        while (now_s() - t0 < secs) {
            int rc = round_trip(me, peer, area, src, back, &expect, &cookie);
            if (rc)
                return rc;
            ops++;
        }
        /* nobody leaves while another victim may still target it: count
         * ourselves done in rank 0's heap, then wait for the others */
        uint64_t one = 1, all = 0, done_at = emunic_heap_addr(0) + DONE_OFF;
        struct emu_msg m;
        if (emunic_atomic(0, EMU_KEY_HEAP, done_at, EMU_AOP_SUM, EMU_UINT64, &one, 8, NULL, NULL,
                          EMU_F_REMOTE_CQ, ++cookie) ||
            emunic_wait_cookie(cookie, &m) != 0)
            return fail("count done", me, 3);
        for (double t1 = now_s(); all < hostile; ) {
            if (emunic_read(0, EMU_KEY_HEAP, done_at, &all, 8, EMU_F_REMOTE_CQ, ++cookie) ||
                emunic_wait_cookie(cookie, &m) != 0)
                return fail("wait for the others", me, 3);
            if (now_s() - t1 > 30)
                return fail("the other victims never finished", me, 4);
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        /* rank 0 holds the counters: it leaves last */
        if (me != 0) {
            if (emunic_atomic(0, EMU_KEY_HEAP, done_at + 8, EMU_AOP_SUM, EMU_UINT64, &one, 8, NULL, NULL,
                              EMU_F_REMOTE_CQ, ++cookie) ||
                emunic_wait_cookie(cookie, &m) != 0)
                return fail("count gone", me, 3);
        } else {
            volatile uint64_t *left = (volatile uint64_t *)(heap + DONE_OFF + 8);
            for (double t1 = now_s(); *left < hostile - 1 && now_s() - t1 < 30;) {
                struct timespec ts = {0, 1000000};
                nanosleep(&ts, NULL);
            }
        }
        printf("victim: rank %u ops %" PRIu64 "\n", me, ops);
        fflush(stdout);
        emunic_finalize();
        return 0;
    }
    struct emu_job job;
    if (emu_job_attach(&job, emunic_jobid()) != 0)
        return fail("attach", me, 1);
    void *at = locate(&job, f, me);
    if (!at)
        return fail("locate", me, 1);
    struct timespec pause = {0, 50 * 1000000};
    nanosleep(&pause, NULL); /* the victims are under way */
    printf("hostile: %s := %s at %" PRId64 "\n", f->name, value, real_ns());
    fflush(stdout);
    strike(f, at, value, &job, peer);
    /* traffic of our own after the strike, into our peer's heap: what
     * the NIC now does with our queues, pid and heap shows here */
    while (now_s() - t0 < secs) {
        int rc = round_trip(me, peer, area, src, back, &expect, &cookie);
        if (rc == 2)
            return rc; /* even the hostile rank gets what it wrote, or an error */
        if (rc)
            break;
        ops++;
    }
    printf("hostile: done\n");
    fflush(stdout);
    return 0;
}
