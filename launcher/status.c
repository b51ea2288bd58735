#include "status.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

bool status_ok(int wstatus)
{
    return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
}

int status_code(int wstatus)
{
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return WEXITSTATUS(wstatus);
}

void status_describe(int wstatus, char *buf, size_t n)
{
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        snprintf(buf, n, "killed by signal %d (%s)%s", sig, strsignal(sig),
                 WCOREDUMP(wstatus) ? ", core dumped" : "");
    } else {
        snprintf(buf, n, "exited with code %d", WEXITSTATUS(wstatus));
    }
}
