/* PMI-1 server, the connection side: socketpairs, non-blocking reads
 * split into lines, buffered replies, and what a rank's end means. The
 * commands are in pmi_cmd.c. */
#include "pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
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

int pmi_init(struct launcher *L)
{
    L->pmi = NULL;
    if (L->o->no_pmi)
        return 0;
    struct pmi *p = calloc(1, sizeof *p);
    if (p)
        p->c = calloc(L->nranks, sizeof *p->c);
    if (!p || !p->c) {
        free(p);
        msg("out of memory");
        return -1;
    }
    p->L = L;
    p->n = L->nranks;
    for (uint32_t r = 0; r < p->n; r++) {
        p->c[r].fd = p->c[r].child_fd = -1;
        p->c[r].rank = r;
    }
    snprintf(p->kvsname, sizeof p->kvsname, "emunic_kvs_%s", L->jobid);
    p->lfd = -1;
    L->pmi = p; /* before the listener, so pmi_free cleans up after it */
    return L->o->pmi_port ? pmi_port_open(p) : 0;
}

void pmi_conn_close(struct pmi *p, struct pmi_conn *c)
{
    if (c->fd >= 0) {
        io_unwatch(p->L->epfd, c->fd);
        close(c->fd);
        c->fd = -1;
    }
    free(c->out);
    c->out = NULL;
    c->out_len = 0;
}

void pmi_free(struct launcher *L)
{
    struct pmi *p = L->pmi;
    if (!p)
        return;
    for (uint32_t r = 0; r < p->n; r++) {
        pmi_conn_close(p, &p->c[r]);
        if (p->c[r].child_fd >= 0)
            close(p->c[r].child_fd);
    }
    pmi_port_close(p);
    pmi_kvs_free(&p->kvs);
    free(p->c);
    free(p);
    L->pmi = NULL;
}

int pmi_pair(struct pmi *p, uint32_t rank)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    p->c[rank].fd = sv[0];
    p->c[rank].child_fd = sv[1];
    return sv[1];
}

void pmi_attach(struct pmi *p, uint32_t rank, int forked)
{
    struct pmi_conn *c = &p->c[rank];
    close(c->child_fd);
    c->child_fd = -1;
    if (!forked || io_watch(p->L->epfd, c->fd, EPOLLIN,
                            io_tag(TAG_PMI, rank)) < 0) {
        close(c->fd);
        c->fd = -1;
    }
}

/* Flush what we can; EPOLLOUT only while something is left. */
static void flush(struct pmi *p, struct pmi_conn *c)
{
    size_t off = 0;
    while (off < c->out_len) {
        ssize_t w = send(c->fd, c->out + off, c->out_len - off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (w < 0) { /* the rank is gone; its exit tells the rest */
            pmi_conn_close(p, c);
            return;
        }
        off += (size_t)w;
    }
    memmove(c->out, c->out + off, c->out_len - off);
    c->out_len -= off;
    io_modify(p->L->epfd, c->fd, EPOLLIN | (c->out_len ? EPOLLOUT : 0),
              io_tag(TAG_PMI, c->rank));
}

void pmi_reply(struct pmi *p, struct pmi_conn *c, const char *fmt, ...)
{
    if (c->fd < 0)
        return;
    char line[LINE_MAX_B + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (c->out_len + (size_t)n > OUT_MAX) {
        msg("PMI: rank %u does not read its replies; closing its "
            "connection", c->rank);
        pmi_conn_close(p, c);
        return;
    }
    if (!c->out && !(c->out = malloc(OUT_MAX))) {
        pmi_conn_close(p, c);
        return;
    }
    memcpy(c->out + c->out_len, line, (size_t)n);
    c->out_len += (size_t)n;
    flush(p, c);
}

/* Split what arrived into lines; a partial line waits for the next read,
 * an over-long one is answered once and skipped up to its newline. */
void pmi_take(struct pmi *p, struct pmi_conn *c, const char *b, size_t n)
{
    while (n > 0 && c->fd >= 0) {
        const char *nl = memchr(b, '\n', n);
        size_t len = nl ? (size_t)(nl - b) : n;
        if (c->discarding) {
            c->discarding = !nl;
        } else if (c->in_len + len + (nl ? 1 : 0) > LINE_MAX_B ||
                   (!nl && c->in_len + len == LINE_MAX_B)) {
            pmi_reply(p, c, "cmd=error rc=-1 msg=line_longer_than_1024_bytes");
            c->in_len = 0;
            c->discarding = !nl;
        } else {
            memcpy(c->in + c->in_len, b, len);
            c->in_len += len;
            if (nl) {
                c->in[c->in_len] = '\0';
                if (c->in_len > 0 && c->in[c->in_len - 1] == '\r')
                    c->in[c->in_len - 1] = '\0';
                c->in_len = 0;
                pmi_command(p, c, c->in);
            }
        }
        if (!nl)
            break;
        n -= len + 1;
        b += len + 1;
    }
}

/* One read; returns false at EOF, error or nothing left. */
static bool read_once(struct pmi *p, struct pmi_conn *c)
{
    char buf[4096];
    ssize_t r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (r < 0 && errno == EINTR)
        return true;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return false;
    if (r <= 0) {
        pmi_conn_close(p, c);
        return false;
    }
    pmi_take(p, c, buf, (size_t)r);
    return c->fd >= 0;
}

void pmi_event(struct pmi *p, uint32_t rank, uint32_t events)
{
    struct pmi_conn *c = &p->c[rank];
    if (c->fd >= 0 && (events & EPOLLOUT))
        flush(p, c);
    /* one read per wake-up: a chatty rank cannot starve the others */
    if (c->fd >= 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        read_once(p, c);
}

void pmi_drain(struct pmi *p, uint32_t rank)
{
    struct pmi_conn *c = &p->c[rank];
    while (c->fd >= 0 && read_once(p, c))
        ;
}

void pmi_gone(struct pmi *p, uint32_t rank)
{
    struct pmi_conn *c = &p->c[rank];
    pmi_conn_close(p, c);
    if (!c->gone) {
        c->gone = true;
        p->gone++;
    }
    pmi_barrier_check(p);
}
