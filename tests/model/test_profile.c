/* CMocka: machine profiles (launcher/machine.c): the shipped profiles load,
 * and every error in a file is one "emunic-run: FILE:LINE: what" line with
 * exit status 2. stderr is captured through a temporary file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "netopts.h"

static char dir[64];
static char errbuf[1024];

static int load_text(const char *text, uint32_t nnodes, struct emu_machine *m, char *path, size_t cap)
{
    snprintf(path, cap, "%s/p%d.yaml", dir, rand());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    char cap_path[128];
    snprintf(cap_path, sizeof cap_path, "%s/stderr", dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *e = fopen(cap_path, "w+");
    assert_non_null(e);
    dup2(fileno(e), 2);
    int rc = machine_load(path, nnodes, m);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(e);
    size_t n = fread(errbuf, 1, sizeof errbuf - 1, e);
    errbuf[n] = 0;
    fclose(e);
    return rc;
}

#define GOOD "overhead_ns: 1000\nlatency_ns: 300\nhop_ns: 35\nlink_bw: 1.8e9\nmtu: 512\n"

static void expect_error(const char *text, int line, const char *what)
{
    struct emu_machine m;
    char path[128], want[256];
    int rc = load_text(text, 2, &m, path, sizeof path);
    assert_int_equal(rc, 2);
    snprintf(want, sizeof want, "emunic-run: %s:%d: ", path, line);
    if (strncmp(errbuf, want, strlen(want)) != 0 || !strstr(errbuf, what) || strchr(errbuf, '\n') != strrchr(errbuf, '\n'))
        fail_msg("want '%s...%s', got '%s'", want, what, errbuf);
}

static void test_good(void **state)
{
    (void)state;
    struct emu_machine m;
    char path[128];
    assert_int_equal(load_text(GOOD "dims: [4, 4, 4, 4, 2]\nmapping: ABCDET\nname: mine\n", 16, &m, path,
                               sizeof path),
                     0);
    assert_string_equal(m.name, "mine");
    assert_int_equal(m.overhead_ns, 1000);
    assert_int_equal(m.ack_overhead_ns, 1000); /* defaults to overhead_ns */
    assert_int_equal(m.fifo_depth, 0);
    assert_int_equal(m.credits, 0);
    assert_int_equal(m.link_bw, 1800000000ull);
    assert_int_equal(m.ndims, 5);
    assert_int_equal(m.torus_mask, 0x1f);
    uint32_t sub[5] = {1, 1, 2, 4, 2};
    assert_memory_equal(m.dims, sub, sizeof sub);
    assert_int_equal(load_text(GOOD "ack_overhead_ns: 0\nfifo_depth: 64\ncredits: 8\n", 2, &m, path, sizeof path), 0);
    assert_int_equal(m.ack_overhead_ns, 0);
    assert_int_equal(m.fifo_depth, 64);
    assert_int_equal(m.credits, 8);
    assert_int_equal(load_text(GOOD "dims: [8, 8]\ntorus: [true, false]\n", 64, &m, path, sizeof path), 0);
    assert_int_equal(m.torus_mask, 1);
    assert_int_equal(m.dims[0], 8);
    assert_int_equal(m.dims[1], 8);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error(GOOD "bogus: 1\n", 6, "unknown key 'bogus'");
    expect_error("overhead_ns: abc\nlatency_ns: 300\nhop_ns: 35\nlink_bw: 1\nmtu: 5\n", 1, "wrong type");
    expect_error("overhead_ns: 1\nlatency_ns: -300\nhop_ns: 35\nlink_bw: 1\nmtu: 5\n", 2, "negative value");
    expect_error("overhead_ns: 1\nlatency_ns: 300\nlink_bw: 1\nmtu: 5\n", 1, "missing required key 'hop_ns'");
    expect_error(GOOD "dims: [4, 4\n", 7, "bad YAML");
    expect_error(GOOD "dims: 4\n", 6, "dims: wrong type");
    expect_error(GOOD "dims: [4, x]\n", 6, "dims: wrong type");
    expect_error(GOOD "dims: [4, 0]\n", 6, "at least 1 node");
    expect_error(GOOD "dims: [2, 2]\ntorus: [true]\n", 7, "one true/false per entry");
    expect_error(GOOD "dims: [2, 2]\ntorus: [true, maybe]\n", 7, "true or false");
    expect_error(GOOD "dims: [2, 2]\nmapping: BAC\n", 7, "mapping");
    expect_error(GOOD "dims: [1, 1]\n", 6, "do not fit");
    {
        /* 2^80 nodes: the capacity once wrapped to 0 ("do not fit this machine's 0") */
        struct emu_machine big;
        char path[128];
        assert_int_equal(load_text(GOOD "dims: [1048576, 1048576, 1048576, 1048576]\n", 2, &big, path, sizeof path), 0);
    }
    expect_error(GOOD "mtu: 6\n", 6, "given twice");
    expect_error("- 1\n- 2\n", 1, "must be a mapping");
    expect_error(GOOD "name: [a]\n", 6, "name: wrong type");
}

static void test_shipped(void **state)
{
    (void)state;
    static const char *const names[] = {"xt5", "bgp", "bgq", "p7ih"};
    for (size_t i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/share/emunic/machines/%s.yaml", EMUNIC_SOURCE_DIR, names[i]);
        struct emu_machine m;
        assert_int_equal(machine_load(path, 8, &m), 0);
        assert_string_equal(m.name, names[i]);
        assert_true(m.link_bw > 0);
    }
    struct emu_machine m;
    assert_int_equal(machine_load("ideal", 8, &m), 0);
    assert_int_equal(m.link_bw, 0);
}

static void test_congestion(void **state)
{
    (void)state;
    uint32_t k;
    double load;
    assert_int_equal(congestion_parse("uniform", &k, &load), 0);
    assert_int_equal(k, EMU_CONG_UNIFORM);
    assert_true(load == 0.5);
    assert_int_equal(congestion_parse("hotspot:0.25", &k, &load), 0);
    assert_int_equal(k, EMU_CONG_HOTSPOT);
    assert_true(load == 0.25);
    assert_int_equal(congestion_parse("bisection:1", &k, &load), 0);
    assert_int_equal(k, EMU_CONG_BISECTION);
    int saved = dup(2), null = open("/dev/null", 1);
    dup2(null, 2);
    int r1 = congestion_parse("hot", &k, &load), r2 = congestion_parse("uniform:2", &k, &load),
        r3 = congestion_parse("uniform:", &k, &load);
    dup2(saved, 2);
    close(saved);
    close(null);
    assert_int_equal(r1, 2);
    assert_int_equal(r2, 2);
    assert_int_equal(r3, 2);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/emunic-model-test.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_good), cmocka_unit_test(test_errors),
                                       cmocka_unit_test(test_shipped), cmocka_unit_test(test_congestion)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
