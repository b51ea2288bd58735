/* Job objects as memfds, found through the descriptors of their holders. */
#include "emunic/memfd.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINK_HEAD "/memfd:"
#define LINK_TAIL " (deleted)" /* a memfd is a file nobody can name */

int emu_obj_name(char *buf, size_t n, const char *jobid, const char *what)
{
    if (!jobid || !*jobid || strpbrk(jobid, "./"))
        return -1;
    if (n > EMU_OBJ_NAME_MAX)
        n = EMU_OBJ_NAME_MAX;
    int k = snprintf(buf, n, EMU_OBJ_PREFIX "%s.%s", jobid, what);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

int emu_memfd_create(const char *name, uint64_t size, bool reserve)
{
    if (strlen(name) >= EMU_OBJ_NAME_MAX || size > (uint64_t)INT64_MAX)
        return -EINVAL;
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    int err = 0;
    if (ftruncate(fd, (off_t)size) != 0)
        err = errno;
    else if (reserve && size)
        err = posix_fallocate(fd, 0, (off_t)size);
    if (err) {
        close(fd);
        return -err;
    }
    return fd;
}

/* The object the link at dir/ent names is the memfd called name. */
static bool link_names(int dir, const char *ent, const char *name)
{
    char buf[sizeof LINK_HEAD + EMU_OBJ_NAME_MAX + sizeof LINK_TAIL];
    ssize_t n = readlinkat(dir, ent, buf, sizeof buf - 1);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    size_t hl = strlen(LINK_HEAD), nl = strlen(name);
    return (size_t)n == hl + nl + strlen(LINK_TAIL) && !memcmp(buf, LINK_HEAD, hl) &&
           !memcmp(buf + hl, name, nl) && !strcmp(buf + hl + nl, LINK_TAIL);
}

/* Open the entry ent of directory dir (a /proc/PID/fd) if its link names
 * the memfd called name: the descriptor, -ENOENT if it names another
 * file, or -errno. */
static int open_entry(int dir, const char *ent, const char *name, int oflags)
{
    if (!link_names(dir, ent, name))
        return -ENOENT;
    int fd = openat(dir, ent, (oflags & O_ACCMODE) | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? -ENOENT : -errno;
    /* the holder may have put another file at that number since we read
     * the link: what we opened must still be the object */
    char self[32];
    snprintf(self, sizeof self, "%d", fd);
    int me = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    bool same = me >= 0 && link_names(me, self, name);
    if (me >= 0)
        close(me);
    if (same)
        return fd;
    close(fd);
    return -ENOENT;
}

static DIR *fd_dir(pid_t pid, int *err)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = pid > 0 ? opendir(path) : NULL;
    if (!d)
        *err = pid <= 0 || errno == ENOENT ? -ESRCH : -errno;
    return d;
}

int emu_memfd_open(pid_t pid, const char *name, int oflags)
{
    int rc;
    DIR *d = fd_dir(pid, &rc);
    if (!d)
        return rc;
    rc = -ENOENT;
    struct dirent *e;
    while (rc == -ENOENT && (e = readdir(d)) != NULL)
        if (isdigit((unsigned char)e->d_name[0]))
            rc = open_entry(dirfd(d), e->d_name, name, oflags);
    closedir(d);
    return rc;
}

int emu_memfd_open_fd(pid_t pid, int fdnum, const char *name, int oflags)
{
    int rc;
    DIR *d = fd_dir(pid, &rc);
    if (!d)
        return rc;
    char ent[16];
    snprintf(ent, sizeof ent, "%d", fdnum);
    rc = fdnum >= 0 ? open_entry(dirfd(d), ent, name, oflags) : -ENOENT;
    closedir(d);
    return rc;
}

static bool is_pid(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

int emu_memfd_find(const char *name, int oflags, pid_t hint)
{
    int rc = hint > 0 ? emu_memfd_open(hint, name, oflags) : -ENOENT;
    if (rc >= 0 || (rc != -ENOENT && rc != -ESRCH && rc != -EACCES))
        return rc;
    DIR *d = opendir("/proc");
    if (!d)
        return -ENOENT;
    struct dirent *e;
    rc = -ENOENT;
    while (rc < 0 && (e = readdir(d)) != NULL) {
        if (!is_pid(e->d_name) || atoi(e->d_name) == hint)
            continue;
        int fd = emu_memfd_open(atoi(e->d_name), name, oflags);
        if (fd >= 0 || (fd != -ENOENT && fd != -ESRCH && fd != -EACCES && fd != -EPERM))
            rc = fd;
    }
    closedir(d);
    return rc;
}

void *emu_fd_map(int fd, int prot, size_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
        errno = EPROTO; /* not sized yet, or not a memory object */
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, prot, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return NULL;
    *size = (size_t)st.st_size;
    return p;
}

/* "/memfd:emunic.<jobid>.job (deleted)" at s (a link or the tail of a
 * maps line) -> jobid into id; 0 if it is a job segment. */
static int segment_jobid(const char *s, char *id)
{
    const char *head = LINK_HEAD EMU_OBJ_PREFIX, *tail = ".job" LINK_TAIL;
    size_t hl = strlen(head), tl = strlen(tail), n = strlen(s);
    if (n <= hl + tl || strncmp(s, head, hl) != 0 || strcmp(s + n - tl, tail) != 0)
        return -1;
    size_t il = n - hl - tl;
    if (il >= EMU_JOBID_MAX || memchr(s + hl, '.', il) || memchr(s + hl, '/', il))
        return -1;
    memcpy(id, s + hl, il);
    id[il] = '\0';
    return 0;
}

/* Job ids whose segment pid's descriptors name (holds) or its maps do. */
static void scan_process(pid_t pid, void (*fn)(const char *, pid_t, bool, void *), void *arg)
{
    char path[48], id[EMU_JOBID_MAX], last[EMU_JOBID_MAX] = "";
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    char buf[512];
    while (d && (e = readdir(d)) != NULL) {
        ssize_t n = readlinkat(dirfd(d), e->d_name, buf, sizeof buf - 1);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        if (segment_jobid(buf, id) == 0)
            fn(id, pid, true, arg);
    }
    if (d)
        closedir(d);
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(buf, sizeof buf, f)) {
        size_t len = strcspn(buf, "\n");
        if (buf[len] != '\n') {
            /* longer than a segment's line: its rest is no line of its own */
            int c;
            while ((c = getc(f)) != EOF && c != '\n')
                ;
            continue;
        }
        buf[len] = '\0';
        /* the path is the sixth field: a file whose path merely contains
         * "/memfd:emunic.<id>.job (deleted)" is no segment */
        int at = -1;
        sscanf(buf, "%*s %*s %*s %*s %*s %n", &at);
        /* one call per job and process: a segment is several mappings */
        if (at > 0 && segment_jobid(buf + at, id) == 0 && strcmp(id, last) != 0) {
            fn(id, pid, false, arg);
            memcpy(last, id, sizeof last);
        }
    }
    if (f)
        fclose(f);
}

void emu_memfd_foreach_job(void (*fn)(const char *jobid, pid_t pid, bool holds, void *arg), void *arg)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (is_pid(e->d_name))
            scan_process(atoi(e->d_name), fn, arg);
    if (d)
        closedir(d);
}
