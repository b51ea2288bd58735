/* Unit tests of emu_msg_validate (emunic/msg.h): the structural check the
 * NIC applies to every message it reads from shared memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "emunic/atomic_op.h"
#include "emunic/msg.h"

#define NR 8u /* nranks used throughout */

static void base_msg(struct emu_msg *m, uint8_t op)
{
    memset(m, 0, sizeof *m);
    m->op = op;
    m->src = 1;
    m->dst = NR - 1;
    m->key = 0x200;
    m->laddr = 0x7f0000001000ull;
    m->raddr = 0x7f0000002000ull;
    m->cookie = 0xc00c1e;
}

/* One well-formed instance of each command kind. */
static void write_inline(struct emu_msg *m, uint16_t n)
{
    base_msg(m, EMU_OP_WRITE);
    m->flags = EMU_F_INLINE | EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ;
    m->len = n;
    m->dlen = n;
    for (unsigned i = 0; i < n; i++)
        m->data[i] = (uint8_t)i;
}

static void write_ref(struct emu_msg *m, uint64_t len)
{
    base_msg(m, EMU_OP_WRITE);
    m->flags = EMU_F_REMOTE_CQ | EMU_F_TARGET_NOTIFY;
    m->len = len;
    m->imm = 42;
}

static void read_msg(struct emu_msg *m, uint64_t len)
{
    base_msg(m, EMU_OP_READ);
    m->flags = EMU_F_LOCAL_CQ;
    m->len = len;
}

static void atomic_msg(struct emu_msg *m, uint8_t op, unsigned aop,
                       unsigned dtype, unsigned nelem, int inl)
{
    base_msg(m, op);
    m->aop = (uint8_t)aop;
    m->dtype = (uint8_t)dtype;
    m->len = nelem * emu_dtype_size(dtype);
    if (inl) {
        m->flags = EMU_F_INLINE;
        m->dlen = (uint16_t)m->len;
    }
    if (op == EMU_OP_FETCH_ATOMIC)
        m->aux = 0x7f0000003000ull;
}

static void am_msg(struct emu_msg *m, uint32_t hlen, uint64_t len, int inl)
{
    base_msg(m, EMU_OP_AM);
    m->imm = 7;
    m->hlen = hlen;
    m->len = len;
    if (inl) {
        m->flags = EMU_F_INLINE;
        m->dlen = (uint16_t)(hlen + len);
    } else {
        m->dlen = (uint16_t)hlen;
        m->aux = 99; /* ticket */
    }
}

#define OK(m) assert_int_equal(emu_msg_validate((m), NR), EMU_OK)
#define BAD(m) assert_int_equal(emu_msg_validate((m), NR), EMU_E_INVAL)

static void test_accepts_well_formed(void **state)
{
    (void)state;
    struct emu_msg m;
    for (uint16_t n = 0; n <= EMU_INLINE_MAX; n++) {
        write_inline(&m, n);
        OK(&m);
    }
    write_ref(&m, 0);
    OK(&m);
    write_ref(&m, 1);
    OK(&m);
    write_ref(&m, 1ull << 30);
    OK(&m);
    read_msg(&m, 0);
    OK(&m);
    read_msg(&m, 8);
    OK(&m);
    read_msg(&m, 1ull << 32);
    OK(&m);

    /* every valid (aop, dtype) pair, inline and by reference */
    unsigned pairs = 0;
    for (unsigned aop = 0; aop < EMU_AOP_COUNT_; aop++)
        for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
            if (!emu_aop_valid(aop, dt))
                continue;
            pairs++;
            unsigned ne = emu_aop_is_swap(aop) ? 1 : 3;
            uint8_t ops[2] = {EMU_OP_ATOMIC, EMU_OP_FETCH_ATOMIC};
            for (int k = 0; k < 2; k++) {
                atomic_msg(&m, ops[k], aop, dt, ne, 1);
                OK(&m);
                atomic_msg(&m, ops[k], aop, dt, ne, 0);
                OK(&m);
            }
        }
    assert_true(pairs > 100);

    am_msg(&m, 0, 0, 1);
    OK(&m);
    am_msg(&m, 16, 100, 1);
    OK(&m);
    am_msg(&m, EMU_INLINE_MAX, 0, 1);
    OK(&m);
    am_msg(&m, 0, EMU_INLINE_MAX, 1);
    OK(&m);
    am_msg(&m, 16, 1 << 20, 0); /* long AM: header inline, payload waits */
    OK(&m);
    am_msg(&m, EMU_INLINE_MAX, 1, 0);
    OK(&m);

    base_msg(&m, EMU_OP_AM_ACCEPT);
    m.len = 4096;
    m.aux = 99;
    OK(&m);

    base_msg(&m, EMU_OP_MODULE);
    m.module = 1;
    m.imm = 5;
    m.dlen = 40;
    OK(&m);
    m.module = 255;
    m.dlen = EMU_INLINE_MAX;
    OK(&m);

    base_msg(&m, EMU_OP_ACK);
    m.flags = EMU_DONE_LOCAL | EMU_DONE_REMOTE;
    OK(&m);
    m.flags = 0;
    OK(&m);
    /* a small result carried back: all of it, with its completion */
    m.flags = EMU_DONE_REMOTE | EMU_DONE_DATA;
    m.len = m.dlen = EMU_INLINE_MAX;
    OK(&m);
    /* a read that asked for its result back */
    read_msg(&m, 8);
    m.flags |= EMU_F_DATA_BACK;
    OK(&m);

    /* src/dst bounds are exclusive of nranks, inclusive of nranks-1 */
    write_inline(&m, 4);
    m.src = 0;
    m.dst = 0;
    OK(&m);
    m.src = NR - 1;
    m.dst = NR - 1;
    OK(&m);
    assert_int_equal(emu_msg_validate(&m, 1u << 31), EMU_OK);
    m.src = m.dst = 0;
    assert_int_equal(emu_msg_validate(&m, 1), EMU_OK);
}

static void test_rejects_bad_op_and_ranks(void **state)
{
    (void)state;
    struct emu_msg m;
    write_inline(&m, 8);
    for (unsigned op = EMU_OP_COUNT_; op < 256; op++) {
        m.op = (uint8_t)op; /* includes the completion kinds 0x40.. */
        BAD(&m);
    }
    write_inline(&m, 8);
    m.src = NR;
    BAD(&m);
    m.src = UINT32_MAX;
    BAD(&m);
    write_inline(&m, 8);
    m.dst = NR;
    BAD(&m);
    m.dst = UINT32_MAX;
    BAD(&m);
    write_inline(&m, 8);
    m.src = m.dst = 0;
    assert_int_equal(emu_msg_validate(&m, 0), EMU_E_INVAL);
    /* the same for every op kind */
    read_msg(&m, 8);
    m.dst = NR;
    BAD(&m);
    atomic_msg(&m, EMU_OP_ATOMIC, EMU_AOP_SUM, EMU_INT64, 1, 1);
    m.src = NR + 5;
    BAD(&m);
    am_msg(&m, 4, 4, 1);
    m.dst = NR;
    BAD(&m);
    base_msg(&m, EMU_OP_ACK);
    m.src = NR;
    BAD(&m);
}

static void test_rejects_bad_dlen_and_flags(void **state)
{
    (void)state;
    struct emu_msg m;
    /* dlen beyond the slot, whatever the rest says */
    write_inline(&m, EMU_INLINE_MAX);
    m.dlen = EMU_INLINE_MAX + 1;
    m.len = m.dlen;
    BAD(&m);
    m.dlen = m.len = 0xffff;
    BAD(&m);
    base_msg(&m, EMU_OP_MODULE);
    m.module = 1;
    m.dlen = EMU_INLINE_MAX + 1;
    BAD(&m);

    /* WRITE: inline needs dlen == len, by reference needs dlen == 0 */
    write_inline(&m, 10);
    m.len = 11;
    BAD(&m);
    m.len = 9;
    BAD(&m);
    m.len = 10 + (1ull << 32); /* a truncating compare would accept this */
    BAD(&m);
    write_ref(&m, 100);
    m.dlen = 100;
    BAD(&m);
    write_inline(&m, 0);
    m.len = 1;
    BAD(&m);

    /* READ carries no payload and is never inline */
    read_msg(&m, 8);
    m.flags |= EMU_F_INLINE;
    BAD(&m);
    read_msg(&m, 8);
    m.dlen = 8;
    BAD(&m);

    /* unknown flag bits, one at a time, on every kind of command */
    for (unsigned bit = 0; bit < 8; bit++) {
        uint8_t f = (uint8_t)(1u << bit);
        if (f & EMU_F_ALL_)
            continue;
        write_inline(&m, 8);
        m.flags |= f;
        BAD(&m);
        write_ref(&m, 1000);
        m.flags |= f;
        BAD(&m);
        read_msg(&m, 8);
        m.flags |= f;
        BAD(&m);
        atomic_msg(&m, EMU_OP_ATOMIC, EMU_AOP_SUM, EMU_INT32, 2, 1);
        m.flags |= f;
        BAD(&m);
        am_msg(&m, 4, 4, 1);
        m.flags |= f;
        BAD(&m);
        base_msg(&m, EMU_OP_MODULE);
        m.module = 1;
        m.flags = f;
        BAD(&m);
    }
    /* ACK carries EMU_DONE_* bits only */
    base_msg(&m, EMU_OP_ACK);
    m.flags = 0x08;
    BAD(&m);
    m.flags = 0x80;
    BAD(&m);
    /* a result carried back is whole and comes with a completion */
    m.flags = EMU_DONE_DATA;
    m.len = m.dlen = 8;
    BAD(&m);
    m.flags = EMU_DONE_LOCAL | EMU_DONE_DATA;
    m.dlen = 7;
    BAD(&m);
    m.len = 200;
    m.dlen = 0;
    BAD(&m);
}

static void test_rejects_bad_atomics(void **state)
{
    (void)state;
    struct emu_msg m;
    /* every invalid pair, and unknown aop / dtype values */
    for (unsigned aop = 0; aop < 256; aop++)
        for (unsigned dt = 0; dt < 256; dt++) {
            if (aop < EMU_AOP_COUNT_ && dt < EMU_DTYPE_COUNT_ &&
                emu_aop_valid(aop, dt))
                continue;
            base_msg(&m, (aop + dt) % 2 ? EMU_OP_ATOMIC : EMU_OP_FETCH_ATOMIC);
            m.aop = (uint8_t)aop;
            m.dtype = (uint8_t)dt;
            m.len = 8;
            BAD(&m);
        }
    /* length not a multiple of the element size */
    for (unsigned dt = 0; dt < EMU_DTYPE_COUNT_; dt++) {
        size_t es = emu_dtype_size(dt);
        if (es == 1)
            continue;
        atomic_msg(&m, EMU_OP_ATOMIC, EMU_AOP_SUM, dt, 2, 0);
        m.len += 1;
        BAD(&m);
        m.len = es - 1;
        BAD(&m);
        atomic_msg(&m, EMU_OP_FETCH_ATOMIC, EMU_AOP_SUM, dt, 1, 1);
        m.len = m.dlen = (uint16_t)(es + es / 2);
        BAD(&m);
    }
    /* zero length */
    atomic_msg(&m, EMU_OP_ATOMIC, EMU_AOP_SUM, EMU_DOUBLE, 0, 0);
    BAD(&m);
    /* swap family: exactly one element */
    for (unsigned aop = EMU_AOP_SWAP; aop <= EMU_AOP_MSWAP; aop++) {
        atomic_msg(&m, EMU_OP_FETCH_ATOMIC, aop, EMU_UINT64, 2, 0);
        BAD(&m);
        atomic_msg(&m, EMU_OP_ATOMIC, aop, EMU_UINT32, 2, 1);
        BAD(&m);
    }
    /* inline operand must be exactly len bytes */
    atomic_msg(&m, EMU_OP_ATOMIC, EMU_AOP_SUM, EMU_INT32, 4, 1);
    m.dlen = 12;
    BAD(&m);
    atomic_msg(&m, EMU_OP_ATOMIC, EMU_AOP_SUM, EMU_INT32, 4, 0);
    m.dlen = 16; /* payload present but not flagged inline */
    BAD(&m);
}

static void test_rejects_bad_am(void **state)
{
    (void)state;
    struct emu_msg m;
    /* header longer than what travelled inline */
    am_msg(&m, 8, 8, 1);
    m.hlen = 17;
    BAD(&m);
    am_msg(&m, 8, 1000, 0);
    m.hlen = 9;
    BAD(&m);
    am_msg(&m, 0, 0, 1);
    m.hlen = EMU_INLINE_MAX + 1;
    BAD(&m);
    m.hlen = UINT32_MAX;
    BAD(&m);
    /* inline AM: dlen == hlen + len exactly */
    am_msg(&m, 8, 8, 1);
    m.len = 9;
    BAD(&m);
    m.len = 7;
    BAD(&m);
    m.len = UINT64_MAX; /* hlen + len wraps */
    BAD(&m);
    /* long AM: only the header is inline */
    am_msg(&m, 8, 1000, 0);
    m.dlen = 20;
    BAD(&m);
}

static void test_rejects_other_kinds(void **state)
{
    (void)state;
    struct emu_msg m;
    base_msg(&m, EMU_OP_AM_ACCEPT);
    m.len = 64;
    m.dlen = 4;
    BAD(&m);
    base_msg(&m, EMU_OP_AM_ACCEPT);
    m.len = 64;
    m.flags = EMU_F_INLINE;
    BAD(&m);
    /* a module command must name its module (0 is "none") */
    base_msg(&m, EMU_OP_MODULE);
    m.module = 0;
    BAD(&m);
}

/* Deterministic garbage: validate must only ever answer OK or INVAL, and a
 * message it accepts must satisfy the structural invariants the NIC relies
 * on. */
static void test_garbage_invariants(void **state)
{
    (void)state;
    uint64_t s = 88172645463325252ull;
    struct emu_msg m;
    unsigned ok = 0;
    for (unsigned it = 0; it < 200000; it++) {
        unsigned char *b = (unsigned char *)&m;
        for (size_t i = 0; i < EMU_MSG_HDR_SIZE; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            b[i] = (unsigned char)s;
        }
        /* steer towards plausible values so some pass */
        m.op = (uint8_t)(m.op % 10);
        m.flags &= (it & 1) ? 0x1f : 0xff;
        m.aop = (uint8_t)(m.aop % 20);
        m.dtype = (uint8_t)(m.dtype % 16);
        m.src %= 10;
        m.dst %= 10;
        m.dlen %= 160;
        m.hlen %= 160;
        if (it & 2)
            m.len = m.dlen - (it & 4 ? m.hlen : 0);
        else if (it & 4)
            m.len %= 64;
        int v = emu_msg_validate(&m, NR);
        if (v != EMU_OK) {
            assert_int_equal(v, EMU_E_INVAL);
            continue;
        }
        ok++;
        assert_true(m.op < EMU_OP_COUNT_);
        assert_true(m.src < NR && m.dst < NR);
        assert_true(m.dlen <= EMU_INLINE_MAX);
        if (m.op != EMU_OP_ACK)
            assert_int_equal(m.flags & ~EMU_F_ALL_, 0);
        if (m.op == EMU_OP_WRITE && (m.flags & EMU_F_INLINE))
            assert_true(m.len == m.dlen);
        if (m.op == EMU_OP_ATOMIC || m.op == EMU_OP_FETCH_ATOMIC) {
            assert_true(emu_aop_valid(m.aop, m.dtype));
            assert_true(m.len > 0 && m.len % emu_dtype_size(m.dtype) == 0);
            if (emu_aop_is_swap(m.aop))
                assert_true(m.len == emu_dtype_size(m.dtype));
        }
        if (m.op == EMU_OP_AM)
            assert_true(m.hlen <= m.dlen);
    }
    assert_true(ok > 0);
}

static void test_names(void **state)
{
    (void)state;
    for (unsigned op = 0; op < EMU_OP_COUNT_; op++) {
        const char *n = emu_op_name(op);
        assert_non_null(n);
        assert_true(strlen(n) > 0);
        /* distinct names */
        for (unsigned o2 = 0; o2 < op; o2++)
            assert_string_not_equal(n, emu_op_name(o2));
    }
    assert_non_null(emu_op_name(EMU_OP_COUNT_));
    assert_non_null(emu_op_name(1000));
    const unsigned st[] = {EMU_OK, EMU_E_INVAL, EMU_E_ACCES, EMU_E_NOKEY,
                           EMU_E_FAULT, EMU_E_NOTSUP, EMU_E_DEAD, EMU_E_TRUNC,
                           EMU_E_LOST, EMU_E_NORESULT};
    for (unsigned i = 0; i < sizeof st / sizeof st[0]; i++) {
        const char *s = emu_status_str(st[i]);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        for (unsigned k = 0; k < i; k++)
            assert_string_not_equal(s, emu_status_str(st[k]));
    }
    assert_non_null(emu_status_str(200));
    /* the status codes are errno values, as documented */
    assert_int_equal(EMU_E_INVAL, 22);
    assert_int_equal(EMU_E_ACCES, 13);
    assert_int_equal(EMU_E_NOKEY, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts_well_formed),
        cmocka_unit_test(test_rejects_bad_op_and_ranks),
        cmocka_unit_test(test_rejects_bad_dlen_and_flags),
        cmocka_unit_test(test_rejects_bad_atomics),
        cmocka_unit_test(test_rejects_bad_am),
        cmocka_unit_test(test_rejects_other_kinds),
        cmocka_unit_test(test_garbage_invariants),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
