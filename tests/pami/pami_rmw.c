/* PAMI_Rmw: every pami_atomic_t that fetches or modifies (22 of them) x
 * PAMI_TYPE_{SIGNED,UNSIGNED}_{INT,LONG,LONG_LONG}, compare forms once
 * with a true and once with a false test, on the right neighbour's memory,
 * checked against a local reference (the word after the result, the
 * fetched value, and the neighbouring words: a 32-bit operation must not
 * touch the next 4 bytes); then concurrent fetch-and-adds from every task
 * on one counter form a permutation, and a compare-and-swap loop from
 * every task counts exactly. */
#include "ptest.h"

#define NTYPES 6
#define NCASES 512 /* per type: 22 ops x 2 tests, rounded up */

static const char *type_names[NTYPES] = {"SIGNED_INT", "UNSIGNED_INT", "SIGNED_LONG", "UNSIGNED_LONG",
                                          "SIGNED_LONG_LONG", "UNSIGNED_LONG_LONG"};

static pami_type_t type_of(int t)
{
    switch (t) {
    case 0: return PAMI_TYPE_SIGNED_INT;
    case 1: return PAMI_TYPE_UNSIGNED_INT;
    case 2: return PAMI_TYPE_SIGNED_LONG;
    case 3: return PAMI_TYPE_UNSIGNED_LONG;
    case 4: return PAMI_TYPE_SIGNED_LONG_LONG;
    default: return PAMI_TYPE_UNSIGNED_LONG_LONG;
    }
}

static size_t size_of(int t)
{
    switch (t) {
    case 0:
    case 1: return sizeof(int);
    case 2:
    case 3: return sizeof(long);
    default: return sizeof(long long);
    }
}

/* the 22 operations */
static unsigned ops[32];
static size_t nops;

static void make_ops(void)
{
    const unsigned mods[] = {0, PAMI_ATOMIC_SET, PAMI_ATOMIC_ADD, PAMI_ATOMIC_OR, PAMI_ATOMIC_AND,
                             PAMI_ATOMIC_XOR};
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++)
            for (size_t m = 0; m < 6; m++) {
                unsigned op = (f ? PAMI_ATOMIC_FETCH : 0) | (c ? PAMI_ATOMIC_COMPARE : 0) | mods[m];
                if (!f && !mods[m])
                    continue;
                ops[nops++] = op;
            }
    CHECK(nops == 22, "%zu operations", nops);
    /* the header's composite names are these bits */
    CHECK(PAMI_ATOMIC_FETCH_COMPARE_XOR == (PAMI_ATOMIC_FETCH | PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_XOR) &&
              PAMI_ATOMIC_COMPARE_ADD == (PAMI_ATOMIC_COMPARE | PAMI_ATOMIC_ADD) &&
              PAMI_ATOMIC_FETCH_SET == (PAMI_ATOMIC_FETCH | PAMI_ATOMIC_SET),
          "pami_atomic_t composites");
}

/* the reference: old value in, new value out (masked to the width) */
static uint64_t apply(unsigned op, uint64_t old, uint64_t value, uint64_t test, uint64_t mask)
{
    if ((op & PAMI_ATOMIC_COMPARE) && old != (test & mask))
        return old;
    switch (op & (7u << 2)) {
    case PAMI_ATOMIC_SET: return value & mask;
    case PAMI_ATOMIC_ADD: return (old + value) & mask;
    case PAMI_ATOMIC_OR: return old | (value & mask);
    case PAMI_ATOMIC_AND: return old & value & mask;
    case PAMI_ATOMIC_XOR: return (old ^ value) & mask;
    default: return old;
    }
}

static uint64_t load(const unsigned char *p, size_t n)
{
    if (n == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void store(unsigned char *p, size_t n, uint64_t v)
{
    if (n == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    } else {
        memcpy(p, &v, 8);
    }
}

static uint64_t initial(int t, size_t k) { return 0x9e3779b97f4a7c15ull * (k + 1) ^ (uint64_t)t << 60 ^ 0x8000000080000000ull; }
static uint64_t operand(int t, size_t k) { return 0xc2b2ae3d27d4eb4full * (k + 3) + (uint64_t)t; }

static unsigned char *target; /* NTYPES x NCASES x 8 bytes, written by the left neighbour */
static uint64_t targets[PT_MAX_TASKS];

static void matrix(void)
{
    size_t right = (pt_task + 1) % pt_size;
    pami_endpoint_t ep = pt_ep(right, 0);
    size_t total = (size_t)NTYPES * NCASES * 8;
    unsigned char *init = malloc(total), *expect = malloc(total);
    /* results: each in its own 16-byte cell; bytes after the value are guards */
    unsigned char *fetched = malloc((size_t)NTYPES * NCASES * 16);
    uint64_t *want_fetch = calloc((size_t)NTYPES * NCASES, sizeof *want_fetch);
    memset(fetched, 0x5c, (size_t)NTYPES * NCASES * 16);
    /* slots are packed at the type's width, so a wrong width shows in the
     * neighbour slot */
    for (int t = 0; t < NTYPES; t++) {
        size_t w = size_of(t);
        uint64_t mask = w == 4 ? 0xffffffffull : ~0ull;
        unsigned char *base = init + (size_t)t * NCASES * 8;
        for (size_t k = 0; k < NCASES; k++)
            store(base + k * w, w, initial(t, k) & mask);
    }
    memcpy(expect, init, total);
    /* every slot initialised on the target first (PAMI orders nothing
     * between a put and an rmw: wait for the put's remote completion) */
    atomic_long pc = 0;
    pami_put_simple_t p;
    memset(&p, 0, sizeof p);
    p.rma.dest = ep;
    p.rma.bytes = total;
    p.rma.cookie = &pc;
    p.put.rdone_fn = pt_count_cb;
    p.addr.local = init;
    p.addr.remote = (void *)(uintptr_t)targets[right];
    CHECK_RC(PAMI_Put(pt_ctx[0], &p), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &pc, 1, 30);

    atomic_long done = 0;
    long posted = 0;
    uint64_t values[NTYPES][NCASES], tests[NTYPES][NCASES];
    for (int t = 0; t < NTYPES; t++) {
        size_t w = size_of(t);
        uint64_t mask = w == 4 ? 0xffffffffull : ~0ull;
        unsigned char *ex = expect + (size_t)t * NCASES * 8;
        size_t k = 0;
        for (size_t o = 0; o < nops; o++) {
            for (int truth = 0; truth < 2; truth++) {
                unsigned op = ops[o];
                if (!(op & PAMI_ATOMIC_COMPARE) && truth)
                    continue;
                uint64_t old = load(ex + k * w, w);
                values[t][k] = operand(t, k);
                tests[t][k] = truth ? old : old ^ 0x10; /* a true and a false test */
                if (!(op & PAMI_ATOMIC_COMPARE))
                    tests[t][k] = old; /* ignored */
                want_fetch[(size_t)t * NCASES + k] = old;
                store(ex + k * w, w, apply(op, old, values[t][k], tests[t][k], mask));
                pami_rmw_t r;
                memset(&r, 0, sizeof r);
                r.dest = ep;
                r.cookie = &done;
                r.done_fn = pt_count_cb;
                r.local = (op & PAMI_ATOMIC_FETCH) ? fetched + ((size_t)t * NCASES + k) * 16 : NULL;
                r.remote = (void *)(uintptr_t)(targets[right] + (size_t)t * NCASES * 8 + k * w);
                r.value = &values[t][k];
                r.test = &tests[t][k];
                r.operation = (pami_atomic_t)op;
                r.type = type_of(t);
                CHECK_RC(PAMI_Rmw(pt_ctx[0], &r), PAMI_SUCCESS);
                posted++;
                k++;
            }
        }
        CHECK(k <= NCASES, "too many cases");
    }
    /* values and tests are read at the call: little-endian hosts pass the
     * low bytes of the uint64 for 32-bit types */
    pt_wait(pt_ctx[0], &done, posted, 30);
    /* read everything back */
    unsigned char *back = malloc(total);
    atomic_long gc = 0;
    pami_get_simple_t g;
    memset(&g, 0, sizeof g);
    g.rma.dest = ep;
    g.rma.bytes = total;
    g.rma.cookie = &gc;
    g.rma.done_fn = pt_count_cb;
    g.addr.local = back;
    g.addr.remote = (void *)(uintptr_t)targets[right];
    CHECK_RC(PAMI_Get(pt_ctx[0], &g), PAMI_SUCCESS);
    pt_wait(pt_ctx[0], &gc, 1, 30);
    for (int t = 0; t < NTYPES; t++) {
        size_t w = size_of(t);
        size_t k = 0;
        for (size_t o = 0; o < nops; o++)
            for (int truth = 0; truth < 2; truth++) {
                unsigned op = ops[o];
                if (!(op & PAMI_ATOMIC_COMPARE) && truth)
                    continue;
                size_t at = (size_t)t * NCASES * 8 + k * w;
                uint64_t got = load(back + at, w), want = load(expect + at, w);
                CHECK(got == want, "%s op 0x%x (compare %s): memory 0x%llx, want 0x%llx (was 0x%llx, value 0x%llx)",
                      type_names[t], op, truth ? "true" : "false", (unsigned long long)got,
                      (unsigned long long)want, (unsigned long long)want_fetch[(size_t)t * NCASES + k],
                      (unsigned long long)values[t][k]);
                unsigned char *cell = fetched + ((size_t)t * NCASES + k) * 16;
                if (op & PAMI_ATOMIC_FETCH) {
                    uint64_t f = load(cell, w);
                    CHECK(f == want_fetch[(size_t)t * NCASES + k], "%s op 0x%x: fetched 0x%llx, want 0x%llx",
                          type_names[t], op, (unsigned long long)f,
                          (unsigned long long)want_fetch[(size_t)t * NCASES + k]);
                    for (size_t b = w; b < 16; b++)
                        CHECK(cell[b] == 0x5c, "%s op 0x%x: the result wrote byte %zu of local", type_names[t], op, b);
                } else {
                    for (size_t b = 0; b < 16; b++)
                        CHECK(cell[b] == 0x5c, "%s op 0x%x does not fetch but wrote local", type_names[t], op);
                }
                k++;
            }
        /* untouched slots after the cases */
        for (size_t b = k * w; b < NCASES * 8; b++)
            CHECK(back[(size_t)t * NCASES * 8 + b] == expect[(size_t)t * NCASES * 8 + b],
                  "%s: byte %zu past the cases changed", type_names[t], b);
    }
    free(init);
    free(expect);
    free(fetched);
    free(want_fetch);
    free(back);
    pt_barrier();
}

/* ---- concurrency ---- */

static uint64_t counter64;
static uint32_t counter32;
static uint64_t cas_word;

#define PER 12 /* 12 x 8 bytes = the harness's all-gather limit */

static void permutation(void)
{
    uint64_t addrs[3] = {(uint64_t)(uintptr_t)&counter64, (uint64_t)(uintptr_t)&counter32,
                         (uint64_t)(uintptr_t)&cas_word};
    uint64_t all[PT_MAX_TASKS][3];
    /* 3 x 8 = 24 bytes per task */
    pt_allgather(addrs, sizeof addrs, all);
    pami_endpoint_t ep0 = pt_ep(0, 0);
    const int rounds = 4;
    unsigned char *seen = calloc((size_t)rounds * PER * pt_size, 1);
    for (int r = 0; r < rounds; r++) {
        uint64_t old[PER];
        uint32_t old32[PER];
        atomic_long done = 0;
        uint64_t one = 1;
        uint32_t one32 = 1;
        for (int i = 0; i < PER; i++) {
            pami_rmw_t m;
            memset(&m, 0, sizeof m);
            m.dest = ep0;
            m.cookie = &done;
            m.done_fn = pt_count_cb;
            m.local = &old[i];
            m.remote = (void *)(uintptr_t)all[0][0];
            m.value = &one;
            m.operation = PAMI_ATOMIC_FETCH_ADD;
            m.type = PAMI_TYPE_UNSIGNED_LONG_LONG;
            CHECK_RC(PAMI_Rmw(pt_ctx[0], &m), PAMI_SUCCESS);
            m.local = &old32[i];
            m.remote = (void *)(uintptr_t)all[0][1];
            m.value = &one32;
            m.type = PAMI_TYPE_UNSIGNED_INT;
            CHECK_RC(PAMI_Rmw(pt_ctx[0], &m), PAMI_SUCCESS);
        }
        pt_wait(pt_ctx[0], &done, 2 * PER, 30);
        uint64_t olds[PT_MAX_TASKS][PER];
        pt_allgather(old, sizeof old, olds);
        for (size_t t = 0; t < pt_size; t++)
            for (int i = 0; i < PER; i++) {
                uint64_t v = olds[t][i];
                CHECK(v < (uint64_t)rounds * PER * pt_size && !seen[v],
                      "fetch-and-add values are not a permutation: %llu from task %zu",
                      (unsigned long long)v, t);
                seen[v] = 1;
            }
        /* the 32-bit counter moves in step: own values distinct */
        for (int i = 0; i < PER; i++)
            for (int j = 0; j < i; j++)
                CHECK(old32[i] != old32[j], "32-bit fetch-and-add returned %u twice", old32[i]);
    }
    pt_barrier();
    if (pt_task == 0)
        CHECK(counter64 == (uint64_t)rounds * PER * pt_size && counter32 == counter64,
              "counters %llu / %u, want %zu", (unsigned long long)counter64, counter32,
              (size_t)rounds * PER * pt_size);
    free(seen);

    /* compare-and-swap increments: retries on a false compare */
    const int incs = 30;
    int retries = 0;
    for (int i = 0; i < incs; i++) {
        uint64_t guess = 0;
        for (;;) {
            uint64_t val = guess + 1, got = ~0ull;
            atomic_long done = 0;
            pami_rmw_t m;
            memset(&m, 0, sizeof m);
            m.dest = ep0;
            m.cookie = &done;
            m.done_fn = pt_count_cb;
            m.local = &got;
            m.remote = (void *)(uintptr_t)all[0][2];
            m.value = &val;
            m.test = &guess;
            m.operation = PAMI_ATOMIC_FETCH_COMPARE_SET;
            m.type = PAMI_TYPE_SIGNED_LONG_LONG;
            CHECK_RC(PAMI_Rmw(pt_ctx[0], &m), PAMI_SUCCESS);
            pt_wait(pt_ctx[0], &done, 1, 30);
            if (got == guess)
                break;
            CHECK(got > guess || guess == 0, "the word went backwards: %llu after %llu", (unsigned long long)got,
                  (unsigned long long)guess);
            guess = got;
            retries++;
            CHECK(retries < 100000, "compare-and-swap never succeeds");
        }
    }
    pt_barrier();
    if (pt_task == 0)
        CHECK(cas_word == (uint64_t)incs * pt_size, "compare-and-swap counter %llu, want %zu",
              (unsigned long long)cas_word, (size_t)incs * pt_size);
    pt_barrier();
}

int main(void)
{
    pt_init(1);
    make_ops();
    target = calloc((size_t)NTYPES * NCASES, 8);
    uint64_t mine = (uint64_t)(uintptr_t)target;
    pt_allgather(&mine, sizeof mine, targets);
    matrix();
    permutation();
    pt_finish("pami_rmw");
    free(target);
    return 0;
}
