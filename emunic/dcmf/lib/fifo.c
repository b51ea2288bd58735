/* The DMA injection FIFO. Each posted Put, Get or Send holds a slot
 * descriptor until the NIC acknowledges it, which may be after the
 * client's last callback (a one-packet payload is free at once, but the
 * NIC has still to read its descriptor); so the slot, not the client's
 * request, is what the NIC's completions name. */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "dcmf_lib.h"

#define DESC_MAGIC 0x5107d35cu

struct desc {
    uint32_t magic; /* first, like a request's, so cookies can be told apart */
    uint8_t pending; /* EMU_DONE_* still expected from the NIC */
    struct dcmfl_req *r; /* NULL once the client's callbacks have all run */
    struct desc *next_free;
    struct desc *next_all; /* every descriptor ever made, for finalize */
};

static struct desc *free_list, *all_list;

uint64_t dcmfl_fifo_take(struct dcmfl_req *r)
{
    while (dcmfl.fifo_used >= dcmfl.fifo_depth && dcmfl.dispatch_depth == 0) {
        dcmfl.fifo_stalls++;
        if (dcmfl_advance_locked() == 0)
            sched_yield();
    }
    struct desc *d = free_list;
    if (d)
        free_list = d->next_free;
    else if ((d = malloc(sizeof *d)) != NULL) {
        d->next_all = all_list;
        all_list = d;
    } else {
        return 0;
    }
    d->magic = DESC_MAGIC;
    d->pending = EMU_DONE_LOCAL | EMU_DONE_REMOTE;
    d->r = r;
    dcmfl.fifo_used++;
    return (uint64_t)(uintptr_t)d;
}

static void give(struct desc *d)
{
    d->magic = 0;
    d->next_free = free_list;
    free_list = d;
    dcmfl.fifo_used--;
}

void dcmfl_fifo_undo(struct dcmfl_req *r, uint64_t cookie)
{
    dcmfl_busy_del(r);
    if (cookie)
        give((struct desc *)(uintptr_t)cookie);
}

static void call(DCMF_Callback_t cb, int status)
{
    if (!cb.function)
        return;
    if (status == EMU_OK) {
        cb.function(cb.clientdata, NULL);
    } else {
        DCMF_Error_t e = {status == EMU_E_DEAD ? DCMF_SHUTDOWN : DCMF_ERROR};
        cb.function(cb.clientdata, &e);
    }
}

/* Print the first REPORT_ALL failures, then the 100th, 1000th, ...: a
 * client that ignores statuses and retries (OSPRI A1's get benchmark)
 * would otherwise write a line per failure, millions of them. */
enum { REPORT_ALL = 10 };

static int worth_a_line(unsigned long n)
{
    if (n <= REPORT_ALL)
        return 1;
    while (n % 10 == 0)
        n /= 10;
    return n == 1;
}

static void report(const struct dcmfl_req *r, int status)
{
    static const char *const what[] = {"?", "put", "get", "send", "receive"};
    static _Atomic unsigned long failures;
    unsigned long n = atomic_fetch_add(&failures, 1) + 1;
    if (worth_a_line(n)) {
        char more[96] = "";
        if (n == REPORT_ALL)
            snprintf(more, sizeof more, " (later failures: only the 100th, 1000th, ... are printed)");
        else if (n > REPORT_ALL)
            snprintf(more, sizeof more, " (failure %lu of this rank)", n);
        fprintf(stderr, "emunic dcmf: rank %u: %s to rank %u (%llu bytes) failed: %s%s\n", dcmfl.rank,
                what[r->kind <= DCMFL_R_RECV ? r->kind : 0], r->rank, (unsigned long long)r->bytes,
                emu_status_str((unsigned)status), more);
    }
    if (status == EMU_E_DEAD && dcmfl.on_error) {
        DCMF_Error_t e = {DCMF_SHUTDOWN};
        dcmfl.on_error(&e, r->rank);
    }
}

/* A failure no callback is left to hear: the remote completion of a short
 * send whose cb_done already ran (the collectives' messages are such
 * sends). Said on stderr and to the DCMF_Error_register handler, so a
 * collective that waits for a message the network lost (--unreliable) is
 * not a silent hang. */
static void late_failure(const struct emu_msg *c)
{
    fprintf(stderr, "emunic dcmf: rank %u: a message to rank %u failed after its local completion: %s\n",
            dcmfl.rank, c->dst, emu_status_str((unsigned)c->status));
    if (dcmfl.on_error) {
        DCMF_Error_t e = {c->status == EMU_E_DEAD ? DCMF_SHUTDOWN : DCMF_ERROR};
        dcmfl.on_error(&e, c->dst);
    }
}

int dcmfl_fifo_done(const struct emu_msg *c)
{
    struct desc *d = (struct desc *)(uintptr_t)c->cookie;
    if (d->magic != DESC_MAGIC)
        return 0;
    unsigned flags = c->flags & d->pending;
    if (!flags) /* whatever it carries, a completion is one of ours */
        flags = d->pending;
    d->pending &= (uint8_t)~flags;
    struct dcmfl_req *r = d->r;
    DCMF_Callback_t done = {0}, ack = {0};
    int reported = 0;
    if (r) {
        unsigned mine = flags & r->pending;
        if (c->status != EMU_OK && mine)
            report(r, c->status), reported = 1;
        if (mine & EMU_DONE_LOCAL)
            done = r->done;
        if (mine & EMU_DONE_REMOTE)
            ack = r->ack;
        r->pending &= (uint8_t)~mine;
        if (!r->pending) { /* the client may reuse it from its callback on */
            dcmfl_busy_del(r);
            d->r = NULL;
        }
    }
    if (c->status != EMU_OK && !reported)
        late_failure(c);
    if (!d->pending)
        give(d);
    call(done, c->status);
    call(ack, c->status);
    return 1;
}

void dcmfl_fifo_fini(void)
{
    /* operations still in flight are abandoned, their slots with them */
    while (all_list) {
        struct desc *d = all_list;
        all_list = d->next_all;
        free(d);
    }
    free_list = NULL;
}
