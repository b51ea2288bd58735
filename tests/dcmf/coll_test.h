/* What the collective test programs share: the rank's identity, failure
 * reports ("FAIL rank <r> line <n>: ..." and exit 1) and a bounded wait for
 * a completion counter. */
#ifndef DCMF_COLL_TEST_H
#define DCMF_COLL_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <dcmf.h>

static size_t me, np;

#define FAIL(...)                                                               \
    do {                                                                        \
        fprintf(stderr, "FAIL rank %zu line %d: ", me, __LINE__);               \
        fprintf(stderr, __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                    \
        exit(1);                                                                \
    } while (0)

/* A collective's callback: count one more completion into *cd. */
static inline void coll_count_done(void *cd, DCMF_Error_t *e)
{
    if (e)
        FAIL("collective completed with error %d", e->result);
    (*(volatile int *)cd)++;
}

/* Advance until *flag reaches target; fail after 60 s. */
static inline void coll_wait_count(volatile int *flag, int target)
{
    double end = DCMF_Timer() + 60;
    while (*flag < target) {
        DCMF_Messager_advance();
        if (DCMF_Timer() > end)
            FAIL("timeout waiting for a collective (%d of %d done)", *flag, target);
    }
}

#endif
