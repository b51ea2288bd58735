/* Message rate: windows of NBI puts/gets completed by one ARMCI_WaitAll,
 * against the same number of blocking calls ([SHMEM-NBI] message rate). */
#include <armci.h>
#include <getopt.h>
#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nbi_common.h"

#define PROG "nbi_rate"

static void usage(FILE *f)
{
    fprintf(f, "usage: emunic-run -N 1 -n 2 (or -N 2 -n 1) --nic portals -- " PROG " [options]\n"
               "Message rate rank 0 -> rank 1: windows of --window ARMCI_NbPut/NbGet (implicit\n"
               "handles) then one ARMCI_WaitAll, vs the same count of blocking ARMCI_Put/Get.\n"
               "  --sizes LIST   sizes (default 8:4K, powers of two)\n"
               "  --window W     operations per window (default 64)\n"
               "  --reps R       timed windows per size and case (default 40)\n"
               "  --trials T     trials, the median is reported (default 3)\n"
               "  --help         this text\n"
               "CSV on stdout (messages per second), progress on stderr.\n");
}

enum { PUT_BLK, PUT_NBI, GET_BLK, GET_NBI, NCASE };
static const char *case_name[NCASE] = {"put_blocking", "put_nbi", "get_blocking", "get_nbi"};

int main(int argc, char **argv)
{
    const char *sizes = "8:4K";
    long window = 64, reps = 40, trials = 3;
    static const struct option lo[] = {{"sizes", 1, 0, 's'}, {"window", 1, 0, 'w'},
                                       {"reps", 1, 0, 'r'},  {"trials", 1, 0, 't'},
                                       {"help", 0, 0, 'h'},  {0, 0, 0, 0}};
    int c;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': sizes = optarg; break;
        case 'w': window = bench_parse_long("--window", optarg, 1, 4096); break;
        case 'r': reps = bench_parse_long("--reps", optarg, 1, 1000000); break;
        case 't': trials = bench_parse_long("--trials", optarg, 1, 64); break;
        case 'h': usage(stdout); return 0;
        default:
            return nbi_bad_option(PROG, argv);
        }
    }
    if (nbi_stray_args(PROG, argc, argv))
        return 2;
    uint64_t *sz;
    size_t nsz;
    nbi_sizes(PROG, sizes, 1u << 20, &sz, &nsz);
    nbi_init(PROG, &argc, &argv);
    nbi_need_ranks(PROG, 2);
    int me = armci_msg_me();
    uint64_t max = 8;
    for (size_t i = 0; i < nsz; i++)
        max = sz[i] > max ? sz[i] : max;
    /* each operation of a window has its own slot: no two in flight overlap */
    size_t span = (size_t)max * (size_t)window;
    void **base = nbi_malloc_all(PROG, (size_t)span);
    char *loc = ARMCI_Malloc_local((armci_size_t)span);
    memset(loc, 3, span);
    const char *design = nbi_design(1);
    armci_msg_barrier();
    if (me == 0) {
        nbi_preamble(argc, argv, design, "rate = messages/s, median over trials");
        printf("bench,case,size,design,window,reps,msgs_per_s,us_per_msg,ratio_vs_blocking\n");
        double *v = malloc(sizeof(double) * (size_t)trials);
        char *rem = base[1];
        for (size_t s = 0; s < nsz; s++) {
            int len = (int)sz[s];
            double blk = 0;
            fprintf(stderr, PROG ": %s %d B\n", design, len);
            for (int k = 0; k < NCASE; k++) {
                for (long t = 0; t < trials; t++) {
                    double t0 = 0;
                    for (long r = -2; r < reps; r++) { /* two warm-up windows */
                        if (r == 0)
                            t0 = nbi_now_us();
                        for (long w = 0; w < window; w++) {
                            char *l = loc + w * len, *d = rem + w * len;
                            switch (k) {
                            case PUT_BLK: ARMCI_Put(l, d, len, 1); break;
                            case PUT_NBI: ARMCI_NbPut(l, d, len, 1, NULL); break;
                            case GET_BLK: ARMCI_Get(d, l, len, 1); break;
                            default: ARMCI_NbGet(d, l, len, 1, NULL); break;
                            }
                        }
                        ARMCI_WaitAll();
                    }
                    ARMCI_Fence(1);
                    v[t] = (double)(reps * window) / ((nbi_now_us() - t0) / 1e6);
                }
                double rate = bench_median(v, (size_t)trials);
                if (k == PUT_BLK || k == GET_BLK)
                    blk = rate;
                printf("nbi_rate,%s,%d,%s,%ld,%ld,%.0f,%.3f,%.2f\n", case_name[k], len, design,
                       window, reps, rate, 1e6 / rate, blk > 0 ? rate / blk : 0.0);
                fflush(stdout);
            }
        }
        free(v);
    }
    armci_msg_barrier();
    ARMCI_Free_local(loc);
    ARMCI_Free(base[me]);
    free(base);
    free(sz);
    ARMCI_Finalize();
    return 0;
}
