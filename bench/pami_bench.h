/* Shared part of the PAMI benchmarks (bench/pami_*.c): client and context
 * start-up, a barrier and an all-gather over PAMI_Send_immediate, and the
 * wait loop. The PAMI side uses only <pami.h>; the raw baselines use the
 * core API (<emunic/emunic.h>) on the address space the PAMI client has
 * published, while PAMI is quiet. */
#ifndef EMUNIC_PAMI_BENCH_H
#define EMUNIC_PAMI_BENCH_H

#include <pami.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern size_t pb_me, pb_n;
extern pami_client_t pb_client;
extern pami_context_t pb_ctx[2];

#define PB_CHECK(cond, ...)                                                                  \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "bench task %zu %s:%d: %s: ", pb_me, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* Client and ncontexts (1 or 2) contexts; the harness dispatch on
 * context 0. Exits 2 with one line unless min_tasks <= tasks <= max_tasks. */
void pb_init(const char *prog, size_t ncontexts, size_t min_tasks, size_t max_tasks);
void pb_fini(void);
/* All tasks, over context 0 (no other thread may advance it meanwhile). */
void pb_barrier(void);
/* Up to 64 bytes per task into all[pb_n * len]. */
void pb_allgather(const void *mine, size_t len, void *all);
/* Advance ctx until *c >= want. */
void pb_until(pami_context_t ctx, atomic_long *c, long want);
/* An event function counting into the atomic_long at cookie; a failed
 * operation ends the program. */
void pb_count(pami_context_t ctx, void *cookie, pami_result_t r);
pami_endpoint_t pb_ep(size_t task, size_t offset);
/* getopt '?' or ':' from rank 0 only, then exit 2 */
void pb_bad_option(const char *prog, int c, char **argv);
/* "2x1": emulated nodes x tasks per node */
const char *pb_layout(void);

#endif
