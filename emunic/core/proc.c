/* One parser of /proc/PID/stat (and status) for every process that checks
 * on others. */
#include "emunic/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int emu_proc_stat(pid_t pid, char *state, pid_t *ppid)
{
    char path[64], buf[512];
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    /* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
    char *e = strrchr(buf, ')');
    int pp;
    char st;
    if (!e || sscanf(e + 1, " %c %d", &st, &pp) != 2)
        return -1;
    if (state)
        *state = st;
    if (ppid)
        *ppid = pp;
    return 0;
}

int emu_proc_gone(pid_t pid)
{
    char st;
    if (pid <= 0)
        return 1;
    if (emu_proc_stat(pid, &st, NULL) != 0)
        return kill(pid, 0) != 0 && errno == ESRCH;
    return st == 'Z' || st == 'X';
}

pid_t emu_proc_inner_pid(pid_t pid)
{
    char path[48], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    pid_t inner = pid; /* kernels before 4.1 have no NSpid: one namespace */
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        char *last = strrchr(line, '\t');
        if (last)
            inner = (pid_t)atoi(last + 1);
        break;
    }
    fclose(f);
    return inner;
}

int emu_proc_made_jobid(pid_t pid, const char *jobid)
{
    return emu_proc_inner_pid(pid) == (pid_t)atoi(jobid);
}
