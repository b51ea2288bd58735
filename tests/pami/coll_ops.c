/* Allreduce and reduce for every (op, type) pair, on one algorithm of each
 * family: the butterfly, the shared-memory hybrid, and the CAU hybrid where
 * its metadata accepts the pair (32/64-bit integers with every op; floats
 * with SUM, PROD, MIN, MAX). Values are small integers so that float sums are
 * exact whatever the order. */
#include "coll_test.h"

struct tdesc {
    const char *name;
    pami_type_t *t;
    size_t size;
    int kind; /* 0 signed int, 1 unsigned, 2 float */
};

static void put(void *p, const struct tdesc *d, long long v)
{
    switch (d->kind * 100 + (int)d->size) {
    case 1: *(int8_t *)p = (int8_t)v; break;
    case 2: *(int16_t *)p = (int16_t)v; break;
    case 4: *(int32_t *)p = (int32_t)v; break;
    case 8: *(int64_t *)p = (int64_t)v; break;
    case 101: *(uint8_t *)p = (uint8_t)v; break;
    case 102: *(uint16_t *)p = (uint16_t)v; break;
    case 104: *(uint32_t *)p = (uint32_t)v; break;
    case 108: *(uint64_t *)p = (uint64_t)v; break;
    case 204: *(float *)p = (float)v; break;
    case 208: *(double *)p = (double)v; break;
    default: FAIL("type size %zu", d->size);
    }
}

static long long get(const void *p, const struct tdesc *d)
{
    switch (d->kind * 100 + (int)d->size) {
    case 1: return *(const int8_t *)p;
    case 2: return *(const int16_t *)p;
    case 4: return *(const int32_t *)p;
    case 8: return *(const int64_t *)p;
    case 101: return *(const uint8_t *)p;
    case 102: return *(const uint16_t *)p;
    case 104: return *(const uint32_t *)p;
    case 108: return (long long)*(const uint64_t *)p;
    case 204: return (long long)*(const float *)p;
    case 208: return (long long)*(const double *)p;
    default: FAIL("type size %zu", d->size);
    }
}

enum { O_SUM, O_PROD, O_MIN, O_MAX, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_N };

static long long val(size_t t, size_t i, int op)
{
    if (op == O_PROD)
        return (long long)((t + i) % 3 == 0) + 1; /* 1 or 2 */
    if (op >= O_LAND)
        return (long long)((t * 3 + i) % 4 != 0);
    return (long long)((t * 37 + i * 11) % 61) + (op == O_BAND ? 64 : 0);
}

static long long apply(int op, long long a, long long b, int is_float)
{
    switch (op) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MIN: return a < b ? a : b;
    case O_MAX: return a > b ? a : b;
    case O_BAND: return is_float ? 0 : (a & b);
    case O_BOR: return a | b;
    case O_BXOR: return a ^ b;
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    default: return (!a) != (!b);
    }
}

int main(int argc, char **argv)
{
    ct_init(argc, argv);
    struct tdesc types[] = {
        {"signed char", &PAMI_TYPE_SIGNED_CHAR, 1, 0},   {"unsigned char", &PAMI_TYPE_UNSIGNED_CHAR, 1, 1},
        {"short", &PAMI_TYPE_SIGNED_SHORT, 2, 0},        {"unsigned short", &PAMI_TYPE_UNSIGNED_SHORT, 2, 1},
        {"int", &PAMI_TYPE_SIGNED_INT, 4, 0},            {"unsigned", &PAMI_TYPE_UNSIGNED_INT, 4, 1},
        {"long long", &PAMI_TYPE_SIGNED_LONG_LONG, 8, 0}, {"unsigned long long", &PAMI_TYPE_UNSIGNED_LONG_LONG, 8, 1},
        {"long", &PAMI_TYPE_SIGNED_LONG, sizeof(long), 0}, {"unsigned long", &PAMI_TYPE_UNSIGNED_LONG, sizeof(long), 1},
        {"float", &PAMI_TYPE_FLOAT, 4, 2},               {"double", &PAMI_TYPE_DOUBLE, 8, 2},
    };
    pami_data_function *ops[O_N] = {&PAMI_DATA_SUM,  &PAMI_DATA_PROD, &PAMI_DATA_MIN,  &PAMI_DATA_MAX,
                                    &PAMI_DATA_BAND, &PAMI_DATA_BOR,  &PAMI_DATA_BXOR, &PAMI_DATA_LAND,
                                    &PAMI_DATA_LOR,  &PAMI_DATA_LXOR};
    const char *algs[] = {"RecursiveDoubling", "Hybrid:SHMEM:P2P", "Hybrid:SHMEM:CAU", "Binomial"};
    size_t count = 8; /* 8 elements: <= 64 bytes, so the CAU takes them */
    char sb[64], rb[64];
    size_t ran = 0, cau_ran = 0;
    for (size_t a = 0; a < 4; a++) {
        pami_xfer_t x;
        memset(&x, 0, sizeof x);
        pami_metadata_t md;
        int list;
        int is_reduce = a == 3;
        CHECK(ct_find(ct_world, is_reduce ? PAMI_XFER_REDUCE : PAMI_XFER_ALLREDUCE, algs[a], &x.algorithm, &md, &list),
              "no %s", algs[a]);
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
            for (int op = 0; op < O_N; op++) {
                const struct tdesc *d = &types[ti];
                int is_float = d->kind == 2;
                if (is_float && op >= O_BAND) /* bitwise and logical ops: integers only */
                    continue;
                size_t root = (ti + (size_t)op) % ct_size;
                for (size_t i = 0; i < count; i++)
                    put(sb + i * d->size, d, val(ct_task, i, op));
                memset(rb, 0x77, sizeof rb);
                if (is_reduce) {
                    pami_reduce_t *r = &x.cmd.xfer_reduce;
                    PAMI_Endpoint_create(ct_client, (pami_task_t)root, 0, &r->root);
                    r->sndbuf = sb;
                    r->rcvbuf = rb;
                    r->stype = r->rtype = *d->t;
                    r->stypecount = r->rtypecount = count;
                    r->op = *ops[op];
                } else {
                    pami_allreduce_t *r = &x.cmd.xfer_allreduce;
                    r->sndbuf = sb;
                    r->rcvbuf = rb;
                    r->stype = r->rtype = *d->t;
                    r->stypecount = r->rtypecount = count;
                    r->op = *ops[op];
                }
                if (!ct_allowed(&md, list, &x, count * d->size))
                    continue;
                ct_run(&x, algs[a]);
                ran++;
                cau_ran += a == 2;
                if (is_reduce && ct_task != root)
                    continue;
                for (size_t i = 0; i < count; i++) {
                    long long want = val(0, i, op);
                    for (size_t t = 1; t < ct_size; t++)
                        want = apply(op, want, val(t, i, op), is_float);
                    char w[8];
                    put(w, d, want); /* wrap like the type does */
                    CHECK(get(rb + i * d->size, d) == get(w, d), "%s %s op %d [%zu]: %lld want %lld", algs[a],
                          d->name, op, i, get(rb + i * d->size, d), get(w, d));
                }
            }
    }
    /* int, unsigned, long, unsigned long, long long, unsigned long long:
     * all 10 ops each; float, double: SUM, PROD, MIN, MAX */
    CHECK(cau_ran == 6 * 10 + 2 * 4, "the CAU took %zu (op, type) pairs, expected 68", cau_ran);
    ct_fini();
    if (ct_task == 0)
        printf("coll_ops: %zu checks ok\n", ran);
    return 0;
}
