/* Misuse of the ARMCI calls: "test_errors <case>" sets up (ARMCI_Init, an
 * ARMCI_Malloc of REGION bytes, two mutexes per rank) and then makes
 * exactly one bad call, on rank 0 unless the case is collective. The call
 * must end the job through ARMCI_Error with a message naming the call and
 * the argument (suite.cmake checks the message and the non-zero status);
 * a case that returns prints "case ...: no error" and the job exits 0,
 * which the checker reports.
 *
 * The peer of the remote cases is the last rank, so a 2-node layout puts
 * it on another node. */
#include <armci.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtest.h"

#define REGION 4096

static int nproc, peer;
static void **base;
static char loc[8192];       /* a local buffer */
static char *not_armci_heap; /* malloc'd: not ARMCI memory anywhere */
static double dscale = 2.0;

static void *rem(size_t off)
{
    return (char *)base[peer] + off;
}

/* ---- the cases: one bad call each ---- */

static int str1[1] = {16}, cnt2[2] = {8, 4};

static void put_null_src(void) { ARMCI_Put(NULL, rem(0), 8, peer); }
static void put_null_dst(void) { ARMCI_Put(loc, NULL, 8, peer); }
static void get_null_src(void) { ARMCI_Get(NULL, loc, 8, peer); }
static void get_null_dst(void) { ARMCI_Get(rem(0), NULL, 8, peer); }
static void acc_null_src(void) { ARMCI_Acc(ARMCI_ACC_DBL, &dscale, NULL, rem(0), 8, peer); }
static void acc_null_dst(void) { ARMCI_Acc(ARMCI_ACC_DBL, &dscale, loc, NULL, 8, peer); }
static void nbput_null_src(void) { ARMCI_NbPut(NULL, rem(0), 8, peer, NULL); }
static void puts_null_src(void) { ARMCI_PutS(NULL, str1, rem(0), str1, cnt2, 1, peer); }
static void puts_null_dst(void) { ARMCI_PutS(loc, str1, NULL, str1, cnt2, 1, peer); }
static void gets_null_src(void) { ARMCI_GetS(NULL, str1, loc, str1, cnt2, 1, peer); }
static void accs_null_dst(void)
{
    ARMCI_AccS(ARMCI_ACC_DBL, &dscale, loc, str1, NULL, str1, cnt2, 1, peer);
}
static void puts_null_count(void) { ARMCI_PutS(loc, str1, rem(0), str1, NULL, 1, peer); }
static void puts_null_stride(void) { ARMCI_PutS(loc, NULL, rem(0), str1, cnt2, 1, peer); }
static void gets_null_stride(void) { ARMCI_GetS(rem(0), str1, loc, NULL, cnt2, 1, peer); }

static void put_neg_bytes(void) { ARMCI_Put(loc, rem(0), -1, peer); }
static void get_neg_bytes(void) { ARMCI_Get(rem(0), loc, -8, peer); }
static void acc_neg_bytes(void) { ARMCI_Acc(ARMCI_ACC_DBL, &dscale, loc, rem(0), -8, peer); }
static void nbget_neg_bytes(void) { ARMCI_NbGet(rem(0), loc, -1, peer, NULL); }

static void puts_neg_count(void)
{
    int cnt[2] = {8, -2};
    ARMCI_PutS(loc, str1, rem(0), str1, cnt, 1, peer);
}
static void gets_neg_count0(void)
{
    int cnt[2] = {-8, 2};
    ARMCI_GetS(rem(0), str1, loc, str1, cnt, 1, peer);
}
static void puts_neg_stride(void)
{
    int s[1] = {-16};
    ARMCI_PutS(loc, s, rem(0), str1, cnt2, 1, peer);
}
static void gets_neg_stride(void)
{
    int rs[2] = {16, 64}, ls[2] = {16, -64}, cnt[3] = {8, 2, 2};
    ARMCI_GetS(rem(0), rs, loc, ls, cnt, 2, peer);
}
static void accs_neg_stride(void)
{
    int s[1] = {-8}, cnt[2] = {8, 2};
    ARMCI_AccS(ARMCI_ACC_DBL, &dscale, loc, str1, rem(0), s, cnt, 1, peer);
}
static void puts_overlap(void)
{
    int s[1] = {4};
    ARMCI_PutS(loc, s, rem(0), str1, cnt2, 1, peer);
}
static void levels(int l)
{
    int s[10] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
    int c[11] = {8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    ARMCI_PutS(loc, s, rem(0), s, c, l, peer);
}
static void puts_levels_9(void) { levels(9); }
static void puts_levels_10(void) { levels(10); }
static void puts_levels_neg(void) { levels(-1); }
static void gets_levels_9(void) { ARMCI_GetS(rem(0), str1, loc, str1, cnt2, 9, peer); }

static void put_proc_neg(void) { ARMCI_Put(loc, rem(0), 8, -1); }
static void put_proc_n(void) { ARMCI_Put(loc, rem(0), 8, nproc); }
static void get_proc_n(void) { ARMCI_Get(rem(0), loc, 8, nproc); }
static void acc_proc_neg(void) { ARMCI_Acc(ARMCI_ACC_DBL, &dscale, loc, rem(0), 8, -1); }
static void puts_proc_n(void) { ARMCI_PutS(loc, str1, rem(0), str1, cnt2, 1, nproc); }
static void nbgets_proc_neg(void) { ARMCI_NbGetS(rem(0), str1, loc, str1, cnt2, 1, -1, NULL); }
static void rmw_proc_n(void)
{
    int v;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &v, rem(0), 1, nproc);
}
static void lock_proc_n(void) { ARMCI_Lock(0, nproc); }
static void fence_proc_n(void) { ARMCI_Fence(nproc); }
static void waitproc_proc_n(void) { ARMCI_WaitProc(nproc); }
static void putvalue_proc_neg(void) { ARMCI_PutValueLong(1, rem(0), -1); }
static void getvalue_proc_n(void) { ARMCI_GetValueInt(rem(0), nproc); }

static void putv_proc_n(void)
{
    void *s[1] = {loc}, *d[1] = {rem(0)};
    armci_giov_t v = {s, d, 8, 1};
    ARMCI_PutV(&v, 1, nproc);
}

static void put_stack(void)
{
    char stack[64];
    ARMCI_Put(loc, stack, 8, peer);
}
static void get_malloc(void) { ARMCI_Get(not_armci_heap, loc, 8, peer); }
static void acc_malloc(void) { ARMCI_Acc(ARMCI_ACC_DBL, &dscale, loc, not_armci_heap, 8, peer); }
static void puts_stack(void)
{
    char stack[256];
    ARMCI_PutS(loc, str1, stack, str1, cnt2, 1, peer);
}
static void gets_malloc(void) { ARMCI_GetS(not_armci_heap, str1, loc, str1, cnt2, 1, peer); }
static void rmw_stack(void)
{
    long stack = 0, v;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, &stack, 1, peer);
}
static void put_overrun(void) { ARMCI_Put(loc, rem(REGION - 4), 8, peer); }
static void puts_overrun(void)
{
    /* the last run, at 16 + 3 * 1344, ends 16 bytes past the region */
    int s[1] = {1344}, c[2] = {64, 4};
    ARMCI_PutS(loc, s, rem(16), s, c, 1, peer);
}
static void putvalue_stack(void)
{
    int stack = 0;
    ARMCI_PutValueInt(1, &stack, peer);
}
static void getvalue_malloc(void) { ARMCI_GetValueDouble(not_armci_heap, peer); }
static void getvalue_null(void) { ARMCI_GetValueInt(NULL, peer); }

static void put_after_free(void)
{
    void *p = rem(0);
    ARMCI_Barrier();
    ARMCI_Free(base[armci_msg_me()]);
    if (armci_msg_me() == 0)
        ARMCI_Put(loc, p, 8, peer);
}

static void rmw_null_ploc(void) { ARMCI_Rmw(ARMCI_FETCH_AND_ADD, NULL, rem(0), 1, peer); }
static void rmw_bad_op(void)
{
    long v = 0;
    ARMCI_Rmw(9, &v, rem(0), 1, peer);
}
static void acc_bad_type(void) { ARMCI_Acc(42, &dscale, loc, rem(0), 8, peer); }
static void accs_bad_type(void)
{
    ARMCI_AccS(-1, &dscale, loc, str1, rem(0), str1, cnt2, 1, peer);
}
static void acc_null_scale(void) { ARMCI_Acc(ARMCI_ACC_DBL, NULL, loc, rem(0), 8, peer); }
static void nbaccs_null_scale(void)
{
    ARMCI_NbAccS(ARMCI_ACC_INT, NULL, loc, str1, rem(0), str1, cnt2, 1, peer, NULL);
}
static void acc_partial_elem(void) { ARMCI_Acc(ARMCI_ACC_DBL, &dscale, loc, rem(0), 12, peer); }
static void accs_partial_elem(void)
{
    int c[2] = {12, 2};
    ARMCI_AccS(ARMCI_ACC_DBL, &dscale, loc, str1, rem(0), str1, c, 1, peer);
}

static void accv_partial_elem(void)
{
    void *s[1] = {loc}, *d[1] = {rem(0)};
    armci_giov_t v = {s, d, 20, 1};
    ARMCI_AccV(ARMCI_ACC_DBL, &dscale, &v, 1, peer);
}

static void lock_range(void) { ARMCI_Lock(2, peer); }
static void lock_neg(void) { ARMCI_Lock(-1, 0); }
static void unlock_range(void) { ARMCI_Unlock(5, peer); }
static void lock_nocreate(void) { ARMCI_Lock(0, peer); }
static void unlock_nocreate(void) { ARMCI_Unlock(0, 0); }
static void unlock_unheld(void) { ARMCI_Unlock(0, peer); }
static void destroy_nocreate(void) { ARMCI_Destroy_mutexes(); }
static void create_mutexes_neg(void) { ARMCI_Create_mutexes(-1); }

static void wait_uninit(void)
{
    armci_hdl_t h;
    memset(&h, 0x5a, sizeof h);
    ARMCI_Wait(&h);
}
static void test_uninit(void)
{
    armci_hdl_t h;
    memset(&h, 0, sizeof h);
    ARMCI_Test(&h);
}
static void nbput_uninit(void)
{
    armci_hdl_t h;
    memset(&h, 0xff, sizeof h);
    ARMCI_NbPut(loc, rem(0), 8, peer, &h);
}
static void wait_stale(void)
{
    armci_hdl_t h, copy;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPut(loc, rem(0), 8, peer, &h);
    copy = h;
    ARMCI_Wait(&h);
    ARMCI_NbPut(loc, rem(8), 8, peer, &h); /* the slot is reused: gen moves on */
    ARMCI_Wait(&copy);
}
static void wait_null(void) { ARMCI_Wait(NULL); }
static void init_handle_null(void) { ARMCI_INIT_HANDLE(NULL); }

static void putv_null_desc(void) { ARMCI_PutV(NULL, 1, peer); }
static void getv_null_desc(void) { ARMCI_GetV(NULL, 2, peer); }
static void accv_null_desc(void) { ARMCI_AccV(ARMCI_ACC_DBL, &dscale, NULL, 1, peer); }
static void nbputv_null_desc(void) { ARMCI_NbPutV(NULL, 1, peer, NULL); }
static void putv_neg_len(void)
{
    void *s[1] = {loc}, *d[1] = {rem(0)};
    armci_giov_t v = {s, d, 8, 1};
    ARMCI_PutV(&v, -1, peer);
}
static void putv_null_ptrs(void)
{
    void *d[1] = {rem(0)};
    armci_giov_t v = {NULL, d, 8, 1};
    ARMCI_PutV(&v, 1, peer);
}
static void getv_null_elem(void)
{
    void *s[2] = {rem(0), NULL}, *d[2] = {loc, loc + 8};
    armci_giov_t v[2] = {{s, d, 8, 1}, {s, d, 8, 2}};
    ARMCI_GetV(v, 2, peer);
}
static void putv_neg_bytes(void)
{
    void *s[1] = {loc}, *d[1] = {rem(0)};
    armci_giov_t v = {s, d, -1, 1};
    ARMCI_PutV(&v, 1, peer);
}
static void getv_not_armci(void)
{
    char stack[16];
    void *s[2] = {rem(0), stack}, *d[2] = {loc, loc + 8};
    armci_giov_t v = {s, d, 8, 2};
    ARMCI_GetV(&v, 1, peer);
}
static void accv_null_scale(void)
{
    void *s[1] = {loc}, *d[1] = {rem(0)};
    armci_giov_t v = {s, d, 8, 1};
    ARMCI_AccV(ARMCI_ACC_DBL, NULL, &v, 1, peer);
}

static void access_begin_stack(void)
{
    char stack[8];
    ARMCI_Access_begin(stack);
}
/* Local pointers cannot all be checked, but a transfer that fails must
 * not be reported as done. */
static void get_bad_local(void) { ARMCI_Get(rem(0), (void *)16, 8, peer); }
static void copy_neg(void) { ARMCI_Copy(loc, loc + 64, -1); }
static void put_flag_null_flag(void) { ARMCI_Put_flag(loc, rem(0), 8, NULL, 1, peer); }
static void puts_flag_stack_flag(void)
{
    int flag;
    ARMCI_PutS_flag(loc, str1, rem(0), str1, cnt2, 1, &flag, 1, peer);
}

/* collective cases: every rank makes the call */
static void malloc_neg(void)
{
    void *p[64];
    ARMCI_Malloc(p, -1);
}
static void malloc_null(void) { ARMCI_Malloc(NULL, 64); }
static void free_not_start(void) { ARMCI_Free((char *)base[armci_msg_me()] + 8); }
static void free_twice(void)
{
    ARMCI_Free(base[armci_msg_me()]);
    ARMCI_Free(base[armci_msg_me()]);
}
static void free_malloc(void) { ARMCI_Free(not_armci_heap); }

/* No call at all: with a malformed ARMCI_* variable, ARMCI_Init itself
 * must stop (the variable comes from suite.cmake). */
static void init_only(void) {}

enum { F_ALL = 1, F_NO_MUTEX = 2, F_BEFORE_INIT = 4 };

static void put_before_init(void) { ARMCI_Put(loc, loc + 8, 8, 0); }

struct errcase {
    const char *name;
    void (*fn)(void);
    int flags;
};

#define C(name, flags) {#name, name, flags}
static const struct errcase cases[] = {
    C(put_null_src, 0), C(put_null_dst, 0), C(get_null_src, 0), C(get_null_dst, 0),
    C(acc_null_src, 0), C(acc_null_dst, 0), C(nbput_null_src, 0), C(puts_null_src, 0),
    C(puts_null_dst, 0), C(gets_null_src, 0), C(accs_null_dst, 0), C(puts_null_count, 0),
    C(puts_null_stride, 0), C(gets_null_stride, 0),
    C(put_neg_bytes, 0), C(get_neg_bytes, 0), C(acc_neg_bytes, 0), C(nbget_neg_bytes, 0),
    C(puts_neg_count, 0), C(gets_neg_count0, 0), C(puts_neg_stride, 0), C(gets_neg_stride, 0),
    C(accs_neg_stride, 0), C(puts_overlap, 0), C(puts_levels_9, 0), C(puts_levels_10, 0),
    C(puts_levels_neg, 0), C(gets_levels_9, 0),
    C(put_proc_neg, 0), C(put_proc_n, 0), C(get_proc_n, 0), C(acc_proc_neg, 0),
    C(puts_proc_n, 0), C(nbgets_proc_neg, 0), C(rmw_proc_n, 0), C(lock_proc_n, 0),
    C(fence_proc_n, 0), C(waitproc_proc_n, 0), C(putvalue_proc_neg, 0), C(getvalue_proc_n, 0),
    C(putv_proc_n, 0),
    C(put_stack, 0), C(get_malloc, 0), C(acc_malloc, 0), C(puts_stack, 0), C(gets_malloc, 0),
    C(rmw_stack, 0), C(put_overrun, 0), C(puts_overrun, 0), C(putvalue_stack, 0),
    C(getvalue_malloc, 0), C(getvalue_null, 0), C(put_after_free, F_ALL),
    C(rmw_null_ploc, 0), C(rmw_bad_op, 0), C(acc_bad_type, 0), C(accs_bad_type, 0),
    C(acc_null_scale, 0), C(nbaccs_null_scale, 0), C(acc_partial_elem, 0),
    C(accs_partial_elem, 0), C(accv_partial_elem, 0),
    C(lock_range, 0), C(lock_neg, 0), C(unlock_range, 0), C(lock_nocreate, F_NO_MUTEX),
    C(unlock_nocreate, F_NO_MUTEX), C(unlock_unheld, 0), C(destroy_nocreate, F_NO_MUTEX | F_ALL),
    C(create_mutexes_neg, F_NO_MUTEX | F_ALL),
    C(wait_uninit, 0), C(test_uninit, 0), C(nbput_uninit, 0), C(wait_stale, 0), C(wait_null, 0),
    C(init_handle_null, 0),
    C(putv_null_desc, 0), C(getv_null_desc, 0), C(accv_null_desc, 0), C(nbputv_null_desc, 0),
    C(putv_neg_len, 0), C(putv_null_ptrs, 0), C(getv_null_elem, 0), C(putv_neg_bytes, 0),
    C(getv_not_armci, 0), C(accv_null_scale, 0),
    C(access_begin_stack, 0), C(get_bad_local, 0), C(copy_neg, 0), C(put_flag_null_flag, 0),
    C(puts_flag_stack_flag, 0),
    C(malloc_neg, F_ALL), C(malloc_null, F_ALL), C(free_not_start, F_ALL), C(free_twice, F_ALL),
    C(free_malloc, F_ALL), C(init_only, F_ALL),
    C(put_before_init, F_BEFORE_INIT),
};

static const struct errcase *find(const char *name)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!strcmp(cases[i].name, name))
            return &cases[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const struct errcase *c = argc == 2 ? find(argv[1]) : NULL;
    if (!c) {
        fprintf(stderr, "usage: test_errors <case>; cases:");
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            fprintf(stderr, " %s", cases[i].name);
        fputc('\n', stderr);
        return 2;
    }
    if (c->flags & F_BEFORE_INIT) {
        c->fn();
        fprintf(stderr, "case %s: no error\n", c->name);
        return 0;
    }
    ARMCI_Init();
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    peer = nproc - 1;
    base = calloc((size_t)nproc, sizeof *base);
    not_armci_heap = malloc(REGION);
    CHECK(base && not_armci_heap, "out of memory");
    memset(not_armci_heap, 0, REGION);
    CHECK(ARMCI_Malloc(base, REGION) == 0, "ARMCI_Malloc failed");
    if (!(c->flags & F_NO_MUTEX))
        ARMCI_Create_mutexes(2);
    ARMCI_Barrier();
    if (me == 0 || (c->flags & F_ALL))
        c->fn();
    if (c->fn != init_only)
        fprintf(stderr, "case %s: no error\n", c->name);
    armci_msg_barrier();
    ARMCI_Finalize();
    free(not_armci_heap);
    free(base);
    return 0;
}
