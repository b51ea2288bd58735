#include "vmcopy.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

static pid_t helper(char *buf, size_t bytes, int fill)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
        close(fd[0]);
        memset(buf, fill, bytes); /* our own pages now, not copy-on-write */
        char ok = 1;
        if (write(fd[1], &ok, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(fd[1]);
    char ok = 0;
    ssize_t r;
    while ((r = read(fd[0], &ok, 1)) < 0 && errno == EINTR)
        ;
    close(fd[0]);
    if (r != 1 || ok != 1) {
        kill(p, SIGKILL);
        waitpid(p, NULL, 0);
        return -1;
    }
    return p;
}

int vmcopy_open(struct vmcopy *v, char *buf, size_t bytes, size_t max_chunk)
{
    memset(v, 0, sizeof *v);
    v->remote = buf;
    v->bytes = bytes;
    v->bounce_bytes = max_chunk;
    v->bounce = bench_alloc_touched(max_chunk);
    v->src = helper(buf, bytes, 0x33);
    v->dst = v->src > 0 ? helper(buf, bytes, 0x44) : -1;
    if (v->src <= 0 || v->dst <= 0) {
        vmcopy_close(v);
        return -1;
    }
    return 0;
}

void vmcopy_close(struct vmcopy *v)
{
    pid_t p[2] = {v->src, v->dst};
    for (int i = 0; i < 2; i++)
        if (p[i] > 0) {
            kill(p[i], SIGKILL);
            while (waitpid(p[i], NULL, 0) < 0 && errno == EINTR)
                ;
        }
    free(v->bounce);
    memset(v, 0, sizeof *v);
}

static int one(pid_t pid, int to_remote, void *local, uint64_t raddr, size_t len)
{
    size_t done = 0;
    while (done < len) {
        struct iovec l = {(char *)local + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(raddr + done), len - done};
        ssize_t n = to_remote ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                              : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int vmcopy_readv(struct vmcopy *v, uint64_t off, void *into, size_t len)
{
    return one(v->src, 0, into, (uint64_t)(uintptr_t)v->remote + off, len);
}

int vmcopy_bounce(struct vmcopy *v, uint64_t off, size_t len, size_t chunk)
{
    if (chunk > v->bounce_bytes)
        chunk = v->bounce_bytes;
    uint64_t base = (uint64_t)(uintptr_t)v->remote + off;
    for (size_t o = 0; o < len; o += chunk) {
        size_t n = len - o < chunk ? len - o : chunk;
        if (one(v->src, 0, v->bounce, base + o, n) || one(v->dst, 1, v->bounce, base + o, n))
            return -1;
    }
    return 0;
}
