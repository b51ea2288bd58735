/* Active messages (inline, and long with accept and truncation), handlers
 * run during progress, target notifications, and the module hook (the
 * selftest module's NIC-side fetch-and-add). */
#include "itest.h"

#define H_SHORT 7
#define H_LONG 9 /* no handler: entries come back from emunic_wait */

struct seen {
    int calls;
    uint32_t src;
    uint32_t hlen;
    uint64_t len;
    uint8_t bytes[EMU_INLINE_MAX];
};

static struct seen seen;

static void on_short(const struct emu_msg *am, void *arg)
{
    struct seen *s = arg;
    s->calls++;
    s->src = am->src;
    s->hlen = am->hlen;
    s->len = am->len;
    memcpy(s->bytes, am->data, am->dlen);
}

static void test_short(uint32_t to, uint32_t from)
{
    uint8_t hdr[16], pay[100];
    for (int i = 0; i < 16; i++)
        hdr[i] = (uint8_t)(0xA0 + i + emunic_rank());
    for (int i = 0; i < 100; i++)
        pay[i] = pattern(emunic_rank(), 5, (uint64_t)i);
    memset(&seen, 0, sizeof seen);
    CHECK(emunic_barrier() == 0, "barrier");
    uint64_t c = cookie();
    CHECK(emunic_am_send(to, H_SHORT, hdr, sizeof hdr, pay, sizeof pay, EMU_F_REMOTE_CQ | EMU_F_LOCAL_CQ, c) == 0, "post");
    CHECK(wait_done(c, EMU_DONE_LOCAL | EMU_DONE_REMOTE) == 0, "short am");
    /* the handler runs inside our own progress: drive it until it ran */
    while (seen.calls == 0) {
        struct emu_msg m;
        CHECK(emunic_wait(&m, 1, 10000000000LL) >= 0, "wait");
    }
    CHECK(seen.calls == 1 && seen.src == from && seen.hlen == 16 && seen.len == 100, "short am fields: calls %d src %u hlen %u len %llu",
          seen.calls, seen.src, seen.hlen, (unsigned long long)seen.len);
    for (int i = 0; i < 16; i++)
        CHECK(seen.bytes[i] == (uint8_t)(0xA0 + i + from), "header byte %d", i);
    for (int i = 0; i < 100; i++)
        CHECK(seen.bytes[16 + i] == pattern(from, 5, (uint64_t)i), "payload byte %d", i);
    CHECK(emunic_barrier() == 0, "barrier");
}

/* Long payload: header inline, payload pulled by the target's accept. */
static void test_long(uint32_t to, uint32_t from, size_t len, size_t cap, int heap_src)
{
    uint32_t me = emunic_rank();
    char *src = heap_src ? emunic_malloc(len) : malloc(len);
    char *sink = malloc(cap + 64);
    CHECK(src && sink, "alloc");
    for (size_t i = 0; i < len; i++)
        src[i] = (char)pattern(me, len, i);
    memset(sink, 0x77, cap + 64);
    uint32_t hdr = 0xC0DE0000u + me;
    CHECK(emunic_barrier() == 0, "barrier");
    uint64_t cs = cookie(), ca = cookie();
    CHECK(emunic_am_send(to, H_LONG, &hdr, sizeof hdr, src, len, EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ, cs) == 0, "post");
    int have_am = 0, accepted_done = 0;
    unsigned sent = 0;
    while (!accepted_done || sent != (EMU_DONE_LOCAL | EMU_DONE_REMOTE)) {
        struct emu_msg m;
        int k = emunic_wait(&m, 1, 30000000000LL);
        CHECK(k == 1, "nothing arrived (have_am %d accepted %d sent %x)", have_am, accepted_done, sent);
        if (m.op == EMU_CQ_AM) {
            CHECK(!have_am && m.imm == H_LONG && m.src == from && m.hlen == 4 && m.len == len && m.dlen == 4,
                  "long am entry: imm %llu src %u hlen %u len %llu dlen %u", (unsigned long long)m.imm, m.src, m.hlen,
                  (unsigned long long)m.len, m.dlen);
            uint32_t h;
            memcpy(&h, m.data, 4);
            CHECK(h == 0xC0DE0000u + from, "long am header");
            CHECK(emunic_am_accept(&m, sink, cap, ca) == 0, "accept");
            have_am = 1;
        } else if (m.op == EMU_CQ_DONE && m.cookie == ca) {
            int want = cap < len ? EMU_E_TRUNC : EMU_OK;
            CHECK(m.status == want, "accept status %u want %d", m.status, want);
            CHECK(m.len == (cap < len ? cap : len), "accepted length %llu", (unsigned long long)m.len);
            accepted_done = 1;
        } else if (m.op == EMU_CQ_DONE && m.cookie == cs) {
            CHECK(m.status == 0, "long am send status %u", m.status);
            sent |= m.flags;
        } else {
            CHECK(0, "unexpected entry op %u cookie %llu", m.op, (unsigned long long)m.cookie);
        }
    }
    size_t got = cap < len ? cap : len;
    for (size_t i = 0; i < got; i++)
        CHECK((uint8_t)sink[i] == pattern(from, len, i), "long payload byte %zu", i);
    for (size_t i = got; i < cap + 64; i++)
        CHECK((uint8_t)sink[i] == 0x77, "accept wrote past %zu at %zu", got, i);
    CHECK(emunic_barrier() == 0, "barrier");
    if (heap_src)
        emunic_free(src);
    else
        free(src);
    free(sink);
}

static void test_notify(uint32_t to, uint32_t from, uint64_t *peer_cells, uint64_t *mine)
{
    uint64_t v = 0x1234000000ull + emunic_rank();
    *mine = 0;
    CHECK(emunic_barrier() == 0, "barrier");
    CHECK(emunic_write(to, EMU_KEY_HEAP, peer_cells[to], &v, 8, EMU_F_TARGET_NOTIFY, 0, 0xABC000 + emunic_rank()) == 0, "post");
    struct emu_msg m;
    for (;;) {
        CHECK(emunic_wait(&m, 1, 30000000000LL) == 1, "no notification");
        if (m.op == EMU_CQ_TARGET)
            break;
    }
    CHECK(m.src == from && m.dst == emunic_rank() && m.imm == 0xABC000u + from && m.len == 8 &&
              m.raddr == (uint64_t)(uintptr_t)mine && m.flags == EMU_OP_WRITE && m.key == EMU_KEY_HEAP,
          "notification fields src %u imm %llx len %llu", m.src, (unsigned long long)m.imm, (unsigned long long)m.len);
    CHECK(*mine == 0x1234000000ull + from, "notified write visible");
    CHECK(emunic_barrier() == 0, "barrier");
}

static void test_module(void)
{
    uint32_t me = emunic_rank(), n = emunic_size();
    struct emu_msg m;
    memset(&m, 0, sizeof m);
    m.op = EMU_OP_MODULE;
    m.module = EMU_MOD_SELFTEST;
    m.dst = 0;
    m.imm = me + 1;
    m.flags = EMU_F_REMOTE_CQ;
    m.cookie = cookie();
    CHECK(emunic_post_module(&m) == 0, "post");
    struct emu_msg d;
    CHECK(emunic_wait_cookie(m.cookie, &d) == 0, "module status");
    uint64_t *all = calloc(n, sizeof *all);
    itest_allgather(&d.imm, sizeof d.imm, all);
    uint64_t total = (uint64_t)n * (n + 1) / 2, maxv = 0;
    for (uint32_t r = 0; r < n; r++) {
        maxv = all[r] > maxv ? all[r] : maxv;
        for (uint32_t q = 0; q < r; q++)
            CHECK(all[q] != all[r], "module returned %llu twice", (unsigned long long)all[r]);
    }
    CHECK(maxv == total, "module counter %llu want %llu", (unsigned long long)maxv, (unsigned long long)total);
    /* an unknown module is refused with NOTSUP, not dropped */
    m.module = 15;
    m.cookie = cookie();
    CHECK(emunic_post_module(&m) == 0, "post");
    CHECK(emunic_wait_cookie(m.cookie, &d) == EMU_E_NOTSUP, "unknown module status %u", d.status);
    free(all);
    CHECK(emunic_barrier() == 0, "barrier");
}

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    CHECK(emunic_am_register(H_SHORT, on_short, &seen) == 0, "register");
    CHECK(emunic_am_register(256, NULL, NULL) == -EINVAL, "register out of range");
    uint64_t *cell = emunic_malloc(64);
    uint64_t mine = (uint64_t)(uintptr_t)cell;
    uint64_t *cells = calloc(n, sizeof *cells);
    itest_allgather(&mine, sizeof mine, cells);
    uint32_t shifts[2] = {1, n / 2};
    int nshift = n > 3 ? 2 : 1;
    for (int s = 0; s < nshift; s++) {
        uint32_t sh = n > 1 ? shifts[s] : 0;
        uint32_t to = (me + sh) % n, from = (me + n - sh) % n;
        test_short(to, from);
        test_long(to, from, 4096, 4096, 1);
        test_long(to, from, 1u << 20, 1u << 20, 0);
        test_long(to, from, 4u << 20, 4u << 20, 1);
        test_long(to, from, 16u << 20, 16u << 20, 0);
        test_long(to, from, 100000, 5000, 0); /* truncated */
        test_notify(to, from, cells, cell);
        if (me == 0)
            printf("am: shift %u: short, long (4 KiB..16 MiB, truncated), notify: ok\n", sh);
    }
    test_module();
    free(cells);
    if (me == 0)
        printf("am: module hook ok\nam: ok\n");
    emunic_finalize();
    return 0;
}
