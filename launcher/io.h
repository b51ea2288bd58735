/* The launcher's single event loop: epoll over the rank pipes, stdin, a
 * signalfd and timerfds. One thread, no signal handlers, so every
 * reaction (reap, relay, teardown) runs in one well-defined order. */
#ifndef EMUNIC_RUN_IO_H
#define EMUNIC_RUN_IO_H

#include <stdint.h>

struct launcher;

enum io_tag {
    TAG_SIGNAL = 1,
    TAG_TIMEOUT,   /* --timeout */
    TAG_GRACE,     /* SIGTERM -> SIGKILL escalation */
    TAG_TICK,      /* polling the daemons' ready flags during start-up */
    TAG_STDIN,     /* the launcher's stdin */
    TAG_FWD,       /* the pipe into rank 0's stdin */
    TAG_STREAM,    /* a relayed stdout/stderr pipe; low 32 bits: index */
    TAG_PMI,       /* a rank's PMI connection; low 32 bits: rank */
    TAG_PMI_LISTEN,/* --pmi-port: the listening socket */
    TAG_PMI_PEND,  /* --pmi-port: a connection before its initack */
    TAG_REPORT,    /* a daemon names a rank that broke its queues (ctl.c) */
};

static inline uint64_t io_tag(enum io_tag t, uint32_t idx)
{
    return ((uint64_t)t << 32) | idx;
}

/* epoll_ctl wrappers. io_modify with events 0 keeps the fd registered
 * but quiet. Return 0 or -errno. */
int io_watch(int epfd, int fd, uint32_t events, uint64_t tag);
int io_modify(int epfd, int fd, uint32_t events, uint64_t tag);
void io_unwatch(int epfd, int fd);

/* Arm a timerfd to fire once after ns (0 disarms). */
void io_arm(int tfd, int64_t ns);

/* Create epoll, signalfd and timers. The handled signals must already be
 * blocked (see signals_take). Returns 0, or -1 after a message. */
int io_setup(struct launcher *L);
void io_close(struct launcher *L);

/* Dispatch events until every child is reaped (or teardown gives up). */
void io_loop(struct launcher *L);

#endif
