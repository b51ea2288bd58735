/* Interrupt mode: callbacks run with no DCMF_Messager_advance from the
 * program, on the library's own thread and inside the critical section.
 * Rank 0 (A) talks to rank 1 (B), which
 *   1. computes for at least 300 ms without any DCMF call while A sends it
 *      100 short sends and 100 puts with cb_ack: B's receive callbacks run
 *      during the loop, on another thread, and A's acks all arrive;
 *   2. holds DCMF_CriticalSection_enter(0) for 100 ms with messages
 *      waiting: no callback runs until it exits, then they all do;
 *   3. (configure mode) turns interrupts off: callbacks wait for advance
 *      again; then back on;
 *   4. finalizes with the interrupt thread running, rank 0 from inside the
 *      critical section: both return promptly.
 * Argument "env": run with DCMF_INTERRUPTS=1; "configure": interrupts
 * are switched on with DCMF_Messager_configure; "early" (polling) and
 * "early_env" (DCMF_INTERRUPTS=1): only the check that messages arriving
 * before their protocol is registered are delivered once it is;
 * "finalize_busy": only B finalizing while its interrupt thread works
 * through a backlog of callbacks that call DCMF themselves. */
#include <pthread.h>

#include "dtest.h"

#define A 0
#define B 1
#define NMSG 100
#define NPUTS 100
#define NCS 10

static pthread_t main_tid;
static DCMF_Protocol_t send_p, put_p, ctl_p;
static volatile int msgs, on_main, next_seq, ctl_n;
static uint8_t *region; /* B: NPUTS * 64 bytes of put targets, then 2 flag bytes */
static DCMF_Memregion_t region_mr, *all_region;

static void on_msg(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    if (pthread_equal(pthread_self(), main_tid))
        dt_inc(&on_main);
    CHECK(peer == A && count == 1 && bytes == 8, "message from %zu: count %u bytes %zu", peer, count, bytes);
    int want = dt_get(&next_seq);
    CHECK(mi[0].w0 == (uint32_t)want, "message %u arrived when %d was next", mi[0].w0, want);
    CHECK_PAT(src, 8, 300 + mi[0].w0, 0, "message payload");
    dt_inc(&next_seq);
    dt_inc(&msgs);
}

static void on_ctl(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    (void)info;
    (void)peer;
    dt_inc(&ctl_n);
}

static DCMF_Request_t sreq[NMSG], preq[NPUTS];
static struct dt_rec sdone, pack;
static int seq_sent;

/* A: n short sends, in order, numbered on from where the last left off */
static void send_n(int n)
{
    dt_rec_init(&sdone);
    for (int i = 0; i < n; i++) {
        uint8_t payload[8];
        DCQuad mi = {(uint32_t)seq_sent, 0, 0, 0};
        dt_fill(payload, 8, 300 + (uint32_t)seq_sent, 0);
        seq_sent++;
        CHECK_RC(DCMF_Send(&send_p, &sreq[i], dt_done(&sdone), DCMF_SEQUENTIAL_CONSISTENCY, B, 8, (char *)payload, &mi,
                           1),
                 DCMF_SUCCESS);
    }
}

/* A: set B's flag byte i to v, ordered after everything sent before */
static void put_flag(size_t i, uint8_t v)
{
    static uint8_t val[4];
    static DCMF_Memregion_t vm;
    static int made;
    static DCMF_Request_t req;
    struct dt_rec ack;
    if (!made) {
        CHECK_RC(DCMF_Memregion_create(&vm, NULL, sizeof val, val, 0), DCMF_SUCCESS);
        made = 1;
    }
    val[i] = v;
    dt_rec_init(&ack);
    CHECK_RC(DCMF_Put(&put_p, &req, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, B, 1, &vm, &all_region[B], i,
                      NPUTS * 64 + i, dt_ack(&ack)),
             DCMF_SUCCESS);
    wait_until(&ack.calls, 1, DT_WAIT_S);
}

static void go(void)
{
    DCMF_Control_t info;
    memset(&info, 0, sizeof info);
    CHECK_RC(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, A, &info), DCMF_SUCCESS);
}

static void wait_flag(size_t i, uint8_t v)
{
    volatile uint8_t *f = region + NPUTS * 64 + i;
    double end = dt_now() + 30;
    while (*f != v) {
        CHECK(dt_now() < end, "flag %zu never became %u", i, v);
        dt_sleep_ms(0.05);
    }
}

/* ---- 1: a busy loop with no advance ---- */

static double sink;

static void busy_loop(void)
{
    dt_barrier();
    if (dt_me == B) {
        int before = dt_get(&msgs);
        CHECK(before == 0, "%d messages before anything was sent", before);
        go();
        /* no DCMF call from here to the end of the loop */
        double t0 = dt_now(), x = 1.0;
        int at_300ms = -1;
        for (;;) {
            for (int i = 0; i < 10000; i++)
                x = x * 1.0000001 + 1e-9;
            double el = dt_now() - t0;
            if (el >= 0.3 && at_300ms < 0)
                at_300ms = dt_get(&msgs);
            if (el >= 0.3 && dt_get(&msgs) == NMSG && dt_get(&ctl_n) >= 1)
                break;
            CHECK(el < 30, "after 30 s without advance: %d of %d messages, A done: %d", dt_get(&msgs), NMSG,
                  dt_get(&ctl_n));
        }
        sink = x;
        int after = dt_get(&msgs);
        printf("busy loop: %d messages before, %d at 300 ms, %d after; %d callbacks on the main thread\n", before,
               at_300ms, after, dt_get(&on_main));
        CHECK(after == NMSG, "receive callbacks during the busy loop: %d, expected %d", after, NMSG);
        CHECK(dt_get(&on_main) == 0, "%d callbacks ran on the main thread, which never advanced", dt_get(&on_main));
        for (int i = 0; i < NPUTS; i++)
            CHECK_PAT(region + i * 64, 64, 400 + (uint32_t)i, 0, "put during the busy loop");
    } else if (dt_me == A) {
        wait_until(&ctl_n, 1, DT_WAIT_S);
        uint8_t *src = dt_xmalloc(NPUTS * 64);
        DCMF_Memregion_t sm;
        for (int i = 0; i < NPUTS; i++)
            dt_fill(src + i * 64, 64, 400 + (uint32_t)i, 0);
        CHECK_RC(DCMF_Memregion_create(&sm, NULL, NPUTS * 64, src, 0), DCMF_SUCCESS);
        dt_rec_init(&pack);
        send_n(NMSG);
        for (int i = 0; i < NPUTS; i++)
            CHECK_RC(DCMF_Put(&put_p, &preq[i], dt_nocb(), i % 2 ? DCMF_RELAXED_CONSISTENCY : DCMF_SEQUENTIAL_CONSISTENCY,
                              B, 64, &sm, &all_region[B], (size_t)i * 64, (size_t)i * 64, dt_ack(&pack)),
                     DCMF_SUCCESS);
        /* B is not advancing: its NIC acks, its interrupt thread receives */
        wait_until(&pack.calls, NPUTS, DT_WAIT_S);
        wait_until(&sdone.calls, NMSG, DT_WAIT_S);
        CHECK_REC(&pack, 0, NPUTS, "put cb_ack");
        CHECK_REC(&sdone, NMSG, 0, "send cb_done");
        DCMF_Control_t info;
        memset(&info, 0, sizeof info);
        CHECK_RC(DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, B, &info), DCMF_SUCCESS);
        CHECK_RC(DCMF_Memregion_destroy(&sm), DCMF_SUCCESS);
        free(src);
    }
    dt_barrier();
}

/* ---- 2: callbacks wait for the critical section ---- */

static void critical_section(void)
{
    int a_ctl = dt_get(&ctl_n);
    dt_barrier();
    if (dt_me == B) {
        DCMF_CriticalSection_enter(0);
        int c0 = dt_get(&msgs);
        go();
        wait_flag(0, 1); /* A's messages are here, waiting */
        dt_sleep_ms(100);
        int c1 = dt_get(&msgs);
        CHECK(c1 == c0, "%d callbacks ran while the main thread held the critical section", c1 - c0);
        DCMF_CriticalSection_exit(0);
        wait_noadvance(&msgs, c0 + NCS, 30);
        printf("critical section: %d callbacks while held for 100 ms, %d after the exit\n", c1 - c0,
               dt_get(&msgs) - c0);
    } else if (dt_me == A) {
        wait_until(&ctl_n, a_ctl + 1, DT_WAIT_S);
        send_n(NCS);
        put_flag(0, 1);
        wait_until(&sdone.calls, NCS, DT_WAIT_S);
    }
    dt_barrier();
}

/* ---- 3: interrupts off again, then on ---- */

static void toggle(void)
{
    int a_ctl = dt_get(&ctl_n);
    dt_barrier();
    if (dt_me == B) {
        DCMF_Configure_t c = {DCMF_THREAD_SINGLE, DCMF_INTERRUPTS_OFF};
        CHECK_RC(DCMF_Messager_configure(&c, &c), DCMF_SUCCESS);
        CHECK(c.interrupts == DCMF_INTERRUPTS_OFF, "interrupts still %d", c.interrupts);
        int c0 = dt_get(&msgs);
        go();
        wait_flag(1, 1);
        dt_sleep_ms(100);
        CHECK(dt_get(&msgs) == c0, "%d callbacks ran with interrupts off and no advance", dt_get(&msgs) - c0);
        wait_until(&msgs, c0 + NCS, DT_WAIT_S);
        c = (DCMF_Configure_t){DCMF_THREAD_SINGLE, DCMF_INTERRUPTS_ON};
        CHECK_RC(DCMF_Messager_configure(&c, &c), DCMF_SUCCESS);
        CHECK(c.interrupts == DCMF_INTERRUPTS_ON && DCMF_CriticalSection_flag == 1, "interrupts back on: %d flag %d",
              c.interrupts, DCMF_CriticalSection_flag);
    } else if (dt_me == A) {
        wait_until(&ctl_n, a_ctl + 1, DT_WAIT_S);
        send_n(NCS);
        put_flag(1, 1);
        wait_until(&sdone.calls, NCS, DT_WAIT_S);
    }
    /* and they run by themselves again */
    a_ctl = dt_get(&ctl_n);
    dt_barrier();
    if (dt_me == B) {
        int c0 = dt_get(&msgs);
        go();
        wait_noadvance(&msgs, c0 + NCS, 30);
    } else if (dt_me == A) {
        wait_until(&ctl_n, a_ctl + 1, DT_WAIT_S);
        send_n(NCS);
        wait_until(&sdone.calls, NCS, DT_WAIT_S);
    }
    dt_barrier();
}

/* ---- arrivals before the receiver has registered their protocol ---- */

static volatile int early_short, early_ctl;

static void early_on_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    CHECK(peer == A && count == 1 && mi[0].w0 == 0xea51 && bytes == 5 && !memcmp(src, "early", 5),
          "early send garbled");
    dt_inc(&early_short);
}

static void early_on_ctl(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    CHECK(peer == A, "early control from %zu", peer);
    CHECK_PAT(info, sizeof *info, 0xea51, 0, "early control");
    dt_inc(&early_ctl);
}

/* A registers and sends at once; B registers the same protocols 300 ms
 * later. In polling mode the messages wait in B's queue until B's first
 * advance, after its registration; with interrupts on from
 * DCMF_Messager_initialize they must not be lost either. */
static void early_arrivals(void)
{
    DCMF_Protocol_t sp, cp;
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, early_on_short, NULL, NULL, NULL};
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, early_on_ctl, NULL};
    dt_barrier();
    int a_ctl = dt_get(&ctl_n);
    if (dt_me == B) {
        go(); /* from here on B does not advance until it has registered */
        dt_sleep_ms(300);
    }
    if (dt_me == A)
        wait_until(&ctl_n, a_ctl + 1, DT_WAIT_S);
    CHECK_RC(DCMF_Send_register(&sp, &sc), DCMF_SUCCESS);
    CHECK_RC(DCMF_Control_register(&cp, &cc), DCMF_SUCCESS);
    if (dt_me == A) {
        DCMF_Request_t req;
        struct dt_rec done;
        DCQuad mi = {0xea51, 0, 0, 0};
        DCMF_Control_t info;
        dt_rec_init(&done);
        dt_fill(&info, sizeof info, 0xea51, 0);
        CHECK_RC(DCMF_Send(&sp, &req, dt_done(&done), DCMF_SEQUENTIAL_CONSISTENCY, B, 5, "early", &mi, 1),
                 DCMF_SUCCESS);
        CHECK_RC(DCMF_Control(&cp, DCMF_SEQUENTIAL_CONSISTENCY, B, &info), DCMF_SUCCESS);
        wait_until(&done.calls, 1, DT_WAIT_S);
    } else if (dt_me == B) {
        double end = dt_now() + 10;
        while ((!dt_get(&early_short) || !dt_get(&early_ctl)) && dt_now() < end)
            DCMF_Messager_advance();
        CHECK(dt_get(&early_short) == 1 && dt_get(&early_ctl) == 1,
              "a send and a control message that arrived before their protocols were registered here: %d and %d "
              "delivered after registration, expected 1 and 1",
              dt_get(&early_short), dt_get(&early_ctl));
    }
}

/* ---- finalize while the interrupt thread is running callbacks ---- */

static volatile int echo_in, echo_refused, stream_failed;

static void echo_on_msg(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    (void)mi;
    (void)count;
    (void)src;
    (void)bytes;
    DCMF_Control_t info;
    memset(&info, 0, sizeof info);
    dt_inc(&echo_in);
    /* a callback is a place where the messager works: a reply from it
     * must not be refused, finalizing or not */
    if (DCMF_Control(&ctl_p, DCMF_SEQUENTIAL_CONSISTENCY, peer, &info) != DCMF_SUCCESS)
        dt_inc(&echo_refused);
    /* slow callbacks: a backlog is waiting whenever B finalizes */
    dt_sleep_ms(1);
}

static void stream_done(void *cd, DCMF_Error_t *e)
{
    if (e)
        dt_inc(&stream_failed);
    dt_set((volatile int *)cd, 1);
}

/* A streams short sends at B, whose receive callback answers each with a
 * control message; B finalizes in the middle of the stream, while its
 * interrupt thread is busy with those callbacks. */
#define NSTREAM 5000
static void finalize_busy(void)
{
    DCMF_Protocol_t sp;
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, echo_on_msg, NULL, NULL, NULL};
    CHECK_RC(DCMF_Send_register(&sp, &sc), DCMF_SUCCESS);
    DCMF_Configure_t c = {DCMF_THREAD_SINGLE, DCMF_INTERRUPTS_ON};
    CHECK_RC(DCMF_Messager_configure(&c, NULL), DCMF_SUCCESS);
    int a_ctl = dt_get(&ctl_n);
    dt_barrier();
    /* B out of the barrier first: its advance there would run the stream */
    if (dt_me == B)
        go();
    if (dt_me == A) {
        wait_until(&ctl_n, a_ctl + 1, DT_WAIT_S);
        enum { NREQ = 64 };
        static DCMF_Request_t req[NREQ];
        static volatile int done[NREQ];
        static int used[NREQ];
        long sent = 0;
        double end = dt_now() + 30;
        /* one packet each: complete at the sender whatever became of B */
        while (sent < NSTREAM) {
            CHECK(dt_now() < end, "only %ld of %d sends completed in 30 s", sent, NSTREAM);
            for (int i = 0; i < NREQ && sent < NSTREAM; i++) {
                if (used[i] && !dt_get(&done[i]))
                    continue;
                used[i] = 1;
                dt_set(&done[i], 0);
                DCQuad mi = {(uint32_t)sent, 0, 0, 0};
                CHECK_RC(DCMF_Send(&sp, &req[i], (DCMF_Callback_t){stream_done, (void *)&done[i]},
                                   DCMF_RELAXED_CONSISTENCY, B, 0, NULL, &mi, 1),
                         DCMF_SUCCESS);
                sent++;
            }
            DCMF_Messager_advance();
        }
        for (int i = 0; i < NREQ; i++)
            wait_until(&done[i], 1, DT_WAIT_S);
        printf("finalize while busy: %d sends, %d echoes came back\n", NSTREAM, dt_get(&ctl_n));
        CHECK(DCMF_Messager_finalize() == 1, "finalize");
    } else if (dt_me == B) {
        wait_noadvance(&echo_in, 200, 30);
        int in = dt_get(&echo_in);
        double t0 = dt_now();
        unsigned last = DCMF_Messager_finalize();
        double t = dt_now() - t0;
        printf("finalize while busy: B finalized after %d messages, in %.1f ms; %d more callbacks ran during it, "
               "%d of all refused a DCMF_Control\n",
               in, t * 1e3, dt_get(&echo_in) - in, dt_get(&echo_refused));
        CHECK(last == 1, "finalize returned %u", last);
        CHECK(t < 2.0 && dt_get(&echo_refused) == 0,
              "finalize with the interrupt thread busy: took %.2f s (%d callbacks ran meanwhile), and %d DCMF calls from "
              "callbacks were refused as 'not initialised'",
              t, dt_get(&echo_in) - in, dt_get(&echo_refused));
    } else {
        CHECK(DCMF_Messager_finalize() == 1, "finalize");
    }
}

int main(int argc, char **argv)
{
    main_tid = pthread_self(); /* before the interrupt thread can look */
    int configure = argc > 1 && !strcmp(argv[1], "configure");
    int early = argc > 1 && (!strncmp(argv[1], "early", 5) || !strcmp(argv[1], "finalize_busy"));
    dt_init();
    if (argc > 1 && !strcmp(argv[1], "early_env")) {
        const char *e = getenv("DCMF_INTERRUPTS");
        CHECK(e && !strcmp(e, "1"), "run with DCMF_INTERRUPTS=1 (it is %s)", e ? e : "unset");
    }
    CHECK(dt_np >= 2, "needs two ranks");

    DCMF_Configure_t c;
    if (configure) {
        CHECK(DCMF_CriticalSection_flag == 0, "critical section flag %d before configure", DCMF_CriticalSection_flag);
        c = (DCMF_Configure_t){DCMF_THREAD_SINGLE, DCMF_INTERRUPTS_ON};
        CHECK_RC(DCMF_Messager_configure(&c, NULL), DCMF_SUCCESS);
    } else if (!early) {
        const char *e = getenv("DCMF_INTERRUPTS");
        CHECK(e && !strcmp(e, "1"), "run with DCMF_INTERRUPTS=1 (it is %s)", e ? e : "unset");
    }
    memset(&c, 0, sizeof c);
    CHECK_RC(DCMF_Messager_configure(NULL, &c), DCMF_SUCCESS);
    if (!early) {
        CHECK(c.interrupts == DCMF_INTERRUPTS_ON, "configuration says interrupts %d", c.interrupts);
        CHECK(DCMF_CriticalSection_flag == 1, "interrupts on but the critical section flag is %d",
              DCMF_CriticalSection_flag);
    }

    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_msg, NULL, NULL, NULL};
    CHECK_RC(DCMF_Send_register(&send_p, &sc), DCMF_SUCCESS);
    DCMF_Put_Configuration_t pc = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_RC(DCMF_Put_register(&put_p, &pc), DCMF_SUCCESS);
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_ctl, NULL};
    CHECK_RC(DCMF_Control_register(&ctl_p, &cc), DCMF_SUCCESS);
    if (argc > 1 && !strcmp(argv[1], "finalize_busy")) {
        finalize_busy();
        return 0;
    }
    if (early) {
        early_arrivals();
        dt_finish("dcmf_irq (early arrivals)");
        return 0;
    }
    region = dt_xmalloc(NPUTS * 64 + 2);
    memset(region, 0, NPUTS * 64 + 2);
    CHECK_RC(DCMF_Memregion_create(&region_mr, NULL, NPUTS * 64 + 2, region, 0), DCMF_SUCCESS);
    all_region = dt_xmalloc(dt_np * sizeof *all_region);
    dt_exchange_regions(&region_mr, all_region);

    busy_loop();
    critical_section();
    if (configure)
        toggle();

    /* 4: finalize with the interrupt thread running; rank 0 inside the
     * critical section */
    dt_barrier();
    double t0 = dt_now();
    unsigned last;
    if (dt_me == 0) {
        DCMF_CriticalSection_enter(0);
        last = DCMF_Messager_finalize();
        DCMF_CriticalSection_exit(0);
    } else {
        last = DCMF_Messager_finalize();
    }
    double t = dt_now() - t0;
    CHECK(last == 1, "finalize returned %u", last);
    CHECK(t < 2.0, "finalize with the interrupt thread running took %.2f s", t);
    if (dt_me == 0)
        printf("dcmf_irq (%s): ok (%zu ranks); finalize took %.1f ms\n", configure ? "configure" : "env", dt_np, t * 1e3);
    return 0;
}
