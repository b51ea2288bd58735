/* Smoke: put with both callbacks, get, short and long send, control, on
 * a ring of ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dcmf.h>

static volatile int done_n, ack_n, short_n, long_n, ctl_n, recv_done_n;
static char *lbuf;
static DCMF_Request_t rreq;
static size_t whole_base_off;

static void inc(void *cd, DCMF_Error_t *e)
{
    if (e) { fprintf(stderr, "FAIL error %d\n", e->result); exit(1); }
    (*(volatile int *)cd)++;
}

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    if (count != 1 || mi[0].w0 != 0xabc || bytes != 10 || memcmp(src, "0123456789", 10)) {
        fprintf(stderr, "FAIL short from %zu count %u bytes %zu\n", peer, count, bytes);
        exit(1);
    }
    short_n++;
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen,
                               size_t *rcvlen, char **rcvbuf, DCMF_Callback_t *cb)
{
    (void)cd; (void)mi; (void)count; (void)peer;
    *rcvlen = sndlen;
    *rcvbuf = lbuf;
    cb->function = inc;
    cb->clientdata = (void *)&recv_done_n;
    long_n++;
    return &rreq;
}

static void on_ctl(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    memcpy((char *)cd, info, sizeof *info);
    (void)peer;
    ctl_n++;
}

static DCMF_Control_t got_ctl;

int main(void)
{
    DCMF_Messager_initialize();
    size_t me = DCMF_Messager_rank(), n = DCMF_Messager_size();
    size_t right = (me + 1) % n, left = (me + n - 1) % n;
    (void)whole_base_off;
    DCMF_Protocol_t sp, cp, pp, gp;
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ctl, (void *)&got_ctl};
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    if (DCMF_Send_register(&sp, &sc) || DCMF_Control_register(&cp, &cc) || DCMF_Put_register(&pp, &pc) ||
        DCMF_Get_register(&gp, &gc)) { fprintf(stderr, "FAIL register\n"); return 1; }
    size_t len = 1 << 20;
    char *buf = malloc(len), *src = malloc(len);
    lbuf = malloc(len);
    memset(buf, 0, len);
    for (size_t i = 0; i < len; i++) src[i] = (char)(i * 7 + me);
    DCMF_Memregion_t mine, whole, peers[64];
    size_t out;
    if (DCMF_Memregion_create(&mine, &out, len, buf, 0) || out != len) { fprintf(stderr, "FAIL mr\n"); return 1; }
    if (DCMF_Memregion_create(&whole, &out, (size_t)-1, NULL, 0)) { fprintf(stderr, "FAIL whole\n"); return 1; }
    /* exchange regions by control: send mine to right, receive left's */
    DCMF_Control_t info;
    memcpy(&info, &mine, sizeof info);
    DCMF_Control(&cp, DCMF_SEQUENTIAL_CONSISTENCY, right, &info);
    while (!ctl_n) DCMF_Messager_advance();
    memcpy(&peers[right], &got_ctl, sizeof got_ctl); /* left's region came to us... */
    /* we got left's region; we put into left */
    DCMF_Request_t req;
    DCMF_Put(&pp, &req, (DCMF_Callback_t){inc, (void *)&done_n}, DCMF_SEQUENTIAL_CONSISTENCY, left, len,
             &whole, &peers[right], (size_t)src, 0, (DCMF_Callback_t){inc, (void *)&ack_n});
    while (!done_n || !ack_n) DCMF_Messager_advance();
    /* get it back */
    char *back = malloc(len);
    DCMF_Get(&gp, &req, (DCMF_Callback_t){inc, (void *)&done_n}, DCMF_RELAXED_CONSISTENCY, left, len,
             &peers[right], &whole, 0, (size_t)back);
    while (done_n < 2) DCMF_Messager_advance();
    if (memcmp(back, src, len)) { fprintf(stderr, "FAIL get data\n"); return 1; }
    DCQuad mi = {0xabc, 1, 2, 3};
    DCMF_Send(&sp, &req, (DCMF_Callback_t){inc, (void *)&done_n}, DCMF_SEQUENTIAL_CONSISTENCY, right, 10,
              "0123456789", &mi, 1);
    while (done_n < 3 || !short_n) DCMF_Messager_advance();
    DCMF_Send(&sp, &req, (DCMF_Callback_t){inc, (void *)&done_n}, DCMF_SEQUENTIAL_CONSISTENCY, right, len,
              src, &mi, 1);
    while (done_n < 4 || !recv_done_n) DCMF_Messager_advance();
    for (size_t i = 0; i < len; i++)
        if (lbuf[i] != (char)(i * 7 + left)) { fprintf(stderr, "FAIL long data at %zu\n", i); return 1; }
    /* right's get from us is done once it says so: then our region may go */
    DCMF_Control(&cp, DCMF_SEQUENTIAL_CONSISTENCY, left, &info);
    while (ctl_n < 2) DCMF_Messager_advance();
    DCMF_Memregion_destroy(&mine);
    DCMF_Memregion_destroy(&whole);
    DCMF_Messager_finalize();
    free(buf);
    free(src);
    free(back);
    free(lbuf);
    printf("rank %zu ok\n", me);
    return 0;
}
