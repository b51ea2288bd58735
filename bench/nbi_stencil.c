/* 3-D 7-point stencil on a P x P x P process torus ([SHMEM-NBI] 3D stencil
 * kernel): each iteration puts the six faces into the neighbours' ghost
 * slots. Blocking: put, barrier, compute everything. NBI: NbPut (implicit
 * handles), compute the interior while the faces fly, WaitAll + barrier,
 * then the boundary layer. Both are checked against a serial solve. */
#include <armci.h>
#include <getopt.h>
#include <math.h>
#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "nbi_common.h"

#define PROG "nbi_stencil"

static void usage(FILE *f)
{
    fprintf(f, "usage: emunic-run -N NODES -n RANKS --nic portals -- " PROG " [options]\n"
               "Needs a cube number of ranks (8, 27, 64, ...): a P x P x P periodic process grid,\n"
               "each rank owning an n x n x n block; halo faces go by ARMCI_Put (blocking) or\n"
               "ARMCI_NbPut + ARMCI_WaitAll (NBI, interior computed meanwhile).\n"
               "  --n N        block edge per rank (default 48 / 32 / 24 for P = 2 / 3 / >= 4)\n"
               "  --iters I    timed iterations per mode (default 300 / 200 / 150; 4 more per mode are\n"
               "               checked against a serial solve first)\n"
               "  --help       this text\n"
               "CSV on stdout (us per iteration, averaged and max over ranks), progress on stderr.\n"
               "Exits 1 if a checksum differs from the serial solve's.\n");
}

static int n, P, me, px, py, pz;
static size_t E; /* n + 2: edge with ghosts */

static size_t at(int i, int j, int k)
{
    return ((size_t)i * E + (size_t)j) * E + (size_t)k;
}

static double init_val(long gi, long gj, long gk)
{
    return (double)((gi * 7 + gj * 13 + gk * 29) % 97) / 97.0;
}

static double weight(long gi, long gj, long gk, long g)
{
    return 1.0 + (double)(((gi * g + gj) * g + gk) % 11);
}

static int rank_of(int x, int y, int z)
{
    x = (x + P) % P, y = (y + P) % P, z = (z + P) % P;
    return (x * P + y) * P + z;
}

/* face d (0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z): layer index on that side */
static void face_copy(double *u, double *buf, int d, int ghost, int out)
{
    int layer = (d & 1) ? (ghost ? n + 1 : n) : (ghost ? 0 : 1);
    size_t p = 0;
    for (int a = 1; a <= n; a++)
        for (int b = 1; b <= n; b++, p++) {
            size_t q = d < 2 ? at(layer, a, b) : d < 4 ? at(a, layer, b) : at(a, b, layer);
            if (out)
                buf[p] = u[q];
            else
                u[q] = buf[p];
        }
}

static void update(const double *u, double *v, int lo, int hi, int skip_inner)
{
    for (int i = lo; i <= hi; i++)
        for (int j = lo; j <= hi; j++)
            for (int k = lo; k <= hi; k++) {
                if (skip_inner && i > 1 && i < n && j > 1 && j < n && k > 1 && k < n) {
                    k = n - 1; /* jump to the boundary point of this row */
                    continue;
                }
                size_t p = at(i, j, k);
                v[p] = 0.4 * u[p] + 0.1 * (u[p - E * E] + u[p + E * E] + u[p - E] + u[p + E] +
                                           u[p - 1] + u[p + 1]);
            }
}

static double checksum(const double *u)
{
    long g = (long)P * n;
    double s = 0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            for (int k = 1; k <= n; k++)
                s += u[at(i, j, k)] * weight(px * n + i - 1, py * n + j - 1, pz * n + k - 1, g);
    armci_msg_dgop(&s, 1, "+");
    return s;
}

/* The same arithmetic on the whole periodic grid, on one rank. */
static double serial_checksum(long iters)
{
    long g = (long)P * n;
    size_t N = (size_t)(g * g * g);
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    if (!a || !b)
        return NAN;
#define G(i, j, k) ((((size_t)(((i) + g) % g)) * (size_t)g + (size_t)(((j) + g) % g)) * (size_t)g + (size_t)(((k) + g) % g))
    for (long i = 0; i < g; i++)
        for (long j = 0; j < g; j++)
            for (long k = 0; k < g; k++)
                a[G(i, j, k)] = init_val(i, j, k);
    for (long t = 0; t < iters; t++) {
        for (long i = 0; i < g; i++)
            for (long j = 0; j < g; j++)
                for (long k = 0; k < g; k++)
                    b[G(i, j, k)] = 0.4 * a[G(i, j, k)] +
                                    0.1 * (a[G(i - 1, j, k)] + a[G(i + 1, j, k)] + a[G(i, j - 1, k)] +
                                           a[G(i, j + 1, k)] + a[G(i, j, k - 1)] + a[G(i, j, k + 1)]);
        double *t2 = a;
        a = b, b = t2;
    }
    double s = 0;
    for (long i = 0; i < g; i++)
        for (long j = 0; j < g; j++)
            for (long k = 0; k < g; k++)
                s += a[G(i, j, k)] * weight(i, j, k, g);
#undef G
    free(a), free(b);
    return s;
}

static int np, nb[6];
static size_t face;
static void **slots;
static double *send, *u, *v;

/* One mode from the initial field: blocking (0) or NBI (1). Returns the
 * global checksum; *us is this rank's time per iteration. */
static double run(int mode, long iters, double *us)
{
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            for (int k = 1; k <= n; k++)
                u[at(i, j, k)] = init_val(px * n + i - 1, py * n + j - 1, pz * n + k - 1);
    ARMCI_Barrier();
    double t0 = nbi_now_us();
    for (long it = 0; it < iters; it++) {
        /* parity by a global count: runs never reuse the slots just read */
        static long seq;
        long par = seq++ & 1;
        double *mine = (double *)slots[me] + (size_t)par * 6 * face;
        for (int d = 0; d < 6; d++)
            face_copy(u, send + d * face, d, 0, 1);
        for (int d = 0; d < 6; d++) {
            /* my +x face is the -x ghost of my +x neighbour: slot d ^ 1 */
            double *dst = (double *)slots[nb[d]] + ((size_t)par * 6 + (size_t)(d ^ 1)) * face;
            int bytes = (int)(face * sizeof(double));
            if (mode)
                ARMCI_NbPut(send + d * face, dst, bytes, nb[d], NULL);
            else
                ARMCI_Put(send + d * face, dst, bytes, nb[d]);
        }
        if (mode) {
            update(u, v, 2, n - 1, 0); /* interior: needs no ghost */
            ARMCI_WaitAll();
        }
        ARMCI_Barrier(); /* AllFence + barrier: every face has landed */
        for (int d = 0; d < 6; d++)
            face_copy(u, mine + d * face, d, 1, 0);
        update(u, v, 1, n, mode);
        double *t = u;
        u = v, v = t;
    }
    *us = (nbi_now_us() - t0) / (double)iters;
    return checksum(u);
}

int main(int argc, char **argv)
{
    long iters = 0;
    static const struct option lo[] = {{"n", 1, 0, 'n'}, {"iters", 1, 0, 'i'},
                                       {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'n': n = (int)bench_parse_long("--n", optarg, 3, 512); break;
        case 'i': iters = bench_parse_long("--iters", optarg, 1, 1000000); break;
        case 'h': usage(stdout); return 0;
        default:
            return nbi_bad_option(PROG, argv);
        }
    }
    if (nbi_stray_args(PROG, argc, argv))
        return 2;
    nbi_init(PROG, &argc, &argv);
    me = armci_msg_me();
    np = armci_msg_nproc();
    for (P = 1; P * P * P < np; P++)
        ;
    if (P * P * P != np || np < 8) {
        if (me == 0)
            fprintf(stderr, PROG ": needs a cube number of ranks >= 8 (got %d)\n", np);
        ARMCI_Finalize();
        return 2;
    }
    if (!n)
        n = P == 2 ? 48 : P == 3 ? 32 : 24;
    if (!iters)
        iters = P == 2 ? 300 : P == 3 ? 200 : 150;
    E = (size_t)n + 2;
    px = me / (P * P), py = me / P % P, pz = me % P;
    nb[0] = rank_of(px - 1, py, pz), nb[1] = rank_of(px + 1, py, pz);
    nb[2] = rank_of(px, py - 1, pz), nb[3] = rank_of(px, py + 1, pz);
    nb[4] = rank_of(px, py, pz - 1), nb[5] = rank_of(px, py, pz + 1);
    face = (size_t)n * (size_t)n;
    size_t vol = E * E * E;
    /* ghost slots: [parity][side the data came from][face], double-buffered
     * so a fast neighbour's next faces cannot overwrite unread ones */
    slots = nbi_malloc_all(PROG, 2 * 6 * face * sizeof(double));
    send = ARMCI_Malloc_local((armci_size_t)(6 * face * sizeof(double)));
    u = calloc(vol, sizeof(double)), v = calloc(vol, sizeof(double));
    if (!send || !u || !v) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    const char *design = nbi_design(nb[1] != me ? nb[1] : nb[3]);
    nbi_calibrate();
    if (me == 0) {
        nbi_preamble(argc, argv, design,
                     "design is that of rank 0's +x neighbour; time_us per iteration averaged "
                     "(avg) and max over ranks");
        printf("bench,case,size,design,ranks,grid,n,iters,face_bytes,time_avg_us,time_max_us,"
               "speedup_vs_blocking,checksum_ok\n");
        fflush(stdout);
    }
    /* a short run of each mode against the serial solve, then the timed
     * runs, whose checksums must agree with each other bit for bit */
    const long vit = 4;
    double ref = 0;
    if (me == 0) {
        fprintf(stderr, PROG ": serial reference, %d^3 points x %ld iterations\n", P * n, vit);
        ref = serial_checksum(vit);
    }
    armci_msg_dgop(&ref, 1, "+");
    double t_blk = 0, cs_blk = 0;
    int bad = 0;
    for (int mode = 0; mode < 2; mode++) {
        double el;
        double cv = run(mode, vit, &el);
        int ok = fabs(cv - ref) <= 1e-9 * fabs(ref);
        if (me == 0 && !ok)
            fprintf(stderr, PROG ": %s checksum %.17g, serial %.17g\n", mode ? "nbi" : "blocking",
                    cv, ref);
        if (me == 0)
            fprintf(stderr, PROG ": %s %s, %d ranks, n=%d, %ld iterations\n", design,
                    mode ? "nbi" : "blocking", np, n, iters);
        double cs = run(mode, iters, &el);
        if (mode == 0)
            cs_blk = cs;
        else
            ok &= cs == cs_blk;
        bad |= !ok;
        double mx = el;
        armci_msg_dgop(&el, 1, "+");
        armci_msg_dgop(&mx, 1, "max");
        el /= np;
        if (mode == 0)
            t_blk = el;
        if (me == 0) {
            printf("nbi_stencil,%s,%zu,%s,%d,%dx%dx%d,%d,%ld,%zu,%.1f,%.1f,%.2f,%s\n",
                   mode ? "nbi" : "blocking", face * sizeof(double), design, np, P, P, P, n, iters,
                   face * sizeof(double), el, mx, el > 0 ? t_blk / el : 0.0, ok ? "yes" : "NO");
            fflush(stdout);
            if (mode && cs != cs_blk)
                fprintf(stderr, PROG ": nbi checksum %.17g, blocking %.17g\n", cs, cs_blk);
        }
    }
    ARMCI_Barrier();
    free(u), free(v);
    ARMCI_Free_local(send);
    ARMCI_Free(slots[me]);
    free(slots);
    ARMCI_Finalize();
    return bad ? 1 : 0;
}
