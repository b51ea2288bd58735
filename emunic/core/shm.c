/* Job-scoped shared-memory objects as files in the shm directory. */
#include "emunic/shm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *emu_shm_dir(void)
{
    const char *d = getenv("EMUNIC_SHM_DIR");
    return d && *d ? d : "/dev/shm";
}

int emu_shm_path(char *buf, size_t n, const char *jobid, const char *what)
{
    /* the job id is the name part between the first two dots: it must not
     * contain one (nor a '/'), or another job's cleanup would match it */
    if (!*jobid || strpbrk(jobid, "./"))
        return -1;
    int k = snprintf(buf, n, "%s/" EMU_SHM_PREFIX "%s.%s", emu_shm_dir(), jobid, what);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

void *emu_shm_create(const char *path, size_t size, bool reserve, int *fd_out)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    int err = 0;
    if (ftruncate(fd, (off_t)size) != 0)
        err = errno;
    else if (reserve && size)
        err = posix_fallocate(fd, 0, (off_t)size);
    void *p = MAP_FAILED;
    if (!err) {
        p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            err = errno;
    }
    if (err) {
        close(fd);
        unlink(path);
        errno = err;
        return NULL;
    }
    if (fd_out)
        *fd_out = fd;
    else
        close(fd);
    return p;
}

void *emu_shm_open(const char *path, size_t *size_out, int *fd_out)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (st.st_size <= 0)
        err = EPROTO; /* created but not yet sized: not a usable object */
    if (err) {
        close(fd);
        errno = err;
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (size_out)
        *size_out = (size_t)st.st_size;
    if (fd_out)
        *fd_out = fd;
    else
        close(fd);
    return p;
}

/* "emunic.<jobid>.<what>" -> jobid (into buf); 0 if the name matches. */
static int jobid_of(const char *name, char *buf, size_t n)
{
    size_t pl = strlen(EMU_SHM_PREFIX);
    if (strncmp(name, EMU_SHM_PREFIX, pl) != 0)
        return -1;
    const char *id = name + pl, *dot = strchr(id, '.');
    if (!dot || dot == id || (size_t)(dot - id) >= n)
        return -1;
    memcpy(buf, id, (size_t)(dot - id));
    buf[dot - id] = '\0';
    return 0;
}

int emu_shm_unlink_job(const char *jobid)
{
    DIR *d = opendir(emu_shm_dir());
    if (!d)
        return 0;
    int n = 0;
    char id[EMU_JOBID_MAX];
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (jobid_of(e->d_name, id, sizeof id) == 0 && strcmp(id, jobid) == 0 &&
            unlinkat(dirfd(d), e->d_name, 0) == 0)
            n++;
    }
    closedir(d);
    return n;
}

void emu_shm_foreach_job(void (*fn)(const char *jobid, void *arg), void *arg)
{
    DIR *d = opendir(emu_shm_dir());
    if (!d)
        return;
    /* collect first: fn may unlink entries while we iterate */
    size_t cap = 16, cnt = 0;
    char (*ids)[EMU_JOBID_MAX] = malloc(cap * sizeof *ids);
    struct dirent *e;
    char id[EMU_JOBID_MAX];
    while (ids && (e = readdir(d)) != NULL) {
        if (jobid_of(e->d_name, id, sizeof id) != 0)
            continue;
        size_t i;
        for (i = 0; i < cnt && strcmp(ids[i], id) != 0; i++)
            ;
        if (i < cnt)
            continue;
        if (cnt == cap) {
            void *nw = realloc(ids, 2 * cap * sizeof *ids);
            if (!nw)
                break;
            ids = nw;
            cap *= 2;
        }
        memcpy(ids[cnt++], id, sizeof id);
    }
    closedir(d);
    for (size_t i = 0; ids && i < cnt; i++)
        fn(ids[i], arg);
    free(ids);
}
