/* The rank program of core_scale (see core_scale.c), also usable alone.
 *
 *   emunic-run -N A -n B -- core_scale_rank --startup-only
 *       emunic_init + emunic_barrier + emunic_finalize, nothing else
 *   core_scale_rank --noop
 *       exit at once without touching emunic (process start-up floor)
 *   emunic-run -N A -n B -- core_scale_rank [--iters K]
 *       every rank does K iterations of: an 8-byte write with remote
 *       completion to rank (rank+1) % size, then a fetch-add on a counter in
 *       rank 0's heap, waiting for each; rank 0 prints one CSV row with the
 *       mean cost per operation and the aggregate rate. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench_emu.h"
#include "bench_util.h"

/* Layout of every rank's first heap block (all ranks allocate the same). */
struct result {
    _Alignas(64) double elapsed_s, write_s, atomic_s;
    uint64_t done;
};
#define OFF_COUNTER 0
#define OFF_RESULTS 64
#define OFF_MAILBOX(n) (OFF_RESULTS + (uint64_t)(n) * sizeof(struct result))
#define INFO_BYTES(n) (OFF_MAILBOX(n) + 64)

static void usage(FILE *f)
{
    fprintf(f,
            "usage: emunic-run -N A -n B -- core_scale_rank [--iters K] [--row-only]\n"
            "       emunic-run -N A -n B -- core_scale_rank --startup-only\n"
            "       core_scale_rank --noop\n"
            "Per-operation cost as the job grows: every rank does K x (8-byte write with\n"
            "remote completion to rank+1, fetch-add on rank 0's counter). Rank 0 prints a\n"
            "CSV row; --row-only leaves out the header lines (core_scale uses that).\n"
            "  --iters K        iterations per rank (1000)\n"
            "  --startup-only   init, barrier, finalize; print nothing\n"
            "  --noop           exit 0 at once (no emunic)\n"
            "  --row-only       print only the data row\n"
            "  -h, --help       this text\n");
}

#define CSV_COLS                                                                  \
    "bench,case,size,nodes,ranks_per_node,iters,mean_op_us,mean_write_us,mean_fadd_us," \
    "max_rank_op_us,agg_ops_s,wall_s," BE_CTRS_CSV_HEADER

int main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"iters", required_argument, 0, 'i'}, {"startup-only", no_argument, 0, 's'},
        {"noop", no_argument, 0, 'n'},        {"row-only", no_argument, 0, 'r'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    long iters = 1000;
    int startup_only = 0, row_only = 0, c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'i': iters = bench_parse_long("--iters", optarg, 1, 100000000); break;
        case 's': startup_only = 1; break;
        case 'n': return 0;
        case 'r': row_only = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    if (startup_only) {
        int rc = emunic_init();
        if (rc) {
            fprintf(stderr, "emunic_init: %s\n", strerror(-rc));
            return 1;
        }
        rc = emunic_barrier();
        emunic_finalize();
        return rc ? 1 : 0;
    }

    /* the info block's size depends on the job size: peek at it first */
    BE_CHECK(emunic_init() == 0, "emunic_init");
    uint32_t n = emunic_size();
    char *info = be_init(INFO_BYTES(n)); /* nested init: counted */
    emunic_finalize();
    uint32_t me = emunic_rank(), to = (me + 1) % n;
    uint64_t counter = emunic_heap_addr(0) + OFF_COUNTER;
    uint64_t mailbox = emunic_heap_addr(to) + OFF_MAILBOX(n);
    uint64_t *fetched = emunic_malloc(64);
    BE_CHECK(fetched, "emunic_malloc");
    uint64_t payload = me, one = 1;
    struct be_ctrs c0, c1, d;
    if (me == 0)
        be_ctrs_read(&c0);
    be_barrier();
    int64_t start = bench_now_ns(), tw = 0, ta = 0;
    for (long i = 0; i < iters; i++) {
        int64_t t0 = bench_now_ns();
        uint64_t ck = be_cookie();
        int rc = emunic_write(to, EMU_KEY_HEAP, mailbox, &payload, 8, EMU_F_REMOTE_CQ, ck, 0);
        BE_CHECK(rc == 0, "write: %d", rc);
        be_wait_cookie(ck);
        int64_t t1 = bench_now_ns();
        ck = be_cookie();
        rc = emunic_atomic(0, EMU_KEY_HEAP, counter, EMU_AOP_SUM, EMU_UINT64, &one, 8, NULL, fetched,
                           EMU_F_REMOTE_CQ, ck);
        BE_CHECK(rc == 0, "atomic: %d", rc);
        be_wait_cookie(ck);
        int64_t t2 = bench_now_ns();
        tw += t1 - t0;
        ta += t2 - t1;
    }
    int64_t mine_end = bench_now_ns();
    struct result r = {.elapsed_s = (double)(mine_end - start) / 1e9,
                       .write_s = (double)tw / 1e9,
                       .atomic_s = (double)ta / 1e9,
                       .done = (uint64_t)iters};
    /* report to rank 0 (through the NIC, like everything else) */
    uint64_t ck = be_cookie();
    int rc = emunic_write(0, EMU_KEY_HEAP, emunic_heap_addr(0) + OFF_RESULTS + (uint64_t)me * sizeof r,
                          &r, sizeof r, EMU_F_REMOTE_CQ, ck, 0);
    BE_CHECK(rc == 0, "write: %d", rc);
    be_wait_cookie(ck);
    be_barrier();
    int64_t end = bench_now_ns();
    if (me == 0) {
        be_ctrs_read(&c1);
        be_ctrs_sub(&c1, &c0, &d);
        uint64_t total = *(volatile uint64_t *)(info + OFF_COUNTER);
        BE_CHECK(total == (uint64_t)iters * n, "counter is %llu, want %llu", (unsigned long long)total,
                 (unsigned long long)iters * n);
        const struct result *res = (const struct result *)(info + OFF_RESULTS);
        double sum_op = 0, sum_w = 0, sum_a = 0, max_op = 0;
        for (uint32_t k = 0; k < n; k++) {
            BE_CHECK(res[k].done == (uint64_t)iters, "rank %u reported %llu iterations", k,
                     (unsigned long long)res[k].done);
            double op = res[k].elapsed_s / (2.0 * (double)iters);
            sum_op += op;
            sum_w += res[k].write_s / (double)iters;
            sum_a += res[k].atomic_s / (double)iters;
            if (op > max_op)
                max_op = op;
        }
        double ops = 2.0 * (double)iters * n, wall = (double)(end - start) / 1e9;
        if (!row_only) {
            bench_header(stdout, argc, argv);
            printf("# every rank: iters x (8-byte write + remote completion to rank+1, fetch-add on "
                   "rank 0); *_us = mean over ranks of per-op time; agg_ops_s = all ops / wall time "
                   "from the start barrier to the end barrier; *_op = per operation, whole job\n");
            printf(CSV_COLS "\n");
        }
        printf("core_scale,%ux%u,%u,%u,%u,%ld,%.3f,%.3f,%.3f,%.3f,%.0f,%.4f,", emunic_nnodes(),
               emunic_local_size(), n, emunic_nnodes(), emunic_local_size(), iters, sum_op / n * 1e6,
               sum_w / n * 1e6, sum_a / n * 1e6, max_op * 1e6, ops / wall, wall);
        be_ctrs_csv(stdout, &d, ops);
        printf("\n");
        fflush(stdout);
    }
    emunic_finalize();
    return 0;
}
