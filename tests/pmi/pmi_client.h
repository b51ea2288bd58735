/* A tiny PMI-1 client for the tests (tpmi_*: not MPICH's library, just
 * enough of the same wire protocol over PMI_FD). Blocking, one rank. */
#ifndef EMUNIC_TESTS_PMI_CLIENT_H
#define EMUNIC_TESTS_PMI_CLIENT_H

#include <stddef.h>

#define TPMI_LINE 1024

/* Connects through PMI_FD (or PMI_PORT + PMI_ID) and does init.
 * Returns 0 or -1. */
int tpmi_init(int *rank, int *size);
int tpmi_get_maxes(int *kvsname_max, int *keylen_max, int *vallen_max);
int tpmi_get_appnum(int *appnum);
int tpmi_get_universe_size(int *size);
int tpmi_kvs_get_my_name(char *name, size_t n);
int tpmi_kvs_put(const char *kvs, const char *key, const char *val);
int tpmi_kvs_commit(const char *kvs); /* nothing on the wire */
/* 0 with the value, or the reply's rc (-1 when the key is missing). */
int tpmi_kvs_get(const char *kvs, const char *key, char *val, size_t n);
int tpmi_barrier(void);
int tpmi_finalize(void);
/* Sends abort and waits to be killed. */
void tpmi_abort(int code, const char *msg);

/* Raw access for protocol tests: send bytes as they are, read one reply
 * line (without its newline). Return 0 or -1. */
int tpmi_fd(void);
int tpmi_send(const char *bytes, size_t n);
int tpmi_recv_line(char *line, size_t n);
/* The value of key in a reply line, copied to out; 0 or -1. */
int tpmi_field(const char *line, const char *key, char *out, size_t n);

#endif
