/* Capturing stderr around one library call, for tests of the "one stderr
 * line per mistake" rule (tests/pami/ptest.h, tests/dcmf/dtest.h). The
 * macros use the including header's FAIL(...), which must call
 * errcap_restore() first so that a failure inside a capture is seen. */
#ifndef EMUNIC_TESTS_ERRCAP_H
#define EMUNIC_TESTS_ERRCAP_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int errcap_fd __attribute__((unused)) = -1; /* the real stderr while captured */
static FILE *errcap_tmp __attribute__((unused));

/* Put the real stderr back (no-op outside a capture). */
static inline void errcap_restore(void)
{
    if (errcap_fd >= 0) {
        fflush(stderr);
        dup2(errcap_fd, 2);
        close(errcap_fd);
        errcap_fd = -1;
    }
}

/* Start capturing; 0, or -1 if stderr cannot be redirected. */
static inline int errcap_begin(void)
{
    fflush(stderr);
    errcap_tmp = tmpfile();
    if (!errcap_tmp)
        return -1;
    errcap_fd = dup(2);
    return errcap_fd < 0 || dup2(fileno(errcap_tmp), 2) < 0 ? -1 : 0;
}

/* Stop capturing; returns the number of lines, the first copied to line. */
static inline int errcap_end(char *line, size_t cap)
{
    errcap_restore();
    rewind(errcap_tmp);
    int lines = 0, c, partial = 0;
    size_t n = 0;
    while ((c = fgetc(errcap_tmp)) != EOF) {
        if (lines == 0 && n + 1 < cap && c != '\n')
            line[n++] = (char)c;
        partial = c != '\n';
        if (c == '\n')
            lines++;
    }
    if (partial)
        lines++;
    line[n] = '\0';
    fclose(errcap_tmp);
    errcap_tmp = NULL;
    return lines;
}

#define ERRCAP_BEGIN()                                                                         \
    do {                                                                                       \
        if (errcap_begin() != 0)                                                               \
            FAIL("cannot redirect stderr");                                                    \
    } while (0)

/* call returns want and prints exactly one stderr line naming fn. */
#define CHECK_ERR(call, want, fn)                                                              \
    do {                                                                                       \
        char ec_line_[512];                                                                    \
        ERRCAP_BEGIN();                                                                        \
        int ec_rc_ = (int)(call);                                                              \
        int ec_n_ = errcap_end(ec_line_, sizeof ec_line_);                                     \
        if (ec_rc_ != (int)(want))                                                             \
            FAIL("%s returned %d, expected %d (it said: %s)", #call, ec_rc_, (int)(want), ec_line_); \
        if (ec_n_ != 1 || !strstr(ec_line_, (fn)))                                             \
            FAIL("%s: expected one stderr line naming %s, got %d line(s), first: \"%s\"", #call, \
                 (fn), ec_n_, ec_line_);                                                       \
    } while (0)

/* call returns want and stays silent (probes). */
#define CHECK_QUIET(call, want)                                                                \
    do {                                                                                       \
        char ec_line_[512];                                                                    \
        ERRCAP_BEGIN();                                                                        \
        int ec_rc_ = (int)(call);                                                              \
        int ec_n_ = errcap_end(ec_line_, sizeof ec_line_);                                     \
        if (ec_rc_ != (int)(want))                                                             \
            FAIL("%s returned %d, expected %d (it said: %s)", #call, ec_rc_, (int)(want), ec_line_); \
        if (ec_n_ != 0)                                                                        \
            FAIL("%s: expected no stderr output, got \"%s\"", #call, ec_line_);                 \
    } while (0)

#endif
