/* Shared part of the DCMF benchmarks (bench/dcmf_*.c): start-up, a barrier
 * over DCMF_Control, small tagged messages over DCMF_Send to swap memory
 * regions and settings, buffers, and the raw core baselines' set-up. The
 * DCMF side uses only <dcmf.h>; the baselines (db_raw_*) and the optional
 * heap buffers use the core API, <emunic/emunic.h>.
 *
 * Every rank registers the helper's protocols first (db_init), then the
 * benchmark's own, in the same order: DCMF knows a protocol by its number. */
#ifndef EMUNIC_DCMF_BENCH_H
#define EMUNIC_DCMF_BENCH_H

#include <dcmf.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern size_t db_me, db_n; /* this rank, ranks */

#define DB_CHECK(cond, ...)                                                                  \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "bench rank %zu %s:%d: %s: ", db_me, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* Advance until cond holds (cond reads state the callbacks change). A
 * DCMF program spins on DCMF_Messager_advance (BG/P gave each rank its own
 * core and the DMA engine needed none); with --poll yield the benchmarks
 * also give the CPU away after an advance that found nothing, which lets
 * the NIC daemons run on a host with fewer cores than processes. */
extern int db_poll_yield;
#define DB_UNTIL(cond)                                                                       \
    do {                                                                                     \
        while (!(cond))                                                                      \
            if (DCMF_Messager_advance() == 0 && db_poll_yield)                               \
                sched_yield();                                                               \
    } while (0)
/* getopt_long returned '?' or ':' (the programs pass opterr = 0 and an
 * optstring starting with ':'): one line naming the option, from rank 0
 * only (or from the program when not under emunic-run), then exit 2. */
void db_bad_option(const char *prog, int c, char **argv);
/* After the options: a stray argument, an unparsable --sizes or a size
 * outside lo..hi (hi a whole number of MiB; with mult > 1 a multiple of
 * mult) is one line and exit 2; else the sizes go to *out, *n. */
void db_finish_args(const char *prog, int argc, char **argv, const char *sizes, uint64_t lo,
                    uint64_t hi, uint64_t mult, uint64_t **out, size_t *n);
/* --poll spin|yield; exits 2 with one line on anything else */
void db_parse_poll(const char *v);

/* DCMF_Messager_initialize and the helper's protocols; exits 2 unless the
 * job has exactly `ranks` ranks. Exactly: the raw baselines take entries
 * straight off the completion queue, where another rank's barrier message
 * must not turn up. */
void db_init(const char *prog, size_t ranks);
void db_fini(void);
void db_barrier(void);

/* Tagged messages of up to DB_MAIL_MAX bytes; db_mail_recv advances until
 * the message with that tag from that rank has come. */
#define DB_MAIL_MAX 96
void db_mail_send(size_t to, uint32_t tag, const void *p, size_t len);
void db_mail_recv(size_t from, uint32_t tag, void *p, size_t len);

/* Callback that counts into *(volatile unsigned *)clientdata; a failed
 * operation ends the program. */
void db_count_cb(void *clientdata, DCMF_Error_t *error);
static inline DCMF_Callback_t db_counter(volatile unsigned *c)
{
    return (DCMF_Callback_t){db_count_cb, (void *)c};
}
#define DB_NO_CALLBACK ((DCMF_Callback_t){NULL, NULL})

/* Page-aligned, every page touched. heap = 1: from the emunic registered
 * heap (the NIC copies it with one memcpy); 0: malloc'd private memory,
 * what a DCMF program would use (the NIC needs process_vm_* for it). */
void *db_alloc(size_t len, int heap);
void db_free(void *p, int heap);
/* --mem private|heap; exits 2 with one line on anything else */
int db_parse_mem(const char *v);

/* A memory region over [base, base+len), and a swap with peer. */
void db_region(DCMF_Memregion_t *mr, void *base, size_t len);
void db_swap_regions(size_t peer, uint32_t tag, DCMF_Memregion_t *mine, DCMF_Memregion_t *theirs);

DCMF_Consistency db_parse_consistency(const char *v); /* exits 2 on junk */
const char *db_consistency_name(DCMF_Consistency c);

/* ---- raw core baselines ---- */

struct db_raw_target {
    uint64_t addr;
    uint32_t key;
    uint32_t pad_;
};
/* Expose [base, base+len) to the core directly and tell peer where. */
void db_raw_offer(size_t peer, uint32_t tag, void *base, size_t len);
void db_raw_learn(size_t from, uint32_t tag, struct db_raw_target *t);
/* Unexpose everything db_raw_offer exposed (after a barrier: peers may
 * still be using it until then). */
void db_raw_withdraw(void);
uint64_t db_raw_cookie(void);
/* Post-and-wait helpers; exit on failure. */
void db_raw_write_rtt(uint32_t dst, const struct db_raw_target *t, uint64_t off, const void *src, size_t len);
void db_raw_read_rtt(uint32_t dst, const struct db_raw_target *t, uint64_t off, void *buf, size_t len);
/* Wait for the EMU_CQ_DONE of n raw operations whose cookies are
 * cookies[0..n) (consecutive, from db_raw_cookie), in whatever order. */
void db_raw_wait_dones(const uint64_t *cookies, long n);
/* A notified write (EMU_F_TARGET_NOTIFY, imm = tag), and the wait for one
 * from `from`: the two halves of a raw ping-pong. Nothing else may be
 * arriving meanwhile (the DCMF side must be quiet). */
void db_raw_notify(uint32_t dst, const struct db_raw_target *t, uint64_t off, const void *src, size_t len,
                   uint64_t tag);
void db_raw_wait_notify(uint32_t from, uint64_t tag);

/* "2x1": nodes x ranks per node, for the CSVs. */
const char *db_layout(void);
/* Rank 0 of this node's and the peer's relation: 1 when on one node. */
int db_same_node(size_t a, size_t b);

#endif
