/* A --trace part file (see emunic/tracebuf.h).
 *
 * Events are written straight into a shared mapping of the file, a chunk
 * of EMU_TRACEBUF_SIZE bytes at a time, so a process killed by a signal
 * (a kill fault, a crash) leaves every event it wrote in the page cache:
 * there is no buffer to flush. Each chunk's blocks are reserved with
 * posix_fallocate before it is mapped, so a full file system refuses the
 * chunk (the trace stops) instead of raising SIGBUS on a store. A chunk's
 * unused tail is newlines, which the merger skips; close cuts the file to
 * what was written. */
#include "emunic/tracebuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Map the chunk at t->base; 0 or -errno (tracing stops then). */
static int map_chunk(struct emu_tracebuf *t)
{
    int rc = posix_fallocate(t->fd, (off_t)t->base, EMU_TRACEBUF_SIZE);
    if (rc)
        return -rc;
    void *p = mmap(NULL, EMU_TRACEBUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, (off_t)t->base);
    if (p == MAP_FAILED)
        return -errno;
    t->buf = p;
    t->n = 0;
    return 0;
}

static void unmap_chunk(struct emu_tracebuf *t, char fill)
{
    if (!t->buf)
        return;
    memset(t->buf + t->n, fill, EMU_TRACEBUF_SIZE - t->n);
    munmap(t->buf, EMU_TRACEBUF_SIZE);
    t->buf = NULL;
}

int emu_tracebuf_open(struct emu_tracebuf *t, const char *path, int64_t start_ns)
{
    t->buf = NULL;
    t->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (t->fd < 0)
        return -errno;
    /* appending to a part that exists: map the chunk its end lies in and
     * go on writing there */
    struct stat st;
    int rc = fstat(t->fd, &st) ? -errno : 0;
    uint64_t size = rc ? 0 : (uint64_t)st.st_size;
    t->base = size / EMU_TRACEBUF_SIZE * EMU_TRACEBUF_SIZE;
    if (!rc && (rc = map_chunk(t)) == 0)
        t->n = (size_t)(size - t->base);
    if (rc) {
        close(t->fd);
        t->fd = -1;
        return rc;
    }
    t->start_ns = start_ns;
    return 0;
}

void emu_tracebuf_emit(struct emu_tracebuf *t, const char *fmt, ...)
{
    if (!t->buf)
        return;
    if (EMU_TRACEBUF_SIZE - t->n < EMU_TRACEBUF_ROOM) {
        unmap_chunk(t, '\n');
        t->base += EMU_TRACEBUF_SIZE;
        if (map_chunk(t) != 0)
            return; /* a full disk loses the trace, never the job */
    }
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
    uint64_t end = t->base + (t->buf ? t->n : 0);
    unmap_chunk(t, 0);
    if (ftruncate(t->fd, (off_t)end) != 0) {
        /* the newline-free tail stays; the merger stops at it */
    }
    close(t->fd);
    t->fd = -1;
}
