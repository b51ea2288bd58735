#include "io.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "launcher.h"
#include "msg.h"

int io_watch(int epfd, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = {.events = events, .data.u64 = tag};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int io_modify(int epfd, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = {.events = events, .data.u64 = tag};
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

void io_unwatch(int epfd, int fd)
{
    (void)epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

void io_arm(int tfd, int64_t ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = ns / 1000000000;
    its.it_value.tv_nsec = ns % 1000000000;
    (void)timerfd_settime(tfd, 0, &its, NULL);
}

static int timer_new(int epfd, enum io_tag tag)
{
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd >= 0 && io_watch(epfd, fd, EPOLLIN, io_tag(tag, 0)) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int io_setup(struct launcher *L)
{
    L->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (L->epfd < 0) {
        msg("epoll: %s", strerror(errno));
        return -1;
    }
    L->sigfd = signalfd(-1, &L->sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    if (L->sigfd < 0 ||
        io_watch(L->epfd, L->sigfd, EPOLLIN, io_tag(TAG_SIGNAL, 0)) < 0) {
        msg("signalfd: %s", strerror(errno));
        return -1;
    }
    L->tfd_timeout = timer_new(L->epfd, TAG_TIMEOUT);
    L->tfd_grace = timer_new(L->epfd, TAG_GRACE);
    L->tfd_tick = timer_new(L->epfd, TAG_TICK);
    if (L->tfd_timeout < 0 || L->tfd_grace < 0 || L->tfd_tick < 0) {
        msg("timerfd: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void io_close(struct launcher *L)
{
    int *fds[] = {&L->tfd_timeout, &L->tfd_grace, &L->tfd_tick, &L->sigfd,
                  &L->epfd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

static bool timer_fired(int tfd)
{
    uint64_t n;
    return read(tfd, &n, sizeof n) == (ssize_t)sizeof n;
}

static void on_signals(struct launcher *L)
{
    struct signalfd_siginfo si[16];
    ssize_t n;
    while ((n = read(L->sigfd, si, sizeof si)) > 0)
        for (size_t i = 0; i < (size_t)n / sizeof si[0]; i++)
            if (si[i].ssi_signo == SIGCHLD)
                sv_reap(L);
            else
                sv_signal(L, (int)si[i].ssi_signo,
                          si[i].ssi_code == SI_QUEUE && si[i].ssi_int == ISOLATE_RELAYED);
}

static void dispatch(struct launcher *L, const struct epoll_event *ev)
{
    uint32_t idx = (uint32_t)ev->data.u64;
    switch ((enum io_tag)(ev->data.u64 >> 32)) {
    case TAG_SIGNAL:
        on_signals(L);
        break;
    case TAG_TIMEOUT:
        if (timer_fired(L->tfd_timeout))
            sv_timeout(L);
        break;
    case TAG_GRACE:
        if (timer_fired(L->tfd_grace))
            td_grace_expired(L);
        break;
    case TAG_TICK:
        if (timer_fired(L->tfd_tick))
            sv_tick(L);
        break;
    case TAG_STDIN:
        fwd_pump(L->fwd, true);
        break;
    case TAG_FWD:
        fwd_pump(L->fwd, false);
        break;
    case TAG_STREAM:
        relay_read(&L->relay, idx);
        break;
    case TAG_PMI:
        if (L->pmi)
            pmi_event(L->pmi, idx, ev->events);
        break;
    case TAG_PMI_LISTEN:
        if (L->pmi)
            pmi_accept(L->pmi);
        break;
    case TAG_PMI_PEND:
        if (L->pmi)
            pmi_pending(L->pmi, idx);
        break;
    case TAG_REPORT:
        ctl_on_report(L);
        break;
    }
}

void io_loop(struct launcher *L)
{
    struct epoll_event ev[64];
    while (L->procs.alive > 0 && !L->gave_up) {
        int n = epoll_wait(L->epfd, ev, 64, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            msg("epoll_wait: %s", strerror(errno));
            td_begin(L, -1);
            break;
        }
        for (int i = 0; i < n; i++)
            dispatch(L, &ev[i]);
    }
}
