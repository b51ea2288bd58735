/* MPI RMA peer of bench/run_peers.sh (built with mpicc.mpich, run with
 * mpiexec -n 2 on this box): passive-target one-sided operations, the MPI
 * counterpart of a Portals put with an ACK or a get.
 *
 * Rank 0 opens a passive-target epoch on every rank (MPI_Win_lock_all)
 * and times MPI_Put/MPI_Get into rank 1's window, each followed by
 * MPI_Win_flush: the flush returns when the operation is complete at the
 * target, so an 8 B put + flush is a remote-completion round trip. Rank 1
 * does nothing but wait in a barrier, as a passive target should.
 *
 * Output from rank 0, one "metric,value" line each:
 *   put_lat_8B_us     MPI_Put 8 B + MPI_Win_flush, median
 *   get_lat_8B_us     MPI_Get 8 B + MPI_Win_flush, median
 *   put_bw_1M_MBps    --bw-window puts of 1 MiB, then one flush; median of trials
 *   msgrate_8B_per_s  --rate-window puts of 8 B, then one flush; median of trials
 *   put_lat_<N>B_us   with --lat-sizes: MPI_Put N B + MPI_Win_flush, median,
 *                     one line per size, after a "# lat-sizes" comment
 *
 *   mpiexec -n 2 mpi_rma [--create] [--iters N] [--warmup N] [--trials T]
 *       [--bw-window W] [--bw-windows N] [--rate-window W] [--rate-windows N]
 *       [--lat-sizes LIST]
 * --create exposes malloc'd memory with MPI_Win_create instead of the
 * library's own MPI_Win_allocate memory (the private-memory case). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_stats.h"

#define BIG (1 << 20)
#define SMALL 8

static const char *prog = "mpi_rma";

static double latency(int is_get, char *local, int len, MPI_Win win, long warmup, long iters, double *samples)
{
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = peer_now_us();
        if (is_get)
            MPI_Get(local, len, MPI_BYTE, 1, 0, len, MPI_BYTE, win);
        else
            MPI_Put(local, len, MPI_BYTE, 1, 0, len, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        if (i >= warmup)
            samples[i - warmup] = peer_now_us() - t0;
    }
    return peer_median(samples, (size_t)iters);
}

/* count windows of `window` puts of len bytes, one flush per window (the
 * puts of a window all land at offset 0: bandwidth, not a data layout, is
 * measured); returns operations per second */
static double windows(char *local, int len, MPI_Win win, long window, long count)
{
    double t0 = peer_now_us();
    for (long w = 0; w < count; w++) {
        for (long k = 0; k < window; k++)
            MPI_Put(local, len, MPI_BYTE, 1, 0, len, MPI_BYTE, win);
        MPI_Win_flush(1, win);
    }
    return (double)(window * count) / ((peer_now_us() - t0) / 1e6);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mpiexec -n 2 mpi_rma [--create] [--iters N] [--warmup N] [--trials T]\n"
               "       [--bw-window W] [--bw-windows N] [--rate-window W] [--rate-windows N]\n"
               "       [--lat-sizes LIST]\n"
               "MPI passive-target RMA: 8 B put/get + MPI_Win_flush latency, 1 MiB put\n"
               "bandwidth, 8 B put rate. --lat-sizes 8,64,4K,1M: also the put + flush\n"
               "latency at each size (up to 1M). Prints metric,value lines from rank 0.\n");
}

int main(int argc, char **argv)
{
    int rank, size;
    /* options first, so --help works without a launcher */
    struct peer_opts o;
    int st = peer_parse_opts(argc, argv, prog, 1 << 20, BIG, 1, usage, &o);
    if (st >= 0)
        return st;
    long iters = o.iters, warmup = o.warmup, trials = o.trials, bw_window = o.bw_window, bw_windows = o.bw_windows,
         rate_window = o.rate_window, rate_windows = o.rate_windows;
    int create = o.create;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: run with exactly 2 ranks (got %d)\n", prog, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    char *base = NULL, *local = malloc(BIG);
    MPI_Win win;
    if (!local)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(local, 1, BIG);
    if (create) {
        base = malloc(BIG);
        if (!base)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Win_create(base, BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    }
    memset(base, 0, BIG);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);

    if (rank == 0) {
        double *samples = malloc(sizeof(double) * (size_t)(iters > trials ? iters : trials));
        double *trial = malloc(sizeof(double) * (size_t)trials);
        if (!samples || !trial)
            MPI_Abort(MPI_COMM_WORLD, 1);
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(ver, &len);
        ver[strcspn(ver, "\n")] = '\0';
        printf("# mpi_rma window=%s iters=%ld trials=%ld bw_window=%ld rate_window=%ld library=\"%s\"\n",
               create ? "MPI_Win_create(malloc)" : "MPI_Win_allocate", iters, trials, bw_window, rate_window, ver);
        printf("put_lat_8B_us,%.3f\n", latency(0, local, SMALL, win, warmup, iters, samples));
        printf("get_lat_8B_us,%.3f\n", latency(1, local, SMALL, win, warmup, iters, samples));
        windows(local, BIG, win, bw_window, 1); /* warm the 1 MiB path */
        for (long t = 0; t < trials; t++)
            trial[t] = windows(local, BIG, win, bw_window, bw_windows) * BIG / 1e6;
        printf("put_bw_1M_MBps,%.1f\n", peer_median(trial, (size_t)trials));
        windows(local, SMALL, win, rate_window, 10);
        for (long t = 0; t < trials; t++)
            trial[t] = windows(local, SMALL, win, rate_window, rate_windows);
        printf("msgrate_8B_per_s,%.0f\n", peer_median(trial, (size_t)trials));
        /* after the fixed metrics, so their lines and timing stay as without
         * the option; the marker tells a reader the 8 B line again is the sweep's */
        if (o.n_sizes > 0)
            printf("# lat-sizes: MPI_Put + MPI_Win_flush, median of %ld\n", iters);
        for (int i = 0; i < o.n_sizes; i++)
            printf("put_lat_%ldB_us,%.3f\n", o.sizes[i],
                   latency(0, local, (int)o.sizes[i], win, warmup, iters, samples));
        fflush(stdout);
        free(samples);
        free(trial);
    }

    MPI_Win_unlock_all(win);
    /* the target waits here: passive, it makes no RMA calls of its own */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (create)
        free(base);
    free(local);
    MPI_Finalize();
    return 0;
}
