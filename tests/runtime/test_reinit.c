/* ARMCI_INIT_HANDLE on a handle whose get is still in flight completes
 * that get first. Global Arrays' handle pool (global/src/nbutil.c) does
 * this when two threads pick the same handle: one thread re-initialises
 * it and issues its own get, the other then waits on it. Without the
 * completion, the first get was orphaned: its wait returned early, the
 * thread freed its buffer, and the data landed in freed memory (GA's
 * thread_perf_strided aborted in malloc in a fresh-clone CI).
 *
 * Run over a 200 ms link (tests/portals/slow_link.yaml), 2 nodes x 1, so
 * every get is in flight when the handle is re-initialised. Rank 0:
 *  1. NbGet, re-initialise the handle: the data must be there at once,
 *     and a Wait on the re-initialised handle returns at once;
 *  2. GA's order: NbGet into A, re-initialise, NbGet into B on the same
 *     handle, one Wait: both A and B complete. */
#include <armci.h>
#include <message.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define SZ (64 * 1024)

static unsigned char pat(int owner, size_t i)
{
    return (unsigned char)(i * 13 + (size_t)owner * 41 + 3);
}

static void check(const unsigned char *b, size_t off, const char *what)
{
    for (size_t i = 0; i < SZ / 2; i++)
        CHECK(b[i] == pat(1, off + i), "%s: byte %zu is %#x, want %#x", what, i, b[i], pat(1, off + i));
}

int main(int argc, char **argv)
{
    ARMCI_Init_args(&argc, &argv);
    int nproc = armci_msg_nproc();
    me = armci_msg_me();
    CHECK(nproc == 2, "written for 2 ranks, not %d", nproc);
    void **base = malloc((size_t)nproc * sizeof *base);
    CHECK(base && ARMCI_Malloc(base, SZ) == 0, "ARMCI_Malloc");
    unsigned char *mine = base[me];
    for (size_t i = 0; i < SZ; i++)
        mine[i] = pat(me, i);
    ARMCI_Barrier();

    if (me == 0) {
        unsigned char *a = malloc(SZ / 2), *b = malloc(SZ / 2);
        CHECK(a && b, "malloc");
        armci_hdl_t h;

        memset(a, 0, SZ / 2);
        ARMCI_INIT_HANDLE(&h);
        CHECK(ARMCI_NbGet(base[1], a, SZ / 2, 1, &h) == 0, "ARMCI_NbGet");
        ARMCI_INIT_HANDLE(&h);
        check(a, 0, "get before the handle was re-initialised");
        CHECK(ARMCI_Wait(&h) == 0, "ARMCI_Wait on a re-initialised handle");

        memset(a, 0, SZ / 2);
        memset(b, 0, SZ / 2);
        ARMCI_INIT_HANDLE(&h);
        CHECK(ARMCI_NbGet(base[1], a, SZ / 2, 1, &h) == 0, "ARMCI_NbGet into A");
        ARMCI_INIT_HANDLE(&h);
        CHECK(ARMCI_NbGet((unsigned char *)base[1] + SZ / 2, b, SZ / 2, 1, &h) == 0, "ARMCI_NbGet into B");
        CHECK(ARMCI_Wait(&h) == 0, "ARMCI_Wait");
        check(a, 0, "get into A (its handle re-initialised and reused)");
        check(b, SZ / 2, "get into B");
        free(a);
        free(b);
    }

    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    if (me == 0)
        printf("test_reinit: ok\n");
    return 0;
}
