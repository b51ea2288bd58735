/* PTL_MD_VOLATILE: a put's buffer is reusable when PtlPut returns, up to
 * max_volatile_size (512 here, as the Portals reference's
 * test_rdma_move_logical-022 asks for), and a longer volatile put is
 * refused with PTL_ARG_INVALID, as the reference refuses it. Beyond the
 * 144 bytes a command carries, the library copies the payload into a
 * bounce slot that the NIC frees once the target has read it; 300 puts
 * in a row without waiting use every slot several times. An atomic and a
 * fetching atomic of 256 bytes from a volatile MD (Sandia OpenSHMEM's
 * reductions take that path up to max_volatile_size) are copied alike.
 * A plain MD's source up to 4 KiB takes a free slot too (a memcpy costs
 * less than the NIC's process_vm_readv): puts of 2 KiB, 4 KiB and 8 KiB
 * (not copied) and 200 of 1 KiB in a row, whose events must still name
 * the MD's own addresses.
 * Every rank puts to its right neighbour (2x2: once on its node, once
 * across); every source is overwritten right after the call, and every
 * byte that lands is checked. */
#include "ptest.h"

#define PT_X 5
#define MAXV 512
#define NFLOOD 300
#define UP ((void *)(uintptr_t)0x5e17)

#define NA 32 /* uint64 elements of the atomics: 256 bytes */
#define ATOM_AT ((4 + NFLOOD) * MAXV)
#define V0 0xeeeeeeeeeeeeeeeeull /* what the inbox is filled with */

#define PLAIN_AT (ATOM_AT + NA * 8)
#define NPF 200 /* plain puts of 1 KiB in a row */
#define PLAIN_BYTES (2048 + 4096 + 8192 + NPF * 1024)

static uint8_t inbox[PLAIN_AT + PLAIN_BYTES];
static uint8_t plain[PLAIN_BYTES]; /* a plain MD's sources: left alone until SEND */
static uint8_t src[MAXV + 64];
static uint64_t fetched[NA];

static uint64_t a_val(uint32_t rank, int i) { return (uint64_t)rank << 32 | (uint64_t)(i + 1); }
static uint64_t f_val(uint32_t rank, int i) { return (uint64_t)(rank + 1) << 40 | (uint64_t)(3 * i + 7); }

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni));
    REQUIRE(lim.max_volatile_size == MAXV, "max_volatile_size %llu, want %d",
            (unsigned long long)lim.max_volatile_size, MAXV);
    pt_barrier_init(ni, 1);
    uint32_t right = (pt_me + 1) % pt_n, left = (pt_me + pt_n - 1) % pt_n;
    ptl_process_t t = pt_lrank(right);

    ptl_handle_ct_t tct, sct;
    ptl_handle_eq_t eq;
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlCTAlloc(ni, &sct));
    OK(PtlEQAlloc(ni, 512, &eq));
    ptl_pt_index_t idx;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_X, &idx));
    memset(inbox, 0xee, sizeof inbox);
    ptl_le_t e = pt_le(inbox, sizeof inbox, PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM, tct, PTL_UID_ANY);
    ptl_handle_le_t le;
    OK(PtlLEAppend(ni, PT_X, &e, PTL_PRIORITY_LIST, NULL, &le));
    ptl_md_t d = pt_md(src, sizeof src, PTL_MD_VOLATILE, eq, PTL_CT_NONE);
    ptl_handle_md_t vmd, fmd, gmd;
    OK(PtlMDBind(ni, &d, &vmd));
    d = pt_md(fetched, sizeof fetched, 0, eq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gmd));
    d = pt_md(src, sizeof src, PTL_MD_VOLATILE | PTL_MD_EVENT_CT_SEND, PTL_EQ_NONE, sct);
    OK(PtlMDBind(ni, &d, &fmd));
    BARRIER();

    /* one put each of 1 (in the command), 145 (the first that is not),
     * 300 and 512 bytes, from offset 64 of the MD, each with its events */
    static const ptl_size_t len[4] = {1, 145, 300, MAXV};
    for (int k = 0; k < 4; k++) {
        pt_fill(src + 64, pt_me, (uint64_t)k, len[k]);
        OK(PtlPut(vmd, 64, len[k], PTL_ACK_REQ, t, PT_X, 0, (ptl_size_t)k * MAXV, UP, 0));
        memset(src, 0x5a, sizeof src);
        ptl_event_t ev;
        WAIT_EVENT(eq, &ev);
        CHECK(ev.type == PTL_EVENT_SEND && ev.ni_fail_type == PTL_NI_OK && ev.user_ptr == UP,
              "put of %llu: %s (%s), user_ptr %p", (unsigned long long)len[k], pt_evname(ev.type),
              pt_failname(ev.ni_fail_type), ev.user_ptr);
        CHECK(ev.start == src + 64 && ev.mlength == len[k],
              "SEND of %llu: start %p (MD at %p + 64), mlength %llu", (unsigned long long)len[k], ev.start,
              (void *)src, (unsigned long long)ev.mlength);
        WAIT_EVENT(eq, &ev);
        CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK && ev.mlength == len[k] &&
                  ev.remote_offset == (ptl_size_t)k * MAXV && ev.start == src + 64,
              "put of %llu: %s (%s), mlength %llu, remote_offset %llu, start %p", (unsigned long long)len[k],
              pt_evname(ev.type), pt_failname(ev.ni_fail_type), (unsigned long long)ev.mlength,
              (unsigned long long)ev.remote_offset, ev.start);
    }

    /* 256-byte atomics from the volatile MD: sum, then fetch-and-sum */
    uint64_t *a = (uint64_t *)(src + 64);
    for (int i = 0; i < NA; i++)
        a[i] = a_val(pt_me, i);
    OK(PtlAtomic(vmd, 64, NA * 8, PTL_ACK_REQ, t, PT_X, 0, ATOM_AT, UP, 0, PTL_SUM, PTL_UINT64_T));
    memset(src, 0x5a, sizeof src);
    for (int k = 0; k < 2; k++) {
        ptl_event_t ev;
        WAIT_EVENT(eq, &ev);
        int want = k ? PTL_EVENT_ACK : PTL_EVENT_SEND;
        CHECK(ev.type == want && ev.ni_fail_type == PTL_NI_OK && ev.start == src + 64 && ev.mlength == NA * 8,
              "atomic: %s (%s), start %p (want %p), mlength %llu", pt_evname(ev.type), pt_failname(ev.ni_fail_type),
              ev.start, (void *)(src + 64), (unsigned long long)ev.mlength);
    }
    for (int i = 0; i < NA; i++)
        a[i] = f_val(pt_me, i);
    OK(PtlFetchAtomic(gmd, 0, vmd, 64, NA * 8, t, PT_X, 0, ATOM_AT, UP, 0, PTL_SUM, PTL_UINT64_T));
    memset(src, 0x5a, sizeof src);
    int sends = 0, replies = 0;
    for (int k = 0; k < 2; k++) {
        ptl_event_t ev;
        WAIT_EVENT(eq, &ev);
        sends += ev.type == PTL_EVENT_SEND && ev.start == src + 64;
        replies += ev.type == PTL_EVENT_REPLY && ev.start == (void *)fetched && ev.mlength == NA * 8;
        CHECK(ev.ni_fail_type == PTL_NI_OK, "fetch-and-sum: %s (%s)", pt_evname(ev.type), pt_failname(ev.ni_fail_type));
    }
    CHECK(sends == 1 && replies == 1, "fetch-and-sum: %d SEND (of the MD's address), %d REPLY", sends, replies);
    for (int i = 0; i < NA; i++)
        CHECK(fetched[i] == V0 + a_val(pt_me, i), "fetched[%d] %#llx, want %#llx", i,
              (unsigned long long)fetched[i], (unsigned long long)(V0 + a_val(pt_me, i)));

    /* past max_volatile_size: refused, nothing sent */
    EXPECT_RC(PTL_ARG_INVALID, PtlPut(vmd, 0, MAXV + 1, PTL_ACK_REQ, t, PT_X, 0, 0, UP, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlPut(vmd, 0, MAXV + 64, PTL_NO_ACK_REQ, t, PT_X, 0, 0, UP, 0));

    /* a flood: more puts than bounce slots, none waited for */
    for (int i = 0; i < NFLOOD; i++) {
        pt_fill(src, pt_me, 100 + (uint64_t)i, MAXV);
        OK(PtlPut(fmd, 0, MAXV, PTL_NO_ACK_REQ, t, PT_X, 0, (ptl_size_t)(4 + i) * MAXV, NULL, 0));
        memset(src, 0xa5, MAXV);
    }
    EXPECT_CT(sct, NFLOOD, 0);

    /* a plain MD: 2 KiB and 4 KiB (a slot), 8 KiB (in place), each with
     * its events, then 200 puts of 1 KiB without waiting */
    d = pt_md(plain, sizeof plain, PTL_MD_EVENT_CT_SEND, eq, sct);
    ptl_handle_md_t pmd;
    OK(PtlMDBind(ni, &d, &pmd));
    pt_fill(plain, pt_me, 500, sizeof plain);
    static const ptl_size_t plen[3] = {2048, 4096, 8192};
    for (ptl_size_t k = 0, off = 0; k < 3; off += plen[k++]) {
        OK(PtlPut(pmd, off, plen[k], PTL_ACK_REQ, t, PT_X, 0, PLAIN_AT + off, UP, 0));
        ptl_event_t ev;
        WAIT_EVENT(eq, &ev);
        CHECK(ev.type == PTL_EVENT_SEND && ev.start == plain + off && ev.mlength == plen[k],
              "plain put of %llu: %s, start %p (want %p), mlength %llu", (unsigned long long)plen[k],
              pt_evname(ev.type), ev.start, (void *)(plain + off), (unsigned long long)ev.mlength);
        WAIT_EVENT(eq, &ev);
        CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK && ev.start == plain + off &&
                  ev.mlength == plen[k] && ev.remote_offset == PLAIN_AT + off,
              "plain put of %llu: %s (%s), start %p, mlength %llu, remote_offset %llu", (unsigned long long)plen[k],
              pt_evname(ev.type), pt_failname(ev.ni_fail_type), ev.start, (unsigned long long)ev.mlength,
              (unsigned long long)ev.remote_offset);
    }
    for (ptl_size_t i = 0, off = 2048 + 4096 + 8192; i < NPF; i++, off += 1024)
        OK(PtlPut(pmd, off, 1024, PTL_NO_ACK_REQ, t, PT_X, 0, PLAIN_AT + off, NULL, 0));
    EXPECT_CT(sct, NFLOOD + 3 + NPF, 0);
    EXPECT_CT(tct, 6 + NFLOOD + 3 + NPF, 0);
    for (int k = 0; k < NPF; k++) {
        ptl_event_t ev;
        WAIT_EVENT(eq, &ev);
        CHECK(ev.type == PTL_EVENT_SEND && ev.mlength == 1024 && (uint8_t *)ev.start >= plain + 14336 &&
                  (uint8_t *)ev.start < plain + sizeof plain && ((uint8_t *)ev.start - plain - 14336) % 1024 == 0,
              "plain 1 KiB put: %s, start %p (MD %p), mlength %llu", pt_evname(ev.type), ev.start, (void *)plain,
              (unsigned long long)ev.mlength);
    }
    BARRIER();
    CHECK_PATTERN(inbox + PLAIN_AT, left, 500, PLAIN_BYTES, "plain puts from rank %u", left);

    for (int k = 0; k < 4; k++) {
        CHECK_PATTERN(inbox + k * MAXV, left, (uint64_t)k, len[k], "put of %llu from rank %u",
                      (unsigned long long)len[k], left);
        CHECK_BYTES(inbox + k * MAXV + len[k], 0xee, MAXV - len[k], "after the put of %llu",
                    (unsigned long long)len[k]);
    }
    for (int i = 0; i < NFLOOD; i++)
        CHECK_PATTERN(inbox + (4 + i) * MAXV, left, 100 + (uint64_t)i, MAXV, "flood put %d from rank %u", i, left);
    for (int i = 0; i < NA; i++) {
        uint64_t v, want = V0 + a_val(left, i) + f_val(left, i);
        memcpy(&v, inbox + ATOM_AT + 8 * i, 8);
        CHECK(v == want, "atomic element %d: %#llx, want %#llx", i, (unsigned long long)v, (unsigned long long)want);
    }
    EXPECT_EMPTY(eq, "no further event");

    /* a smaller agreed limit is the one enforced */
    ptl_handle_ni_t ni2;
    ptl_ni_limits_t want, got;
    memset(&want, 0, sizeof want);
    want.max_volatile_size = 200;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &want, &got, &ni2));
    CHECK(got.max_volatile_size == 200, "agreed max_volatile_size %llu", (unsigned long long)got.max_volatile_size);
    ptl_handle_md_t md2;
    d = pt_md(src, sizeof src, PTL_MD_VOLATILE, PTL_EQ_NONE, PTL_CT_NONE);
    OK(PtlMDBind(ni2, &d, &md2));
    EXPECT_RC(PTL_ARG_INVALID, PtlPut(md2, 0, 201, PTL_NO_ACK_REQ, pt_phys(right), PT_X, 0, 0, NULL, 0));
    OK(PtlMDRelease(md2));
    OK(PtlNIFini(ni2));

    BARRIER();
    OK(PtlMDRelease(vmd));
    OK(PtlMDRelease(fmd));
    OK(PtlMDRelease(gmd));
    OK(PtlMDRelease(pmd));
    OK(PtlLEUnlink(le));
    OK(PtlPTFree(ni, PT_X));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_volatile");
}
