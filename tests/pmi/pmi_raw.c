/* The server's answers to bad input, on a raw PMI_FD (run as 1 rank):
 * every malformed or oversize message gets an rc=-1 reply, and the
 * connection keeps working afterwards. With --fill: the key space cap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi_client.h"

static int failures;

/* Send raw bytes, expect a reply containing every fragment in want. */
static void expect(const char *what, const char *bytes, const char *want1,
                   const char *want2)
{
    char reply[TPMI_LINE + 64];
    if (tpmi_send(bytes, strlen(bytes)) || tpmi_recv_line(reply, sizeof reply)) {
        fprintf(stderr, "%s: no reply\n", what);
        exit(1);
    }
    if (!strstr(reply, want1) || (want2 && !strstr(reply, want2))) {
        fprintf(stderr, "%s: got '%s', want '%s' %s\n", what, reply, want1,
                want2 ? want2 : "");
        failures++;
    } else {
        printf("ok: %s -> %s\n", what, reply);
    }
}

/* The key space is bounded: put until the server says it is full. */
static int fill(const char *kvs)
{
    char key[32], reply[TPMI_LINE], line[TPMI_LINE];
    for (long i = 0;; i++) {
        snprintf(key, sizeof key, "k%ld", i);
        int n = snprintf(line, sizeof line,
                         "cmd=put kvsname=%s key=%s value=%lx\n", kvs, key, i);
        if (tpmi_send(line, (size_t)n) || tpmi_recv_line(reply, sizeof reply))
            return 1;
        if (strstr(reply, "rc=0"))
            continue;
        printf("put %ld: %s\n", i, reply);
        if (i != 65536 || !strstr(reply, "msg=kvs_full"))
            return 1;
        break;
    }
    char val[64];
    return tpmi_kvs_get(kvs, "k65535", val, sizeof val) || strcmp(val, "ffff") ||
           tpmi_finalize();
}

int main(int argc, char **argv)
{
    int rank, size;
    if (tpmi_init(&rank, &size)) {
        fprintf(stderr, "init failed\n");
        return 1;
    }
    char kvs[256];
    if (tpmi_kvs_get_my_name(kvs, sizeof kvs))
        return 1;
    if (argc > 1 && strcmp(argv[1], "--fill") == 0)
        return fill(kvs);
    char line[4096];

    expect("bad version", "cmd=init pmi_version=2 pmi_subversion=0\n",
           "cmd=response_to_init", "rc=-1");
    expect("no cmd", "foo=bar\n", "rc=-1", "msg=");
    expect("no '='", "cmd=get_appnum garbage\n", "rc=-1", "msg=");
    expect("empty line", "\n", "rc=-1", NULL);
    expect("unknown command", "cmd=frobnicate a=b\n", "cmd=frobnicate rc=-1",
           "msg=unknown_command");
    /* 2000 bytes without a newline in between */
    memset(line, 'x', 2000);
    memcpy(line, "cmd=put", 7);
    line[2000] = '\n';
    line[2001] = '\0';
    expect("over-long line", line, "rc=-1", "msg=line_longer");
    /* exactly 1024 bytes incl. newline is still fine (a get of a missing
     * key with a long name gives key_not_found, not a framing error) */
    int n = snprintf(line, sizeof line, "cmd=get kvsname=%s key=", kvs);
    memset(line + n, 'k', (size_t)(1023 - n));
    line[1023] = '\n';
    line[1024] = '\0';
    expect("1024-byte line", line, "cmd=get_result rc=-1", "msg=key_not_found");
    line[1023] = 'k';
    line[1024] = '\n';
    line[1025] = '\0';
    expect("1025-byte line", line, "rc=-1", "msg=line_longer");

    char key[100];
    memset(key, 'a', 65);
    key[65] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=1\n", kvs, key);
    expect("65-char key", line, "cmd=put_result rc=-1", "msg=key");
    key[64] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=1\n", kvs, key);
    expect("64-char key", line, "cmd=put_result rc=0", NULL);
    /* the longest value a 1024-byte line can carry is accepted */
    n = snprintf(line, sizeof line, "cmd=put kvsname=%s key=v value=", kvs);
    memset(line + n, 'f', (size_t)(1023 - n));
    line[1023] = '\n';
    line[1024] = '\0';
    expect("longest value", line, "cmd=put_result rc=0", NULL);
    n = snprintf(line, sizeof line, "cmd=put kvsname=%s key=w value=", kvs);
    memset(line + n, 'f', 1025);
    line[n + 1025] = '\n';
    line[n + 1026] = '\0';
    expect("oversize value", line, "rc=-1", "msg=");
    snprintf(line, sizeof line, "cmd=put kvsname=other_kvs key=b value=1\n");
    expect("wrong kvsname", line, "cmd=put_result rc=-1", "msg=wrong_kvsname");
    snprintf(line, sizeof line, "cmd=get kvsname=other_kvs key=v\n");
    expect("get wrong kvsname", line, "cmd=get_result rc=-1",
           "msg=wrong_kvsname");
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=dup value=1\n", kvs);
    expect("first put", line, "cmd=put_result rc=0", NULL);
    expect("duplicate put", line, "cmd=put_result rc=-1", "msg=duplicate_key");
    expect("put without value", "cmd=put key=z\n", "cmd=put_result rc=-1",
           "msg=");
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=dup\n", kvs);
    expect("get", line, "cmd=get_result rc=0", "value=1");

    /* values keep every character but space and newline, '=' included */
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=eq value=a=b\t%%\r!\n",
             kvs);
    expect("put value with '='", line, "cmd=put_result rc=0", NULL);
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=eq\n", kvs);
    expect("get value with '='", line, "cmd=get_result rc=0", "value=a=b\t%\r!");

    /* one message split over three writes, then two in one write */
    tpmi_send("cmd=get_", 8);
    tpmi_send("univer", 6);
    expect("split line", "se_size\n", "cmd=universe_size", "size=1");
    tpmi_send("cmd=get_appnum\ncmd=get_maxes\n", 29);
    expect("first of two", "", "cmd=appnum", "appnum=0");
    expect("second of two", "", "cmd=maxes", "vallen_max=1024");

    if (tpmi_barrier() || tpmi_finalize()) {
        fprintf(stderr, "barrier/finalize after the errors failed\n");
        return 1;
    }
    printf("pmi_raw: %d failure(s)\n", failures);
    return failures != 0;
}
