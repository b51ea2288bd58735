/* Unit tests of job-scoped shared-memory objects (emunic/shm.h).
 *
 * The whole file works in a private directory named by EMUNIC_SHM_DIR.
 * When running as root a 1 MiB tmpfs is mounted on it, which lets the
 * ENOSPC case fill the "disk"; without that one case is skipped. */
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "emunic/shm.h"

static char dir[256];
static int mounted;

static int count_entries(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(dp);
    return n;
}

static void clear_dir(void)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(dp), e->d_name, 0);
    closedir(dp);
}

static int count_fds(void)
{
    return count_entries("/proc/self/fd");
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/emunic-unit-shm-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    mounted = mount("tmpfs", dir, "tmpfs", 0, "size=1m,mode=0700") == 0;
    if (setenv("EMUNIC_SHM_DIR", dir, 1) != 0)
        return -1;
    /* with no umask in the way, 0600 must come from the code itself */
    umask(0);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    clear_dir();
    if (mounted)
        umount(dir);
    rmdir(dir);
    unsetenv("EMUNIC_SHM_DIR");
    return 0;
}

static int per_test_clean(void **state)
{
    (void)state;
    clear_dir();
    return 0;
}

static void test_dir_and_path(void **state)
{
    (void)state;
    assert_string_equal(emu_shm_dir(), dir);
    char buf[EMU_PATH_MAX], want[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(buf, sizeof buf, "1234-abcd", "job"), 0);
    snprintf(want, sizeof want, "%s/emunic.1234-abcd.job", dir);
    assert_string_equal(buf, want);
    assert_int_equal(emu_shm_path(buf, sizeof buf, "j", "heap.3"), 0);
    snprintf(want, sizeof want, "%s/emunic.j.heap.3", dir);
    assert_string_equal(buf, want);
    /* too small a buffer: an error, not a silently truncated name */
    size_t need = strlen(want) + 1;
    assert_int_equal(emu_shm_path(buf, need, "j", "heap.3"), 0);
    assert_int_not_equal(emu_shm_path(buf, need - 1, "j", "heap.3"), 0);
    assert_int_not_equal(emu_shm_path(buf, 4, "j", "heap.3"), 0);

    /* the default is /dev/shm; an empty variable means the default */
    unsetenv("EMUNIC_SHM_DIR");
    assert_string_equal(emu_shm_dir(), "/dev/shm");
    assert_int_equal(emu_shm_path(buf, sizeof buf, "77", "cq"), 0);
    assert_string_equal(buf, "/dev/shm/emunic.77.cq");
    setenv("EMUNIC_SHM_DIR", "", 1);
    assert_string_equal(emu_shm_dir(), "/dev/shm");
    setenv("EMUNIC_SHM_DIR", dir, 1);
    assert_string_equal(emu_shm_dir(), dir);
}

/* A job id must be one name component without the '.' separator:
 * otherwise "emunic.a.b.job" is job "a" to unlink_job/foreach_job and job
 * "a.b" to its creator, and cleaning up job "a" would remove it. */
static void test_path_rejects_ambiguous_jobid(void **state)
{
    (void)state;
    char buf[EMU_PATH_MAX];
    assert_int_not_equal(emu_shm_path(buf, sizeof buf, "a.b", "job"), 0);
    assert_int_not_equal(emu_shm_path(buf, sizeof buf, "a/b", "job"), 0);
    assert_int_not_equal(emu_shm_path(buf, sizeof buf, "..", "job"), 0);
    assert_int_not_equal(emu_shm_path(buf, sizeof buf, "", "job"), 0);
    /* dots in the object part are fine */
    assert_int_equal(emu_shm_path(buf, sizeof buf, "a", "heap.0"), 0);
    /* and the isolation property itself */
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, "a", "job"), 0);
    void *p = emu_shm_create(path, 4096, false, NULL);
    assert_non_null(p);
    munmap(p, 4096);
    assert_int_equal(emu_shm_unlink_job("a"), 1);
    assert_int_equal(count_entries(dir), 0);
}

static void test_create_open_roundtrip(void **state)
{
    (void)state;
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, "rt1", "obj"), 0);
    const size_t size = 3 * 4096 + 100;
    int fd = -1;
    unsigned char *p = emu_shm_create(path, size, true, &fd);
    assert_non_null(p);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal((size_t)st.st_size, size);
    assert_int_equal(st.st_uid, geteuid());
    /* new objects read as zero */
    for (size_t i = 0; i < size; i++)
        if (p[i] != 0)
            fail_msg("byte %zu of a new object is %u", i, p[i]);
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)(i * 7 + 3);

    size_t got = 0;
    int fd2 = -1;
    unsigned char *q = emu_shm_open(path, &got, &fd2);
    assert_non_null(q);
    assert_int_equal(got, size);
    assert_true(fd2 >= 0);
    assert_ptr_not_equal(p, q);
    assert_memory_equal(q, p, size);
    /* shared both ways */
    q[5] = 0xee;
    assert_int_equal(p[5], 0xee);
    p[size - 1] = 0x11;
    assert_int_equal(q[size - 1], 0x11);
    assert_int_equal(fstat(fd2, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    munmap(p, size);
    munmap(q, size);
    close(fd);
    close(fd2);

    /* without fd_out no descriptor is left open */
    char path2[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path2, sizeof path2, "rt1", "obj2"), 0);
    int before = count_fds();
    void *r = emu_shm_create(path2, 4096, false, NULL);
    assert_non_null(r);
    assert_int_equal(count_fds(), before);
    size_t sz;
    void *s = emu_shm_open(path2, &sz, NULL);
    assert_non_null(s);
    assert_int_equal(sz, 4096);
    assert_int_equal(count_fds(), before);
    assert_int_equal(stat(path2, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    munmap(r, 4096);
    munmap(s, 4096);
}

static void test_open_missing(void **state)
{
    (void)state;
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, "nojob", "obj"), 0);
    size_t sz = 12345;
    errno = 0;
    assert_null(emu_shm_open(path, &sz, NULL));
    assert_int_equal(errno, ENOENT);
    errno = 0;
    assert_null(emu_shm_create("/nonexistent-dir-emunic/emunic.x.y", 4096, false, NULL));
    assert_int_equal(errno, ENOENT);
}

static void test_excl(void **state)
{
    (void)state;
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, "ex", "obj"), 0);
    unsigned char *p = emu_shm_create(path, 8192, true, NULL);
    assert_non_null(p);
    memset(p, 0x3c, 8192);
    errno = 0;
    int fd = 777;
    assert_null(emu_shm_create(path, 8192, true, &fd));
    assert_int_equal(errno, EEXIST);
    errno = 0;
    assert_null(emu_shm_create(path, 100, false, NULL));
    assert_int_equal(errno, EEXIST);
    /* the failed creates did not remove or resize the existing object */
    assert_true(exists(path));
    size_t sz;
    unsigned char *q = emu_shm_open(path, &sz, NULL);
    assert_non_null(q);
    assert_int_equal(sz, 8192);
    for (size_t i = 0; i < 8192; i++)
        assert_int_equal(q[i], 0x3c);
    munmap(p, 8192);
    munmap(q, 8192);
}

static void make_obj(const char *job, const char *what)
{
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, job, what), 0);
    void *p = emu_shm_create(path, 4096, false, NULL);
    assert_non_null(p);
    munmap(p, 4096);
}

static void test_unlink_job(void **state)
{
    (void)state;
    make_obj("111-aaaa", "job");
    make_obj("111-aaaa", "heap.0");
    make_obj("111-aaaa", "heap.1");
    make_obj("222-bbbb", "job");
    make_obj("222-bbbb", "heap.0");
    /* a job id that extends another one must not be matched by prefix */
    make_obj("111-aaaa0", "job");
    make_obj("111-aaa", "job");
    /* files that are not emunic objects */
    char other[EMU_PATH_MAX];
    snprintf(other, sizeof other, "%s/other.111-aaaa.job", dir);
    int fd = open(other, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(count_entries(dir), 8);

    assert_int_equal(emu_shm_unlink_job("111-aaaa"), 3);
    assert_int_equal(count_entries(dir), 5);
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, "111-aaaa", "job"), 0);
    assert_false(exists(path));
    assert_int_equal(emu_shm_path(path, sizeof path, "222-bbbb", "job"), 0);
    assert_true(exists(path));
    assert_int_equal(emu_shm_path(path, sizeof path, "222-bbbb", "heap.0"), 0);
    assert_true(exists(path));
    assert_int_equal(emu_shm_path(path, sizeof path, "111-aaaa0", "job"), 0);
    assert_true(exists(path));
    assert_int_equal(emu_shm_path(path, sizeof path, "111-aaa", "job"), 0);
    assert_true(exists(path));
    assert_true(exists(other));
    /* again: nothing left to remove */
    assert_int_equal(emu_shm_unlink_job("111-aaaa"), 0);
    assert_int_equal(emu_shm_unlink_job("nosuchjob"), 0);
    assert_int_equal(emu_shm_unlink_job("222-bbbb"), 2);
    assert_int_equal(count_entries(dir), 3);
    unlink(other);
}

struct seen {
    char ids[16][EMU_JOBID_MAX];
    int count[16];
    int n;
};

static void collect(const char *jobid, void *arg)
{
    struct seen *s = arg;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->ids[i], jobid) == 0) {
            s->count[i]++;
            return;
        }
    if (s->n < 16) {
        snprintf(s->ids[s->n], EMU_JOBID_MAX, "%s", jobid);
        s->count[s->n++] = 1;
    }
}

static int seen_count(const struct seen *s, const char *id)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->ids[i], id) == 0)
            return s->count[i];
    return 0;
}

/* fn may remove the job it is told about (what a cleanup tool does) */
static void unlink_cb(const char *jobid, void *arg)
{
    int *n = arg;
    *n += emu_shm_unlink_job(jobid);
}

static void test_foreach_job(void **state)
{
    (void)state;
    struct seen s;
    memset(&s, 0, sizeof s);
    emu_shm_foreach_job(collect, &s);
    assert_int_equal(s.n, 0);

    make_obj("100-x", "job");
    make_obj("100-x", "heap.0");
    make_obj("100-x", "heap.1");
    make_obj("200-y", "job");
    make_obj("300-z", "heap.4");
    char other[EMU_PATH_MAX];
    snprintf(other, sizeof other, "%s/not-emunic", dir);
    int fd = open(other, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);

    memset(&s, 0, sizeof s);
    emu_shm_foreach_job(collect, &s);
    assert_int_equal(s.n, 3);
    /* each job once, however many objects it has */
    assert_int_equal(seen_count(&s, "100-x"), 1);
    assert_int_equal(seen_count(&s, "200-y"), 1);
    assert_int_equal(seen_count(&s, "300-z"), 1);

    int removed = 0;
    emu_shm_foreach_job(unlink_cb, &removed);
    assert_int_equal(removed, 5);
    assert_int_equal(count_entries(dir), 1);
    memset(&s, 0, sizeof s);
    emu_shm_foreach_job(collect, &s);
    assert_int_equal(s.n, 0);
    unlink(other);
}

static void test_many_jobs(void **state)
{
    (void)state;
    /* more jobs than any small fixed array holds */
    char id[EMU_JOBID_MAX];
    for (int i = 0; i < 40; i++) {
        snprintf(id, sizeof id, "%d-many", 1000 + i);
        char path[EMU_PATH_MAX];
        assert_int_equal(emu_shm_path(path, sizeof path, id, "job"), 0);
        void *p = emu_shm_create(path, 4096, false, NULL);
        assert_non_null(p);
        munmap(p, 4096);
    }
    int removed = 0;
    emu_shm_foreach_job(unlink_cb, &removed);
    assert_int_equal(removed, 40);
    assert_int_equal(count_entries(dir), 0);
}

static void test_enospc(void **state)
{
    (void)state;
    if (!mounted) {
        print_message("tmpfs mount refused: ENOSPC case skipped\n");
        skip();
    }
    char path[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path, sizeof path, "full", "heap.0"), 0);
    errno = 0;
    int fd = 12345;
    void *p = emu_shm_create(path, 4u << 20, true, &fd);
    assert_null(p);
    assert_int_equal(errno, ENOSPC);
    assert_false(exists(path));
    assert_int_equal(count_entries(dir), 0);
    /* a reserved object that fits still works, and the space it left is
     * what the next one sees */
    assert_int_equal(emu_shm_path(path, sizeof path, "full", "heap.1"), 0);
    p = emu_shm_create(path, 512 * 1024, true, NULL);
    assert_non_null(p);
    char path2[EMU_PATH_MAX];
    assert_int_equal(emu_shm_path(path2, sizeof path2, "full", "heap.2"), 0);
    errno = 0;
    assert_null(emu_shm_create(path2, 768 * 1024, true, NULL));
    assert_int_equal(errno, ENOSPC);
    assert_false(exists(path2));
    assert_true(exists(path));
    munmap(p, 512 * 1024);
    assert_int_equal(emu_shm_unlink_job("full"), 1);
    assert_int_equal(count_entries(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_dir_and_path, per_test_clean),
        cmocka_unit_test_setup(test_path_rejects_ambiguous_jobid, per_test_clean),
        cmocka_unit_test_setup(test_create_open_roundtrip, per_test_clean),
        cmocka_unit_test_setup(test_open_missing, per_test_clean),
        cmocka_unit_test_setup(test_excl, per_test_clean),
        cmocka_unit_test_setup(test_unlink_job, per_test_clean),
        cmocka_unit_test_setup(test_foreach_job, per_test_clean),
        cmocka_unit_test_setup(test_many_jobs, per_test_clean),
        cmocka_unit_test_setup(test_enospc, per_test_clean),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
