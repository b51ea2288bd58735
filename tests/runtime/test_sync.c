/* Synchronisation and completion semantics under emunic-run:
 *  - ARMCI_Rmw (all four ops) hammered by every rank on counters at rank 0
 *    and the last rank: final values exact, fetched values gathered and
 *    checked to be a permutation (fetch-and-add) or to conserve the tokens
 *    (swap); fetch-and-add on process-private memory too;
 *  - mutexes spread over ranks guarding a non-atomic Get + Put + Fence
 *    increment, with an Rmw occupancy count inside the critical section;
 *  - Fence: a put fenced to its target is seen by a third rank told by a
 *    message; AllFence: writes to every rank are seen after a plain
 *    message barrier; both over every data path (RDMA, server, accumulate,
 *    implicit non-blocking);
 *  - location consistency: accumulate / put then get by the same rank
 *    without a fence (under ARMCI_ORDER=strict; other orders fence first);
 *  - non-blocking overlap: many contiguous and short-run strided (server)
 *    operations in flight with explicit, implicit (NULL) and aggregate
 *    handles, completed by Wait, Test, WaitProc and WaitAll, with
 *    computation in between;
 *  - PutValue / NbPutValue / GetValue for int, long, float, double;
 *    Put_flag and PutS_flag; Access_begin/end; Copy;
 *  - Malloc with differing (and zero) sizes, Malloc_group / Free_group;
 *  - Same_node and armci_domain_* against the launcher's layout.
 *
 * Prints one summary line from rank 0; a mismatch prints
 * "FAIL rank R file:line what" and exits 1. */
#include <armci.h>

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

static int nproc, rpn, nnodes, strict;

#define NMUTEX 3
#define LCN 32 /* longs of a location-consistency area */

/* The fixed part of every rank's ARMCI memory. */
struct fixed {
    int cnt_i, swp_i;
    long cnt_l, swp_l;
    long guarded[NMUTEX], busy[NMUTEX];
    long lc[LCN];
    int flag[2];
};
/* Then one area per source rank, with these parts. */
enum {
    A_FENCE = 0,        /* 5 ways at 1 KiB steps, the last one 4000 B */
    A_ALLFENCE = 8192,  /* 4 ways x 1 KiB */
    A_VALUES = 12288,   /* int, long, float, double, and their Nb twins */
    A_FLAG = 12544,     /* Put_flag data 1500 B, PutS_flag data at +2048 */
    A_NB = 16640,       /* NB_OPS x NB_CHUNK */
    A_RO = 28672,       /* filled by the owner, read with gets */
    A_SIZE = 40960,
};
#define NB_OPS 24
#define NB_CHUNK 500

static void **base;

static struct fixed *fixed_at(int p)
{
    return base[p];
}

static unsigned char *area(int p, int src, size_t off)
{
    size_t head = (sizeof(struct fixed) + 63) & ~(size_t)63;
    return (unsigned char *)base[p] + head + (size_t)src * A_SIZE + off;
}

static unsigned char pat(int a, int b, size_t i)
{
    return (unsigned char)(i * 13 + (size_t)a * 71 + (size_t)b * 29 + (i >> 8) + 3);
}

static void fill(unsigned char *p, size_t n, int a, int b)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(a, b, i);
}

static void check_fill(const unsigned char *p, size_t n, int a, int b, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(a, b, i))
            FAIL("%s: byte %zu of %zu is 0x%02x, want 0x%02x", what, i, n, p[i], pat(a, b, i));
}

/* Up to 3 distinct offsets: 0 (self), 1 (the next rank, same node when
 * there are several per node) and rpn (the next node). */
static int shifts(int *shift)
{
    int cand[4] = {0, 1, rpn, 2}, n = 0;
    for (int i = 0; i < 4 && n < 3; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= shift[j] % nproc == cand[i] % nproc;
        if (!dup)
            shift[n++] = cand[i];
    }
    return n;
}

/* Under a weaker ordering a read after a write needs a fence. */
static void order_fence(int p)
{
    if (!strict)
        ARMCI_Fence(p);
}

static int env_int(const char *name)
{
    const char *v = getenv(name);
    CHECK(v, "%s is not set (run under emunic-run)", name);
    return atoi(v);
}

/* ---- topology ---- */

static void test_domains(void)
{
    int node = env_int("EMUNIC_NODE");
    CHECK(armci_domain_count(ARMCI_DOMAIN_SMP) == nnodes, "domain_count %d, want %d",
          armci_domain_count(ARMCI_DOMAIN_SMP), nnodes);
    CHECK(armci_domain_my_id(ARMCI_DOMAIN_SMP) == node, "domain_my_id %d, want %d",
          armci_domain_my_id(ARMCI_DOMAIN_SMP), node);
    /* GA's test programs ask ga_cluster_nprocs(-1): GA's ARMCI answers
     * for the caller's own domain */
    CHECK(armci_domain_nprocs(ARMCI_DOMAIN_SMP, -1) == rpn, "domain_nprocs(-1) = %d",
          armci_domain_nprocs(ARMCI_DOMAIN_SMP, -1));
    for (int id = 0; id < nnodes; id++) {
        CHECK(armci_domain_nprocs(ARMCI_DOMAIN_SMP, id) == rpn, "domain_nprocs(%d) = %d", id,
              armci_domain_nprocs(ARMCI_DOMAIN_SMP, id));
        for (int l = 0; l < rpn; l++)
            CHECK(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, id, l) == id * rpn + l,
                  "domain_glob_proc_id(%d, %d) = %d", id, l,
                  armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, id, l));
    }
    for (int p = 0; p < nproc; p++) {
        int same = p / rpn == node;
        CHECK(armci_domain_id(ARMCI_DOMAIN_SMP, p) == p / rpn, "domain_id(%d) = %d", p,
              armci_domain_id(ARMCI_DOMAIN_SMP, p));
        CHECK(!!ARMCI_Same_node(p) == same, "ARMCI_Same_node(%d) = %d", p, ARMCI_Same_node(p));
        CHECK(!!armci_domain_same_id(ARMCI_DOMAIN_SMP, p) == same, "domain_same_id(%d) = %d", p,
              armci_domain_same_id(ARMCI_DOMAIN_SMP, p));
    }
    const char *shm = getenv("ARMCI_SHM");
    CHECK(!!ARMCI_Uses_shm() == (shm && !strcmp(shm, "1")), "ARMCI_Uses_shm() = %d",
          ARMCI_Uses_shm());
}

/* ---- read-modify-write ---- */

#define K_RMW 40
enum { R_FADD, R_FADDL, R_SWAP, R_SWAPL, NRMW };
static const char *const rmw_name[] = {"FETCH_AND_ADD", "FETCH_AND_ADD_LONG", "SWAP",
                                       "SWAP_LONG"};

static const int rmw_init_i[2] = {1000, -1};
static const long rmw_init_l[2] = {3L << 32, -(1L << 40)};

static long swap_token(int op, int rank, int k)
{
    long t = (long)rank * K_RMW + k + 1;
    return op == R_SWAPL ? t << 33 : t;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Every rank's fetched values for one counter (nproc x K_RMW, from the
 * gathered table), plus the counter's final value. */
static void check_rmw(int op, int owner, const long *got, long final)
{
    size_t n = (size_t)nproc * K_RMW;
    long *v = malloc((n + 1) * sizeof *v), *want = malloc((n + 1) * sizeof *want);
    CHECK(v && want, "malloc");
    memcpy(v, got, n * sizeof *v);
    if (op == R_FADD || op == R_FADDL) {
        long init = op == R_FADD ? rmw_init_i[0] : rmw_init_l[0];
        CHECK(final == init + (long)n, "%s at rank %d: final %ld, want %ld", rmw_name[op], owner,
              final, init + (long)n);
        for (size_t i = 0; i < n; i++)
            want[i] = init + (long)i;
    } else {
        /* swaps pass tokens along: fetched + final = initial + every token */
        v[n] = final;
        want[n] = op == R_SWAP ? rmw_init_i[1] : rmw_init_l[1];
        for (int r = 0; r < nproc; r++)
            for (int k = 0; k < K_RMW; k++)
                want[r * K_RMW + k] = swap_token(op, r, k);
        n++;
    }
    qsort(v, n, sizeof *v, cmp_long);
    qsort(want, n, sizeof *want, cmp_long);
    for (size_t i = 0; i < n; i++)
        CHECK(v[i] == want[i], "%s at rank %d: sorted value %zu is %ld, want %ld (%s)",
              rmw_name[op], owner, i, v[i], want[i], "a value repeated or lost");
    free(v);
    free(want);
}

static void rmw_one(int op, int owner, int k, long *out)
{
    struct fixed *f = fixed_at(owner);
    int iv;
    long lv;
    switch (op) {
    case R_FADD: ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &iv, &f->cnt_i, 1, owner); *out = iv; break;
    case R_FADDL: ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lv, &f->cnt_l, 1, owner); *out = lv; break;
    case R_SWAP:
        iv = (int)swap_token(op, me, k);
        ARMCI_Rmw(ARMCI_SWAP, &iv, &f->swp_i, 0, owner);
        *out = iv;
        break;
    default:
        lv = swap_token(op, me, k);
        ARMCI_Rmw(ARMCI_SWAP_LONG, &lv, &f->swp_l, 0, owner);
        *out = lv;
        break;
    }
}

/* The K_RMW values rank fetched with op from owner number o, in a table
 * [rank][op][owner][k]. */
static long *fetched(long *all, int rank, int op, int o)
{
    return all + (((size_t)rank * NRMW + (size_t)op) * 2 + (size_t)o) * K_RMW;
}

static void test_rmw(void)
{
    int owners[2] = {0, nproc - 1}, nown = nproc > 1 ? 2 : 1;
    size_t n = (size_t)nproc * NRMW * 2 * K_RMW;
    long *all = calloc(n, sizeof *all);
    CHECK(all, "calloc");
    if (me == 0 || me == nproc - 1) {
        struct fixed *f = fixed_at(me);
        f->cnt_i = rmw_init_i[0], f->swp_i = rmw_init_i[1];
        f->cnt_l = rmw_init_l[0], f->swp_l = rmw_init_l[1];
    }
    ARMCI_Barrier();
    for (int k = 0; k < K_RMW; k++)
        for (int op = 0; op < NRMW; op++)
            for (int o = 0; o < nown; o++)
                rmw_one(op, owners[o], k, &fetched(all, me, op, o)[k]);
    /* a rank's own fetch-and-adds on one counter see it grow */
    for (int op = R_FADD; op <= R_FADDL; op++)
        for (int o = 0; o < nown; o++) {
            long *mine = fetched(all, me, op, o);
            for (int k = 1; k < K_RMW; k++)
                CHECK(mine[k] > mine[k - 1], "%s at rank %d: fetched %ld after %ld", rmw_name[op],
                      owners[o], mine[k], mine[k - 1]);
        }
    ARMCI_Barrier();
    armci_msg_lgop(all, (int)n, "+");
    long *col = malloc((size_t)nproc * K_RMW * sizeof *col);
    CHECK(col, "malloc");
    for (int op = 0; op < NRMW; op++)
        for (int o = 0; o < nown; o++) {
            struct fixed *f = fixed_at(owners[o]);
            for (int r = 0; r < nproc; r++)
                memcpy(&col[r * K_RMW], fetched(all, r, op, o), K_RMW * sizeof *col);
            long final = op == R_FADD ? ARMCI_GetValueInt(&f->cnt_i, owners[o])
                       : op == R_SWAP ? ARMCI_GetValueInt(&f->swp_i, owners[o])
                       : op == R_FADDL ? ARMCI_GetValueLong(&f->cnt_l, owners[o])
                                       : ARMCI_GetValueLong(&f->swp_l, owners[o]);
            check_rmw(op, owners[o], col, final);
        }
    free(col);
    free(all);
    ARMCI_Barrier();
}

/* Process-private memory (ARMCI_Malloc_memdev "private") is out of the
 * data server's reach on other ranks: RMW there takes another path. */
struct pcounters {
    long l;
    int i;
};

static void test_rmw_private(void)
{
    void **p = calloc((size_t)nproc, sizeof *p);
    CHECK(p, "calloc");
    CHECK(ARMCI_Malloc_memdev(p, sizeof(struct pcounters), "private") == 0,
          "ARMCI_Malloc_memdev failed");
    struct pcounters *mine = p[me];
    mine->l = 0;
    mine->i = 5;
    ARMCI_Barrier();
    for (int k = 0; k < K_RMW; k++)
        for (int d = 0; d < nproc && d < 3; d++) {
            int t = (me + d) % nproc;
            struct pcounters *c = p[t];
            long old;
            int iold;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, &c->l, 2, t);
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &iold, &c->i, -1, t);
        }
    ARMCI_Barrier();
    int hits = nproc < 3 ? nproc : 3; /* ranks that target me */
    CHECK(mine->l == 2L * K_RMW * hits, "private-memory FETCH_AND_ADD_LONG: %ld, want %ld",
          mine->l, 2L * K_RMW * hits);
    CHECK(mine->i == 5 - K_RMW * hits, "private-memory FETCH_AND_ADD: %d, want %d", mine->i,
          5 - K_RMW * hits);
    ARMCI_Free_memdev(p[me]);
    free(p);
}

/* ---- mutexes ---- */

static int mutex_host(int j)
{
    return j == 0 ? 0 : j == 1 ? nproc - 1 : nproc / 2;
}

/* The guarded counter lives on another rank than the mutex. */
static int counter_host(int j)
{
    return (mutex_host(j) + 1) % nproc;
}

static void critical(int j)
{
    int cp = counter_host(j);
    struct fixed *f = fixed_at(cp);
    long busy, v;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &busy, &f->busy[j], 1, cp);
    CHECK(busy == 0, "mutex %d on rank %d: %ld other holder(s) inside", j, mutex_host(j), busy);
    ARMCI_Get(&f->guarded[j], &v, sizeof v, cp);
    sched_yield(); /* widen the window a missing exclusion would show in */
    v++;
    ARMCI_Put(&v, &f->guarded[j], sizeof v, cp);
    ARMCI_Fence(cp);
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &busy, &f->busy[j], -1, cp);
    CHECK(busy == 1, "mutex %d on rank %d: occupancy %ld on leaving", j, mutex_host(j), busy);
}

static void test_mutexes(void)
{
    int iters = nproc > 8 ? 15 : 30;
    CHECK(ARMCI_Create_mutexes(NMUTEX) == 0, "ARMCI_Create_mutexes failed");
    for (int j = 0; j < NMUTEX; j++)
        fixed_at(me)->guarded[j] = fixed_at(me)->busy[j] = 0;
    ARMCI_Barrier();
    for (int it = 0; it < iters; it++)
        for (int jj = 0; jj < NMUTEX; jj++) {
            int j = (jj + me) % NMUTEX; /* ranks contend on different mutexes in turn */
            ARMCI_Lock(j, mutex_host(j));
            critical(j);
            ARMCI_Unlock(j, mutex_host(j));
        }
    /* two held at once, always taken in the same order */
    ARMCI_Lock(0, mutex_host(0));
    ARMCI_Lock(1, mutex_host(1));
    critical(0);
    critical(1);
    ARMCI_Unlock(1, mutex_host(1));
    ARMCI_Unlock(0, mutex_host(0));
    ARMCI_Barrier();
    for (int j = 0; j < NMUTEX; j++) {
        long want = (long)nproc * iters + (j < 2 ? nproc : 0);
        long got = ARMCI_GetValueLong(&fixed_at(counter_host(j))->guarded[j], counter_host(j));
        CHECK(got == want, "counter guarded by mutex %d on rank %d is %ld, want %ld", j,
              mutex_host(j), got, want);
    }
    CHECK(ARMCI_Destroy_mutexes() == 0, "ARMCI_Destroy_mutexes failed");
    /* mutexes can be created again, with another count */
    CHECK(ARMCI_Create_mutexes(me % 2 + 1) == 0, "second ARMCI_Create_mutexes failed");
    ARMCI_Lock(0, nproc - 1);
    ARMCI_Unlock(0, nproc - 1);
    if (nproc > 1) {
        ARMCI_Lock(1, 1); /* rank 1 hosts two */
        ARMCI_Unlock(1, 1);
    }
    CHECK(ARMCI_Destroy_mutexes() == 0, "second ARMCI_Destroy_mutexes failed");
}

/* ---- fences ---- */

/* Write way_len() bytes the given way: 0 contiguous put (RDMA), 1 strided
 * put with short runs (server under auto), 2 accumulate onto zeros,
 * 3 implicit non-blocking put, 4 strided put with long runs. The value
 * written is pat(src, salt). */
enum { W_PUT, W_PUTS_SHORT, W_ACC, W_NBPUT, W_PUTS_LONG, NWAYS };
static const char *const way_name[] = {"put", "short-run PutS", "acc", "implicit NbPut",
                                       "long-run PutS"};

static size_t way_len(int way)
{
    return way == W_PUTS_LONG ? 4000 : way == W_ACC ? 512 : 1000;
}

static void write_way(int way, unsigned char *dst, int p, int salt)
{
    static long src[512];
    static unsigned char *nbsrc; /* an implicit put's buffer stays busy until a fence */
    unsigned char *b = (unsigned char *)src;
    if (way == W_NBPUT) {
        if (!nbsrc)
            CHECK(nbsrc = malloc((size_t)nproc * 1000), "malloc");
        b = nbsrc + (size_t)p * 1000;
    }
    size_t len = way_len(way);
    fill(b, len, me, salt);
    if (way == W_PUT)
        ARMCI_Put(b, dst, (int)len, p);
    else if (way == W_NBPUT)
        ARMCI_NbPut(b, dst, (int)len, p, NULL);
    else if (way == W_ACC) {
        long one = 1;
        ARMCI_Acc(ARMCI_ACC_LNG, &one, b, dst, (int)len, p);
    } else {
        /* the same bytes as a contiguous write, cut into runs */
        int run = way == W_PUTS_SHORT ? 40 : 2000, str[1] = {run}, cnt[2] = {run, (int)len / run};
        ARMCI_PutS(b, str, dst, str, cnt, 1, p);
    }
}

/* For the accumulate the zeros + the pattern read as longs is the pattern. */
static void check_way(int way, const unsigned char *got, int src, int salt, const char *who)
{
    char what[128];
    snprintf(what, sizeof what, "%s from rank %d (%s)", way_name[way], src, who);
    check_fill(got, way_len(way), src, salt, what);
}

/* Writer -> target, fence, message -> reader, who reads the target. With
 * two ranks the reader is the target itself, reading its own memory. */
static void test_fence(void)
{
    if (nproc == 1)
        return;
    int t = (me + 1) % nproc, reader = nproc > 2 ? (me + 2) % nproc : t;
    int w = nproc > 2 ? (me + nproc - 2) % nproc : (me + nproc - 1) % nproc, wt = (w + 1) % nproc;
    unsigned char got[4096];
    for (int way = 0; way < NWAYS; way++) {
        size_t off = A_FENCE + (size_t)way * 1024;
        write_way(way, area(t, me, off), t, way);
        ARMCI_Fence(t);
        armci_msg_snd(40 + way, &way, sizeof way, reader);
        int note;
        armci_msg_rcv(40 + way, &note, sizeof note, NULL, w);
        if (wt == me)
            memcpy(got, area(me, w, off), sizeof got);
        else
            ARMCI_Get(area(wt, w, off), got, sizeof got, wt);
        check_way(way, got, w, way, wt == me ? "own memory after the writer's Fence"
                                              : "third rank after the writer's Fence");
    }
}

/* Everyone writes to everyone, AllFence, a barrier without a fence in it,
 * then every owner reads its own memory. */
static void test_allfence(void)
{
    for (int d = 0; d < nproc; d++) {
        int p = (me + d) % nproc;
        for (int way = 0; way < 4; way++)
            write_way(way, area(p, me, A_ALLFENCE + (size_t)way * 1024), p, 10 + way);
    }
    ARMCI_AllFence();
    armci_msg_barrier();
    for (int s = 0; s < nproc; s++)
        for (int way = 0; way < 4; way++) {
            char what[96];
            snprintf(what, sizeof what, "%s from rank %d after ARMCI_AllFence", way_name[way], s);
            check_fill(area(me, s, A_ALLFENCE + (size_t)way * 1024), way_len(way), s, 10 + way,
                       what);
        }
    armci_msg_barrier();
}

/* More implicit non-blocking puts to one target than the device has
 * slots, then AllFence: the puts that had to wait for a slot must not
 * leave acknowledgements behind that never come (GA's testmult.x hung so
 * over Portals). The owner checks every element. */
#define FLOOD_N 4500 /* two of the Portals device's 8192 slots each: posting must wait */
static void test_allfence_flood(void)
{
    const char *nic = getenv("EMUNIC_NIC");
    if (nproc == 1 || !nic || strcmp(nic, "portals"))
        return; /* puts to itself have nothing in flight to lose; the slots
                 * that run out are the Portals device's (the core-level
                 * wait on a full queue is hostile_noreap's) */
    void **fl = calloc((size_t)nproc, sizeof *fl);
    CHECK(fl, "calloc");
    CHECK(ARMCI_Malloc(fl, (armci_size_t)(FLOOD_N * sizeof(int))) == 0, "ARMCI_Malloc failed");
    memset(fl[me], 0, FLOOD_N * sizeof(int));
    ARMCI_Barrier();
    int to = (me + 1) % nproc, from = (me + nproc - 1) % nproc;
    static int v[FLOOD_N];
    for (int i = 0; i < FLOOD_N; i++) {
        v[i] = me * 1000003 + i + 1;
        CHECK(ARMCI_NbPut(&v[i], (int *)fl[to] + i, sizeof(int), to, NULL) == 0,
              "ARMCI_NbPut %d failed", i);
    }
    ARMCI_AllFence();
    armci_msg_barrier();
    const int *got = fl[me];
    for (int i = 0; i < FLOOD_N; i++)
        CHECK(got[i] == from * 1000003 + i + 1, "flood from rank %d: element %d is %d, want %d",
              from, i, got[i], from * 1000003 + i + 1);
    armci_msg_barrier();
    ARMCI_Free(fl[me]);
    free(fl);
}

/* ---- location consistency ---- */

static void lc_check(const long *got, const long *want, int n, int p, const char *what, int it)
{
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s on rank %d (round %d): element %d is %ld, want %ld", what, p,
              it, i, got[i], want[i]);
}

/* A rank's own writes are seen by its next read of the same location. */
static void location_rounds(int p, long *lc, void *other)
{
    long want[LCN], got[LCN], add[LCN], scale = 2, tmp;
    int str[1] = {3 * (int)sizeof(long)}, cnt[2] = {2 * (int)sizeof(long), LCN / 3};
    ARMCI_Get(lc, want, sizeof want, p);
    for (int it = 0; it < 8; it++) {
        for (int i = 0; i < LCN; i++)
            add[i] = it * 3 + i % 5 + 1, want[i] += 2 * add[i];
        ARMCI_Acc(ARMCI_ACC_LNG, &scale, add, lc, sizeof add, p);
        order_fence(p);
        ARMCI_Get(other, &tmp, sizeof tmp, p); /* unrelated array in between */
        ARMCI_Get(lc, got, sizeof got, p);
        lc_check(got, want, LCN, p, "Acc then Get", it);

        for (int i = 0; i < LCN; i++)
            want[i] = it * 1000 + i;
        ARMCI_Put(want, lc, sizeof want, p);
        order_fence(p);
        ARMCI_Get(lc, got, sizeof got, p);
        lc_check(got, want, LCN, p, "Put then Get", it);

        /* strided accumulate (server or NIC) then strided get */
        for (int r = 0; r < LCN / 3; r++)
            for (int e = 0; e < 2; e++)
                want[r * 3 + e] += 2 * add[r * 3 + e];
        ARMCI_AccS(ARMCI_ACC_LNG, &scale, add, str, lc, str, cnt, 1, p);
        order_fence(p);
        memset(got, 0, sizeof got);
        ARMCI_GetS(lc, str, got, str, cnt, 1, p);
        for (int r = 0; r < LCN / 3; r++)
            for (int e = 0; e < 2; e++)
                CHECK(got[r * 3 + e] == want[r * 3 + e],
                      "AccS then GetS on rank %d (round %d): element %d is %ld, want %ld", p, it,
                      r * 3 + e, got[r * 3 + e], want[r * 3 + e]);

        /* short-run strided put (server) then contiguous get (RDMA) */
        for (int i = 0; i < LCN; i++)
            want[i] = -(it * 100 + i);
        ARMCI_PutS(want, str, lc, str, cnt, 1, p);
        order_fence(p);
        ARMCI_Get(lc, got, sizeof got, p);
        for (int r = 0; r < LCN / 3; r++)
            for (int e = 0; e < 2; e++)
                CHECK(got[r * 3 + e] == want[r * 3 + e],
                      "PutS then Get on rank %d (round %d): element %d is %ld, want %ld", p, it,
                      r * 3 + e, got[r * 3 + e], want[r * 3 + e]);
        memcpy(want, got, sizeof want);

        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbAcc(ARMCI_ACC_LNG, &scale, add, lc, sizeof(long), p, &h);
        ARMCI_Wait(&h);
        order_fence(p);
        want[0] += 2 * add[0];
        CHECK(ARMCI_GetValueLong(lc, p) == want[0],
              "NbAcc+Wait then GetValueLong on rank %d (round %d): %ld, want %ld", p, it,
              ARMCI_GetValueLong(lc, p), want[0]);
    }
}

static void test_location(void)
{
    void **other = calloc((size_t)nproc, sizeof *other);
    CHECK(other, "calloc");
    ARMCI_Malloc(other, 64);
    /* Rank me works on the lc array of rank me + shift, for each shift in
     * turn, so no two ranks write the same array at once. */
    int shift[3], nshift = shifts(shift);
    for (int d = 0; d < nshift; d++) {
        int p = (me + shift[d]) % nproc;
        location_rounds(p, fixed_at(p)->lc, other[p]);
        ARMCI_Barrier();
    }
    ARMCI_Free(other[me]);
    free(other);
}

/* ---- non-blocking overlap ---- */

static double busy_work(int n)
{
    volatile double x = 1.0;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static unsigned char *nb_buf(int i)
{
    static unsigned char b[3][NB_OPS][NB_CHUNK];
    return b[i / NB_OPS][i % NB_OPS];
}

/* One batch of puts (to my area at each target), gets (of the owner's
 * read-only pattern) and accumulates (onto the target's lc array) with
 * the given handle mode; then completion, then the local-completion
 * checks: gets are in, and put buffers may be reused. */
enum { H_EXPLICIT, H_IMPLICIT, H_AGGREGATE };

static void nb_batch(int mode, int salt, long *acc_count)
{
    armci_hdl_t h[NB_OPS], agg;
    long one[LCN], sc = 1;
    for (int i = 0; i < LCN; i++)
        one[i] = 1;
    ARMCI_INIT_HANDLE(&agg);
    if (mode == H_AGGREGATE)
        ARMCI_SET_AGGREGATE_HANDLE(&agg);
    for (int i = 0; i < NB_OPS; i++) {
        int p = (me + i) % nproc;
        armci_hdl_t *hp = mode == H_IMPLICIT ? NULL : mode == H_AGGREGATE ? &agg : &h[i];
        if (mode == H_EXPLICIT)
            ARMCI_INIT_HANDLE(&h[i]);
        fill(nb_buf(i), NB_CHUNK, me, salt + i);
        unsigned char *dst = area(p, me, A_NB + (size_t)i * NB_CHUNK);
        if (i % 2) {
            /* the same bytes in 25-byte runs: the server path, many in flight */
            int str[1] = {25}, cnt[2] = {25, NB_CHUNK / 25};
            ARMCI_NbPutS(nb_buf(i), str, dst, str, cnt, 1, p, hp);
        } else {
            ARMCI_NbPut(nb_buf(i), dst, NB_CHUNK, p, hp);
        }
        memset(nb_buf(NB_OPS + i), 0, NB_CHUNK);
        unsigned char *src = area(p, me, A_RO + (size_t)i * NB_CHUNK);
        if (i % 3 == 1) {
            int str[1] = {20}, cnt[2] = {20, NB_CHUNK / 20};
            ARMCI_NbGetS(src, str, nb_buf(NB_OPS + i), str, cnt, 1, p, hp);
        } else {
            ARMCI_NbGet(src, nb_buf(NB_OPS + i), NB_CHUNK, p, hp);
        }
        if (i % 4 == 0) {
            ARMCI_NbAcc(ARMCI_ACC_LNG, &sc, one, fixed_at(p)->lc, sizeof one, p, hp);
            acc_count[p]++;
        }
    }
    busy_work(200000);
    if (mode == H_EXPLICIT) {
        /* reverse order, some by polling */
        for (int i = NB_OPS - 1; i >= 0; i--) {
            if (i % 3 == 0)
                while (ARMCI_Test(&h[i]) != 0)
                    ;
            else
                CHECK(ARMCI_Wait(&h[i]) == 0, "ARMCI_Wait(op %d) failed", i);
            CHECK(ARMCI_Test(&h[i]) == 0, "ARMCI_Test after completion is not 0");
        }
    } else if (mode == H_AGGREGATE) {
        CHECK(ARMCI_Wait(&agg) == 0, "ARMCI_Wait on the aggregate handle failed");
        ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
    } else if (salt % 2) {
        ARMCI_WaitAll();
    } else {
        for (int p = 0; p < nproc; p++)
            ARMCI_WaitProc(p);
    }
    for (int i = 0; i < NB_OPS; i++) {
        char what[96];
        snprintf(what, sizeof what, "NbGet %d (handles %d) from rank %d", i, mode,
                 (me + i) % nproc);
        check_fill(nb_buf(NB_OPS + i), NB_CHUNK, (me + i) % nproc, 9999 + i, what);
        memset(nb_buf(i), 0xee, NB_CHUNK); /* completed: the source may change */
    }
}

static void test_nonblocking(void)
{
    long *acc_count = calloc((size_t)nproc, sizeof *acc_count);
    CHECK(acc_count, "calloc");
    for (int i = 0; i < NB_OPS; i++)
        for (int s = 0; s < nproc; s++)
            fill(area(me, s, A_RO + (size_t)i * NB_CHUNK), NB_CHUNK, me, 9999 + i);
    long lc0 = fixed_at(me)->lc[0];
    ARMCI_Barrier();
    int modes[] = {H_EXPLICIT, H_IMPLICIT, H_AGGREGATE, H_IMPLICIT};
    for (int b = 0; b < 4; b++) {
        nb_batch(modes[b], b * 100, acc_count);
        ARMCI_Barrier();
        /* what each rank put into my memory, seen locally */
        for (int s = 0; s < nproc; s++)
            for (int i = 0; i < NB_OPS; i++)
                if ((s + i) % nproc == me) {
                    char what[96];
                    snprintf(what, sizeof what, "NbPut %d (batch %d) from rank %d", i, b, s);
                    check_fill(area(me, s, A_NB + (size_t)i * NB_CHUNK), NB_CHUNK, s,
                               b * 100 + i, what);
                }
        armci_msg_barrier(); /* checked before the next batch overwrites it */
    }
    armci_msg_lgop(acc_count, nproc, "+");
    CHECK(fixed_at(me)->lc[0] == lc0 + acc_count[me], "NbAcc count at my lc[0]: %ld, want %ld",
          fixed_at(me)->lc[0], lc0 + acc_count[me]);
    /* a handle is reusable after its wait */
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    for (int k = 0; k < 3; k++) {
        long v = k + 1;
        ARMCI_NbPut(&v, &fixed_at(me)->cnt_l, sizeof v, me, &h);
        ARMCI_Wait(&h);
        ARMCI_Fence(me);
        CHECK(fixed_at(me)->cnt_l == k + 1, "reused handle: %ld", fixed_at(me)->cnt_l);
    }
    free(acc_count);
    ARMCI_Barrier();
}

/* ---- scalars, flags, local access ---- */

static void test_values(void)
{
    int shift[3], nshift = shifts(shift);
    for (int d = 0; d < nshift; d++) {
        int p = (me + shift[d]) % nproc;
        unsigned char *a = area(p, me, A_VALUES);
        int *pi = (int *)a;
        long *pl = (long *)(a + 8);
        float *pf = (float *)(a + 16);
        double *pd = (double *)(a + 24);
        int vi = -7 * me - d;
        long vl = (3L << 40) + me;
        float vf = 0.25f * (float)me - 3.5f;
        double vd = 1e100 + me;
        ARMCI_PutValueInt(vi, pi, p);
        ARMCI_PutValueLong(vl, pl, p);
        ARMCI_PutValueFloat(vf, pf, p);
        ARMCI_PutValueDouble(vd, pd, p);
        order_fence(p);
        CHECK(ARMCI_GetValueInt(pi, p) == vi, "GetValueInt from %d: %d", p,
              ARMCI_GetValueInt(pi, p));
        CHECK(ARMCI_GetValueLong(pl, p) == vl, "GetValueLong from %d: %ld", p,
              ARMCI_GetValueLong(pl, p));
        CHECK(ARMCI_GetValueFloat(pf, p) == vf, "GetValueFloat from %d: %g", p,
              (double)ARMCI_GetValueFloat(pf, p));
        CHECK(ARMCI_GetValueDouble(pd, p) == vd, "GetValueDouble from %d: %g", p,
              ARMCI_GetValueDouble(pd, p));
        armci_hdl_t h;
        ARMCI_INIT_HANDLE(&h);
        ARMCI_NbPutValueInt(vi + 1, pi + 8, p, &h);
        ARMCI_NbPutValueLong(vl + 1, pl + 8, p, NULL);
        ARMCI_NbPutValueFloat(vf + 1, pf + 16, p, NULL);
        ARMCI_NbPutValueDouble(vd * 2, pd + 8, p, &h);
        ARMCI_Wait(&h);
        ARMCI_WaitProc(p);
        order_fence(p);
        CHECK(ARMCI_GetValueInt(pi + 8, p) == vi + 1, "NbPutValueInt to %d", p);
        CHECK(ARMCI_GetValueLong(pl + 8, p) == vl + 1, "NbPutValueLong to %d", p);
        CHECK(ARMCI_GetValueFloat(pf + 16, p) == vf + 1, "NbPutValueFloat to %d", p);
        CHECK(ARMCI_GetValueDouble(pd + 8, p) == vd * 2, "NbPutValueDouble to %d", p);
    }
    ARMCI_Barrier();
}

/* Put_flag and PutS_flag to the next rank; the receiver spins on its own
 * memory, driving progress, then the data must be there. */
static void test_flags(void)
{
    int t = (me + 1) % nproc, from = (me + nproc - 1) % nproc;
    unsigned char buf[3000];
    volatile int *flag = &fixed_at(me)->flag[0];
    fixed_at(me)->flag[0] = fixed_at(me)->flag[1] = 0;
    ARMCI_Barrier();
    for (int kind = 0; kind < 2; kind++) {
        fill(buf, sizeof buf, me, 70 + kind);
        unsigned char *dst = area(t, me, A_FLAG + (size_t)kind * 2048);
        if (kind == 0) {
            ARMCI_Put_flag(buf, dst, 1500, &fixed_at(t)->flag[0], 11, t);
        } else {
            int str[1] = {30}, cnt[2] = {25, 60}; /* short runs, 2000 bytes of buf */
            ARMCI_PutS_flag(buf, str, dst, str, cnt, 1, &fixed_at(t)->flag[1], 22, t);
        }
        while (flag[kind] != (kind ? 22 : 11))
            ARMCIX_Progress();
        unsigned char *got = area(me, from, A_FLAG + (size_t)kind * 2048);
        if (kind == 0) {
            check_fill(got, 1500, from, 70, "Put_flag data after the flag");
        } else {
            unsigned char want[2000];
            fill(want, sizeof want, from, 71);
            for (int r = 0; r < 60; r++)
                for (int c = 0; c < 25; c++)
                    CHECK(got[r * 30 + c] == want[r * 30 + c],
                          "PutS_flag data after the flag: row %d byte %d is 0x%02x, want 0x%02x", r,
                          c, got[r * 30 + c], want[r * 30 + c]);
        }
    }
    ARMCI_Barrier();
}

static void test_access(void)
{
    unsigned char *mine = area(me, me, A_FLAG);
    ARMCI_Access_begin(mine);
    fill(mine, 256, me, 333);
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    int p = (me + 1) % nproc;
    unsigned char got[256], copy[256];
    ARMCI_Get(area(p, p, A_FLAG), got, sizeof got, p);
    check_fill(got, sizeof got, p, 333, "written between Access_begin/end, read by a neighbour");
    ARMCI_Copy(got, copy, sizeof copy);
    CHECK(!memcmp(got, copy, sizeof copy), "ARMCI_Copy differs");
    ARMCI_Barrier();
}

/* ---- allocation ---- */

static void test_malloc(void)
{
    void **p = calloc((size_t)nproc, sizeof *p);
    CHECK(p, "calloc");
    /* odd ranks allocate nothing and get NULL; sizes differ */
    CHECK(ARMCI_Malloc(p, me % 2 ? 0 : 64 * (me + 1)) == 0, "ARMCI_Malloc failed");
    for (int r = 0; r < nproc; r++)
        CHECK((p[r] == NULL) == (r % 2 == 1), "ARMCI_Malloc: part of rank %d is %p", r, p[r]);
    int t = me & ~1; /* an even rank */
    long v = me + 100;
    ARMCI_Put(&v, (long *)p[t] + (me & 1), sizeof v, t);
    ARMCI_Barrier();
    if (me % 2 == 0) {
        long *m = p[me];
        CHECK(m[0] == me + 100, "ARMCI_Malloc part: %ld", m[0]);
        if (me + 1 < nproc)
            CHECK(m[1] == me + 101, "ARMCI_Malloc part: %ld", m[1]);
    }
    ARMCI_Free(p[me]);

    /* a group of the even ranks, in reverse order */
    int n = (nproc + 1) / 2, pids[1024];
    for (int i = 0; i < n; i++)
        pids[i] = 2 * (n - 1 - i);
    ARMCI_Group g;
    ARMCI_Group_create(n, pids, &g);
    int grank;
    ARMCI_Group_rank(&g, &grank);
    if (me % 2 == 0) {
        CHECK(ARMCI_Malloc_group(p, 128 + 8 * grank, &g) == 0, "ARMCI_Malloc_group failed");
        int next = (grank + 1) % n, abs = ARMCI_Absolute_id(&g, next);
        long vals[4] = {me, grank, next, 77};
        ARMCI_Put(vals, p[next], sizeof vals, abs);
        ARMCI_Fence(abs);
        armci_msg_group_barrier(&g);
        long *m = p[grank];
        int prev = (grank + n - 1) % n;
        CHECK(m[0] == ARMCI_Absolute_id(&g, prev) && m[1] == prev && m[2] == grank && m[3] == 77,
              "Malloc_group part: %ld %ld %ld %ld from group rank %d", m[0], m[1], m[2], m[3],
              prev);
        CHECK(ARMCI_Free_group(p[grank], &g) == 0, "ARMCI_Free_group failed");
    }
    ARMCI_Group_free(&g);
    free(p);
    ARMCI_Barrier();
}

int main(void)
{
    CHECK(!ARMCI_Initialized(), "ARMCI_Initialized before ARMCI_Init");
    armci_msg_init(NULL, NULL); /* GA's ARMCI test programs call it first */
    ARMCI_Init();
    CHECK(ARMCI_Initialized(), "ARMCI_Initialized after ARMCI_Init");
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    nnodes = env_int("EMUNIC_NNODES");
    rpn = env_int("EMUNIC_LOCAL_SIZE");
    const char *order = getenv("ARMCI_ORDER");
    strict = !order || !*order || !strcmp(order, "strict");
    base = calloc((size_t)nproc, sizeof *base);
    CHECK(base, "calloc");
    size_t head = (sizeof(struct fixed) + 63) & ~(size_t)63;
    CHECK(ARMCI_Malloc(base, (armci_size_t)(head + (size_t)nproc * A_SIZE)) == 0,
          "ARMCI_Malloc failed");
    memset(base[me], 0, head + (size_t)nproc * A_SIZE);
    ARMCI_Barrier();

    test_domains();
    test_rmw();
    test_rmw_private();
    test_mutexes();
    test_fence();
    test_allfence();
    test_allfence_flood();
    test_location();
    test_nonblocking();
    test_values();
    test_flags();
    test_access();
    test_malloc();

    ARMCI_Free(base[me]);
    free(base);
    if (me == 0)
        printf("sync: OK on %d ranks (%d nodes)\n", nproc, nnodes);
    ARMCI_Finalize();
    armci_msg_finalize();
    return 0;
}
