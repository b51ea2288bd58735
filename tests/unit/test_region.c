/* Unit tests of the exposed-region table (emunic/region.h): keys with
 * generations, bounds and permission checks as the NIC applies them. The
 * table is a heap array of exactly EMU_MAX_REGIONS entries so an ASan build
 * catches any index that escapes it. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emunic/msg.h"
#include "emunic/region.h"

#define IDX_MASK ((1u << EMU_REGION_IDX_BITS) - 1)

static int setup(void **state)
{
    struct emu_region *tab = calloc(EMU_MAX_REGIONS, sizeof *tab);
    if (!tab)
        return -1;
    *state = tab;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void test_layout_constants(void **state)
{
    (void)state;
    assert_int_equal(1u << EMU_REGION_IDX_BITS, EMU_MAX_REGIONS);
    assert_int_equal(EMU_KEY_HEAP & IDX_MASK, 0);
    assert_int_equal(EMU_PERM_ALL, EMU_PERM_READ | EMU_PERM_WRITE | EMU_PERM_ATOMIC);
}

static void test_publish_check_bounds(void **state)
{
    struct emu_region *tab = *state;
    const uint64_t base = 0x7f0000001000ull, len = 4096;
    uint32_t k = emu_region_publish(tab, 5, base, len, EMU_PERM_ALL);
    assert_int_not_equal(k, 0);
    /* the key names the slot in its low bits */
    assert_int_equal(k & IDX_MASK, 5);
    assert_int_equal(tab[5].base, base);
    assert_int_equal(tab[5].len, len);
    assert_int_equal(tab[5].perm, EMU_PERM_ALL);
    assert_int_equal(atomic_load(&tab[5].gen) & 1, 1);

    /* in bounds */
    assert_int_equal(emu_region_check(tab, k, base, len, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, base, 1, EMU_PERM_WRITE), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, base + len - 1, 1, EMU_PERM_ATOMIC), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, base + 100, 200, EMU_PERM_ALL), EMU_OK);
    /* one byte past the end, from several starts */
    assert_int_equal(emu_region_check(tab, k, base, len + 1, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base + len - 1, 2, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base + len, 1, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base + 1, len, EMU_PERM_READ), EMU_E_ACCES);
    /* one byte before the start */
    assert_int_equal(emu_region_check(tab, k, base - 1, 1, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base - 1, 2, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, 0, 1, EMU_PERM_READ), EMU_E_ACCES);
    /* len 0: anywhere inside or at the end, not outside */
    assert_int_equal(emu_region_check(tab, k, base, 0, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, base + 7, 0, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, base + len, 0, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, base + len + 1, 0, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base - 1, 0, EMU_PERM_READ), EMU_E_ACCES);
    /* addr + len wraps past 2^64 and lands below the end */
    assert_int_equal(emu_region_check(tab, k, base + 16, UINT64_MAX - 8, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base + 16, UINT64_MAX, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, UINT64_MAX, 2, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, base, (uint64_t)0 - base + 16, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, UINT64_MAX, 0, EMU_PERM_READ), EMU_E_ACCES);

    /* region ending exactly at 2^64 */
    uint32_t top = emu_region_publish(tab, 6, UINT64_MAX - 99, 100, EMU_PERM_READ);
    assert_int_not_equal(top, 0);
    assert_int_equal(emu_region_check(tab, top, UINT64_MAX - 99, 100, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, top, UINT64_MAX, 1, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, top, UINT64_MAX - 99, 101, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, top, UINT64_MAX, 2, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, top, 0, 1, EMU_PERM_READ), EMU_E_ACCES);

    /* a zero-length region admits only zero-length accesses at its base */
    uint32_t z = emu_region_publish(tab, 7, 0x5000, 0, EMU_PERM_ALL);
    assert_int_not_equal(z, 0);
    assert_int_equal(emu_region_check(tab, z, 0x5000, 0, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, z, 0x5000, 1, EMU_PERM_READ), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, z, 0x4fff, 1, EMU_PERM_READ), EMU_E_ACCES);
}

static void test_permissions(void **state)
{
    struct emu_region *tab = *state;
    const uint64_t base = 0x10000, len = 0x100;
    for (uint32_t perm = 0; perm <= EMU_PERM_ALL; perm++) {
        uint32_t k = emu_region_publish(tab, 10 + perm, base, len, perm);
        assert_int_not_equal(k, 0);
        for (uint32_t need = 0; need <= EMU_PERM_ALL; need++) {
            int want = (perm & need) == need ? EMU_OK : EMU_E_ACCES;
            assert_int_equal(emu_region_check(tab, k, base, len, need), want);
            assert_int_equal(emu_region_check(tab, k, base + 1, 0, need), want);
        }
        /* bounds are still checked when permissions pass */
        assert_int_equal(emu_region_check(tab, k, base, len + 1, 0), EMU_E_ACCES);
    }
}

static void test_retract_and_stale_keys(void **state)
{
    struct emu_region *tab = *state;
    uint32_t k1 = emu_region_publish(tab, 3, 0x1000, 0x1000, EMU_PERM_ALL);
    assert_int_not_equal(k1, 0);
    assert_int_equal(emu_region_check(tab, k1, 0x1000, 8, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_retract(tab, k1), 0);
    assert_int_equal(atomic_load(&tab[k1 & IDX_MASK].gen) & 1, 0);
    /* stale key */
    assert_int_equal(emu_region_check(tab, k1, 0x1000, 8, EMU_PERM_READ), EMU_E_NOKEY);
    assert_int_equal(emu_region_check(tab, k1, 0x1000, 0, 0), EMU_E_NOKEY);
    /* retracting twice fails */
    assert_int_equal(emu_region_retract(tab, k1), -1);

    /* the slot is reused with a different key; the old key stays dead even
     * though the new region covers the same bytes */
    uint32_t k2 = emu_region_publish(tab, 3, 0x1000, 0x1000, EMU_PERM_ALL);
    assert_int_not_equal(k2, 0);
    assert_int_equal(k2 & IDX_MASK, k1 & IDX_MASK);
    assert_int_not_equal(k2, k1);
    assert_int_equal(emu_region_check(tab, k2, 0x1000, 8, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, k1, 0x1000, 8, EMU_PERM_READ), EMU_E_NOKEY);
    assert_int_equal(emu_region_retract(tab, k1), -1);
    assert_int_equal(emu_region_check(tab, k2, 0x1000, 8, EMU_PERM_READ), EMU_OK);

    /* many cycles on one slot: every key is fresh */
    uint32_t seen[64];
    for (unsigned i = 0; i < 64; i++) {
        assert_int_equal(emu_region_retract(tab, k2), 0);
        k2 = emu_region_publish(tab, 3, 0x1000 + i, 16, EMU_PERM_READ);
        assert_int_not_equal(k2, 0);
        seen[i] = k2;
        for (unsigned j = 0; j < i; j++)
            assert_int_not_equal(seen[j], k2);
        assert_int_equal(emu_region_check(tab, k2, 0x1000 + i, 16, EMU_PERM_READ), EMU_OK);
        if (i)
            assert_int_equal(emu_region_check(tab, seen[i - 1], 0x1000 + i, 16,
                                              EMU_PERM_READ), EMU_E_NOKEY);
    }
}

static void test_bogus_keys(void **state)
{
    struct emu_region *tab = *state;
    uint32_t k = emu_region_publish(tab, 9, 0x1000, 0x1000, EMU_PERM_ALL);
    assert_int_not_equal(k, 0);
    uint32_t idx = k & IDX_MASK, gen = k >> EMU_REGION_IDX_BITS;
    /* key 0 (the "full" answer) is never live */
    assert_int_equal(emu_region_check(tab, 0, 0x1000, 1, 0), EMU_E_NOKEY);
    assert_int_equal(emu_region_retract(tab, 0), -1);
    /* never-published slots, with any generation */
    for (uint32_t g = 0; g < 8; g++) {
        uint32_t bogus = (g << EMU_REGION_IDX_BITS) | 100;
        assert_int_equal(emu_region_check(tab, bogus, 0x1000, 1, 0), EMU_E_NOKEY);
        assert_int_equal(emu_region_retract(tab, bogus), -1);
    }
    /* right slot, wrong generation (even and odd) */
    for (uint32_t d = 1; d < 6; d++) {
        uint32_t bogus = ((gen + d) << EMU_REGION_IDX_BITS) | idx;
        assert_int_equal(emu_region_check(tab, bogus, 0x1000, 1, 0), EMU_E_NOKEY);
        assert_int_equal(emu_region_retract(tab, bogus), -1);
    }
    /* right generation, other slots */
    for (uint32_t i = 0; i < EMU_MAX_REGIONS; i++) {
        if (i == idx)
            continue;
        uint32_t bogus = (gen << EMU_REGION_IDX_BITS) | i;
        assert_int_equal(emu_region_check(tab, bogus, 0x1000, 1, 0), EMU_E_NOKEY);
    }
    /* every index bit pattern, including the top one: the index field is
     * EMU_REGION_IDX_BITS wide and the table has exactly 2^bits entries, so
     * no key can index past it (ASan would catch it here) */
    for (uint32_t hi = 0; hi < 4; hi++) {
        uint32_t bogus = 0xffffffffu - hi * 0x1234567u;
        int rc = emu_region_check(tab, bogus, 0x1000, 1, 0);
        assert_true(rc == EMU_E_NOKEY);
        assert_int_equal(emu_region_retract(tab, bogus), -1);
    }
    /* still fine */
    assert_int_equal(emu_region_check(tab, k, 0x1000, 1, 0), EMU_OK);
}

static void test_full_table(void **state)
{
    struct emu_region *tab = *state;
    uint32_t *keys = calloc(EMU_MAX_REGIONS + 1, sizeof *keys);
    assert_non_null(keys);
    unsigned n = 0;
    for (; n <= EMU_MAX_REGIONS; n++) {
        uint32_t k = emu_region_publish(tab, n * 37u, 0x100000ull * (n + 1), 64, EMU_PERM_READ);
        if (k == 0)
            break;
        keys[n] = k;
    }
    /* every slot, slot 0 included, holds one region; then 0 */
    assert_int_equal(n, EMU_MAX_REGIONS);
    assert_int_equal(emu_region_publish(tab, 0, 0, 1, EMU_PERM_READ), 0);
    assert_int_equal(emu_region_publish(tab, 511, 0, 1, EMU_PERM_READ), 0);
    /* distinct slots, each checking against its own bounds */
    unsigned char used[EMU_MAX_REGIONS] = {0};
    for (unsigned i = 0; i < n; i++) {
        uint32_t idx = keys[i] & IDX_MASK;
        assert_int_equal(used[idx], 0);
        used[idx] = 1;
        uint64_t b = 0x100000ull * (i + 1);
        assert_int_equal(emu_region_check(tab, keys[i], b, 64, EMU_PERM_READ), EMU_OK);
        assert_int_equal(emu_region_check(tab, keys[i], b + 64, 1, EMU_PERM_READ), EMU_E_ACCES);
    }
    /* one retract frees one slot, whatever the hint (even one past the
     * table) */
    assert_int_equal(emu_region_retract(tab, keys[200]), 0);
    uint32_t k = emu_region_publish(tab, 100000, 0xabc000, 16, EMU_PERM_WRITE);
    assert_int_not_equal(k, 0);
    assert_int_equal(k & IDX_MASK, keys[200] & IDX_MASK);
    assert_int_equal(emu_region_check(tab, k, 0xabc000, 16, EMU_PERM_WRITE), EMU_OK);
    assert_int_not_equal(k, keys[200]);
    assert_int_equal(emu_region_publish(tab, 3, 0, 1, EMU_PERM_READ), 0);
    assert_int_equal(emu_region_publish(tab, UINT32_MAX, 0, 1, EMU_PERM_READ), 0);
    free(keys);
}

static void test_hint_out_of_range(void **state)
{
    struct emu_region *tab = *state;
    const uint32_t hints[] = {EMU_MAX_REGIONS, EMU_MAX_REGIONS + 7, 1u << 20, UINT32_MAX};
    for (unsigned i = 0; i < 4; i++) {
        uint32_t k = emu_region_publish(tab, hints[i], 0x1000 * (i + 1), 8, EMU_PERM_READ);
        assert_int_not_equal(k, 0);
        assert_true((k & IDX_MASK) < EMU_MAX_REGIONS);
        assert_int_equal(tab[k & IDX_MASK].base, 0x1000 * (i + 1));
        assert_int_equal(emu_region_check(tab, k, 0x1000 * (i + 1), 8, EMU_PERM_READ), EMU_OK);
    }
}

static void test_whole_address_space(void **state)
{
    struct emu_region *tab = *state;
    uint32_t k = emu_region_publish(tab, 1, 0, UINT64_MAX, EMU_PERM_ALL);
    assert_int_not_equal(k, 0);
    const uint64_t addrs[] = {0, 1, 4096, 0x7ffe12345678ull, 0x8000000000000000ull,
                              UINT64_MAX - 4096, UINT64_MAX - 1};
    for (unsigned i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
        assert_int_equal(emu_region_check(tab, k, addrs[i], 1, EMU_PERM_ALL), EMU_OK);
        assert_int_equal(emu_region_check(tab, k, addrs[i], 0, EMU_PERM_ALL), EMU_OK);
    }
    assert_int_equal(emu_region_check(tab, k, 0, UINT64_MAX, EMU_PERM_ALL), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, 4096, 1ull << 40, EMU_PERM_ALL), EMU_OK);
    assert_int_equal(emu_region_check(tab, k, UINT64_MAX, 0, EMU_PERM_ALL), EMU_OK);
    /* the region is [0, 2^64-1): its last byte is 2^64-2 */
    assert_int_equal(emu_region_check(tab, k, UINT64_MAX, 1, EMU_PERM_ALL), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, 1, UINT64_MAX, EMU_PERM_ALL), EMU_E_ACCES);
    assert_int_equal(emu_region_check(tab, k, UINT64_MAX - 1, 2, EMU_PERM_ALL), EMU_E_ACCES);
    /* read-only variant still enforces permissions */
    uint32_t ro = emu_region_publish(tab, 2, 0, UINT64_MAX, EMU_PERM_READ);
    assert_int_equal(emu_region_check(tab, ro, 0x1234, 8, EMU_PERM_READ), EMU_OK);
    assert_int_equal(emu_region_check(tab, ro, 0x1234, 8, EMU_PERM_WRITE), EMU_E_ACCES);
}

static void test_heap_key(void **state)
{
    struct emu_region *tab = *state;
    /* a fresh (zeroed) table: the heap goes into slot 0 and gets the
     * well-known key every peer uses without asking */
    uint32_t k = emu_region_publish(tab, 0, 0x7f1000000000ull, 1 << 20, EMU_PERM_ALL);
    assert_int_equal(k, EMU_KEY_HEAP);
    assert_int_equal(emu_region_check(tab, EMU_KEY_HEAP, 0x7f1000000000ull, 1 << 20,
                                      EMU_PERM_ALL), EMU_OK);
    assert_int_equal(emu_region_check(tab, EMU_KEY_HEAP, 0x7f1000000000ull + (1 << 20), 1,
                                      EMU_PERM_READ), EMU_E_ACCES);
    /* other publications never take slot 0 while the heap is there */
    for (unsigned i = 0; i < 20; i++) {
        uint32_t o = emu_region_publish(tab, i * 100, 0x1000 * i, 16, EMU_PERM_READ);
        assert_int_not_equal(o, 0);
        assert_int_not_equal(o & IDX_MASK, 0);
    }
    assert_int_equal(emu_region_check(tab, EMU_KEY_HEAP, 0x7f1000000000ull, 8,
                                      EMU_PERM_WRITE), EMU_OK);
    /* once retracted, the heap key is dead like any other */
    assert_int_equal(emu_region_retract(tab, EMU_KEY_HEAP), 0);
    assert_int_equal(emu_region_check(tab, EMU_KEY_HEAP, 0x7f1000000000ull, 8,
                                      EMU_PERM_READ), EMU_E_NOKEY);
}

/* The NIC reads entries while the owner rewrites them: a check with the
 * key of region A must never pass for an address that only region B (which
 * reused the slot) covers. */
struct race {
    struct emu_region *tab;
    _Atomic uint32_t key_a;
    _Atomic int stop;
    unsigned long bad, checks;
};

static void *checker(void *p)
{
    struct race *r = p;
    while (!atomic_load(&r->stop)) {
        uint32_t ka = atomic_load(&r->key_a);
        /* A = [0x1000, 0x2000) read-only; B = [0x900000, 0x900100) rw */
        int in_b = emu_region_check(r->tab, ka, 0x900000, 0x100, EMU_PERM_READ);
        int wr_b = emu_region_check(r->tab, ka, 0x900010, 8, EMU_PERM_WRITE);
        int in_a = emu_region_check(r->tab, ka, 0x1000, 0x1000, EMU_PERM_READ);
        if (in_b == EMU_OK || wr_b == EMU_OK)
            r->bad++;
        if (in_a != EMU_OK && in_a != EMU_E_NOKEY)
            r->bad++;
        r->checks++;
        if ((r->checks & 63) == 0)
            sched_yield();
    }
    return NULL;
}

static void test_concurrent_republish(void **state)
{
    struct emu_region *tab = *state;
    struct race r = {.tab = tab};
    uint32_t ka = emu_region_publish(tab, 42, 0x1000, 0x1000, EMU_PERM_READ);
    assert_int_not_equal(ka, 0);
    atomic_store(&r.key_a, ka);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, checker, &r), 0);
    for (unsigned i = 0; i < 100000; i++) {
        assert_int_equal(emu_region_retract(tab, ka), 0);
        uint32_t kb = emu_region_publish(tab, 42, 0x900000, 0x100, EMU_PERM_ALL);
        assert_int_equal(kb & IDX_MASK, 42);
        assert_int_equal(emu_region_retract(tab, kb), 0);
        ka = emu_region_publish(tab, 42, 0x1000, 0x1000, EMU_PERM_READ);
        assert_int_equal(ka & IDX_MASK, 42);
        if (i % 16 == 0)
            atomic_store(&r.key_a, ka);
        if (i % 256 == 0)
            sched_yield();
    }
    atomic_store(&r.stop, 1);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(r.bad, 0);
    assert_true(r.checks > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_constants),
        cmocka_unit_test_setup_teardown(test_publish_check_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_permissions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retract_and_stale_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bogus_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hint_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_address_space, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heap_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_republish, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
