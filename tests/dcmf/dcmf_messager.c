/* The messager: initialize/finalize reference counts, rank and size, the
 * machine description (DCMF_Hardware) against the launcher's layout, rank
 * <-> network address mapping for every rank, configuration, the critical
 * section, the clocks, channels and the unimplemented calls. */
#include <pthread.h>

#include "dtest.h"

static size_t env_size(const char *name)
{
    const char *s = getenv(name);
    if (!s)
        FAIL("%s is not set: not started by emunic-run?", name);
    return (size_t)strtoul(s, NULL, 10);
}

/* What each rank tells the others about itself. */
struct where {
    uint32_t node, local, x, y, z, t;
};

static void check_hardware(void)
{
    DCMF_Hardware_t hw;
    memset(&hw, 0xa5, sizeof hw); /* every field must be written */
    CHECK_RC(DCMF_Hardware(&hw), DCMF_SUCCESS);
    size_t nnodes = env_size("EMUNIC_NNODES"), lsize = env_size("EMUNIC_LOCAL_SIZE");
    size_t lrank = env_size("EMUNIC_LOCAL_RANK"), node = env_size("EMUNIC_NODE");
    CHECK(hw.lrank == dt_me && hw.lsize == dt_np, "lrank/lsize %u/%u, expected %zu/%zu", hw.lrank,
          hw.lsize, dt_me, dt_np);
    CHECK(hw.prank == dt_me && hw.psize == dt_np, "prank/psize %u/%u, expected %zu/%zu", hw.prank,
          hw.psize, dt_me, dt_np);
    CHECK(hw.tSize == lsize, "tSize %u, expected %zu ranks per node", hw.tSize, lsize);
    CHECK(hw.tCoord == lrank, "tCoord %u, expected local rank %zu", hw.tCoord, lrank);
    CHECK((size_t)hw.xSize * hw.ySize * hw.zSize == nnodes, "x*y*z = %u*%u*%u, expected %zu nodes",
          hw.xSize, hw.ySize, hw.zSize, nnodes);
    CHECK(hw.xCoord < hw.xSize && hw.yCoord < hw.ySize && hw.zCoord < hw.zSize,
          "coords (%u,%u,%u) outside (%u,%u,%u)", hw.xCoord, hw.yCoord, hw.zCoord, hw.xSize,
          hw.ySize, hw.zSize);
    /* the unions name the same storage */
    CHECK(hw.Size[0] == hw.tSize && hw.Size[3] == hw.xSize && hw.Coord[0] == hw.tCoord &&
              hw.Coord[3] == hw.xCoord,
          "Size[]/Coord[] disagree with the named fields");
    CHECK(hw.clockMHz == 850, "clockMHz %u, expected 850", hw.clockMHz);
    CHECK(memchr(hw.name, '\0', sizeof hw.name) != NULL, "name is not NUL-terminated");
    CHECK(hw.name[0] != '\0', "name is empty");
    CHECK(hw.memSize > 0, "memSize is 0");

    /* coordinates: the same for ranks of a node, different across nodes */
    struct where me = {(uint32_t)node, (uint32_t)lrank, hw.xCoord, hw.yCoord, hw.zCoord, hw.tCoord};
    struct where *all = dt_xmalloc(dt_np * sizeof *all);
    dt_allgather(&me, sizeof me, all);
    for (size_t a = 0; a < dt_np; a++) {
        CHECK(all[a].t == all[a].local, "rank %zu: tCoord %u != local rank %u", a, all[a].t,
              all[a].local);
        for (size_t b = a + 1; b < dt_np; b++) {
            int same_xyz = all[a].x == all[b].x && all[a].y == all[b].y && all[a].z == all[b].z;
            if (all[a].node == all[b].node)
                CHECK(same_xyz && all[a].t != all[b].t,
                      "ranks %zu and %zu share node %u but have coords (%u,%u,%u,%u) and (%u,%u,%u,%u)",
                      a, b, all[a].node, all[a].x, all[a].y, all[a].z, all[a].t, all[b].x, all[b].y,
                      all[b].z, all[b].t);
            else
                CHECK(!same_xyz, "ranks %zu and %zu are on nodes %u and %u but both at (%u,%u,%u)", a, b,
                      all[a].node, all[b].node, all[a].x, all[a].y, all[a].z);
        }
    }

    /* rank <-> network address, every rank, both networks */
    for (size_t r = 0; r < dt_np; r++) {
        DCMF_NetworkCoord_t a, d;
        size_t back = 12345;
        DCMF_Network net = DCMF_NETWORK_COUNT;
        memset(&a, 0x5a, sizeof a);
        CHECK_RC(DCMF_Messager_rank2network(r, DCMF_TORUS_NETWORK, &a), DCMF_SUCCESS);
        CHECK(a.network == DCMF_TORUS_NETWORK, "rank %zu: torus address says network %d", r, a.network);
        CHECK(a.torus.x == all[r].x && a.torus.y == all[r].y && a.torus.z == all[r].z &&
                  a.torus.t == all[r].t,
              "rank %zu: torus address (%zu,%zu,%zu,%zu), its DCMF_Hardware says (%u,%u,%u,%u)", r,
              a.torus.x, a.torus.y, a.torus.z, a.torus.t, all[r].x, all[r].y, all[r].z, all[r].t);
        CHECK_RC(DCMF_Messager_network2rank(&a, &back, &net), DCMF_SUCCESS);
        CHECK(back == r && net == DCMF_TORUS_NETWORK, "torus round trip of rank %zu gave rank %zu network %d",
              r, back, net);
        back = 12345;
        CHECK_RC(DCMF_Messager_network2rank(&a, &back, NULL), DCMF_SUCCESS);
        CHECK(back == r, "torus round trip (network NULL) of rank %zu gave %zu", r, back);

        memset(&d, 0x5a, sizeof d);
        CHECK_RC(DCMF_Messager_rank2network(r, DCMF_DEFAULT_NETWORK, &d), DCMF_SUCCESS);
        CHECK(d.network == DCMF_TORUS_NETWORK && d.torus.x == a.torus.x && d.torus.y == a.torus.y &&
                  d.torus.z == a.torus.z && d.torus.t == a.torus.t,
              "rank %zu: the default network's address differs from the torus one (network %d)", r,
              d.network);
        /* an address naming the default network resolves as the torus */
        d.network = DCMF_DEFAULT_NETWORK;
        back = 12345;
        net = DCMF_NETWORK_COUNT;
        CHECK_RC(DCMF_Messager_network2rank(&d, &back, &net), DCMF_SUCCESS);
        CHECK(back == r && net == DCMF_TORUS_NETWORK, "default-network address of rank %zu gave rank %zu network %d",
              r, back, net);

        memset(&a, 0x5a, sizeof a);
        CHECK_RC(DCMF_Messager_rank2network(r, DCMF_SHMEM_NETWORK, &a), DCMF_SUCCESS);
        CHECK(a.network == DCMF_SHMEM_NETWORK, "rank %zu: shmem address says network %d", r, a.network);
        back = 12345;
        net = DCMF_NETWORK_COUNT;
        CHECK_RC(DCMF_Messager_network2rank(&a, &back, &net), DCMF_SUCCESS);
        CHECK(back == r && net == DCMF_SHMEM_NETWORK, "shmem round trip of rank %zu gave rank %zu network %d",
              r, back, net);

        CHECK_ERR(DCMF_Messager_rank2network(r, DCMF_SOCKET_NETWORK, &a), DCMF_UNIMPL, "DCMF_Messager_rank2network");
        memset(&a, 0, sizeof a);
        a.network = DCMF_SOCKET_NETWORK;
        CHECK_ERR(DCMF_Messager_network2rank(&a, &back, &net), DCMF_UNIMPL, "DCMF_Messager_network2rank");
    }
    /* outside the machine */
    DCMF_NetworkCoord_t bad;
    size_t back;
    memset(&bad, 0, sizeof bad);
    bad.network = DCMF_TORUS_NETWORK;
    bad.torus.x = hw.xSize;
    CHECK_ERR(DCMF_Messager_network2rank(&bad, &back, NULL), DCMF_INVAL, "DCMF_Messager_network2rank");
    bad.torus.x = 0;
    bad.torus.t = hw.tSize;
    CHECK_ERR(DCMF_Messager_network2rank(&bad, &back, NULL), DCMF_INVAL, "DCMF_Messager_network2rank");
    CHECK_ERR(DCMF_Messager_rank2network(dt_np, DCMF_TORUS_NETWORK, &bad), DCMF_INVAL, "DCMF_Messager_rank2network");
    free(all);
}

/* ---- critical section ---- */

static volatile int cs_in; /* the helper thread is inside */

static void *cs_thread(void *arg)
{
    (void)arg;
    DCMF_CriticalSection_enter(0);
    dt_set(&cs_in, 1);
    DCMF_CriticalSection_exit(0);
    return NULL;
}

static void check_critical_section(void)
{
    CHECK(DCMF_CriticalSection_flag == 1, "critical section flag %d after THREAD_MULTIPLE", DCMF_CriticalSection_flag);
    /* recursive: the owner enters again, and cycle keeps it owned */
    DCMF_CriticalSection_enter(0);
    DCMF_CriticalSection_enter(0);
    DCMF_CriticalSection_cycle(0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cs_thread, NULL) == 0, "pthread_create");
    dt_sleep_ms(50);
    CHECK(!dt_get(&cs_in), "another thread entered while this one held the section twice");
    DCMF_CriticalSection_cycle(0); /* gives way only at depth 1 */
    dt_sleep_ms(20);
    CHECK(!dt_get(&cs_in), "another thread entered during a cycle at depth 2");
    DCMF_CriticalSection_exit(0);
    dt_sleep_ms(50);
    CHECK(!dt_get(&cs_in), "another thread entered while this one still held the section once");
    DCMF_CriticalSection_exit(0);
    double end = dt_now() + 10;
    while (!dt_get(&cs_in))
        CHECK(dt_now() < end, "the waiting thread never got the section after the last exit");
    pthread_join(t, NULL);
    /* and the library's own calls still work inside it */
    DCMF_CriticalSection_enter(0);
    CHECK(DCMF_Messager_rank() == dt_me, "rank inside the critical section");
    DCMF_Messager_advance();
    DCMF_CriticalSection_exit(0);
}

static void check_configure(void)
{
    DCMF_Configure_t c, o;
    CHECK_RC(DCMF_Messager_configure(NULL, NULL), DCMF_SUCCESS);
    memset(&o, 0x7f, sizeof o);
    CHECK_RC(DCMF_Messager_configure(NULL, &o), DCMF_SUCCESS);
    CHECK(o.thread_level == DCMF_THREAD_SINGLE && o.interrupts == DCMF_INTERRUPTS_OFF,
          "default configuration: thread level %d interrupts %d", o.thread_level, o.interrupts);
    CHECK(DCMF_CriticalSection_flag == 0, "critical section flag %d before any threading", DCMF_CriticalSection_flag);

    /* invalid enums change nothing */
    c = (DCMF_Configure_t){(DCMF_Thread)4, DCMF_INTERRUPTS_OFF};
    CHECK_ERR(DCMF_Messager_configure(&c, &o), DCMF_INVAL, "DCMF_Messager_configure");
    c = (DCMF_Configure_t){(DCMF_Thread)-1, DCMF_INTERRUPTS_OFF};
    CHECK_ERR(DCMF_Messager_configure(&c, &o), DCMF_INVAL, "DCMF_Messager_configure");
    c = (DCMF_Configure_t){DCMF_THREAD_SINGLE, (DCMF_Interrupts)2};
    CHECK_ERR(DCMF_Messager_configure(&c, NULL), DCMF_INVAL, "DCMF_Messager_configure");
    c = (DCMF_Configure_t){DCMF_THREAD_MULTIPLE, (DCMF_Interrupts)-1};
    CHECK_ERR(DCMF_Messager_configure(&c, NULL), DCMF_INVAL, "DCMF_Messager_configure");
    CHECK_RC(DCMF_Messager_configure(NULL, &o), DCMF_SUCCESS);
    CHECK(o.thread_level == DCMF_THREAD_SINGLE && o.interrupts == DCMF_INTERRUPTS_OFF,
          "a rejected configuration changed it: thread level %d interrupts %d", o.thread_level,
          o.interrupts);
    CHECK(DCMF_CriticalSection_flag == 0, "a rejected configuration set the critical section flag");

    /* FUNNELED needs no lock */
    c = (DCMF_Configure_t){DCMF_THREAD_FUNNELED, DCMF_INTERRUPTS_OFF};
    CHECK_RC(DCMF_Messager_configure(&c, &o), DCMF_SUCCESS);
    CHECK(o.thread_level == DCMF_THREAD_FUNNELED && o.interrupts == DCMF_INTERRUPTS_OFF,
          "FUNNELED came back as %d/%d", o.thread_level, o.interrupts);

    /* the same object in and out */
    c = (DCMF_Configure_t){DCMF_THREAD_MULTIPLE, DCMF_INTERRUPTS_OFF};
    CHECK_RC(DCMF_Messager_configure(&c, &c), DCMF_SUCCESS);
    CHECK(c.thread_level == DCMF_THREAD_MULTIPLE && c.interrupts == DCMF_INTERRUPTS_OFF,
          "in == out: came back as %d/%d", c.thread_level, c.interrupts);
    CHECK(DCMF_CriticalSection_flag == 1, "THREAD_MULTIPLE left the critical section flag at %d",
          DCMF_CriticalSection_flag);
    memset(&o, 0x7f, sizeof o);
    CHECK_RC(DCMF_Messager_configure(NULL, &o), DCMF_SUCCESS);
    CHECK(o.thread_level == DCMF_THREAD_MULTIPLE && o.interrupts == DCMF_INTERRUPTS_OFF,
          "query after MULTIPLE: %d/%d", o.thread_level, o.interrupts);
}

static void check_time(void)
{
    double tick = DCMF_Tick();
    CHECK(tick > 0 && tick * 850e6 > 0.999999 && tick * 850e6 < 1.000001, "DCMF_Tick %.6g, expected 1/850e6",
          tick);
    double prev = DCMF_Timer();
    unsigned long long pb = DCMF_Timebase();
    for (int i = 0; i < 100000; i++) {
        double t = DCMF_Timer();
        unsigned long long b = DCMF_Timebase();
        CHECK(t >= prev, "DCMF_Timer went back: %.9f after %.9f", t, prev);
        CHECK(b >= pb, "DCMF_Timebase went back: %llu after %llu", b, pb);
        prev = t;
        pb = b;
    }
    double t0 = DCMF_Timer();
    unsigned long long b0 = DCMF_Timebase();
    dt_sleep_ms(100);
    double t1 = DCMF_Timer();
    unsigned long long b1 = DCMF_Timebase();
    double us = (t1 - t0) * 1e6;
    CHECK(us >= 99000 && us < 10e6, "DCMF_Timer measured a 100 ms sleep as %.0f us", us);
    double per_us = (double)(b1 - b0) / us;
    CHECK(per_us > 850 * 0.98 && per_us < 850 * 1.02, "DCMF_Timebase advanced %.1f cycles per us, expected ~850",
          per_us);
    /* and the two agree through DCMF_Tick */
    double secs = (double)(b1 - b0) * tick;
    CHECK(secs / (t1 - t0) > 0.98 && secs / (t1 - t0) < 1.02, "timebase*tick %.6f s vs timer %.6f s", secs,
          t1 - t0);
}

static void check_channels_and_unimplemented(void)
{
    unsigned base = 99, count = 99, cur = 99;
    CHECK_RC(DCMF_Channel_info(NULL, &base, &count, &cur), DCMF_SUCCESS);
    CHECK(count == 1 && base == 0 && cur == 0, "channel info base %u count %u current %u", base, count, cur);
    CHECK_RC(DCMF_Channel_info(&dt.ctl, NULL, &count, NULL), DCMF_SUCCESS);
    CHECK(count == 1, "channel count %u", count);
    CHECK_RC(DCMF_Channel_acquire(0), DCMF_SUCCESS);
    CHECK_RC(DCMF_Channel_release(), DCMF_SUCCESS);
    CHECK_ERR(DCMF_Channel_acquire(5), DCMF_INVAL, "DCMF_Channel_acquire");
    CHECK_ERR(DCMF_Channel_acquire(1), DCMF_INVAL, "DCMF_Channel_acquire");
    CHECK(DCMF_Channel_current() == 0, "current channel %u", DCMF_Channel_current());
    CHECK_ERR(DCMF_Channel_handoff(0, dt_nocb()), DCMF_UNIMPL, "DCMF_Channel_handoff");
    CHECK(DCMF_Messager_use_channel(0) == 0, "use_channel(0) failed");
    DCMF_Messager_advance_options opt = {0};
    DCMF_Messager_advance_expert(opt); /* must simply work */
    CHECK_ERR(DCMF_Messager_suspend(), DCMF_UNIMPL, "DCMF_Messager_suspend");
    CHECK_ERR(DCMF_Messager_resume(), DCMF_UNIMPL, "DCMF_Messager_resume");
    CHECK_ERR(DCMF_Error_register(NULL, NULL), DCMF_INVAL, "DCMF_Error_register");
    DCMF_Error_request_t er;
    CHECK_RC(DCMF_Error_register(&er, NULL), DCMF_SUCCESS);
}

int main(void)
{
    unsigned a = DCMF_Messager_initialize();
    unsigned b = DCMF_Messager_initialize();
    unsigned c = DCMF_Messager_initialize();
    dt_setup();
    CHECK(a == 1 && b == 0 && c == 0, "DCMF_Messager_initialize returned %u, %u, %u; expected 1, 0, 0", a, b, c);
    CHECK(dt_np == env_size("EMUNIC_SIZE") && dt_me == env_size("EMUNIC_RANK"), "rank/size");
    CHECK(dt_me < dt_np, "rank %zu >= size %zu", dt_me, dt_np);

    /* two of the three references go; the messager must still work */
    CHECK(DCMF_Messager_finalize() == 0, "finalize with references left returned non-zero");
    CHECK(DCMF_Messager_finalize() == 0, "finalize with one reference left returned non-zero");
    dt_barrier();

    check_configure();
    check_hardware();
    check_critical_section();
    check_time();
    check_channels_and_unimplemented();

    dt_finish("dcmf_messager");
    CHECK(DCMF_Messager_finalize() == 0, "a finalize after the last one returned non-zero");
    return 0;
}
