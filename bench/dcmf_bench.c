/* Shared part of the DCMF benchmarks; see dcmf_bench.h. */
#include "dcmf_bench.h"
#include "bench_util.h"

#include <getopt.h>
#include <string.h>

#include "emunic/emunic.h"

size_t db_me, db_n;
int db_poll_yield;

static DCMF_Protocol_t bar_proto, mail_proto;

/* ---- barrier ----
 * Rank 0 calls the others in (READY), they answer (ARRIVE), rank 0 lets
 * them go (RELEASE). A rank says nothing to rank 0 before rank 0 has
 * entered the barrier, so while rank 0 runs a raw core baseline between two
 * barriers no DCMF message can land on its completion queue. */

enum { BAR_READY = 1, BAR_ARRIVE, BAR_RELEASE };
static volatile unsigned bar_arrived, bar_ready, bar_released;
static unsigned bar_epoch;

static void on_bar(void *cd, const DCMF_Control_t *info, size_t peer)
{
    (void)cd;
    (void)peer;
    uint32_t w[8];
    memcpy(w, info, sizeof w);
    if (w[0] == BAR_ARRIVE)
        bar_arrived++;
    else if (w[0] == BAR_READY && w[1] > bar_ready)
        bar_ready = w[1];
    else if (w[0] == BAR_RELEASE && w[1] > bar_released)
        bar_released = w[1];
}

static void bar_send(size_t to, uint32_t kind, uint32_t epoch)
{
    DCMF_Control_t c;
    uint32_t w[8] = {kind, epoch};
    memcpy(&c, w, sizeof c);
    DCMF_Result rc = DCMF_Control(&bar_proto, DCMF_SEQUENTIAL_CONSISTENCY, to, &c);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Control: %d", rc);
}

void db_barrier(void)
{
    unsigned e = ++bar_epoch;
    if (db_me == 0) {
        for (size_t r = 1; r < db_n; r++)
            bar_send(r, BAR_READY, e);
        DB_UNTIL(bar_arrived >= db_n - 1);
        bar_arrived -= (unsigned)(db_n - 1);
        for (size_t r = 1; r < db_n; r++)
            bar_send(r, BAR_RELEASE, e);
    } else {
        DB_UNTIL(bar_ready >= e);
        bar_send(0, BAR_ARRIVE, e);
        DB_UNTIL(bar_released >= e);
    }
}

/* ---- mail ---- */

#define MAILBOX 64
static struct mail {
    int used;
    size_t from;
    uint32_t tag, len;
    char data[DB_MAIL_MAX];
} box[MAILBOX];

static void on_mail(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src, size_t bytes)
{
    (void)cd;
    DB_CHECK(count == 1 && bytes <= DB_MAIL_MAX, "bad mail from %zu", peer);
    for (int i = 0; i < MAILBOX; i++) {
        if (!box[i].used) {
            box[i] = (struct mail){.used = 1, .from = peer, .tag = mi[0].w0, .len = (uint32_t)bytes};
            memcpy(box[i].data, src, bytes);
            return;
        }
    }
    DB_CHECK(0, "mailbox full");
}

void db_mail_send(size_t to, uint32_t tag, const void *p, size_t len)
{
    DB_CHECK(len <= DB_MAIL_MAX, "mail of %zu bytes", len);
    static DCMF_Request_t req;
    static volatile unsigned done;
    unsigned want = done + 1;
    DCQuad mi = {tag, (uint32_t)len, 0, 0};
    DCMF_Result rc = DCMF_Send(&mail_proto, &req, db_counter(&done), DCMF_SEQUENTIAL_CONSISTENCY, to, len,
                               (char *)p, &mi, 1);
    DB_CHECK(rc == DCMF_SUCCESS, "DCMF_Send: %d", rc);
    DB_UNTIL(done >= want);
}

static int mail_take(size_t from, uint32_t tag, void *p, size_t len)
{
    for (int i = 0; i < MAILBOX; i++) {
        if (box[i].used && box[i].from == from && box[i].tag == tag) {
            DB_CHECK(box[i].len == len, "mail %u from %zu: %u bytes, want %zu", tag, from, box[i].len, len);
            memcpy(p, box[i].data, len);
            box[i].used = 0;
            return 1;
        }
    }
    return 0;
}

void db_mail_recv(size_t from, uint32_t tag, void *p, size_t len)
{
    DB_UNTIL(mail_take(from, tag, p, len));
}

/* ---- start-up ---- */

void db_count_cb(void *clientdata, DCMF_Error_t *error)
{
    DB_CHECK(!error, "a DCMF operation failed: result %d", error ? (int)error->result : 0);
    (*(volatile unsigned *)clientdata)++;
}

void db_init(const char *prog, size_t ranks)
{
    if (!getenv("EMUNIC_JOBID")) {
        fprintf(stderr, "%s: run me under emunic-run --nic dcmf (see --help)\n", prog);
        exit(2);
    }
    DCMF_Messager_initialize();
    db_me = DCMF_Messager_rank();
    db_n = DCMF_Messager_size();
    if (db_n != ranks) {
        if (db_me == 0)
            fprintf(stderr, "%s: needs exactly %zu ranks, not %zu (emunic-run -N 2 -n 1 or -N 1 -n 2 --nic dcmf)\n",
                    prog, ranks, db_n);
        exit(2);
    }
    DCMF_Control_Configuration_t cc = {DCMF_DEFAULT_CONTROL_PROTOCOL, DCMF_DEFAULT_NETWORK, on_bar, NULL};
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, on_mail, NULL, NULL, NULL};
    DB_CHECK(DCMF_Control_register(&bar_proto, &cc) == DCMF_SUCCESS, "register the barrier");
    DB_CHECK(DCMF_Send_register(&mail_proto, &sc) == DCMF_SUCCESS, "register the mail");
}

void db_fini(void)
{
    db_barrier();
    DCMF_Messager_finalize();
}

/* ---- memory ---- */

void *db_alloc(size_t len, int heap)
{
    size_t sz = (len + 4095) & ~(size_t)4095;
    void *p;
    if (heap) {
        p = emunic_malloc(sz);
        DB_CHECK(p, "emunic_malloc(%zu): heap too small? (emunic-run --heap)", sz);
    } else {
        p = aligned_alloc(4096, sz);
        DB_CHECK(p, "out of memory (%zu bytes)", sz);
    }
    memset(p, 0, sz); /* no first-touch faults in the timed part */
    return p;
}

void db_free(void *p, int heap)
{
    if (heap)
        emunic_free(p);
    else
        free(p);
}

int db_parse_mem(const char *v)
{
    if (!strcmp(v, "private"))
        return 0;
    if (!strcmp(v, "heap"))
        return 1;
    fprintf(stderr, "--mem wants private or heap, not '%s'\n", v);
    exit(2);
}

void db_region(DCMF_Memregion_t *mr, void *base, size_t len)
{
    size_t got = 0;
    DCMF_Result rc = DCMF_Memregion_create(mr, &got, len, base, 0);
    DB_CHECK(rc == DCMF_SUCCESS && got >= len, "DCMF_Memregion_create(%zu bytes): %d", len, rc);
}

void db_swap_regions(size_t peer, uint32_t tag, DCMF_Memregion_t *mine, DCMF_Memregion_t *theirs)
{
    db_mail_send(peer, tag, mine, sizeof *mine);
    db_mail_recv(peer, tag, theirs, sizeof *theirs);
}

void db_bad_option(const char *prog, int c, char **argv)
{
    const char *r = getenv("EMUNIC_RANK");
    if (!r || !strcmp(r, "0")) {
        const char *opt = argv[optind - 1];
        if (c == ':')
            fprintf(stderr, "%s: option '%s' needs a value (try --help)\n", prog, opt);
        else
            fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog, opt);
    }
    exit(2);
}

void db_finish_args(const char *prog, int argc, char **argv, const char *sizes, uint64_t lo,
                    uint64_t hi, uint64_t mult, uint64_t **out, size_t *n)
{
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, argv[optind]);
        exit(2);
    }
    if (bench_parse_sizes(sizes, out, n)) {
        fprintf(stderr, "--sizes: cannot parse '%s'\n", sizes);
        exit(2);
    }
    for (size_t i = 0; i < *n; i++) {
        uint64_t s = (*out)[i];
        if (s >= lo && s <= hi && s % mult == 0)
            continue;
        if (mult > 1)
            fprintf(stderr, "--sizes: %llu is not a multiple of %llu in %llu..%lluM\n",
                    (unsigned long long)s, (unsigned long long)mult, (unsigned long long)lo,
                    (unsigned long long)(hi >> 20));
        else
            fprintf(stderr, "--sizes: %llu is not in %llu..%lluM\n", (unsigned long long)s,
                    (unsigned long long)lo, (unsigned long long)(hi >> 20));
        exit(2);
    }
}

void db_parse_poll(const char *v)
{
    if (!strcmp(v, "spin") || !strcmp(v, "yield")) {
        db_poll_yield = v[0] == 'y';
        return;
    }
    fprintf(stderr, "--poll wants spin or yield, not '%s'\n", v);
    exit(2);
}

DCMF_Consistency db_parse_consistency(const char *v)
{
    if (!strcmp(v, "sequential") || !strcmp(v, "seq"))
        return DCMF_SEQUENTIAL_CONSISTENCY;
    if (!strcmp(v, "relaxed"))
        return DCMF_RELAXED_CONSISTENCY;
    if (!strcmp(v, "match"))
        return DCMF_MATCH_CONSISTENCY;
    fprintf(stderr, "--consistency wants sequential, relaxed or match, not '%s'\n", v);
    exit(2);
}

const char *db_consistency_name(DCMF_Consistency c)
{
    return c == DCMF_SEQUENTIAL_CONSISTENCY ? "sequential"
           : c == DCMF_RELAXED_CONSISTENCY  ? "relaxed"
           : c == DCMF_MATCH_CONSISTENCY    ? "match"
                                            : "weak";
}

/* ---- raw core baselines ---- */

static uint32_t raw_keys[8];
static int nraw_keys;

void db_raw_offer(size_t peer, uint32_t tag, void *base, size_t len)
{
    int64_t key = emunic_expose(base, len, EMU_PERM_READ | EMU_PERM_WRITE);
    DB_CHECK(key > 0, "emunic_expose: %lld", (long long)key);
    DB_CHECK(nraw_keys < 8, "too many raw regions");
    raw_keys[nraw_keys++] = (uint32_t)key;
    struct db_raw_target t = {(uint64_t)(uintptr_t)base, (uint32_t)key, 0};
    db_mail_send(peer, tag, &t, sizeof t);
}

void db_raw_withdraw(void)
{
    while (nraw_keys > 0)
        emunic_unexpose(raw_keys[--nraw_keys]);
}

void db_raw_learn(size_t from, uint32_t tag, struct db_raw_target *t)
{
    db_mail_recv(from, tag, t, sizeof *t);
}

uint64_t db_raw_cookie(void)
{
    static uint64_t c; /* small numbers: DCMF's cookies are request addresses */
    return ++c;
}

static void raw_wait(uint64_t ck, const char *what)
{
    struct emu_msg m;
    int st = emunic_wait_cookie(ck, &m);
    DB_CHECK(st == 0, "raw %s: status %d (%s)", what, st, st > 0 ? emu_status_str((unsigned)st) : "wait failed");
}

void db_raw_write_rtt(uint32_t dst, const struct db_raw_target *t, uint64_t off, const void *src, size_t len)
{
    uint64_t ck = db_raw_cookie();
    int rc = emunic_write(dst, t->key, t->addr + off, src, len, EMU_F_REMOTE_CQ, ck, 0);
    DB_CHECK(rc == 0, "emunic_write: %d", rc);
    raw_wait(ck, "write");
}

void db_raw_read_rtt(uint32_t dst, const struct db_raw_target *t, uint64_t off, void *buf, size_t len)
{
    uint64_t ck = db_raw_cookie();
    int rc = emunic_read(dst, t->key, t->addr + off, buf, len, EMU_F_LOCAL_CQ, ck);
    DB_CHECK(rc == 0, "emunic_read: %d", rc);
    raw_wait(ck, "read");
}

void db_raw_notify(uint32_t dst, const struct db_raw_target *t, uint64_t off, const void *src, size_t len,
                   uint64_t tag)
{
    int rc = emunic_write(dst, t->key, t->addr + off, src, len, EMU_F_TARGET_NOTIFY, 0, tag);
    DB_CHECK(rc == 0, "emunic_write: %d", rc);
}

void db_raw_wait_dones(const uint64_t *cookies, long n)
{
    uint64_t lo = cookies[0], hi = cookies[n - 1];
    struct emu_msg m[64];
    while (n > 0) {
        int got = emunic_wait(m, n < 64 ? (int)n : 64, -1);
        DB_CHECK(got >= 0, "emunic_wait: %d", got);
        for (int i = 0; i < got; i++) {
            DB_CHECK(m[i].op == EMU_CQ_DONE && m[i].cookie >= lo && m[i].cookie <= hi,
                     "raw window: unexpected entry op %#x cookie %llu", m[i].op, (unsigned long long)m[i].cookie);
            DB_CHECK(m[i].status == 0, "raw write: %s", emu_status_str(m[i].status));
        }
        n -= got;
    }
}

void db_raw_wait_notify(uint32_t from, uint64_t tag)
{
    for (;;) {
        struct emu_msg m;
        int n = emunic_wait(&m, 1, -1);
        DB_CHECK(n >= 0, "emunic_wait: %d", n);
        if (n == 0)
            continue;
        DB_CHECK(m.op == EMU_CQ_TARGET && m.src == from && m.imm == tag,
                 "raw ping-pong: unexpected entry op %#x from %u imm %llu (want %llu from %u)", m.op, m.src,
                 (unsigned long long)m.imm, (unsigned long long)tag, from);
        return;
    }
}

const char *db_layout(void)
{
    static char buf[32];
    snprintf(buf, sizeof buf, "%ux%u", emunic_nnodes(), emunic_local_size());
    return buf;
}

int db_same_node(size_t a, size_t b)
{
    uint32_t l = emunic_local_size();
    return a / l == b / l;
}
