/* Clients: attributes (client, context and dispatch queries), time, up to
 * four clients at once (each with its own contexts, dispatch table and
 * traffic: a message sent on one client's context reaches the same
 * client on the target), the fifth refused, duplicate names refused,
 * destroy-with-contexts refused, destroy and create again, the error
 * text. */
#include "ptest.h"

static atomic_long hits[4];

/* cookie: the client number the function belongs to */
static void on_client_msg(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe,
                          size_t dlen, pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)pipe, (void)dlen, (void)origin, (void)recv;
    uint32_t which;
    CHECK(hlen == sizeof which, "header %zu", hlen);
    memcpy(&which, h, sizeof which);
    CHECK(which == (uintptr_t)cookie, "a message of client %u reached client %zu", which,
          (size_t)(uintptr_t)cookie);
    atomic_fetch_add(&hits[which], 1);
}

static void attributes(void)
{
    pami_configuration_t q[] = {
        {.name = PAMI_CLIENT_CLOCK_MHZ},        {.name = PAMI_CLIENT_CONST_CONTEXTS},
        {.name = PAMI_CLIENT_HWTHREADS_AVAILABLE}, {.name = PAMI_CLIENT_MEMREGION_SIZE},
        {.name = PAMI_CLIENT_MEM_SIZE},         {.name = PAMI_CLIENT_NUM_TASKS},
        {.name = PAMI_CLIENT_NUM_LOCAL_TASKS},  {.name = PAMI_CLIENT_LOCAL_TASKS},
        {.name = PAMI_CLIENT_NUM_CONTEXTS},     {.name = PAMI_CLIENT_PROCESSOR_NAME},
        {.name = PAMI_CLIENT_TASK_ID},          {.name = PAMI_CLIENT_WTIMEBASE_MHZ},
        {.name = PAMI_CLIENT_WTICK},
    };
    size_t n = sizeof q / sizeof q[0];
    CHECK_RC(PAMI_Client_query(pt_client, q, n), PAMI_SUCCESS);
    CHECK(q[0].value.intval > 0 && q[0].value.intval == q[11].value.intval, "clock %zu MHz, timebase %zu MHz",
          q[0].value.intval, q[11].value.intval);
    CHECK(q[2].value.intval >= 1, "HWTHREADS_AVAILABLE %zu", q[2].value.intval);
    CHECK(q[3].value.intval >= 1 && q[3].value.intval <= sizeof(pami_memregion_t), "MEMREGION_SIZE %zu",
          q[3].value.intval);
    CHECK(q[4].value.intval >= 1, "MEM_SIZE %zu", q[4].value.intval);
    CHECK(q[5].value.intval == pt_size, "NUM_TASKS %zu", q[5].value.intval);
    const char *sz = getenv("EMUNIC_SIZE");
    CHECK(!sz || (size_t)atol(sz) == pt_size, "NUM_TASKS %zu, the launcher says %s", pt_size, sz);
    size_t nlocal = q[6].value.intval;
    CHECK(nlocal >= 1 && nlocal <= pt_size, "NUM_LOCAL_TASKS %zu", nlocal);
    int me_local = 0;
    for (size_t i = 0; i < nlocal; i++) {
        CHECK(q[7].value.intarray[i] < pt_size, "LOCAL_TASKS[%zu] = %zu", i, q[7].value.intarray[i]);
        me_local |= q[7].value.intarray[i] == pt_task;
    }
    CHECK(me_local, "LOCAL_TASKS does not list this task");
    CHECK(q[8].value.intval >= 4, "NUM_CONTEXTS %zu", q[8].value.intval);
    CHECK(q[9].value.chararray && q[9].value.chararray[0], "PROCESSOR_NAME");
    CHECK(q[10].value.intval == pt_task, "TASK_ID");
    CHECK(q[12].value.doubleval > 0 && q[12].value.doubleval < 1e-3, "WTICK %g", q[12].value.doubleval);
    CHECK(PAMI_Wtick(pt_client) == q[12].value.doubleval, "PAMI_Wtick differs from CLIENT_WTICK");

    /* every task id once; every task agrees on the node sizes */
    uint64_t ids[PT_MAX_TASKS], mine = q[10].value.intval;
    pt_allgather(&mine, sizeof mine, ids);
    for (size_t t = 0; t < pt_size; t++)
        CHECK(ids[t] == t, "task %zu says it is %llu", t, (unsigned long long)ids[t]);

    /* context and dispatch queries */
    pami_configuration_t c[3] = {{.name = PAMI_CONTEXT_DISPATCH_ID_MAX},
                                 {.name = PAMI_DISPATCH_RECV_IMMEDIATE_MAX},
                                 {.name = PAMI_DISPATCH_SEND_IMMEDIATE_MAX}};
    CHECK_RC(PAMI_Context_query(pt_ctx[0], c, 1), PAMI_SUCCESS);
    CHECK(c[0].value.intval == 255, "DISPATCH_ID_MAX %zu", c[0].value.intval);
    CHECK_RC(PAMI_Dispatch_query(pt_ctx[0], 0, c + 1, 2), PAMI_SUCCESS);
    CHECK(c[1].value.intval >= 1 && c[2].value.intval >= 1, "RECV/SEND_IMMEDIATE_MAX %zu %zu", c[1].value.intval,
          c[2].value.intval);

    /* one bad attribute: INVAL, one line, the others still answered */
    pami_configuration_t m[3] = {{.name = PAMI_CLIENT_TASK_ID}, {.name = (pami_attribute_name_t)9999},
                                 {.name = PAMI_CLIENT_NUM_TASKS}};
    CHECK_ERR(PAMI_Client_query(pt_client, m, 3), PAMI_INVAL, "PAMI_Client_query");
    CHECK(m[0].value.intval == pt_task && m[2].value.intval == pt_size, "good attributes beside a bad one");
    CHECK_RC(PAMI_Client_update(pt_client, NULL, 0), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Client_update(pt_client, m, 1), PAMI_INVAL, "PAMI_Client_update");
    CHECK_RC(PAMI_Context_update(pt_ctx[0], NULL, 0), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Context_update(pt_ctx[0], m, 1), PAMI_INVAL, "PAMI_Context_update");
    CHECK_ERR(PAMI_Dispatch_update(pt_ctx[0], 0, m, 1), PAMI_INVAL, "PAMI_Dispatch_update");
    char text[256];
    size_t len = PAMI_Error_text(text, sizeof text);
    CHECK(len == strlen(text) && strstr(text, "PAMI_Dispatch_update"), "PAMI_Error_text: \"%s\"", text);
    CHECK(PAMI_Error_text(text, 5) == 4 && strlen(text) == 4, "PAMI_Error_text truncates");
}

static void times(void)
{
    double w0 = PAMI_Wtime(pt_client);
    unsigned long long b0 = PAMI_Wtimebase(pt_client);
    pt_sleep_us(20000);
    double w1 = PAMI_Wtime(pt_client);
    unsigned long long b1 = PAMI_Wtimebase(pt_client);
    CHECK(w1 - w0 >= 0.019 && w1 - w0 < 5, "PAMI_Wtime advanced %g s over a 20 ms sleep", w1 - w0);
    pami_configuration_t q = {.name = PAMI_CLIENT_WTIMEBASE_MHZ};
    CHECK_RC(PAMI_Client_query(pt_client, &q, 1), PAMI_SUCCESS);
    double secs = (double)(b1 - b0) / ((double)q.value.intval * 1e6);
    CHECK(b1 > b0 && secs > 0.5 * (w1 - w0) && secs < 2 * (w1 - w0) + 0.01,
          "Wtimebase: %llu ticks at %zu MHz = %g s; Wtime says %g s", b1 - b0, q.value.intval, secs, w1 - w0);
}

static void send_on(pami_context_t ctx, uint32_t which, size_t to)
{
    pami_send_immediate_t s;
    memset(&s, 0, sizeof s);
    pami_endpoint_t ep = PAMI_ENDPOINT_NULL;
    /* endpoints are the same numbers for every client */
    CHECK_RC(PAMI_Endpoint_create(pt_client, (pami_task_t)to, 0, &ep), PAMI_SUCCESS);
    s.dest = ep;
    s.dispatch = 11;
    s.header.iov_base = &which;
    s.header.iov_len = sizeof which;
    CHECK_RC(PAMI_Send_immediate(ctx, &s), PAMI_SUCCESS);
}

static void clients(void)
{
    /* pt_client is client 0 (harness); three more, each with 1..3 contexts */
    static const char *names[4] = {"ptest", "second", "third", "fourth"};
    pami_client_t cl[4] = {pt_client};
    pami_context_t cx[4][3];
    cx[0][0] = pt_ctx[0];
    for (int i = 1; i < 4; i++) {
        CHECK_RC(PAMI_Client_create(names[i], &cl[i], NULL, 0), PAMI_SUCCESS);
        CHECK_RC(PAMI_Context_createv(cl[i], NULL, 0, cx[i], (size_t)i), PAMI_SUCCESS);
        pami_configuration_t q = {.name = PAMI_CLIENT_TASK_ID};
        CHECK_RC(PAMI_Client_query(cl[i], &q, 1), PAMI_SUCCESS);
        CHECK(q.value.intval == pt_task, "client %d: task %zu", i, q.value.intval);
    }
    /* a fifth: at most four */
    pami_client_t fifth = (pami_client_t)&fifth;
    CHECK_ERR(PAMI_Client_create("fifth", &fifth, NULL, 0), PAMI_EAGAIN, "PAMI_Client_create");
    CHECK(fifth == PAMI_CLIENT_NULL, "a failed create left the handle set");
    pami_dispatch_callback_function fn = {.p2p = on_client_msg};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    for (int i = 0; i < 4; i++)
        CHECK_RC(PAMI_Dispatch_set(cx[i][0], 11, fn, (void *)(uintptr_t)i, h), PAMI_SUCCESS);
    pt_barrier();
    /* client i sends to every task's client i; only context 0 of each */
    for (uint32_t i = 0; i < 4; i++)
        for (size_t t = 0; t < pt_size; t++)
            send_on(cx[i][0], i, t);
    double end = pt_now() + 20;
    for (;;) {
        int all = 1;
        for (int i = 0; i < 4; i++) {
            PAMI_Context_advance(cx[i][0], 1);
            all &= atomic_load(&hits[i]) >= (long)pt_size;
        }
        if (all)
            break;
        CHECK(pt_now() < end, "clients got %ld %ld %ld %ld of %zu", atomic_load(&hits[0]), atomic_load(&hits[1]),
              atomic_load(&hits[2]), atomic_load(&hits[3]), pt_size);
    }
    pt_barrier();
    /* destroy with contexts: refused; then in order */
    CHECK_ERR(PAMI_Client_destroy(&cl[3]), PAMI_INVAL, "PAMI_Client_destroy");
    for (int i = 1; i < 4; i++) {
        CHECK_RC(PAMI_Context_destroyv(cx[i], (size_t)i), PAMI_SUCCESS);
        for (int k = 0; k < i; k++)
            CHECK(cx[i][k] == PAMI_CONTEXT_NULL, "destroyv left context %d set", k);
        CHECK_RC(PAMI_Client_destroy(&cl[i]), PAMI_SUCCESS);
        CHECK(cl[i] == PAMI_CLIENT_NULL, "destroy left the client set");
    }
    pt_barrier();
    /* a name in use; the same name after its client is gone */
    pami_client_t dup;
    CHECK_ERR(PAMI_Client_create("ptest", &dup, NULL, 0), PAMI_INVAL, "PAMI_Client_create");
    pami_client_t again;
    pami_configuration_t cfg = {.name = PAMI_CLIENT_NUM_CONTEXTS, .value.intval = 2};
    CHECK_RC(PAMI_Client_create("second", &again, &cfg, 1), PAMI_SUCCESS);
    pami_context_t ac[2];
    CHECK_RC(PAMI_Context_createv(again, NULL, 0, ac, 2), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Context_createv(again, NULL, 0, ac, 2), PAMI_INVAL, "PAMI_Context_createv");
    CHECK_RC(PAMI_Dispatch_set(ac[0], 11, fn, (void *)(uintptr_t)1, h), PAMI_SUCCESS);
    atomic_store(&hits[1], 0);
    pt_barrier();
    send_on(ac[0], 1, (pt_task + 1) % pt_size);
    end = pt_now() + 20;
    while (atomic_load(&hits[1]) < 1) {
        PAMI_Context_advance(ac[0], 1);
        CHECK(pt_now() < end, "the re-created client got nothing");
    }
    pt_barrier();
    CHECK_RC(PAMI_Context_destroyv(ac, 2), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&again), PAMI_SUCCESS);
    pt_barrier();
}

int main(void)
{
    pt_init(1);
    attributes();
    times();
    clients();
    pt_finish("pami_client");
    return 0;
}
