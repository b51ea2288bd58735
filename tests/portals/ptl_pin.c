/* Portals descriptors over large private memory keep it moved onto a memfd
 * (lib/pin.c), as SOS's symmetric heap is: each rank binds an MD and appends
 * a persistent ME over the same 1 MiB static buffer, so the range is pinned
 * twice.
 *   - Put, get and an atomic of rank 1 against rank 0 are right byte by
 *     byte, and the NICs copy them with memcpy (vm_copies does not move).
 *   - The range stays moved while either descriptor lives: rank 1 unlinks
 *     its ME and puts again from the MD.
 *   - Released, the range goes back onto anonymous memory, contents kept.
 *   - An MD over the whole address space (SOS's) spends no region.
 * With EMUNIC_PRIVATE_MAP=0 nothing moves and the same data goes through
 * process_vm_* (vm_copies grows). */
#include "emunic/emunic.h"
#include "emunic/job.h"
#include "ptest.h"
#include "../common/memfd_moved.h"

#include <stdatomic.h>

#define PT_DATA 12
#define BIG (1u << 20)
#define AT_OFF 8192 /* the atomic's target: page-aligned, inside the buffer */

static unsigned char buf[BIG] __attribute__((aligned(4096)));

static int moved(void)
{
    int m = memfd_moved((uintptr_t)buf, (uintptr_t)buf + BIG);
    REQUIRE(m >= 0, "read /proc/self/maps");
    return m;
}

static struct emu_job *job(void)
{
    static struct emu_job j;
    static int open;
    if (!open)
        REQUIRE(emu_job_attach(&j, emunic_jobid()) == 0, "attach the job for its counters");
    open = 1;
    return &j;
}

/* process_vm_* copies of every NIC of the job so far. */
static uint64_t vm_copies(void)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < job()->hdr->nnodes; k++)
        n += atomic_load_explicit(&job()->nodes[k].ctr.vm_copies, memory_order_relaxed);
    return n;
}

/* This rank's live exposed regions (the core's table: odd generation). */
static int live_regions(void)
{
    int n = 0;
    for (int i = 0; i < EMU_MAX_REGIONS; i++)
        n += atomic_load(&job()->ranks[pt_me].regions[i].gen) & 1;
    return n;
}

static uint64_t pattern_u64(uint32_t rank, uint64_t salt, size_t at)
{
    uint64_t v;
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = pt_pattern(rank, salt, at + (size_t)i);
    memcpy(&v, b, 8);
    return v;
}

int main(void)
{
    pt_env();
    REQUIRE(pt_n == 2, "runs on 2 ranks, not %u", pt_n);
    const char *pm = getenv("EMUNIC_PRIVATE_MAP");
    int want_moved = !(pm && !strcmp(pm, "0"));
    OK(PtlInit());
    ptl_handle_ni_t ni, bni; /* the barrier takes a non-matching NI */
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &bni));
    pt_barrier_init(bni, 1);
    CHECK(!moved(), "a static buffer nobody exposed is not moved");

    ptl_pt_index_t idx;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_DATA, &idx));
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = buf;
    me.length = BIG;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.match_id.rank = PTL_RANK_ANY;
    me.ignore_bits = ~(ptl_match_bits_t)0;
    me.options = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE;
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(ni, &ct));
    /* an MD over the whole address space (SOS's, our runtime's) is never
     * moved: it spends no region */
    int regions = live_regions();
    ptl_md_t d = pt_md(NULL, PTL_SIZE_MAX, 0, PTL_EQ_NONE, PTL_CT_NONE);
    ptl_handle_md_t whole;
    OK(PtlMDBind(ni, &d, &whole));
    CHECK(live_regions() == regions, "a whole-address-space MD took %d regions", live_regions() - regions);
    d = pt_md(buf, BIG, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, ct);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    CHECK(live_regions() == regions + 1, "a 1 MiB MD took %d regions, want 1", live_regions() - regions);
    /* the ME second: its unlink must not move back what the MD still pins */
    ptl_handle_me_t meh;
    OK(PtlMEAppend(ni, PT_DATA, &me, PTL_PRIORITY_LIST, NULL, &meh));
    CHECK(moved() == want_moved, "after the MD and the ME: moved %d, want %d", moved(), want_moved);
    CHECK(live_regions() == regions + 2, "the MD and the ME took %d regions, want 2", live_regions() - regions);
    BARRIER();

    /* 1: rank 1 puts 1 MiB, gets 1 MiB back, adds into 8 bytes */
    ptl_process_t peer = pt_lrank(0);
    uint64_t done = 0;
    if (pt_me == 0)
        pt_fill(buf, 0, 2, BIG);
    BARRIER();
    if (pt_me == 1) {
        uint64_t before = vm_copies();
        pt_fill(buf, 1, 1, BIG);
        OK(PtlPut(md, 0, BIG, PTL_CT_ACK_REQ, peer, PT_DATA, 0, 0, NULL, 0));
        ptl_ct_event_t ev = pt_wait_ct_(__FILE__, __LINE__, ct, ++done, "put ack");
        CHECK(ev.failure == 0, "put of 1 MiB: %llu failures", (unsigned long long)ev.failure);
        memset(buf, 0, BIG);
        OK(PtlGet(md, 0, BIG, peer, PT_DATA, 0, 0, NULL));
        ev = pt_wait_ct_(__FILE__, __LINE__, ct, ++done, "get reply");
        CHECK(ev.failure == 0, "get of 1 MiB: %llu failures", (unsigned long long)ev.failure);
        CHECK_PATTERN(buf, 1, 1, BIG, "1 MiB put to rank 0, then got back");
        OK(PtlAtomic(md, 0, 8, PTL_CT_ACK_REQ, peer, PT_DATA, 0, AT_OFF, NULL, 0, PTL_SUM, PTL_UINT64_T));
        ev = pt_wait_ct_(__FILE__, __LINE__, ct, ++done, "atomic ack");
        CHECK(ev.failure == 0, "atomic: %llu failures", (unsigned long long)ev.failure);
        uint64_t copies = vm_copies() - before;
        if (want_moved)
            CHECK(copies == 0, "%llu process_vm_* copies for moved memory", (unsigned long long)copies);
        else
            CHECK(copies > 0, "EMUNIC_PRIVATE_MAP=0, yet no process_vm_* copy");
    }
    BARRIER();
    if (pt_me == 0) {
        uint64_t v, want = pattern_u64(1, 1, AT_OFF) + pattern_u64(1, 1, 0);
        memcpy(&v, buf + AT_OFF, 8);
        CHECK(v == want, "sum at %d: %#llx, want %#llx", AT_OFF, (unsigned long long)v, (unsigned long long)want);
        memcpy(buf + AT_OFF, &(uint64_t){pattern_u64(1, 1, AT_OFF)}, 8);
        CHECK_PATTERN(buf, 1, 1, BIG, "1 MiB put by rank 1 (sum undone)");
    }
    BARRIER();

    /* 2: rank 1's ME goes; its MD still pins the range */
    if (pt_me == 1) {
        OK(PtlMEUnlink(meh));
        CHECK(moved() == want_moved, "after the ME's unlink, the MD live: moved %d, want %d", moved(), want_moved);
        uint64_t before = vm_copies();
        pt_fill(buf, 1, 3, BIG);
        OK(PtlPut(md, 0, BIG, PTL_CT_ACK_REQ, peer, PT_DATA, 0, 0, NULL, 0));
        ptl_ct_event_t ev = pt_wait_ct_(__FILE__, __LINE__, ct, ++done, "second put ack");
        CHECK(ev.failure == 0, "second put: %llu failures", (unsigned long long)ev.failure);
        uint64_t copies = vm_copies() - before;
        if (want_moved)
            CHECK(copies == 0, "%llu process_vm_* copies after the ME's unlink", (unsigned long long)copies);
    }
    BARRIER();
    if (pt_me == 0) {
        CHECK_PATTERN(buf, 1, 3, BIG, "second 1 MiB put by rank 1");
        OK(PtlMEUnlink(meh));
        CHECK(moved() == want_moved, "after the ME's unlink, the MD live: moved %d, want %d", moved(), want_moved);
    }

    /* 3: released, the range is anonymous memory again, contents kept */
    OK(PtlMDRelease(md));
    CHECK(!moved(), "moved after both descriptors are gone");
    CHECK(live_regions() == regions, "%d regions left after both descriptors are gone", live_regions() - regions);
    OK(PtlMDRelease(whole));
    CHECK_PATTERN(buf, 1, 3, BIG, "contents after the move back");
    BARRIER();
    pt_barrier_fini();
    OK(PtlCTFree(ct));
    OK(PtlPTFree(ni, PT_DATA));
    OK(PtlNIFini(ni));
    OK(PtlNIFini(bni));
    PtlFini();
    return pt_done("ptl_pin");
}
