/* What the runtime's multi-rank test programs share: the rank's identity
 * and the failure report "FAIL rank R file:line what", which ends the job
 * through a non-zero exit. */
#ifndef RTEST_H
#define RTEST_H
#include <stdio.h>
#include <stdlib.h>

static int me; /* the failing rank, for the report */

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "FAIL rank %d %s:%d ", me, __FILE__, __LINE__);        \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
        exit(1);                                                               \
    } while (0)
#define CHECK(c, ...)                                                          \
    do {                                                                       \
        if (!(c))                                                              \
            FAIL(__VA_ARGS__);                                                 \
    } while (0)
#endif
