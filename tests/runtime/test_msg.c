/* armci_msg_* under emunic-run: messages (0 B to 1 MiB, tags, rcvany),
 * bintree, barriers, broadcasts, every reduction op x type x scope and the
 * selections, each checked element by element against a local reference;
 * ops by GA's prefix rule ("+=", "|", "land", ...), and scopes and types
 * in ARMCI-MPI's numbering (0..2, 0..4) as well as in GA's.
 * The collectives run three ways: the plain calls on the world, the
 * armci_msg_group_* calls on a group with non-contiguous members in
 * reverse order, and the plain calls with that group as the default.
 *
 * "test_msg err <case>" makes one bad call instead (see msg.cmake): it must
 * end the job with the error message. A mismatch prints
 * "FAIL rank R file:line what" and exits 1. */
#include <armci.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtest.h"

static int nproc, rpn;

static int node_of(int r) { return r / rpn; }

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static uint8_t pattern(int who, size_t salt, size_t i)
{
    return (uint8_t)(i * 131 + (size_t)who * 7 + salt * 29 + (i >> 8) + (i >> 16) * 3);
}

static void fill(void *buf, int who, size_t salt, size_t len)
{
    for (size_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = pattern(who, salt, i);
}

static void check_fill(const void *buf, int who, size_t salt, size_t len, int line,
                       const char *what)
{
    for (size_t i = 0; i < len; i++)
        if (((const uint8_t *)buf)[i] != pattern(who, salt, i))
            FAIL("(line %d) %s: byte %zu of %zu is 0x%02x, want 0x%02x (from %d)", line, what,
                 i, len, ((const uint8_t *)buf)[i], pattern(who, salt, i), who);
}

/* ---- the group a collective runs on ---- */

struct ctx {
    const char *name;
    ARMCI_Group *g; /* NULL: the plain calls (default group) */
    int size, rank;
    int abs[1024];  /* group rank -> world rank */
};

/* Members of scope (group ranks, in order); *mine: the caller's index or -1. */
static int scope_set(const struct ctx *c, int scope, int *set, int *mine)
{
    int n = 0, seen[1024] = {0};
    *mine = -1;
    for (int i = 0; i < c->size; i++) {
        int a = c->abs[i];
        if (scope == SCOPE_NODE && node_of(a) != node_of(me))
            continue;
        if (scope == SCOPE_MASTERS && seen[node_of(a)])
            continue;
        seen[node_of(a)] = 1;
        if (a == me)
            *mine = n;
        set[n++] = i;
    }
    return n;
}

/* GA's values: not 0..2, so they are walked through this table. */
static const int scopes[] = {SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS};
enum { NSCOPES = 3 };

static const char *scope_name(int s)
{
    return s == SCOPE_ALL ? "ALL" : s == SCOPE_NODE ? "NODE" : "MASTERS";
}

/* ---- messages ---- */

static void test_snd_rcv(void)
{
    static const size_t sizes[] = {0, 1, 100 * 1024, 1024 * 1024};
    size_t big = 1024 * 1024 + 64;
    uint8_t *buf = malloc(big), *in = malloc(big);
    int len;

    CHECK(buf && in, "malloc");
    /* Self: small messages are eager, so a blocking send to oneself works. */
    for (int s = 0; s < 2; s++) {
        fill(buf, me, 1000 + s, sizes[s]);
        armci_msg_snd(5, buf, (int)sizes[s], me);
        memset(in, 0xee, 16);
        armci_msg_rcv(5, in, 16, &len, me);
        CHECK(len == (int)sizes[s], "self message length %d, want %zu", len, sizes[s]);
        check_fill(in, me, 1000 + s, sizes[s], __LINE__, "self message");
    }
    if (nproc == 1)
        goto out;
    /* A ring, one hop at a time (rank 0 starts), so a large blocking send
     * always has its receiver waiting. */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int next = (me + 1) % nproc, prev = (me + nproc - 1) % nproc, tag = 100 + (int)s;
        fill(buf, me, s, sizes[s]);
        if (me == 0)
            armci_msg_snd(tag, buf, (int)sizes[s], next);
        memset(in, 0xee, big);
        armci_msg_rcv(tag, in, (int)big, &len, prev); /* buflen larger than the message */
        CHECK(len == (int)sizes[s], "ring size %zu: msglen %d", sizes[s], len);
        check_fill(in, prev, s, sizes[s], __LINE__, "ring message");
        CHECK(in[sizes[s]] == 0xee, "ring size %zu: byte after the message overwritten",
              sizes[s]);
        if (me != 0)
            armci_msg_snd(tag, buf, (int)sizes[s], next);
    }
    /* Tags are matched, not arrival order: two small messages received in
     * the other order; a negative tag works too. */
    {
        int next = (me + 1) % nproc, prev = (me + nproc - 1) % nproc, a = me * 10 + 1,
            b = me * 10 + 2, x = 0;
        armci_msg_snd(11, &a, sizeof a, next);
        armci_msg_snd(-7, &b, sizeof b, next);
        armci_msg_rcv(-7, &x, sizeof x, &len, prev);
        CHECK(x == prev * 10 + 2 && len == (int)sizeof x, "tag -7 got %d (len %d)", x, len);
        armci_msg_rcv(11, &x, sizeof x, NULL, prev);
        CHECK(x == prev * 10 + 1, "tag 11 got %d", x);
    }
    /* rcvany: everyone reports to rank 0, odd ranks with 100 KiB. */
    {
        size_t sz = 100 * 1024;
        if (me != 0) {
            fill(buf, me, 77, sz);
            memcpy(buf, &me, sizeof me);
            armci_msg_snd(300, buf, me % 2 ? (int)sz : 64, 0);
        } else {
            int got[1024] = {0};
            for (int k = 1; k < nproc; k++) {
                int src = armci_msg_rcvany(300, in, (int)big, &len), who;
                memcpy(&who, in, sizeof who);
                CHECK(src >= 1 && src < nproc && !got[src], "rcvany source %d (again?)", src);
                got[src] = 1;
                CHECK(who == src, "rcvany returned %d for a message from %d", src, who);
                CHECK(len == (src % 2 ? (int)sz : 64), "rcvany from %d: len %d", src, len);
                for (size_t i = sizeof who; i < (size_t)len; i++)
                    CHECK(in[i] == pattern(src, 77, i), "rcvany from %d: byte %zu", src, i);
            }
        }
    }
    armci_msg_barrier();
out:
    free(buf);
    free(in);
}

/* ---- bintree ---- */

static void expect_heap(const int *set, int n, int i, int scope)
{
    int root, up, left, right;
    armci_msg_bintree(scope, &root, &up, &left, &right);
    CHECK(root == set[0], "bintree %s: Root %d, want %d", scope_name(scope), root, set[0]);
    if (i < 0) {
        CHECK(up == -1 && left == -1 && right == -1, "bintree %s outside: %d %d %d",
              scope_name(scope), up, left, right);
        return;
    }
    CHECK(up == (i ? set[(i - 1) / 2] : -1), "bintree %s: Up %d", scope_name(scope), up);
    CHECK(left == (2 * i + 1 < n ? set[2 * i + 1] : -1), "bintree %s: Left %d",
          scope_name(scope), left);
    CHECK(right == (2 * i + 2 < n ? set[2 * i + 2] : -1), "bintree %s: Right %d",
          scope_name(scope), right);
}

static void test_bintree(const struct ctx *c)
{
    for (int s = 0; s < NSCOPES; s++) {
        int set[1024], n, mine, scope = scopes[s];
        n = scope_set(c, scope, set, &mine);
        for (int k = 0; k < n; k++)
            set[k] = c->abs[set[k]];
        expect_heap(set, n, mine, scope);
    }
    /* Use it as GA's sparse code does: sum the ranks up the tree. */
    if (c->g == NULL) {
        int root, up, left, right;
        long sum = me, part;
        armci_msg_bintree(SCOPE_ALL, &root, &up, &left, &right);
        if (left >= 0) {
            armci_msg_rcv(400, &part, sizeof part, NULL, left);
            sum += part;
        }
        if (right >= 0) {
            armci_msg_rcv(400, &part, sizeof part, NULL, right);
            sum += part;
        }
        if (up >= 0)
            armci_msg_snd(400, &sum, sizeof sum, up);
        else {
            long want = 0;
            for (int i = 0; i < c->size; i++)
                want += c->abs[i];
            CHECK(sum == want, "bintree sum %ld, want %ld", sum, want);
        }
    }
}

/* ---- barrier ---- */

static void barrier(const struct ctx *c)
{
    if (c->g)
        armci_msg_group_barrier(c->g);
    else
        armci_msg_barrier();
}

static void bcast_all(const struct ctx *c, void *buf, int len, int root, int how)
{
    if (c->g) /* the root as a world rank, as GA passes it */
        armci_msg_group_bcast_scope(SCOPE_ALL, buf, len, c->abs[root], c->g);
    else if (how == 0)
        armci_msg_bcast(buf, len, root);
    else if (how == 1)
        armci_msg_brdcst(buf, len, root);
    else
        armci_msg_bcast_scope(SCOPE_ALL, buf, len, root);
}

/* Nobody leaves before the last one enters: the sleeper's entry time (one
 * host clock for every rank) must precede everyone's exit. */
static void test_barrier(const struct ctx *c)
{
    int iters = c->size < 3 ? c->size : 3;
    for (int k = 0; k < iters; k++) {
        int sleeper = (k * 5 + 1) % c->size;
        double enter = 0, out;
        if (c->rank == sleeper) {
            sleep_ms(60);
            enter = armci_timer();
        }
        barrier(c);
        out = armci_timer();
        bcast_all(c, &enter, sizeof enter, sleeper, 0);
        CHECK(out >= enter, "%s barrier %d: left at %.6f before rank %d entered at %.6f",
              c->name, k, out, c->abs[sleeper], enter);
    }
    for (int k = 0; k < 20; k++)
        barrier(c);
}

/* ---- broadcast ---- */

static void one_bcast(const struct ctx *c, int scope, int root, size_t len, int how,
                      uint8_t *buf)
{
    int set[1024], mine, n = scope_set(c, scope, set, &mine), in_scope = mine >= 0;
    int rabs = c->abs[root];
    size_t salt = len * 3 + (size_t)how + (size_t)scope * 7;

    (void)n;
    if (me == rabs)
        fill(buf, rabs, salt, len);
    else
        memset(buf, 0xee, len + 1);
    if (scope == SCOPE_ALL)
        bcast_all(c, buf, (int)len, root, how);
    else if (c->g)
        armci_msg_group_bcast_scope(scope, buf, (int)len, rabs, c->g);
    else
        armci_msg_bcast_scope(scope, buf, (int)len, root);
    if (in_scope) {
        check_fill(buf, rabs, salt, len, __LINE__, c->name);
    } else {
        for (size_t i = 0; i < len; i++)
            CHECK(buf[i] == 0xee, "%s bcast %s: outside the scope, byte %zu changed", c->name,
                  scope_name(scope), i);
    }
    if (me != rabs)
        CHECK(buf[len] == 0xee, "%s bcast: byte after %zu overwritten", c->name, len);
}

static void test_bcast(const struct ctx *c)
{
    static const size_t sizes[] = {0, 1, 7, 4096, 100 * 1024};
    uint8_t *buf = malloc(1024 * 1024 + 1);
    int roots[8], nroots = 0;

    CHECK(buf, "malloc");
    if (c->size <= 5) {
        for (int r = 0; r < c->size; r++)
            roots[nroots++] = r;
    } else {
        roots[nroots++] = 0;
        roots[nroots++] = 1;
        roots[nroots++] = c->size / 2;
        roots[nroots++] = c->size - 1;
    }
    for (int k = 0; k < nroots; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            one_bcast(c, SCOPE_ALL, roots[k], sizes[s], (int)(k + s) % 3, buf);
    one_bcast(c, SCOPE_ALL, c->size - 1, 1024 * 1024, 0, buf);
    /* SCOPE_NODE: each node's root is its last member; SCOPE_MASTERS: the
     * last node's master. */
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int set[1024], mine, n = scope_set(c, SCOPE_NODE, set, &mine);
        one_bcast(c, SCOPE_NODE, set[n - 1], sizes[s], 0, buf);
        n = scope_set(c, SCOPE_MASTERS, set, &mine);
        one_bcast(c, SCOPE_MASTERS, set[n - 1], sizes[s], 0, buf);
    }
    free(buf);
}

/* ---- reductions ---- */

/* ops[k] computes what fold(sem[k], ...) does; NOPS_MAIN are run over every
 * type, scope and call; the rest are GA's other spellings (prefixes,
 * aliases) and the logical ops, run over fewer combinations. Ops from
 * index 6 on are for the integer types only. */
enum { SUM, PROD, MAX, MIN, ABSMAX, ABSMIN, BOR, BAND, LAND, LOR };
static const char *const ops[] = {"+", "*", "max", "min", "absmax", "absmin", "or", "and",
                                  "&&", "||", "|", "bor", "&", "band", "land", "lor",
                                  "+=", "*=", "maxval", "minval", "absmax_", "absminimum"};
static const int sem[] = {SUM, PROD, MAX, MIN, ABSMAX, ABSMIN, BOR, BAND,
                          LAND, LOR, BOR, BOR, BAND, BAND, LAND, LOR,
                          SUM, PROD, MAX, MIN, ABSMAX, ABSMIN};
enum { NOPS_MAIN = 8, NOPS = sizeof ops / sizeof ops[0], FIRST_FP_ALIAS = 16 };
_Static_assert(sizeof sem / sizeof sem[0] == NOPS, "one meaning per spelling");
static const int types[] = {ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE};
static const char *const tnames[] = {"int", "long", "long long", "float", "double"};
static const size_t tsize[] = {sizeof(int), sizeof(long), sizeof(long long), sizeof(float),
                               sizeof(double)};

static int is_float(int t) { return t == ARMCI_FLOAT || t == ARMCI_DOUBLE; }

static int int_only(int op) { return op >= 6 && op < FIRST_FP_ALIAS; }

/* Rank r's element i: values whose every combination is exact. */
static long long value(int op, int t, int r, int i)
{
    static const int prod[] = {1, -1, 2, 1, -2};
    int bits = tsize[t] == 4 ? 30 : 62;
    switch (sem[op]) {
    case SUM: return (r * 7 + i * 3) % 23 - 11;
    case PROD: return prod[(r + i) % 5];
    case BOR: return 1LL << ((r * 5 + i) % bits);
    case BAND: return ~(1LL << ((r * 5 + i) % bits));
    case LAND: return (r + i) % 4 == 3 ? 0 : r + i + 2; /* some zeros, and not just 1s */
    case LOR: return (r * 3 + i) % 5 == 0 ? r + 3 : 0;
    default: return (r * 37 + i * 11 + t) % 101 - 50;
    }
}

static long long fold(int op, long long a, long long b)
{
    long long ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
    switch (sem[op]) {
    case SUM: return a + b;
    case PROD: return a * b;
    case MAX: return a > b ? a : b;
    case MIN: return a < b ? a : b;
    case ABSMAX: return ma > mb ? ma : mb;
    case ABSMIN: return ma < mb ? ma : mb;
    case BOR: return a | b;
    case LAND: return a && b;
    case LOR: return a || b;
    default: return a & b;
    }
}

static void put(void *buf, int t, int i, long long v)
{
    switch (types[t]) {
    case ARMCI_INT: ((int *)buf)[i] = (int)v; break;
    case ARMCI_LONG: ((long *)buf)[i] = (long)v; break;
    case ARMCI_LONG_LONG: ((long long *)buf)[i] = v; break;
    case ARMCI_FLOAT: ((float *)buf)[i] = (float)v; break;
    default: ((double *)buf)[i] = (double)v; break;
    }
}

/* how: 0 typed call (SCOPE_ALL), 1 gop_scope, 2 reduce / reduce_scope. */
static void call_gop(const struct ctx *c, int how, int scope, void *x, int n, int op, int t)
{
    char *o = (char *)ops[op];
    if (c->g && how == 0) {
        switch (types[t]) {
        case ARMCI_INT: armci_msg_group_igop(x, n, o, c->g); break;
        case ARMCI_LONG: armci_msg_group_lgop(x, n, o, c->g); break;
        case ARMCI_LONG_LONG: armci_msg_group_llgop(x, n, o, c->g); break;
        case ARMCI_FLOAT: armci_msg_group_fgop(x, n, o, c->g); break;
        default: armci_msg_group_dgop(x, n, o, c->g); break;
        }
    } else if (c->g) {
        armci_msg_group_gop_scope(scope, x, n, o, types[t], c->g);
    } else if (how == 0) {
        switch (types[t]) {
        case ARMCI_INT: armci_msg_igop(x, n, o); break;
        case ARMCI_LONG: armci_msg_lgop(x, n, o); break;
        case ARMCI_LONG_LONG: armci_msg_llgop(x, n, o); break;
        case ARMCI_FLOAT: armci_msg_fgop(x, n, o); break;
        default: armci_msg_dgop(x, n, o); break;
        }
    } else if (how == 1) {
        armci_msg_gop_scope(scope, x, n, o, types[t]);
    } else if (scope == SCOPE_ALL) {
        armci_msg_reduce(x, n, o, types[t]);
    } else {
        armci_msg_reduce_scope(scope, x, n, o, types[t]);
    }
}

static void one_gop(const struct ctx *c, int how, int scope, int op, int t, int n)
{
    int set[1024], mine, cnt = scope_set(c, scope, set, &mine);
    size_t es = tsize[t];
    char *x = malloc((size_t)n * es + 1), *want = malloc((size_t)n * es + 1);

    CHECK(x && want, "malloc");
    for (int i = 0; i < n; i++) {
        long long acc = value(op, t, me, i);
        put(x, t, i, acc);
        if (mine >= 0) {
            acc = value(op, t, c->abs[set[0]], i);
            if (sem[op] == ABSMAX || sem[op] == ABSMIN)
                acc = acc < 0 ? -acc : acc;
            for (int k = 1; k < cnt; k++)
                acc = fold(op, acc, value(op, t, c->abs[set[k]], i));
        }
        put(want, t, i, acc);
    }
    call_gop(c, how, scope, n ? x : NULL, n, op, t);
    for (int i = 0; i < n; i++)
        if (memcmp(x + (size_t)i * es, want + (size_t)i * es, es) != 0)
            FAIL("%s gop how %d scope %s op %s type %s n %d: element %d differs%s", c->name,
                 how, scope_name(scope), ops[op], tnames[t], n, i,
                 mine < 0 ? " (outside the scope: must be unchanged)" : "");
    free(x);
    free(want);
}

static void test_gop(const struct ctx *c)
{
    for (int t = 0; t < 5; t++) {
        for (int op = 0; op < NOPS; op++) {
            if (int_only(op) && is_float(types[t]))
                continue;
            one_gop(c, 0, SCOPE_ALL, op, t, 5);
            if (op >= NOPS_MAIN) { /* another spelling: one scoped call is enough */
                one_gop(c, 1, scopes[op % NSCOPES], op, t, 3);
                continue;
            }
            for (int s = 0; s < NSCOPES; s++) {
                one_gop(c, 1, scopes[s], op, t, 3);
                if (!c->g)
                    one_gop(c, 2, scopes[s], op, t, 2);
            }
        }
        one_gop(c, 0, SCOPE_ALL, 0, t, 0);
        one_gop(c, 1, SCOPE_NODE, 2, t, 1);
    }
    /* Long vectors: larger than an eager message. */
    one_gop(c, 0, SCOPE_ALL, 0, 4, 40000);
    one_gop(c, 1, SCOPE_NODE, 0, 0, 30000);
    one_gop(c, 1, SCOPE_MASTERS, 2, 2, 20000);
}

/* ---- selection (default group only: there is no group variant) ---- */

struct selx {
    union { int i; long l; long long ll; float f; double d; } v; /* first element */
    int who;
    int magic;
};

static void put_sel(struct selx *s, int t, long long v, int who)
{
    memset(s, 0, sizeof *s);
    put(&s->v, t, 0, v);
    s->who = who;
    s->magic = 0x5e1;
}

/* contrib: 0 everyone but rank % 4 == 1 offers, 1 nobody, 2 only the
 * scope's last member. */
static int offers(int contrib, int a, int k, int cnt)
{
    return contrib == 0 ? a % 4 != 1 : contrib == 1 ? 0 : k == cnt - 1;
}

static void one_sel(const struct ctx *c, int scope, int max, int t, int contrib)
{
    int set[1024], mine, cnt = scope_set(c, scope, set, &mine), best = -1, off;
    long long bestv = 0;
    struct selx x, want;

    for (int k = 0; k < cnt; k++) {
        int a = c->abs[set[k]];
        long long v = (a * 5) % 3; /* ties on purpose: the lowest rank must win */
        if (offers(contrib, a, k, cnt) && (best < 0 || (max ? v > bestv : v < bestv))) {
            best = a;
            bestv = v;
        }
    }
    /* A noncontributor's value would win: it must be ignored. */
    off = mine >= 0 && offers(contrib, me, mine, cnt);
    put_sel(&x, t, off ? (me * 5) % 3 : (max ? 1000 : -1000), me);
    want = x; /* outside the scope, or nobody offers: unchanged */
    armci_msg_sel_scope(scope, &x, sizeof x, max ? "max" : "min", types[t], off);
    if (mine >= 0 && best >= 0)
        put_sel(&want, t, bestv, best);
    CHECK(memcmp(&x, &want, sizeof x) == 0,
          "%s sel scope %s %s type %s contrib %d: got who %d, want who %d", c->name,
          scope_name(scope), max ? "max" : "min", tnames[t], contrib, x.who, want.who);
}

static void test_sel(const struct ctx *c)
{
    for (int t = 0; t < 5; t++)
        for (int s = 0; s < NSCOPES; s++)
            for (int max = 0; max < 2; max++)
                for (int contrib = 0; contrib < 3; contrib++)
                    one_sel(c, scopes[s], max, t, contrib);
    {
        struct selx x;
        int top = 0;
        for (int i = 0; i < c->size; i++)
            top = c->abs[i] > top ? c->abs[i] : top;
        put_sel(&x, 4, me, me);
        armci_msg_sel(&x, sizeof x, "max", ARMCI_DOUBLE, 1);
        CHECK(x.who == top && x.v.d == top, "armci_msg_sel: winner %d, want %d", x.who, top);
        /* GA matches "min"/"max" by prefix too */
        put_sel(&x, 0, -me, me);
        armci_msg_sel(&x, sizeof x, "minimum", ARMCI_INT, 1);
        CHECK(x.who == top && x.v.i == -top, "armci_msg_sel \"minimum\": winner %d, want %d",
              x.who, top);
    }
}

/* A binary built against ARMCI-MPI's message.h passes its numbers: scopes
 * 0..2 (ALL, NODE, MASTERS) and types 0..4 (INT, LONG, LONG_LONG, FLOAT,
 * DOUBLE). Each call must do what the same call with GA's values does. */
static void test_armci_mpi_numbers(const struct ctx *c)
{
    for (int t = 0; t < 5; t++)
        for (int s = 0; s < NSCOPES; s++) {
            long long x[3], y[3]; /* room for 3 of any type */
            for (int i = 0; i < 3; i++) {
                put(x, t, i, value(0, t, me, i));
                put(y, t, i, value(0, t, me, i));
            }
            armci_msg_gop_scope(s, x, 3, "+", t);
            armci_msg_gop_scope(scopes[s], y, 3, "+", types[t]);
            CHECK(memcmp(x, y, 3 * tsize[t]) == 0, "gop_scope(%d, type %d) differs from "
                  "gop_scope(SCOPE_%s, %s)", s, t, scope_name(scopes[s]), tnames[t]);
        }
    for (int s = 0; s < NSCOPES; s++) {
        int r1, u1, l1, g1, r2, u2, l2, g2;
        armci_msg_bintree(s, &r1, &u1, &l1, &g1);
        armci_msg_bintree(scopes[s], &r2, &u2, &l2, &g2);
        CHECK(r1 == r2 && u1 == u2 && l1 == l2 && g1 == g2, "bintree(%d) differs from "
              "bintree(SCOPE_%s)", s, scope_name(scopes[s]));
        int set[1024], mine, n = scope_set(c, scopes[s], set, &mine);
        (void)n;
        char buf[64];
        fill(buf, c->abs[set[0]], 77 + (size_t)s, sizeof buf);
        if (mine != 0)
            memset(buf, 0, sizeof buf);
        armci_msg_bcast_scope(s, buf, sizeof buf, set[0]);
        if (mine >= 0)
            check_fill(buf, c->abs[set[0]], 77 + (size_t)s, sizeof buf, __LINE__,
                       "bcast_scope in ARMCI-MPI's numbering");
        struct selx x, w;
        put_sel(&x, 1, me % 3, me);
        put_sel(&w, 1, me % 3, me);
        armci_msg_sel_scope(s, &x, sizeof x, "max", 1, 1);
        armci_msg_sel_scope(scopes[s], &w, sizeof w, "max", ARMCI_LONG, 1);
        CHECK(memcmp(&x, &w, sizeof x) == 0, "sel_scope(%d, type 1): winner %d, want %d", s,
              x.who, w.who);
    }
}

static void suite(const struct ctx *c)
{
    if (c->rank == 0)
        printf("%s: %d ranks\n", c->name, c->size);
    test_barrier(c);
    if (!c->g) /* bintree has no group variant: it follows the default group */
        test_bintree(c);
    test_bcast(c);
    test_gop(c);
    if (!c->g) {
        test_sel(c);
        test_armci_mpi_numbers(c);
    }
    barrier(c);
}

/* ---- error cases: one bad call each ---- */

static int err_case(const char *name)
{
    int x[4] = {0}, len;
    float f[2] = {0};
    ARMCI_Group g;

    if (!strcmp(name, "rcv_overflow")) {
        char big[100] = {0}, small[10];
        if (me == 0)
            armci_msg_snd(9, big, sizeof big, 1);
        else if (me == 1)
            armci_msg_rcv(9, small, sizeof small, &len, 0);
        else
            return 1;
        return me == 0;
    }
    if (!strcmp(name, "bad_op"))
        armci_msg_igop(x, 4, "sum"); /* no known name is a prefix of it */
    else if (!strcmp(name, "or_float"))
        armci_msg_fgop(f, 2, "or");
    else if (!strcmp(name, "land_double")) {
        double d[2] = {1, 1};
        armci_msg_dgop(d, 2, "land");
    }
    else if (!strcmp(name, "bad_type"))
        armci_msg_gop_scope(SCOPE_ALL, x, 4, "+", 99);
    else if (!strcmp(name, "null_buf"))
        armci_msg_dgop(NULL, 3, "+");
    else if (!strcmp(name, "neg_n"))
        armci_msg_igop(x, -1, "+");
    else if (!strcmp(name, "neg_len"))
        armci_msg_snd(1, x, -1, 0);
    else if (!strcmp(name, "bad_to"))
        armci_msg_snd(1, x, 4, nproc);
    else if (!strcmp(name, "bad_scope"))
        armci_msg_gop_scope(7, x, 4, "+", ARMCI_INT);
    else if (!strcmp(name, "bad_root"))
        armci_msg_bcast(x, 4, nproc);
    else if (!strcmp(name, "sel_op"))
        armci_msg_sel(x, sizeof x, "avg", ARMCI_INT, 1);
    else if (!strcmp(name, "abort"))
        armci_msg_abort(7);
    else if (!strcmp(name, "group_freed")) {
        int all = 0;
        ARMCI_Group_create(1, &all, &g);
        ARMCI_Group_free(&g);
        armci_msg_group_igop(x, 4, "+", &g);
    } else {
        fprintf(stderr, "unknown error case %s\n", name);
        return 1;
    }
    return 0; /* the call returned: the test must fail */
}

int main(int argc, char **argv)
{
    const char *s = getenv("EMUNIC_LOCAL_SIZE");
    struct ctx *w = calloc(1, sizeof *w), *gc = calloc(1, sizeof *gc);
    ARMCI_Group world, grp;
    int pids[1024], np = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    rpn = s ? atoi(s) : 0;
    if (ARMCI_Init() != 0 || rpn <= 0) {
        fprintf(stderr, "FAIL rank ? test_msg.c:%d ARMCI_Init or EMUNIC_LOCAL_SIZE\n", __LINE__);
        return 1;
    }
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    if (argc == 3 && !strcmp(argv[1], "err")) {
        int rc = err_case(argv[2]);
        if (rc == 0)
            printf("NO ERROR from case %s on rank %d\n", argv[2], me);
        ARMCI_Finalize();
        return 0;
    }
    CHECK(getenv("EMUNIC_RANK") && me == atoi(getenv("EMUNIC_RANK")), "armci_msg_me %d", me);
    CHECK(getenv("EMUNIC_SIZE") && nproc == atoi(getenv("EMUNIC_SIZE")), "nproc %d", nproc);
    CHECK(nproc <= 1024, "at most 1024 ranks");
    {
        double t0 = armci_timer(), t1;
        sleep_ms(10);
        t1 = armci_timer();
        CHECK(t1 - t0 >= 0.009 && t1 - t0 < 5, "armci_timer: 10 ms measured as %.6f s", t1 - t0);
    }

    test_snd_rcv();

    w->name = "world";
    w->size = nproc;
    w->rank = me;
    for (int i = 0; i < nproc; i++)
        w->abs[i] = i;
    suite(w);

    /* A group of the ranks r % 3 != 1, highest first: odd sizes, members
     * not contiguous, group order unlike world order. */
    for (int r = nproc - 1; r >= 0; r--)
        if (r % 3 != 1)
            pids[np++] = r;
    ARMCI_Group_create(np, pids, &grp);
    ARMCI_Group_get_world(&world);
    gc->name = "group";
    gc->g = &grp;
    gc->size = np;
    gc->rank = -1;
    for (int i = 0; i < np; i++) {
        gc->abs[i] = pids[i];
        if (pids[i] == me)
            gc->rank = i;
    }
    if (gc->rank >= 0) {
        suite(gc);
        /* The same group as the default: the plain calls follow it. */
        ARMCI_Group_set_default(&grp);
        gc->g = NULL;
        gc->name = "default=group";
        suite(gc);
        ARMCI_Group_set_default(&world);
    }
    ARMCI_Group_free(&grp);
    armci_msg_barrier();
    if (me == 0)
        printf("test_msg: all checks passed on %d ranks\n", nproc);
    ARMCI_Finalize();
    free(w);
    free(gc);
    return 0;
}
