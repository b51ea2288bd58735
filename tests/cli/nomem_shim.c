/* LD_PRELOADed into a rank by nomem.sh: memory running out, without
 * running out of it. posix_fallocate of at least $EMUNIC_TEST_NOMEM_AT
 * bytes on one of the job's heap memfds (emunic.<id>.heap.<rank>) fails
 * with ENOMEM, as the kernel fails it when memory is short. A real
 * shortage cannot be made safely: no size bounds a memfd, so filling
 * memory (or a memory cgroup) would wake the OOM killer instead. Any
 * other call passes through. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int refused(int fd, off_t len)
{
    const char *at = getenv("EMUNIC_TEST_NOMEM_AT");
    if (!at || len < (off_t)strtoll(at, NULL, 0))
        return 0;
    char path[64], link[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    return strncmp(link, "/memfd:emunic.", 14) == 0 && strstr(link, ".heap.") != NULL;
}

int posix_fallocate(int fd, off_t off, off_t len)
{
    static int (*real)(int, off_t, off_t);
    if (refused(fd, len))
        return ENOMEM;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "posix_fallocate");
    return real ? real(fd, off, len) : ENOSYS;
}

int posix_fallocate64(int fd, off_t off, off_t len)
{
    static int (*real)(int, off_t, off_t);
    if (refused(fd, len))
        return ENOMEM;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "posix_fallocate64");
    return real ? real(fd, off, len) : ENOSYS;
}
