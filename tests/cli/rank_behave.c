/* A rank program for the launcher tests that does what its arguments say,
 * in order. "@R:ACTION" limits ACTION to rank R. Actions:
 *   tag=X      nothing (lets a test find its own processes with pgrep -f)
 *   env        print the EMUNIC_* environment on one line
 *   lines=K    print K numbered lines
 *   out=TEXT   print TEXT on stdout; err=TEXT the same on stderr
 *   partial    print "partial" with no newline
 *   stdin      copy stdin lines as "in: LINE", then print "stdin-eof"
 *   exit=K     exit with status K
 *   sleep=MS   sleep MS milliseconds
 *   signal=S   raise signal S (number or name without SIG)
 *   ignore-term  ignore SIGTERM from now on
 *   survive    outlive the launcher (clear PDEATHSIG), as a stuck rank might
 *   cpus       print the CPUs the process may run on
 *   eventfds   print how many eventfds the process holds
 *   daemon-objects  print how many descriptors and mappings of the
 *              daemons' own objects (memfds emunic-wire, emunic-ctl) the
 *              process holds: a rank must hold none
 *   layout     print whether address randomisation is off, and where main
 *              and a fresh 64-byte malloc block are
 *   init, barrier, finalize   the emunic core calls; failures exit 10
 *   malloc=BYTES  emunic_malloc BYTES (kept) and fill them; print "malloc
 *              BYTES ok" or "malloc BYTES failed: <strerror(errno)>"
 *   ready      print "ready" (after init+barrier: the whole job is up)
 *   hold=MS    wait for completions up to MS ms; exit 3 if the NIC is gone
 *   escape=HOW  fork a child that leaves the job's process group (HOW:
 *              setsid or setpgid), ignores SIGTERM and sleeps; prints
 *              "escaped PID" once it has left
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "emunic/emunic.h"

static unsigned my_rank;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static int signal_of(const char *s)
{
    static const struct { const char *n; int v; } names[] = {
        {"HUP", SIGHUP}, {"INT", SIGINT}, {"KILL", SIGKILL},
        {"SEGV", SIGSEGV}, {"TERM", SIGTERM}, {"ABRT", SIGABRT},
        {"USR1", SIGUSR1}, {"BUS", SIGBUS},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].n) == 0)
            return names[i].v;
    return atoi(s);
}

static void print_env(void)
{
    static const char *vars[] = {"EMUNIC_RANK", "EMUNIC_SIZE", "EMUNIC_NODE",
                                 "EMUNIC_NNODES", "EMUNIC_LOCAL_RANK",
                                 "EMUNIC_LOCAL_SIZE", "EMUNIC_NIC",
                                 "EMUNIC_JOBID"};
    printf("env");
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        printf(" %s=%s", vars[i] + 7, v ? v : "(unset)");
    }
    printf("\n");
}

static void print_cpus(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            char *v = line + 18;
            v += strspn(v, " \t");
            printf("cpus %s", v);
        }
    if (f)
        fclose(f);
}

static int count_in(const char *file, const char *what, int links)
{
    int n = 0;
    if (links) {
        DIR *d = opendir(file);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char path[300], target[256];
            snprintf(path, sizeof path, "%s/%s", file, e->d_name);
            ssize_t l = readlink(path, target, sizeof target - 1);
            if (l > 0) {
                target[l] = '\0';
                n += strstr(target, what) != NULL;
            }
        }
        if (d)
            closedir(d);
        return n;
    }
    FILE *f = fopen(file, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

static void print_eventfds(void)
{
    printf("eventfds=%d\n", count_in("/proc/self/fd", "eventfd", 1));
}

static void print_daemon_objects(void)
{
    int n = 0;
    const char *names[] = {"memfd:emunic-wire", "memfd:emunic-ctl"};
    for (int i = 0; i < 2; i++)
        n += count_in("/proc/self/fd", names[i], 1) + count_in("/proc/self/maps", names[i], 0);
    printf("daemon-objects=%d\n", n);
}

static void copy_stdin(void)
{
    char line[4096];
    while (fgets(line, sizeof line, stdin))
        printf("in: %s", line);
    printf("stdin-eof\n");
}

static void hold(long ms)
{
    struct emu_msg m[8];
    long left = ms;
    while (left > 0) {
        if (!emunic_initialized()) {
            sleep_ms(left < 100 ? left : 100);
        } else {
            int rc = emunic_wait(m, 8, 100 * 1000000LL);
            if (rc == -EPIPE) {
                printf("hold: nic gone\n");
                exit(3);
            }
        }
        left -= 100;
    }
}

/* A background process a careless rank leaves behind, out of reach of a
 * killpg of the job's group. */
static void escape(const char *how)
{
    int p[2];
    if (pipe(p) != 0)
        exit(11);
    pid_t c = fork();
    if (c < 0)
        exit(11);
    if (c == 0) {
        close(p[0]);
        if (strcmp(how, "setsid") == 0 ? setsid() < 0 : setpgid(0, 0) != 0)
            _exit(11);
        signal(SIGTERM, SIG_IGN);
        char ok = 1;
        if (write(p[1], &ok, 1) != 1)
            _exit(11);
        close(p[1]);
        for (;;)
            sleep_ms(1000);
    }
    close(p[1]);
    char ok = 0;
    if (read(p[0], &ok, 1) != 1 || !ok)
        exit(11);
    close(p[0]);
    printf("escaped %d\n", (int)c);
}

static void check(const char *what, int rc)
{
    if (rc < 0) {
        fprintf(stderr, "%s failed: %s\n", what, strerror(-rc));
        exit(10);
    }
}

int main(int argc, char **argv); /* layout prints where it is */

static void act(const char *a)
{
    if (strncmp(a, "tag=", 4) == 0) {
    } else if (strcmp(a, "env") == 0) {
        print_env();
    } else if (strncmp(a, "lines=", 6) == 0) {
        for (long i = 0, n = atol(a + 6); i < n; i++)
            printf("line %ld\n", i);
    } else if (strncmp(a, "out=", 4) == 0) {
        printf("%s\n", a + 4);
    } else if (strncmp(a, "err=", 4) == 0) {
        fprintf(stderr, "%s\n", a + 4);
    } else if (strcmp(a, "partial") == 0) {
        printf("partial");
    } else if (strcmp(a, "stdin") == 0) {
        copy_stdin();
    } else if (strncmp(a, "exit=", 5) == 0) {
        exit(atoi(a + 5));
    } else if (strncmp(a, "sleep=", 6) == 0) {
        sleep_ms(atol(a + 6));
    } else if (strncmp(a, "signal=", 7) == 0) {
        int sig = signal_of(a + 7);
        fflush(NULL);
        signal(sig, SIG_DFL); /* a sanitizer's handler must not catch it */
        raise(sig);
    } else if (strcmp(a, "ignore-term") == 0) {
        signal(SIGTERM, SIG_IGN);
    } else if (strcmp(a, "survive") == 0) {
        prctl(PR_SET_PDEATHSIG, 0);
    } else if (strcmp(a, "cpus") == 0) {
        print_cpus();
    } else if (strcmp(a, "eventfds") == 0) {
        print_eventfds();
    } else if (strcmp(a, "daemon-objects") == 0) {
        print_daemon_objects();
    } else if (strcmp(a, "layout") == 0) {
        static void *block; /* kept: LeakSanitizer must not call it a leak */
        int norand = (personality(0xffffffff) & ADDR_NO_RANDOMIZE) != 0;
        block = malloc(64);
        printf("layout norand=%d main=%p heap=%p\n", norand, (void *)(uintptr_t)main, block);
    } else if (strcmp(a, "init") == 0) {
        check("emunic_init", emunic_init());
    } else if (strcmp(a, "barrier") == 0) {
        check("emunic_barrier", emunic_barrier());
    } else if (strcmp(a, "finalize") == 0) {
        check("emunic_finalize", emunic_finalize());
    } else if (strncmp(a, "malloc=", 7) == 0) {
        size_t n = (size_t)strtoull(a + 7, NULL, 0);
        errno = 0;
        void *p = emunic_malloc(n);
        if (p) {
            memset(p, 0x5a, n);
            printf("malloc %zu ok\n", n);
        } else {
            printf("malloc %zu failed: %s\n", n, strerror(errno));
        }
    } else if (strcmp(a, "ready") == 0) {
        printf("ready\n");
    } else if (strncmp(a, "hold=", 5) == 0) {
        hold(atol(a + 5));
    } else if (strncmp(a, "escape=", 7) == 0) {
        escape(a + 7);
    } else {
        fprintf(stderr, "rank_behave: unknown action '%s'\n", a);
        exit(64);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *r = getenv("EMUNIC_RANK");
    my_rank = r ? (unsigned)atoi(r) : 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '@') {
            char *colon = strchr(a, ':');
            if (!colon || (unsigned)atoi(a + 1) != my_rank)
                continue;
            a = colon + 1;
        }
        act(a);
    }
    return 0;
}
