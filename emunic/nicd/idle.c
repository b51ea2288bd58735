/* The daemon's one blocking point: a read on its doorbell eventfd through
 * io_uring, with a timeout, so a later timed network event can share the
 * same wait. Falls back to poll(2) if io_uring is refused (seccomp, sysctl),
 * saying so once. */
#include "nic.h"

#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct emu_idle {
    int efd;
    int uring_ok;
    int armed;
    uint64_t buf;
    struct io_uring ring;
};

struct emu_idle *idle_open(int efd)
{
    struct emu_idle *id = calloc(1, sizeof *id);
    if (!id)
        return NULL;
    id->efd = efd;
    int rc = io_uring_queue_init(4, &id->ring, 0);
    id->uring_ok = rc == 0;
    if (!id->uring_ok && efd >= 0)
        fprintf(stderr, "emunic-nicd: io_uring unavailable (%s); idling with poll(2)\n", strerror(-rc));
    return id;
}

void idle_close(struct emu_idle *id)
{
    if (id->uring_ok)
        io_uring_queue_exit(&id->ring);
    free(id);
}

static void wait_poll(struct emu_idle *id, int64_t timeout_ns)
{
    struct pollfd p = {.fd = id->efd, .events = POLLIN};
    int ms = (int)(timeout_ns / 1000000);
    if (poll(&p, id->efd >= 0 ? 1 : 0, ms ? ms : 1) > 0) {
        ssize_t rc = read(id->efd, &id->buf, sizeof id->buf);
        (void)rc;
    }
}

void idle_wait(struct emu_idle *id, int64_t timeout_ns)
{
    if (!id->uring_ok || id->efd < 0) {
        wait_poll(id, timeout_ns);
        return;
    }
    if (!id->armed) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&id->ring);
        if (!sqe) {
            wait_poll(id, timeout_ns);
            return;
        }
        io_uring_prep_read(sqe, id->efd, &id->buf, sizeof id->buf, 0);
        io_uring_sqe_set_data64(sqe, 1);
        io_uring_submit(&id->ring);
        id->armed = 1;
    }
    struct __kernel_timespec ts = {
        .tv_sec = timeout_ns / 1000000000,
        .tv_nsec = timeout_ns % 1000000000,
    };
    struct io_uring_cqe *cqe;
    if (io_uring_wait_cqe_timeout(&id->ring, &cqe, &ts) == 0) {
        id->armed = 0; /* the read completed (or failed): re-arm next time */
        io_uring_cqe_seen(&id->ring, cqe);
    }
}
