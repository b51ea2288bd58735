/* Every bad input gets the documented result and exactly one stderr line
 * naming the call (CHECK_ERR captures and counts it), never a crash, and
 * leaves the library working: calls before DCMF_Messager_initialize
 * (DCMF_ERROR), unregistered / NULL / wrong-kind protocols, NULL requests,
 * ranks out of range, bad consistency, msginfo count and pointers, requests
 * still in use, bad registrations; a flood of refused gets reported in a
 * bounded number of lines.
 *
 * Argument "outside": run as a plain program (not under emunic-run); the
 * calls before initialize behave the same, and DCMF_Messager_initialize
 * must end the program with a non-zero status and one line naming
 * emunic-run (p2p.cmake checks that). */
#include "dtest.h"

static DCMF_Protocol_t send_p, ctl_p, put_p, get_p;
static volatile int shorts, longs;
static uint8_t *rbuf;
static DCMF_Request_t rreq;
static struct dt_rec rdone;

static void on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    (void)mi;
    (void)count;
    (void)peer;
    CHECK_PAT(src, bytes, 77, 0, "short message after the errors");
    dt_inc(&shorts);
}

static DCMF_Request_t *on_long(void *cd, const DCQuad *mi, unsigned count, size_t peer, size_t sndlen, size_t *rcvlen,
                               char **rcvbuf, DCMF_Callback_t *cb_done)
{
    (void)cd;
    (void)mi;
    (void)count;
    (void)peer;
    *rcvlen = sndlen;
    *rcvbuf = (char *)rbuf;
    *cb_done = dt_done(&rdone);
    dt_inc(&longs);
    return &rreq;
}

static void on_ctl(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    (void)info;
    (void)peer;
}

/* Before initialize: DCMF_ERROR and one line from each call. */
static void before_init(void)
{
    DCMF_Protocol_t p;
    DCMF_Request_t r;
    DCMF_Memregion_t m;
    DCMF_Control_t info;
    DCMF_Hardware_t hw;
    DCMF_Configure_t c;
    DCMF_NetworkCoord_t a;
    size_t out, rank;
    static char buf[100];
    memset(&p, 0, sizeof p);
    memset(&r, 0, sizeof r);
    memset(&m, 0, sizeof m);
    memset(&info, 0, sizeof info);
    memset(&a, 0, sizeof a);
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ctl, NULL};
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_ERR(DCMF_Send_register(&p, &sc), DCMF_ERROR, "DCMF_Send_register");
    CHECK_ERR(DCMF_Control_register(&p, &cc), DCMF_ERROR, "DCMF_Control_register");
    CHECK_ERR(DCMF_Put_register(&p, &pc), DCMF_ERROR, "DCMF_Put_register");
    CHECK_ERR(DCMF_Get_register(&p, &gc), DCMF_ERROR, "DCMF_Get_register");
    CHECK_ERR(DCMF_Send(&p, &r, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, 0, 10, buf, NULL, 0), DCMF_ERROR, "DCMF_Send");
    CHECK_ERR(DCMF_Put(&p, &r, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, 0, 10, &m, &m, 0, 0, dt_nocb()), DCMF_ERROR,
              "DCMF_Put");
    CHECK_ERR(DCMF_Get(&p, &r, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, 0, 10, &m, &m, 0, 0), DCMF_ERROR, "DCMF_Get");
    CHECK_ERR(DCMF_Control(&p, DCMF_SEQUENTIAL_CONSISTENCY, 0, &info), DCMF_ERROR, "DCMF_Control");
    CHECK_ERR(DCMF_Memregion_create(&m, &out, sizeof buf, buf, 0), DCMF_ERROR, "DCMF_Memregion_create");
    CHECK_ERR(DCMF_Memregion_destroy(&m), DCMF_ERROR, "DCMF_Memregion_destroy");
    CHECK_ERR(DCMF_Restart(&r), DCMF_ERROR, "DCMF_Restart");
    CHECK_ERR(DCMF_Hardware(&hw), DCMF_ERROR, "DCMF_Hardware");
    CHECK_ERR(DCMF_Messager_configure(NULL, &c), DCMF_ERROR, "DCMF_Messager_configure");
    CHECK_ERR(DCMF_Messager_rank2network(0, DCMF_TORUS_NETWORK, &a), DCMF_ERROR, "DCMF_Messager_rank2network");
    a.network = DCMF_TORUS_NETWORK;
    CHECK_ERR(DCMF_Messager_network2rank(&a, &rank, NULL), DCMF_ERROR, "DCMF_Messager_network2rank");
    CHECK(DCMF_Messager_advance() == 0, "advance before initialize processed something");
    CHECK(DCMF_Messager_finalize() == 0, "finalize before initialize returned non-zero");
}

static const size_t BIG = 1024 * 1024;

/* ---- running out: region slots, protocol numbers ---- */

static DCMF_Protocol_t *exh_protos; /* registered: kept until finalize */

static void exhaustion(void)
{
    enum { MAXMR = 2048 };
    static char buf[64];
    DCMF_Memregion_t *m = dt_xmalloc(MAXMR * sizeof *m);
    int n = 0;
    char line[512];
    int rc = DCMF_SUCCESS, lines = 0;
    /* create until the NIC has no slot left: EAGAIN, not a crash */
    for (; n < MAXMR; n++) {
        ERRCAP_BEGIN();
        rc = DCMF_Memregion_create(&m[n], NULL, sizeof buf, buf, 0);
        lines = errcap_end(line, sizeof line);
        if (rc != DCMF_SUCCESS)
            break;
    }
    CHECK(n < MAXMR, "%d regions created and no limit met", MAXMR);
    CHECK(rc == DCMF_EAGAIN && lines == 1 && strstr(line, "DCMF_Memregion_create"),
          "region %d: create returned %d (%d lines: %s), expected DCMF_EAGAIN and one line", n, rc, lines, line);
    for (int i = 0; i < n; i++)
        CHECK_RC(DCMF_Memregion_destroy(&m[i]), DCMF_SUCCESS);
    /* all of them come back */
    for (int i = 0; i < n; i++)
        CHECK_RC(DCMF_Memregion_create(&m[i], NULL, sizeof buf, buf, 0), DCMF_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK_RC(DCMF_Memregion_destroy(&m[i]), DCMF_SUCCESS);
    free(m);

    /* send and control protocol numbers run out too (the same on every
     * rank, as registrations must be) */
    DCMF_Protocol_t *p = exh_protos = dt_xmalloc(1024 * sizeof *p);
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ctl, NULL};
    int ns = 0, nc = 0;
    for (; ns < 1024; ns++) {
        ERRCAP_BEGIN();
        rc = DCMF_Send_register(&p[ns], &sc);
        lines = errcap_end(line, sizeof line);
        if (rc != DCMF_SUCCESS)
            break;
    }
    CHECK(ns < 1024 && rc == DCMF_EAGAIN && lines == 1 && strstr(line, "DCMF_Send_register"),
          "send protocol %d: register returned %d (%s), expected DCMF_EAGAIN", ns, rc, line);
    for (; nc < 1024; nc++) {
        ERRCAP_BEGIN();
        rc = DCMF_Control_register(&p[nc], &cc);
        lines = errcap_end(line, sizeof line);
        if (rc != DCMF_SUCCESS)
            break;
    }
    CHECK(nc < 1024 && rc == DCMF_EAGAIN && lines == 1 && strstr(line, "DCMF_Control_register"),
          "control protocol %d: register returned %d (%s), expected DCMF_EAGAIN", nc, rc, line);
    if (dt_me == 0)
        printf("limits: %d more regions, %d more send and %d more control protocols\n", n, ns, nc);
    /* the protocols registered before still work */
    dt_barrier();
}

/* ---- a peer that has finalized ---- */

static volatile int global_errors, global_peer = -1, global_result;

/* Gets the target's kernel refuses (an address below 64 KiB, inside a
 * whole-address-space region): each fails through cb_done, and stderr has
 * one line for each of the first 10, then only the 100th, 1000th, ... (a
 * client that ignores statuses, as OSPRI A1's get benchmark, made millions
 * of lines). Runs before any other failure of this process. */
static void refused_flood(size_t to, DCMF_Memregion_t *dm)
{
    DCMF_Memregion_t whole, *all = dt_xmalloc(dt_np * sizeof whole);
    size_t bytes = 0;
    CHECK_RC(DCMF_Memregion_create(&whole, &bytes, (size_t)-1, NULL, 0), DCMF_SUCCESS);
    dt_exchange_regions(&whole, all);
    enum { N = 150 };
    struct dt_rec g;
    dt_rec_init(&g);
    DCMF_Request_t req;
    char line[512];
    ERRCAP_BEGIN();
    for (int i = 0; i < N; i++) {
        CHECK_RC(DCMF_Get(&get_p, &req, dt_done(&g), DCMF_SEQUENTIAL_CONSISTENCY, to, 8, &all[to], dm, 0x1000, 0),
                 DCMF_SUCCESS);
        wait_until(&g.calls, i + 1, DT_WAIT_S);
    }
    int lines = errcap_end(line, sizeof line);
    CHECK(dt_get(&g.errors) == N && dt_get(&g.result) == DCMF_ERROR,
          "refused gets: %d of %d cb_done with an error, result %d", dt_get(&g.errors), N, dt_get(&g.result));
    CHECK(lines == 11 && strstr(line, "get to rank") && strstr(line, "refused"),
          "%d refused gets: %d stderr lines, expected 11 (10, then the 100th); first: \"%s\"", N, lines, line);
    dt_barrier(); /* nobody's region goes while a peer still gets from it */
    CHECK_RC(DCMF_Memregion_destroy(&whole), DCMF_SUCCESS);
    free(all);
}

static void on_global_error(DCMF_Error_t *e, size_t peer)
{
    CHECK(e != NULL, "global error handler: error NULL");
    dt_set(&global_result, (int)e->result);
    dt_set(&global_peer, (int)peer);
    dt_inc(&global_errors);
}

/* Rank 1 finalizes; rank 0's puts and sends to it then fail with
 * DCMF_SHUTDOWN, through the callbacks and the DCMF_Error_register
 * handler. The others just finalize. */
static void dead_peer(DCMF_Memregion_t *sm, DCMF_Memregion_t *all_dst)
{
    DCMF_Error_request_t ereq;
    CHECK_RC(DCMF_Error_register(&ereq, on_global_error), DCMF_SUCCESS);
    dt_barrier();
    if (dt_me == 0 && dt_np > 1) {
        /* no way to hear of rank 1's finalize but trying */
        double end = dt_now() + 30;
        struct dt_rec ack;
        DCMF_Request_t req;
        int tries = 0;
        for (;;) {
            dt_rec_init(&ack);
            CHECK_RC(DCMF_Put(&put_p, &req, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, 1, 8, sm, &all_dst[1], 0, 0,
                              dt_ack(&ack)),
                     DCMF_SUCCESS);
            ERRCAP_BEGIN(); /* the library reports the failure on stderr */
            wait_until(&ack.calls, 1, DT_WAIT_S);
            char line[512];
            errcap_end(line, sizeof line);
            tries++;
            if (dt_get(&ack.errors))
                break;
            CHECK(dt_now() < end, "rank 1 finalized 30 s ago and puts to it still succeed");
            dt_sleep_ms(10);
        }
        CHECK(dt_get(&ack.result) == DCMF_SHUTDOWN, "put to a finalized rank: cb_ack result %d, expected DCMF_SHUTDOWN",
              dt_get(&ack.result));
        CHECK(dt_get(&global_errors) >= 1 && dt_get(&global_peer) == 1 && dt_get(&global_result) == DCMF_SHUTDOWN,
              "the DCMF_Error_register handler: %d calls, peer %d, result %d; expected peer 1, DCMF_SHUTDOWN",
              dt_get(&global_errors), dt_get(&global_peer), dt_get(&global_result));
        /* a send fails the same way */
        struct dt_rec sd;
        dt_rec_init(&sd);
        static char payload[300];
        ERRCAP_BEGIN();
        CHECK_RC(DCMF_Send(&send_p, &req, dt_done(&sd), DCMF_SEQUENTIAL_CONSISTENCY, 1, sizeof payload, payload, NULL, 0),
                 DCMF_SUCCESS);
        wait_until(&sd.calls, 1, DT_WAIT_S);
        char line[512];
        errcap_end(line, sizeof line);
        CHECK(dt_get(&sd.errors) == 1 && dt_get(&sd.result) == DCMF_SHUTDOWN,
              "send to a finalized rank: cb_done errors %d result %d", dt_get(&sd.errors), dt_get(&sd.result));
        printf("dead peer: error after %d put(s); %d calls of the global error handler\n", tries,
               dt_get(&global_errors));
    }
    CHECK(DCMF_Messager_finalize() == 1, "finalize");
    if (dt_me == 0)
        printf("dcmf_errors: ok (%zu ranks)\n", dt_np);
}

int main(int argc, char **argv)
{
    before_init();
    if (argc > 1 && !strcmp(argv[1], "outside")) {
        DCMF_Messager_initialize();
        /* it must not come back: there is no job to attach to */
        printf("DCMF_Messager_initialize returned outside emunic-run\n");
        return 0;
    }
    dt_init();
    size_t to = (dt_me + 1) % dt_np;
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_short, NULL, on_long, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ctl, NULL};
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    DCMF_Get_Configuration_t gc = {DCMF_DEFAULT_GET_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_RC(DCMF_Send_register(&send_p, &sc), DCMF_SUCCESS);
    CHECK_RC(DCMF_Control_register(&ctl_p, &cc), DCMF_SUCCESS);
    CHECK_RC(DCMF_Put_register(&put_p, &pc), DCMF_SUCCESS);
    CHECK_RC(DCMF_Get_register(&get_p, &gc), DCMF_SUCCESS);

    uint8_t *src = dt_xmalloc(BIG), *dst = dt_xmalloc(BIG);
    rbuf = dt_xmalloc(BIG);
    dt_fill(src, BIG, 77, 0);
    memset(dst, 0, BIG);
    DCMF_Memregion_t sm, dm, *all_dst = dt_xmalloc(dt_np * sizeof dm), zero_m, junk_m;
    CHECK_RC(DCMF_Memregion_create(&sm, NULL, BIG, src, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Memregion_create(&dm, NULL, BIG, dst, 0), DCMF_SUCCESS);
    dt_exchange_regions(&dm, all_dst);
    DCMF_Memregion_t *rm = &all_dst[to];
    memset(&zero_m, 0, sizeof zero_m);
    memset(&junk_m, 0xff, sizeof junk_m);

    DCMF_Protocol_t zero_p, junk_p;
    memset(&zero_p, 0, sizeof zero_p);
    memset(&junk_p, 0xff, sizeof junk_p);
    DCMF_Request_t r;
    memset(&r, 0, sizeof r);
    DCQuad mi[8];
    memset(mi, 0, sizeof mi);
    char *s = (char *)src;
    const DCMF_Consistency SEQ = DCMF_SEQUENTIAL_CONSISTENCY;
    struct dt_rec never;
    dt_rec_init(&never);
    DCMF_Callback_t cb = dt_done(&never);

    /* ---- protocols ---- */
    CHECK_ERR(DCMF_Send(NULL, &r, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&zero_p, &r, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&junk_p, &r, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&put_p, &r, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&ctl_p, &r, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Put(NULL, &r, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&zero_p, &r, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&junk_p, &r, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&get_p, &r, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&send_p, &r, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(NULL, &r, cb, SEQ, to, 10, rm, &sm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Get(&zero_p, &r, cb, SEQ, to, 10, rm, &sm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Get(&put_p, &r, cb, SEQ, to, 10, rm, &sm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Get(&ctl_p, &r, cb, SEQ, to, 10, rm, &sm, 0, 0), DCMF_INVAL, "DCMF_Get");
    DCMF_Control_t info;
    memset(&info, 0, sizeof info);
    CHECK_ERR(DCMF_Control(NULL, SEQ, to, &info), DCMF_INVAL, "DCMF_Control");
    CHECK_ERR(DCMF_Control(&zero_p, SEQ, to, &info), DCMF_INVAL, "DCMF_Control");
    CHECK_ERR(DCMF_Control(&junk_p, SEQ, to, &info), DCMF_INVAL, "DCMF_Control");
    CHECK_ERR(DCMF_Control(&send_p, SEQ, to, &info), DCMF_INVAL, "DCMF_Control");
    CHECK_ERR(DCMF_Control(&put_p, SEQ, to, &info), DCMF_INVAL, "DCMF_Control");

    /* ---- requests ---- */
    CHECK_ERR(DCMF_Send(&send_p, NULL, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Put(&put_p, NULL, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, NULL, cb, SEQ, to, 10, rm, &dm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Restart(NULL), DCMF_INVAL, "DCMF_Restart");
    CHECK_ERR(DCMF_Restart(&r), DCMF_INVAL, "DCMF_Restart"); /* never used */

    /* ---- ranks ---- */
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, dt_np, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, (size_t)-1, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Put(&put_p, &r, cb, SEQ, dt_np, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, &r, cb, SEQ, dt_np + 100, 10, rm, &dm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Control(&ctl_p, SEQ, dt_np, &info), DCMF_INVAL, "DCMF_Control");

    /* ---- consistency ---- */
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, (DCMF_Consistency)4, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, (DCMF_Consistency)-1, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Put(&put_p, &r, cb, (DCMF_Consistency)4, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, &r, cb, (DCMF_Consistency)99, to, 10, rm, &dm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Control(&ctl_p, (DCMF_Consistency)4, to, &info), DCMF_INVAL, "DCMF_Control");

    /* ---- msginfo and source ---- */
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, to, 10, s, mi, 8), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, to, 10, s, mi, 1000), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, to, 10, s, NULL, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, to, 10, NULL, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Send(&send_p, &r, cb, SEQ, to, BIG, NULL, mi, 0), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Control(&ctl_p, SEQ, to, NULL), DCMF_INVAL, "DCMF_Control");

    /* ---- memory regions in a transfer ---- */
    CHECK_ERR(DCMF_Put(&put_p, &r, cb, SEQ, to, 10, NULL, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&put_p, &r, cb, SEQ, to, 10, &sm, NULL, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&put_p, &r, cb, SEQ, to, 10, &zero_m, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Put(&put_p, &r, cb, SEQ, to, 10, &sm, &junk_m, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, &r, cb, SEQ, to, 10, &zero_m, &dm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Get(&get_p, &r, cb, SEQ, to, 10, rm, NULL, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Memregion_create(NULL, NULL, 10, s, 0), DCMF_INVAL, "DCMF_Memregion_create");
    CHECK_ERR(DCMF_Memregion_destroy(NULL), DCMF_INVAL, "DCMF_Memregion_destroy");
    CHECK_ERR(DCMF_Memregion_destroy(&zero_m), DCMF_INVAL, "DCMF_Memregion_destroy");
    CHECK_ERR(DCMF_Memregion_query(&junk_m, NULL, NULL), DCMF_INVAL, "DCMF_Memregion_query");

    /* ---- registrations ---- */
    DCMF_Protocol_t np_;
    DCMF_Send_Configuration_t bad_sc = sc;
    CHECK_ERR(DCMF_Send_register(NULL, &sc), DCMF_INVAL, "DCMF_Send_register");
    CHECK_ERR(DCMF_Send_register(&np_, NULL), DCMF_INVAL, "DCMF_Send_register");
    bad_sc.cb_recv_short = NULL;
    bad_sc.cb_recv = NULL;
    CHECK_ERR(DCMF_Send_register(&np_, &bad_sc), DCMF_INVAL, "DCMF_Send_register");
    bad_sc = sc;
    bad_sc.protocol = DCMF_SEND_PROTOCOL_COUNT;
    CHECK_ERR(DCMF_Send_register(&np_, &bad_sc), DCMF_INVAL, "DCMF_Send_register");
    bad_sc = sc;
    bad_sc.network = DCMF_NETWORK_COUNT;
    CHECK_ERR(DCMF_Send_register(&np_, &bad_sc), DCMF_INVAL, "DCMF_Send_register");
    bad_sc.network = DCMF_SOCKET_NETWORK;
    CHECK_ERR(DCMF_Send_register(&np_, &bad_sc), DCMF_UNIMPL, "DCMF_Send_register");
    DCMF_Control_Configuration_t bad_cc = cc;
    bad_cc.cb_recv = NULL;
    CHECK_ERR(DCMF_Control_register(&np_, &bad_cc), DCMF_INVAL, "DCMF_Control_register");
    bad_cc = cc;
    bad_cc.protocol = DCMF_CONTROL_PROTOCOL_COUNT;
    CHECK_ERR(DCMF_Control_register(&np_, &bad_cc), DCMF_INVAL, "DCMF_Control_register");
    CHECK_ERR(DCMF_Control_register(NULL, &cc), DCMF_INVAL, "DCMF_Control_register");
    DCMF_Put_Configuration_t bad_pc = {DCMF_PUT_PROTOCOL_COUNT, DCMF_DEFAULT_NETWORK};
    CHECK_ERR(DCMF_Put_register(&np_, &bad_pc), DCMF_INVAL, "DCMF_Put_register");
    CHECK_ERR(DCMF_Put_register(&np_, NULL), DCMF_INVAL, "DCMF_Put_register");
    CHECK_ERR(DCMF_Put_register(NULL, &pc), DCMF_INVAL, "DCMF_Put_register");
    DCMF_Get_Configuration_t bad_gc = {DCMF_DEFAULT_GET_PROTOCOL, (DCMF_Network)99};
    CHECK_ERR(DCMF_Get_register(&np_, &bad_gc), DCMF_INVAL, "DCMF_Get_register");
    CHECK_ERR(DCMF_Hardware(NULL), DCMF_INVAL, "DCMF_Hardware");
    size_t rank;
    CHECK_ERR(DCMF_Messager_network2rank(NULL, &rank, NULL), DCMF_INVAL, "DCMF_Messager_network2rank");
    CHECK_ERR(DCMF_Messager_rank2network(0, DCMF_TORUS_NETWORK, NULL), DCMF_INVAL, "DCMF_Messager_rank2network");
    CHECK_ERR(DCMF_Messager_rank2network(0, (DCMF_Network)42, (DCMF_NetworkCoord_t *)mi), DCMF_INVAL,
              "DCMF_Messager_rank2network");

    /* none of that may have posted anything or called back */
    dt_barrier();
    CHECK(dt_get(&never.calls) == 0, "a refused call ran a callback");
    CHECK(dt_get(&shorts) == 0 && dt_get(&longs) == 0, "a refused send arrived (%d short, %d long)", dt_get(&shorts), dt_get(&longs));
    CHECK_BYTES(dst, BIG, 0, "memory a refused put named");
    /* Before the barrier: a left neighbour released before us sends its
     * long message at once, and our barrier wait advances, so the receive
     * (and its cb_done on rdone) can finish before we leave the barrier. */
    dt_rec_init(&rdone);
    dt_barrier(); /* nobody sends for real before everyone has looked */

    /* ---- a request still in use ---- */
    struct dt_rec pdone, pack, sdone, gdone;
    dt_rec_init(&pdone);
    dt_rec_init(&pack);
    dt_rec_init(&sdone);
    dt_rec_init(&gdone);
    DCMF_Request_t busy, sbusy;
    /* uninitialised request storage is fine for a new operation */
    memset(&busy, 0xff, sizeof busy);
    memset(&sbusy, 0x5a, sizeof sbusy);
    CHECK_RC(DCMF_Put(&put_p, &busy, dt_done(&pdone), DCMF_RELAXED_CONSISTENCY, to, BIG, &sm, rm, 0, 0, dt_ack(&pack)),
             DCMF_SUCCESS);
    CHECK_ERR(DCMF_Put(&put_p, &busy, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Get(&get_p, &busy, cb, SEQ, to, 10, rm, &dm, 0, 0), DCMF_INVAL, "DCMF_Get");
    CHECK_ERR(DCMF_Send(&send_p, &busy, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Restart(&busy), DCMF_INVAL, "DCMF_Restart");
    /* a long send stays in use until the receiver has pulled it */
    CHECK_RC(DCMF_Send(&send_p, &sbusy, dt_done(&sdone), SEQ, to, BIG, s, mi, 2), DCMF_SUCCESS);
    CHECK_ERR(DCMF_Send(&send_p, &sbusy, cb, SEQ, to, 10, s, mi, 1), DCMF_INVAL, "DCMF_Send");
    CHECK_ERR(DCMF_Put(&put_p, &sbusy, cb, SEQ, to, 10, &sm, rm, 0, 0, cb), DCMF_INVAL, "DCMF_Put");
    CHECK_ERR(DCMF_Restart(&sbusy), DCMF_INVAL, "DCMF_Restart");
    /* the refused reuses did not disturb the operations in flight */
    wait_until(&pack.calls, 1, DT_WAIT_S);
    wait_until(&pdone.calls, 1, DT_WAIT_S);
    wait_until(&sdone.calls, 1, DT_WAIT_S);
    wait_until(&longs, 1, DT_WAIT_S);
    wait_until(&rdone.calls, 1, DT_WAIT_S);
    CHECK_REC(&pdone, 1, 0, "put in flight during refused reuse: cb_done");
    CHECK_REC(&pack, 0, 1, "put in flight during refused reuse: cb_ack");
    CHECK_REC(&sdone, 1, 0, "send in flight during refused reuse: cb_done");
    CHECK_REC(&rdone, 1, 0, "long receive");
    CHECK_PAT(rbuf, BIG, 77, 0, "long send that was in flight during refused reuses");
    /* and once complete, the request is free again */
    CHECK_RC(DCMF_Get(&get_p, &busy, dt_done(&gdone), SEQ, to, 100, rm, &dm, 0, 0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Send(&send_p, &sbusy, dt_done(&sdone), SEQ, to, 20, s, NULL, 0), DCMF_SUCCESS);
    wait_until(&gdone.calls, 1, DT_WAIT_S);
    wait_until(&sdone.calls, 2, DT_WAIT_S);
    wait_until(&shorts, 1, DT_WAIT_S);
    CHECK_PAT(dst, 100, 77, 0, "get of what the put in flight wrote");
    dt_barrier();
    CHECK_PAT(dst, BIG, 77, 0, "put from my left neighbour that was in flight during its refused reuses");
    CHECK(dt_get(&never.calls) == 0, "a refused call ran a callback");
    refused_flood(to, &dm);
    exhaustion();
    dead_peer(&sm, all_dst);
    free(src);
    free(dst);
    free(rbuf);
    free(all_dst);
    free(exh_protos);
    return 0;
}
