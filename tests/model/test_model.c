/* CMocka: the machine model (emunic/model.h): mapping, sub-shapes, routes,
 * hops, arrival times and link sharing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "emunic/model.h"

#define NN 64

static _Atomic uint64_t links[NN * EMU_NET_LINKS_PER_NODE];

static void clear_links(void)
{
    for (size_t i = 0; i < sizeof links / sizeof *links; i++)
        atomic_store(&links[i], 0);
}

/* BG/Q-like: 5-D torus, sizes as given, ABCDET. */
static struct emu_netcfg bgq(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t e)
{
    struct emu_netcfg n;
    memset(&n, 0, sizeof n);
    n.dilate = 1;
    n.m.overhead_ns = 1000;
    n.m.latency_ns = 300;
    n.m.hop_ns = 35;
    n.m.link_bw = 1000000000; /* 1 B/ns */
    n.m.mtu = 512;
    n.m.ndims = 5;
    uint32_t dims[5] = {a, b, c, d, e};
    memcpy(n.m.dims, dims, sizeof dims);
    n.m.torus_mask = 0x1f;
    strcpy(n.m.mapping, "ABCDET");
    return n;
}

static void test_mapping(void **state)
{
    (void)state;
    assert_int_equal(emu_model_mapping_ok("ABCDET", 5), 0);
    assert_int_equal(emu_model_mapping_ok("EDCBAT", 5), 0);
    assert_int_equal(emu_model_mapping_ok("", 5), 0);
    assert_int_equal(emu_model_mapping_ok("ABCDE", 5), -1);  /* no T */
    assert_int_equal(emu_model_mapping_ok("TABCDE", 5), -1); /* T first: not emunic's placement */
    assert_int_equal(emu_model_mapping_ok("AACDET", 5), -1);
    assert_int_equal(emu_model_mapping_ok("ABCT", 5), -1);
    assert_int_equal(emu_model_mapping_ok("ABFT", 3), -1);
}

static void test_subshape(void **state)
{
    (void)state;
    uint32_t full[5] = {4, 4, 4, 4, 2}, out[5];
    assert_int_equal(emu_model_subshape(full, 5, "ABCDET", 2, out), 0);
    uint32_t e2[5] = {1, 1, 1, 1, 2};
    assert_memory_equal(out, e2, sizeof e2);
    assert_int_equal(emu_model_subshape(full, 5, "ABCDET", 16, out), 0);
    uint32_t e16[5] = {1, 1, 2, 4, 2};
    assert_memory_equal(out, e16, sizeof e16);
    assert_int_equal(emu_model_subshape(full, 5, "ABCDET", 5, out), 0); /* 5 nodes in 2 x 4 */
    uint32_t e5[5] = {1, 1, 1, 3, 2};
    assert_memory_equal(out, e5, sizeof e5);
    assert_int_equal(emu_model_subshape(full, 5, "ABCDET", 513, out), -1);
    assert_int_equal(emu_model_subshape(full, 5, "EDCBAT", 8, out), 0); /* A varies fastest */
    uint32_t ea[5] = {4, 2, 1, 1, 1};
    assert_memory_equal(out, ea, sizeof ea);
}

static void test_coords(void **state)
{
    (void)state;
    struct emu_netcfg n = bgq(2, 2, 4, 4, 2);
    uint32_t c[5];
    emu_model_coords(&n.m, 1, c); /* E fastest */
    uint32_t c1[5] = {0, 0, 0, 0, 1};
    assert_memory_equal(c, c1, sizeof c1);
    emu_model_coords(&n.m, 2, c);
    uint32_t c2[5] = {0, 0, 0, 1, 0};
    assert_memory_equal(c, c2, sizeof c2);
    for (uint32_t i = 0; i < 128; i++) {
        emu_model_coords(&n.m, i, c);
        assert_int_equal(emu_model_node_at(&n.m, c), i);
    }
}

static void test_hops(void **state)
{
    (void)state;
    struct emu_netcfg n = bgq(1, 1, 1, 8, 2); /* D: 8-ring, E: 2 */
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 0), 0);
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 1), 1);  /* E+1 */
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 2), 1);  /* D+1 */
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 8), 4);  /* D+4: farthest on the ring */
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 14), 1); /* D=7: wraps, one hop */
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 9), 5);
    n.m.torus_mask = 0; /* mesh */
    assert_int_equal(emu_model_hops(&n.m, 16, 0, 14), 7);
    struct emu_machine flat = {.ndims = 0};
    assert_int_equal(emu_model_hops(&flat, 16, 3, 9), 1);
}

static void test_route(void **state)
{
    (void)state;
    struct emu_netcfg n = bgq(1, 1, 1, 8, 2);
    uint32_t r[16];
    /* 0 -> D=7 (node 14): one hop the minus way, D's minus port */
    assert_int_equal(emu_model_route(&n.m, 16, 0, 14, r, 16), 1);
    assert_int_equal(r[0], 0 * EMU_NET_LINKS_PER_NODE + EMU_LINK_OUT(3, 1));
    /* 0 -> (D=2, E=1) = node 5: D first (dimension order), then E */
    assert_int_equal(emu_model_route(&n.m, 16, 0, 5, r, 16), 3);
    assert_int_equal(r[0], 0 * EMU_NET_LINKS_PER_NODE + EMU_LINK_OUT(3, 0));
    assert_int_equal(r[1], 2 * EMU_NET_LINKS_PER_NODE + EMU_LINK_OUT(3, 0));
    assert_int_equal(r[2], 4 * EMU_NET_LINKS_PER_NODE + EMU_LINK_OUT(4, 0));
    assert_int_equal(emu_model_route(&n.m, 16, 3, 3, r, 16), 0);
}

static void test_ideal(void **state)
{
    (void)state;
    struct emu_netcfg n;
    memset(&n, 0, sizeof n);
    n.dilate = 1;
    assert_false(emu_model_active(&n));
    assert_int_equal(emu_model_arrival(&n, links, 4, 0, 1, 1 << 20, 12345), 12345);
}

static void test_arrival(void **state)
{
    (void)state;
    clear_links();
    struct emu_netcfg n = bgq(1, 1, 1, 8, 2);
    /* 1 hop, 100 B: o + lat + 100 ns */
    assert_int_equal(emu_model_arrival(&n, links, 16, 0, 1, 100, 1000000), 1000000 + 1000 + 300 + 100);
    clear_links();
    /* 4 hops: lat + 3 hop */
    assert_int_equal(emu_model_arrival(&n, links, 16, 0, 8, 0, 1000000), 1000000 + 1000 + 300 + 3 * 35);
    clear_links();
    /* same node: overhead only */
    assert_int_equal(emu_model_arrival(&n, links, 16, 3, 3, 4096, 50), 50 + 1000);
    /* dilation stretches every delay */
    clear_links();
    n.dilate = 10;
    assert_int_equal(emu_model_arrival(&n, links, 16, 0, 1, 100, 0), 10 * (1000 + 300 + 100));
    assert_int_equal(emu_model_packets(&n.m, 0), 1);
    assert_int_equal(emu_model_packets(&n.m, 512), 1);
    assert_int_equal(emu_model_packets(&n.m, 513), 2);
}

static void test_send(void **state)
{
    (void)state;
    clear_links();
    struct emu_netcfg n = bgq(1, 1, 1, 8, 2);
    n.m.ack_overhead_ns = 400;
    /* a data-less ack pays ack_overhead_ns, anything else overhead_ns */
    assert_int_equal(emu_model_send(&n, links, 16, 0, 1, 0, 1, 1000000), 1000000 + 400 + 300);
    clear_links();
    assert_int_equal(emu_model_send(&n, links, 16, 0, 1, 0, 0, 1000000), 1000000 + 1000 + 300);
    /* not injected before ready; the port is then busy from there */
    clear_links();
    assert_int_equal(emu_model_send(&n, links, 16, 0, 1, 100, 0, 5000000), 5000000 + 1000 + 300 + 100);
    /* the next one, offered at 0, waits for the port (free at +o+S) */
    assert_int_equal(emu_model_arrival(&n, links, 16, 0, 1, 100, 0), 5000000 + (1000 + 100) + 1000 + 300 + 100);
}

static void test_link_sharing(void **state)
{
    (void)state;
    struct emu_netcfg n = bgq(1, 1, 1, 8, 2);
    /* two messages from one node back to back: the injection port
     * serialises them (o + S each) */
    clear_links();
    int64_t a1 = emu_model_arrival(&n, links, 16, 0, 2, 10000, 0);
    int64_t a2 = emu_model_arrival(&n, links, 16, 0, 2, 10000, 0);
    assert_int_equal(a1, 1000 + 300 + 10000);
    assert_int_equal(a2 - a1, 1000 + 10000);
    /* two senders whose routes share a link: 0 -> 4 and 2 -> 4 share node
     * 2's D+ link; the second waits for the first's tail */
    clear_links();
    int64_t b1 = emu_model_arrival(&n, links, 16, 0, 4, 10000, 0);
    int64_t b2 = emu_model_arrival(&n, links, 16, 2, 4, 10000, 0);
    assert_int_equal(b1, 1000 + 300 + 35 + 10000);
    assert_true(b2 >= b1); /* serialised behind it on the shared link */
    /* disjoint routes do not interfere */
    clear_links();
    int64_t c1 = emu_model_arrival(&n, links, 16, 0, 2, 10000, 0);
    int64_t c2 = emu_model_arrival(&n, links, 16, 6, 8, 10000, 0);
    assert_int_equal(c1, c2);
    /* many senders to one node: its reception port serialises them */
    clear_links();
    int64_t last = 0;
    uint32_t src[] = {0, 4, 1, 3};
    for (int i = 0; i < 4; i++)
        last = emu_model_arrival(&n, links, 16, src[i], 2, 10000, 0);
    assert_true(last >= 1000 + 300 + 4 * 10000);
    /* background occupation delays a real message on that route */
    clear_links();
    emu_model_occupy(&n, links, 16, 0, 2, 50000, 0);
    assert_true(emu_model_arrival(&n, links, 16, 0, 2, 0, 0) >= 50000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapping), cmocka_unit_test(test_subshape), cmocka_unit_test(test_coords),
        cmocka_unit_test(test_hops),    cmocka_unit_test(test_route),    cmocka_unit_test(test_ideal),
        cmocka_unit_test(test_arrival), cmocka_unit_test(test_send), cmocka_unit_test(test_link_sharing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
