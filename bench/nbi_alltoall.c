/* All-to-all of B bytes per pair overlapped with compute ([SHMEM-NBI]
 * FFT-like kernel, its Table I): every rank puts a block into every other
 * rank's slot for it, computes, then completes (WaitAll + barrier). T is
 * the exchange alone, C a calibrated compute of about T. */
#include <armci.h>
#include <getopt.h>
#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nbi_common.h"

#define PROG "nbi_alltoall"

static void usage(FILE *f)
{
    fprintf(f, "usage: emunic-run -N NODES -n RANKS --nic portals -- " PROG " [options]\n"
               "All-to-all by ARMCI_Put (blocking) or ARMCI_NbPut + ARMCI_WaitAll (NBI), each\n"
               "followed by a compute of about the exchange's own time, then a barrier.\n"
               "  --sizes LIST   bytes per pair (default 16K,128K,512K)\n"
               "  --iters N      timed exchanges per size and case (default 30)\n"
               "  --help         this text\n"
               "CSV on stdout (us, averaged over ranks, medians over iterations), progress on\n"
               "stderr. Exits 1 if a received block holds the wrong data.\n");
}

static int me, np;
static void **base;
static unsigned char *send;
static double *vt, *vi, *vw;
static long niters, seq;

static unsigned char tag(int src, int dst, long it)
{
    return (unsigned char)(src * 31 + dst * 7 + it * 3 + 1);
}

/* niters timed exchanges (after two warm-ups) of B bytes per pair, with
 * or without the puts, each followed by compute_ns of work, completion
 * and a barrier. Returns the median time per exchange averaged over
 * ranks; parts (if not NULL) gets the averaged medians of issue and of
 * wait (completion + barrier). A wrong received byte sets *bad. */
static double rounds(size_t B, int nbi, int comm, double compute_ns, uint64_t max, int *bad,
                     double *parts)
{
    for (long it = -2; it < niters; it++, seq++) {
        if (comm)
            for (int d = 0; d < np; d++)
                memset(send + (size_t)d * B, tag(me, d, seq), B);
        ARMCI_Barrier();
        double t0 = nbi_now_us();
        for (int k = 1; comm && k < np; k++) { /* staggered: not everyone to rank 0 first */
            int d = (me + k) % np;
            char *dst = (char *)base[d] + ((size_t)(seq & 1) * (size_t)np + (size_t)me) * max;
            if (nbi)
                ARMCI_NbPut(send + (size_t)d * B, dst, (int)B, d, NULL);
            else
                ARMCI_Put(send + (size_t)d * B, dst, (int)B, d);
        }
        double t1 = nbi_now_us();
        nbi_compute_ns(compute_ns);
        double t2 = nbi_now_us();
        if (nbi)
            ARMCI_WaitAll();
        ARMCI_Barrier(); /* AllFence + barrier: every block has landed */
        double t3 = nbi_now_us();
        if (it >= 0) {
            vt[it] = t3 - t0;
            vi[it] = t1 - t0;
            vw[it] = t3 - t2;
        }
        for (int src = 0; comm && src < np; src++) {
            if (src == me)
                continue;
            const unsigned char *r =
                (const unsigned char *)base[me] + ((size_t)(seq & 1) * (size_t)np + (size_t)src) * max;
            unsigned char want = tag(src, me, seq);
            for (size_t b = 0; b < B; b++)
                if (r[b] != want) {
                    if (!*bad)
                        fprintf(stderr, PROG ": rank %d: block from %d byte %zu is %u, not %u\n", me,
                                src, b, r[b], want);
                    *bad = 1;
                    break;
                }
        }
    }
    double v[3] = {bench_median(vt, (size_t)niters), bench_median(vi, (size_t)niters),
                   bench_median(vw, (size_t)niters)};
    armci_msg_dgop(v, 3, "+");
    if (parts)
        parts[0] = v[1] / np, parts[1] = v[2] / np;
    return v[0] / np;
}

int main(int argc, char **argv)
{
    const char *sizes = "16K,128K,512K";
    long iters = 30;
    static const struct option lo[] = {{"sizes", 1, 0, 's'}, {"iters", 1, 0, 'i'},
                                       {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': sizes = optarg; break;
        case 'i': iters = bench_parse_long("--iters", optarg, 3, 100000); break;
        case 'h': usage(stdout); return 0;
        default:
            return nbi_bad_option(PROG, argv);
        }
    }
    if (nbi_stray_args(PROG, argc, argv))
        return 2;
    uint64_t *sz;
    size_t nsz;
    nbi_sizes(PROG, sizes, 4u << 20, &sz, &nsz);
    nbi_init(PROG, &argc, &argv);
    nbi_need_ranks(PROG, 2);
    me = armci_msg_me(), np = armci_msg_nproc();
    uint64_t max = 8;
    for (size_t i = 0; i < nsz; i++)
        max = sz[i] > max ? sz[i] : max;
    /* receive slots [parity][source]: the next exchange may start before
     * a slow rank has checked the last one */
    size_t span = 2 * (size_t)np * (size_t)max;
    base = nbi_malloc_all(PROG, span);
    send = ARMCI_Malloc_local((armci_size_t)((size_t)np * max));
    const char *design = nbi_design(-1);
    nbi_calibrate();
    if (me == 0) {
        nbi_preamble(argc, argv, design,
                     "design is that of rank 1 seen from rank 0 (ranks spread evenly); us per "
                     "exchange, medians over iterations averaged over ranks; barrier_us = the two "
                     "barriers alone (B0), subtracted from comm_us (T), compute_us (C) and "
                     "total_us; overlap_pct = (T+C-total)/min(T,C)*100");
        printf("bench,case,size,design,ranks,iters,barrier_us,comm_us,compute_us,init_us,wait_us,"
               "total_us,overlap_pct\n");
        fflush(stdout);
    }
    vt = malloc(sizeof(double) * (size_t)iters), vi = malloc(sizeof(double) * (size_t)iters);
    vw = malloc(sizeof(double) * (size_t)iters);
    niters = iters;
    int bad = 0;
    for (size_t s = 0; s < nsz; s++) {
        size_t B = (size_t)sz[s];
        for (int nbi = 0; nbi < 2; nbi++) {
            if (me == 0)
                fprintf(stderr, PROG ": %s %s %zu B x %d ranks\n", design,
                        nbi ? "nbi" : "blocking", B, np);
            /* T: exchange alone. C: compute alone inside the same barriers,
             * scaled once so C is about T in wall time (with more ranks than
             * cores a rank's compute takes longer than its CPU time). */
            /* the barriers are in all three; count them once (B0) */
            double B0 = rounds(B, nbi, 0, 0, max, &bad, NULL);
            double T = rounds(B, nbi, 1, 0, max, &bad, NULL) - B0;
            T = T > 0.1 ? T : 0.1;
            double work = T * 1e3;
            double C = rounds(B, nbi, 0, work, max, &bad, NULL) - B0;
            if (C > 0.1)
                work *= T / C;
            C = rounds(B, nbi, 0, work, max, &bad, NULL) - B0;
            double parts[2];
            double X = rounds(B, nbi, 1, work, max, &bad, parts) - B0;
            double m = T < C ? T : C;
            double ov = m > 0 ? (T + C - X) / m * 100.0 : 0.0;
            ov = ov < 0 ? 0 : ov > 100 ? 100 : ov;
            if (me == 0) {
                printf("nbi_alltoall,%s,%zu,%s,%d,%ld,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n",
                       nbi ? "nbi" : "blocking", B, design, np, iters, B0, T, C, parts[0],
                       parts[1], X, ov);
                fflush(stdout);
            }
        }
    }
    int b = bad;
    armci_msg_igop(&b, 1, "max");
    if (me == 0 && b)
        fprintf(stderr, PROG ": wrong data received (see above)\n");
    free(vt), free(vi), free(vw);
    ARMCI_Barrier();
    ARMCI_Free_local(send);
    ARMCI_Free(base[me]);
    free(base);
    free(sz);
    ARMCI_Finalize();
    return b ? 1 : 0;
}
