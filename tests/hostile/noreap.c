/* A rank that does not take its completions for a while must not grow its
 * NIC daemon without bound (issue 19): rank 0's helper thread posts N
 * writes to rank 1, each asking for a completion, while its main thread
 * sleeps SECONDS without reaping; then it reads its daemon's memory growth
 * and takes every completion, checking each one and each byte written.
 *
 *   noreap [N] [SECONDS]
 *
 * Prints "noreap: posted N reaped N rss_growth_kb K" (rank 0). Exit 1 on
 * any wrong completion or data. Run with -N 2 -n 1. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emunic/emunic.h"
#include "emunic/job.h"

static uint64_t n_ops = 100000;
static uint64_t area;
static volatile int post_rc;

static void *poster(void *arg)
{
    (void)arg;
    for (uint64_t i = 0; i < n_ops; i++) {
        uint64_t v = i * 0x9e3779b97f4a7c15ull;
        if (emunic_write(1, EMU_KEY_HEAP, area + 8 * (i % 4096), &v, 8, EMU_F_REMOTE_CQ, i + 1, 0)) {
            post_rc = 1;
            break;
        }
    }
    return NULL;
}

static long rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        n_ops = strtoull(argv[1], NULL, 10);
    double secs = argc > 2 ? atof(argv[2]) : 3;
    if (emunic_init() || emunic_size() != 2)
        return 1;
    uint64_t *heap = emunic_malloc(8 * 4096);
    if (!heap || emunic_barrier())
        return 1;
    if (emunic_rank() == 1) {
        emunic_barrier(); /* until rank 0 has taken everything */
        emunic_finalize();
        return 0;
    }
    struct emu_job job;
    if (emu_job_attach(&job, emunic_jobid()) != 0)
        return 1;
    pid_t nicd = atomic_load(&job.nodes[0].daemon_pid);
    long rss0 = rss_kb(nicd);
    area = emunic_heap_addr(1);
    pthread_t t;
    if (pthread_create(&t, NULL, poster, NULL))
        return 1;
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
    long rss1 = rss_kb(nicd);
    /* now take them all: every cookie once, every status OK */
    uint8_t *seen = calloc(n_ops + 1, 1);
    uint64_t got = 0;
    struct emu_msg m[64];
    while (got < n_ops) {
        int k = emunic_wait(m, 64, 10000000000ll);
        if (k <= 0) {
            fprintf(stderr, "noreap: wait returned %d after %" PRIu64 " completions\n", k, got);
            return 1;
        }
        for (int i = 0; i < k; i++) {
            if (m[i].op != EMU_CQ_DONE || m[i].status || !m[i].cookie || m[i].cookie > n_ops ||
                seen[m[i].cookie]++) {
                fprintf(stderr, "noreap: bad completion (op %u status %u cookie %" PRIu64 ")\n", m[i].op,
                        m[i].status, m[i].cookie);
                return 1;
            }
            got++;
        }
    }
    pthread_join(t, NULL);
    if (post_rc)
        return 1;
    /* the last lap of writes is what rank 1's heap holds */
    uint64_t back[4096];
    if (emunic_read(1, EMU_KEY_HEAP, area, back, sizeof back, EMU_F_REMOTE_CQ, n_ops + 1) ||
        emunic_wait_cookie(n_ops + 1, &m[0]) != 0)
        return 1;
    for (uint64_t i = n_ops > 4096 ? n_ops - 4096 : 0; i < n_ops; i++)
        if (back[i % 4096] != i * 0x9e3779b97f4a7c15ull) {
            fprintf(stderr, "noreap: wrong data at slot %" PRIu64 "\n", i % 4096);
            return 1;
        }
    printf("noreap: posted %" PRIu64 " reaped %" PRIu64 " rss_growth_kb %ld\n", n_ops, got, rss1 - rss0);
    free(seen);
    emunic_barrier();
    emunic_finalize();
    return 0;
}
