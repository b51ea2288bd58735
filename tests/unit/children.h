/* Helpers of unit tests that fork: a bounded child, its reaping, and our
 * own descriptor count. Include after <cmocka.h>. */
#ifndef EMUNIC_TEST_CHILDREN_H
#define EMUNIC_TEST_CHILDREN_H

#include <dirent.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_TIMEOUT_S 20

static inline int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* Wait for a child whose alarm bounds how long that can take; its exit
 * status, failing the test if it died of a signal. */
static inline int reap(pid_t pid)
{
    int st;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    assert_int_equal(w, pid);
    if (WIFSIGNALED(st))
        fail_msg("child %d died of signal %d", (int)pid, WTERMSIG(st));
    return WEXITSTATUS(st);
}

/* fn(arg) in a child, which exits with what it returns. */
static inline pid_t spawn(int (*fn)(void *), void *arg)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(CHILD_TIMEOUT_S);
        _exit(fn(arg));
    }
    return pid;
}

#endif
