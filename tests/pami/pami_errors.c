/* Every bad input gets the documented pami_result_t and exactly one
 * stderr line naming the call (CHECK_ERR captures and counts it), never a
 * crash, and leaves the library working (a round of traffic at the end):
 * NULL and bogus client / context handles, NULL parameter structs, NULL
 * out-pointers, endpoints naming a task or a context offset out of range,
 * dispatch ids past 255, bad iovecs, contexts of another client, memory
 * regions never created, bad rmw operations and types, calls that are not
 * emulated (PAMI_Purge / PAMI_Resume).
 *
 * Argument "outside": run as a plain program (not under emunic-run);
 * PAMI_Client_create must fail with one line naming emunic-run, and the
 * program exits 2 saying nothing more (p2p_suite.cmake checks that).
 * Argument "stale": handles used after PAMI_Context_destroyv and
 * PAMI_Memregion_destroy. */
#include "ptest.h"

static atomic_long got;

static void on_msg(pami_context_t ctx, void *cookie, const void *h, size_t hlen, const void *pipe, size_t dlen,
                   pami_endpoint_t origin, pami_recv_t *recv)
{
    (void)ctx, (void)cookie, (void)h, (void)hlen, (void)pipe, (void)dlen, (void)origin, (void)recv;
    atomic_fetch_add(&got, 1);
}

static void client_errors(void)
{
    pami_client_t c;
    pami_configuration_t cfg = {.name = PAMI_CLIENT_TASK_ID};
    int bogus_storage[16] = {0};
    pami_client_t bogus = (pami_client_t)bogus_storage;
    CHECK_ERR(PAMI_Client_create(NULL, &c, NULL, 0), PAMI_INVAL, "PAMI_Client_create");
    CHECK_ERR(PAMI_Client_create("x", NULL, NULL, 0), PAMI_INVAL, "PAMI_Client_create");
    CHECK_ERR(PAMI_Client_create("x", &c, NULL, 1), PAMI_INVAL, "PAMI_Client_create");
    CHECK_ERR(PAMI_Client_create("x", &c, &cfg, 1), PAMI_INVAL, "PAMI_Client_create");
    CHECK_ERR(PAMI_Client_destroy(NULL), PAMI_INVAL, "PAMI_Client_destroy");
    pami_client_t nul = PAMI_CLIENT_NULL;
    CHECK_ERR(PAMI_Client_destroy(&nul), PAMI_INVAL, "PAMI_Client_destroy");
    CHECK_ERR(PAMI_Client_destroy(&bogus), PAMI_INVAL, "PAMI_Client_destroy");
    CHECK_ERR(PAMI_Client_destroy(&pt_client), PAMI_INVAL, "PAMI_Client_destroy"); /* has contexts */
    CHECK_ERR(PAMI_Client_query(NULL, &cfg, 1), PAMI_INVAL, "PAMI_Client_query");
    CHECK_ERR(PAMI_Client_query(bogus, &cfg, 1), PAMI_INVAL, "PAMI_Client_query");
    CHECK_ERR(PAMI_Client_query(pt_client, NULL, 1), PAMI_INVAL, "PAMI_Client_query");
    CHECK_ERR(PAMI_Client_update(NULL, NULL, 0), PAMI_INVAL, "PAMI_Client_update");
    CHECK_ERR(PAMI_Client_update(pt_client, NULL, 2), PAMI_INVAL, "PAMI_Client_update");
    pami_context_t cx[2];
    CHECK_ERR(PAMI_Context_createv(NULL, NULL, 0, cx, 1), PAMI_INVAL, "PAMI_Context_createv");
    CHECK_ERR(PAMI_Context_createv(bogus, NULL, 0, cx, 1), PAMI_INVAL, "PAMI_Context_createv");
    CHECK_ERR(PAMI_Context_createv(pt_client, NULL, 0, NULL, 1), PAMI_INVAL, "PAMI_Context_createv");
    CHECK_ERR(PAMI_Context_createv(pt_client, NULL, 0, cx, 1), PAMI_INVAL, "PAMI_Context_createv"); /* again */
    pami_endpoint_t ep;
    CHECK_ERR(PAMI_Endpoint_create(NULL, 0, 0, &ep), PAMI_INVAL, "PAMI_Endpoint_create");
    CHECK_ERR(PAMI_Endpoint_create(bogus, 0, 0, &ep), PAMI_INVAL, "PAMI_Endpoint_create");
    CHECK_ERR(PAMI_Endpoint_create(pt_client, (pami_task_t)pt_size, 0, &ep), PAMI_INVAL, "PAMI_Endpoint_create");
    CHECK_ERR(PAMI_Endpoint_create(pt_client, 0, 64, &ep), PAMI_INVAL, "PAMI_Endpoint_create");
    CHECK_ERR(PAMI_Endpoint_create(pt_client, 0, 0, NULL), PAMI_INVAL, "PAMI_Endpoint_create");
    pami_task_t t;
    size_t off;
    CHECK_ERR(PAMI_Endpoint_query(0, NULL, &off), PAMI_INVAL, "PAMI_Endpoint_query");
    CHECK_ERR(PAMI_Endpoint_query(0, &t, NULL), PAMI_INVAL, "PAMI_Endpoint_query");
    /* a fresh client's context-count limits */
    pami_client_t c2;
    CHECK_RC(PAMI_Client_create("errors2", &c2, NULL, 0), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Context_createv(c2, NULL, 0, cx, 0), PAMI_INVAL, "PAMI_Context_createv");
    pami_context_t many[65];
    CHECK_ERR(PAMI_Context_createv(c2, NULL, 0, many, 65), PAMI_INVAL, "PAMI_Context_createv");
    CHECK_ERR(PAMI_Context_createv(c2, &cfg, 1, cx, 1), PAMI_INVAL, "PAMI_Context_createv");
    CHECK_RC(PAMI_Context_createv(c2, NULL, 0, many, 64), PAMI_SUCCESS); /* the maximum */
    CHECK_RC(PAMI_Context_destroyv(many, 64), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&c2), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Client_query(c2, &cfg, 1), PAMI_INVAL, "PAMI_Client_query"); /* NULL after destroy */
    /* extensions */
    pami_extension_t e;
    CHECK_ERR(PAMI_Extension_open(NULL, "EXT_async_progress", &e), PAMI_INVAL, "PAMI_Extension_open");
    CHECK_ERR(PAMI_Extension_open(pt_client, NULL, &e), PAMI_INVAL, "PAMI_Extension_open");
    CHECK_ERR(PAMI_Extension_open(pt_client, "EXT_async_progress", NULL), PAMI_INVAL, "PAMI_Extension_open");
    CHECK_ERR(PAMI_Extension_close(NULL), PAMI_INVAL, "PAMI_Extension_close");
    CHECK_ERR(PAMI_Extension_close((pami_extension_t)bogus_storage), PAMI_INVAL, "PAMI_Extension_close");
    char *r;
    ERRCAP_BEGIN();
    r = PAMI_Extension_symbol(NULL, "register");
    char line[512];
    int n = errcap_end(line, sizeof line);
    CHECK(!r && n == 1 && strstr(line, "PAMI_Extension_symbol"), "Extension_symbol(NULL): %d lines: %s", n, line);
    CHECK(PAMI_Error_text(NULL, 10) == 0, "Error_text(NULL)");
}

static void context_errors(void)
{
    pami_context_t ctx = pt_ctx[0];
    int bogus_storage[64] = {0};
    pami_context_t bogus = (pami_context_t)bogus_storage;
    pami_configuration_t cfg = {.name = PAMI_CLIENT_TASK_ID};
    pami_work_t w;
    const char *names[] = {"PAMI_Context_advance", "PAMI_Context_lock", "PAMI_Context_trylock",
                           "PAMI_Context_unlock", "PAMI_Fence_begin", "PAMI_Fence_end"};
    for (int k = 0; k < 2; k++) {
        pami_context_t c = k ? bogus : NULL;
        CHECK_ERR(PAMI_Context_advance(c, 1), PAMI_INVAL, names[0]);
        CHECK_ERR(PAMI_Context_lock(c), PAMI_INVAL, names[1]);
        CHECK_ERR(PAMI_Context_trylock(c), PAMI_INVAL, names[2]);
        CHECK_ERR(PAMI_Context_unlock(c), PAMI_INVAL, names[3]);
        CHECK_ERR(PAMI_Fence_begin(c), PAMI_INVAL, names[4]);
        CHECK_ERR(PAMI_Fence_end(c), PAMI_INVAL, names[5]);
        CHECK_ERR(PAMI_Fence_all(c, NULL, NULL), PAMI_INVAL, "PAMI_Fence_all");
        CHECK_ERR(PAMI_Fence_endpoint(c, NULL, NULL, 0), PAMI_INVAL, "PAMI_Fence_endpoint");
        CHECK_ERR(PAMI_Context_query(c, &cfg, 1), PAMI_INVAL, "PAMI_Context_query");
        CHECK_ERR(PAMI_Context_update(c, NULL, 0), PAMI_INVAL, "PAMI_Context_update");
        CHECK_ERR(PAMI_Context_post(c, &w, NULL, NULL), PAMI_INVAL, "PAMI_Context_post");
        pami_context_t arr[2] = {ctx, c};
        CHECK_ERR(PAMI_Context_advancev(arr, 2, 1), PAMI_INVAL, "PAMI_Context_advancev");
        CHECK_ERR(PAMI_Context_trylock_advancev(arr, 2, 1), PAMI_INVAL, "PAMI_Context_trylock_advancev");
        CHECK_ERR(PAMI_Context_destroyv(&arr[1], 1), PAMI_INVAL, "PAMI_Context_destroyv");
        pami_dispatch_callback_function fn = {.p2p = on_msg};
        pami_dispatch_hint_t h;
        memset(&h, 0, sizeof h);
        CHECK_ERR(PAMI_Dispatch_set(c, 1, fn, NULL, h), PAMI_INVAL, "PAMI_Dispatch_set");
        CHECK_ERR(PAMI_Dispatch_query(c, 1, &cfg, 1), PAMI_INVAL, "PAMI_Dispatch_query");
        CHECK_ERR(PAMI_Dispatch_update(c, 1, NULL, 0), PAMI_INVAL, "PAMI_Dispatch_update");
        pami_send_t s;
        memset(&s, 0, sizeof s);
        CHECK_ERR(PAMI_Send(c, &s), PAMI_INVAL, "PAMI_Send");
        CHECK_ERR(PAMI_Send_immediate(c, &s.send), PAMI_INVAL, "PAMI_Send_immediate");
        pami_send_typed_t st;
        memset(&st, 0, sizeof st);
        CHECK_ERR(PAMI_Send_typed(c, &st), PAMI_INVAL, "PAMI_Send_typed");
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        CHECK_ERR(PAMI_Put(c, &p), PAMI_INVAL, "PAMI_Put");
        pami_get_simple_t g;
        memset(&g, 0, sizeof g);
        CHECK_ERR(PAMI_Get(c, &g), PAMI_INVAL, "PAMI_Get");
        pami_put_typed_t pt;
        memset(&pt, 0, sizeof pt);
        CHECK_ERR(PAMI_Put_typed(c, &pt), PAMI_INVAL, "PAMI_Put_typed");
        pami_get_typed_t gt;
        memset(&gt, 0, sizeof gt);
        CHECK_ERR(PAMI_Get_typed(c, &gt), PAMI_INVAL, "PAMI_Get_typed");
        pami_rput_simple_t rp;
        memset(&rp, 0, sizeof rp);
        CHECK_ERR(PAMI_Rput(c, &rp), PAMI_INVAL, "PAMI_Rput");
        pami_rget_simple_t rg;
        memset(&rg, 0, sizeof rg);
        CHECK_ERR(PAMI_Rget(c, &rg), PAMI_INVAL, "PAMI_Rget");
        pami_rput_typed_t rpt;
        memset(&rpt, 0, sizeof rpt);
        CHECK_ERR(PAMI_Rput_typed(c, &rpt), PAMI_INVAL, "PAMI_Rput_typed");
        pami_rget_typed_t rgt;
        memset(&rgt, 0, sizeof rgt);
        CHECK_ERR(PAMI_Rget_typed(c, &rgt), PAMI_INVAL, "PAMI_Rget_typed");
        pami_rmw_t m;
        memset(&m, 0, sizeof m);
        CHECK_ERR(PAMI_Rmw(c, &m), PAMI_INVAL, "PAMI_Rmw");
        pami_memregion_t mr;
        size_t got_b;
        CHECK_ERR(PAMI_Memregion_create(c, &w, sizeof w, &got_b, &mr), PAMI_INVAL, "PAMI_Memregion_create");
        CHECK_ERR(PAMI_Memregion_destroy(c, &mr), PAMI_INVAL, "PAMI_Memregion_destroy");
    }
    /* NULL arrays and parameter structs on a good context */
    CHECK_ERR(PAMI_Context_advancev(NULL, 1, 1), PAMI_INVAL, "PAMI_Context_advancev");
    CHECK_ERR(PAMI_Context_advancev(&ctx, 0, 1), PAMI_INVAL, "PAMI_Context_advancev");
    CHECK_ERR(PAMI_Context_trylock_advancev(NULL, 1, 1), PAMI_INVAL, "PAMI_Context_trylock_advancev");
    CHECK_ERR(PAMI_Context_destroyv(NULL, 1), PAMI_INVAL, "PAMI_Context_destroyv");
    CHECK_ERR(PAMI_Context_destroyv(&ctx, 0), PAMI_INVAL, "PAMI_Context_destroyv");
    CHECK_ERR(PAMI_Context_post(ctx, NULL, NULL, NULL), PAMI_INVAL,
              "PAMI_Context_post");
    CHECK_ERR(PAMI_Context_query(ctx, NULL, 1), PAMI_INVAL, "PAMI_Context_query");
    CHECK_ERR(PAMI_Context_update(ctx, NULL, 3), PAMI_INVAL, "PAMI_Context_update");
    pami_configuration_t bad = {.name = (pami_attribute_name_t)4242};
    CHECK_ERR(PAMI_Context_query(ctx, &bad, 1), PAMI_INVAL, "PAMI_Context_query");
    CHECK_ERR(PAMI_Dispatch_query(ctx, 1, &bad, 1), PAMI_INVAL, "PAMI_Dispatch_query");
    CHECK_ERR(PAMI_Send(ctx, NULL), PAMI_INVAL, "PAMI_Send");
    CHECK_ERR(PAMI_Send_immediate(ctx, NULL), PAMI_INVAL, "PAMI_Send_immediate");
    CHECK_ERR(PAMI_Send_typed(ctx, NULL), PAMI_INVAL, "PAMI_Send_typed");
    CHECK_ERR(PAMI_Put(ctx, NULL), PAMI_INVAL, "PAMI_Put");
    CHECK_ERR(PAMI_Get(ctx, NULL), PAMI_INVAL, "PAMI_Get");
    CHECK_ERR(PAMI_Put_typed(ctx, NULL), PAMI_INVAL, "PAMI_Put_typed");
    CHECK_ERR(PAMI_Get_typed(ctx, NULL), PAMI_INVAL, "PAMI_Get_typed");
    CHECK_ERR(PAMI_Rput(ctx, NULL), PAMI_INVAL, "PAMI_Rput");
    CHECK_ERR(PAMI_Rget(ctx, NULL), PAMI_INVAL, "PAMI_Rget");
    CHECK_ERR(PAMI_Rput_typed(ctx, NULL), PAMI_INVAL, "PAMI_Rput_typed");
    CHECK_ERR(PAMI_Rget_typed(ctx, NULL), PAMI_INVAL, "PAMI_Rget_typed");
    CHECK_ERR(PAMI_Rmw(ctx, NULL), PAMI_INVAL, "PAMI_Rmw");
    CHECK_ERR(PAMI_Purge(ctx, NULL, 0), PAMI_UNIMPL, "PAMI_Purge");
    CHECK_ERR(PAMI_Resume(ctx, NULL, 0), PAMI_UNIMPL, "PAMI_Resume");
}

/* endpoints, ids, iovecs, regions, rmw on a good context */
static void argument_errors(void)
{
    pami_context_t ctx = pt_ctx[0];
    size_t right = (pt_task + 1) % pt_size;
    pami_endpoint_t bad_task = (pami_endpoint_t)pt_size;                  /* task out of range */
    pami_endpoint_t bad_off = pt_ep(right, 5);                            /* valid encoding, no such context */
    pami_endpoint_t bad_off2 = pt_ep(right, pt_nctx);                     /* one past the last */
    pami_endpoint_t eps[3] = {bad_task, bad_off, bad_off2};
    static uint64_t word, local[8];
    for (int k = 0; k < 3; k++) {
        pami_send_t s;
        memset(&s, 0, sizeof s);
        s.send.dest = eps[k];
        s.send.dispatch = 1;
        CHECK_ERR(PAMI_Send(ctx, &s), PAMI_INVAL, "PAMI_Send");
        CHECK_ERR(PAMI_Send_immediate(ctx, &s.send), PAMI_INVAL, "PAMI_Send_immediate");
        pami_put_simple_t p;
        memset(&p, 0, sizeof p);
        p.rma.dest = eps[k];
        p.rma.bytes = 8;
        p.addr.local = local;
        p.addr.remote = &word;
        CHECK_ERR(PAMI_Put(ctx, &p), PAMI_INVAL, "PAMI_Put");
        pami_rmw_t m;
        memset(&m, 0, sizeof m);
        m.dest = eps[k];
        m.remote = &word;
        m.local = local;
        m.operation = PAMI_ATOMIC_FETCH;
        m.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
        CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
        CHECK_ERR(PAMI_Fence_endpoint(ctx, NULL, NULL, eps[k]), PAMI_INVAL, "PAMI_Fence_endpoint");
    }
    /* dispatch ids */
    pami_dispatch_callback_function fn = {.p2p = on_msg}, nofn = {.p2p = NULL};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_ERR(PAMI_Dispatch_set(ctx, 256, fn, NULL, h), PAMI_INVAL, "PAMI_Dispatch_set");
    CHECK_ERR(PAMI_Dispatch_set(ctx, (size_t)-1, fn, NULL, h), PAMI_INVAL, "PAMI_Dispatch_set");
    CHECK_ERR(PAMI_Dispatch_set(ctx, 1, nofn, NULL, h), PAMI_INVAL, "PAMI_Dispatch_set");
    pami_configuration_t q = {.name = PAMI_DISPATCH_RECV_IMMEDIATE_MAX};
    CHECK_ERR(PAMI_Dispatch_query(ctx, 256, &q, 1), PAMI_INVAL, "PAMI_Dispatch_query");
    CHECK_ERR(PAMI_Dispatch_update(ctx, 256, NULL, 0), PAMI_INVAL, "PAMI_Dispatch_update");
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.dest = pt_ep(right, 0);
    s.send.dispatch = 256;
    CHECK_ERR(PAMI_Send(ctx, &s), PAMI_INVAL, "PAMI_Send");
    CHECK_ERR(PAMI_Send_immediate(ctx, &s.send), PAMI_INVAL, "PAMI_Send_immediate");
    s.send.dispatch = 1;
    s.send.header.iov_len = 4; /* no base */
    CHECK_ERR(PAMI_Send(ctx, &s), PAMI_INVAL, "PAMI_Send");
    s.send.header.iov_len = 0;
    s.send.data.iov_len = 4;
    CHECK_ERR(PAMI_Send(ctx, &s), PAMI_INVAL, "PAMI_Send");
    pami_send_typed_t st;
    memset(&st, 0, sizeof st);
    st.send.dest = pt_ep(right, 0);
    st.send.dispatch = 1;
    st.send.data.iov_base = local;
    st.send.data.iov_len = 8;
    st.typed.type = NULL;
    CHECK_ERR(PAMI_Send_typed(ctx, &st), PAMI_INVAL, "PAMI_Send_typed");
    pami_type_t open;
    CHECK_RC(PAMI_Type_create(&open), PAMI_SUCCESS);
    st.typed.type = open; /* not completed */
    CHECK_ERR(PAMI_Send_typed(ctx, &st), PAMI_INVAL, "PAMI_Send_typed");
    CHECK_RC(PAMI_Type_destroy(&open), PAMI_SUCCESS);

    /* memory regions */
    pami_memregion_t mr, zero;
    memset(&zero, 0, sizeof zero);
    size_t got_b;
    CHECK_ERR(PAMI_Memregion_create(ctx, local, sizeof local, NULL, &mr), PAMI_INVAL, "PAMI_Memregion_create");
    CHECK_ERR(PAMI_Memregion_create(ctx, local, sizeof local, &got_b, NULL), PAMI_INVAL, "PAMI_Memregion_create");
    CHECK_ERR(PAMI_Memregion_create(ctx, NULL, 8, &got_b, &mr), PAMI_INVAL, "PAMI_Memregion_create");
    CHECK_ERR(PAMI_Memregion_create(ctx, (void *)(uintptr_t)-16, 64, &got_b, &mr), PAMI_INVAL,
              "PAMI_Memregion_create");
    CHECK_ERR(PAMI_Memregion_destroy(ctx, NULL), PAMI_INVAL, "PAMI_Memregion_destroy");
    CHECK_ERR(PAMI_Memregion_destroy(ctx, &zero), PAMI_INVAL, "PAMI_Memregion_destroy");
    CHECK_RC(PAMI_Memregion_create(ctx, local, sizeof local, &got_b, &mr), PAMI_SUCCESS);
    pami_rput_simple_t rp;
    memset(&rp, 0, sizeof rp);
    rp.rma.dest = pt_ep(pt_task, 0);
    rp.rma.bytes = 8;
    rp.rdma.local.mr = &zero;
    rp.rdma.remote.mr = &mr;
    CHECK_ERR(PAMI_Rput(ctx, &rp), PAMI_INVAL, "PAMI_Rput"); /* never created */
    rp.rdma.local.mr = NULL;
    CHECK_ERR(PAMI_Rput(ctx, &rp), PAMI_INVAL, "PAMI_Rput");
    rp.rdma.local.mr = &mr;
    rp.rdma.remote.mr = NULL;
    CHECK_ERR(PAMI_Rput(ctx, &rp), PAMI_INVAL, "PAMI_Rput");
    rp.rdma.remote.mr = &mr;
    rp.rma.dest = bad_off;
    CHECK_ERR(PAMI_Rput(ctx, &rp), PAMI_INVAL, "PAMI_Rput");
    pami_rget_simple_t rg;
    memset(&rg, 0, sizeof rg);
    rg.rma.dest = pt_ep(pt_task, 0);
    rg.rma.bytes = 8;
    rg.rdma.local.mr = &mr;
    rg.rdma.remote.mr = &zero;
    CHECK_ERR(PAMI_Rget(ctx, &rg), PAMI_INVAL, "PAMI_Rget");
    rg.rdma.remote.mr = &mr;
    rg.rdma.remote.offset = sizeof local;
    CHECK_ERR(PAMI_Rget(ctx, &rg), PAMI_INVAL, "PAMI_Rget");
    CHECK_RC(PAMI_Memregion_destroy(ctx, &mr), PAMI_SUCCESS);

    /* rmw: operations, types, missing operands */
    pami_rmw_t m;
    memset(&m, 0, sizeof m);
    m.dest = pt_ep(pt_task, 0);
    m.remote = &word;
    m.local = local;
    m.value = local;
    m.test = local;
    m.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
    const unsigned badops[] = {0, PAMI_ATOMIC_COMPARE, 6u << 2, 7u << 2, (6u << 2) | 1, 0x20, 0xff};
    for (size_t i = 0; i < sizeof badops / sizeof badops[0]; i++) {
        m.operation = (pami_atomic_t)badops[i];
        CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
    }
    m.operation = PAMI_ATOMIC_FETCH_ADD;
    pami_type_t badtypes[] = {PAMI_TYPE_DOUBLE, PAMI_TYPE_FLOAT, PAMI_TYPE_BYTE, PAMI_TYPE_SIGNED_CHAR,
                              PAMI_TYPE_UNSIGNED_SHORT, NULL};
    for (size_t i = 0; i < sizeof badtypes / sizeof badtypes[0]; i++) {
        m.type = badtypes[i];
        CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
    }
    m.type = PAMI_TYPE_SIGNED_INT;
    m.remote = NULL;
    CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
    m.remote = &word;
    m.local = NULL;
    CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
    m.local = local;
    m.value = NULL;
    CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
    m.operation = PAMI_ATOMIC_COMPARE_SET;
    m.value = local;
    m.test = NULL;
    CHECK_ERR(PAMI_Rmw(ctx, &m), PAMI_INVAL, "PAMI_Rmw");
}

/* A context of one client with an endpoint of a client that has more
 * contexts: the endpoint's offset is checked against the sender's client. */
static void wrong_client(void)
{
    pami_client_t c2;
    pami_context_t cx[3];
    CHECK_RC(PAMI_Client_create("wrong", &c2, NULL, 0), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_createv(c2, NULL, 0, cx, 3), PAMI_SUCCESS);
    pami_endpoint_t ep2;
    CHECK_RC(PAMI_Endpoint_create(c2, (pami_task_t)((pt_task + 1) % pt_size), 2, &ep2), PAMI_SUCCESS);
    pami_send_t s;
    memset(&s, 0, sizeof s);
    s.send.dest = ep2;
    s.send.dispatch = 1;
    /* pt_client has one context: offset 2 does not exist there */
    CHECK_ERR(PAMI_Send(pt_ctx[0], &s), PAMI_INVAL, "PAMI_Send");
    /* destroying c2's contexts through a list that also names pt_client's is
     * legal PAMI (they need not share a client) but would tear down the
     * harness: do the legal thing and check c2 is gone afterwards */
    CHECK_ERR(PAMI_Client_destroy(&c2), PAMI_INVAL, "PAMI_Client_destroy");
    CHECK_RC(PAMI_Context_destroyv(cx, 3), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&c2), PAMI_SUCCESS);
    pt_barrier();
}

/* The library still works: one message to every task. */
static void still_works(void)
{
    pami_dispatch_callback_function fn = {.p2p = on_msg};
    pami_dispatch_hint_t h;
    memset(&h, 0, sizeof h);
    CHECK_RC(PAMI_Dispatch_set(pt_ctx[0], 1, fn, NULL, h), PAMI_SUCCESS);
    pt_barrier();
    for (size_t t = 0; t < pt_size; t++) {
        pami_send_immediate_t s;
        memset(&s, 0, sizeof s);
        s.dest = pt_ep(t, 0);
        s.dispatch = 1;
        CHECK_RC(PAMI_Send_immediate(pt_ctx[0], &s), PAMI_SUCCESS);
    }
    pt_wait(pt_ctx[0], &got, (long)pt_size, 20);
}

/* Handles after their destruction: refused with one line, not a crash. */
static void stale(void)
{
    pami_client_t c2;
    pami_context_t cx[2], keep[2];
    CHECK_RC(PAMI_Client_create("stale", &c2, NULL, 0), PAMI_SUCCESS);
    CHECK_RC(PAMI_Context_createv(c2, NULL, 0, cx, 2), PAMI_SUCCESS);
    keep[0] = cx[0];
    keep[1] = cx[1];
    CHECK_RC(PAMI_Context_destroyv(cx, 2), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Context_advance(keep[0], 1), PAMI_INVAL, "PAMI_Context_advance");
    CHECK_ERR(PAMI_Context_lock(keep[1]), PAMI_INVAL, "PAMI_Context_lock");
    CHECK_ERR(PAMI_Context_destroyv(keep, 2), PAMI_INVAL, "PAMI_Context_destroyv");
    pami_client_t kc = c2;
    CHECK_RC(PAMI_Client_destroy(&c2), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Client_destroy(&kc), PAMI_INVAL, "PAMI_Client_destroy");
    pami_extension_t e;
    CHECK_RC(PAMI_Extension_open(pt_client, "EXT_async_progress", &e), PAMI_SUCCESS);
    CHECK_RC(PAMI_Extension_close(e), PAMI_SUCCESS);
    CHECK_ERR(PAMI_Extension_close(e), PAMI_INVAL, "PAMI_Extension_close");
    pt_barrier();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "outside")) {
        pami_client_t c;
        if (PAMI_Client_create("outside", &c, NULL, 0) != PAMI_SUCCESS)
            return 2; /* the library said why, in one line */
        fprintf(stderr, "PAMI_Client_create succeeded outside emunic-run\n");
        return 0;
    }
    pt_init(1);
    if (argc > 1 && !strcmp(argv[1], "stale")) {
        stale();
        still_works();
        pt_finish("pami_errors stale");
        return 0;
    }
    client_errors();
    context_errors();
    argument_errors();
    wrong_client();
    still_works();
    pt_finish("pami_errors");
    return 0;
}
