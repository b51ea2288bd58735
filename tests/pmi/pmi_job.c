/* A PMI-1 bootstrap as a PGAS stack does it: every call once, 3 puts per
 * rank, barrier, every rank's keys read back and checked.
 *   pmi_job                 the whole sequence; exit 0 when all is right
 *   pmi_job --fail R        rank R exits 3 while the others wait in barrier
 *   pmi_job --leave R       rank R exits 0 while the others wait in barrier
 *   pmi_job --abort R CODE  rank R calls abort; the others wait in barrier
 *   pmi_job --no-pmi        expects no PMI_* variables (emunic-run --no-pmi) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi_client.h"

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "rank %d: check failed at line %d: %s\n",     \
                    rank, __LINE__, #c);                                  \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

static int rank = -1;

static void value_of(int r, int k, char *buf, size_t n)
{
    /* hex-looking and different per rank and key, as real stacks send */
    snprintf(buf, n, "%08x%04x%s", (unsigned)(r * 2654435761u), k,
             k == 2 ? "deadbeefcafef00d0123456789abcdef" : "");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--no-pmi") == 0) {
        CHECK(!getenv("PMI_FD") && !getenv("PMI_PORT") && !getenv("PMI_RANK") &&
              !getenv("PMI_SIZE"));
        return 0;
    }
    int size;
    CHECK(tpmi_init(&rank, &size) == 0);
    CHECK(atoi(getenv("EMUNIC_RANK")) == rank);
    CHECK(atoi(getenv("EMUNIC_SIZE")) == size);
    CHECK(strcmp(getenv("PMI_SPAWNED"), "0") == 0);

    if (argc > 2 && (strcmp(argv[1], "--fail") == 0 ||
                     strcmp(argv[1], "--leave") == 0)) {
        if (rank == atoi(argv[2]))
            exit(strcmp(argv[1], "--fail") == 0 ? 3 : 0);
        tpmi_barrier(); /* never returns: the job is stopped */
        return 10;
    }
    if (argc > 3 && strcmp(argv[1], "--abort") == 0) {
        if (rank == atoi(argv[2]))
            tpmi_abort(atoi(argv[3]), "deliberate abort from the test");
        tpmi_barrier();
        return 10;
    }

    int kn, kl, vl, appnum, usize;
    CHECK(tpmi_get_maxes(&kn, &kl, &vl) == 0);
    CHECK(kn == 256 && kl == 64 && vl == 1024);
    CHECK(tpmi_get_appnum(&appnum) == 0 && appnum == 0);
    CHECK(tpmi_get_universe_size(&usize) == 0 && usize == size);
    char kvs[256];
    CHECK(tpmi_kvs_get_my_name(kvs, sizeof kvs) == 0);
    CHECK(strstr(kvs, getenv("EMUNIC_JOBID")) != NULL);

    static const char *const names[3] = {"procid", "hostname_len",
                                         "hostname"};
    char key[64], val[128], got[1100];
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "shmem-%d-%s", rank, names[k]);
        value_of(rank, k, val, sizeof val);
        CHECK(tpmi_kvs_put(kvs, key, val) == 0);
    }
    CHECK(tpmi_kvs_commit(kvs) == 0);
    CHECK(tpmi_barrier() == 0);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 3; k++) {
            snprintf(key, sizeof key, "shmem-%d-%s", r, names[k]);
            value_of(r, k, val, sizeof val);
            CHECK(tpmi_kvs_get(kvs, key, got, sizeof got) == 0);
            CHECK(strcmp(got, val) == 0);
        }
    CHECK(tpmi_kvs_get(kvs, "no-such-key", got, sizeof got) == -1);
    /* a second round, as bootstraps do: the barrier is reusable */
    CHECK(tpmi_barrier() == 0);
    CHECK(tpmi_finalize() == 0);
    if (rank == 0)
        printf("pmi_job: %d ranks bootstrapped\n", size);
    return 0;
}
