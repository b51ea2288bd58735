/* Unit tests of job objects as memfds (emunic/memfd.h): their names,
 * creating them, finding one among the descriptors of whichever process
 * holds it, mapping it, and the scan for job segments that --cleanup and
 * emunic-stat rely on.
 *
 * Nothing needs removing afterwards: a memfd goes with its last holder.
 * Every job id starts with our pid, so parallel runs (ctest -j, another
 * build's suite) never meet each other's objects; the scans look at every
 * process, so checks on them count only reports about our ids. Forked
 * children never return into cmocka: they report through their exit
 * status, and an alarm ends one that hangs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "children.h"

#include "emunic/memfd.h"

/* "<our pid>-<tag>": ours alone among concurrent test processes */
static void make_id(char *id, const char *tag)
{
    snprintf(id, EMU_JOBID_MAX, "%d-%s", (int)getpid(), tag);
}

static void job_name(char *name, const char *tag, const char *what)
{
    char id[EMU_JOBID_MAX];
    make_id(id, tag);
    assert_int_equal(emu_obj_name(name, EMU_OBJ_NAME_MAX, id, what), 0);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 13 + seed);
}

static bool filled(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 13 + seed))
            return false;
    return true;
}

/* fd and other descriptor the same open object (not just the same name) */
static void assert_same_object(int a, int b)
{
    struct stat sa, sb;
    assert_int_equal(fstat(a, &sa), 0);
    assert_int_equal(fstat(b, &sb), 0);
    assert_true(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

static void test_obj_name(void **state)
{
    (void)state;
    char buf[256];
    assert_int_equal(emu_obj_name(buf, sizeof buf, "1234-abcd", "job"), 0);
    assert_string_equal(buf, "emunic.1234-abcd.job");
    /* dots are fine in the object part: only the job id must split out */
    assert_int_equal(emu_obj_name(buf, sizeof buf, "j", "heap.3"), 0);
    assert_string_equal(buf, "emunic.j.heap.3");

    /* a job id with the separator or a '/' in it, or none at all, would
     * not split back out of the name (emunic.a.b.job: job "a" or "a.b"?) */
    assert_int_equal(emu_obj_name(buf, sizeof buf, "a.b", "job"), -1);
    assert_int_equal(emu_obj_name(buf, sizeof buf, "a/b", "job"), -1);
    assert_int_equal(emu_obj_name(buf, sizeof buf, "..", "job"), -1);
    assert_int_equal(emu_obj_name(buf, sizeof buf, ".", "job"), -1);
    assert_int_equal(emu_obj_name(buf, sizeof buf, "", "job"), -1);
    assert_int_equal(emu_obj_name(buf, sizeof buf, NULL, "job"), -1);

    /* too small a buffer: an error, not a truncated name */
    size_t need = strlen("emunic.j.heap.3") + 1;
    assert_int_equal(emu_obj_name(buf, need, "j", "heap.3"), 0);
    assert_int_equal(emu_obj_name(buf, need - 1, "j", "heap.3"), -1);
    assert_int_equal(emu_obj_name(buf, 4, "j", "heap.3"), -1);
    assert_int_equal(emu_obj_name(buf, 0, "j", "heap.3"), -1);

    /* and never a name longer than EMU_OBJ_NAME_MAX allows, however big
     * the buffer: emu_memfd_create would refuse it */
    char id[128];
    size_t fit = EMU_OBJ_NAME_MAX - 1 - strlen(EMU_OBJ_PREFIX) - strlen(".job");
    memset(id, 'x', fit);
    id[fit] = '\0';
    assert_int_equal(emu_obj_name(buf, sizeof buf, id, "job"), 0);
    assert_int_equal(strlen(buf), EMU_OBJ_NAME_MAX - 1);
    id[fit] = 'x';
    id[fit + 1] = '\0';
    assert_int_equal(emu_obj_name(buf, sizeof buf, id, "job"), -1);
}

static void test_create(void **state)
{
    (void)state;
    char name[EMU_OBJ_NAME_MAX], link[256], want[256], path[64];
    job_name(name, "create", "job");
    const size_t size = 3 * 4096 + 100;

    int fd = emu_memfd_create(name, size, false);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal((size_t)st.st_size, size);
    assert_int_equal(st.st_blocks, 0); /* nothing allocated until touched */
    /* a rank or daemon exec'd by the creator must not inherit it */
    assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
    /* under the name others look for */
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    assert_true(n > 0);
    link[n] = '\0';
    snprintf(want, sizeof want, "/memfd:%s (deleted)", name);
    assert_string_equal(link, want);
    /* new objects read as zero */
    unsigned char *p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    for (size_t i = 0; i < size; i++)
        if (p[i])
            fail_msg("byte %zu of a new object is %u", i, p[i]);
    munmap(p, size);
    close(fd);

    /* reserve: every page allocated now, not on first touch */
    fd = emu_memfd_create(name, size, true);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal((size_t)st.st_size, size);
    assert_true((uint64_t)st.st_blocks * 512 >= size);
    close(fd);

    /* an empty object is an object */
    fd = emu_memfd_create(name, 0, true);
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, 0);
    close(fd);

    /* refused up front, and no descriptor left behind */
    int before = count_fds();
    assert_int_equal(emu_memfd_create(name, (uint64_t)INT64_MAX + 1, false), -EINVAL);
    assert_int_equal(emu_memfd_create(name, UINT64_MAX, true), -EINVAL);
    char longname[EMU_OBJ_NAME_MAX + 1];
    memset(longname, 'n', EMU_OBJ_NAME_MAX);
    longname[EMU_OBJ_NAME_MAX] = '\0';
    assert_int_equal(emu_memfd_create(longname, 4096, false), -EINVAL);
    longname[EMU_OBJ_NAME_MAX - 1] = '\0'; /* the longest name allowed */
    fd = emu_memfd_create(longname, 4096, false);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(count_fds(), before);
}

static void test_open_self(void **state)
{
    (void)state;
    char name[EMU_OBJ_NAME_MAX], other[EMU_OBJ_NAME_MAX + 16];
    job_name(name, "self", "job");
    const size_t size = 2 * 4096;
    int fd = emu_memfd_create(name, size, false);
    assert_true(fd >= 0);
    unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    fill(p, size, 5);

    /* at its number: found; at any other, or none, not */
    int at = emu_memfd_open_fd(getpid(), fd, name, O_RDWR);
    assert_true(at >= 0);
    assert_same_object(at, fd);
    close(at);
    assert_int_equal(emu_memfd_open_fd(getpid(), 0, name, O_RDWR), -ENOENT);
    assert_int_equal(emu_memfd_open_fd(getpid(), -1, name, O_RDWR), -ENOENT);
    assert_int_equal(emu_memfd_open_fd(getpid(), 1 << 20, name, O_RDWR), -ENOENT);
    assert_int_equal(emu_memfd_open_fd(0, fd, name, O_RDWR), -ESRCH);

    /* read-only: the same bytes, and no way to write them through it */
    int ro = emu_memfd_open(getpid(), name, O_RDONLY);
    assert_true(ro >= 0);
    assert_int_not_equal(ro, fd);
    assert_same_object(ro, fd);
    assert_int_equal(fcntl(ro, F_GETFL) & O_ACCMODE, O_RDONLY);
    assert_true(fcntl(ro, F_GETFD) & FD_CLOEXEC);
    size_t got = 0;
    unsigned char *q = emu_fd_map(ro, PROT_READ, &got);
    assert_non_null(q);
    assert_int_equal(got, size);
    assert_true(filled(q, size, 5));
    assert_int_equal(mprotect(q, size, PROT_READ | PROT_WRITE), -1);
    assert_int_equal(errno, EACCES);
    munmap(q, size);
    errno = 0;
    assert_null(emu_fd_map(ro, PROT_READ | PROT_WRITE, &got));
    assert_int_equal(errno, EACCES);
    assert_true(mmap(NULL, size, PROT_WRITE, MAP_SHARED, ro, 0) == MAP_FAILED);
    assert_int_equal(errno, EACCES);
    close(ro);

    /* read-write: a store through it is a store into the object */
    int rw = emu_memfd_open(getpid(), name, O_RDWR);
    assert_true(rw >= 0);
    assert_same_object(rw, fd);
    assert_int_equal(fcntl(rw, F_GETFL) & O_ACCMODE, O_RDWR);
    q = emu_fd_map(rw, PROT_READ | PROT_WRITE, &got);
    assert_non_null(q);
    q[size - 1] = 0xa5;
    assert_int_equal(p[size - 1], 0xa5);
    munmap(q, size);
    close(rw);

    /* only the exact name: not one it starts with, nor one starting with it */
    int before = count_fds();
    size_t nl = strlen(name);
    snprintf(other, sizeof other, "%.*s", (int)(nl - 1), name);
    assert_int_equal(emu_memfd_open(getpid(), other, O_RDONLY), -ENOENT);
    snprintf(other, sizeof other, "%s0", name);
    assert_int_equal(emu_memfd_open(getpid(), other, O_RDONLY), -ENOENT);
    snprintf(other, sizeof other, "%s (deleted)", name);
    assert_int_equal(emu_memfd_open(getpid(), other, O_RDONLY), -ENOENT);
    snprintf(other, sizeof other, "%s", name + 1);
    assert_int_equal(emu_memfd_open(getpid(), other, O_RDONLY), -ENOENT);
    snprintf(other, sizeof other, "memfd:%s", name);
    assert_int_equal(emu_memfd_open(getpid(), other, O_RDONLY), -ENOENT);
    assert_int_equal(emu_memfd_open(getpid(), "", O_RDONLY), -ENOENT);
    /* nor a process that is not there */
    assert_int_equal(emu_memfd_open(0, name, O_RDONLY), -ESRCH);
    assert_int_equal(emu_memfd_open(-1, name, O_RDONLY), -ESRCH);
    assert_int_equal(emu_memfd_open(INT_MAX, name, O_RDONLY), -ESRCH); /* above any pid_max */
    assert_int_equal(count_fds(), before);

    /* a mapping is no holder: once we close it, nobody holds it */
    close(fd);
    assert_int_equal(emu_memfd_open(getpid(), name, O_RDONLY), -ENOENT);
    assert_true(filled(p, size - 1, 5));
    munmap(p, size);
}

/* The object a parent holds, written by a child that finds it there. */
struct parent_obj {
    char name[EMU_OBJ_NAME_MAX];
    size_t size;
};

static int child_writes_parents(void *arg)
{
    const struct parent_obj *o = arg;
    char absent[EMU_OBJ_NAME_MAX + 1];
    snprintf(absent, sizeof absent, "%sx", o->name);
    if (emu_memfd_open(getppid(), absent, O_RDWR) != -ENOENT)
        return 10;
    /* what a rank gets for its view: readable, and no more */
    int ro = emu_memfd_open(getppid(), o->name, O_RDONLY);
    if (ro < 0)
        return 11;
    size_t got;
    errno = 0;
    if (emu_fd_map(ro, PROT_READ | PROT_WRITE, &got) != NULL || errno != EACCES)
        return 12;
    close(ro);
    int fd = emu_memfd_open(getppid(), o->name, O_RDWR);
    if (fd < 0)
        return 13;
    unsigned char *p = emu_fd_map(fd, PROT_READ | PROT_WRITE, &got);
    close(fd);
    if (!p || got != o->size)
        return 14;
    fill(p, got, 77);
    munmap(p, got);
    return 0;
}

static void test_open_from_child(void **state)
{
    (void)state;
    struct parent_obj o = {.size = 3 * 4096};
    job_name(o.name, "pc", "heap.0");
    int fd = emu_memfd_create(o.name, o.size, false);
    assert_true(fd >= 0);
    assert_int_equal(reap(spawn(child_writes_parents, &o)), 0);
    unsigned char buf[3 * 4096];
    assert_int_equal(pread(fd, buf, sizeof buf, 0), (ssize_t)sizeof buf);
    assert_true(filled(buf, sizeof buf, 77));
    close(fd);
}

/* A child that makes and holds an object until told to go. */
struct holder {
    char name[EMU_OBJ_NAME_MAX];
    int ready[2], go[2];
};

static int child_holds(void *arg)
{
    struct holder *h = arg;
    close(h->ready[0]);
    close(h->go[1]);
    int fd = emu_memfd_create(h->name, 4096, false);
    if (fd < 0)
        return 10;
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return 11;
    fill(p, 4096, 33);
    munmap(p, 4096);
    if (write(h->ready[1], "r", 1) != 1)
        return 12;
    char c;
    (void)!read(h->go[0], &c, 1); /* EOF: the parent is done */
    close(fd);
    return 0;
}

static pid_t start_holder(struct holder *h)
{
    assert_int_equal(pipe2(h->ready, O_CLOEXEC), 0);
    assert_int_equal(pipe2(h->go, O_CLOEXEC), 0);
    pid_t pid = spawn(child_holds, h);
    close(h->ready[1]);
    close(h->go[0]);
    char c;
    if (read(h->ready[0], &c, 1) != 1) {
        close(h->ready[0]);
        close(h->go[1]);
        fail_msg("holder child failed: status %d", reap(pid));
    }
    close(h->ready[0]);
    return pid;
}

static int stop_holder(struct holder *h, pid_t pid)
{
    close(h->go[1]);
    return reap(pid);
}

static void test_find_child_holder(void **state)
{
    (void)state;
    struct holder h;
    job_name(h.name, "fc", "job");
    pid_t child = start_holder(&h);

    /* not ours: only a search of every process finds it */
    assert_int_equal(emu_memfd_open(getpid(), h.name, O_RDONLY), -ENOENT);
    int fd = emu_memfd_find(h.name, O_RDWR, 0);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
    size_t got;
    unsigned char *p = emu_fd_map(fd, PROT_READ | PROT_WRITE, &got);
    assert_non_null(p);
    assert_int_equal(got, 4096);
    assert_true(filled(p, got, 33));
    close(fd);
    /* the right hint, and a wrong one that falls back to the search */
    fd = emu_memfd_find(h.name, O_RDONLY, child);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
    close(fd);
    fd = emu_memfd_find(h.name, O_RDONLY, getpid());
    assert_true(fd >= 0);
    close(fd);
    fd = emu_memfd_find(h.name, O_RDONLY, INT_MAX);
    assert_true(fd >= 0);
    close(fd);

    /* gone with its holder, though we still map it */
    assert_int_equal(stop_holder(&h, child), 0);
    int before = count_fds();
    assert_int_equal(emu_memfd_find(h.name, O_RDONLY, 0), -ENOENT);
    assert_int_equal(emu_memfd_find(h.name, O_RDONLY, child), -ENOENT);
    assert_int_equal(count_fds(), before);
    assert_true(filled(p, got, 33));
    munmap(p, got);
}

static void test_fd_map(void **state)
{
    (void)state;
    char name[EMU_OBJ_NAME_MAX];
    job_name(name, "map", "job");
    size_t got = 12345;

    /* not sized yet: nothing to map */
    int fd = emu_memfd_create(name, 0, false);
    assert_true(fd >= 0);
    errno = 0;
    assert_null(emu_fd_map(fd, PROT_READ, &got));
    assert_int_equal(errno, EPROTO);
    /* sized: all of it, shared */
    assert_int_equal(ftruncate(fd, 3 * 4096), 0);
    unsigned char *p = emu_fd_map(fd, PROT_READ | PROT_WRITE, &got);
    assert_non_null(p);
    assert_int_equal(got, 3 * 4096);
    p[3 * 4096 - 1] = 0x5a;
    unsigned char c = 0;
    assert_int_equal(pread(fd, &c, 1, 3 * 4096 - 1), 1);
    assert_int_equal(c, 0x5a);
    munmap(p, got);
    close(fd);

    /* not a memory object */
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    errno = 0;
    assert_null(emu_fd_map(pfd[0], PROT_READ, &got));
    assert_int_equal(errno, EPROTO);
    close(pfd[0]);
    close(pfd[1]);
    /* one with a size, so that only the file type can refuse it */
    int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    struct stat st;
    assert_int_equal(fstat(dfd, &st), 0);
    if (st.st_size <= 0)
        print_message("/ has size 0 here: the directory case only checks the size\n");
    errno = 0;
    assert_null(emu_fd_map(dfd, PROT_READ, &got));
    assert_int_equal(errno, EPROTO);
    close(dfd);
    errno = 0;
    assert_null(emu_fd_map(-1, PROT_READ, &got));
    assert_int_equal(errno, EBADF);
}

/* What emu_memfd_foreach_job said about the ids that start as a test's
 * do ("<pid>-<tag>"; not another test's, which may have left an object
 * behind when it failed), and whether it ever named a job with an empty
 * id. */
struct report {
    char id[EMU_JOBID_MAX];
    pid_t pid;
    bool holds;
};

struct seen {
    char prefix[EMU_JOBID_MAX];
    struct report r[32];
    int n, empty;
};

static void collect(const char *jobid, pid_t pid, bool holds, void *arg)
{
    struct seen *s = arg;
    if (!*jobid)
        s->empty++;
    if (strncmp(jobid, s->prefix, strlen(s->prefix)) != 0 || s->n == 32)
        return;
    snprintf(s->r[s->n].id, EMU_JOBID_MAX, "%s", jobid);
    s->r[s->n].pid = pid;
    s->r[s->n++].holds = holds;
}

static void scan(struct seen *s, const char *tag)
{
    memset(s, 0, sizeof *s);
    make_id(s->prefix, tag);
    emu_memfd_foreach_job(collect, s);
    assert_int_equal(s->empty, 0);
}

/* How many reports about id from pid with holds. */
static int reports(const struct seen *s, const char *id, pid_t pid, bool holds)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += !strcmp(s->r[i].id, id) && s->r[i].pid == pid && s->r[i].holds == holds;
    return n;
}

static int reports_of(const struct seen *s, const char *id)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += !strcmp(s->r[i].id, id);
    return n;
}

static void test_foreach_job(void **state)
{
    (void)state;
    const pid_t me = getpid();
    char id[EMU_JOBID_MAX], name[EMU_OBJ_NAME_MAX], bad[EMU_OBJ_NAME_MAX + 32];
    make_id(id, "fe");
    assert_int_equal(emu_obj_name(name, sizeof name, id, "job"), 0);
    const size_t size = 2 * 4096;
    int fd = emu_memfd_create(name, size, false);
    assert_true(fd >= 0);

    /* objects that are not a job's segment, held the same way */
    int others[8], no = 0;
    snprintf(bad, sizeof bad, "emunic.%s.b.job", id); /* job "id" or "id.b"? */
    others[no++] = emu_memfd_create(bad, 4096, false);
    others[no++] = emu_memfd_create("emunic..job", 4096, false);
    snprintf(bad, sizeof bad, "emunic.%s.heap.0", id);
    others[no++] = emu_memfd_create(bad, 4096, false);
    snprintf(bad, sizeof bad, "emunic.%s.jobx", id);
    others[no++] = emu_memfd_create(bad, 4096, false);
    snprintf(bad, sizeof bad, "xemunic.%s.job", id);
    others[no++] = emu_memfd_create(bad, 4096, false);
    /* an id one longer than a job id can be */
    char longid[EMU_JOBID_MAX + 1];
    memset(longid, 'z', EMU_JOBID_MAX);
    memcpy(longid, id, strlen(id));
    longid[EMU_JOBID_MAX] = '\0';
    assert_int_equal(strlen(longid), EMU_JOBID_MAX);
    snprintf(bad, sizeof bad, "emunic.%s.job", longid);
    others[no++] = emu_memfd_create(bad, 4096, false);
    /* while the longest that can be is a job */
    char maxid[EMU_JOBID_MAX];
    memcpy(maxid, longid, EMU_JOBID_MAX - 1);
    maxid[EMU_JOBID_MAX - 1] = '\0';
    assert_int_equal(strlen(maxid), EMU_JOBID_MAX - 1);
    snprintf(bad, sizeof bad, "emunic.%s.job", maxid);
    others[no++] = emu_memfd_create(bad, 4096, false);
    for (int i = 0; i < no; i++)
        assert_true(others[i] >= 0);

    /* held, not mapped: one report, ours, holding */
    struct seen s;
    scan(&s, "fe");
    assert_int_equal(reports_of(&s, id), 1);
    assert_int_equal(reports(&s, id, me, true), 1);
    assert_int_equal(reports_of(&s, maxid), 1);
    assert_int_equal(reports(&s, maxid, me, true), 1);
    assert_int_equal(s.n, 2); /* nothing for the other names */

    /* held and mapped, in two pieces (as a rank's windows split its view):
     * the holding, and the mapping once */
    unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(mprotect(p + 4096, 4096, PROT_READ), 0);
    scan(&s, "fe");
    assert_int_equal(reports_of(&s, id), 2);
    assert_int_equal(reports(&s, id, me, true), 1);
    assert_int_equal(reports(&s, id, me, false), 1);

    /* mapped only: still the job's, but we no longer hold it */
    close(fd);
    scan(&s, "fe");
    assert_int_equal(reports_of(&s, id), 1);
    assert_int_equal(reports(&s, id, me, false), 1);

    /* neither: gone */
    munmap(p, size);
    for (int i = 0; i < no; i++)
        close(others[i]);
    scan(&s, "fe");
    assert_int_equal(s.n, 0);
}

/* A deleted file whose path merely ends like a segment's link is no job,
 * neither mapped nor held (--cleanup would announce it as stale). */
static void test_foreach_job_spoof(void **state)
{
    (void)state;
    char dir[] = "/tmp/emunic-unit-memfd-XXXXXX", path[128], id[EMU_JOBID_MAX];
    assert_non_null(mkdtemp(dir));
    make_id(id, "sp");
    snprintf(path, sizeof path, "%s/memfd:emunic.%s.job", dir, id);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    struct seen s;
    scan(&s, "sp");
    munmap(p, 4096);
    close(fd);
    assert_int_equal(reports_of(&s, id), 0);
}

static void test_foreach_job_child(void **state)
{
    (void)state;
    struct holder h;
    char id[EMU_JOBID_MAX];
    make_id(id, "fk");
    assert_int_equal(emu_obj_name(h.name, sizeof h.name, id, "job"), 0);
    pid_t child = start_holder(&h);
    struct seen s;
    scan(&s, "fk");
    int held = reports(&s, id, child, true), ours = reports(&s, id, getpid(), true);
    int rc = stop_holder(&h, child);
    assert_int_equal(rc, 0);
    assert_int_equal(held, 1);
    assert_int_equal(ours, 0);
    scan(&s, "fk");
    assert_int_equal(reports_of(&s, id), 0);
}

/* Files clients name after a job go with it; another job's stay, also
 * one whose id starts like this one's. */
static void test_names_unlink(void **state)
{
    (void)state;
    char dir[] = "/tmp/emunic-unit-names-XXXXXX", path[192], id[EMU_JOBID_MAX], other[EMU_JOBID_MAX + 4];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(setenv("EMUNIC_SHM_DIR", dir, 1), 0);
    make_id(id, "nm");
    snprintf(other, sizeof other, "%sx", id);
    const char *files[][2] = {{id, "lockbox.n0"}, {id, "lockbox.n1"}, {other, "lockbox.n0"}};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/emunic.%s.%s", dir, files[i][0], files[i][1]);
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        assert_true(fd >= 0);
        close(fd);
    }
    assert_int_equal(emu_names_unlink_job(id), 2);
    assert_int_equal(emu_names_unlink_job(id), 0);
    assert_int_equal(emu_names_unlink_job("a.b"), 0);
    assert_int_equal(emu_names_unlink_job(""), 0);
    snprintf(path, sizeof path, "%s/emunic.%s.lockbox.n0", dir, other);
    assert_int_equal(access(path, F_OK), 0);
    assert_int_equal(emu_names_unlink_job(other), 1);
    unsetenv("EMUNIC_SHM_DIR");
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_obj_name),
        cmocka_unit_test(test_create),
        cmocka_unit_test(test_open_self),
        cmocka_unit_test(test_open_from_child),
        cmocka_unit_test(test_find_child_holder),
        cmocka_unit_test(test_fd_map),
        cmocka_unit_test(test_foreach_job),
        cmocka_unit_test(test_foreach_job_spoof),
        cmocka_unit_test(test_foreach_job_child),
        cmocka_unit_test(test_names_unlink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
