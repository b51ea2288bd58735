/* What exposing private memory costs now that it is moved onto a memfd
 * (core/promote.c): emunic_expose + emunic_unexpose of a range of private
 * anonymous memory, fully written or untouched, against one memcpy of the
 * same bytes in the same run. Run it once as is and once with
 * EMUNIC_PRIVATE_MAP=0 (no move) to see the move's share.
 *
 *   emunic-run -N 1 -n 1 -- core_expose [--sizes LIST] [--reps N]
 *
 * CSV on stdout: size, state, expose+unexpose and expose alone (median
 * us), memcpy (median us), move on/off. */
#include "bench_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "emunic/emunic.h"

static void usage(void)
{
    puts("usage: emunic-run -N 1 -n 1 -- core_expose [options]\n"
         "emunic_expose + emunic_unexpose of private memory (written or untouched),\n"
         "against one memcpy of the same size, in the same run.\n"
         "  --sizes LIST   8,64K,1M or LO:HI (default 64K:16M:4)\n"
         "  --reps N       pairs per size and state; the median is reported (21)\n"
         "  -h, --help     this text\n"
         "EMUNIC_PRIVATE_MAP=0 turns the move off (the old path) for comparison.");
}

int main(int argc, char **argv)
{
    uint64_t *sizes = NULL;
    size_t nsizes = 0;
    long reps = 21;
    const char *sz = "64K:16M:4";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            sz = argv[++i];
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = bench_parse_long("--reps", argv[++i], 1, 100000);
        } else {
            fprintf(stderr, "core_expose: unknown option %s (--help)\n", argv[i]);
            return 2;
        }
    }
    if (bench_parse_sizes(sz, &sizes, &nsizes) != 0) {
        fprintf(stderr, "core_expose: bad --sizes %s\n", sz);
        return 2;
    }
    int rc = emunic_init();
    if (rc) {
        fprintf(stderr, "core_expose: emunic_init: %s\n", strerror(-rc));
        return 1;
    }
    const char *mode = getenv("EMUNIC_PRIVATE_MAP");
    bench_header(stdout, argc, argv);
    puts("size,state,expose_unexpose_us,expose_us,memcpy_us,move");
    double *t = malloc(sizeof *t * (size_t)reps), *m = malloc(sizeof *m * (size_t)reps);
    double *x = malloc(sizeof *x * (size_t)reps);
    for (size_t k = 0; k < nsizes; k++) {
        size_t len = (size_t)sizes[k];
        char *dst = bench_alloc_touched(len);
        for (int touched = 1; touched >= 0; touched--) {
            for (long r = 0; r < reps; r++) {
                char *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (b == MAP_FAILED) {
                    perror("core_expose: mmap");
                    return 1;
                }
                if (touched)
                    memset(b, (int)r, len);
                int64_t t0 = bench_now_ns();
                int64_t key = emunic_expose(b, len, EMU_PERM_ALL);
                int64_t th = bench_now_ns();
                int un = key > 0 ? emunic_unexpose((uint32_t)key) : -1;
                int64_t t1 = bench_now_ns();
                if (key <= 0 || un != 0) {
                    fprintf(stderr, "core_expose: expose %lld, unexpose %d\n", (long long)key, un);
                    return 1;
                }
                memcpy(dst, b, len);
                int64_t t2 = bench_now_ns();
                t[r] = (double)(t1 - t0) / 1e3;
                x[r] = (double)(th - t0) / 1e3;
                m[r] = (double)(t2 - t1) / 1e3;
                munmap(b, len);
            }
            char sb[32];
            double te = bench_median(t, (size_t)reps), tm = bench_median(m, (size_t)reps);
            double tx = bench_median(x, (size_t)reps);
            printf("%zu,%s,%.1f,%.1f,%.1f,%s\n", len, touched ? "written" : "untouched", te, tx, tm,
                   mode && !strcmp(mode, "0") ? "off" : "on");
            fprintf(stderr, "%-6s %-9s expose+unexpose %9.1f us (expose %9.1f)   memcpy %9.1f us   (%.1fx)\n",
                    bench_fmt_size(len, sb, sizeof sb), touched ? "written" : "untouched", te, tx, tm, te / tm);
        }
        munmap(dst, len);
    }
    free(t);
    free(x);
    free(m);
    free(sizes);
    emunic_finalize();
    return 0;
}
