/* State shared by the rank-side library's files (not installed). */
#ifndef EMUNIC_CLIENT_H
#define EMUNIC_CLIENT_H

#include <pthread.h>

#include "emunic/emunic.h"
#include "emunic/heap.h"
#include "emunic/job.h"

#define EMU_AM_HANDLERS 256

struct emu_client {
    pthread_mutex_t mu; /* init/finalize, heap, regions */
    int refs;
    struct emu_job job;
    uint32_t rank, size, node, nnodes, local, lsize;
    struct emu_rank_info *me;
    struct emu_waiter *bell; /* where we ring our NIC: our own entry's nic_bell */
    struct emu_ring cmd; /* we produce */
    int doorbell_fd;     /* our node's NIC doorbell, as the launcher gave it */
    int32_t nic_pid;     /* our node's NIC daemon, as the launcher gave it (0: unknown) */
    struct emu_ring cq;  /* we consume, under cq_mu */
    pthread_mutex_t cq_mu;
    /* completions taken off the queue but not yet returned, FIFO */
    struct emu_msg *stash;
    size_t stash_head, stash_n, stash_cap; /* entries: stash[stash_head .. stash_n) */
    struct emu_heap heap;
    char *heap_base;
    int heap_fd;
    struct {
        emunic_am_fn fn;
        void *arg;
    } am[EMU_AM_HANDLERS];
    int64_t poll_ns;
};

extern struct emu_client emu_cl;

/* Push one command, waiting (with progress) while the queue is full. */
int emu_client_post(struct emu_msg *m);
/* Append a synthesized completion (caller holds no lock). */
void emu_client_stash(const struct emu_msg *cqe);
/* Whether the NIC or job is gone (checked on slow paths only). */
int emu_client_dead(void);

#endif
