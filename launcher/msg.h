/* One-line diagnostics of emunic-run. Each message goes out in a single
 * write(2) so it never interleaves with rank output relayed on stderr. */
#ifndef EMUNIC_RUN_MSG_H
#define EMUNIC_RUN_MSG_H

#define MSG_FMT __attribute__((format(printf, 1, 2)))

/* "emunic-run: <text>\n" on stderr; control characters from user input
 * are shown as '?' so the message stays on one line. */
void msg(const char *fmt, ...) MSG_FMT;

/* Same, for bad usage: returns the usage exit status 2. */
int msg_usage(const char *fmt, ...) MSG_FMT;

/* Write all of buf to fd, riding out EINTR and a non-blocking fd. Returns
 * 0, or -1 with errno set (EPIPE when the reader is gone). */
int write_all(int fd, const void *buf, unsigned long len);

#endif
