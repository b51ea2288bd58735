#include "pmi_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fd = -1;
static char rbuf[4096];
static size_t rlen;

int tpmi_fd(void)
{
    return fd;
}

int tpmi_send(const char *b, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

int tpmi_recv_line(char *line, size_t n)
{
    for (;;) {
        char *nl = memchr(rbuf, '\n', rlen);
        if (nl) {
            size_t len = (size_t)(nl - rbuf);
            if (len >= n)
                return -1;
            memcpy(line, rbuf, len);
            line[len] = '\0';
            memmove(rbuf, nl + 1, rlen - len - 1);
            rlen -= len + 1;
            return 0;
        }
        if (rlen == sizeof rbuf)
            return -1;
        ssize_t r = read(fd, rbuf + rlen, sizeof rbuf - rlen);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        rlen += (size_t)r;
    }
}

int tpmi_field(const char *line, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *s = line; *s;) {
        while (*s == ' ')
            s++;
        const char *e = strchr(s, ' ');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len > kl && strncmp(s, key, kl) == 0 && s[kl] == '=') {
            if (len - kl - 1 >= n)
                return -1;
            memcpy(out, s + kl + 1, len - kl - 1);
            out[len - kl - 1] = '\0';
            return 0;
        }
        s += len;
    }
    return -1;
}

/* Send one command line, read the reply and check its cmd. */
static int call(const char *expect, char *reply, size_t n, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));

static int call(const char *expect, char *reply, size_t n, const char *fmt,
                ...)
{
    char line[TPMI_LINE + 1];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof line || tpmi_send(line, (size_t)len))
        return -1;
    if (tpmi_recv_line(reply, n))
        return -1;
    char cmd[64];
    if (tpmi_field(reply, "cmd", cmd, sizeof cmd) || strcmp(cmd, expect)) {
        fprintf(stderr, "tpmi: expected cmd=%s, got '%s'\n", expect, reply);
        return -1;
    }
    char rc[16];
    if (tpmi_field(reply, "rc", rc, sizeof rc) == 0 && strcmp(rc, "0"))
        return atoi(rc) ? atoi(rc) : -1;
    return 0;
}

static int int_field(const char *reply, const char *key, int *v)
{
    char buf[32];
    if (tpmi_field(reply, key, buf, sizeof buf))
        return -1;
    *v = atoi(buf);
    return 0;
}

/* PMI_PORT=host:port, PMI_ID: connect back and learn rank and size from
 * the server's "set" lines. */
static int port_connect(const char *port, int *rank, int *size)
{
    const char *id = getenv("PMI_ID"), *colon = strrchr(port, ':');
    if (!id || !colon)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)atoi(colon + 1))};
    char host[64];
    snprintf(host, sizeof host, "%.*s", (int)(colon - port), port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -1;
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        return -1;
    char line[TPMI_LINE], v[32];
    int n = snprintf(line, sizeof line, "cmd=initack pmiid=%s\n", id);
    if (tpmi_send(line, (size_t)n) || tpmi_recv_line(line, sizeof line) ||
        strcmp(line, "cmd=initack"))
        return -1;
    for (int i = 0; i < 3; i++) {
        if (tpmi_recv_line(line, sizeof line))
            return -1;
        if (tpmi_field(line, "size", v, sizeof v) == 0)
            *size = atoi(v);
        else if (tpmi_field(line, "rank", v, sizeof v) == 0)
            *rank = atoi(v);
    }
    return 0;
}

int tpmi_init(int *rank, int *size)
{
    const char *e = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    *rank = *size = -1;
    if (e) {
        fd = atoi(e);
        if (getenv("PMI_RANK") && getenv("PMI_SIZE")) {
            *rank = atoi(getenv("PMI_RANK"));
            *size = atoi(getenv("PMI_SIZE"));
        }
    } else if (!port || port_connect(port, rank, size)) {
        return -1;
    }
    if (*rank < 0 || *size < 1)
        return -1;
    char reply[TPMI_LINE];
    return call("response_to_init", reply, sizeof reply,
                "cmd=init pmi_version=1 pmi_subversion=1\n");
}

int tpmi_get_maxes(int *kn, int *kl, int *vl)
{
    char reply[TPMI_LINE];
    if (call("maxes", reply, sizeof reply, "cmd=get_maxes\n"))
        return -1;
    return int_field(reply, "kvsname_max", kn) ||
           int_field(reply, "keylen_max", kl) ||
           int_field(reply, "vallen_max", vl) ? -1 : 0;
}

int tpmi_get_appnum(int *appnum)
{
    char reply[TPMI_LINE];
    if (call("appnum", reply, sizeof reply, "cmd=get_appnum\n"))
        return -1;
    return int_field(reply, "appnum", appnum);
}

int tpmi_get_universe_size(int *size)
{
    char reply[TPMI_LINE];
    if (call("universe_size", reply, sizeof reply, "cmd=get_universe_size\n"))
        return -1;
    return int_field(reply, "size", size);
}

int tpmi_kvs_get_my_name(char *name, size_t n)
{
    char reply[TPMI_LINE];
    if (call("my_kvsname", reply, sizeof reply, "cmd=get_my_kvsname\n"))
        return -1;
    return tpmi_field(reply, "kvsname", name, n);
}

int tpmi_kvs_put(const char *kvs, const char *key, const char *val)
{
    char reply[TPMI_LINE];
    return call("put_result", reply, sizeof reply,
                "cmd=put kvsname=%s key=%s value=%s\n", kvs, key, val);
}

int tpmi_kvs_commit(const char *kvs)
{
    (void)kvs;
    return 0;
}

int tpmi_kvs_get(const char *kvs, const char *key, char *val, size_t n)
{
    char reply[TPMI_LINE];
    int rc = call("get_result", reply, sizeof reply,
                  "cmd=get kvsname=%s key=%s\n", kvs, key);
    if (rc)
        return rc;
    return tpmi_field(reply, "value", val, n);
}

int tpmi_barrier(void)
{
    char reply[TPMI_LINE];
    return call("barrier_out", reply, sizeof reply, "cmd=barrier_in\n");
}

int tpmi_finalize(void)
{
    char reply[TPMI_LINE];
    return call("finalize_ack", reply, sizeof reply, "cmd=finalize\n");
}

void tpmi_abort(int code, const char *msg)
{
    char line[TPMI_LINE];
    int len = snprintf(line, sizeof line, "cmd=abort exitcode=%d %s\n", code,
                       msg ? msg : "");
    if (len > 0 && (size_t)len < sizeof line)
        tpmi_send(line, (size_t)len);
    for (;;)
        pause();
}
