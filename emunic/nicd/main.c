/* emunic-nicd: the NIC of one emulated node. Started by emunic-run; exits
 * on SIGTERM, when the job is torn down, or with its launcher. */
#include "nic.h"
#include "emunic/slice.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static struct emu_nic the_nic;

static void on_term(int sig)
{
    (void)sig;
    the_nic.stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-nicd --job JOBID --node N --ctl FD --wire FD [--report FD]\n"
            "The emulated NIC daemon of node N of job JOBID. emunic-run starts one per\n"
            "node; there is no reason to start it by hand except under a debugger.\n"
            "  --job JOBID   job whose shared memory to attach\n"
            "  --node N      node index (0-based)\n"
            "  --ctl FD      the launcher's control block (doorbells, rank pids)\n"
            "  --wire FD     the daemons' wire rings and link clocks (no rank maps them)\n"
            "  --report FD   where to tell the launcher about a rank that broke its queues\n"
            "  -h, --help    this text\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"job", required_argument, 0, 'j'},
        {"node", required_argument, 0, 'n'},
        {"ctl", required_argument, 0, 'c'},
        {"report", required_argument, 0, 'r'},
        {"wire", required_argument, 0, 'w'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *job = NULL;
    long node = -1, ctl = -1, report = -1, wire = -1;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            job = optarg;
            break;
        case 'n': {
            char *end;
            node = strtol(optarg, &end, 10);
            if (*end || node < 0) {
                fprintf(stderr, "emunic-nicd: --node wants a node index, got '%s'\n", optarg);
                return 2;
            }
            break;
        }
        case 'c':
        case 'r':
        case 'w': {
            char *end;
            long fd = strtol(optarg, &end, 10);
            if (*end || fd < 0 || fd > 1 << 20) {
                fprintf(stderr, "emunic-nicd: --%s wants a descriptor, got '%s'\n",
                        c == 'c' ? "ctl" : c == 'r' ? "report" : "wire", optarg);
                return 2;
            }
            *(c == 'c' ? &ctl : c == 'r' ? &report : &wire) = fd;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (!job || node < 0 || ctl < 0 || wire < 0) {
        usage(stderr);
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term; /* no SA_RESTART: the io_uring wait must return */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* a write to a dead launcher's pipes fails instead of killing us
     * before we cleaned up after it */
    signal(SIGPIPE, SIG_IGN);
    int rc = nic_open(&the_nic, job, (uint32_t)node, (int)ctl, (int)report, (int)wire);
    if (rc) {
        fprintf(stderr, "emunic-nicd: node %ld of job %s: cannot start: %s\n", node, job, strerror(-rc));
        nic_close(&the_nic);
        return 1;
    }
    emu_sched_short_slice(); /* a woken NIC runs before a spinning rank's slice ends */
    nic_run(&the_nic);
    /* reparented: the launcher died without tearing the job down. Nothing
     * is said: stderr was a pipe to it. */
    if (orphan_launcher_gone(&the_nic))
        orphan_cleanup(&the_nic);
    nic_close(&the_nic);
    return 0;
}
