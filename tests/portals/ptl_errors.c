/* Errors of the non-matching slice: bad options; invalid, freed, zero,
 * random and wrong-kind handles passed to every function; NULL
 * out-pointers; offsets outside the MD; operation, permission and no-match
 * failures at the target; a disabled and re-enabled PT; EQ overflow
 * (PTL_EQ_DROPPED through Get, Wait and Poll); PtlSetMap with bad entries;
 * the ME, search and triggered functions (PTL_FAIL and one stderr line).
 * Nothing may crash, block, write or post an event it should not.
 *
 * Run with the single argument "outside" (not under emunic-run) it checks
 * that PtlInit fails there. */
#include "ptest.h"

#include <fcntl.h>
#include <sys/mman.h>

static uint32_t me, n, right, left;
static ptl_handle_ni_t ni;
static ptl_handle_eq_t teq, ieq;
static ptl_handle_ct_t ict;

/* ---- stderr capture ---- */
static int cap_saved = -1, cap_fd = -1;
static void cap_begin(void)
{
    fflush(stderr);
    FILE *t = tmpfile();
    REQUIRE(t != NULL, "tmpfile");
    cap_fd = dup(fileno(t));
    fclose(t);
    cap_saved = dup(2);
    REQUIRE(cap_fd >= 0 && cap_saved >= 0 && dup2(cap_fd, 2) == 2, "redirect stderr");
}
/* Returns the number of lines written to stderr since cap_begin. */
static int cap_end(char *text, size_t cap)
{
    fflush(stderr);
    dup2(cap_saved, 2);
    close(cap_saved);
    off_t len = lseek(cap_fd, 0, SEEK_CUR);
    lseek(cap_fd, 0, SEEK_SET);
    size_t got = 0;
    if (len > 0) {
        ssize_t r = read(cap_fd, text, cap - 1);
        got = r > 0 ? (size_t)r : 0;
    }
    text[got] = 0;
    close(cap_fd);
    int lines = 0;
    for (size_t i = 0; i < got; i++)
        lines += text[i] == '\n';
    if (got && text[got - 1] != '\n')
        lines++;
    return lines;
}

/* A not-emulated function: PTL_FAIL and exactly one line on stderr. */
#define UNSUPPORTED(call)                                                      \
    do {                                                                       \
        char txt_[1024];                                                       \
        cap_begin();                                                           \
        int rc_ = (call);                                                      \
        int lines_ = cap_end(txt_, sizeof txt_);                               \
        CHECK(rc_ == PTL_FAIL, "%s returned %s, want PTL_FAIL", #call, pt_rcname(rc_)); \
        CHECK(lines_ == 1, "%s wrote %d stderr lines, want 1: '%s'", #call, lines_, txt_); \
        if (me == 0 && lines_ >= 1)                                            \
            NOTE("%s says: %.*s", #call, (int)strcspn(txt_, "\n"), txt_);      \
    } while (0)

/* ---- bad options ---- */
static void t_options(ptl_handle_ni_t mni)
{
    ptl_handle_ni_t h;
    ptl_ni_limits_t lim;
    EXPECT_RC(PTL_ARG_INVALID, PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_LOGICAL,
                                         PTL_PID_ANY, NULL, &lim, &h));
    EXPECT_RC(PTL_ARG_INVALID, PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &h));
    EXPECT_RC(PTL_ARG_INVALID, PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL | PTL_NI_PHYSICAL,
                                         PTL_PID_ANY, NULL, &lim, &h));
    EXPECT_RC(PTL_ARG_INVALID, PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING, PTL_PID_ANY, NULL, &lim, &h));
    EXPECT_RC(PTL_ARG_INVALID, PtlNIInit(PTL_IFACE_DEFAULT, 0, PTL_PID_ANY, NULL, &lim, &h));

    ptl_pt_index_t i;
    /* flow control needs an EQ for its PT_DISABLED event */
    EXPECT_RC(PTL_PT_EQ_NEEDED, PtlPTAlloc(ni, PTL_PT_FLOWCTRL, PTL_EQ_NONE, PTL_PT_ANY, &i));
    EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 64, &i));
    EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 1000, &i));
    EXPECT_RC(PTL_PT_IN_USE, PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_BARRIER_INDEX, &i));

    static char buf[256];
    ptl_handle_md_t md;
    /* iovec MDs: start is the segment table, length its entry count */
    ptl_md_t d = pt_md(NULL, 4, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &md)); /* no table */
    d = pt_md(buf, 0, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &md)); /* no entries */
    d = pt_md(buf, 100000, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE);
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &md)); /* more than max_iovecs */
    d.options = 0x8000; /* outside PTL_MD_OPTIONS_MASK */
    EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &d, &md));

    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 20, &i));
    ptl_le_t le = pt_le(buf, sizeof buf, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t lh;
    OK(PtlLEAppend(ni, 20, &le, PTL_OVERFLOW_LIST, NULL, &lh)); /* overflow entries hold a PT too */
    EXPECT_RC(PTL_PT_IN_USE, PtlPTFree(ni, 20));
    OK(PtlLEUnlink(lh));
    OK(PtlLEAppend(ni, 20, &le, PTL_PRIORITY_LIST, NULL, &lh));
    EXPECT_RC(PTL_PT_IN_USE, PtlPTFree(ni, 20));
    OK(PtlLEUnlink(lh));
    EXPECT_RC(PTL_OK, PtlPTFree(ni, 20));

    /* a matching NI takes no LEs */
    ptl_pt_index_t mpt;
    OK(PtlPTAlloc(mni, 0, PTL_EQ_NONE, PTL_PT_ANY, &mpt));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEAppend(mni, mpt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    OK(PtlPTFree(mni, mpt));

    /* PtlSetMap: entries that are not processes of the job */
    ptl_process_t *map = pt_xmalloc(n * sizeof *map);
    for (uint32_t l = 0; l < n; l++)
        map[l] = pt_phys(l);
    map[n - 1].phys.pid = n; /* no such rank */
    EXPECT_RC(PTL_ARG_INVALID, PtlSetMap(ni, n, map));
    map[n - 1] = pt_phys(n - 1);
    map[0].phys.nid = pt_nnodes; /* no such node */
    EXPECT_RC(PTL_ARG_INVALID, PtlSetMap(ni, n, map));
    if (pt_nnodes > 1) {
        map[0].phys.nid = 1; /* rank 0 lives on node 0 */
        EXPECT_RC(PTL_ARG_INVALID, PtlSetMap(ni, n, map));
    }
    map[0] = pt_phys(0);
    map[0].phys.pid = PTL_PID_ANY;
    EXPECT_RC(PTL_ARG_INVALID, PtlSetMap(ni, n, map));
    free(map);
}

/* ---- not-emulated functions ---- */
static void t_unsupported(ptl_handle_ni_t mni)
{
    ptl_pt_index_t mpt, pt;
    OK(PtlPTAlloc(mni, 0, PTL_EQ_NONE, PTL_PT_ANY, &mpt));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 21, &pt));
    static char buf[256];
    ptl_me_t mentry;
    memset(&mentry, 0, sizeof mentry);
    mentry.start = buf;
    mentry.length = sizeof buf;
    mentry.ct_handle = PTL_CT_NONE;
    mentry.uid = PTL_UID_ANY;
    mentry.options = PTL_ME_OP_PUT;
    mentry.match_id.rank = PTL_RANK_ANY;
    ptl_handle_me_t mh = PTL_INVALID_HANDLE;
    /* MEs exist on matching NIs only; the overflow list is not emulated */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(ni, pt, &mentry, PTL_PRIORITY_LIST, NULL, &mh));
    OK(PtlMEAppend(mni, mpt, &mentry, PTL_OVERFLOW_LIST, NULL, &mh));
    OK(PtlMEUnlink(mh));
    OK(PtlMEAppend(mni, mpt, &mentry, PTL_PRIORITY_LIST, NULL, &mh));
    EXPECT_RC(PTL_OK, PtlMESearch(mni, mpt, &mentry, PTL_SEARCH_ONLY, NULL)); /* no EQ: no event */
    ptl_le_t le = pt_le(buf, sizeof buf, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t lh;
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    /* handles are typed: an LE is not an ME and the other way round */
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(lh));
    EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(mh));
    EXPECT_RC(PTL_OK, PtlMEUnlink(mh));
    EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(mh));
    EXPECT_RC(PTL_OK, PtlLESearch(ni, pt, &le, PTL_SEARCH_ONLY, NULL));
    EXPECT_RC(PTL_OK, PtlLESearch(ni, pt, &le, PTL_SEARCH_DELETE, NULL));
    EXPECT_RC(PTL_OK, PtlLEUnlink(lh)); /* PtlMEUnlink left it alone */

    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(ni, &ct));
    ptl_handle_md_t md;
    ptl_md_t d = pt_md(buf, sizeof buf, PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &md));
    ptl_process_t self = pt_lrank(me);
    uint64_t opnd = 0;
    ptl_ct_event_t inc = {1, 0};
    /* triggered operations are emulated (ptl_triggered tests them); here
     * only their argument checks: a bad trigger counter is refused */
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0, PTL_CT_NONE, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredGet(md, 0, 8, self, pt, 0, 0, NULL, PTL_INVALID_HANDLE, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredAtomic(md, 0, 8, PTL_NO_ACK_REQ, self, pt, 0, 0, NULL, 0, PTL_SUM,
                                                  PTL_INT64_T, md, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredFetchAtomic(md, 0, md, 8, 8, self, pt, 0, 0, NULL, 0, PTL_SUM,
                                                       PTL_INT64_T, 0, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredSwap(md, 0, md, 8, 8, self, pt, 0, 0, NULL, 0, &opnd, PTL_CSWAP,
                                                PTL_INT64_T, PTL_CT_NONE, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredCTInc(ct, inc, PTL_CT_NONE, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredCTSet(PTL_CT_NONE, inc, ct, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlCTCancelTriggered(PTL_CT_NONE));
    EXPECT_RC(PTL_OK, PtlCTCancelTriggered(ct));
    EXPECT_CT_NOW(ct, 0, 0);
    /* a call outside the emulation, twice: PTL_FAIL both times */
    char txt[1024];
    cap_begin();
    static long double _Complex cmp32;
    int rc = PtlTriggeredSwap(md, 0, md, 0, sizeof cmp32, self, pt, 0, 0, NULL, 0, &cmp32, PTL_CSWAP,
                              PTL_LONG_DOUBLE_COMPLEX, ct, 0);
    int lines = cap_end(txt, sizeof txt);
    CHECK(rc == PTL_FAIL, "triggered 32-byte CSWAP returned %s", pt_rcname(rc));
    CHECK(lines == 1, "triggered 32-byte CSWAP wrote %d stderr lines, want 1", lines);
    OK(PtlMDRelease(md));
    OK(PtlCTFree(ct));
    OK(PtlPTFree(ni, pt));
    OK(PtlPTFree(mni, mpt));
}

/* ---- bad handles everywhere ---- */
struct valid {
    ptl_handle_ni_t ni;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_handle_md_t md;
    ptl_handle_le_t le;
};

static int is_valid(const struct valid *v, ptl_handle_any_t h)
{
    return h == v->ni || h == v->eq || h == v->ct || h == v->md || h == v->le;
}

/* The bad values for a slot of kind `kind` (0 ni, 1 eq, 2 ct, 3 md, 4 le). */
static int bad_set(const struct valid *v, const ptl_handle_any_t freed[5], int kind, int allow_none,
                   ptl_handle_any_t *out)
{
    int k = 0;
    const ptl_handle_any_t fixed[] = {0, PTL_INVALID_HANDLE, 0x12345678u, 0xdeadbeefu, 0x00000001u, 0x00010001u,
                                      0x7fffffffu, 0x80000001u, 0x01000000u, 0x02000001u, 0xff000000u};
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!is_valid(v, fixed[i]))
            out[k++] = fixed[i];
    unsigned seed = 12345u + me;
    for (int i = 0; i < 16; i++) {
        ptl_handle_any_t r = (ptl_handle_any_t)rand_r(&seed) ^ ((ptl_handle_any_t)rand_r(&seed) << 16);
        if (!is_valid(v, r))
            out[k++] = r;
    }
    out[k++] = freed[kind];
    const ptl_handle_any_t others[5] = {v->ni, v->eq, v->ct, v->md, v->le};
    for (int i = 0; i < 5; i++)
        if (i != kind)
            out[k++] = others[i];
    if (!(allow_none & 1))
        out[k++] = PTL_EQ_NONE;
    if (!(allow_none & 2))
        out[k++] = PTL_CT_NONE;
    return k;
}

#define BAD(call, h)                                                           \
    do {                                                                       \
        char w_[160];                                                          \
        snprintf(w_, sizeof w_, "%s with handle 0x%08x", #call, (unsigned)(h)); \
        pt_watch(w_);                                                          \
        int rc_ = (call);                                                      \
        pt_unwatch();                                                          \
        if (rc_ != PTL_ARG_INVALID)                                            \
            pt_fail(0, __FILE__, __LINE__, #call, "handle 0x%08x: returned %s, want PTL_ARG_INVALID", \
                    (unsigned)(h), pt_rcname(rc_));                            \
    } while (0)

static void t_handles(void)
{
    /* freed objects of each kind */
    ptl_handle_any_t freed[5];
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &lim, &freed[0]));
    OK(PtlNIFini(freed[0]));
    OK(PtlEQAlloc(ni, 8, &freed[1]));
    OK(PtlEQFree(freed[1]));
    OK(PtlCTAlloc(ni, &freed[2]));
    OK(PtlCTFree(freed[2]));
    static char buf[256], sink[256];
    ptl_md_t d = pt_md(buf, sizeof buf, PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &freed[3]));
    OK(PtlMDRelease(freed[3]));
    ptl_pt_index_t pt;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 22, &pt));
    ptl_le_t le = pt_le(sink, sizeof sink, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &freed[4]));
    OK(PtlLEUnlink(freed[4]));

    /* live objects of each kind */
    struct valid v;
    v.ni = ni;
    OK(PtlEQAlloc(ni, 8, &v.eq));
    OK(PtlCTAlloc(ni, &v.ct));
    d = pt_md(buf, sizeof buf, PTL_MD_EVENT_SEND_DISABLE | PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, v.ct);
    OK(PtlMDBind(ni, &d, &v.md));
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &v.le));

    ptl_handle_any_t bad[64];
    int nb;
    ptl_process_t tgt = pt_lrank(me);
    ptl_process_t id;
    ptl_uid_t uid;
    ptl_sr_value_t srv;
    ptl_size_t sz;
    ptl_process_t map[4];
    ptl_pt_index_t idx;
    ptl_handle_any_t out;
    ptl_event_t ev;
    ptl_ct_event_t cte, inc = {1, 0};
    unsigned int which;
    uint64_t opnd = 0;
    ptl_size_t test1 = 1;

    /* NI slot */
    nb = bad_set(&v, freed, 0, 0, bad);
    for (int i = 0; i < nb; i++) {
        ptl_handle_ni_t h = bad[i];
        BAD(PtlNIStatus(h, PTL_SR_DROP_COUNT, &srv), h);
        BAD(PtlSetMap(h, 1, map), h);
        BAD(PtlGetMap(h, 4, map, &sz), h);
        BAD(PtlGetUid(h, &uid), h);
        BAD(PtlGetId(h, &id), h);
        BAD(PtlGetPhysId(h, &id), h);
        BAD(PtlPTAlloc(h, 0, PTL_EQ_NONE, PTL_PT_ANY, &idx), h);
        BAD(PtlPTFree(h, pt), h);
        BAD(PtlPTDisable(h, pt), h);
        BAD(PtlPTEnable(h, pt), h);
        d = pt_md(buf, sizeof buf, 0, PTL_EQ_NONE, PTL_CT_NONE);
        BAD(PtlMDBind(h, &d, &out), h);
        BAD(PtlLEAppend(h, pt, &le, PTL_PRIORITY_LIST, NULL, &out), h);
        BAD(PtlCTAlloc(h, &out), h);
        BAD(PtlEQAlloc(h, 8, &out), h);
        BAD(PtlStartBundle(h), h);
        BAD(PtlEndBundle(h), h);
        BAD(PtlNIFini(h), h);
    }
    /* any-handle slot of PtlNIHandle */
    for (int i = 0; i < nb; i++)
        if (bad[i] != v.eq && bad[i] != v.ct && bad[i] != v.md && bad[i] != v.le)
            BAD(PtlNIHandle(bad[i], &out), bad[i]);

    /* EQ slot */
    nb = bad_set(&v, freed, 1, 0, bad);
    for (int i = 0; i < nb; i++) {
        ptl_handle_eq_t h = bad[i];
        BAD(PtlEQGet(h, &ev), h);
        BAD(PtlEQWait(h, &ev), h);
        BAD(PtlEQPoll(&h, 1, 0, &ev, &which), h);
        BAD(PtlEQPoll(&h, 1, 100, &ev, &which), h);
        ptl_handle_eq_t two[2] = {v.eq, h};
        BAD(PtlEQPoll(two, 2, 0, &ev, &which), h);
        BAD(PtlEQFree(h), h);
        if (h != PTL_EQ_NONE) {
            BAD(PtlPTAlloc(ni, 0, h, PTL_PT_ANY, &idx), h);
            d = pt_md(buf, sizeof buf, 0, h, PTL_CT_NONE);
            BAD(PtlMDBind(ni, &d, &out), h);
        }
    }
    /* CT slot */
    nb = bad_set(&v, freed, 2, 0, bad);
    for (int i = 0; i < nb; i++) {
        ptl_handle_ct_t h = bad[i];
        BAD(PtlCTGet(h, &cte), h);
        BAD(PtlCTWait(h, 1, &cte), h);
        BAD(PtlCTPoll(&h, &test1, 1, 0, &cte, &which), h);
        ptl_handle_ct_t two[2] = {v.ct, h};
        ptl_size_t tests[2] = {100, 1};
        BAD(PtlCTPoll(two, tests, 2, 100, &cte, &which), h);
        BAD(PtlCTSet(h, inc), h);
        BAD(PtlCTInc(h, inc), h);
        BAD(PtlCTFree(h), h);
        if (h != PTL_CT_NONE) {
            d = pt_md(buf, sizeof buf, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, h);
            BAD(PtlMDBind(ni, &d, &out), h);
            /* PTL_INVALID_HANDLE too: only PTL_CT_NONE means "none" (the
             * reference's test_basic_le-010) */
            ptl_le_t l2 = pt_le(sink, sizeof sink, PTL_LE_OP_PUT | PTL_LE_EVENT_CT_COMM, h, PTL_UID_ANY);
            BAD(PtlLEAppend(ni, pt, &l2, PTL_PRIORITY_LIST, NULL, &out), h);
        }
    }
    /* MD slot */
    nb = bad_set(&v, freed, 3, 0, bad);
    for (int i = 0; i < nb; i++) {
        ptl_handle_md_t h = bad[i];
        BAD(PtlPut(h, 0, 8, PTL_NO_ACK_REQ, tgt, pt, 0, 0, NULL, 0), h);
        BAD(PtlGet(h, 0, 8, tgt, pt, 0, 0, NULL), h);
        BAD(PtlAtomic(h, 0, 8, PTL_NO_ACK_REQ, tgt, pt, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T), h);
        BAD(PtlFetchAtomic(h, 0, v.md, 8, 8, tgt, pt, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T), h);
        BAD(PtlFetchAtomic(v.md, 0, h, 8, 8, tgt, pt, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T), h);
        BAD(PtlSwap(h, 0, v.md, 8, 8, tgt, pt, 0, 0, NULL, 0, &opnd, PTL_CSWAP, PTL_INT64_T), h);
        BAD(PtlSwap(v.md, 0, h, 8, 8, tgt, pt, 0, 0, NULL, 0, &opnd, PTL_CSWAP, PTL_INT64_T), h);
        BAD(PtlMDRelease(h), h);
    }
    /* LE slot */
    nb = bad_set(&v, freed, 4, 0, bad);
    for (int i = 0; i < nb; i++)
        BAD(PtlLEUnlink(bad[i]), bad[i]);

    /* a slot freed and taken again: the old handle stays dead */
    for (int round = 0; round < 3; round++) {
        ptl_handle_eq_t e1, e2;
        OK(PtlEQAlloc(ni, 8, &e1));
        OK(PtlEQFree(e1));
        OK(PtlEQAlloc(ni, 8, &e2));
        BAD(PtlEQGet(e1, &ev), e1);
        ptl_handle_ct_t c1, c2;
        OK(PtlCTAlloc(ni, &c1));
        OK(PtlCTFree(c1));
        OK(PtlCTAlloc(ni, &c2));
        BAD(PtlCTGet(c1, &cte), c1);
        BAD(PtlCTInc(c1, inc), c1);
        EXPECT_CT_NOW(c2, 0, 0);
        ptl_handle_md_t m1, m2;
        d = pt_md(buf, sizeof buf, PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, PTL_CT_NONE);
        OK(PtlMDBind(ni, &d, &m1));
        OK(PtlMDRelease(m1));
        OK(PtlMDBind(ni, &d, &m2));
        BAD(PtlPut(m1, 0, 8, PTL_NO_ACK_REQ, tgt, pt, 0, 0, NULL, 0), m1);
        BAD(PtlMDRelease(m1), m1);
        ptl_handle_le_t l1, l2;
        OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &l1));
        OK(PtlLEUnlink(l1));
        OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &l2));
        BAD(PtlLEUnlink(l1), l1);
        OK(PtlLEUnlink(l2));
        OK(PtlMDRelease(m2));
        OK(PtlCTFree(c2));
        OK(PtlEQFree(e2));
    }

    /* the live objects survived all that */
    EXPECT_CT_NOW(v.ct, 0, 0);
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(v.eq, &ev));
    CHECK_BYTES(sink, 0, sizeof sink, "nothing was written by the bad calls");
    OK(PtlNIHandle(v.md, &out));
    CHECK(PtlHandleIsEqual(out, ni), "PtlNIHandle(md) is not the NI");
    OK(PtlNIHandle(v.le, &out));
    CHECK(PtlHandleIsEqual(out, ni), "PtlNIHandle(le) is not the NI");
    OK(PtlNIHandle(v.ct, &out));
    CHECK(PtlHandleIsEqual(out, ni), "PtlNIHandle(ct) is not the NI");
    OK(PtlMDRelease(v.md));
    OK(PtlLEUnlink(v.le));
    OK(PtlCTFree(v.ct));
    OK(PtlEQFree(v.eq));
    OK(PtlPTFree(ni, pt));
}

/* ---- NULL out-pointers ---- */
#define NULLARG(call)                                                          \
    do {                                                                       \
        pt_watch(#call);                                                       \
        int rc_ = (call);                                                      \
        pt_unwatch();                                                          \
        if (rc_ != PTL_ARG_INVALID)                                            \
            pt_fail(0, __FILE__, __LINE__, #call, "returned %s, want PTL_ARG_INVALID", pt_rcname(rc_)); \
    } while (0)

static void t_nulls(void)
{
    ptl_ni_limits_t lim;
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    OK(PtlEQAlloc(ni, 8, &eq));
    OK(PtlCTAlloc(ni, &ct));
    static char buf[64];
    ptl_md_t d = pt_md(buf, sizeof buf, 0, PTL_EQ_NONE, PTL_CT_NONE);
    ptl_le_t le = pt_le(buf, sizeof buf, PTL_LE_OP_PUT, PTL_CT_NONE, PTL_UID_ANY);
    ptl_process_t map[4];
    ptl_size_t sz;
    ptl_event_t ev;
    ptl_ct_event_t cte;
    unsigned int which;
    ptl_size_t test = 1;
    ptl_handle_any_t out;
    ptl_pt_index_t pt;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 23, &pt));

    NULLARG(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, NULL));
    NULLARG(PtlNIHandle(ni, NULL));
    NULLARG(PtlNIStatus(ni, PTL_SR_DROP_COUNT, NULL));
    NULLARG(PtlGetUid(ni, NULL));
    NULLARG(PtlGetId(ni, NULL));
    NULLARG(PtlGetPhysId(ni, NULL));
    NULLARG(PtlGetMap(ni, 4, NULL, &sz));
    NULLARG(PtlGetMap(ni, 4, map, NULL));
    NULLARG(PtlSetMap(ni, n, NULL));
    NULLARG(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 24, NULL));
    NULLARG(PtlMDBind(ni, NULL, &out));
    NULLARG(PtlMDBind(ni, &d, NULL));
    NULLARG(PtlLEAppend(ni, pt, NULL, PTL_PRIORITY_LIST, NULL, &out));
    NULLARG(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, NULL));
    NULLARG(PtlCTAlloc(ni, NULL));
    NULLARG(PtlCTGet(ct, NULL));
    NULLARG(PtlCTPoll(NULL, &test, 1, 0, &cte, &which));
    NULLARG(PtlCTPoll(&ct, NULL, 1, 0, &cte, &which));
    NULLARG(PtlCTPoll(&ct, &test, 1, 0, NULL, &which));
    NULLARG(PtlCTPoll(&ct, &test, 1, 0, &cte, NULL));
    NULLARG(PtlEQAlloc(ni, 8, NULL));
    NULLARG(PtlEQGet(eq, NULL));
    NULLARG(PtlEQPoll(NULL, 1, 0, &ev, &which));
    NULLARG(PtlEQPoll(&eq, 1, 0, NULL, &which));
    NULLARG(PtlEQPoll(&eq, 1, 0, &ev, NULL));
    /* nothing was created by the rejected calls */
    ptl_pt_index_t i2;
    EXPECT_RC(PTL_OK, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 24, &i2));
    OK(PtlPTFree(ni, 24));
    EXPECT_RC(PTL_OK, PtlPTFree(ni, pt)); /* no LE was linked */
    OK(PtlCTFree(ct));
    OK(PtlEQFree(eq));
}

/* The NULL out-pointers of the blocking calls: last, as a call that
 * ignores the NULL blocks (the watchdog then ends the program). */
static void t_nulls_blocking(void)
{
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    OK(PtlEQAlloc(ni, 8, &eq));
    OK(PtlCTAlloc(ni, &ct));
    NULLARG(PtlEQWait(eq, NULL));
    NULLARG(PtlCTWait(ct, 1, NULL));
    OK(PtlCTFree(ct));
    OK(PtlEQFree(eq));
}

/* ---- offsets outside the MD: rejected by the call, nothing sent ---- */
static unsigned char okbuf[1024];
static void t_md_bounds(void)
{
    static unsigned char buf[256];
    ptl_pt_index_t pt;
    ptl_handle_ct_t tct;
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 25, &pt));
    memset(okbuf, 0xee, sizeof okbuf);
    ptl_le_t le = pt_le(okbuf, sizeof okbuf,
                        PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE, tct,
                        PTL_UID_ANY);
    ptl_handle_le_t lh;
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(ni, &ct));
    ptl_md_t d = pt_md(buf, sizeof buf,
                       PTL_MD_EVENT_SEND_DISABLE | PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY, ieq, ct);
    ptl_handle_md_t md, whole;
    OK(PtlMDBind(ni, &d, &md));
    d.start = NULL;
    d.length = PTL_SIZE_MAX;
    OK(PtlMDBind(ni, &d, &whole));
    pt_fill(buf, me, 1, sizeof buf);
    BARRIER();
    ptl_process_t t = pt_lrank(right);
    uint64_t opnd = 0;
    static const struct {
        ptl_size_t off, len;
    } badr[] = {{200, 100}, {256, 1}, {0, 257}, {1, 256}, {PTL_SIZE_MAX, 2}, {PTL_SIZE_MAX - 7, 16}, {257, 0}};
    for (unsigned i = 0; i < sizeof badr / sizeof badr[0]; i++) {
        ptl_size_t o = badr[i].off, l = badr[i].len;
        EXPECT_RC(PTL_ARG_INVALID, PtlPut(md, o, l, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0));
        EXPECT_RC(PTL_ARG_INVALID, PtlGet(md, o, l, t, pt, 0, 0, NULL));
        if (l >= 8) {
            ptl_size_t l8 = l & ~(ptl_size_t)7;
            if (o + l8 > 256 || o + l8 < o) {
                EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(md, o, l8, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0, PTL_SUM,
                                                     PTL_INT64_T));
                EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(md, o, md, 0, l8, t, pt, 0, 0, NULL, 0, PTL_SUM,
                                                          PTL_INT64_T));
                EXPECT_RC(PTL_ARG_INVALID, PtlFetchAtomic(md, 0, md, o, l8, t, pt, 0, 0, NULL, 0, PTL_SUM,
                                                          PTL_INT64_T));
            }
        }
    }
    /* one-element swaps hanging over the MD's end, on either side */
    EXPECT_RC(PTL_ARG_INVALID, PtlSwap(md, 252, md, 0, 8, t, pt, 0, 0, NULL, 0, &opnd, PTL_CSWAP, PTL_INT64_T));
    EXPECT_RC(PTL_ARG_INVALID, PtlSwap(md, 0, md, 252, 8, t, pt, 0, 0, NULL, 0, &opnd, PTL_CSWAP, PTL_INT64_T));
    EXPECT_RC(PTL_ARG_INVALID, PtlAtomic(md, 252, 8, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0, PTL_SUM, PTL_INT64_T));
    /* the whole-address-space MD: only wrap-around is out of range */
    EXPECT_RC(PTL_ARG_INVALID, PtlPut(whole, PTL_SIZE_MAX - 3, 8, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0));
    EXPECT_RC(PTL_ARG_INVALID, PtlGet(whole, PTL_SIZE_MAX, 2, t, pt, 0, 0, NULL));
    /* edges that are inside: these go out */
    EXPECT_RC(PTL_OK, PtlPut(md, 0, 256, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0));
    EXPECT_RC(PTL_OK, PtlPut(md, 255, 1, PTL_CT_ACK_REQ, t, pt, 0, 300, NULL, 0));
    EXPECT_RC(PTL_OK, PtlPut(md, 256, 0, PTL_CT_ACK_REQ, t, pt, 0, 400, NULL, 0));
    EXPECT_RC(PTL_OK, PtlPut(whole, (ptl_size_t)(uintptr_t)(buf + 16), 32, PTL_CT_ACK_REQ, t, pt, 0, 500, NULL, 0));
    EXPECT_CT(ct, 4, 0);
    BARRIER();
    EXPECT_CT_NOW(tct, 4, 0);
    CHECK_PATTERN(okbuf, left, 1, 256, "in-range put of the whole MD");
    CHECK_BYTES(okbuf + 256, 0xee, 44, "between the puts");
    CHECK(okbuf[300] == pt_pattern(left, 1, 255), "last-byte put: 0x%02x", okbuf[300]);
    CHECK_BYTES(okbuf + 301, 0xee, 199, "between the puts");
    for (int i = 0; i < 32; i++)
        CHECK(okbuf[500 + i] == pt_pattern(left, 1, 16 + (uint64_t)i), "whole-space MD put byte %d", i);
    CHECK_BYTES(okbuf + 532, 0xee, sizeof okbuf - 532, "after the puts");
    EXPECT_EMPTY(ieq, "MD bounds");
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(whole));
    OK(PtlLEUnlink(lh));
    OK(PtlPTFree(ni, pt));
    OK(PtlCTFree(ct));
    OK(PtlCTFree(tct));
}

/* ---- failures at the target ---- */
enum { K_PUT, K_GET, K_ATOMIC, K_FETCH, K_SWAP, K_N };
static const char *const kname[K_N] = {"Put", "Get", "Atomic", "FetchAtomic", "Swap"};
enum { P_NOLE, P_PUTONLY, P_GETONLY, P_NOOPS, P_FIRST, P_PERM, P_DIS, P_OK, P_N };
static const char *const pname[P_N] = {"no LE", "LE with OP_PUT only", "LE with OP_GET only", "LE with no OP",
                                       "first LE OP_GET only, second both", "LE of another uid",
                                       "disabled PT", "good LE"};
#define RSZ 256

static int expected_fail(int p, int k)
{
    int needs_put = k != K_GET, needs_get = k == K_GET || k == K_FETCH || k == K_SWAP;
    switch (p) {
    case P_NOLE: return PTL_NI_DROPPED;
    case P_PUTONLY: return needs_get ? PTL_NI_OP_VIOLATION : PTL_NI_OK;
    case P_GETONLY:
    case P_FIRST: return needs_put ? PTL_NI_OP_VIOLATION : PTL_NI_OK;
    case P_NOOPS: return PTL_NI_OP_VIOLATION;
    case P_PERM: return PTL_NI_PERM_VIOLATION;
    case P_DIS: return PTL_NI_PT_DISABLED;
    default: return PTL_NI_OK;
    }
}

static void t_remote_failures(void)
{
    const unsigned pbase = 30;
    unsigned char *tgt = pt_xmalloc(P_N * 2 * RSZ);
    unsigned char *src = pt_xmalloc(RSZ), *dst = pt_xmalloc(RSZ);
    memset(tgt, 0xee, P_N * 2 * RSZ);
    ptl_handle_le_t les[P_N][2];
    int nles[P_N] = {0};
    for (int p = 0; p < P_N; p++) {
        ptl_pt_index_t idx;
        OK(PtlPTAlloc(ni, 0, teq, pbase + p, &idx));
        unsigned ops = PTL_LE_OP_PUT | PTL_LE_OP_GET;
        ptl_uid_t uid = PTL_UID_ANY;
        if (p == P_NOLE)
            continue;
        if (p == P_PUTONLY)
            ops = PTL_LE_OP_PUT;
        if (p == P_GETONLY || p == P_FIRST)
            ops = PTL_LE_OP_GET;
        if (p == P_NOOPS)
            ops = 0;
        if (p == P_PERM)
            uid = (ptl_uid_t)getuid() + 1;
        if (p == P_OK)
            uid = (ptl_uid_t)getuid();
        ptl_le_t le = pt_le(tgt + (size_t)p * 2 * RSZ, RSZ, ops | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, uid);
        OK(PtlLEAppend(ni, pbase + p, &le, PTL_PRIORITY_LIST, (void *)(uintptr_t)(p + 1), &les[p][nles[p]++]));
        if (p == P_FIRST) {
            le = pt_le(tgt + (size_t)p * 2 * RSZ + RSZ, RSZ,
                       PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
            OK(PtlLEAppend(ni, pbase + p, &le, PTL_PRIORITY_LIST, (void *)(uintptr_t)(p + 100),
                           &les[p][nles[p]++]));
        }
        if (p == P_DIS)
            OK(PtlPTDisable(ni, pbase + p));
    }
    ptl_md_t d = pt_md(src, RSZ, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t pmd, gmd, cmd;
    OK(PtlMDBind(ni, &d, &pmd));
    d = pt_md(src, RSZ, PTL_MD_EVENT_SEND_DISABLE | PTL_MD_EVENT_CT_ACK, ieq, ict);
    OK(PtlMDBind(ni, &d, &cmd));
    d = pt_md(dst, RSZ, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gmd));
    ptl_ct_event_t zero = {0, 0};
    OK(PtlCTSet(ict, zero));
    pt_fill(src, me, 5, RSZ);
    BARRIER();

    ptl_process_t t = pt_lrank(right);
    uint64_t opnd = 0;
    int ok_ops[P_N][K_N];
    ptl_size_t ctfail = 0, ctok = 0;
    for (int p = 0; p < P_N; p++) {
        for (int k = 0; k < K_N; k++) {
            int want = expected_fail(p, k);
            ok_ops[p][k] = want == PTL_NI_OK;
            char ctx[128];
            snprintf(ctx, sizeof ctx, "%s to a %s", kname[k], pname[p]);
            memset(dst, 0x5a, RSZ);
            void *up = (void *)(uintptr_t)(1000 + p * 10 + k);
            ptl_size_t off = (ptl_size_t)k * 16;
            switch (k) {
            case K_PUT: OK(PtlPut(pmd, 0, 16, PTL_ACK_REQ, t, pbase + p, 0, off, up, 0)); break;
            case K_GET: OK(PtlGet(gmd, 0, 16, t, pbase + p, 0, off, up)); break;
            case K_ATOMIC:
                OK(PtlAtomic(pmd, 0, 16, PTL_ACK_REQ, t, pbase + p, 0, off, up, 0, PTL_BXOR, PTL_UINT64_T));
                break;
            case K_FETCH:
                OK(PtlFetchAtomic(gmd, 0, pmd, 0, 16, t, pbase + p, 0, off, up, 0, PTL_BXOR, PTL_UINT64_T));
                break;
            case K_SWAP:
                OK(PtlSwap(gmd, 0, pmd, 0, 8, t, pbase + p, 0, off, up, 0, &opnd, PTL_SWAP, PTL_UINT64_T));
                break;
            }
            ptl_event_t ev;
            WAIT_EVENT(ieq, &ev);
            int isget = k == K_GET || k == K_FETCH || k == K_SWAP;
            ptl_size_t len = k == K_SWAP ? 8 : 16;
            struct evwant w = isget ? want_reply(up, len, want) : want_ack(up, len, off, pbase + p, want);
            CHECK_EVENT(ctx, &ev, &w);
            if (isget && want != PTL_NI_OK)
                CHECK_BYTES(dst, 0x5a, RSZ, "%s: the failed op wrote the local buffer", ctx);
            if (isget && want == PTL_NI_OK && k == K_GET)
                CHECK(dst[0] != 0x5a || dst[1] != 0x5a, "%s: nothing fetched", ctx);
        }
        /* the counting flavour: failures land in the CT's failure count */
        OK(PtlPut(cmd, 0, 8, PTL_CT_ACK_REQ, t, pbase + p, 0, 128, NULL, 0));
        if (expected_fail(p, K_PUT) == PTL_NI_OK)
            ctok++;
        else
            ctfail++;
        EXPECT_CT(ict, ctok, ctfail);
    }
    BARRIER();
    /* what the left neighbour's ops did here: only the allowed ones wrote */
    for (int p = 0; p < P_N; p++) {
        unsigned char *r = tgt + (size_t)p * 2 * RSZ;
        char ctx[128];
        snprintf(ctx, sizeof ctx, "target memory behind a %s", pname[p]);
        int any_write = ok_ops[p][K_PUT] || ok_ops[p][K_ATOMIC] || ok_ops[p][K_FETCH] || ok_ops[p][K_SWAP];
        if (!any_write)
            CHECK_BYTES(r, 0xee, 2 * RSZ, "%s", ctx);
        else {
            if (ok_ops[p][K_PUT])
                CHECK_PATTERN(r, left, 5, 16, "%s: the put", ctx);
            else
                CHECK_BYTES(r, 0xee, 16, "%s: the refused put", ctx);
            if (!ok_ops[p][K_ATOMIC])
                CHECK_BYTES(r + 32, 0xee, 16, "%s: the refused atomic", ctx);
            if (!ok_ops[p][K_FETCH])
                CHECK_BYTES(r + 48, 0xee, 16, "%s: the refused fetch-atomic", ctx);
            if (!ok_ops[p][K_SWAP])
                CHECK_BYTES(r + 64, 0xee, 8, "%s: the refused swap", ctx);
            if (p == P_PUTONLY || p == P_OK)
                CHECK_PATTERN(r + 128, left, 5, 8, "%s: the counted put", ctx);
            CHECK_BYTES(r + 136, 0xee, 2 * RSZ - 136, "%s: beyond the ops", ctx);
        }
    }
    /* target events: one per allowed op, none for refused ones */
    int got[P_N] = {0}, other = 0;
    ptl_event_t ev;
    while (PtlEQGet(teq, &ev) == PTL_OK) {
        int p = (int)ev.pt_index - (int)pbase;
        if (p >= 0 && p < P_N && ev.ni_fail_type == PTL_NI_OK)
            got[p]++;
        else {
            other++;
            NOTE("target event %s pt %u ni_fail %s for a refused op", pt_evname(ev.type), ev.pt_index,
                 pt_failname(ev.ni_fail_type));
        }
    }
    for (int p = 0; p < P_N; p++) {
        int want = 0;
        for (int k = 0; k < K_N; k++)
            want += ok_ops[p][k];
        want += expected_fail(p, K_PUT) == PTL_NI_OK;
        CHECK(got[p] == want, "%d successful target events on the %s, want %d", got[p], pname[p], want);
    }
    (void)other;
    /* re-enable the disabled PT: ops go through again */
    OK(PtlPTEnable(ni, pbase + P_DIS));
    BARRIER();
    OK(PtlPut(pmd, 0, 16, PTL_ACK_REQ, t, pbase + P_DIS, 0, 200, (void *)7, 0));
    WAIT_EVENT(ieq, &ev);
    struct evwant w = want_ack((void *)7, 16, 200, pbase + P_DIS, PTL_NI_OK);
    CHECK_EVENT("put after PtlPTEnable", &ev, &w);
    BARRIER();
    CHECK_PATTERN(tgt + (size_t)P_DIS * 2 * RSZ + 200, left, 5, 16, "put after PtlPTEnable");
    WAIT_EVENT(teq, &ev);
    w = want_target(PTL_EVENT_PUT, tgt + (size_t)P_DIS * 2 * RSZ + 200, (void *)(uintptr_t)(P_DIS + 1), 0, 16, 16,
                    200, left, pbase + P_DIS);
    CHECK_EVENT("put after PtlPTEnable (target)", &ev, &w);
    /* disable twice, enable twice: fine; an unallocated PT is not */
    EXPECT_RC(PTL_OK, PtlPTDisable(ni, pbase + P_DIS));
    EXPECT_RC(PTL_OK, PtlPTEnable(ni, pbase + P_DIS));
    EXPECT_RC(PTL_ARG_INVALID, PtlPTDisable(ni, 64));
    EXPECT_RC(PTL_ARG_INVALID, PtlPTEnable(ni, 64));
    BARRIER();
    EXPECT_EMPTY(ieq, "remote failures");
    EXPECT_EMPTY(teq, "remote failures");
    for (int p = 0; p < P_N; p++) {
        for (int j = 0; j < nles[p]; j++)
            OK(PtlLEUnlink(les[p][j]));
        OK(PtlPTFree(ni, pbase + p));
    }
    OK(PtlMDRelease(pmd));
    OK(PtlMDRelease(gmd));
    OK(PtlMDRelease(cmd));
    free(tgt);
    free(src);
    free(dst);
}

/* ---- EQ overflow ---- */
#define OVF_OPS 40
static void t_eq_overflow(void)
{
    ptl_handle_eq_t small;
    OK(PtlEQAlloc(ni, 4, &small));
    ptl_pt_index_t pt;
    OK(PtlPTAlloc(ni, 0, small, 40, &pt));
    static uint64_t slot[OVF_OPS];
    memset(slot, 0, sizeof slot);
    ptl_le_t le = pt_le(slot, sizeof slot, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t lh;
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    static uint64_t vals[OVF_OPS];
    ptl_handle_ct_t ct;
    OK(PtlCTAlloc(ni, &ct));
    ptl_md_t d = pt_md(vals, sizeof vals, PTL_MD_EVENT_SEND_DISABLE | PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    for (int round = 0; round < 3; round++) {
        const char *how = round == 0 ? "PtlEQGet" : round == 1 ? "PtlEQWait" : "PtlEQPoll";
        for (int i = 0; i < OVF_OPS; i++)
            vals[i] = ((uint64_t)round << 32) | ((uint64_t)me << 8) | (uint64_t)i;
        BARRIER();
        for (int i = 0; i < OVF_OPS; i++)
            OK(PtlPut(md, (ptl_size_t)i * 8, 8, PTL_CT_ACK_REQ, pt_lrank(right), pt, 0, (ptl_size_t)i * 8, NULL,
                      (ptl_hdr_data_t)(round * 100 + i)));
        EXPECT_CT(ct, (ptl_size_t)(round + 1) * OVF_OPS, 0);
        BARRIER();
        /* every put landed even though events were dropped */
        for (int i = 0; i < OVF_OPS; i++)
            CHECK(slot[i] == (((uint64_t)round << 32) | ((uint64_t)left << 8) | (uint64_t)i),
                  "round %d: slot %d holds 0x%llx", round, i, (unsigned long long)slot[i]);
        ptl_event_t ev;
        memset(&ev, 0, sizeof ev);
        unsigned int which = 9;
        int rc;
        pt_watch(how);
        if (round == 0)
            rc = PtlEQGet(small, &ev);
        else if (round == 1)
            rc = PtlEQWait(small, &ev);
        else
            rc = PtlEQPoll(&small, 1, 1000, &ev, &which);
        pt_unwatch();
        CHECK(rc == PTL_EQ_DROPPED, "%s on an overflowed EQ returned %s, want PTL_EQ_DROPPED", how, pt_rcname(rc));
        CHECK(ev.type == PTL_EVENT_PUT && ev.hdr_data == (ptl_hdr_data_t)(round * 100),
              "%s: the event with PTL_EQ_DROPPED is %s hdr %llu, want the first PUT (hdr %d)", how,
              pt_evname(ev.type), (unsigned long long)ev.hdr_data, round * 100);
        int kept = 1;
        while ((rc = PtlEQGet(small, &ev)) == PTL_OK) {
            CHECK(ev.type == PTL_EVENT_PUT && ev.hdr_data == (ptl_hdr_data_t)(round * 100 + kept),
                  "%s round: event %d is %s hdr %llu, want PUT hdr %d (oldest kept, newest dropped)", how, kept,
                  pt_evname(ev.type), (unsigned long long)ev.hdr_data, round * 100 + kept);
            kept++;
        }
        CHECK(rc == PTL_EQ_EMPTY, "after draining: %s", pt_rcname(rc));
        CHECK(kept >= 4 && kept < OVF_OPS, "%d events kept in an EQ of 4 slots", kept);
        if (kept != 4 && me == 0)
            NOTE("an EQ allocated with count 4 kept %d events", kept);
    }
    OK(PtlMDRelease(md));
    OK(PtlLEUnlink(lh));
    OK(PtlPTFree(ni, pt));
    OK(PtlCTFree(ct));
    OK(PtlEQFree(small));
}

/* ---- memory that is gone: a clear error, not a crash ---- */
static void t_unmapped(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* more than the library copies itself (up to 4 KiB into a bounce
     * slot), so the NIC, not this process, touches the missing memory */
    size_t gl = 4 * pg;
    unsigned char *gone = mmap(NULL, gl, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(page != MAP_FAILED && gone != MAP_FAILED, "mmap");
    ptl_pt_index_t pt_bad, pt_good;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 41, &pt_bad));
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 42, &pt_good));
    static unsigned char good[256], src[256], dst[256];
    memset(good, 0xee, sizeof good);
    ptl_le_t le = pt_le(page, pg, PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE, PTL_UID_ANY);
    ptl_handle_le_t lb, lg;
    OK(PtlLEAppend(ni, pt_bad, &le, PTL_PRIORITY_LIST, NULL, &lb));
    le = pt_le(good, sizeof good, PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_LINK_DISABLE, PTL_CT_NONE,
               PTL_UID_ANY);
    OK(PtlLEAppend(ni, pt_good, &le, PTL_PRIORITY_LIST, NULL, &lg));
    munmap(page, pg); /* the LE now exposes nothing */
    munmap(gone, gl);
    ptl_md_t d = pt_md(src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t md, gmd, gonemd;
    OK(PtlMDBind(ni, &d, &md));
    d = pt_md(dst, sizeof dst, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gmd));
    d = pt_md(gone, gl, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    OK(PtlMDBind(ni, &d, &gonemd));
    pt_fill(src, me, 9, sizeof src);
    BARRIER();
    ptl_process_t t = pt_lrank(right);
    ptl_event_t ev;
    static const char *const what[4] = {"put into an unmapped LE", "get from an unmapped LE",
                                        "put from an unmapped MD", "get into an unmapped MD"};
    for (int k = 0; k < 4; k++) {
        void *up = (void *)(uintptr_t)(50 + k);
        switch (k) {
        case 0: OK(PtlPut(md, 0, 64, PTL_ACK_REQ, t, pt_bad, 0, 0, up, 0)); break;
        case 1: OK(PtlGet(gmd, 0, 64, t, pt_bad, 0, 0, up)); break;
        case 2: OK(PtlPut(gonemd, 0, gl, PTL_ACK_REQ, t, pt_good, 0, 0, up, 0)); break;
        case 3: OK(PtlGet(gonemd, 0, gl, t, pt_good, 0, 64, up)); break;
        }
        WAIT_EVENT(ieq, &ev);
        CHECK(ev.user_ptr == up && ev.type == (k == 1 || k == 3 ? PTL_EVENT_REPLY : PTL_EVENT_ACK),
              "%s: got a %s event for user_ptr %p", what[k], pt_evname(ev.type), ev.user_ptr);
        CHECK(ev.ni_fail_type != PTL_NI_OK, "%s reported PTL_NI_OK", what[k]);
        if (me == 0)
            NOTE("%s: %s with %s", what[k], pt_evname(ev.type), pt_failname(ev.ni_fail_type));
    }
    /* the NICs still work */
    OK(PtlPut(md, 0, 64, PTL_ACK_REQ, t, pt_good, 0, 128, NULL, 0));
    WAIT_EVENT(ieq, &ev);
    struct evwant w = want_ack(NULL, 64, 128, pt_good, PTL_NI_OK);
    CHECK_EVENT("put after the faults", &ev, &w);
    BARRIER();
    CHECK_BYTES(good, 0xee, 128, "the put from an unmapped MD wrote something");
    CHECK_PATTERN(good + 128, left, 9, 64, "put after the faults");
    EXPECT_EMPTY(ieq, "unmapped memory");
    OK(PtlMDRelease(md));
    OK(PtlMDRelease(gmd));
    OK(PtlMDRelease(gonemd));
    OK(PtlLEUnlink(lb));
    OK(PtlLEUnlink(lg));
    OK(PtlPTFree(ni, pt_bad));
    OK(PtlPTFree(ni, pt_good));
}

/* Targets that are no process of the job: refused by the call, or a
 * failure event (the semantics leave the choice open). */
static void t_bad_targets(void)
{
    static unsigned char buf[64];
    ptl_md_t d = pt_md(buf, sizeof buf, PTL_MD_EVENT_SEND_DISABLE, ieq, PTL_CT_NONE);
    ptl_handle_md_t md;
    OK(PtlMDBind(ni, &d, &md));
    ptl_process_t t;
    memset(&t, 0, sizeof t);
    t.rank = n; /* one past the last rank */
    int rc = PtlPut(md, 0, 8, PTL_ACK_REQ, t, 0, 0, 0, NULL, 0);
    if (rc == PTL_OK) {
        ptl_event_t ev;
        WAIT_EVENT(ieq, &ev);
        CHECK(ev.ni_fail_type != PTL_NI_OK, "a put to logical rank %u (job of %u) succeeded", n, n);
        if (me == 0)
            NOTE("put to logical rank %u: %s %s", n, pt_evname(ev.type), pt_failname(ev.ni_fail_type));
    } else if (me == 0)
        NOTE("put to logical rank %u: PtlPut returned %s", n, pt_rcname(rc));
    t.rank = PTL_RANK_ANY;
    rc = PtlGet(md, 0, 8, t, 0, 0, 0, NULL);
    if (rc == PTL_OK) {
        ptl_event_t ev;
        WAIT_EVENT(ieq, &ev);
        CHECK(ev.ni_fail_type != PTL_NI_OK, "a get from PTL_RANK_ANY succeeded");
    }
    EXPECT_EMPTY(ieq, "bad targets");
    OK(PtlMDRelease(md));
}

static int outside(void)
{
    /* not under emunic-run: no job to join */
    extern char **environ;
    for (char **e = environ; *e;) {
        if (strncmp(*e, "EMUNIC_", 7) == 0) {
            char name[128];
            size_t l = strcspn(*e, "=");
            snprintf(name, sizeof name, "%.*s", (int)l, *e);
            unsetenv(name);
            e = environ;
        } else
            e++;
    }
    int rc = PtlInit();
    if (rc != PTL_FAIL) {
        fprintf(stderr, "FAIL rank - ptl_errors.c:%d PtlInit outside emunic-run returned %s, want PTL_FAIL\n",
                __LINE__, pt_rcname(rc));
        return 1;
    }
    ptl_handle_ni_t h;
    ptl_ni_limits_t lim;
    rc = PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &h);
    if (rc == PTL_OK) {
        fprintf(stderr, "FAIL rank - ptl_errors.c:%d PtlNIInit after a failed PtlInit returned PTL_OK\n", __LINE__);
        return 1;
    }
    printf("ptl_errors outside: PtlInit gives PTL_FAIL, PtlNIInit %s: ok\n", pt_rcname(rc));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "outside") == 0)
        return outside();
    pt_env();
    me = pt_me;
    n = pt_n;
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    OK(PtlInit());
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni));
    pt_barrier_init(ni, 1);
    ptl_handle_ni_t mni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &mni));
    CHECK(!PtlHandleIsEqual(mni, ni), "the matching NI has the non-matching NI's handle");
    OK(PtlEQAlloc(ni, 1024, &teq));
    OK(PtlEQAlloc(ni, 1024, &ieq));
    OK(PtlCTAlloc(ni, &ict));
    BARRIER();

    t_options(mni);
    t_unsupported(mni);
    t_handles();
    t_nulls();
    BARRIER(); /* the map is still the identity after the refused PtlSetMaps */
    t_md_bounds();
    t_remote_failures();
    t_eq_overflow();
    t_unmapped();
    t_bad_targets();
    BARRIER();
    t_nulls_blocking();

    BARRIER();
    OK(PtlCTFree(ict));
    OK(PtlEQFree(teq));
    OK(PtlEQFree(ieq));
    OK(PtlNIFini(mni));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_errors");
}
