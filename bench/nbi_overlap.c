/* Communication/computation overlap of one NBI put or get ([SHMEM-NBI]
 * overlap benchmark, after OMB's NBC method): T = issue + wait alone,
 * C = a calibrated compute of about T, total = issue + compute + wait;
 * overlap% = (T + C - total) / min(T, C) * 100. */
#include <armci.h>
#include <getopt.h>
#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nbi_common.h"

#define PROG "nbi_overlap"

static void usage(FILE *f)
{
    fprintf(f, "usage: emunic-run -N 1 -n 2 (or -N 2 -n 1) --nic portals -- " PROG " [options]\n"
               "Overlap of ARMCI_NbPut/NbGet (implicit handle, ARMCI_WaitAll) with a calibrated\n"
               "compute loop, rank 0 -> rank 1; blocking Put/Get + compute as the reference.\n"
               "  --sizes LIST   sizes (default 8:1M:8, i.e. 8, 64, ..., 256K, plus 1M)\n"
               "  --iters N      timed repetitions per size and case (default 60)\n"
               "  --help         this text\n"
               "CSV on stdout (medians in us), progress on stderr.\n");
}

enum { PUT_BLK, PUT_NBI, GET_BLK, GET_NBI, NCASE };
static const char *case_name[NCASE] = {"put_blocking", "put_nbi", "get_blocking", "get_nbi"};

static void issue(int k, char *loc, char *rem, int len)
{
    switch (k) {
    case PUT_BLK: ARMCI_Put(loc, rem, len, 1); break;
    case PUT_NBI: ARMCI_NbPut(loc, rem, len, 1, NULL); break;
    case GET_BLK: ARMCI_Get(rem, loc, len, 1); break;
    default: ARMCI_NbGet(rem, loc, len, 1, NULL); break;
    }
}

int main(int argc, char **argv)
{
    const char *sizes = "8,64,512,4K,32K,256K,1M";
    long iters = 60;
    static const struct option lo[] = {{"sizes", 1, 0, 's'}, {"iters", 1, 0, 'i'},
                                       {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': sizes = optarg; break;
        case 'i': iters = bench_parse_long("--iters", optarg, 3, 1000000); break;
        case 'h': usage(stdout); return 0;
        default:
            return nbi_bad_option(PROG, argv);
        }
    }
    if (nbi_stray_args(PROG, argc, argv))
        return 2;
    uint64_t *sz;
    size_t nsz;
    nbi_sizes(PROG, sizes, 64u << 20, &sz, &nsz);
    nbi_init(PROG, &argc, &argv);
    nbi_need_ranks(PROG, 2);
    int me = armci_msg_me();
    uint64_t max = 8;
    for (size_t i = 0; i < nsz; i++)
        max = sz[i] > max ? sz[i] : max;
    void **base = nbi_malloc_all(PROG, (size_t)max);
    char *loc = ARMCI_Malloc_local((armci_size_t)max);
    memset(loc, 5, max);
    const char *design = nbi_design(1);
    armci_msg_barrier();
    if (me == 0) {
        nbi_calibrate();
        nbi_preamble(argc, argv, design,
                     "medians in us; comm_us = issue+wait alone (T), compute_us = compute "
                     "alone (C), total_us = issue+compute+wait, overlap_pct = (T+C-total)/"
                     "min(T,C)*100");
        printf("bench,case,size,design,iters,comm_us,compute_us,total_us,init_us,wait_us,"
               "overlap_pct\n");
        double *vt = malloc(sizeof(double) * (size_t)iters), *vc = malloc(sizeof(double) * (size_t)iters);
        double *vx = malloc(sizeof(double) * (size_t)iters), *vi = malloc(sizeof(double) * (size_t)iters);
        double *vw = malloc(sizeof(double) * (size_t)iters);
        for (size_t s = 0; s < nsz; s++) {
            int len = (int)sz[s];
            fprintf(stderr, PROG ": %s %d B\n", design, len);
            for (int k = 0; k < NCASE; k++) {
                for (int w = 0; w < 5; w++) {
                    issue(k, loc, base[1], len);
                    ARMCI_WaitAll();
                }
                for (long i = 0; i < iters; i++) {
                    double t0 = nbi_now_us();
                    issue(k, loc, base[1], len);
                    ARMCI_WaitAll();
                    vt[i] = nbi_now_us() - t0;
                }
                double T = bench_median(vt, (size_t)iters);
                for (long i = 0; i < iters; i++) {
                    double t0 = nbi_now_us();
                    nbi_compute_ns(T * 1e3);
                    vc[i] = nbi_now_us() - t0;
                }
                double C = bench_median(vc, (size_t)iters);
                for (long i = 0; i < iters; i++) {
                    double t0 = nbi_now_us();
                    issue(k, loc, base[1], len);
                    double t1 = nbi_now_us();
                    nbi_compute_ns(T * 1e3);
                    double t2 = nbi_now_us();
                    ARMCI_WaitAll();
                    double t3 = nbi_now_us();
                    vx[i] = t3 - t0;
                    vi[i] = t1 - t0;
                    vw[i] = t3 - t2;
                }
                ARMCI_Fence(1);
                double X = bench_median(vx, (size_t)iters);
                double m = T < C ? T : C;
                double ov = m > 0 ? (T + C - X) / m * 100.0 : 0.0;
                ov = ov < 0 ? 0 : ov > 100 ? 100 : ov;
                printf("nbi_overlap,%s,%d,%s,%ld,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f\n", case_name[k], len,
                       design, iters, T, C, X, bench_median(vi, (size_t)iters),
                       bench_median(vw, (size_t)iters), ov);
                fflush(stdout);
            }
        }
        free(vt), free(vc), free(vx), free(vi), free(vw);
    }
    armci_msg_barrier();
    ARMCI_Free_local(loc);
    ARMCI_Free(base[me]);
    free(base);
    free(sz);
    ARMCI_Finalize();
    return 0;
}
