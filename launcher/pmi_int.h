/* What pmi.c and pmi_port.c share: the server's state and the calls the
 * connect-back (PMI_PORT) path needs to hand a socket over to a rank. */
#ifndef EMUNIC_RUN_PMI_INT_H
#define EMUNIC_RUN_PMI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmi.h"
#include "pmi_kvs.h"

#define LINE_MAX_B 1024      /* per message, newline included */
#define OUT_MAX (64 * 1024)  /* unread replies before we give up on a rank */
#define FIELDS_MAX 16
#define KVSNAME_MAX 256

struct pmi_conn {
    int fd, child_fd;        /* -1 when closed */
    uint32_t rank;
    char in[LINE_MAX_B];
    size_t in_len;
    bool discarding;         /* inside an over-long line */
    char *out;
    size_t out_len;
    bool in_barrier, gone;
};

struct pmi {
    struct launcher *L;
    struct pmi_conn *c;
    uint32_t n, in_barrier, gone;
    char kvsname[KVSNAME_MAX];
    struct pmi_kvs kvs;
    int lfd;                 /* --pmi-port listener, else -1 */
    char port[32];           /* "127.0.0.1:<port>" */
    struct pmi_pend *pend;   /* connections before their initack */
};

#define PEND_LINE 128

struct pmi_pend {
    int fd;                  /* -1: free slot */
    char buf[PEND_LINE];
    size_t len;
};

void pmi_reply(struct pmi *p, struct pmi_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Feed bytes that arrived on c's socket. */
void pmi_take(struct pmi *p, struct pmi_conn *c, const char *b, size_t n);
void pmi_conn_close(struct pmi *p, struct pmi_conn *c);
/* pmi_cmd.c: one complete line (no newline); a barrier that cannot
 * complete any more stops the job. */
void pmi_command(struct pmi *p, struct pmi_conn *c, char *line);
void pmi_barrier_check(struct pmi *p);
/* pmi_port.c: listener set-up and clean-up. Return 0 or -1 after a msg. */
int pmi_port_open(struct pmi *p);
void pmi_port_close(struct pmi *p);

#endif
