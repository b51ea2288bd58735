/* The NI and its tables: limits, a second PtlNIInit, identity (GetId,
 * GetPhysId, GetUid, GetMap), PtlSetMap with the identity and with a
 * permutation (logical rank r then reaches process map[r]), a physical NI
 * addressed by {nid, pid}, portal table allocation rules, counting events
 * (Get/Set/Inc/Wait/Poll, woken from another thread), event queues
 * (Get/Wait/Poll, timeouts, several queues), put ordering (a flag written
 * after the data implies the data), PtlNIHandle, PtlAtomicSync and the
 * bundle calls. */
#include "ptest.h"

#include <pthread.h>
#include <sched.h>

static uint32_t me, n, right, left;
static ptl_handle_ni_t ni;

static long elapsed_ms(long t0) { return pt_now_ms() - t0; }

/* ---- identity ---- */
static void t_identity(void)
{
    ptl_process_t id;
    memset(&id, 0xff, sizeof id);
    OK(PtlGetId(ni, &id));
    CHECK(id.rank == me, "PtlGetId on the logical NI: rank %u, want %u", id.rank, me);
    memset(&id, 0xff, sizeof id);
    OK(PtlGetPhysId(ni, &id));
    CHECK(id.phys.nid == pt_node && id.phys.pid == me, "PtlGetPhysId {%u,%u}, want {%u,%u}", id.phys.nid,
          id.phys.pid, pt_node, me);
    ptl_uid_t uid = 0;
    OK(PtlGetUid(ni, &uid));
    CHECK(uid == (ptl_uid_t)getuid(), "PtlGetUid %u, want %u", uid, (unsigned)getuid());

    ptl_process_t *map = pt_xmalloc((n + 2) * sizeof *map);
    memset(map, 0xee, (n + 2) * sizeof *map);
    ptl_size_t sz = 0;
    OK(PtlGetMap(ni, n + 2, map, &sz));
    CHECK(sz == n, "PtlGetMap actual_map_size %llu, want %u", (unsigned long long)sz, n);
    for (uint32_t i = 0; i < n; i++)
        CHECK(map[i].phys.nid == pt_node_of(i) && map[i].phys.pid == i, "map[%u] = {%u,%u}, want {%u,%u}", i,
              map[i].phys.nid, map[i].phys.pid, pt_node_of(i), i);
    /* a shorter array gets the first entries only */
    memset(map, 0xee, (n + 2) * sizeof *map);
    sz = 0;
    OK(PtlGetMap(ni, 1, map, &sz));
    CHECK(sz == n, "PtlGetMap(map_size 1) actual_map_size %llu, want %u", (unsigned long long)sz, n);
    CHECK(map[0].phys.nid == 0 && map[0].phys.pid == 0, "PtlGetMap(map_size 1) map[0] = {%u,%u}",
          map[0].phys.nid, map[0].phys.pid);
    CHECK_BYTES(&map[1], 0xee, sizeof *map, "PtlGetMap wrote past map_size");
    free(map);
}

/* ---- portal table rules ---- */
static void t_pt_rules(void)
{
    ptl_pt_index_t i = 99;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 5, &i));
    CHECK(i == 5, "requested index 5, got %u", i);
    EXPECT_RC(PTL_PT_IN_USE, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 5, &i));
    EXPECT_RC(PTL_PT_IN_USE, PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_BARRIER_INDEX, &i));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
    CHECK(i == 0, "PTL_PT_ANY gave %u, want 0", i);
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
    CHECK(i == 1, "PTL_PT_ANY gave %u, want 1", i);
    OK(PtlPTFree(ni, 0));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
    CHECK(i == 0, "PTL_PT_ANY after freeing 0 gave %u, want 0", i);
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i));
    CHECK(i == 2, "PTL_PT_ANY gave %u, want 2", i);
    EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 64, &i));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 62, &i));
    CHECK(i == 62, "requested index 62, got %u", i);
    /* fill the table: the last free one is found, then none */
    unsigned got = 0;
    for (;;) {
        int rc = PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &i);
        if (rc != PTL_OK) {
            CHECK(rc == PTL_PT_FULL, "PTL_PT_ANY on a full table returned %s, want PTL_PT_FULL", pt_rcname(rc));
            break;
        }
        got++;
        REQUIRE(got <= 64, "more than 64 portal table entries");
    }
    CHECK(got == 64 - 6, "PTL_PT_ANY found %u free entries, want %u", got, 64 - 6);
    for (unsigned k = 0; k < 63; k++)
        OK(PtlPTFree(ni, k));
    EXPECT_RC(PTL_OK, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 40, &i));
    OK(PtlPTFree(ni, 40));
}

/* ---- SetMap: identity, then a permutation ---- */
static ptl_pt_index_t map_pt;
static uint32_t map_slot[4];
static void t_setmap(void)
{
    ptl_handle_ct_t ct, mdct;
    OK(PtlCTAlloc(ni, &ct));
    OK(PtlCTAlloc(ni, &mdct));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 10, &map_pt));
    map_slot[0] = me;          /* read by a Get: who am I */
    map_slot[1] = 0xffffffffu; /* written by a put: who sent */
    ptl_le_t le = pt_le(map_slot, sizeof map_slot,
                        PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE, ct,
                        PTL_UID_ANY);
    ptl_handle_le_t h;
    OK(PtlLEAppend(ni, map_pt, &le, PTL_PRIORITY_LIST, NULL, &h));
    uint32_t src = me, got = 0xffffffffu;
    ptl_md_t d = pt_md(&src, sizeof src, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, mdct);
    ptl_handle_md_t md, gmd;
    OK(PtlMDBind(ni, &d, &md));
    d = pt_md(&got, sizeof got, PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, mdct);
    OK(PtlMDBind(ni, &d, &gmd));

    ptl_process_t *map = pt_xmalloc(n * sizeof *map);
    for (uint32_t l = 0; l < n; l++)
        map[l] = pt_phys(l);
    EXPECT_RC(PTL_OK, PtlSetMap(ni, n, map));
    BARRIER();

    /* logical rank l is now process (l + 1) % n */
    uint32_t *inv = pt_xmalloc(n * sizeof *inv);
    for (uint32_t l = 0; l < n; l++) {
        map[l] = pt_phys((l + 1) % n);
        inv[(l + 1) % n] = l;
    }
    EXPECT_RC(PTL_OK, PtlSetMap(ni, n, map));
    pt_lrank_of = inv;
    ptl_process_t id;
    if (PtlGetId(ni, &id) == PTL_OK && id.rank != inv[me])
        NOTE("after a permuting PtlSetMap, PtlGetId says rank %u (process %u is logical %u)", id.rank, me, inv[me]);
    BARRIER(); /* itself goes through the new map */
    /* put my rank to process `right`, read process `right`'s rank back */
    OK(PtlPut(md, 0, 4, PTL_CT_ACK_REQ, pt_lrank(right), map_pt, 0, 4, NULL, 0));
    OK(PtlGet(gmd, 0, 4, pt_lrank(right), map_pt, 0, 0, NULL));
    EXPECT_CT(mdct, 2, 0);
    CHECK(got == right, "Get through the permuted map (logical %u) reached process %u, want %u", inv[right], got,
          right);
    BARRIER();
    CHECK(map_slot[1] == left, "put through the permuted map: slot holds %u, want %u (my left)", map_slot[1], left);
    EXPECT_CT(ct, 2, 0);

    /* back to the identity */
    for (uint32_t l = 0; l < n; l++)
        map[l] = pt_phys(l);
    EXPECT_RC(PTL_OK, PtlSetMap(ni, n, map));
    pt_lrank_of = NULL;
    free(inv);
    free(map);
    BARRIER();
    map_slot[1] = 0xffffffffu;
    got = 0xffffffffu;
    BARRIER();
    OK(PtlPut(md, 0, 4, PTL_CT_ACK_REQ, pt_lrank(right), map_pt, 0, 4, NULL, 0));
    OK(PtlGet(gmd, 0, 4, pt_lrank(right), map_pt, 0, 0, NULL));
    EXPECT_CT(mdct, 4, 0);
    CHECK(got == right, "Get after restoring the identity map reached process %u, want %u", got, right);
    BARRIER();
    CHECK(map_slot[1] == left, "put after restoring the identity map: slot holds %u, want %u", map_slot[1], left);
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(gmd));
    OK(PtlLEUnlink(h));
    OK(PtlPTFree(ni, map_pt));
    OK(PtlCTFree(ct));
    OK(PtlCTFree(mdct));
}

/* ---- physical NI ---- */
static void t_physical(void)
{
    ptl_handle_ni_t pni;
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &lim, &pni));
    CHECK(!PtlHandleIsEqual(pni, ni), "the physical NI has the logical NI's handle");
    ptl_process_t id;
    memset(&id, 0xff, sizeof id);
    OK(PtlGetId(pni, &id));
    CHECK(id.phys.nid == pt_node && id.phys.pid == me, "PtlGetId on the physical NI {%u,%u}, want {%u,%u}",
          id.phys.nid, id.phys.pid, pt_node, me);
    memset(&id, 0xff, sizeof id);
    OK(PtlGetPhysId(pni, &id));
    CHECK(id.phys.nid == pt_node && id.phys.pid == me, "PtlGetPhysId on the physical NI {%u,%u}", id.phys.nid,
          id.phys.pid);
    ptl_handle_eq_t eq;
    OK(PtlEQAlloc(pni, 64, &eq));
    ptl_pt_index_t pt = 99;
    OK(PtlPTAlloc(pni, 0, eq, PTL_PT_ANY, &pt));
    CHECK(pt == 0, "PTL_PT_ANY on the fresh physical NI gave %u, want 0 (its own table)", pt);
    static unsigned char pbuf[4096], sbuf[4096], gbuf[4096];
    memset(pbuf, 0xee, sizeof pbuf);
    pt_fill(pbuf + 2048, me, 901, 1024);
    ptl_le_t le = pt_le(pbuf, sizeof pbuf, PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE,
                        PTL_UID_ANY);
    ptl_handle_le_t h;
    OK(PtlLEAppend(pni, pt, &le, PTL_PRIORITY_LIST, pbuf, &h));
    ptl_md_t d = pt_md(sbuf, sizeof sbuf, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    ptl_handle_md_t md, gmd;
    OK(PtlMDBind(pni, &d, &md));
    d = pt_md(gbuf, sizeof gbuf, 0, eq, PTL_CT_NONE);
    OK(PtlMDBind(pni, &d, &gmd));
    ptl_handle_ni_t owner = PTL_INVALID_HANDLE;
    OK(PtlNIHandle(md, &owner));
    CHECK(PtlHandleIsEqual(owner, pni), "PtlNIHandle of a physical-NI MD is not the physical NI");
    pt_fill(sbuf, me, 900, 512);
    memset(gbuf, 0x5a, sizeof gbuf);
    BARRIER();
    OK(PtlPut(md, 0, 512, PTL_ACK_REQ, pt_phys(right), pt, 0, 100, sbuf, 42));
    OK(PtlGet(gmd, 8, 1024, pt_phys(right), pt, 0, 2048, gbuf));
    struct evset s;
    COLLECT(eq, 4, &s); /* my ACK and REPLY, and the PUT and GET from my left */
    struct evwant w = want_ack(sbuf, 512, 100, pt, PTL_NI_OK);
    CHECK_EVENT("physical put", TAKE(&s, PTL_EVENT_ACK), &w);
    w = want_reply(gbuf, 1024, PTL_NI_OK);
    CHECK_EVENT("physical get", TAKE(&s, PTL_EVENT_REPLY), &w);
    w = want_target(PTL_EVENT_PUT, pbuf + 100, pbuf, 42, 512, 512, 100, left, pt);
    w.fields = (w.fields & ~(unsigned)EV_INIT) | EV_INIT_PHYS;
    CHECK_EVENT("physical put (target)", TAKE(&s, PTL_EVENT_PUT), &w);
    w = want_target(PTL_EVENT_GET, pbuf + 2048, pbuf, 0, 1024, 1024, 2048, left, pt);
    w.fields = (w.fields & ~(unsigned)EV_INIT) | EV_INIT_PHYS;
    CHECK_EVENT("physical get (target)", TAKE(&s, PTL_EVENT_GET), &w);
    CHECK_PATTERN(gbuf + 8, right, 901, 1024, "physical get");
    BARRIER();
    CHECK_BYTES(pbuf, 0xee, 100, "before the physical put");
    CHECK_PATTERN(pbuf + 100, left, 900, 512, "physical put");
    CHECK_BYTES(pbuf + 612, 0xee, 2048 - 612, "after the physical put");
    EXPECT_EMPTY(eq, "physical NI");
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(gmd));
    OK(PtlLEUnlink(h));
    OK(PtlPTFree(pni, pt));
    OK(PtlEQFree(eq));
    BARRIER();
    OK(PtlNIFini(pni));
}

/* ---- counting events ---- */
struct later {
    int kind; /* 0: CTInc, 1: LEAppend (LINK event) */
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    int ms;
    ptl_handle_le_t le;
};
static void *later_fn(void *arg)
{
    struct later *l = arg;
    usleep((useconds_t)l->ms * 1000);
    if (l->kind == 0) {
        ptl_ct_event_t inc = {1, 0};
        OK(PtlCTInc(l->ct, inc));
    } else {
        static char b[64];
        ptl_le_t le = pt_le(b, sizeof b, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
        OK(PtlLEAppend(ni, l->pt, &le, PTL_PRIORITY_LIST, b, &l->le));
    }
    return NULL;
}

static void t_ct(void)
{
    ptl_handle_ct_t a, b;
    OK(PtlCTAlloc(ni, &a));
    OK(PtlCTAlloc(ni, &b));
    EXPECT_CT_NOW(a, 0, 0);
    ptl_ct_event_t v = {5, 2};
    OK(PtlCTSet(a, v));
    EXPECT_CT_NOW(a, 5, 2);
    v.success = 3;
    v.failure = 1;
    EXPECT_RC(PTL_ARG_INVALID, PtlCTInc(a, v)); /* one of the two at a time, as the reference has it */
    EXPECT_CT_NOW(a, 5, 2);
    OK(PtlCTInc(a, (ptl_ct_event_t){3, 0}));
    OK(PtlCTInc(a, (ptl_ct_event_t){0, 1}));
    EXPECT_CT_NOW(a, 8, 3);
    ptl_ct_event_t got = {0, 0};
    OK(PtlCTWait(a, 100, &got)); /* a failure ends a wait at once */
    CHECK(got.success == 8 && got.failure == 3, "PtlCTWait gave %llu/%llu", (unsigned long long)got.success,
          (unsigned long long)got.failure);
    /* a wait that another thread's PtlCTInc ends (no failure: it would
     * end the wait at once) */
    OK(PtlCTSet(a, (ptl_ct_event_t){8, 0}));
    pthread_t th;
    struct later l = {0, a, 0, 150, 0};
    long t0 = pt_now_ms();
    REQUIRE(pthread_create(&th, NULL, later_fn, &l) == 0, "pthread_create");
    pt_watch("PtlCTWait woken by PtlCTInc from another thread");
    OK(PtlCTWait(a, 9, &got));
    pt_unwatch();
    pthread_join(th, NULL);
    CHECK(got.success == 9 && got.failure == 0, "PtlCTWait after the inc gave %llu/%llu",
          (unsigned long long)got.success, (unsigned long long)got.failure);
    CHECK(elapsed_ms(t0) >= 100, "PtlCTWait(9) returned after %ld ms, before the inc", elapsed_ms(t0));

    /* PtlCTPoll over two counters */
    ptl_handle_ct_t cts[2] = {a, b};
    ptl_size_t tests[2] = {100, 1};
    unsigned int which = 77;
    t0 = pt_now_ms();
    EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(cts, tests, 2, 200, &got, &which));
    long el = elapsed_ms(t0);
    CHECK(el >= 150 && el < 5000, "PtlCTPoll(timeout 200 ms) took %ld ms", el);
    t0 = pt_now_ms();
    EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(cts, tests, 2, 0, &got, &which));
    CHECK(elapsed_ms(t0) < 1000, "PtlCTPoll(timeout 0) took %ld ms", elapsed_ms(t0));
    ptl_ct_event_t one = {0, 1};
    OK(PtlCTInc(b, one)); /* a failure ends the wait */
    which = 77;
    EXPECT_RC(PTL_OK, PtlCTPoll(cts, tests, 2, 1000, &got, &which));
    CHECK(which == 1, "PtlCTPoll which = %u, want 1", which);
    CHECK(got.success == 0 && got.failure == 1, "PtlCTPoll event %llu/%llu, want 0/1",
          (unsigned long long)got.success, (unsigned long long)got.failure);
    /* woken while polling */
    OK(PtlCTSet(b, (ptl_ct_event_t){0, 0}));
    tests[1] = 1;
    l.ct = b;
    REQUIRE(pthread_create(&th, NULL, later_fn, &l) == 0, "pthread_create");
    which = 77;
    EXPECT_RC(PTL_OK, PtlCTPoll(cts, tests, 2, 10000, &got, &which));
    pthread_join(th, NULL);
    CHECK(which == 1 && got.success == 1 && got.failure == 0, "PtlCTPoll woken by an inc: which %u, %llu/%llu",
          which, (unsigned long long)got.success, (unsigned long long)got.failure);
    OK(PtlCTFree(a));
    OK(PtlCTFree(b));
}

/* ---- event queues ---- */
static void t_eq(void)
{
    ptl_handle_eq_t a, b;
    OK(PtlEQAlloc(ni, 8, &a));
    OK(PtlEQAlloc(ni, 8, &b));
    ptl_event_t ev;
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(a, &ev));
    ptl_handle_eq_t eqs[2] = {a, b};
    unsigned int which = 77;
    long t0 = pt_now_ms();
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(eqs, 2, 200, &ev, &which));
    long el = elapsed_ms(t0);
    CHECK(el >= 150 && el < 5000, "PtlEQPoll(timeout 200 ms) took %ld ms", el);
    t0 = pt_now_ms();
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(eqs, 2, 0, &ev, &which));
    CHECK(elapsed_ms(t0) < 1000, "PtlEQPoll(timeout 0) took %ld ms", elapsed_ms(t0));

    /* LINK events make local traffic: PT pa reports to a, pb to b */
    ptl_pt_index_t pa, pb;
    OK(PtlPTAlloc(ni, 0, a, PTL_PT_ANY, &pa));
    OK(PtlPTAlloc(ni, 0, b, PTL_PT_ANY, &pb));
    static char buf[64];
    ptl_le_t le = pt_le(buf, sizeof buf, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t h1, h2, h3;
    OK(PtlLEAppend(ni, pb, &le, PTL_PRIORITY_LIST, (void *)1, &h1));
    which = 77;
    memset(&ev, 0, sizeof ev);
    EXPECT_RC(PTL_OK, PtlEQPoll(eqs, 2, 5000, &ev, &which));
    CHECK(which == 1 && ev.type == PTL_EVENT_LINK && ev.user_ptr == (void *)1,
          "PtlEQPoll: which %u type %s user_ptr %p, want 1 LINK 0x1", which, pt_evname(ev.type), ev.user_ptr);
    OK(PtlLEAppend(ni, pa, &le, PTL_PRIORITY_LIST, (void *)2, &h2));
    memset(&ev, 0, sizeof ev);
    pt_watch("PtlEQWait with an event queued");
    EXPECT_RC(PTL_OK, PtlEQWait(a, &ev));
    pt_unwatch();
    CHECK(ev.type == PTL_EVENT_LINK && ev.user_ptr == (void *)2 && ev.pt_index == pa,
          "PtlEQWait: type %s user_ptr %p pt %u", pt_evname(ev.type), ev.user_ptr, ev.pt_index);
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(a, &ev));
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(b, &ev));
    /* PtlEQWait woken by an event posted from another thread */
    pthread_t th;
    struct later l = {1, 0, pa, 150, 0};
    REQUIRE(pthread_create(&th, NULL, later_fn, &l) == 0, "pthread_create");
    memset(&ev, 0, sizeof ev);
    pt_watch("PtlEQWait woken by a LINK event from another thread");
    EXPECT_RC(PTL_OK, PtlEQWait(a, &ev));
    pt_unwatch();
    pthread_join(th, NULL);
    CHECK(ev.type == PTL_EVENT_LINK && ev.pt_index == pa, "PtlEQWait woken: type %s pt %u", pt_evname(ev.type),
          ev.pt_index);
    h3 = l.le;
    OK(PtlLEUnlink(h1));
    OK(PtlLEUnlink(h2));
    OK(PtlLEUnlink(h3));
    OK(PtlPTFree(ni, pa));
    OK(PtlPTFree(ni, pb));
    OK(PtlEQFree(a));
    OK(PtlEQFree(b));
}

/* ---- ordering: a flag put after the data implies the data ---- */
#define OSZ (1u << 20)
static void t_ordering(void)
{
    unsigned char *obuf = pt_xmalloc(OSZ + 64), *src = pt_xmalloc(OSZ);
    volatile uint64_t *flag = (volatile uint64_t *)(obuf + OSZ);
    uint64_t fsrc = 0;
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(ni, &ct));
    ptl_pt_index_t pt;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 11, &pt));
    ptl_le_t le = pt_le(obuf, OSZ + 64, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t h;
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &h));
    ptl_md_t d = pt_md(src, OSZ, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, ct);
    ptl_handle_md_t md, fmd;
    OK(PtlMDBind(ni, &d, &md));
    d = pt_md(&fsrc, 8, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, ct);
    OK(PtlMDBind(ni, &d, &fmd));
    static const size_t osz[] = {8, 4096, 65536, OSZ};
    uint64_t acks = 0;
    for (unsigned it = 0; it < 16; it++) {
        size_t len = osz[it % 4];
        memset(obuf, 0, OSZ);
        *flag = 0;
        pt_fill(src, me, 1000 + it, len);
        fsrc = it + 1;
        BARRIER();
        OK(PtlPut(md, 0, len, PTL_CT_ACK_REQ, pt_lrank(right), pt, 0, 0, NULL, 0));
        OK(PtlPut(fmd, 0, 8, PTL_CT_ACK_REQ, pt_lrank(right), pt, 0, OSZ, NULL, 0));
        long t0 = pt_now_ms();
        while (*flag != it + 1) {
            REQUIRE(elapsed_ms(t0) < (long)PT_WAIT_MS, "ordering: flag %u never arrived", it + 1);
            sched_yield();
        }
        CHECK_PATTERN(obuf, left, 1000 + it, len, "ordering round %u: data behind the flag (%zu B)", it, len);
        acks += 2;
        EXPECT_CT(ct, acks, 0);
        BARRIER();
    }
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(fmd));
    OK(PtlLEUnlink(h));
    OK(PtlPTFree(ni, pt));
    OK(PtlCTFree(ct));
    free(obuf);
    free(src);
}

int main(void)
{
    pt_env();
    me = pt_me;
    n = pt_n;
    right = (me + 1) % n;
    left = (me + n - 1) % n;

    OK(PtlInit());
    ptl_ni_limits_t lim, lim2, desired;
    memset(&lim, 0, sizeof lim);
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni));
    CHECK(lim.max_pt_index == 63, "max_pt_index %d, want 63", lim.max_pt_index);
    CHECK(lim.max_volatile_size >= 32, "max_volatile_size %llu", (unsigned long long)lim.max_volatile_size);
    CHECK(lim.max_atomic_size >= 32, "max_atomic_size %llu", (unsigned long long)lim.max_atomic_size);
    CHECK(lim.max_fetch_atomic_size >= 32, "max_fetch_atomic_size %llu",
          (unsigned long long)lim.max_fetch_atomic_size);
    CHECK(lim.max_msg_size >= (16u << 20), "max_msg_size %llu", (unsigned long long)lim.max_msg_size);
    if (me == 0)
        NOTE("limits: entries %d mds %d cts %d eqs %d pt_index %d list %d msg %llu atomic %llu fetch %llu "
             "waw %llu war %llu volatile %llu features 0x%x",
             lim.max_entries, lim.max_mds, lim.max_cts, lim.max_eqs, lim.max_pt_index, lim.max_list_size,
             (unsigned long long)lim.max_msg_size, (unsigned long long)lim.max_atomic_size,
             (unsigned long long)lim.max_fetch_atomic_size, (unsigned long long)lim.max_waw_ordered_size,
             (unsigned long long)lim.max_war_ordered_size, (unsigned long long)lim.max_volatile_size,
             lim.features);
    /* the same options again: the same NI */
    desired = lim;
    desired.max_mds = 17;
    ptl_handle_ni_t ni2 = PTL_INVALID_HANDLE;
    EXPECT_RC(PTL_OK, PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &desired,
                                &lim2, &ni2));
    CHECK(PtlHandleIsEqual(ni, ni2), "a second PtlNIInit with the same options gave another handle");
    CHECK(lim2.max_pt_index == 63, "second PtlNIInit: max_pt_index %d", lim2.max_pt_index);

    pt_barrier_init(ni, 1);
    BARRIER();
    t_identity();
    t_pt_rules();
    t_setmap();
    t_physical();
    t_ct();
    t_eq();
    t_ordering();

    ptl_handle_ni_t owner = PTL_INVALID_HANDLE;
    ptl_handle_eq_t eq;
    OK(PtlEQAlloc(ni, 4, &eq));
    OK(PtlNIHandle(eq, &owner));
    CHECK(PtlHandleIsEqual(owner, ni), "PtlNIHandle(eq) is not the NI");
    OK(PtlNIHandle(ni, &owner));
    CHECK(PtlHandleIsEqual(owner, ni), "PtlNIHandle(ni) is not the NI");
    OK(PtlEQFree(eq));
    EXPECT_RC(PTL_OK, PtlAtomicSync());
    EXPECT_RC(PTL_OK, PtlStartBundle(ni));
    EXPECT_RC(PTL_OK, PtlEndBundle(ni));

    BARRIER();
    pt_barrier_fini();
    int rc = PtlNIFini(ni2);
    CHECK(rc == PTL_OK, "PtlNIFini of the second init's handle returned %s", pt_rcname(rc));
    rc = PtlNIFini(ni);
    if (rc != PTL_OK)
        NOTE("PtlNIFini after two PtlNIInit/one PtlNIFini returned %s (no reference count)", pt_rcname(rc));
    PtlFini();
    return pt_done("ptl_ni");
}
