/* CMocka: the pure parts of the Portals personality. The packing of
 * operation fields into a message, the Portals -> core datatype map (the
 * two orders differ), and handle encoding (kind, generation, index). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../emunic/portals/lib/state.h"
#include "emunic/atomic_op.h"

static void test_pack_roundtrip(void **state)
{
    (void)state;
    for (uint32_t pt = 0; pt < PTLX_MAX_PT; pt += 7)
        for (uint32_t ni = 0; ni < PTLX_MAX_NI; ni++)
            for (uint32_t ack = 0; ack <= PTL_OC_ACK_REQ; ack++)
                for (uint32_t op = 0; op < PTL_OP_LAST; op += 5)
                    for (uint32_t ty = 0; ty < PTL_DATATYPE_LAST; ty += 3) {
                        uint32_t h = ptlx_pack(pt, ni, ack, op, ty);
                        assert_int_equal(ptlx_pt(h), pt);
                        assert_int_equal(ptlx_ni(h), ni);
                        assert_int_equal(ptlx_ack(h), ack);
                        assert_int_equal(ptlx_op(h), op);
                        assert_int_equal(ptlx_type(h), ty);
                    }
}

static void test_dtype_map(void **state)
{
    (void)state;
    static const struct {
        unsigned ptl;
        unsigned emu;
        size_t size;
    } want[] = {
        {PTL_INT8_T, EMU_INT8, 1},        {PTL_UINT8_T, EMU_UINT8, 1},
        {PTL_INT16_T, EMU_INT16, 2},      {PTL_UINT16_T, EMU_UINT16, 2},
        {PTL_INT32_T, EMU_INT32, 4},      {PTL_UINT32_T, EMU_UINT32, 4},
        {PTL_FLOAT, EMU_FLOAT, 4},        {PTL_INT64_T, EMU_INT64, 8},
        {PTL_UINT64_T, EMU_UINT64, 8},    {PTL_DOUBLE, EMU_DOUBLE, 8},
        {PTL_FLOAT_COMPLEX, EMU_FLOAT_COMPLEX, 8},
        {PTL_DOUBLE_COMPLEX, EMU_DOUBLE_COMPLEX, 16},
        {PTL_LONG_DOUBLE, EMU_LONG_DOUBLE, sizeof(long double)},
        {PTL_LONG_DOUBLE_COMPLEX, EMU_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex)},
    };
    assert_int_equal(sizeof want / sizeof want[0], PTL_DATATYPE_LAST);
    for (size_t i = 0; i < PTL_DATATYPE_LAST; i++) {
        assert_int_equal(ptlx_dtype(want[i].ptl), (int)want[i].emu);
        assert_int_equal(emu_dtype_size(want[i].emu), want[i].size);
    }
    assert_int_equal(ptlx_dtype(PTL_DATATYPE_LAST), -1);
    assert_int_equal(ptlx_dtype(255), -1);
    /* the op enums are the same order */
    assert_int_equal(PTL_MIN, EMU_AOP_MIN);
    assert_int_equal(PTL_BXOR, EMU_AOP_BXOR);
    assert_int_equal(PTL_MSWAP, EMU_AOP_MSWAP);
    assert_int_equal(PTL_OP_LAST, EMU_AOP_COUNT_);
}

static void test_handles(void **state)
{
    (void)state;
    /* never one of the API's special values, whatever kind/gen/index */
    const enum pl_kind kinds[] = {PL_NI, PL_EQ, PL_CT, PL_MD, PL_LE, PL_ME};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (uint32_t gen = 1; gen <= 0xffe; gen += 0xffd / 3)
            for (uint32_t idx = 0; idx <= 0xffff; idx += 0x5555) {
                uint32_t h = pl_handle(kinds[k], gen, idx);
                assert_true(h != PTL_EQ_NONE && h != PTL_CT_NONE && h != PTL_INVALID_HANDLE && h != 0);
                assert_int_equal(h >> 28, kinds[k]);
                assert_int_equal((h >> 16) & 0xfff, gen);
                assert_int_equal(h & 0xffff, idx);
            }
    /* generations cycle through 1..0xffe */
    assert_int_equal(pl_next_gen(0), 1);
    assert_int_equal(pl_next_gen(1), 2);
    assert_int_equal(pl_next_gen(0xffe), 1);
    /* without PtlInit nothing is live: every lookup refuses */
    assert_int_equal(pl_ni_of(pl_handle(PL_NI, 1, 0)), -1);
    assert_int_equal(pl_md_of(pl_handle(PL_MD, 1, 0)), -1);
    assert_int_equal(pl_eq_of(PTL_EQ_NONE), -1);
    assert_int_equal(pl_ct_of(PTL_CT_NONE), -1);
    assert_int_equal(pl_le_of(PTL_INVALID_HANDLE), -1);
    assert_int_equal(pl_me_of(0), -1);
}

static void test_outside_a_job(void **state)
{
    (void)state;
    ptl_handle_ni_t ni;
    /* no emunic-run: PtlInit refuses, and the rest says "not initialised" */
    unsetenv("EMUNIC_JOBID");
    assert_int_equal(PtlInit(), PTL_FAIL);
    assert_int_equal(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni),
                     PTL_NO_INIT);
    assert_int_equal(PtlAtomicSync(), PTL_NO_INIT);
    assert_true(PtlHandleIsEqual(PTL_INVALID_HANDLE, PTL_INVALID_HANDLE));
    assert_false(PtlHandleIsEqual(PTL_EQ_NONE, PTL_CT_NONE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_roundtrip),
        cmocka_unit_test(test_dtype_map),
        cmocka_unit_test(test_handles),
        cmocka_unit_test(test_outside_a_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
