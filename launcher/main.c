/* emunic-run: launches an emulated-NIC job (see --help), or inspects the
 * host (--info) or cleans up after killed jobs (--cleanup). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "launcher.h"

int info_run(const struct opts *o);
int cleanup_run(const struct opts *o);

/* With fd 0, 1 or 2 closed, the first pipe would land there and a child's
 * dup2 onto its stdio would go wrong. */
static void std_fds_ensure(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 &&
            open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
            _exit(2);
}

int main(int argc, char **argv)
{
    std_fds_ensure();
    struct opts o;
    int rc = opts_parse(&o, argc, argv);
    if (rc) {
        opts_free(&o);
        return rc;
    }
    switch (o.mode) {
    case MODE_HELP:
        usage_print(stdout);
        return 0;
    case MODE_VERSION:
        printf("emunic-run (emunic) %s\n", EMUNIC_VERSION);
        return 0;
    case MODE_INFO:
        return info_run(&o);
    case MODE_CLEANUP:
        return cleanup_run(&o);
    case MODE_RUN:
        break;
    }
    if (o.isolate && (rc = isolate_enter()) != ISOLATE_INSIDE) {
        opts_free(&o);
        return rc;
    }
    rc = job_run(&o);
    opts_free(&o);
    return rc;
}
