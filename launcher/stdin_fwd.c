#include "stdin_fwd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "io.h"

void fwd_init(struct stdin_fwd *f, int epfd)
{
    f->epfd = epfd;
    f->in = -1;
    f->out = -1;
    f->in_pollable = f->in_watched = f->out_watched = false;
    f->head = f->tail = 0;
}

int fwd_pipe(struct stdin_fwd *f)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    f->out = p[1];
    return p[0];
}

static void watch_in(struct stdin_fwd *f, bool on)
{
    if (!f->in_pollable || f->in < 0 || on == f->in_watched)
        return;
    io_modify(f->epfd, f->in, on ? EPOLLIN : 0, io_tag(TAG_STDIN, 0));
    f->in_watched = on;
}

static void watch_out(struct stdin_fwd *f, bool on)
{
    if (f->out < 0 || on == f->out_watched)
        return;
    io_modify(f->epfd, f->out, on ? EPOLLOUT : 0, io_tag(TAG_FWD, 0));
    f->out_watched = on;
}

void fwd_start(struct stdin_fwd *f)
{
    if (f->out < 0)
        return;
    f->in = STDIN_FILENO;
    /* epoll refuses regular files and /dev/null (EPERM); those never
     * block, so they are simply read whenever there is room. */
    f->in_pollable = io_watch(f->epfd, f->in, EPOLLIN, io_tag(TAG_STDIN, 0)) == 0;
    f->in_watched = f->in_pollable;
    if (io_watch(f->epfd, f->out, 0, io_tag(TAG_FWD, 0)) < 0) {
        fwd_stop(f);
        return;
    }
    fwd_pump(f, !f->in_pollable);
}

static void stop_input(struct stdin_fwd *f)
{
    watch_in(f, false);
    if (f->in_pollable && f->in >= 0)
        io_unwatch(f->epfd, f->in);
    f->in = -1;
}

void fwd_stop(struct stdin_fwd *f)
{
    stop_input(f);
    if (f->out >= 0) {
        io_unwatch(f->epfd, f->out);
        close(f->out);
        f->out = -1;
    }
    f->out_watched = false;
    f->head = f->tail = 0;
}

void fwd_pump(struct stdin_fwd *f, bool stdin_ready)
{
    if (!f->in_pollable) /* a file or /dev/null never blocks */
        stdin_ready = true;
    while (f->out >= 0) {
        while (f->head < f->tail) {
            ssize_t n = write(f->out, f->buf + f->head, f->tail - f->head);
            if (n > 0) {
                f->head += (size_t)n;
            } else if (n < 0 && errno == EAGAIN) {
                watch_in(f, false); /* rank 0 is not reading: hold input */
                watch_out(f, true);
                return;
            } else if (!(n < 0 && errno == EINTR)) {
                fwd_stop(f); /* EPIPE: rank 0 closed its stdin or died */
                return;
            }
        }
        f->head = f->tail = 0;
        watch_out(f, false);
        if (f->in < 0) { /* input ended and all of it went out */
            io_unwatch(f->epfd, f->out);
            close(f->out);
            f->out = -1;
            return;
        }
        if (!stdin_ready) {
            watch_in(f, true);
            return;
        }
        ssize_t n = read(f->in, f->buf, sizeof f->buf);
        if (n > 0) {
            f->tail = (size_t)n;
            stdin_ready = !f->in_pollable;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            stdin_ready = false;
        } else {
            stop_input(f); /* EOF, or EIO when we run in the background */
        }
    }
}
