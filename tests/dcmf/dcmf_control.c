/* DCMF_Control: all 32 bytes of every message, to self and to others, on
 * several protocols (each message reaching its own protocol's callback
 * with its clientdata), under every consistency; the call is blocking
 * (the info buffer is free on return, and bursts need no advance on the
 * sending side); and a message arrives although its sender never
 * advances again. */
#include "dtest.h"

#define NPROTO 3
#define PER 5       /* messages per (source, destination, protocol) */
#define BURST 600   /* more than a completion ring holds */

static DCMF_Protocol_t pc[NPROTO];
static int ccd[NPROTO]; /* clientdata, by protocol */
static volatile int received;
static volatile int *seen; /* [src][proto][k] */

static const DCMF_Consistency cons[] = {DCMF_SEQUENTIAL_CONSISTENCY, DCMF_RELAXED_CONSISTENCY,
                                        DCMF_MATCH_CONSISTENCY, DCMF_WEAK_CONSISTENCY};

static uint32_t seed_of(size_t src, size_t dst, int proto, int k)
{
    return (uint32_t)(((src * dt_np + dst) * NPROTO + (size_t)proto) * PER + (size_t)k) * 3 + 11;
}

/* which k's pattern all 32 bytes are, or -1 */
static int which_k(const DCMF_Control_t *info, size_t src, int proto)
{
    for (int k = 0; k < PER; k++)
        if (dt_find_bad(info, sizeof *info, seed_of(src, dt_me, proto, k), 0) < 0)
            return k;
    return -1;
}

static void on_ctl(void *cd, const DCMF_Control_t *info, size_t peer, int fn)
{
    int proto = (int)((int *)cd - ccd);
    CHECK(proto >= 0 && proto < NPROTO, "control callback: clientdata %p is none of the registered", cd);
    CHECK(fn == (proto == 2 ? 1 : 0), "protocol %d reached the other callback function", proto);
    CHECK(peer < dt_np, "control callback: peer %zu", peer);
    CHECK(info != NULL, "control callback: info NULL");
    int k = which_k(info, peer, proto);
    if (k < 0) {
        const uint8_t *b = (const uint8_t *)info;
        FAIL("control on protocol %d from rank %zu: the 32 bytes (%02x %02x %02x .. %02x) are no message that was "
             "sent (first expected byte for k=0: %02x)",
             proto, peer, b[0], b[1], b[2], b[31], dt_pat(seed_of(peer, dt_me, proto, 0), 0));
    }
    int was = dt_add(&seen[(peer * NPROTO + (size_t)proto) * PER + (size_t)k], 1);
    CHECK(was == 1, "control %d on protocol %d from rank %zu arrived twice", k, proto, peer);
    dt_inc(&received);
}

static void ctl_a(void *cd, const DCMF_Control_t *info, size_t peer) { on_ctl(cd, info, peer, 0); }
static void ctl_b(void *cd, const DCMF_Control_t *info, size_t peer) { on_ctl(cd, info, peer, 1); }

static void all_to_all(void)
{
    seen = dt_xmalloc(dt_np * NPROTO * PER * sizeof *seen);
    memset((void *)seen, 0, dt_np * NPROTO * PER * sizeof *seen);
    dt_barrier();
    int n = 0;
    for (int k = 0; k < PER; k++)
        for (size_t i = 0; i < dt_np; i++) {
            size_t dst = (dt_me + i) % dt_np; /* self first */
            for (int p = 0; p < NPROTO; p++) {
                DCMF_Control_t info;
                dt_fill(&info, sizeof info, seed_of(dt_me, dst, p, k), 0);
                CHECK_RC(DCMF_Control(&pc[p], cons[n++ % 4], dst, &info), DCMF_SUCCESS);
                /* blocking: the buffer is free again */
                memset(&info, 0xcc, sizeof info);
            }
        }
    wait_until(&received, (int)(dt_np * NPROTO * PER), DT_WAIT_S);
    dt_barrier();
    CHECK(dt_get(&received) == (int)(dt_np * NPROTO * PER), "received %d control messages, expected %zu",
          dt_get(&received), dt_np * NPROTO * PER);
    for (size_t s = 0; s < dt_np; s++)
        for (int p = 0; p < NPROTO; p++)
            for (int k = 0; k < PER; k++)
                CHECK(dt_get(&seen[(s * NPROTO + (size_t)p) * PER + (size_t)k]) == 1,
                      "control %d on protocol %d from rank %zu: arrived %d times", k, p, s,
                      dt_get(&seen[(s * NPROTO + (size_t)p) * PER + (size_t)k]));
}

/* ---- a burst with no advance on the sending side ---- */

static DCMF_Protocol_t pburst;
static volatile int burst_got;
static volatile int burst_seen[BURST];

static void on_burst(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    uint32_t w[8];
    memcpy(w, info, sizeof w);
    CHECK(peer == (dt_me + dt_np - 1) % dt_np, "burst from rank %zu", peer);
    CHECK(w[0] < BURST && w[1] == (uint32_t)peer && w[7] == ~w[0], "burst message garbled: %u %u %#x", w[0], w[1],
          w[7]);
    for (int i = 2; i < 7; i++)
        CHECK(w[i] == w[0] * 7 + (uint32_t)i, "burst message %u word %d", w[0], i);
    CHECK(dt_add(&burst_seen[w[0]], 1) == 1, "burst message %u twice", w[0]);
    dt_inc(&burst_got);
}

static void burst(void)
{
    size_t to = (dt_me + 1) % dt_np;
    dt_barrier();
    for (uint32_t i = 0; i < BURST; i++) {
        uint32_t w[8] = {i, (uint32_t)dt_me, 0, 0, 0, 0, 0, ~i};
        for (int j = 2; j < 7; j++)
            w[j] = i * 7 + (uint32_t)j;
        DCMF_Control_t info;
        memcpy(&info, w, sizeof info);
        CHECK_RC(DCMF_Control(&pburst, DCMF_RELAXED_CONSISTENCY, to, &info), DCMF_SUCCESS);
    }
    wait_until(&burst_got, BURST, DT_WAIT_S);
    dt_barrier();
}

/* ---- the sender never advances again ---- */

static volatile int special_got;
static DCMF_Protocol_t pspecial, put_p;

static void on_special(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    (void)peer;
    CHECK_PAT(info, sizeof *info, 31337, 0, "the message from a sender that stopped advancing");
    dt_inc(&special_got);
}

static void silent_sender(void)
{
    volatile uint8_t *flag = dt_xmalloc(64);
    DCMF_Memregion_t fm, *all = dt_xmalloc(dt_np * sizeof fm);
    flag[0] = 0;
    CHECK_RC(DCMF_Memregion_create(&fm, NULL, 64, (void *)flag, 0), DCMF_SUCCESS);
    dt_exchange_regions(&fm, all);
    size_t senders[2] = {0, dt_np - 1};
    for (int i = 0; i < 2; i++) {
        size_t s = senders[i], t = (s + 1) % dt_np;
        dt_barrier();
        if (dt_me == s) {
            DCMF_Control_t info;
            dt_fill(&info, sizeof info, 31337, 0);
            CHECK_RC(DCMF_Control(&pspecial, DCMF_SEQUENTIAL_CONSISTENCY, t, &info), DCMF_SUCCESS);
            /* no DCMF call at all until the receiver answers with a put */
            double end = dt_now() + 30;
            while (flag[0] != (uint8_t)(i + 1)) {
                CHECK(dt_now() < end, "the receiver never got the control message of a sender that stopped");
                dt_sleep_ms(0.1);
            }
        }
        if (dt_me == t) {
            wait_until(&special_got, 1, DT_WAIT_S);
            dt_add(&special_got, -1);
            struct dt_rec ack;
            DCMF_Request_t req;
            static uint8_t val[2] = {1, 2};
            DCMF_Memregion_t vm;
            dt_rec_init(&ack);
            CHECK_RC(DCMF_Memregion_create(&vm, NULL, 2, val, 0), DCMF_SUCCESS);
            CHECK_RC(DCMF_Put(&put_p, &req, dt_nocb(), DCMF_SEQUENTIAL_CONSISTENCY, s, 1, &vm, &all[s], (size_t)i, 0,
                              dt_ack(&ack)),
                     DCMF_SUCCESS);
            wait_until(&ack.calls, 1, DT_WAIT_S);
            CHECK_REC(&ack, 0, 1, "answer put");
            CHECK_RC(DCMF_Memregion_destroy(&vm), DCMF_SUCCESS);
        }
        dt_barrier();
    }
    CHECK_RC(DCMF_Memregion_destroy(&fm), DCMF_SUCCESS);
    free((void *)flag);
    CHECK(dt_get(&special_got) == 0, "%d unexpected control messages", dt_get(&special_got));
    free(all);
}

int main(void)
{
    dt_init();
    for (int p = 0; p < NPROTO; p++) {
        DCMF_Control_Configuration_t c = {p == 1 ? DCMF_USER0_CONTROL_PROTOCOL : DCMF_DEFAULT_CONTROL_PROTOCOL,
                                          p == 2 ? DCMF_TORUS_NETWORK : DCMF_DEFAULT_NETWORK, p == 2 ? ctl_b : ctl_a,
                                          &ccd[p]};
        CHECK_RC(DCMF_Control_register(&pc[p], &c), DCMF_SUCCESS);
    }
    DCMF_Control_Configuration_t cb = {DCMF_OVERSEND_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_burst, NULL};
    CHECK_RC(DCMF_Control_register(&pburst, &cb), DCMF_SUCCESS);
    DCMF_Control_Configuration_t cs = {DCMF_USER3_CONTROL_PROTOCOL, DCMF_SHMEM_NETWORK, on_special, NULL};
    CHECK_RC(DCMF_Control_register(&pspecial, &cs), DCMF_SUCCESS);
    DCMF_Put_Configuration_t pcfg = {DCMF_DEFAULT_PUT_PROTOCOL, DCMF_DEFAULT_NETWORK};
    CHECK_RC(DCMF_Put_register(&put_p, &pcfg), DCMF_SUCCESS);

    all_to_all();
    burst();
    if (dt_np > 1)
        silent_sender();
    dt_finish("dcmf_control");
    return 0;
}
