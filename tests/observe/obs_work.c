/* A known workload for the observability tests: rank 0 does exactly
 * W writes (1 KiB, by reference), R reads (1 KiB), A atomics (8-byte sum)
 * and M active messages (inline, 16 bytes) to the last rank, each waited
 * for by cookie, so the counters and trace spans are predictable:
 *   obs_work W R A M [WAIT_FILE]
 * With WAIT_FILE, rank 0 first prints "ready" and waits (at most 60 s)
 * until that file exists, so a test can look at the running job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emunic/atomic_op.h"
#include "emunic/emunic.h"

#define SZ 1024

static void die(const char *what, long v)
{
    fprintf(stderr, "obs_work: %s (%ld)\n", what, v);
    exit(1);
}

static void on_am(const struct emu_msg *m, void *arg)
{
    (void)m;
    ++*(volatile int *)arg;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        die("usage: obs_work W R A M [WAIT_FILE]", argc);
    long w = atol(argv[1]), r = atol(argv[2]), a = atol(argv[3]), am = atol(argv[4]);
    int rc = emunic_init();
    if (rc)
        die("emunic_init", rc);
    uint32_t me = emunic_rank(), last = emunic_size() - 1;
    char *buf = emunic_malloc(4 * SZ); /* the first block: at emunic_heap_addr() */
    if (!buf)
        die("emunic_malloc", 0);
    memset(buf, (int)me, 4 * SZ);
    static volatile int ams_seen;
    emunic_am_register(7, on_am, (void *)&ams_seen);
    if (emunic_expose_space() <= 0)
        die("emunic_expose_space", 0);
    if ((rc = emunic_barrier()) != 0)
        die("barrier", rc);
    if (me == 0 && argc > 5) {
        printf("ready\n");
        fflush(stdout);
        struct stat st;
        for (int i = 0; i < 6000 && stat(argv[5], &st) != 0; i++)
            usleep(10000);
    }
    if (me == 0) {
        uint32_t key = emunic_space_key(last);
        uint64_t base = emunic_heap_addr(last);
        struct emu_msg c;
        uint64_t ck = 1;
        for (long i = 0; i < w; i++, ck++) {
            if ((rc = emunic_write(last, key, base, buf, SZ, EMU_F_REMOTE_CQ, ck, 0)) != 0)
                die("write", rc);
            if ((rc = emunic_wait_cookie(ck, &c)) != 0)
                die("write completion", rc);
        }
        for (long i = 0; i < r; i++, ck++) {
            if ((rc = emunic_read(last, key, base + SZ, buf + SZ, SZ, EMU_F_REMOTE_CQ, ck)) != 0)
                die("read", rc);
            if ((rc = emunic_wait_cookie(ck, &c)) != 0)
                die("read completion", rc);
        }
        uint64_t one = 1;
        for (long i = 0; i < a; i++, ck++) {
            if ((rc = emunic_atomic(last, key, base + 2 * SZ, EMU_AOP_SUM, EMU_UINT64, &one, 8,
                                    NULL, NULL, EMU_F_REMOTE_CQ, ck)) != 0)
                die("atomic", rc);
            if ((rc = emunic_wait_cookie(ck, &c)) != 0)
                die("atomic completion", rc);
        }
        char hdr[16] = "observe";
        for (long i = 0; i < am; i++, ck++) {
            if ((rc = emunic_am_send(last, 7, hdr, sizeof hdr, NULL, 0, EMU_F_REMOTE_CQ, ck)) != 0)
                die("am", rc);
            if ((rc = emunic_wait_cookie(ck, &c)) != 0)
                die("am completion", rc);
        }
    }
    if (me == last && am > 0) {
        /* take the AMs off the queue (the handler counts them) */
        struct emu_msg m[8];
        for (int i = 0; i < 6000 && ams_seen < am; i++)
            emunic_wait(m, 8, 10000000);
        if (ams_seen != am)
            die("active messages seen", ams_seen);
    }
    if ((rc = emunic_barrier()) != 0)
        die("barrier", rc);
    emunic_finalize();
    return 0;
}
