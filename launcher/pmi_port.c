/* --pmi-port: the connect-back way into the PMI server. Ranks get
 * PMI_PORT=127.0.0.1:<port> and PMI_ID=<rank>, connect, and say
 * "cmd=initack pmiid=<rank>"; we answer initack and the three sets, and
 * from then on the socket is that rank's connection. Loopback only, and
 * each id is taken once. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io.h"
#include "launcher.h"
#include "msg.h"
#include "pmi_int.h"

const char *pmi_port(const struct pmi *p)
{
    return p && p->lfd >= 0 ? p->port : NULL;
}

int pmi_port_open(struct pmi *p)
{
    p->pend = calloc(p->n, sizeof *p->pend);
    if (!p->pend) {
        msg("out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < p->n; i++)
        p->pend[i].fd = -1;
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(p->lfd, p->n < 128 ? 128 : (int)p->n) < 0 ||
        getsockname(p->lfd, (struct sockaddr *)&sa, &len) < 0 ||
        io_watch(p->L->epfd, p->lfd, EPOLLIN, io_tag(TAG_PMI_LISTEN, 0)) < 0) {
        msg("PMI port: %s", strerror(errno));
        return -1;
    }
    snprintf(p->port, sizeof p->port, "127.0.0.1:%u", ntohs(sa.sin_port));
    return 0;
}

static void pend_close(struct pmi *p, struct pmi_pend *q)
{
    if (q->fd >= 0) {
        io_unwatch(p->L->epfd, q->fd);
        close(q->fd);
    }
    q->fd = -1;
    q->len = 0;
}

void pmi_port_close(struct pmi *p)
{
    for (uint32_t i = 0; p->pend && i < p->n; i++)
        pend_close(p, &p->pend[i]);
    free(p->pend);
    p->pend = NULL;
    if (p->lfd >= 0) {
        io_unwatch(p->L->epfd, p->lfd);
        close(p->lfd);
        p->lfd = -1;
    }
}

void pmi_accept(struct pmi *p)
{
    for (;;) {
        int fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; /* EAGAIN, or a connection that went away meanwhile */
        uint32_t i = 0;
        while (i < p->n && p->pend[i].fd >= 0)
            i++;
        /* more half-open connections than ranks: not one of ours */
        if (i == p->n ||
            io_watch(p->L->epfd, fd, EPOLLIN, io_tag(TAG_PMI_PEND, i)) < 0) {
            close(fd);
            continue;
        }
        p->pend[i].fd = fd;
        p->pend[i].len = 0;
    }
}

/* The first line was "cmd=initack pmiid=<id>": hand the socket to rank id
 * (with whatever followed the line), or refuse it. */
static void hand_over(struct pmi *p, struct pmi_pend *q, const char *line,
                      const char *rest, size_t nrest)
{
    unsigned id;
    char tail;
    if (sscanf(line, "cmd=initack pmiid=%u%c", &id, &tail) != 1 ||
        id >= p->n || p->c[id].fd >= 0 || p->c[id].gone) {
        msg("PMI port: refused a connection that said '%.64s'", line);
        pend_close(p, q);
        return;
    }
    struct pmi_conn *c = &p->c[id];
    if (io_modify(p->L->epfd, q->fd, EPOLLIN, io_tag(TAG_PMI, id)) < 0) {
        pend_close(p, q);
        return;
    }
    c->fd = q->fd;
    q->fd = -1;
    q->len = 0;
    pmi_reply(p, c, "cmd=initack");
    pmi_reply(p, c, "cmd=set size=%u", p->n);
    pmi_reply(p, c, "cmd=set rank=%u", id);
    pmi_reply(p, c, "cmd=set debug=0");
    if (nrest)
        pmi_take(p, c, rest, nrest);
}

void pmi_pending(struct pmi *p, uint32_t slot)
{
    struct pmi_pend *q = &p->pend[slot];
    if (q->fd < 0)
        return;
    ssize_t r = recv(q->fd, q->buf + q->len, sizeof q->buf - q->len,
                     MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (r <= 0) {
        pend_close(p, q);
        return;
    }
    q->len += (size_t)r;
    char *nl = memchr(q->buf, '\n', q->len);
    if (!nl) {
        if (q->len == sizeof q->buf) /* no initack fits in this: refuse */
            pend_close(p, q);
        return;
    }
    *nl = '\0';
    char line[PEND_LINE];
    memcpy(line, q->buf, (size_t)(nl - q->buf) + 1);
    char rest[PEND_LINE];
    size_t nrest = q->len - (size_t)(nl - q->buf) - 1;
    memcpy(rest, nl + 1, nrest);
    hand_over(p, q, line, rest, nrest);
}
