/* The node arenas of the daemons' object (nicd/shared_heap.c): blocks are
 * zeroed, disjoint and reused by size class, a full arena says NULL, a
 * pointer it did not hand out (or one freed twice) changes nothing, and
 * a second mapping that cannot sit at the shared address shares no
 * state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "emunic/job.h"
#include "emunic/shared_heap.h"

void shared_heap_open(const struct emu_job *j, uint32_t node); /* nicd/nic.h */

static struct emu_job j;
static int wfd = -1;
static char *a0, *a1; /* the two nodes' arenas */

static int setup(void **state)
{
    (void)state;
    char id[EMU_JOBID_MAX];
    emu_jobid_new(id, sizeof id);
    struct emu_job_params p;
    emu_job_params_default(&p);
    p.nnodes = 2;
    p.ranks_per_node = 1;
    if (emu_job_create(&j, id, &p, NULL) != 0 || (wfd = emu_job_wire_create(&j)) < 0)
        return -1;
    a0 = emu_job_arena(&j, 0);
    a1 = emu_job_arena(&j, 1);
    shared_heap_open(&j, 0); /* node 1's daemon never formats its arena */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    emu_job_detach(&j);
    if (wfd >= 0)
        close(wfd);
    return 0;
}

static int in0(const void *p, size_t n)
{
    return (const char *)p >= a0 && (const char *)p + n <= a0 + j.geo.arena_bytes;
}

static void test_layout(void **state)
{
    (void)state;
    assert_int_equal(j.wire_home, 1);
    assert_int_equal(j.geo.arena_bytes, EMU_ARENA_PER_RANK);
    assert_ptr_equal(a1, a0 + j.geo.arena_bytes);
    assert_true((uintptr_t)j.wire + j.geo.wire_size == (uintptr_t)a1 + j.geo.arena_bytes);
    assert_null(emu_job_arena(&j, 2));
}

static void test_alloc_free(void **state)
{
    (void)state;
    char *a = emu_shared_alloc(0, 100), *b = emu_shared_alloc(0, 100);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(in0(a, 100) && in0(b, 100));
    assert_true(a + 100 <= b || b + 100 <= a);
    for (int i = 0; i < 100; i++)
        assert_int_equal(a[i] | b[i], 0);
    memset(a, 0xa5, 100);
    memset(b, 0x5a, 100);
    emu_shared_free(a);
    char *c = emu_shared_alloc(0, 97); /* the same class: a comes back, zeroed */
    assert_ptr_equal(c, a);
    for (int i = 0; i < 97; i++)
        assert_int_equal(c[i], 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal((unsigned char)b[i], 0x5a);
    char *d = emu_shared_alloc_near(b + 50, 3000); /* a large class, in b's arena */
    assert_non_null(d);
    assert_true(in0(d, 3000));
    emu_shared_free(b);
    emu_shared_free(c);
    emu_shared_free(d);
}

static void test_bad_pointers(void **state)
{
    (void)state;
    int local = 7;
    emu_shared_free(NULL);
    emu_shared_free(&local); /* not in any arena */
    assert_int_equal(local, 7);
    char *a = emu_shared_alloc(0, 48);
    assert_non_null(a);
    emu_shared_free(a);
    emu_shared_free(a); /* twice: ignored, so a is handed out once */
    char *x = emu_shared_alloc(0, 48), *y = emu_shared_alloc(0, 48);
    assert_ptr_equal(x, a);
    assert_non_null(y);
    assert_ptr_not_equal(y, a);
    assert_null(emu_shared_alloc_near(&local, 8));
    emu_shared_free(x);
    emu_shared_free(y);
}

static void test_full_and_unformatted(void **state)
{
    (void)state;
    assert_null(emu_shared_alloc(1, 16)); /* node 1 not formatted */
    assert_null(emu_shared_alloc(0, j.geo.arena_bytes));
    char *big[4];
    for (int i = 0; i < 3; i++) { /* 20 MiB: the 32 MiB class, three fit in 128 MiB */
        big[i] = emu_shared_alloc(0, 20u << 20);
        assert_non_null(big[i]);
    }
    assert_null(emu_shared_alloc(0, 20u << 20));
    emu_shared_free(big[1]);
    big[3] = emu_shared_alloc(0, 20u << 20);
    assert_ptr_equal(big[3], big[1]);
    assert_non_null(emu_shared_alloc(0, 64)); /* small classes still have room */
}

static void test_roots(void **state)
{
    (void)state;
    int *s = emu_shared_alloc(0, sizeof *s);
    assert_null(emu_shared_root(0, EMU_MOD_PORTALS));
    emu_shared_set_root(0, EMU_MOD_PORTALS, s);
    assert_ptr_equal(emu_shared_root(0, EMU_MOD_PORTALS), s);
    assert_null(emu_shared_root(0, EMU_MOD_PAMI));
    assert_null(emu_shared_root(1, EMU_MOD_PORTALS)); /* its daemon never came */
    assert_null(emu_shared_root(0, EMU_MOD_MAX));
    emu_shared_set_root(0, EMU_MOD_PORTALS, NULL);
    assert_null(emu_shared_root(0, EMU_MOD_PORTALS));
}

/* A daemon whose address space has the shared address taken maps the
 * object elsewhere and says so. */
static void test_away(void **state)
{
    (void)state;
    struct emu_job k;
    assert_int_equal(emu_job_attach(&k, j.geo.jobid), 0);
    assert_int_equal(emu_job_wire_map(&k, wfd), 0);
    assert_int_equal(k.wire_home, 0); /* our own mapping holds that address */
    assert_ptr_not_equal(k.wire, j.wire);
    emu_job_detach(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_alloc_free),
        cmocka_unit_test(test_bad_pointers),
        cmocka_unit_test(test_full_and_unformatted),
        cmocka_unit_test(test_roots),
        cmocka_unit_test(test_away),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
