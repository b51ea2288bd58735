/* Harness for programs that run as ranks under emunic-run: fail loudly
 * with the rank and line, wait for completions, swap addresses. */
#ifndef EMUNIC_ITEST_H
#define EMUNIC_ITEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emunic/emunic.h"

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "FAIL rank %u %s:%d: %s: ", emunic_rank(),       \
                    __FILE__, __LINE__, #cond);                              \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define EXCH_SLOT 256

static char *itest_exch;
static uint64_t itest_next = 1;

static inline uint64_t cookie(void) { return ++itest_next; }

/* Wait until the completions for c carry every bit of want; returns the
 * first non-zero status seen (or 0). */
static inline int wait_done(uint64_t c, unsigned want)
{
    unsigned got = 0;
    int first = 0;
    while ((got & want) != want) {
        struct emu_msg m;
        int st = emunic_wait_cookie(c, &m);
        CHECK(st >= 0, "wait_cookie: %d", st);
        if (st && !first)
            first = st;
        got |= m.flags;
        if (st && !(m.flags & want))
            break;
    }
    return first;
}

static inline void itest_init(void)
{
    int rc = emunic_init();
    if (rc) {
        fprintf(stderr, "emunic_init: %s\n", strerror(-rc));
        exit(1);
    }
    itest_exch = emunic_malloc((size_t)EXCH_SLOT * emunic_size());
    CHECK(itest_exch && (uint64_t)(uintptr_t)itest_exch == emunic_heap_addr(emunic_rank()),
          "exchange area is not the first heap block");
    CHECK(emunic_barrier() == 0, "barrier");
}

/* Gather len (<= EXCH_SLOT) bytes from every rank through rank 0. */
static inline void itest_allgather(const void *mine, size_t len, void *all)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    uint64_t c = cookie();
    CHECK(emunic_write(0, EMU_KEY_HEAP, emunic_heap_addr(0) + (uint64_t)me * EXCH_SLOT,
                       mine, len, EMU_F_REMOTE_CQ, c, 0) == 0, "post");
    CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "allgather write");
    CHECK(emunic_barrier() == 0, "barrier");
    char *tmp = malloc((size_t)n * EXCH_SLOT);
    c = cookie();
    CHECK(emunic_read(0, EMU_KEY_HEAP, emunic_heap_addr(0), tmp, (size_t)n * EXCH_SLOT,
                      EMU_F_REMOTE_CQ, c) == 0, "post");
    CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "allgather read");
    for (uint32_t r = 0; r < n; r++)
        memcpy((char *)all + (size_t)r * len, tmp + (size_t)r * EXCH_SLOT, len);
    free(tmp);
    CHECK(emunic_barrier() == 0, "barrier");
}

static inline uint8_t pattern(uint32_t rank, uint64_t salt, uint64_t i)
{
    return (uint8_t)(i * 131 + rank * 7 + salt * 29 + (i >> 8));
}

#endif
