/* Every valid (operation, datatype) pair of PtlAtomic, PtlFetchAtomic and
 * PtlSwap against a local reference, and every invalid one refused with
 * PTL_ARG_INVALID. Portals numbers its datatypes in its own order
 * (PTL_FLOAT is 6, PTL_INT64_T 7, ...), so a wrong mapping shows up as a
 * wrong result. Which pairs are valid follows the Portals 4 rules: no
 * logical or bitwise ops (nor MSWAP) on floating types, no ordering
 * (MIN, MAX, CSWAP_LE/LT/GE/GT) on complex ones. Swaps take one element;
 * CSWAP* compare the operand with the target (swap if operand OP target);
 * MSWAP sets target = (mask & source) | (~mask & target). long double
 * results are compared on their 10 value bytes; the NIC zeroes the 6
 * padding bytes of every element it writes.
 *
 * Each rank operates on its right neighbour's memory and checks what its
 * left neighbour did to its own, and the values it fetched. */
#include "ptest.h"

#include <complex.h>

#define SLOT 128
#define NELEM 4

static uint32_t me, n, right, left;

struct dtinfo {
    const char *name;
    size_t size;
    char kind; /* 's' signed, 'u' unsigned, 'f' float, 'c' complex */
};
static const struct dtinfo dts[PTL_DATATYPE_LAST] = {
    [PTL_INT8_T] = {"INT8", 1, 's'},
    [PTL_UINT8_T] = {"UINT8", 1, 'u'},
    [PTL_INT16_T] = {"INT16", 2, 's'},
    [PTL_UINT16_T] = {"UINT16", 2, 'u'},
    [PTL_INT32_T] = {"INT32", 4, 's'},
    [PTL_UINT32_T] = {"UINT32", 4, 'u'},
    [PTL_FLOAT] = {"FLOAT", 4, 'f'},
    [PTL_INT64_T] = {"INT64", 8, 's'},
    [PTL_UINT64_T] = {"UINT64", 8, 'u'},
    [PTL_DOUBLE] = {"DOUBLE", 8, 'f'},
    [PTL_FLOAT_COMPLEX] = {"FLOAT_COMPLEX", 8, 'c'},
    [PTL_DOUBLE_COMPLEX] = {"DOUBLE_COMPLEX", 16, 'c'},
    [PTL_LONG_DOUBLE] = {"LONG_DOUBLE", sizeof(long double), 'f'},
    [PTL_LONG_DOUBLE_COMPLEX] = {"LONG_DOUBLE_COMPLEX", 2 * sizeof(long double), 'c'},
};
static const char *const opnames[PTL_OP_LAST] = {
    "MIN", "MAX", "SUM", "PROD", "LOR", "LAND", "BOR", "BAND", "LXOR", "BXOR",
    "SWAP", "CSWAP", "CSWAP_NE", "CSWAP_LE", "CSWAP_LT", "CSWAP_GE", "CSWAP_GT", "MSWAP"};

static int is_int(int dt) { return dts[dt].kind == 's' || dts[dt].kind == 'u'; }
static int is_ld(int dt) { return dt == PTL_LONG_DOUBLE || dt == PTL_LONG_DOUBLE_COMPLEX; }

/* The Portals 4 validity rules. */
static int valid(int op, int dt)
{
    if (op < 0 || op >= PTL_OP_LAST || dt < 0 || dt >= PTL_DATATYPE_LAST)
        return 0;
    char k = dts[dt].kind;
    switch (op) {
    case PTL_MIN: case PTL_MAX: return k != 'c';
    case PTL_SUM: case PTL_PROD: return 1;
    case PTL_LOR: case PTL_LAND: case PTL_BOR: case PTL_BAND: case PTL_LXOR: case PTL_BXOR: return is_int(dt);
    case PTL_SWAP: case PTL_CSWAP: case PTL_CSWAP_NE: return 1;
    case PTL_CSWAP_LE: case PTL_CSWAP_LT: case PTL_CSWAP_GE: case PTL_CSWAP_GT: return k != 'c';
    case PTL_MSWAP: return is_int(dt);
    }
    return 0;
}
static int is_swap(int op) { return op >= PTL_SWAP && op <= PTL_MSWAP; }

/* ---- values ---- */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

enum { C_FULL, C_SMALL, C_LOGIC, C_REL };
static int value_class(int op)
{
    switch (op) {
    case PTL_SUM: case PTL_PROD: return C_SMALL;
    case PTL_LOR: case PTL_LAND: case PTL_LXOR: return C_LOGIC;
    case PTL_CSWAP: case PTL_CSWAP_NE: case PTL_CSWAP_LE: case PTL_CSWAP_LT: case PTL_CSWAP_GE:
    case PTL_CSWAP_GT: return C_REL;
    default: return C_FULL;
    }
}

static double fval(uint64_t h, int cls) { return ((double)(h % 81) - 40.0) * (cls == C_REL ? 0.5 : 0.25); }

/* One element of type dt from hash h, padding of long doubles set to 0xa5. */
static void gen(int dt, int cls, uint64_t h, void *out)
{
    unsigned char *o = out;
    memset(o, 0xa5, dts[dt].size);
    int64_t sv;
    uint64_t uv;
    if (cls == C_FULL) {
        sv = (int64_t)h;
        uv = h;
    } else if (cls == C_SMALL) {
        sv = (int64_t)(h % 19) - 9;
        uv = h; /* unsigned wrap-around is defined: use the full range */
    } else if (cls == C_LOGIC) {
        static const int64_t lv[5] = {0, 0, 1, 7, -3};
        sv = lv[h % 5];
        uv = (uint64_t)(h % 5 == 4 ? 200 : lv[h % 5]);
    } else {
        sv = (int64_t)(h % 101) - 50;
        uv = 10 + h % 90;
    }
    switch (dt) {
    case PTL_INT8_T: { int8_t v = (int8_t)sv; memcpy(o, &v, 1); break; }
    case PTL_UINT8_T: { uint8_t v = (uint8_t)(cls == C_REL ? uv : uv); memcpy(o, &v, 1); break; }
    case PTL_INT16_T: { int16_t v = (int16_t)sv; memcpy(o, &v, 2); break; }
    case PTL_UINT16_T: { uint16_t v = (uint16_t)uv; memcpy(o, &v, 2); break; }
    case PTL_INT32_T: { int32_t v = (int32_t)sv; memcpy(o, &v, 4); break; }
    case PTL_UINT32_T: { uint32_t v = (uint32_t)uv; memcpy(o, &v, 4); break; }
    case PTL_INT64_T: { int64_t v = sv; memcpy(o, &v, 8); break; }
    case PTL_UINT64_T: { uint64_t v = uv; memcpy(o, &v, 8); break; }
    case PTL_FLOAT: { float v = (float)fval(h, cls); memcpy(o, &v, 4); break; }
    case PTL_DOUBLE: { double v = fval(h, cls); memcpy(o, &v, 8); break; }
    case PTL_LONG_DOUBLE: { long double v = fval(h, cls); memcpy(o, &v, 10); break; }
    case PTL_FLOAT_COMPLEX: { float v[2] = {(float)fval(h, cls), (float)fval(h >> 20, cls)}; memcpy(o, v, 8); break; }
    case PTL_DOUBLE_COMPLEX: { double v[2] = {fval(h, cls), fval(h >> 20, cls)}; memcpy(o, v, 16); break; }
    case PTL_LONG_DOUBLE_COMPLEX: {
        long double re = fval(h, cls), im = fval(h >> 20, cls);
        memcpy(o, &re, 10);
        memcpy(o + sizeof(long double), &im, 10);
        break;
    }
    }
}

/* The compare value / mask for a swap, made from the target's element. */
static void make_operand(int op, int dt, int variant, const void *t, uint64_t h, void *out)
{
    size_t sz = dts[dt].size;
    memcpy(out, t, sz);
    if (op == PTL_SWAP)
        return;
    if (op == PTL_MSWAP) {
        uint64_t m = variant ? 0x0f0f0f0f0f0f0f0full : h;
        memcpy(out, &m, sz);
        return;
    }
    if (variant == 1)
        return; /* equal */
    int up = variant == 2;
    unsigned char *o = out;
    switch (dt) {
#define STEP(DT, T, D)                                                         \
    case DT: { T v; memcpy(&v, o, sizeof v); v = (T)(up ? v + D : v - D); memcpy(o, &v, sizeof v); break; }
        STEP(PTL_INT8_T, int8_t, 1)
        STEP(PTL_UINT8_T, uint8_t, 1)
        STEP(PTL_INT16_T, int16_t, 1)
        STEP(PTL_UINT16_T, uint16_t, 1)
        STEP(PTL_INT32_T, int32_t, 1)
        STEP(PTL_UINT32_T, uint32_t, 1)
        STEP(PTL_INT64_T, int64_t, 1)
        STEP(PTL_UINT64_T, uint64_t, 1)
        STEP(PTL_FLOAT, float, 0.5f)
        STEP(PTL_DOUBLE, double, 0.5)
    case PTL_LONG_DOUBLE: { long double v = 0; memcpy(&v, o, 10); v += up ? 0.5L : -0.5L; memcpy(o, &v, 10); break; }
    /* complex: differ in the real part (variant 0) or the imaginary (2) */
    case PTL_FLOAT_COMPLEX: { float v[2]; memcpy(v, o, 8); v[up] += 0.5f; memcpy(o, v, 8); break; }
    case PTL_DOUBLE_COMPLEX: { double v[2]; memcpy(v, o, 16); v[up] += 0.5; memcpy(o, v, 16); break; }
    case PTL_LONG_DOUBLE_COMPLEX: {
        long double v = 0;
        size_t at = up ? sizeof(long double) : 0;
        memcpy(&v, o + at, 10);
        v += 0.5L;
        memcpy(o + at, &v, 10);
        break;
    }
#undef STEP
    }
}

/* Reference: apply op to one element t (in place) with source s and
 * operand o. Returns whether the target was written. */
static int ref_apply(int op, int dt, void *tp, const void *sp, const void *op_)
{
#define ARITH(T, UT)                                                           \
    {                                                                          \
        T t, s, o = 0;                                                         \
        memcpy(&t, tp, sizeof t);                                              \
        memcpy(&s, sp, sizeof s);                                              \
        if (op_) memcpy(&o, op_, sizeof o);                                    \
        T r = t;                                                               \
        int w = 1;                                                             \
        switch (op) {                                                          \
        case PTL_MIN: r = s < t ? s : t; break;                                \
        case PTL_MAX: r = s > t ? s : t; break;                                \
        case PTL_SUM: r = (T)(UT)((uint64_t)(UT)t + (uint64_t)(UT)s); break;   \
        case PTL_PROD: r = (T)(UT)((uint64_t)(UT)t * (uint64_t)(UT)s); break;  \
        case PTL_LOR: r = (T)(t || s); break;                                  \
        case PTL_LAND: r = (T)(t && s); break;                                 \
        case PTL_BOR: r = (T)(t | s); break;                                   \
        case PTL_BAND: r = (T)(t & s); break;                                  \
        case PTL_LXOR: r = (T)((t && !s) || (!t && s)); break;                 \
        case PTL_BXOR: r = (T)(t ^ s); break;                                  \
        case PTL_SWAP: r = s; break;                                           \
        case PTL_CSWAP: w = o == t; break;                                     \
        case PTL_CSWAP_NE: w = o != t; break;                                  \
        case PTL_CSWAP_LE: w = o <= t; break;                                  \
        case PTL_CSWAP_LT: w = o < t; break;                                   \
        case PTL_CSWAP_GE: w = o >= t; break;                                  \
        case PTL_CSWAP_GT: w = o > t; break;                                   \
        case PTL_MSWAP: r = (T)((o & s) | (~o & t)); break;                    \
        }                                                                      \
        if (op >= PTL_CSWAP && op <= PTL_CSWAP_GT && w)                        \
            r = s;                                                             \
        memcpy(tp, &r, sizeof r);                                              \
        return w;                                                              \
    }
#define FLOATING(T, VSZ)                                                       \
    {                                                                          \
        T t = 0, s = 0, o = 0;                                                 \
        memcpy(&t, tp, VSZ);                                                   \
        memcpy(&s, sp, VSZ);                                                   \
        if (op_) memcpy(&o, op_, VSZ);                                         \
        T r = t;                                                               \
        int w = 1;                                                             \
        switch (op) {                                                          \
        case PTL_MIN: r = s < t ? s : t; break;                                \
        case PTL_MAX: r = s > t ? s : t; break;                                \
        case PTL_SUM: r = t + s; break;                                        \
        case PTL_PROD: r = t * s; break;                                       \
        case PTL_SWAP: r = s; break;                                           \
        case PTL_CSWAP: w = o == t; break;                                     \
        case PTL_CSWAP_NE: w = o != t; break;                                  \
        case PTL_CSWAP_LE: w = o <= t; break;                                  \
        case PTL_CSWAP_LT: w = o < t; break;                                   \
        case PTL_CSWAP_GE: w = o >= t; break;                                  \
        case PTL_CSWAP_GT: w = o > t; break;                                   \
        }                                                                      \
        if (op >= PTL_CSWAP && op <= PTL_CSWAP_GT && w)                        \
            r = s;                                                             \
        memcpy(tp, &r, VSZ);                                                   \
        return w;                                                              \
    }
#define CPLX(T, PART, VSZ)                                                     \
    {                                                                          \
        PART tr = 0, ti = 0, sr = 0, si = 0, or_ = 0, oi = 0;                  \
        const size_t P = sizeof(PART);                                         \
        memcpy(&tr, tp, VSZ); memcpy(&ti, (char *)tp + P, VSZ);                \
        memcpy(&sr, sp, VSZ); memcpy(&si, (const char *)sp + P, VSZ);          \
        if (op_) { memcpy(&or_, op_, VSZ); memcpy(&oi, (const char *)op_ + P, VSZ); } \
        T t = tr + ti * I, s = sr + si * I, r = t;                             \
        int w = 1;                                                             \
        switch (op) {                                                          \
        case PTL_SUM: r = t + s; break;                                        \
        case PTL_PROD: r = t * s; break;                                       \
        case PTL_SWAP: r = s; break;                                           \
        case PTL_CSWAP: w = or_ == tr && oi == ti; if (w) r = s; break;        \
        case PTL_CSWAP_NE: w = or_ != tr || oi != ti; if (w) r = s; break;     \
        }                                                                      \
        PART rr = __real__ r, ri = __imag__ r;                                 \
        memcpy(tp, &rr, VSZ);                                                  \
        memcpy((char *)tp + P, &ri, VSZ);                                      \
        return w;                                                              \
    }
    switch (dt) {
    case PTL_INT8_T: ARITH(int8_t, uint8_t)
    case PTL_UINT8_T: ARITH(uint8_t, uint8_t)
    case PTL_INT16_T: ARITH(int16_t, uint16_t)
    case PTL_UINT16_T: ARITH(uint16_t, uint16_t)
    case PTL_INT32_T: ARITH(int32_t, uint32_t)
    case PTL_UINT32_T: ARITH(uint32_t, uint32_t)
    case PTL_INT64_T: ARITH(int64_t, uint64_t)
    case PTL_UINT64_T: ARITH(uint64_t, uint64_t)
    case PTL_FLOAT: FLOATING(float, 4)
    case PTL_DOUBLE: FLOATING(double, 8)
    case PTL_LONG_DOUBLE: FLOATING(long double, 10)
    case PTL_FLOAT_COMPLEX: CPLX(float complex, float, 4)
    case PTL_DOUBLE_COMPLEX: CPLX(double complex, double, 8)
    case PTL_LONG_DOUBLE_COMPLEX: CPLX(long double complex, long double, 10)
    }
    return 0;
#undef ARITH
#undef FLOATING
#undef CPLX
}

/* Equal on the value bytes (long double: 10 of each 16). */
static int val_eq(int dt, const void *a, const void *b)
{
    if (dt == PTL_LONG_DOUBLE)
        return memcmp(a, b, 10) == 0;
    if (dt == PTL_LONG_DOUBLE_COMPLEX)
        return memcmp(a, b, 10) == 0 && memcmp((const char *)a + 16, (const char *)b + 16, 10) == 0;
    return memcmp(a, b, dts[dt].size) == 0;
}
static int pad_zero(int dt, const unsigned char *v)
{
    for (size_t part = 0; part < dts[dt].size; part += 16)
        for (int i = 10; i < 16; i++)
            if (v[part + (size_t)i])
                return 0;
    return 1;
}
static void hex(char *out, size_t cap, const void *v, size_t len)
{
    const unsigned char *b = v;
    out[0] = 0;
    for (size_t i = 0; i < len && 3 * i + 3 < cap; i++)
        snprintf(out + 3 * i, cap - 3 * i, "%02x ", b[i]);
}

/* ---- the combination list (identical on every rank) ---- */
enum { API_ATOMIC, API_FETCH, API_SWAP };
static const char *const apiname[3] = {"PtlAtomic", "PtlFetchAtomic", "PtlSwap"};
struct combo {
    int api, op, dt, variant;
    size_t len;
};
static struct combo combos[2048];
static int ncombo;

static void build(void)
{
    for (int api = API_ATOMIC; api <= API_FETCH; api++)
        for (int op = PTL_MIN; op <= PTL_BXOR; op++)
            for (int dt = 0; dt < PTL_DATATYPE_LAST; dt++)
                if (valid(op, dt))
                    combos[ncombo++] = (struct combo){api, op, dt, 0, NELEM * dts[dt].size};
    for (int op = PTL_SWAP; op <= PTL_MSWAP; op++)
        for (int dt = 0; dt < PTL_DATATYPE_LAST; dt++)
            if (valid(op, dt)) {
                int nv = op == PTL_SWAP ? 1 : op == PTL_MSWAP ? 2 : 3;
                for (int v = 0; v < nv; v++)
                    combos[ncombo++] = (struct combo){API_SWAP, op, dt, v, dts[dt].size};
            }
}

static uint64_t hsh(int slot, int i, uint32_t r, int which)
{
    return mix(((uint64_t)slot << 40) ^ ((uint64_t)i << 32) ^ ((uint64_t)r << 8) ^ (uint64_t)which);
}
static void tval(int s, int i, uint32_t r, void *out)
{
    gen(combos[s].dt, value_class(combos[s].op), hsh(s, i, r, 1), out);
}
static void sval(int s, int i, uint32_t r, void *out)
{
    gen(combos[s].dt, value_class(combos[s].op), hsh(s, i, r, 2), out);
}
/* the operand the initiator sends to the target `t` for swap slot s */
static void opnd_for(int s, uint32_t t, void *out)
{
    unsigned char tv[32];
    tval(s, 0, t, tv);
    make_operand(combos[s].op, combos[s].dt, combos[s].variant, tv, hsh(s, 0, t, 3), out);
}

int main(void)
{
    pt_env();
    me = pt_me;
    n = pt_n;
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    build();
    REQUIRE(ncombo > 0 && ncombo < 2048, "%d combinations", ncombo);
    size_t region = (size_t)ncombo * SLOT;
    unsigned char *tgt = pt_xmalloc(region), *src = pt_xmalloc(region), *res = pt_xmalloc(region);
    unsigned char(*opnd)[32] = pt_xmalloc((size_t)ncombo * 32);
    memset(tgt, 0xee, region);
    memset(src, 0xee, region);
    memset(res, 0x5a, region);
    for (int s = 0; s < ncombo; s++) {
        size_t sz = dts[combos[s].dt].size;
        for (int i = 0; i < (int)(combos[s].len / sz); i++) {
            tval(s, i, me, tgt + (size_t)s * SLOT + (size_t)i * sz);
            sval(s, i, me, src + (size_t)s * SLOT + (size_t)i * sz);
        }
        if (combos[s].api == API_SWAP)
            opnd_for(s, right, opnd[s]);
    }

    OK(PtlInit());
    ptl_handle_ni_t ni;
    ptl_ni_limits_t lim;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, &lim, &ni));
    REQUIRE(lim.max_atomic_size >= SLOT && lim.max_fetch_atomic_size >= SLOT, "atomic sizes %llu/%llu",
            (unsigned long long)lim.max_atomic_size, (unsigned long long)lim.max_fetch_atomic_size);
    pt_barrier_init(ni, 1);
    ptl_pt_index_t pt;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 4, &pt));
    ptl_handle_ct_t tct, act, rct;
    OK(PtlCTAlloc(ni, &tct));
    OK(PtlCTAlloc(ni, &act));
    OK(PtlCTAlloc(ni, &rct));
    ptl_le_t le = pt_le(tgt, region,
                        PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_CT_COMM | PTL_LE_EVENT_LINK_DISABLE, tct,
                        PTL_UID_ANY);
    ptl_handle_le_t lh;
    OK(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &lh));
    ptl_md_t d = pt_md(src, region, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, act);
    ptl_handle_md_t smd, rmd;
    OK(PtlMDBind(ni, &d, &smd));
    d = pt_md(res, region, PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_SEND_DISABLE, PTL_EQ_NONE, rct);
    OK(PtlMDBind(ni, &d, &rmd));
    BARRIER();

    /* ---- issue everything, 32 at a time ---- */
    ptl_process_t t = pt_lrank(right);
    ptl_size_t acks = 0, replies = 0;
    for (int s = 0; s < ncombo; s++) {
        const struct combo *c = &combos[s];
        ptl_size_t off = (ptl_size_t)s * SLOT;
        int rc;
        if (c->api == API_ATOMIC) {
            rc = PtlAtomic(smd, off, c->len, PTL_CT_ACK_REQ, t, pt, 0, off, NULL, 0, (ptl_op_t)c->op,
                           (ptl_datatype_t)c->dt);
            acks += rc == PTL_OK;
        } else if (c->api == API_FETCH) {
            rc = PtlFetchAtomic(rmd, off, smd, off, c->len, t, pt, 0, off, NULL, 0, (ptl_op_t)c->op,
                                (ptl_datatype_t)c->dt);
            replies += rc == PTL_OK;
        } else {
            rc = PtlSwap(rmd, off, smd, off, c->len, t, pt, 0, off, NULL, 0, opnd[s], (ptl_op_t)c->op,
                         (ptl_datatype_t)c->dt);
            replies += rc == PTL_OK;
        }
        CHECK(rc == PTL_OK, "%s(%s, %s) returned %s", apiname[c->api], opnames[c->op], dts[c->dt].name,
              pt_rcname(rc));
        if (s % 32 == 31 || s == ncombo - 1) {
            EXPECT_CT(act, acks, 0);
            EXPECT_CT(rct, replies, 0);
        }
    }
    BARRIER();
    EXPECT_CT_NOW(tct, acks + replies, 0);

    /* ---- my memory, as my left neighbour left it ---- */
    int bad = 0;
    for (int s = 0; s < ncombo; s++) {
        const struct combo *c = &combos[s];
        size_t sz = dts[c->dt].size;
        unsigned char *got = tgt + (size_t)s * SLOT;
        unsigned char o[32];
        if (c->api == API_SWAP)
            opnd_for(s, me, o);
        for (int i = 0; i < (int)(c->len / sz); i++) {
            unsigned char want[32], sv[32];
            tval(s, i, me, want);
            sval(s, i, left, sv);
            int wrote = ref_apply(c->op, c->dt, want, sv, c->api == API_SWAP ? o : NULL);
            if (!val_eq(c->dt, got + (size_t)i * sz, want)) {
                char hg[100], hw[100];
                hex(hg, sizeof hg, got + (size_t)i * sz, sz);
                hex(hw, sizeof hw, want, sz);
                FAILED("%s(%s, %s%s) element %d: target holds [%s], want [%s]", apiname[c->api], opnames[c->op],
                      dts[c->dt].name,
                      c->api == API_SWAP ? (c->variant == 0 ? ", variant 0" : c->variant == 1 ? ", variant 1" : ", variant 2")
                                         : "",
                      i, hg, hw);
                bad++;
            } else if (is_ld(c->dt) && wrote && !pad_zero(c->dt, got + (size_t)i * sz)) {
                char hg[100];
                hex(hg, sizeof hg, got + (size_t)i * sz, sz);
                FAILED("%s(%s, %s) element %d: padding not zeroed [%s]", apiname[c->api], opnames[c->op],
                      dts[c->dt].name, i, hg);
            }
        }
        CHECK_BYTES(got + c->len, 0xee, SLOT - c->len, "%s(%s, %s): beyond the operation", apiname[c->api],
                    opnames[c->op], dts[c->dt].name);
        /* what I fetched from my right neighbour */
        if (c->api != API_ATOMIC) {
            unsigned char *f = res + (size_t)s * SLOT;
            for (int i = 0; i < (int)(c->len / sz); i++) {
                unsigned char want[32];
                tval(s, i, right, want);
                if (!val_eq(c->dt, f + (size_t)i * sz, want)) {
                    char hg[100], hw[100];
                    hex(hg, sizeof hg, f + (size_t)i * sz, sz);
                    hex(hw, sizeof hw, want, sz);
                    FAILED("%s(%s, %s) element %d: fetched [%s], want [%s]", apiname[c->api], opnames[c->op],
                          dts[c->dt].name, i, hg, hw);
                    bad++;
                }
            }
            CHECK_BYTES(f + c->len, 0x5a, SLOT - c->len, "%s(%s, %s): fetched beyond the length",
                        apiname[c->api], opnames[c->op], dts[c->dt].name);
        }
    }
    if (me == 0)
        printf("ptl_atomics: %d combinations checked (%llu atomics, %llu fetching), %d wrong on rank 0\n", ncombo,
               (unsigned long long)acks, (unsigned long long)replies, bad);

    /* ---- invalid combinations and lengths: refused, nothing sent ---- */
    BARRIER();
    unsigned char *snap = pt_xmalloc(region);
    memcpy(snap, tgt, region);
    static const int extra_ops[] = {PTL_OP_LAST, 200};
    static const int extra_dts[] = {PTL_DATATYPE_LAST, 200};
    uint64_t opv[4] = {0, 0, 0, 0};
    int refused = 0, multi_swaps = 0;
    for (int op = 0; op < PTL_OP_LAST + 2; op++) {
        int o = op < PTL_OP_LAST ? op : extra_ops[op - PTL_OP_LAST];
        for (int dt = 0; dt < PTL_DATATYPE_LAST + 2; dt++) {
            int ty = dt < PTL_DATATYPE_LAST ? dt : extra_dts[dt - PTL_DATATYPE_LAST];
            size_t sz = ty < PTL_DATATYPE_LAST ? dts[ty].size : 8;
            int ok_atomic = o <= PTL_BXOR && valid(o, ty);
            int ok_swap = is_swap(o) && valid(o, ty);
            const char *on = o < PTL_OP_LAST ? opnames[o] : "bad-op";
            const char *tn = ty < PTL_DATATYPE_LAST ? dts[ty].name : "bad-type";
            if (!ok_atomic) {
                int rc = PtlAtomic(smd, 0, sz, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0, (ptl_op_t)o, (ptl_datatype_t)ty);
                CHECK(rc == PTL_ARG_INVALID, "PtlAtomic(%s, %s) returned %s, want PTL_ARG_INVALID", on, tn,
                      pt_rcname(rc));
                rc = PtlFetchAtomic(rmd, 0, smd, 0, sz, t, pt, 0, 0, NULL, 0, (ptl_op_t)o, (ptl_datatype_t)ty);
                CHECK(rc == PTL_ARG_INVALID, "PtlFetchAtomic(%s, %s) returned %s, want PTL_ARG_INVALID", on, tn,
                      pt_rcname(rc));
                refused += 2;
            }
            if (!ok_swap) {
                int rc = PtlSwap(rmd, 0, smd, 0, sz, t, pt, 0, 0, NULL, 0, opv, (ptl_op_t)o, (ptl_datatype_t)ty);
                CHECK(rc == PTL_ARG_INVALID, "PtlSwap(%s, %s) returned %s, want PTL_ARG_INVALID", on, tn,
                      pt_rcname(rc));
                refused++;
            }
        }
    }
    for (int dt = 0; dt < PTL_DATATYPE_LAST; dt++) {
        size_t sz = dts[dt].size;
        if (sz > 1) {
            int rc = PtlAtomic(smd, 0, sz + 1, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0, PTL_SUM, (ptl_datatype_t)dt);
            CHECK(rc == PTL_ARG_INVALID, "PtlAtomic(SUM, %s, length %zu) returned %s", dts[dt].name, sz + 1,
                  pt_rcname(rc));
            rc = PtlAtomic(smd, 0, 3 * sz - 1, PTL_CT_ACK_REQ, t, pt, 0, 0, NULL, 0, PTL_SUM, (ptl_datatype_t)dt);
            CHECK(rc == PTL_ARG_INVALID, "PtlAtomic(SUM, %s, length %zu) returned %s", dts[dt].name, 3 * sz - 1,
                  pt_rcname(rc));
            rc = PtlFetchAtomic(rmd, 0, smd, 0, sz / 2, t, pt, 0, 0, NULL, 0, PTL_SUM, (ptl_datatype_t)dt);
            CHECK(rc == PTL_ARG_INVALID, "PtlFetchAtomic(SUM, %s, length %zu) returned %s", dts[dt].name, sz / 2,
                  pt_rcname(rc));
            rc = PtlSwap(rmd, 0, smd, 0, sz + 1, t, pt, 0, 0, NULL, 0, opv, PTL_SWAP, (ptl_datatype_t)dt);
            CHECK(rc == PTL_ARG_INVALID, "PtlSwap(SWAP, %s, length %zu) returned %s", dts[dt].name, sz + 1,
                  pt_rcname(rc));
        }
        /* swaps act on exactly one element */
        int rc = PtlSwap(rmd, 0, smd, 0, 2 * sz, t, pt, 0, 0, NULL, 0, opv, PTL_CSWAP, (ptl_datatype_t)dt);
        CHECK(rc == PTL_ARG_INVALID, "PtlSwap(CSWAP, %s, two elements) returned %s", dts[dt].name, pt_rcname(rc));
        if (is_int(dt)) {
            rc = PtlSwap(rmd, 0, smd, 0, 2 * sz, t, pt, 0, 0, NULL, 0, opv, PTL_MSWAP, (ptl_datatype_t)dt);
            CHECK(rc == PTL_ARG_INVALID, "PtlSwap(MSWAP, %s, two elements) returned %s", dts[dt].name,
                  pt_rcname(rc));
        }
        rc = PtlSwap(rmd, 0, smd, 0, 2 * sz, t, pt, 0, 0, NULL, 0, opv, PTL_SWAP, (ptl_datatype_t)dt);
        if (rc != PTL_ARG_INVALID && me == 0 && dt == 0)
            NOTE("PtlSwap(SWAP) of two elements returned %s (left open by the semantics)", pt_rcname(rc));
        if (rc == PTL_OK) {
            replies++;
            multi_swaps++;
        }
    }
    EXPECT_CT(rct, replies, 0);
    BARRIER();
    EXPECT_CT_NOW(act, acks, 0);
    if (memcmp(snap, tgt, region) != 0) {
        size_t i = 0;
        while (i < region && snap[i] == tgt[i])
            i++;
        /* an accepted multi-element PtlSwap(SWAP) writes slot 0 only */
        size_t j = region;
        while (j > 0 && snap[j - 1] == tgt[j - 1])
            j--;
        CHECK(multi_swaps > 0 && j <= SLOT, "a refused call changed my memory at bytes %zu..%zu", i, j - 1);
    }
    free(snap);
    if (me == 0)
        printf("ptl_atomics: %d invalid combinations refused\n", refused);

    BARRIER();
    OK(PtlMDRelease(smd));
    OK(PtlMDRelease(rmd));
    OK(PtlLEUnlink(lh));
    OK(PtlPTFree(ni, pt));
    OK(PtlCTFree(tct));
    OK(PtlCTFree(act));
    OK(PtlCTFree(rct));
    pt_barrier_fini();
    OK(PtlNIFini(ni));
    PtlFini();
    free(tgt);
    free(src);
    free(res);
    free(opnd);
    return pt_done("ptl_atomics");
}
