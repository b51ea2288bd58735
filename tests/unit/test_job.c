/* Unit tests of the job segment (emunic/job.h): create and attach in one
 * process, header fields, queue placement, rejection of corrupt segments,
 * and the linear size law. Objects go to a private directory under
 * /dev/shm named by EMUNIC_SHM_DIR. */
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "emunic/job.h"

static char dir[256];

static void clear_dir(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(dp), e->d_name, 0);
    closedir(dp);
}

static void drop_cb(const char *jobid, void *arg)
{
    (void)arg;
    emu_shm_unlink_job(jobid);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/dev/shm/emunic-unit-job-XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof dir, "/tmp/emunic-unit-job-XXXXXX");
        if (!mkdtemp(dir))
            return -1;
    }
    return setenv("EMUNIC_SHM_DIR", dir, 1);
}

static int group_teardown(void **state)
{
    (void)state;
    emu_shm_foreach_job(drop_cb, NULL);
    clear_dir(dir);
    rmdir(dir);
    unsetenv("EMUNIC_SHM_DIR");
    return 0;
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
    struct emu_job j;
    int64_t t0 = emu_now_ns();
    assert_int_equal(emu_job_create(&j, id, &p, efds), 0);
    int64_t t1 = emu_now_ns();

    /* the object: 0600, the size the header claims and emu_job_size gives */
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, id, "job"), 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal((size_t)st.st_size, emu_job_size(&p));
    assert_int_equal(j.size, emu_job_size(&p));
    assert_true(j.fd >= 0);

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
    /* attach in the same process: a second mapping of the same bytes */
    struct emu_job k;
    assert_int_equal(emu_job_attach(&k, id), 0);
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

    emu_job_detach(&k);
    assert_null(k.hdr);
    emu_job_detach(&j);
    assert_null(j.hdr);
    for (int i = 0; i < 3; i++)
        close(efds[i]);
    /* a second create with the same id is refused */
    assert_int_equal(emu_job_create(&j, id, &p, NULL), -EEXIST);
    assert_int_equal(emu_shm_unlink_job(id), 1);
}

static void test_create_rejects_bad_params(void **state)
{
    (void)state;
    struct emu_job_params p;
    struct emu_job j;
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
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
        emu_job_detach(&j);
        emu_shm_unlink_job(id);
        fail_msg("emu_job_create accepted cmd_slots=100 (not a power of two); "
                 "attach then returns %d", arc);
    }
    assert_int_equal(rc, -EINVAL);
    assert_int_equal(emu_shm_unlink_job(id), 0);
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
        emu_shm_unlink_job(id);
        fail_msg("emu_job_create accepted nnodes > EMU_MAX_NODES (attach refuses it)");
    }
    assert_int_equal(rc, -EINVAL);
    /* nothing was left behind */
    assert_int_equal(emu_shm_unlink_job(id), 0);
}

static void test_attach_errors(void **state)
{
    (void)state;
    struct emu_job k;
    assert_int_equal(emu_job_attach(&k, "no-such-job"), -ENOENT);
    assert_int_equal(emu_job_attach(&k, "../etc"), -EINVAL);

    struct emu_job_params p;
    params(&p, 2, 2);
    p.cmd_slots = 16;
    p.cq_slots = 16;
    p.wire_slots = 16;
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    struct emu_job j;
    assert_int_equal(emu_job_create(&j, id, &p, NULL), 0);
    struct emu_job_hdr *h = j.hdr;
    assert_int_equal(emu_job_attach(&k, id), 0);
    emu_job_detach(&k);

#define CORRUPT(field, bad)                                           \
    do {                                                              \
        uint64_t saved_ = (uint64_t)h->field;                         \
        h->field = (bad);                                             \
        assert_int_equal(emu_job_attach(&k, id), -EPROTO);            \
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

    /* the file shorter than the header claims */
    size_t full = j.size;
    assert_int_equal(ftruncate(j.fd, (off_t)(full - 4096)), 0);
    assert_int_equal(emu_job_attach(&k, id), -EPROTO);
    /* longer */
    assert_int_equal(ftruncate(j.fd, (off_t)(full + 4096)), 0);
    assert_int_equal(emu_job_attach(&k, id), -EPROTO);
    assert_int_equal(ftruncate(j.fd, (off_t)full), 0);
    assert_int_equal(emu_job_attach(&k, id), 0);
    emu_job_detach(&k);
    emu_job_detach(&j);
    assert_int_equal(emu_shm_unlink_job(id), 1);

    /* an object too small to hold a header, and an empty one */
    char id2[EMU_JOBID_MAX], path[EMU_PATH_MAX];
    emu_jobid_new(id2, sizeof id2);
    assert_int_equal(emu_shm_path(path, sizeof path, id2, "job"), 0);
    int fd = open(path, O_CREAT | O_RDWR | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(emu_job_attach(&k, id2), -EPROTO);
    assert_int_equal(ftruncate(fd, 16), 0);
    assert_int_equal(write(fd, "emunicjb", 8), 8);
    assert_int_equal(emu_job_attach(&k, id2), -EPROTO);
    close(fd);
    assert_int_equal(emu_shm_unlink_job(id2), 1);
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

static void test_create_enospc(void **state)
{
    (void)state;
    char small[256];
    snprintf(small, sizeof small, "/tmp/emunic-unit-jobfull-XXXXXX");
    assert_non_null(mkdtemp(small));
    if (mount("tmpfs", small, "tmpfs", 0, "size=1m,mode=0700") != 0) {
        rmdir(small);
        print_message("tmpfs mount refused: job ENOSPC case skipped\n");
        skip();
    }
    setenv("EMUNIC_SHM_DIR", small, 1);
    struct emu_job_params p;
    params(&p, 4, 8); /* several MiB of queues */
    assert_true(emu_job_size(&p) > (2u << 20));
    struct emu_job j;
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    int rc = emu_job_create(&j, id, &p, NULL);
    int left = emu_shm_unlink_job(id);
    setenv("EMUNIC_SHM_DIR", dir, 1);
    umount(small);
    rmdir(small);
    assert_int_equal(rc, -ENOSPC);
    assert_int_equal(left, 0);
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
        cmocka_unit_test(test_size_linear),
        cmocka_unit_test(test_create_enospc),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
