/* The launcher's stdin, forwarded to rank 0 through a pipe. The pipe end
 * is non-blocking and stdin is read only when there is room, so a rank 0
 * that never reads stalls its own input, never the launcher. */
#ifndef EMUNIC_RUN_STDIN_FWD_H
#define EMUNIC_RUN_STDIN_FWD_H

#include <stdbool.h>
#include <stddef.h>

#define FWD_BUF (64u << 10)

struct stdin_fwd {
    int epfd;
    int in;            /* 0 while forwarding, -1 after EOF/stop */
    int out;           /* write end into rank 0, -1 once closed */
    bool in_pollable;  /* epoll works on stdin (not a file or /dev/null) */
    bool in_watched, out_watched;
    size_t head, tail;
    char buf[FWD_BUF];
};

void fwd_init(struct stdin_fwd *f, int epfd);
/* Make the pipe for rank 0; returns its read end (close it after fork),
 * or -1 on failure (rank 0 then reads /dev/null). */
int fwd_pipe(struct stdin_fwd *f);
/* Start forwarding once rank 0 runs. */
void fwd_start(struct stdin_fwd *f);
/* On readiness of stdin or the pipe. */
void fwd_pump(struct stdin_fwd *f, bool stdin_ready);
/* Rank 0 is gone or the job is ending. Leaves fd 0 itself open. */
void fwd_stop(struct stdin_fwd *f);

#endif
