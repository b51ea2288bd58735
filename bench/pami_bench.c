/* Shared part of the PAMI benchmarks; see pami_bench.h. */
#include "pami_bench.h"

#include <getopt.h>
#include <sched.h>
#include <string.h>

#include "emunic/emunic.h"

size_t pb_me, pb_n;
pami_client_t pb_client;
pami_context_t pb_ctx[2];
static size_t nctx;

#define PB_DISPATCH 240
#define PB_MAX 1024

struct pb_msg {
    uint32_t kind, epoch, from, len;
};

static atomic_long bar[2], gat[2];
static unsigned bar_epoch, gat_epoch;
static unsigned char gat_buf[2][PB_MAX][64];

static void on_msg(pami_context_t ctx, void *cookie, const void *hdr, size_t hlen, const void *pipe,
                   size_t len, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)origin, (void)recv, (void)hlen;
    struct pb_msg m;
    memcpy(&m, hdr, sizeof m);
    if (m.kind == 1) {
        atomic_fetch_add(&bar[m.epoch & 1], 1);
    } else {
        memcpy(gat_buf[m.epoch & 1][m.from], pipe, len);
        atomic_fetch_add(&gat[m.epoch & 1], 1);
    }
}

pami_endpoint_t pb_ep(size_t task, size_t offset)
{
    pami_endpoint_t ep;
    PB_CHECK(PAMI_Endpoint_create(pb_client, (pami_task_t)task, offset, &ep) == PAMI_SUCCESS, "endpoint");
    return ep;
}

void pb_count(pami_context_t ctx, void *cookie, pami_result_t r)
{
    (void)ctx;
    PB_CHECK(r == PAMI_SUCCESS, "an operation failed: %d", r);
    atomic_fetch_add((atomic_long *)cookie, 1);
}

void pb_until(pami_context_t ctx, atomic_long *c, long want)
{
    while (atomic_load(c) < want)
        PAMI_Context_advance(ctx, 1);
}

static void send_all(struct pb_msg *m, const void *data, size_t len)
{
    for (size_t t = 0; t < pb_n; t++) {
        pami_send_immediate_t s;
        memset(&s, 0, sizeof s);
        s.dest = pb_ep(t, 0);
        s.dispatch = PB_DISPATCH;
        s.header.iov_base = m;
        s.header.iov_len = sizeof *m;
        s.data.iov_base = (void *)data;
        s.data.iov_len = len;
        PB_CHECK(PAMI_Send_immediate(pb_ctx[0], &s) == PAMI_SUCCESS, "harness send");
    }
}

void pb_barrier(void)
{
    unsigned e = bar_epoch++;
    struct pb_msg m = {1, e, (uint32_t)pb_me, 0};
    send_all(&m, NULL, 0);
    pb_until(pb_ctx[0], &bar[e & 1], (long)pb_n);
    atomic_fetch_sub(&bar[e & 1], (long)pb_n);
}

void pb_allgather(const void *mine, size_t len, void *all)
{
    PB_CHECK(len <= 64, "gather block of %zu bytes", len);
    unsigned e = gat_epoch++;
    struct pb_msg m = {2, e, (uint32_t)pb_me, (uint32_t)len};
    send_all(&m, mine, len);
    pb_until(pb_ctx[0], &gat[e & 1], (long)pb_n);
    atomic_fetch_sub(&gat[e & 1], (long)pb_n);
    for (size_t t = 0; t < pb_n; t++)
        memcpy((char *)all + t * len, gat_buf[e & 1][t], len);
    pb_barrier();
}

void pb_init(const char *prog, size_t ncontexts, size_t min_tasks, size_t max_tasks)
{
    if (PAMI_Client_create(prog, &pb_client, NULL, 0) != PAMI_SUCCESS)
        exit(2); /* the library said why */
    pami_configuration_t q[2] = {{.name = PAMI_CLIENT_TASK_ID}, {.name = PAMI_CLIENT_NUM_TASKS}};
    PB_CHECK(PAMI_Client_query(pb_client, q, 2) == PAMI_SUCCESS, "query");
    pb_me = q[0].value.intval;
    pb_n = q[1].value.intval;
    if (pb_n < min_tasks || pb_n > max_tasks || pb_n > PB_MAX) {
        if (pb_me == 0)
            fprintf(stderr, "%s: needs %zu to %zu tasks, not %zu\n", prog, min_tasks, max_tasks, pb_n);
        exit(2);
    }
    nctx = ncontexts;
    PB_CHECK(PAMI_Context_createv(pb_client, NULL, 0, pb_ctx, ncontexts) == PAMI_SUCCESS, "contexts");
    pami_dispatch_callback_function fn = {.p2p = on_msg};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    h.recv_immediate = PAMI_HINT_ENABLE;
    PB_CHECK(PAMI_Dispatch_set(pb_ctx[0], PB_DISPATCH, fn, NULL, h) == PAMI_SUCCESS, "dispatch");
    pb_barrier();
}

void pb_fini(void)
{
    pb_barrier();
    PAMI_Context_destroyv(pb_ctx, nctx);
    PAMI_Client_destroy(&pb_client);
}

void pb_bad_option(const char *prog, int c, char **argv)
{
    const char *rank = getenv("EMUNIC_RANK"); /* options are parsed before PAMI starts */
    if (!rank || !strcmp(rank, "0")) {
        if (c == ':')
            fprintf(stderr, "%s: %s needs a value (--help)\n", prog, argv[optind - 1]);
        else
            fprintf(stderr, "%s: unknown option %s (--help)\n", prog, argv[optind - 1]);
    }
    exit(2);
}

const char *pb_layout(void)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%ux%u", emunic_nnodes(), emunic_local_size());
    return buf;
}
