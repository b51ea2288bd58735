/* Sandia OpenSHMEM's use of Portals 4, call for call (SOS
 * src/transport_portals4.[ch], default build): a logical non-matching NI
 * with SOS's desired limits, the rank->phys map installed with PtlSetMap,
 * one EQ of 2048 slots, PTs 8 (data segment) and 9 (heap) requested by
 * index, persistent LEs over private memory counted by one target CT, MDs
 * over the whole address space (local_offset = virtual address) with SOS's
 * four option sets, the three put paths (volatile, bounce with SEND events,
 * zero-copy), Get, the AMOs SOS issues, quiet by PtlCTWait, and SOS's
 * shutdown order. Every rank talks to its right neighbour; every byte and
 * counter is checked. */
#include "ptest.h"

#define HEAP_SIZE (4u << 20)
#define BOUNCE 2048
#define NBOUNCE 4
#define LARGE (1u << 20)
#define GETSZ (64u << 10)

/* heap layout (offsets into the heap LE) */
#define OFF_VOL 0
#define OFF_BOUNCE 8192
#define OFF_LARGE 16384
#define OFF_GETSRC (OFF_LARGE + LARGE)
#define OFF_AMO (2u << 20)
/* data segment layout */
#define DOFF_PUT 0
#define DOFF_AMO 8192
#define DOFF_GETSRC 8448

/* SOS's data segment is __data_start.._end: a static array lands there. */
static char data_seg[16384] = {1};

static const uint64_t MSWAP_INIT = 0x00ff00ff00ff00ffull;
static const uint64_t MSWAP_MASK = 0x0f0f0f0f0f0f0f0full;
static const uint64_t MSWAP_NEW = 0xaaaaaaaaaaaaaaaaull;

static uint64_t amo_init(unsigned slot, uint32_t r)
{
    switch (slot) {
    case 0: return 1000 + r;           /* SUM target */
    case 1: return 5000 + r;           /* fetch-add */
    case 2: return 111 + r;            /* swap */
    case 3: return 300 + r;            /* cswap that matches */
    case 4: return 600 + r;            /* cswap that does not */
    case 5: return MSWAP_INIT ^ r;     /* mswap */
    default: return 0;
    }
}

int main(void)
{
    pt_env();
    const uint32_t me = pt_me, n = pt_n, right = (me + 1) % n, left = (me + n - 1) % n;
    const ptl_process_t peer = pt_lrank(right);

    /* symmetric heap: private memory of this process */
    char *heap = pt_xmalloc(HEAP_SIZE);
    memset(heap, 0, HEAP_SIZE);
    pt_fill(heap + OFF_GETSRC, me, 77, GETSZ);
    for (unsigned s = 0; s < 6; s++) {
        uint64_t v = amo_init(s, me);
        memcpy(heap + OFF_AMO + 8 * s, &v, 8);
    }
    memset(data_seg, 0, sizeof data_seg);
    int64_t dinit = 40 + me;
    memcpy(data_seg + DOFF_AMO, &dinit, 8);
    pt_fill(data_seg + DOFF_GETSRC, me, 78, 512);

    /* ---- start-up, in SOS's order ---- */
    OK(PtlInit());
    ptl_ni_limits_t desired, actual;
    memset(&desired, 0, sizeof desired);
    memset(&actual, 0, sizeof actual);
    desired.max_entries = 1024;
    desired.max_unexpected_headers = 1024;
    desired.max_mds = 1024;
    desired.max_eqs = 1024;
    desired.max_cts = 1024;
    desired.max_pt_index = 64;
    desired.max_iovecs = 1024;
    desired.max_list_size = 1024;
    desired.max_triggered_ops = 1024;
    desired.max_msg_size = LONG_MAX;
    desired.max_atomic_size = LONG_MAX;
    desired.max_fetch_atomic_size = LONG_MAX;
    desired.max_waw_ordered_size = LONG_MAX;
    desired.max_war_ordered_size = LONG_MAX;
    desired.max_volatile_size = LONG_MAX;
    desired.features = 0;
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, &desired,
                 &actual, &ni));
    REQUIRE(actual.max_volatile_size >= 32, "max_volatile_size %llu < 32 (SOS aborts)",
            (unsigned long long)actual.max_volatile_size);
    REQUIRE(actual.max_atomic_size >= 32, "max_atomic_size %llu < 32 (SOS aborts)",
            (unsigned long long)actual.max_atomic_size);
    REQUIRE(actual.max_fetch_atomic_size >= 32, "max_fetch_atomic_size %llu < 32 (SOS aborts)",
            (unsigned long long)actual.max_fetch_atomic_size);
    CHECK(actual.max_msg_size >= (16u << 20), "max_msg_size %llu < 16 MiB",
          (unsigned long long)actual.max_msg_size);
    CHECK(actual.max_pt_index == 63, "max_pt_index %d, want 63", actual.max_pt_index);

    ptl_process_t myid;
    memset(&myid, 0xff, sizeof myid);
    OK(PtlGetPhysId(ni, &myid));
    CHECK(myid.phys.nid == pt_node && myid.phys.pid == me, "PtlGetPhysId {%u,%u}, want {%u,%u}",
          myid.phys.nid, myid.phys.pid, pt_node, me);

    /* SOS publishes its phys id through the PMI KVS and reads everyone's
     * back; here each rank builds the same table from PtlGetMap. */
    ptl_process_t *map = pt_xmalloc(n * sizeof *map);
    memset(map, 0xff, n * sizeof *map);
    ptl_size_t mapsz = 0;
    OK(PtlGetMap(ni, n, map, &mapsz));
    CHECK(mapsz == n, "PtlGetMap actual_map_size %llu, want %u", (unsigned long long)mapsz, n);
    for (uint32_t i = 0; i < n; i++)
        CHECK(map[i].phys.nid == pt_node_of(i) && map[i].phys.pid == i,
              "PtlGetMap entry %u is {%u,%u}, want {%u,%u}", i, map[i].phys.nid, map[i].phys.pid,
              pt_node_of(i), i);
    CHECK(memcmp(&map[me], &myid, sizeof myid) == 0, "my map entry differs from PtlGetPhysId");
    EXPECT_RC(PTL_OK, PtlSetMap(ni, n, map));
    free(map);

    ptl_uid_t uid = 12345;
    OK(PtlGetUid(ni, &uid));
    CHECK(uid == (ptl_uid_t)getuid(), "PtlGetUid %u, want getuid() %u", uid, (unsigned)getuid());

    ptl_handle_eq_t eq;
    OK(PtlEQAlloc(ni, 2048, &eq));
    ptl_pt_index_t data_pt = 99, heap_pt = 99;
    OK(PtlPTAlloc(ni, 0, eq, 8, &data_pt));
    REQUIRE(data_pt == 8, "PtlPTAlloc(8) gave %u", data_pt);
    OK(PtlPTAlloc(ni, 0, eq, 9, &heap_pt));
    REQUIRE(heap_pt == 9, "PtlPTAlloc(9) gave %u", heap_pt);
    ptl_handle_ct_t target_ct;
    OK(PtlCTAlloc(ni, &target_ct));
    const unsigned le_opts = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE |
                             PTL_LE_EVENT_SUCCESS_DISABLE | PTL_LE_EVENT_CT_COMM;
    ptl_le_t le = pt_le(heap, HEAP_SIZE, le_opts, target_ct, uid);
    ptl_handle_le_t heap_le, data_le;
    OK(PtlLEAppend(ni, heap_pt, &le, PTL_PRIORITY_LIST, NULL, &heap_le));
    le = pt_le(data_seg, sizeof data_seg, le_opts, target_ct, uid);
    OK(PtlLEAppend(ni, data_pt, &le, PTL_PRIORITY_LIST, NULL, &data_le));

    ptl_handle_ct_t put_event_ct, put_ct, get_ct;
    ptl_handle_md_t put_event_md, put_md, put_volatile_md, get_md;
    OK(PtlCTAlloc(ni, &put_event_ct));
    ptl_md_t md = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_CT_ACK | PTL_MD_UNORDERED, eq, put_event_ct);
    OK(PtlMDBind(ni, &md, &put_event_md));
    OK(PtlCTAlloc(ni, &put_ct));
    OK(PtlCTAlloc(ni, &get_ct));
    md = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SUCCESS_DISABLE | PTL_MD_UNORDERED,
               eq, put_ct);
    OK(PtlMDBind(ni, &md, &put_md));
    md.options |= PTL_MD_VOLATILE;
    OK(PtlMDBind(ni, &md, &put_volatile_md));
    md = pt_md(NULL, PTL_SIZE_MAX, PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_SUCCESS_DISABLE | PTL_MD_UNORDERED,
               eq, get_ct);
    OK(PtlMDBind(ni, &md, &get_md));
    CHECK(!PtlHandleIsEqual(put_md, PTL_INVALID_HANDLE), "a live MD equals PTL_INVALID_HANDLE");
    CHECK(PtlHandleIsEqual(get_md, get_md), "PtlHandleIsEqual(h, h) is 0");
    CHECK(!PtlHandleIsEqual(put_md, get_md), "two MDs compare equal");

    pt_barrier_init(ni, 1);
    BARRIER(); /* SOS: PMI barrier at the end of start-up */

    uint64_t puts = 0, event_puts = 0, gets = 0, sent_to_right = 0;

    /* ---- 1. volatile puts: the buffer is free when PtlPut returns ---- */
    size_t vmax = actual.max_volatile_size < 4096 ? (size_t)actual.max_volatile_size : 4096;
    const size_t vlen[4] = {1, 8, 32, vmax};
    const size_t voff[4] = {0, 64, 128, 256};
    for (int i = 0; i < 4; i++) {
        unsigned char buf[4096];
        pt_fill(buf, me, 10 + (uint64_t)i, vlen[i]);
        OK(PtlPut(put_volatile_md, (ptl_size_t)(uintptr_t)buf, vlen[i], PTL_OC_ACK_REQ, peer, heap_pt,
                  0, OFF_VOL + voff[i], NULL, 0));
        memset(buf, 0xdd, sizeof buf); /* reuse at once */
        puts++;
        sent_to_right++;
    }

    /* ---- 2. bounce-buffer puts: SEND events recycle the buffers ---- */
    static unsigned char bounce[NBOUNCE][BOUNCE];
    for (int i = 0; i < NBOUNCE; i++) {
        pt_fill(bounce[i], me, 20 + (uint64_t)i, BOUNCE);
        OK(PtlPut(put_event_md, (ptl_size_t)(uintptr_t)bounce[i], BOUNCE, PTL_OC_ACK_REQ, peer, heap_pt,
                  0, OFF_BOUNCE + (ptl_size_t)i * BOUNCE, bounce[i], 0));
        event_puts++;
        sent_to_right++;
    }
    int seen[NBOUNCE] = {0};
    for (int i = 0; i < NBOUNCE; i++) {
        ptl_event_t ev;
        memset(&ev, 0, sizeof ev);
        OK(PtlEQWait(eq, &ev)); /* SOS asserts SEND is the only event type */
        CHECK(ev.type == PTL_EVENT_SEND, "event %s on SOS's EQ, want SEND only", pt_evname(ev.type));
        CHECK(ev.ni_fail_type == PTL_NI_OK, "SEND ni_fail_type %s", pt_failname(ev.ni_fail_type));
        int k = -1;
        for (int j = 0; j < NBOUNCE; j++)
            if (ev.user_ptr == bounce[j])
                k = j;
        CHECK(k >= 0 && !seen[k], "SEND user_ptr %p is not an outstanding bounce buffer", ev.user_ptr);
        if (k >= 0) {
            seen[k] = 1;
            memset(bounce[k], 0xbb, BOUNCE); /* recycled */
        }
    }

    /* ---- 3. zero-copy large put ---- */
    unsigned char *large = pt_xmalloc(LARGE);
    pt_fill(large, me, 30, LARGE);
    OK(PtlPut(put_md, (ptl_size_t)(uintptr_t)large, LARGE, PTL_OC_ACK_REQ, peer, heap_pt, 0, OFF_LARGE,
              NULL, 0));
    puts++;
    sent_to_right++;
    /* a put into the data segment */
    unsigned char dbuf[4096];
    pt_fill(dbuf, me, 31, sizeof dbuf);
    OK(PtlPut(put_md, (ptl_size_t)(uintptr_t)dbuf, sizeof dbuf, PTL_OC_ACK_REQ, peer, data_pt, 0,
              DOFF_PUT, NULL, 0));
    puts++;
    sent_to_right++;

    /* ---- 4. quiet: PtlCTWait on the put counters ---- */
    ptl_ct_event_t cte;
    memset(&cte, 0, sizeof cte);
    OK(PtlCTWait(put_ct, puts, &cte));
    CHECK(cte.failure == 0 && cte.success == puts, "put_ct success %llu failure %llu, want %llu and 0",
          (unsigned long long)cte.success, (unsigned long long)cte.failure, (unsigned long long)puts);
    OK(PtlCTWait(put_event_ct, event_puts, &cte));
    CHECK(cte.failure == 0 && cte.success == event_puts,
          "put_event_ct success %llu failure %llu, want %llu and 0", (unsigned long long)cte.success,
          (unsigned long long)cte.failure, (unsigned long long)event_puts);

    /* ---- 5. Get ---- */
    unsigned char *gbuf = pt_xmalloc(GETSZ + 64);
    memset(gbuf, 0x5a, GETSZ + 64);
    OK(PtlGet(get_md, (ptl_size_t)(uintptr_t)(gbuf + 32), GETSZ, peer, heap_pt, 0, OFF_GETSRC, NULL));
    gets++;
    sent_to_right++;
    unsigned char dget[512 + 64];
    memset(dget, 0x5a, sizeof dget);
    OK(PtlGet(get_md, (ptl_size_t)(uintptr_t)(dget + 32), 512, peer, data_pt, 0, DOFF_GETSRC, NULL));
    gets++;
    sent_to_right++;
    OK(PtlCTWait(get_ct, gets, &cte));
    CHECK(cte.failure == 0 && cte.success == gets, "get_ct success %llu failure %llu, want %llu and 0",
          (unsigned long long)cte.success, (unsigned long long)cte.failure, (unsigned long long)gets);
    CHECK_BYTES(gbuf, 0x5a, 32, "before the heap get");
    CHECK_PATTERN(gbuf + 32, right, 77, GETSZ, "heap get from %u", right);
    CHECK_BYTES(gbuf + 32 + GETSZ, 0x5a, 32, "after the heap get");
    CHECK_BYTES(dget, 0x5a, 32, "before the data get");
    CHECK_PATTERN(dget + 32, right, 78, 512, "data-segment get from %u", right);
    CHECK_BYTES(dget + 32 + 512, 0x5a, 32, "after the data get");

    /* ---- 6. AMOs as SOS issues them ---- */
    int64_t add = 3 * ((int64_t)me + 1);
    OK(PtlAtomic(put_volatile_md, (ptl_size_t)(uintptr_t)&add, 8, PTL_OC_ACK_REQ, peer, heap_pt, 0,
                 OFF_AMO + 0, NULL, 0, PTL_SUM, PTL_INT64_T));
    add = -1; /* volatile: reusable now */
    puts++;
    sent_to_right++;
    int64_t dadd = 1000 * ((int64_t)me + 1);
    OK(PtlAtomic(put_volatile_md, (ptl_size_t)(uintptr_t)&dadd, 8, PTL_OC_ACK_REQ, peer, data_pt, 0,
                 DOFF_AMO, NULL, 0, PTL_SUM, PTL_INT64_T));
    puts++;
    sent_to_right++;

    uint64_t fetched[6];
    memset(fetched, 0xee, sizeof fetched);
    int64_t fadd = 7;
    OK(PtlFetchAtomic(get_md, (ptl_size_t)(uintptr_t)&fetched[1], put_volatile_md,
                      (ptl_size_t)(uintptr_t)&fadd, 8, peer, heap_pt, 0, OFF_AMO + 8, NULL, 0, PTL_SUM,
                      PTL_INT64_T));
    gets++;
    sent_to_right++;
    uint64_t swapv = 222 + me;
    OK(PtlSwap(get_md, (ptl_size_t)(uintptr_t)&fetched[2], put_volatile_md, (ptl_size_t)(uintptr_t)&swapv,
               8, peer, heap_pt, 0, OFF_AMO + 16, NULL, 0, NULL, PTL_SWAP, PTL_INT64_T));
    gets++;
    sent_to_right++;
    uint64_t cmp_hit = amo_init(3, right), new_hit = 400 + me;
    OK(PtlSwap(get_md, (ptl_size_t)(uintptr_t)&fetched[3], put_volatile_md,
               (ptl_size_t)(uintptr_t)&new_hit, 8, peer, heap_pt, 0, OFF_AMO + 24, NULL, 0, &cmp_hit,
               PTL_CSWAP, PTL_INT64_T));
    gets++;
    sent_to_right++;
    uint64_t cmp_miss = 12345, new_miss = 999;
    OK(PtlSwap(get_md, (ptl_size_t)(uintptr_t)&fetched[4], put_volatile_md,
               (ptl_size_t)(uintptr_t)&new_miss, 8, peer, heap_pt, 0, OFF_AMO + 32, NULL, 0, &cmp_miss,
               PTL_CSWAP, PTL_INT64_T));
    gets++;
    sent_to_right++;
    uint64_t mask = MSWAP_MASK, mnew = MSWAP_NEW;
    OK(PtlSwap(get_md, (ptl_size_t)(uintptr_t)&fetched[5], put_volatile_md, (ptl_size_t)(uintptr_t)&mnew,
               8, peer, heap_pt, 0, OFF_AMO + 40, NULL, 0, &mask, PTL_MSWAP, PTL_UINT64_T));
    gets++;
    sent_to_right++;

    OK(PtlAtomicSync());
    OK(PtlCTWait(put_ct, puts, &cte));
    CHECK(cte.failure == 0 && cte.success == puts, "put_ct after AMOs: success %llu failure %llu, want %llu",
          (unsigned long long)cte.success, (unsigned long long)cte.failure, (unsigned long long)puts);
    OK(PtlCTWait(get_ct, gets, &cte));
    CHECK(cte.failure == 0 && cte.success == gets, "get_ct after AMOs: success %llu failure %llu, want %llu",
          (unsigned long long)cte.success, (unsigned long long)cte.failure, (unsigned long long)gets);
    CHECK(fetched[1] == amo_init(1, right), "fetch-add fetched %llu, want %llu",
          (unsigned long long)fetched[1], (unsigned long long)amo_init(1, right));
    CHECK(fetched[2] == amo_init(2, right), "swap fetched %llu, want %llu", (unsigned long long)fetched[2],
          (unsigned long long)amo_init(2, right));
    CHECK(fetched[3] == amo_init(3, right), "cswap (hit) fetched %llu, want %llu",
          (unsigned long long)fetched[3], (unsigned long long)amo_init(3, right));
    CHECK(fetched[4] == amo_init(4, right), "cswap (miss) fetched %llu, want %llu",
          (unsigned long long)fetched[4], (unsigned long long)amo_init(4, right));
    CHECK(fetched[5] == amo_init(5, right), "mswap fetched 0x%llx, want 0x%llx",
          (unsigned long long)fetched[5], (unsigned long long)amo_init(5, right));

    /* ---- 7. target side: what the left neighbour did to me ---- */
    BARRIER();
    /* shmem_transport_received_cntr_wait: the target CT counts every op */
    OK(PtlCTWait(target_ct, sent_to_right, &cte));
    CHECK(cte.success == sent_to_right && cte.failure == 0,
          "target_ct success %llu failure %llu, want %llu and 0", (unsigned long long)cte.success,
          (unsigned long long)cte.failure, (unsigned long long)sent_to_right);
    for (int i = 0; i < 4; i++)
        CHECK_PATTERN(heap + OFF_VOL + voff[i], left, 10 + (uint64_t)i, vlen[i], "volatile put %d (%zu B)", i,
                      vlen[i]);
    CHECK_BYTES(heap + OFF_VOL + voff[0] + 1, 0, 63, "after the 1-byte put");
    for (int i = 0; i < NBOUNCE; i++)
        CHECK_PATTERN(heap + OFF_BOUNCE + i * BOUNCE, left, 20 + (uint64_t)i, BOUNCE, "bounce put %d", i);
    CHECK_PATTERN(heap + OFF_LARGE, left, 30, LARGE, "1 MiB put");
    CHECK_PATTERN(data_seg + DOFF_PUT, left, 31, 4096, "data-segment put");
    uint64_t v[6];
    memcpy(v, heap + OFF_AMO, sizeof v);
    CHECK(v[0] == amo_init(0, me) + 3 * ((uint64_t)left + 1), "SUM result %llu, want %llu",
          (unsigned long long)v[0], (unsigned long long)(amo_init(0, me) + 3 * ((uint64_t)left + 1)));
    CHECK(v[1] == amo_init(1, me) + 7, "fetch-add result %llu, want %llu", (unsigned long long)v[1],
          (unsigned long long)(amo_init(1, me) + 7));
    CHECK(v[2] == 222 + left, "swap result %llu, want %llu", (unsigned long long)v[2],
          (unsigned long long)(222 + left));
    CHECK(v[3] == 400 + left, "cswap (hit) result %llu, want %llu", (unsigned long long)v[3],
          (unsigned long long)(400 + left));
    CHECK(v[4] == amo_init(4, me), "cswap (miss) changed the target to %llu", (unsigned long long)v[4]);
    uint64_t mwant = (MSWAP_MASK & MSWAP_NEW) | (~MSWAP_MASK & amo_init(5, me));
    CHECK(v[5] == mwant, "mswap result 0x%llx, want 0x%llx", (unsigned long long)v[5],
          (unsigned long long)mwant);
    int64_t dv;
    memcpy(&dv, data_seg + DOFF_AMO, 8);
    CHECK(dv == 40 + (int64_t)me + 1000 * ((int64_t)left + 1), "data-segment SUM %lld, want %lld",
          (long long)dv, (long long)(40 + (int64_t)me + 1000 * ((int64_t)left + 1)));
    /* only SEND events ever reach SOS's EQ */
    EXPECT_EMPTY(eq, "SOS's EQ after all traffic");

    /* ---- shutdown, in SOS's order ---- */
    BARRIER();
    OK(PtlAtomicSync());
    OK(PtlCTWait(put_ct, puts, &cte));
    OK(PtlCTWait(get_ct, gets, &cte));
    OK(PtlMDRelease(put_md));
    OK(PtlMDRelease(put_volatile_md));
    OK(PtlMDRelease(get_md));
    OK(PtlCTFree(put_ct));
    OK(PtlCTFree(get_ct));
    OK(PtlMDRelease(put_event_md));
    OK(PtlCTFree(put_event_ct));
    OK(PtlLEUnlink(data_le));
    OK(PtlLEUnlink(heap_le));
    OK(PtlCTFree(target_ct));
    OK(PtlPTFree(ni, data_pt));
    OK(PtlPTFree(ni, heap_pt));
    OK(PtlEQFree(eq));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    free(large);
    free(gbuf);
    free(heap);
    return pt_done("ptl_sos_path");
}
