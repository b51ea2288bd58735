/* Unit tests of the job segment (emunic/job.h): create and attach in one
 * process and across processes, header fields, queue placement,
 * rejection of corrupt segments, what a rank may write of its view, and
 * the linear size law.
 *
 * The segment is a memfd (emunic.<jobid>.job) that lives while a process
 * holds it, so there is no directory to set up or clean: a job is gone
 * once its holders have detached, which is what the tests check instead
 * of counting removed files. The old ENOSPC case (a job created in a tiny
 * tmpfs mounted on the shm dir) is dropped with the directory: a memfd's
 * only limit is the machine's memory, which a unit test must not fill.
 * Forked children never return into cmocka:
 * they report through their exit status, and an alarm ends one that hangs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "children.h"

#include "emunic/job.h"

/* Lines of /proc/self/maps that map job id's segment: its mappings. */
static int maps_of(const char *id)
{
    char want[EMU_OBJ_NAME_MAX + 32], line[512];
    snprintf(want, sizeof want, "/memfd:" EMU_OBJ_PREFIX "%s.job (deleted)", id);
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        size_t ll = strlen(line), wl = strlen(want);
        n += ll >= wl && strcmp(line + ll - wl, want) == 0;
    }
    fclose(f);
    return n;
}

/* Whether the kernel lets this process store to the byte at p: read()
 * from a pipe into p fails with EFAULT where a store would fault. The
 * byte is put back as it was. */
static bool writable(void *p)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return false;
    bool ok = write(pfd[1], p, 1) == 1;
    ssize_t n = ok ? read(pfd[0], p, 1) : -1;
    int e = errno;
    close(pfd[0]);
    close(pfd[1]);
    if (ok && n < 0 && e != EFAULT)
        fprintf(stderr, "write probe: %s\n", strerror(e));
    return n == 1;
}

static void params(struct emu_job_params *p, uint32_t nnodes, uint32_t rpn)
{
    emu_job_params_default(p);
    p->nnodes = nnodes;
    p->ranks_per_node = rpn;
}

static void test_params_default(void **state)
{
    (void)state;
    struct emu_job_params p;
    memset(&p, 0xff, sizeof p);
    emu_job_params_default(&p);
    assert_int_equal(p.heap_size, EMU_DEFAULT_HEAP);
    const uint32_t slots[3] = {p.cmd_slots, p.cq_slots, p.wire_slots};
    for (int i = 0; i < 3; i++) {
        assert_true(slots[i] >= 2);
        assert_int_equal(slots[i] & (slots[i] - 1), 0);
    }
    assert_true(memchr(p.nic, '\0', sizeof p.nic) != NULL);
}

static void test_jobid_new(void **state)
{
    (void)state;
    char a[EMU_JOBID_MAX], b[EMU_JOBID_MAX];
    emu_jobid_new(a, sizeof a);
    emu_jobid_new(b, sizeof b);
    assert_true(strlen(a) > 0 && strlen(a) < EMU_JOBID_MAX);
    assert_string_not_equal(a, b);
    /* usable as a name component: no '/' and no '.' (the separator) */
    assert_null(strchr(a, '/'));
    assert_null(strchr(a, '.'));
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    assert_non_null(strstr(a, pid));
    /* a short buffer is respected */
    char small[6];
    memset(small, 'x', sizeof small);
    emu_jobid_new(small, sizeof small);
    assert_true(memchr(small, '\0', sizeof small) != NULL);
}

static void test_create_attach(void **state)
{
    (void)state;
    struct emu_job_params p;
    params(&p, 3, 4);
    p.cmd_slots = 64;
    p.cq_slots = 128;
    p.wire_slots = 256;
    p.heap_size = 1 << 24;
    snprintf(p.nic, sizeof p.nic, "portals4");
    int efds[3];
    for (int i = 0; i < 3; i++) {
        efds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        assert_true(efds[i] >= 0);
    }
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    int fds0 = count_fds();
    struct emu_job j;
    int64_t t0 = emu_now_ns();
    assert_int_equal(emu_job_create(&j, id, &p, efds), 0);
    int64_t t1 = emu_now_ns();

    /* the object: a memfd under the job's name that the creator holds
     * (and no rank inherits), of the size the header claims and
     * emu_job_size gives, its pages taken now rather than on a SIGBUS */
    assert_true(j.fd >= 0);
    assert_int_equal(count_fds(), fds0 + 1);
    assert_true(fcntl(j.fd, F_GETFD) & FD_CLOEXEC);
    char link[256], want[256], fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", j.fd);
    ssize_t ln = readlink(fdpath, link, sizeof link - 1);
    assert_true(ln > 0);
    link[ln] = '\0';
    snprintf(want, sizeof want, "/memfd:emunic.%s.job (deleted)", id);
    assert_string_equal(link, want);
    struct stat st;
    assert_int_equal(fstat(j.fd, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal((size_t)st.st_size, emu_job_size(&p));
    assert_true((uint64_t)st.st_blocks * 512 >= (uint64_t)st.st_size);
    assert_int_equal(j.size, emu_job_size(&p));

    const struct emu_job_hdr *h = j.hdr;
    assert_true(h->magic == EMU_JOB_MAGIC);
    assert_int_equal(h->version, EMU_JOB_VERSION);
    assert_int_equal(h->nnodes, 3);
    assert_int_equal(h->ranks_per_node, 4);
    assert_int_equal(h->nranks, 12);
    assert_int_equal(h->cmd_slots, 64);
    assert_int_equal(h->cq_slots, 128);
    assert_int_equal(h->wire_slots, 256);
    assert_int_equal(h->heap_size, 1 << 24);
    assert_int_equal(h->total_size, j.size);
    assert_int_equal(h->launcher_pid, getpid());
    assert_true(h->created_ns >= t0 && h->created_ns <= t1);
    assert_string_equal(h->jobid, id);
    assert_string_equal(h->nic, "portals4");
    assert_int_equal(atomic_load(&h->abort), 0);
    assert_true(h->cmd_bytes >= emu_ring_bytes(64));
    assert_true(h->cq_bytes >= emu_ring_bytes(128));
    assert_true(h->wire_bytes >= emu_ring_bytes(256));

    /* tables inside the segment */
    uintptr_t lo = (uintptr_t)j.hdr, hi = lo + j.size;
    assert_true((uintptr_t)j.ranks >= lo + sizeof *h);
    assert_true((uintptr_t)(j.ranks + 12) <= hi);
    assert_true((uintptr_t)j.nodes >= lo + sizeof *h);
    assert_true((uintptr_t)(j.nodes + 3) <= hi);
    assert_int_equal((uintptr_t)j.ranks % 64, 0);
    assert_int_equal((uintptr_t)j.nodes % 64, 0);
    for (uint32_t r = 0; r < 12; r++) {
        assert_int_equal(j.ranks[r].node, r / 4);
        assert_int_equal(j.ranks[r].local, r % 4);
        assert_int_equal(emu_job_node_of(&j, r), r / 4);
        assert_int_equal(j.ranks[r].heap_size, 1 << 24);
        assert_int_equal(atomic_load(&j.ranks[r].state), EMU_RANK_NONE);
        assert_int_equal(atomic_load(&j.ranks[r].heap_base), 0);
        assert_int_equal(j.ranks[r].cq_waiter.efd, -1);
        assert_int_equal(atomic_load(&j.ranks[r].cq_waiter.sleeping), 0);
        /* no region is live before the rank publishes one */
        for (unsigned k = 0; k < EMU_MAX_REGIONS; k++)
            assert_int_equal(atomic_load(&j.ranks[r].regions[k].gen) & 1, 0);
    }
    for (uint32_t n = 0; n < 3; n++) {
        assert_int_equal(j.nodes[n].doorbell.efd, efds[n]);
        assert_int_equal(atomic_load(&j.nodes[n].ready), 0);
        assert_int_equal(atomic_load(&j.nodes[n].ctr.cmds), 0);
    }

    /* every ring: inside the segment, formatted with its capacity, and no
     * two overlap */
    struct span {
        uintptr_t a, b;
    } sp[3 + 12 + 12 + 3];
    unsigned ns = 0;
    sp[ns++] = (struct span){lo, lo + sizeof *h};
    sp[ns++] = (struct span){(uintptr_t)j.ranks, (uintptr_t)(j.ranks + 12)};
    sp[ns++] = (struct span){(uintptr_t)j.nodes, (uintptr_t)(j.nodes + 3)};
    for (uint32_t r = 0; r < 12; r++) {
        void *c = emu_job_cmd_ring(&j, r), *q = emu_job_cq_ring(&j, r);
        struct emu_ring rc, rq;
        assert_int_equal(emu_ring_attach(&rc, c, 64), 0);
        assert_int_equal(emu_ring_attach(&rq, q, 128), 0);
        assert_int_equal((uintptr_t)c % 64, 0);
        assert_int_equal((uintptr_t)q % 64, 0);
        sp[ns++] = (struct span){(uintptr_t)c, (uintptr_t)c + emu_ring_bytes(64)};
        sp[ns++] = (struct span){(uintptr_t)q, (uintptr_t)q + emu_ring_bytes(128)};
    }
    for (unsigned a = 0; a < ns; a++) {
        assert_true(sp[a].a >= lo && sp[a].b <= hi);
        for (unsigned b = 0; b < a; b++)
            if (sp[a].a < sp[b].b && sp[b].a < sp[a].b)
                fail_msg("spans %u and %u overlap", a, b);
    }

    /* the wire between daemons and the link clocks are not in the
     * segment: nothing to find there before the daemons' object exists */
    assert_null(emu_job_wire_ring(&j, 0));
    assert_null(emu_job_links(&j));
    int wfd = emu_job_wire_create(&j);
    assert_true(wfd >= 0);
    assert_true(fcntl(wfd, F_GETFD) & FD_CLOEXEC); /* a rank never inherits it */
    uintptr_t wlo = (uintptr_t)j.wire, whi = wlo + j.geo.wire_size;
    assert_true(whi <= lo || wlo >= hi);
    ns = 0;
    sp[ns++] = (struct span){(uintptr_t)emu_job_links(&j),
                             (uintptr_t)(emu_job_links(&j) + 3 * EMU_NET_LINKS_PER_NODE)};
    for (uint32_t n = 0; n < 3; n++) {
        void *w = emu_job_wire_ring(&j, n);
        struct emu_ring rw;
        assert_int_equal(emu_ring_attach(&rw, w, 256), 0);
        assert_int_equal(emu_ring_attach(&rw, w, 64), -1);
        sp[ns++] = (struct span){(uintptr_t)w, (uintptr_t)w + emu_ring_bytes(256)};
    }
    for (unsigned a = 0; a < ns; a++) {
        assert_true(sp[a].a >= wlo && sp[a].b <= whi);
        for (unsigned b = 0; b < a; b++)
            if (sp[a].a < sp[b].b && sp[b].a < sp[a].b)
                fail_msg("wire spans %u and %u overlap", a, b);
    }
    /* attach in the same process: a second mapping of the same bytes,
     * through a descriptor of its own that it keeps */
    struct emu_job k;
    assert_int_equal(emu_job_attach(&k, id), 0);
    assert_true(k.fd >= 0);
    assert_int_not_equal(k.fd, j.fd);
    assert_true(fcntl(k.fd, F_GETFD) & FD_CLOEXEC);
    assert_int_equal(fcntl(k.fd, F_GETFL) & O_ACCMODE, O_RDWR);
    struct stat sk;
    assert_int_equal(fstat(k.fd, &sk), 0);
    assert_true(sk.st_dev == st.st_dev && sk.st_ino == st.st_ino);
    assert_ptr_not_equal(k.hdr, j.hdr);
    assert_int_equal(k.size, j.size);
    assert_memory_equal(k.hdr, j.hdr, sizeof *h);
    assert_int_equal((char *)k.ranks - (char *)k.hdr, (char *)j.ranks - (char *)j.hdr);
    assert_int_equal((char *)k.nodes - (char *)k.hdr, (char *)j.nodes - (char *)j.hdr);
    assert_int_equal((char *)emu_job_cq_ring(&k, 7) - (char *)k.hdr,
                     (char *)emu_job_cq_ring(&j, 7) - (char *)j.hdr);
    /* as a rank attaches: no wire; as a daemon: the object it was handed,
     * and only an object of this job's size */
    assert_null(k.wire);
    assert_null(emu_job_wire_ring(&k, 1));
    int junk = memfd_create("not-the-wire", MFD_CLOEXEC);
    assert_true(junk >= 0);
    assert_int_equal(ftruncate(junk, (off_t)j.geo.wire_size + 4096), 0);
    assert_int_equal(emu_job_wire_map(&k, junk), -EPROTO);
    close(junk);
    assert_int_equal(emu_job_wire_map(&k, -1), -EBADF);
    assert_int_equal(emu_job_wire_map(&k, wfd), 0);
    close(wfd);
    {
        struct emu_ring a, b;
        struct emu_msg m, out;
        memset(&m, 0, sizeof m);
        m.op = EMU_OP_WRITE;
        m.cookie = 0x77;
        assert_int_equal(emu_ring_attach(&a, emu_job_wire_ring(&j, 2), 256), 0);
        assert_int_equal(emu_ring_attach(&b, emu_job_wire_ring(&k, 2), 256), 0);
        assert_int_equal(emu_ring_push(&a, &m), 0);
        assert_int_equal(emu_ring_pop(&b, &out), 0);
        assert_int_equal(out.cookie, 0x77);
        atomic_store(&emu_job_links(&k)[5], 1234);
        assert_int_equal(atomic_load(&emu_job_links(&j)[5]), 1234);
    }
    /* a message pushed through one mapping pops out of the other */
    struct emu_ring prod, cons;
    assert_int_equal(emu_ring_attach(&prod, emu_job_cmd_ring(&j, 5), 64), 0);
    assert_int_equal(emu_ring_attach(&cons, emu_job_cmd_ring(&k, 5), 64), 0);
    struct emu_msg m, out;
    memset(&m, 0, sizeof m);
    m.op = EMU_OP_WRITE;
    m.src = 5;
    m.cookie = 0xabcdef;
    m.dlen = 3;
    memcpy(m.data, "xyz", 3);
    assert_int_equal(emu_ring_push(&prod, &m), 0);
    assert_int_equal(emu_ring_pop(&cons, &out), 0);
    assert_int_equal(out.cookie, 0xabcdef);
    assert_memory_equal(out.data, "xyz", 3);
    /* no other ring saw it */
    struct emu_ring other;
    assert_int_equal(emu_ring_attach(&other, emu_job_cmd_ring(&k, 4), 64), 0);
    assert_int_equal(emu_ring_pop(&other, &out), -1);
    assert_int_equal(emu_ring_attach(&other, emu_job_cq_ring(&k, 5), 128), 0);
    assert_int_equal(emu_ring_pop(&other, &out), -1);
    /* table writes are shared too */
    atomic_store(&j.ranks[11].pid, 4242);
    assert_int_equal(atomic_load(&k.ranks[11].pid), 4242);

    /* either holder keeps the job: the creator's leaving ends nothing
     * while an attacher holds it */
    emu_job_detach(&j);
    assert_null(j.hdr);
    assert_int_equal(j.fd, -1);
    struct emu_job l;
    assert_int_equal(emu_job_attach(&l, id), 0);
    assert_int_equal(atomic_load(&l.ranks[11].pid), 4242);
    emu_job_detach(&l);
    /* and with the last one it is gone, nothing left to remove */
    emu_job_detach(&k);
    assert_null(k.hdr);
    assert_int_equal(k.fd, -1);
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    assert_int_equal(maps_of(id), 0);
    assert_int_equal(count_fds(), fds0);
    /* which frees its id: a new job under it starts afresh */
    assert_int_equal(emu_job_create(&j, id, &p, NULL), 0);
    assert_int_equal(atomic_load(&j.ranks[11].pid), 0);
    emu_job_detach(&j);
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    assert_int_equal(count_fds(), fds0);
    for (int i = 0; i < 3; i++)
        close(efds[i]);
}

static void test_create_rejects_bad_params(void **state)
{
    (void)state;
    struct emu_job_params p;
    struct emu_job j;
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    int fds0 = count_fds();
    params(&p, 0, 1);
    assert_int_equal(emu_job_create(&j, id, &p, NULL), -EINVAL);
    params(&p, 1, 0);
    assert_int_equal(emu_job_create(&j, id, &p, NULL), -EINVAL);
    char longid[EMU_JOBID_MAX + 8];
    memset(longid, 'a', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    params(&p, 1, 1);
    assert_int_equal(emu_job_create(&j, longid, &p, NULL), -EINVAL);
    /* ids that would not be one unambiguous name component */
    assert_int_equal(emu_job_create(&j, "a.b", &p, NULL), -EINVAL);
    assert_int_equal(emu_job_create(&j, "a/b", &p, NULL), -EINVAL);
    assert_int_equal(emu_job_create(&j, "", &p, NULL), -EINVAL);
    /* ring sizes attach would refuse must be refused up front, not turned
     * into a segment nobody can attach to */
    params(&p, 1, 2);
    p.cmd_slots = 100;
    int rc = emu_job_create(&j, id, &p, NULL);
    if (rc == 0) {
        struct emu_job k;
        int arc = emu_job_attach(&k, id);
        if (arc == 0)
            emu_job_detach(&k);
        emu_job_detach(&j);
        fail_msg("emu_job_create accepted cmd_slots=100 (not a power of two); "
                 "attach then returns %d", arc);
    }
    assert_int_equal(rc, -EINVAL);
    /* nothing was made, nor a descriptor left open */
    struct emu_job k;
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    assert_int_equal(count_fds(), fds0);
}

static void test_create_rejects_too_many_nodes(void **state)
{
    (void)state;
    struct emu_job_params p;
    struct emu_job j;
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    params(&p, EMU_MAX_NODES + 1, 1);
    p.cmd_slots = p.cq_slots = p.wire_slots = 2; /* keep it small if accepted */
    int rc = emu_job_create(&j, id, &p, NULL);
    if (rc == 0) {
        emu_job_detach(&j);
        fail_msg("emu_job_create accepted nnodes > EMU_MAX_NODES (attach refuses it)");
    }
    assert_int_equal(rc, -EINVAL);
    /* nothing was left behind */
    assert_int_equal(emu_job_attach(&j, id), -ENOENT);
}

/* emu_job_attach_rank's result, detaching again on success. */
static int attach_rank_rc(const char *id, uint32_t rank)
{
    struct emu_job r;
    int rc = emu_job_attach_rank(&r, id, rank);
    if (rc == 0)
        emu_job_detach(&r);
    return rc;
}

static void test_attach_errors(void **state)
{
    (void)state;
    struct emu_job k;
    int fds0 = count_fds();
    /* no holder anywhere: with no pid in the id, and with ours */
    assert_int_equal(emu_job_attach(&k, "no-such-job"), -ENOENT);
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    /* ids that are not one job's name component */
    assert_int_equal(emu_job_attach(&k, "../etc"), -EINVAL);
    assert_int_equal(emu_job_attach(&k, "a.b"), -EINVAL);
    assert_int_equal(emu_job_attach(&k, "a/b"), -EINVAL);
    assert_int_equal(emu_job_attach(&k, ""), -EINVAL);
    assert_int_equal(emu_job_attach(&k, NULL), -EINVAL);
    char longid[EMU_JOBID_MAX + 8];
    memset(longid, '1', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    assert_int_equal(emu_job_attach(&k, longid), -EINVAL);
    assert_int_equal(count_fds(), fds0);

    struct emu_job_params p;
    params(&p, 2, 2);
    p.cmd_slots = 16;
    p.cq_slots = 16;
    p.wire_slots = 16;
    struct emu_job j;
    assert_int_equal(emu_job_create(&j, id, &p, NULL), 0);
    struct emu_job_hdr *h = j.hdr;
    assert_int_equal(emu_job_attach(&k, id), 0);
    emu_job_detach(&k);

    /* every field the layout follows from, or that must agree with it,
     * spoilt through the creator's mapping; a refused attach keeps no
     * descriptor and no mapping */
#define CORRUPT(field, bad)                                           \
    do {                                                              \
        uint64_t saved_ = (uint64_t)h->field;                         \
        h->field = (bad);                                             \
        assert_int_equal(emu_job_attach(&k, id), -EPROTO);            \
        assert_int_equal(count_fds(), fds0 + 1);                      \
        assert_int_equal(maps_of(id), 1);                             \
        h->field = saved_;                                            \
        assert_int_equal(emu_job_attach(&k, id), 0);                  \
        emu_job_detach(&k);                                           \
    } while (0)

    CORRUPT(magic, 0);
    CORRUPT(magic, EMU_JOB_MAGIC ^ 1);
    CORRUPT(magic, EMU_RING_MAGIC);
    CORRUPT(version, EMU_JOB_VERSION + 1);
    CORRUPT(version, 0);
    CORRUPT(total_size, h->total_size * 2);
    CORRUPT(total_size, h->total_size - 4096);
    CORRUPT(nranks, 5);
    CORRUPT(nnodes, 0);
    CORRUPT(ranks_per_node, 1000000);
    CORRUPT(cmd_slots, 17);
    CORRUPT(cq_slots, 1u << 31);
    CORRUPT(off_cmd, h->off_cmd + 64);
    CORRUPT(off_net, h->total_size);
    CORRUPT(wire_bytes, 64);
    CORRUPT(cq_bytes, 64);
    CORRUPT(off_ranks, UINT64_MAX - 100);
#undef CORRUPT

    /* the same through a descriptor of the segment found by its name, as
     * any process that may look into ours could */
    char name[EMU_OBJ_NAME_MAX];
    assert_int_equal(emu_obj_name(name, sizeof name, id, "job"), 0);
    int fd = emu_memfd_find(name, O_RDWR, getpid());
    assert_true(fd >= 0);
    const uint64_t zero = 0, magic = EMU_JOB_MAGIC;
    assert_int_equal(pwrite(fd, &zero, sizeof zero, offsetof(struct emu_job_hdr, magic)),
                     (ssize_t)sizeof zero);
    assert_true(h->magic == 0);
    assert_int_equal(emu_job_attach(&k, id), -EPROTO);
    assert_int_equal(pwrite(fd, &magic, sizeof magic, offsetof(struct emu_job_hdr, magic)),
                     (ssize_t)sizeof magic);
    assert_int_equal(emu_job_attach(&k, id), 0);
    emu_job_detach(&k);

    /* the object shorter than the header claims */
    size_t full = j.size;
    assert_int_equal(ftruncate(fd, (off_t)(full - 4096)), 0);
    assert_int_equal(emu_job_attach(&k, id), -EPROTO);
    /* longer */
    assert_int_equal(ftruncate(fd, (off_t)(full + 4096)), 0);
    assert_int_equal(emu_job_attach(&k, id), -EPROTO);
    assert_int_equal(ftruncate(fd, (off_t)full), 0);
    assert_int_equal(emu_job_attach(&k, id), 0);
    emu_job_detach(&k);
    close(fd);
    emu_job_detach(&j);
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);

    /* an object under a job's name that is no job: empty, too small to
     * hold a header, and a page of zeros */
    char id2[EMU_JOBID_MAX];
    emu_jobid_new(id2, sizeof id2);
    assert_int_equal(emu_obj_name(name, sizeof name, id2, "job"), 0);
    fd = emu_memfd_create(name, 0, false);
    assert_true(fd >= 0);
    assert_int_equal(emu_job_attach(&k, id2), -EPROTO);
    assert_int_equal(ftruncate(fd, 16), 0);
    assert_int_equal(pwrite(fd, "emunicjb", 8, 0), 8);
    assert_int_equal(emu_job_attach(&k, id2), -EPROTO);
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    assert_int_equal(emu_job_attach(&k, id2), -EPROTO);
    assert_int_equal(attach_rank_rc(id2, 0), -EPROTO);
    assert_int_equal(count_fds(), fds0 + 1);
    assert_int_equal(maps_of(id2), 0);
    close(fd);
    assert_int_equal(emu_job_attach(&k, id2), -ENOENT);
    assert_int_equal(count_fds(), fds0);
}

static void test_size_linear(void **state)
{
    (void)state;
    struct emu_job_params p;
    /* grows with ranks, and doubling ranks at most doubles (plus a small
     * constant) the size: no per-pair tables */
    const uint32_t xs[] = {64, 256, 1024, 4096};
    for (unsigned i = 0; i < 4; i++) {
        uint32_t x = xs[i];
        params(&p, x / 8, 8);
        size_t s1 = emu_job_size(&p);
        params(&p, x / 4, 8); /* 2x ranks, 2x nodes */
        size_t s2 = emu_job_size(&p);
        assert_true(s2 > s1);
        assert_true((double)s2 < 2.2 * (double)s1);
        params(&p, x / 8, 16); /* 2x ranks, same nodes */
        size_t s3 = emu_job_size(&p);
        assert_true(s3 > s1);
        assert_true((double)s3 < 2.2 * (double)s1);
        /* and the per-rank share does not grow with the job */
        params(&p, x / 8, 8);
        size_t per_rank = s1 / x;
        params(&p, 1, 8);
        size_t small = emu_job_size(&p) / 8;
        assert_true(per_rank <= small + 4096);
    }
    /* bigger queues mean a bigger segment */
    params(&p, 4, 4);
    size_t base = emu_job_size(&p);
    p.cq_slots *= 2;
    assert_true(emu_job_size(&p) > base);
    /* but not bigger wire rings: they are in the daemons' object, which
     * no rank maps (the segment is what every rank maps) */
    params(&p, 4, 4);
    p.wire_slots = 2;
    size_t few = emu_job_size(&p);
    p.wire_slots = 1u << 20;
    assert_int_equal(emu_job_size(&p), few);
    /* the size is a whole number of pages */
    assert_int_equal(base % 4096, 0);
}

/* A 2 x 2 job with small queues under a new id. */
static void small_job(struct emu_job *j, char *id)
{
    struct emu_job_params p;
    params(&p, 2, 2);
    p.cmd_slots = 16;
    p.cq_slots = 16;
    p.wire_slots = 16;
    emu_jobid_new(id, EMU_JOBID_MAX);
    assert_int_equal(emu_job_create(j, id, &p, NULL), 0);
}

static void test_attach_rank(void **state)
{
    (void)state;
    struct emu_job j, r;
    char id[EMU_JOBID_MAX];
    int fds0 = count_fds();
    assert_int_equal(emu_job_attach_rank(&r, "no-such-job", 0), -ENOENT);
    assert_int_equal(emu_job_attach_rank(&r, "a.b", 0), -EINVAL);
    assert_int_equal(emu_job_attach_rank(&r, "../etc", 0), -EINVAL);
    assert_int_equal(emu_job_attach_rank(&r, "", 0), -EINVAL);
    assert_int_equal(emu_job_attach_rank(&r, NULL, 0), -EINVAL);
    small_job(&j, id);
    assert_int_equal(count_fds(), fds0 + 1);
    assert_int_equal(maps_of(id), 1);

    /* a rank outside the job: refused, and nothing of it kept */
    assert_int_equal(emu_job_attach_rank(&r, id, 4), -EINVAL);
    assert_int_equal(emu_job_attach_rank(&r, id, UINT32_MAX), -EINVAL);
    assert_int_equal(count_fds(), fds0 + 1);
    assert_int_equal(maps_of(id), 1);

    const uint32_t me = 1;
    assert_int_equal(emu_job_attach_rank(&r, id, me), 0);
    /* no descriptor, so none to map the segment writable again with */
    assert_int_equal(r.fd, -1);
    assert_int_equal(count_fds(), fds0 + 1);
    assert_null(r.wire);
    assert_ptr_not_equal(r.hdr, j.hdr);
    assert_int_equal(r.size, j.size);
    assert_int_equal(r.geo.nranks, 4);
    assert_string_equal(r.geo.jobid, id);
    assert_int_equal((char *)r.ranks - (char *)r.hdr, (char *)j.ranks - (char *)j.hdr);
    assert_int_equal((char *)r.nodes - (char *)r.hdr, (char *)j.nodes - (char *)j.hdr);

    /* one object: the creator's stores show in the rank's view, and the
     * rank's own in the creator's */
    atomic_store(&j.ranks[0].pid, 1000);
    assert_int_equal(atomic_load(&r.ranks[0].pid), 1000);
    atomic_store(&r.ranks[me].pid, 1001);
    assert_int_equal(atomic_load(&j.ranks[me].pid), 1001);
    struct emu_ring a, b;
    struct emu_msg m, out;
    memset(&m, 0, sizeof m);
    m.op = EMU_OP_WRITE;
    m.cookie = 0x5151;
    assert_int_equal(emu_ring_attach(&a, emu_job_cmd_ring(&r, me), 16), 0);
    assert_int_equal(emu_ring_attach(&b, emu_job_cmd_ring(&j, me), 16), 0);
    assert_int_equal(emu_ring_push(&a, &m), 0);
    assert_int_equal(emu_ring_pop(&b, &out), 0);
    assert_int_equal(out.cookie, 0x5151);
    assert_int_equal(emu_ring_attach(&a, emu_job_cq_ring(&j, me), 16), 0);
    assert_int_equal(emu_ring_attach(&b, emu_job_cq_ring(&r, me), 16), 0);
    m.cookie = 0x5252;
    assert_int_equal(emu_ring_push(&a, &m), 0);
    assert_int_equal(emu_ring_pop(&b, &out), 0);
    assert_int_equal(out.cookie, 0x5252);

    /* the probe itself: the creator's view is writable throughout */
    assert_true(writable(j.hdr));
    assert_true(writable((char *)j.hdr + j.size - 1));
    if (sysconf(_SC_PAGESIZE) == EMU_PAGE) {
        const struct emu_job_geo *g = &r.geo;
        char *base = (char *)r.hdr;
        const uint64_t own[3][2] = {
            {g->off_ranks + me * sizeof(struct emu_rank_info), sizeof(struct emu_rank_info)},
            {g->off_cmd + me * g->cmd_bytes, g->cmd_bytes},
            {g->off_cq + me * g->cq_bytes, g->cq_bytes},
        };
        /* its own entry and queues, to their last byte, and not one byte
         * either side */
        for (int i = 0; i < 3; i++) {
            char *lo = base + own[i][0], *hi = lo + own[i][1];
            assert_true(writable(lo));
            assert_true(writable(hi - 1));
            assert_false(writable(lo - 1));
            assert_false(writable(hi));
        }
        /* nothing else: header, other ranks' entries and queues, the node
         * table, the network configuration */
        assert_false(writable(base));
        assert_false(writable(&r.ranks[0]));
        assert_false(writable(&r.ranks[2]));
        assert_false(writable(&r.ranks[3]));
        assert_false(writable(emu_job_cmd_ring(&r, 0)));
        assert_false(writable(emu_job_cmd_ring(&r, 3)));
        assert_false(writable(emu_job_cq_ring(&r, 0)));
        assert_false(writable(emu_job_cq_ring(&r, 2)));
        assert_false(writable(&r.nodes[0]));
        assert_false(writable(&r.nodes[1]));
        assert_false(writable(emu_job_netcfg(&r)));
        assert_false(writable(base + r.size - 1));
        /* and mprotect cannot lift it: the view came from a read-only
         * descriptor */
        errno = 0;
        assert_int_equal(mprotect(base, EMU_PAGE, PROT_READ | PROT_WRITE), -1);
        assert_int_equal(errno, EACCES);
        assert_false(writable(base));
    } else {
        print_message("pages are not %u bytes: the rank maps all of it, no windows to check\n",
                      EMU_PAGE);
    }

    /* detach takes the windows with the view */
    emu_job_detach(&r);
    assert_null(r.hdr);
    assert_int_equal(maps_of(id), 1);
    assert_int_equal(count_fds(), fds0 + 1);

    /* a mapping is not a hold: once the creator is gone, a job that only
     * ranks map can no longer be found, though they still see it */
    assert_int_equal(emu_job_attach_rank(&r, id, 0), 0);
    emu_job_detach(&j);
    struct emu_job k;
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    assert_int_equal(emu_job_attach_rank(&k, id, 1), -ENOENT);
    assert_true(r.hdr->magic == EMU_JOB_MAGIC);
    assert_int_equal(atomic_load(&r.ranks[me].pid), 1001);
    emu_job_detach(&r);
    assert_int_equal(maps_of(id), 0);
    assert_int_equal(count_fds(), fds0);
}

/* A rank as its own process: it finds the job in its launcher (the pid
 * the id starts with) and writes its pid into its entry. The descriptor
 * it inherited by fork goes first: an exec'd rank does not have it. */
struct rank_child {
    const char *id;
    uint32_t rank;
    int inherited;
};

static int child_rank(void *arg)
{
    const struct rank_child *c = arg;
    close(c->inherited);
    int fds0 = count_fds();
    struct emu_job r;
    if (emu_job_attach_rank(&r, c->id, c->rank) != 0)
        return 10;
    if (r.fd != -1 || count_fds() != fds0)
        return 11;
    atomic_store(&r.ranks[c->rank].pid, (int32_t)getpid());
    if (sysconf(_SC_PAGESIZE) == EMU_PAGE &&
        (writable(r.hdr) || writable(&r.ranks[c->rank ^ 1]) ||
         mprotect(r.hdr, EMU_PAGE, PROT_READ | PROT_WRITE) == 0))
        return 12;
    emu_job_detach(&r);
    return 0;
}

/* A daemon as its own process: attaches, and so holds the job, until
 * told to go. */
struct daemon_child {
    const char *id;
    int inherited;
    int ready[2], go[2];
};

static int child_daemon(void *arg)
{
    struct daemon_child *d = arg;
    close(d->inherited);
    close(d->ready[0]);
    close(d->go[1]);
    struct emu_job k;
    if (emu_job_attach(&k, d->id) != 0)
        return 10;
    if (k.fd < 0)
        return 11;
    atomic_store(&k.nodes[1].daemon_pid, (int32_t)getpid());
    if (write(d->ready[1], "r", 1) != 1)
        return 12;
    char c;
    (void)!read(d->go[0], &c, 1); /* EOF: the parent is done */
    emu_job_detach(&k);
    return 0;
}

static void test_attach_across_processes(void **state)
{
    (void)state;
    struct emu_job j, k;
    char id[EMU_JOBID_MAX];
    small_job(&j, id);

    struct rank_child rc = {.id = id, .rank = 2, .inherited = j.fd};
    pid_t rank = spawn(child_rank, &rc);
    assert_int_equal(reap(rank), 0);
    assert_int_equal(atomic_load(&j.ranks[2].pid), rank);

    struct daemon_child dc = {.id = id, .inherited = j.fd};
    assert_int_equal(pipe2(dc.ready, O_CLOEXEC), 0);
    assert_int_equal(pipe2(dc.go, O_CLOEXEC), 0);
    pid_t daemon = spawn(child_daemon, &dc);
    close(dc.ready[1]);
    close(dc.go[0]);
    char c;
    if (read(dc.ready[0], &c, 1) != 1) {
        close(dc.ready[0]);
        close(dc.go[1]);
        fail_msg("daemon child failed: status %d", reap(daemon));
    }
    close(dc.ready[0]);
    assert_int_equal(atomic_load(&j.nodes[1].daemon_pid), daemon);

    /* the creator leaves; the daemon's hold keeps the job, and the search
     * of every process finds it there (the id's pid holds nothing now) */
    emu_job_detach(&j);
    assert_int_equal(emu_job_attach(&k, id), 0);
    assert_int_equal(atomic_load(&k.ranks[2].pid), rank);
    assert_int_equal(atomic_load(&k.nodes[1].daemon_pid), daemon);
    emu_job_detach(&k);
    assert_int_equal(attach_rank_rc(id, 3), 0);

    /* and with the daemon's leaving it is gone */
    close(dc.go[1]);
    assert_int_equal(reap(daemon), 0);
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    assert_int_equal(attach_rank_rc(id, 3), -ENOENT);
}

/* $EMUNIC_JOB_FD, the number the launcher gives its children, is where
 * attach looks first; a number that holds anything else (or garbage) is
 * not taken, and the search still finds the job. */
static void test_attach_job_fd_hint(void **state)
{
    (void)state;
    struct emu_job j, k;
    char id[EMU_JOBID_MAX], num[16];
    small_job(&j, id);
    int other = emu_memfd_create("emunic.not-this.job", 4096, true);
    assert_true(other >= 0);
    const char *hints[] = {NULL, "", "0", "-1", "junk", "999999", NULL};
    snprintf(num, sizeof num, "%d", j.fd);
    hints[0] = num;
    char onum[16];
    snprintf(onum, sizeof onum, "%d", other);
    hints[6] = onum;
    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
        assert_int_equal(setenv("EMUNIC_JOB_FD", hints[i], 1), 0);
        assert_int_equal(emu_job_attach(&k, id), 0);
        struct stat a, b;
        assert_int_equal(fstat(k.fd, &a), 0);
        assert_int_equal(fstat(j.fd, &b), 0);
        assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        emu_job_detach(&k);
        assert_int_equal(attach_rank_rc(id, 1), 0);
    }
    /* the right number of a job that is gone finds nothing */
    snprintf(num, sizeof num, "%d", j.fd);
    assert_int_equal(setenv("EMUNIC_JOB_FD", num, 1), 0);
    emu_job_detach(&j);
    assert_int_equal(emu_job_attach(&k, id), -ENOENT);
    unsetenv("EMUNIC_JOB_FD");
    close(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_default),
        cmocka_unit_test(test_jobid_new),
        cmocka_unit_test(test_create_attach),
        cmocka_unit_test(test_create_rejects_bad_params),
        cmocka_unit_test(test_create_rejects_too_many_nodes),
        cmocka_unit_test(test_attach_errors),
        cmocka_unit_test(test_attach_rank),
        cmocka_unit_test(test_attach_across_processes),
        cmocka_unit_test(test_attach_job_fd_hint),
        cmocka_unit_test(test_size_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
