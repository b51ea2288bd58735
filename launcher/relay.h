/* Output relay: turns each rank's byte stream into whole lines prefixed
 * "[n<node>.r<rank>] " on the launcher's stdout or stderr. Lines from
 * different ranks never interleave mid-line. */
#ifndef EMUNIC_RUN_RELAY_H
#define EMUNIC_RUN_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct relay_stream {
    int fd;          /* read end, -1 once closed */
    int dest;        /* 1 or 2 */
    uint8_t plen;
    char prefix[32];
    char *part;      /* an unfinished line carried to the next read */
    size_t part_len, part_cap;
};

struct relay {
    int epfd;
    struct relay_stream *s;
    uint32_t n, cap;
    char *chunk;     /* read buffer */
    char *out[3];    /* assembly buffers for fd 1 and 2 */
    size_t out_len[3];
    bool dest_gone[3]; /* our own stdout/stderr reader went away */
};

int relay_init(struct relay *r, int epfd, uint32_t cap);
void relay_free(struct relay *r);
/* Take over fd (non-blocking read end) and watch it. Returns the index. */
int relay_add(struct relay *r, int fd, int dest, const char *prefix);
/* One read on readiness. Closes the stream at EOF. */
void relay_read(struct relay *r, uint32_t i);
/* The writer is dead: take what is left in the pipe, end the last line,
 * close. */
void relay_drain(struct relay *r, uint32_t i);

#endif
