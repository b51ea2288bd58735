/* DCMF has no remote atomics: OSPRI, ARMCI and GASNet built fetch-and-add
 * out of a Send whose handler runs on the target and a reply Send. Every
 * rank adds 1 to a counter on rank 0 a hundred times; the values it gets
 * back must all differ, and the counter must end at 100 x ranks. Then
 * rank 0 puts its final count into every rank's memory with DCMF_Put:
 * each rank sent rank 0 a region over its landing spot by DCMF_Control.
 *
 *   emunic-run -N 2 -n 2 --nic dcmf -- build/bin/dcmf_fetch_add_by_send
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dcmf.h>

#define ROUNDS 100

static DCMF_Protocol_t add_proto, reply_proto, ctl_proto, put_proto;
static long counter;          /* lives on rank 0 */
static volatile long reply;   /* the old value rank 0 sent back */
static volatile int replies, acks, regions;
static DCMF_Memregion_t *peer_mr; /* every rank's region, gathered on rank 0 */
static long final_count;       /* rank 0 puts here */

static void release(void *req, DCMF_Error_t *e)
{
    (void)e;
    free(req);
}

/* On rank 0: msginfo[0].w0 is the increment; answer with the old value.
 * The reply's request must live until its callback: one each. */
static void on_add(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd; (void)count; (void)src; (void)bytes;
    DCQuad answer = {0};
    long old = counter;
    counter += (long)mi[0].w0;
    memcpy(&answer, &old, sizeof old);
    DCMF_Request_t *req = malloc(sizeof *req);
    DCMF_Send(&reply_proto, req, (DCMF_Callback_t){release, req}, DCMF_SEQUENTIAL_CONSISTENCY, peer,
              0, NULL, &answer, 1);
}

static void on_reply(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd; (void)count; (void)peer; (void)src; (void)bytes;
    long v;
    memcpy(&v, mi, sizeof v);
    reply = v;
    replies++;
}

static void on_region(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    memcpy(&peer_mr[peer], info, sizeof(DCMF_Memregion_t));
    regions++;
}

static void count_up(void *cd, DCMF_Error_t *e)
{
    if (e)
        fprintf(stderr, "put failed: %d\n", e->result);
    (*(volatile int *)cd)++;
}

int main(void)
{
    DCMF_Messager_initialize();
    size_t me = DCMF_Messager_rank(), n = DCMF_Messager_size();
    DCMF_Send_Configuration_t add = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_add, NULL, NULL, NULL};
    DCMF_Send_Configuration_t rep = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_reply, NULL, NULL, NULL};
    DCMF_Control_Configuration_t ctl = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_region, NULL};
    DCMF_Put_Configuration_t put = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Send_register(&add_proto, &add);
    DCMF_Send_register(&reply_proto, &rep);
    DCMF_Control_register(&ctl_proto, &ctl);
    DCMF_Put_register(&put_proto, &put);

    /* a region over the whole address space (offsets are addresses, as
     * in OSPRI) for sources, and one over the landing spot for rank 0 */
    DCMF_Memregion_t mine, spot;
    size_t got;
    DCMF_Memregion_create(&mine, &got, (size_t)-1, NULL, 0);
    DCMF_Memregion_create(&spot, &got, sizeof final_count, &final_count, 0);
    peer_mr = calloc(n, sizeof *peer_mr);
    DCMF_Control_t info;
    memcpy(&info, &spot, sizeof info);
    DCMF_Control(&ctl_proto, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info);

    char *seen = calloc((size_t)ROUNDS * n, 1);
    int dup = 0;
    for (int i = 0; i < ROUNDS; i++) {
        DCQuad inc = {1, 0, 0, 0};
        DCMF_Request_t req;
        int before = replies;
        DCMF_Send(&add_proto, &req, (DCMF_Callback_t){NULL, NULL}, DCMF_SEQUENTIAL_CONSISTENCY, 0, 0,
                  NULL, &inc, 1);
        while (replies == before)
            DCMF_Messager_advance();
        if (reply < 0 || reply >= (long)(ROUNDS * n) || seen[reply]++)
            dup = 1;
    }

    if (me == 0) {
        /* every rank's region arrived and every add was applied */
        while (regions < (int)n || counter < (long)(ROUNDS * n))
            DCMF_Messager_advance();
        DCMF_Request_t *req = calloc(n, sizeof *req);
        final_count = counter;
        for (size_t r = 0; r < n; r++)
            DCMF_Put(&put_proto, &req[r], (DCMF_Callback_t){NULL, NULL}, DCMF_SEQUENTIAL_CONSISTENCY,
                     r, sizeof final_count, &mine, &peer_mr[r], (size_t)&final_count, 0,
                     (DCMF_Callback_t){count_up, (void *)&acks});
        while (acks < (int)n)
            DCMF_Messager_advance();
        printf("counter %ld (want %zu), delivered to %d ranks\n", counter, ROUNDS * n, acks);
        free(req);
    } else {
        while (*(volatile long *)&final_count == 0)
            DCMF_Messager_advance();
    }
    if (dup)
        printf("rank %zu: a fetch-and-add returned a value twice\n", me);
    DCMF_Memregion_destroy(&spot);
    DCMF_Memregion_destroy(&mine);
    DCMF_Messager_finalize();
    free(seen);
    free(peer_mr);
    return dup;
}
