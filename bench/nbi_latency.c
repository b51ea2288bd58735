/* NBI put/get latency (issue + wait) against blocking put/get, rank 0 to
 * rank 1, as in the [SHMEM-NBI] paper's latency benchmark. */
#include <armci.h>
#include <getopt.h>
#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nbi_common.h"

#define PROG "nbi_latency"

static void usage(FILE *f)
{
    fprintf(f, "usage: emunic-run -N 1 -n 2 (or -N 2 -n 1) --nic portals -- " PROG " [options]\n"
               "Latency of ARMCI_NbPut/NbGet + ARMCI_WaitAll (implicit handle), NbPut/NbGet +\n"
               "ARMCI_Wait (explicit handle) and blocking ARMCI_Put/ARMCI_Get, rank 0 -> rank 1.\n"
               "  --sizes LIST   sizes (default 8:1M, powers of two)\n"
               "  --iters N      timed operations per size and case at 8 B (default 400;\n"
               "                 fewer for large sizes, at least 20)\n"
               "  --help         this text\n"
               "CSV on stdout (median/p10/p90 us), progress on stderr.\n");
}

enum { PUT_BLK, PUT_NBI, PUT_HDL, GET_BLK, GET_NBI, GET_HDL, NCASE };
static const char *case_name[NCASE] = {"put_blocking", "put_nbi", "put_nbi_handle",
                                       "get_blocking", "get_nbi", "get_nbi_handle"};

static void one_op(int c, char *loc, char *rem, int len)
{
    armci_hdl_t h;
    switch (c) {
    case PUT_BLK: ARMCI_Put(loc, rem, len, 1); break;
    case PUT_NBI: ARMCI_NbPut(loc, rem, len, 1, NULL); ARMCI_WaitAll(); break;
    case PUT_HDL: ARMCI_INIT_HANDLE(&h); ARMCI_NbPut(loc, rem, len, 1, &h); ARMCI_Wait(&h); break;
    case GET_BLK: ARMCI_Get(rem, loc, len, 1); break;
    case GET_NBI: ARMCI_NbGet(rem, loc, len, 1, NULL); ARMCI_WaitAll(); break;
    default: ARMCI_INIT_HANDLE(&h); ARMCI_NbGet(rem, loc, len, 1, &h); ARMCI_Wait(&h); break;
    }
}

int main(int argc, char **argv)
{
    const char *sizes = "8:1M";
    long iters = 400;
    static const struct option lo[] = {{"sizes", 1, 0, 's'}, {"iters", 1, 0, 'i'},
                                       {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': sizes = optarg; break;
        case 'i': iters = bench_parse_long("--iters", optarg, 1, 10000000); break;
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
    memset(loc, 1, max);
    memset(base[me], 2, max);
    const char *design = nbi_design(1);
    armci_msg_barrier();
    if (me == 0) {
        nbi_preamble(argc, argv, design, "latency in us of one operation incl. its wait");
        printf("bench,case,size,design,iters,lat_us,p10_us,p90_us\n");
        double *v = malloc(sizeof(double) * (size_t)iters);
        for (size_t s = 0; s < nsz; s++) {
            int len = (int)sz[s];
            long it = iters;
            if ((uint64_t)it * sz[s] > (64u << 20))
                it = (long)((64u << 20) / sz[s]);
            if (it < 20)
                it = iters < 20 ? iters : 20;
            fprintf(stderr, PROG ": %s %d B, %ld iters\n", design, len, it);
            for (int k = 0; k < NCASE; k++) {
                for (int w = 0; w < 5; w++)
                    one_op(k, loc, base[1], len);
                for (long i = 0; i < it; i++) {
                    double t0 = nbi_now_us();
                    one_op(k, loc, base[1], len);
                    v[i] = nbi_now_us() - t0;
                }
                /* a put's data must have landed before the next case reads */
                ARMCI_Fence(1);
                struct bench_stats st;
                bench_stats_of(v, (size_t)it, &st);
                printf("nbi_latency,%s,%d,%s,%ld,%.2f,%.2f,%.2f\n", case_name[k], len, design, it,
                       st.median, st.p10, st.p90);
                fflush(stdout);
            }
        }
        free(v);
        /* the data really moved: rank 1's block holds rank 0's 1s */
        char chk[8];
        ARMCI_Get(base[1], chk, 8, 1);
        if (memcmp(chk, "\1\1\1\1\1\1\1\1", 8) != 0) {
            fprintf(stderr, PROG ": put data did not arrive at rank 1\n");
            return 1;
        }
    }
    armci_msg_barrier();
    ARMCI_Free_local(loc);
    ARMCI_Free(base[me]);
    free(base);
    free(sz);
    ARMCI_Finalize();
    return 0;
}
