#include "relay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io.h"
#include "msg.h"

#define CHUNK (64u << 10)
/* A "line" longer than this is cut: memory per stream stays bounded even
 * when a rank writes megabytes without a newline. */
#define LINE_MAX_BYTES (64u << 10)
#define OUT_CAP (128u << 10)
/* Bounds a drain so a grandchild that keeps the pipe open and busy cannot
 * stall the launcher. */
#define DRAIN_READS 64

int relay_init(struct relay *r, int epfd, uint32_t cap)
{
    memset(r, 0, sizeof *r);
    r->epfd = epfd;
    r->cap = cap;
    r->s = calloc(cap ? cap : 1, sizeof *r->s);
    r->chunk = malloc(CHUNK);
    r->out[1] = malloc(OUT_CAP);
    r->out[2] = malloc(OUT_CAP);
    if (!r->s || !r->chunk || !r->out[1] || !r->out[2]) {
        relay_free(r);
        return -1;
    }
    return 0;
}

void relay_free(struct relay *r)
{
    for (uint32_t i = 0; r->s && i < r->n; i++) {
        if (r->s[i].fd >= 0)
            close(r->s[i].fd);
        free(r->s[i].part);
    }
    free(r->s);
    free(r->chunk);
    free(r->out[1]);
    free(r->out[2]);
    memset(r, 0, sizeof *r);
}

int relay_add(struct relay *r, int fd, int dest, const char *prefix)
{
    if (r->n == r->cap)
        return -1;
    uint32_t i = r->n++;
    struct relay_stream *s = &r->s[i];
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->dest = dest;
    size_t pl = strlen(prefix);
    if (pl >= sizeof s->prefix)
        pl = sizeof s->prefix - 1;
    memcpy(s->prefix, prefix, pl);
    s->plen = (uint8_t)pl;
    io_watch(r->epfd, fd, EPOLLIN, io_tag(TAG_STREAM, i));
    return (int)i;
}

static void out_flush(struct relay *r, int dest)
{
    if (r->out_len[dest] && !r->dest_gone[dest] &&
        write_all(dest, r->out[dest], r->out_len[dest]) < 0)
        r->dest_gone[dest] = true; /* e.g. "| head": keep running, drop */
    r->out_len[dest] = 0;
}

/* prefix + a + b + '\n' as one line */
static void emit(struct relay *r, struct relay_stream *s, const char *a,
                 size_t alen, const char *b, size_t blen)
{
    int d = s->dest;
    size_t need = s->plen + alen + blen + 1;
    if (r->out_len[d] + need > OUT_CAP)
        out_flush(r, d);
    if (need > OUT_CAP) {
        struct iovec iov[4] = {
            {s->prefix, s->plen}, {(void *)a, alen}, {(void *)b, blen},
            {"\n", 1}};
        size_t left = need;
        int k = 0;
        while (left > 0 && !r->dest_gone[d]) {
            ssize_t n = writev(d, iov + k, 4 - k);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                r->dest_gone[d] = true;
                break;
            }
            left -= (size_t)n;
            while (k < 4 && (size_t)n >= iov[k].iov_len)
                n -= (ssize_t)iov[k++].iov_len;
            if (k < 4) {
                iov[k].iov_base = (char *)iov[k].iov_base + n;
                iov[k].iov_len -= (size_t)n;
            }
        }
        return;
    }
    char *o = r->out[d] + r->out_len[d];
    memcpy(o, s->prefix, s->plen);
    o += s->plen;
    memcpy(o, a, alen);
    o += alen;
    if (blen)
        memcpy(o, b, blen);
    o[blen] = '\n';
    r->out_len[d] += need;
}

static int stash(struct relay_stream *s, const char *p, size_t len)
{
    if (s->part_len + len > s->part_cap) {
        size_t cap = s->part_cap ? s->part_cap : 256;
        while (cap < s->part_len + len)
            cap *= 2;
        char *np = realloc(s->part, cap);
        if (!np)
            return -1;
        s->part = np;
        s->part_cap = cap;
    }
    memcpy(s->part + s->part_len, p, len);
    s->part_len += len;
    return 0;
}

static void consume(struct relay *r, struct relay_stream *s, const char *p,
                    size_t len)
{
    while (len > 0) {
        const char *nl = memchr(p, '\n', len);
        if (nl) {
            size_t l = (size_t)(nl - p);
            emit(r, s, s->part ? s->part : "", s->part_len, p, l);
            s->part_len = 0;
            p += l + 1;
            len -= l + 1;
            continue;
        }
        size_t room = LINE_MAX_BYTES - s->part_len;
        if (len < room && stash(s, p, len) == 0)
            return;
        /* too long (or no memory to carry it): cut the line here */
        size_t take = len < room ? len : room;
        emit(r, s, s->part ? s->part : "", s->part_len, p, take);
        s->part_len = 0;
        p += take;
        len -= take;
    }
}

static void finish(struct relay *r, struct relay_stream *s)
{
    if (s->part_len) /* a last line without newline still gets one */
        emit(r, s, s->part, s->part_len, "", 0);
    s->part_len = 0;
    free(s->part);
    s->part = NULL;
    s->part_cap = 0;
    out_flush(r, s->dest);
    io_unwatch(r->epfd, s->fd);
    close(s->fd);
    s->fd = -1;
}

/* Returns 1 if data was read, 0 if none right now, -1 at EOF/error. */
static int read_once(struct relay *r, struct relay_stream *s)
{
    ssize_t n;
    do
        n = read(s->fd, r->chunk, CHUNK);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        consume(r, s, r->chunk, (size_t)n);
        return 1;
    }
    if (n < 0 && errno == EAGAIN)
        return 0;
    return -1;
}

void relay_read(struct relay *r, uint32_t i)
{
    struct relay_stream *s = &r->s[i];
    if (s->fd < 0)
        return;
    int rc = read_once(r, s);
    if (rc < 0)
        finish(r, s);
    else
        out_flush(r, s->dest);
}

void relay_drain(struct relay *r, uint32_t i)
{
    struct relay_stream *s = &r->s[i];
    if (s->fd < 0)
        return;
    for (int k = 0; k < DRAIN_READS && read_once(r, s) > 0; k++)
        ;
    finish(r, s);
}
