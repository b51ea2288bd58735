/* One part file of a --trace timeline: trace-event lines that a rank or a
 * NIC daemon appends to <netcfg.trace_dir>/<name>.part, and that the
 * launcher merges at the end. Written through a shared mapping, so what a
 * process wrote survives its being killed. A full disk loses the trace,
 * never the job. Not thread-safe: callers that need it lock around it. */
#ifndef EMUNIC_TRACEBUF_H
#define EMUNIC_TRACEBUF_H

#include <stddef.h>
#include <stdint.h>

#define EMU_TRACEBUF_SIZE (64 * 1024) /* a mapped chunk; a multiple of the page size */
#define EMU_TRACEBUF_ROOM 1024        /* the longest event, with margin */

struct emu_tracebuf {
    int fd;           /* -1: closed */
    uint64_t base;    /* file offset of the mapped chunk */
    size_t n;         /* bytes written into it */
    char *buf;        /* the chunk; NULL: not recording (closed, or the disk is full) */
    int64_t start_ns; /* time 0 of the timeline (the job's start) */
};

#define EMU_TRACEBUF_INIT {.fd = -1}

/* Open (append) path; returns 0 or -errno (nothing allocated then). */
int emu_tracebuf_open(struct emu_tracebuf *t, const char *path, int64_t start_ns);
/* Append one formatted event (moving to the next chunk when this one is
 * nearly full). */
void emu_tracebuf_emit(struct emu_tracebuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cut the file to what was written and close it. */
void emu_tracebuf_close(struct emu_tracebuf *t);
/* Microseconds of the timeline at CLOCK_MONOTONIC time ns. */
static inline double emu_tracebuf_us(const struct emu_tracebuf *t, int64_t ns)
{
    return (double)(ns - t->start_ns) / 1000.0;
}

#endif
