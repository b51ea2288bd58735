/* Unit tests of the per-NIC counters (emunic/counters.h). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emunic/counters.h"

static const char *const names[] = {
#define NAME(name, doc) #name,
    EMU_COUNTERS(NAME)
#undef NAME
};
#define NCTR (sizeof names / sizeof names[0])

static void test_layout(void **state)
{
    (void)state;
    assert_int_equal(sizeof(struct emu_nic_counters), NCTR * sizeof(uint64_t));
    assert_true(NCTR >= 18);
}

static void test_add(void **state)
{
    (void)state;
    struct emu_nic_counters c;
    memset(&c, 0, sizeof c);
    EMU_CTR_ADD(&c, cmds, 1);
    EMU_CTR_ADD(&c, cmds, 41);
    EMU_CTR_ADD(&c, bytes, 1ull << 40);
    EMU_CTR_ADD(&c, wakeups, 3);
    assert_int_equal(atomic_load(&c.cmds), 42);
    assert_true(atomic_load(&c.bytes) == 1ull << 40);
    assert_int_equal(atomic_load(&c.wakeups), 3);
    assert_int_equal(atomic_load(&c.rejected), 0);
}

static void test_print(void **state)
{
    (void)state;
    struct emu_nic_counters c;
    memset(&c, 0, sizeof c);
    _Atomic uint64_t *f = (_Atomic uint64_t *)&c;
    for (size_t i = 0; i < NCTR; i++)
        atomic_store(&f[i], i == NCTR - 1 ? UINT64_MAX : i * 1000 + 7);

    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    assert_non_null(mf);
    emu_counters_print(mf, "[n3] ", &c);
    fclose(mf);
    assert_non_null(buf);

    /* one line per counter, in declaration order: prefix, name, value */
    char *save = NULL, *line = strtok_r(buf, "\n", &save);
    for (size_t i = 0; i < NCTR; i++) {
        assert_non_null(line);
        assert_true(strncmp(line, "[n3] ", 5) == 0);
        char name[64];
        unsigned long long v = 0;
        assert_int_equal(sscanf(line + 5, "%63s %llu", name, &v), 2);
        assert_string_equal(name, names[i]);
        assert_true(v == (i == NCTR - 1 ? UINT64_MAX : i * 1000 + 7));
        line = strtok_r(NULL, "\n", &save);
    }
    assert_null(line);
    free(buf);

    /* empty prefix */
    buf = NULL;
    mf = open_memstream(&buf, &len);
    assert_non_null(mf);
    emu_counters_print(mf, "", &c);
    fclose(mf);
    assert_true(strncmp(buf, names[0], strlen(names[0])) == 0);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
