/* The daemon's private state and the split of its work across files:
 * engine.c (loop, routing, queues), target.c (target-side execution),
 * xfer.c (moving bytes between processes), idle.c (sleeping in io_uring),
 * modules.c (personality dispatch). */
#ifndef EMUNIC_NICD_NIC_H
#define EMUNIC_NICD_NIC_H

#include <signal.h>
#include <stddef.h>

#include "emunic/job.h"
#include "emunic/module.h"

/* FIFO of messages parked because their queue was full. */
struct mq_node;
struct mq {
    struct mq_node *head, *tail;
    size_t n;
};

struct heap_map {
    char *ptr;      /* our mapping, NULL until first use */
    uint64_t rbase; /* the heap's address inside its rank */
    uint64_t size;
};

/* A long AM payload waiting at the source for the target to accept it. */
struct am_ticket {
    int live;
    uint32_t gen;
    struct emu_msg am; /* the original request (header only) */
};

struct emu_idle; /* idle.c */

struct emu_nic {
    struct emu_job job;
    uint32_t node, first, nlocal, nranks;
    struct emu_nic_counters *ctr;
    struct emu_waiter *doorbell;
    struct emu_ring *cmd;      /* [nlocal] we consume */
    struct emu_ring *cq;       /* [nlocal] we produce */
    struct mq *cq_backlog;     /* [nlocal] */
    struct emu_ring wire_in;   /* we consume */
    struct emu_ring *wire_out; /* [nnodes] we produce */
    struct mq *wire_backlog;   /* [nnodes] */
    size_t backlog_total;
    struct heap_map *heaps;    /* [nranks] */
    struct am_ticket *tickets;
    uint32_t nticket;
    char *bounce;              /* private->private copies */
    int64_t poll_ns;
    struct emu_idle *idle;
    void *mod_state[EMU_MOD_MAX];
    uint64_t *eq_asked;        /* [nlocal] events checked against eqfull */
    volatile sig_atomic_t stop;
};

/* engine.c */
int nic_open(struct emu_nic *nic, const char *jobid, uint32_t node);
void nic_close(struct emu_nic *nic);
int nic_run(struct emu_nic *nic);

/* target.c */
void nic_target(struct emu_nic *nic, struct emu_msg *m);
void nic_accept(struct emu_nic *nic, struct emu_msg *m);
void nic_complete(struct emu_nic *nic, const struct emu_msg *ack);

/* xfer.c */
int xfer_init(struct emu_nic *nic);
void xfer_fini(struct emu_nic *nic);
/* Daemon pointer to [addr, addr+len) of rank's heap, or NULL if the range
 * is not entirely inside it (then process_vm_* is the road). */
char *xfer_heap_ptr(struct emu_nic *nic, uint32_t rank, uint64_t addr, uint64_t len);

/* idle.c */
struct emu_idle *idle_open(int efd);
void idle_close(struct emu_idle *id);
/* Block until the doorbell rings or timeout_ns passes. */
void idle_wait(struct emu_idle *id, int64_t timeout_ns);

/* modules.c */
int modules_init(struct emu_nic *nic);
void modules_fini(struct emu_nic *nic);
void modules_local(struct emu_nic *nic, struct emu_msg *m);
void modules_target(struct emu_nic *nic, struct emu_msg *m);
int modules_progress(struct emu_nic *nic);

#endif
