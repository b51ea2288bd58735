/* A --trace part file (see emunic/tracebuf.h). */
#include "emunic/tracebuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int emu_tracebuf_open(struct emu_tracebuf *t, const char *path, int64_t start_ns)
{
    t->buf = malloc(EMU_TRACEBUF_SIZE);
    if (!t->buf)
        return -ENOMEM;
    t->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (t->fd < 0) {
        int e = errno;
        free(t->buf);
        t->buf = NULL;
        return -e;
    }
    t->n = 0;
    t->start_ns = start_ns;
    return 0;
}

void emu_tracebuf_flush(struct emu_tracebuf *t)
{
    size_t off = 0;
    while (t->fd >= 0 && off < t->n) {
        ssize_t w = write(t->fd, t->buf + off, t->n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* a full disk loses the trace, never the job */
        off += (size_t)w;
    }
    t->n = 0;
}

void emu_tracebuf_emit(struct emu_tracebuf *t, const char *fmt, ...)
{
    if (!t->buf)
        return;
    if (EMU_TRACEBUF_SIZE - t->n < EMU_TRACEBUF_ROOM)
        emu_tracebuf_flush(t);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->n, EMU_TRACEBUF_SIZE - t->n, fmt, ap);
    va_end(ap);
    if (k > 0 && (size_t)k < EMU_TRACEBUF_SIZE - t->n)
        t->n += (size_t)k;
}

void emu_tracebuf_close(struct emu_tracebuf *t)
{
    if (t->fd < 0)
        return;
    emu_tracebuf_flush(t);
    close(t->fd);
    t->fd = -1;
    free(t->buf);
    t->buf = NULL;
}
