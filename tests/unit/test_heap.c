/* Unit tests of the registered-heap offset allocator (emunic/heap.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emunic/heap.h"

static void test_init_and_first_alloc(void **state)
{
    (void)state;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 1 << 20), 0);
    assert_int_equal(h.size, 1 << 20);
    assert_int_equal(h.in_use, 0);
    assert_int_equal(emu_heap_alloc(&h, 100, 1), 0); /* first fit: offset 0 */
    assert_int_equal(emu_heap_block_len(&h, 0), 100);
    assert_int_equal(h.in_use, 100);
    assert_int_equal(emu_heap_alloc(&h, 28, 1), 100);
    assert_int_equal(emu_heap_block_len(&h, 100), 28);
    assert_int_equal(h.in_use, 128);
    /* block_len only answers for the start of a live block */
    assert_int_equal(emu_heap_block_len(&h, 1), -1);
    assert_int_equal(emu_heap_block_len(&h, 128), -1);
    assert_int_equal(emu_heap_block_len(&h, 1 << 20), -1);
    assert_int_equal(emu_heap_block_len(&h, UINT64_MAX), -1);
    assert_int_equal(emu_heap_free(&h, 0), 100);
    assert_int_equal(emu_heap_block_len(&h, 0), -1);
    assert_int_equal(emu_heap_free(&h, 100), 28);
    assert_int_equal(h.in_use, 0);
    emu_heap_destroy(&h);
}

static void test_alignment(void **state)
{
    (void)state;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 1 << 20), 0);
    assert_int_equal(emu_heap_alloc(&h, 3, 1), 0);
    int64_t a8 = emu_heap_alloc(&h, 5, 8);
    assert_int_equal(a8, 8);
    int64_t a4k = emu_heap_alloc(&h, 10, 4096);
    assert_int_equal(a4k, 4096);
    int64_t a64 = emu_heap_alloc(&h, 1, 64);
    /* first fit: the gap left by the 4096 alignment is reused */
    assert_int_equal(a64, 64);
    int64_t a1 = emu_heap_alloc(&h, 1, 1);
    assert_int_equal(a1, 3);
    for (uint64_t al = 1; al <= (1u << 16); al <<= 1) {
        int64_t o = emu_heap_alloc(&h, 7, al);
        assert_true(o >= 0);
        assert_int_equal((uint64_t)o % al, 0);
        assert_int_equal(emu_heap_block_len(&h, (uint64_t)o), 7);
    }
    /* bad alignments */
    assert_int_equal(emu_heap_alloc(&h, 8, 0), -1);
    assert_int_equal(emu_heap_alloc(&h, 8, 3), -1);
    assert_int_equal(emu_heap_alloc(&h, 8, 48), -1);
    /* an alignment larger than the heap can only be met at offset 0, which
     * is taken */
    assert_int_equal(emu_heap_alloc(&h, 1, 1ull << 40), -1);
    assert_int_equal(emu_heap_alloc(&h, 1, 1ull << 63), -1);
    emu_heap_destroy(&h);
}

static void test_zero_length(void **state)
{
    (void)state;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 64), 0);
    int64_t a = emu_heap_alloc(&h, 0, 1), b = emu_heap_alloc(&h, 0, 1);
    assert_true(a >= 0 && b >= 0);
    assert_int_not_equal(a, b);
    assert_int_equal(emu_heap_block_len(&h, (uint64_t)a), 1);
    assert_int_equal(emu_heap_block_len(&h, (uint64_t)b), 1);
    assert_int_equal(h.in_use, 2);
    assert_int_equal(emu_heap_free(&h, (uint64_t)a), 1);
    assert_int_equal(emu_heap_free(&h, (uint64_t)b), 1);
    emu_heap_destroy(&h);
}

static void test_first_fit_reuse(void **state)
{
    (void)state;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 10000), 0);
    int64_t a = emu_heap_alloc(&h, 100, 1);
    int64_t b = emu_heap_alloc(&h, 200, 1);
    int64_t c = emu_heap_alloc(&h, 300, 1);
    int64_t d = emu_heap_alloc(&h, 400, 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 100);
    assert_int_equal(c, 300);
    assert_int_equal(d, 600);
    assert_int_equal(emu_heap_free(&h, (uint64_t)b), 200);
    assert_int_equal(emu_heap_free(&h, (uint64_t)d), 400);
    /* lowest hole that fits, not the best fit */
    assert_int_equal(emu_heap_alloc(&h, 50, 1), 100);
    assert_int_equal(emu_heap_alloc(&h, 150, 1), 150);
    /* hole at 100 now full; next fit is where d was */
    assert_int_equal(emu_heap_alloc(&h, 10, 1), 600);
    /* too big for any hole before the tail */
    assert_int_equal(emu_heap_alloc(&h, 1000, 1), 610);
    emu_heap_destroy(&h);
}

/* Fill the heap with n equal blocks, free them in the given order, then
 * the whole heap must be one block again. */
static void fill_free_whole(const unsigned *order, unsigned n)
{
    const uint64_t bs = 256;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, bs * n), 0);
    int64_t off[16];
    for (unsigned i = 0; i < n; i++) {
        off[i] = emu_heap_alloc(&h, bs, 1);
        assert_int_equal(off[i], (int64_t)(i * bs));
    }
    assert_int_equal(emu_heap_alloc(&h, 1, 1), -1);
    assert_int_equal(h.in_use, bs * n);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(emu_heap_free(&h, (uint64_t)off[order[i]]), (int64_t)bs);
        /* while something is still live the whole size cannot fit */
        if (i + 1 < n)
            assert_int_equal(emu_heap_alloc(&h, bs * n, 1), -1);
    }
    assert_int_equal(h.in_use, 0);
    assert_int_equal(emu_heap_alloc(&h, bs * n, 1), 0);
    assert_int_equal(emu_heap_block_len(&h, 0), (int64_t)(bs * n));
    assert_int_equal(emu_heap_free(&h, 0), (int64_t)(bs * n));
    emu_heap_destroy(&h);
}

static void test_coalescing(void **state)
{
    (void)state;
    static const unsigned fwd[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const unsigned back[] = {7, 6, 5, 4, 3, 2, 1, 0};
    static const unsigned odd_even[] = {1, 3, 5, 7, 0, 2, 4, 6};
    static const unsigned middle_out[] = {3, 4, 2, 5, 1, 6, 0, 7};
    static const unsigned edges_in[] = {0, 7, 1, 6, 2, 5, 3, 4};
    static const unsigned mix[] = {5, 0, 6, 2, 7, 1, 4, 3};
    fill_free_whole(fwd, 8);
    fill_free_whole(back, 8);
    fill_free_whole(odd_even, 8);
    fill_free_whole(middle_out, 8);
    fill_free_whole(edges_in, 8);
    fill_free_whole(mix, 8);
    /* every permutation of 5 blocks */
    unsigned p[5] = {0, 1, 2, 3, 4}, c[5] = {0};
    fill_free_whole(p, 5);
    for (unsigned i = 1; i < 5;) { /* Heap's algorithm */
        if (c[i] < i) {
            unsigned j = (i % 2) ? c[i] : 0, t = p[j];
            p[j] = p[i];
            p[i] = t;
            fill_free_whole(p, 5);
            c[i]++;
            i = 1;
        } else {
            c[i] = 0;
            i++;
        }
    }
    /* holes left by alignment padding coalesce too */
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 8192), 0);
    int64_t a = emu_heap_alloc(&h, 10, 1);
    int64_t b = emu_heap_alloc(&h, 10, 4096);
    assert_int_equal(b, 4096);
    assert_int_equal(emu_heap_free(&h, (uint64_t)b), 10);
    assert_int_equal(emu_heap_free(&h, (uint64_t)a), 10);
    assert_int_equal(emu_heap_alloc(&h, 8192, 1), 0);
    emu_heap_destroy(&h);
}

static void test_exhaustion(void **state)
{
    (void)state;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 4096), 0);
    assert_int_equal(emu_heap_alloc(&h, 4097, 1), -1);
    assert_int_equal(emu_heap_alloc(&h, UINT64_MAX, 1), -1);
    assert_int_equal(emu_heap_alloc(&h, UINT64_MAX - 10, 4096), -1);
    assert_int_equal(h.in_use, 0);
    assert_int_equal(emu_heap_alloc(&h, 4096, 1), 0);
    assert_int_equal(emu_heap_alloc(&h, 1, 1), -1);
    assert_int_equal(emu_heap_alloc(&h, 0, 1), -1);
    assert_int_equal(emu_heap_free(&h, 0), 4096);
    /* 4000 fits, then 96 bytes remain */
    assert_int_equal(emu_heap_alloc(&h, 4000, 1), 0);
    assert_int_equal(emu_heap_alloc(&h, 97, 1), -1);
    assert_int_equal(emu_heap_alloc(&h, 96, 1), 4000);
    assert_int_equal(emu_heap_alloc(&h, 1, 1), -1);
    emu_heap_destroy(&h);

    /* remaining bytes exist but alignment cannot be met */
    assert_int_equal(emu_heap_init(&h, 8192), 0);
    assert_int_equal(emu_heap_alloc(&h, 1, 1), 0);
    assert_int_equal(emu_heap_alloc(&h, 4096, 4096), 4096);
    assert_int_equal(emu_heap_alloc(&h, 4000, 4096), -1);
    assert_int_equal(emu_heap_alloc(&h, 4000, 1), 1);
    emu_heap_destroy(&h);
}

static void test_bad_free(void **state)
{
    (void)state;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, 4096), 0);
    int64_t a = emu_heap_alloc(&h, 64, 1), b = emu_heap_alloc(&h, 64, 1);
    assert_int_equal(a, 0);
    assert_int_equal(b, 64);
    /* wild offsets: inside a block, in free space, past the end */
    assert_int_equal(emu_heap_free(&h, 1), -1);
    assert_int_equal(emu_heap_free(&h, 63), -1);
    assert_int_equal(emu_heap_free(&h, 128), -1);
    assert_int_equal(emu_heap_free(&h, 1000), -1);
    assert_int_equal(emu_heap_free(&h, 4096), -1);
    assert_int_equal(emu_heap_free(&h, UINT64_MAX), -1);
    assert_int_equal(h.in_use, 128);
    /* double free */
    assert_int_equal(emu_heap_free(&h, 0), 64);
    assert_int_equal(emu_heap_free(&h, 0), -1);
    assert_int_equal(h.in_use, 64);
    /* the free block at 0 was not disturbed by the failed frees */
    assert_int_equal(emu_heap_free(&h, 64), 64);
    assert_int_equal(emu_heap_free(&h, 64), -1);
    assert_int_equal(h.in_use, 0);
    assert_int_equal(emu_heap_alloc(&h, 4096, 1), 0);
    emu_heap_destroy(&h);

    /* a heap of size 0 has nothing to give */
    assert_int_equal(emu_heap_init(&h, 0), 0);
    assert_int_equal(emu_heap_alloc(&h, 0, 1), -1);
    assert_int_equal(emu_heap_alloc(&h, 1, 1), -1);
    assert_int_equal(emu_heap_free(&h, 0), -1);
    emu_heap_destroy(&h);

    /* an empty heap */
    assert_int_equal(emu_heap_init(&h, 4096), 0);
    assert_int_equal(emu_heap_free(&h, 0), -1);
    assert_int_equal(emu_heap_block_len(&h, 0), -1);
    emu_heap_destroy(&h);
}

/* ------------------------------------------------------------------ */
/* random stress against a shadow model                                */

struct live {
    uint64_t off, len;
};

static int by_off(const void *a, const void *b)
{
    const struct live *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* First-fit prediction from the live set alone: the lowest gap in which an
 * aligned block of len fits. */
static int64_t predict(struct live *lv, unsigned n, uint64_t size,
                       uint64_t len, uint64_t align)
{
    if (len == 0)
        len = 1;
    qsort(lv, n, sizeof *lv, by_off);
    uint64_t gap_start = 0;
    for (unsigned i = 0; i <= n; i++) {
        uint64_t gap_end = i < n ? lv[i].off : size;
        uint64_t s = (gap_start + align - 1) & ~(align - 1);
        if (s >= gap_start && s <= gap_end && gap_end - s >= len)
            return (int64_t)s;
        if (i < n)
            gap_start = lv[i].off + lv[i].len;
    }
    return -1;
}

static void test_random_stress(void **state)
{
    (void)state;
    const uint64_t size = 1 << 20;
    struct emu_heap h;
    assert_int_equal(emu_heap_init(&h, size), 0);
    enum { MAXLIVE = 400 };
    struct live lv[MAXLIVE];
    unsigned n = 0;
    uint64_t s = 0x2545f4914f6cdd1dull, used = 0;
    unsigned allocs = 0, fails = 0;
    for (unsigned it = 0; it < 60000; it++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        int do_alloc = n == 0 || (n < MAXLIVE && (s % 100) < 55);
        if (do_alloc) {
            uint64_t len = (s >> 8) % ((s >> 40) % 4 == 0 ? 20000 : 300);
            uint64_t align = 1ull << ((s >> 20) % 13);
            int64_t want = predict(lv, n, size, len, align);
            int64_t o = emu_heap_alloc(&h, len, align);
            if (o != want)
                fail_msg("alloc(%llu, %llu) = %lld, first fit gives %lld",
                         (unsigned long long)len, (unsigned long long)align,
                         (long long)o, (long long)want);
            if (o < 0) {
                fails++;
                continue;
            }
            uint64_t l = len ? len : 1;
            assert_int_equal((uint64_t)o % align, 0);
            assert_true((uint64_t)o + l <= size);
            for (unsigned i = 0; i < n; i++) /* no overlap */
                assert_true((uint64_t)o + l <= lv[i].off ||
                            lv[i].off + lv[i].len <= (uint64_t)o);
            assert_int_equal(emu_heap_block_len(&h, (uint64_t)o), (int64_t)l);
            lv[n].off = (uint64_t)o;
            lv[n].len = l;
            n++;
            used += l;
            allocs++;
        } else {
            unsigned k = (unsigned)((s >> 16) % n);
            assert_int_equal(emu_heap_free(&h, lv[k].off), (int64_t)lv[k].len);
            assert_int_equal(emu_heap_free(&h, lv[k].off), -1);
            used -= lv[k].len;
            lv[k] = lv[--n];
        }
        assert_int_equal(h.in_use, used);
    }
    assert_true(allocs > 1000);
    assert_true(fails > 0); /* the big requests do run the heap dry */
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(emu_heap_free(&h, lv[i].off), (int64_t)lv[i].len);
    assert_int_equal(h.in_use, 0);
    assert_int_equal(emu_heap_alloc(&h, size, 1), 0);
    emu_heap_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_and_first_alloc),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_zero_length),
        cmocka_unit_test(test_first_fit_reuse),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_exhaustion),
        cmocka_unit_test(test_bad_free),
        cmocka_unit_test(test_random_stress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
