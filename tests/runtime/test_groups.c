/* Groups and domains under emunic-run: world and default handles, groups
 * of every shape (all ranks reversed, even ranks, empty, singleton), rank
 * and absolute-id maps including non-members, children and grandchildren,
 * creation over a non-world default, id agreement over hundreds of live
 * groups, handle copies, freeing the default; collectives on overlapping
 * groups, blocking and (through coll.h) several in flight at once, started
 * in different orders on different ranks; the armci_domain_* layout.
 *
 * "test_groups err <case>" makes one bad call instead (see msg.cmake). A
 * mismatch prints "FAIL rank R file:line what" and exits 1. */
#include <armci.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "kernels.h"

#include "rtest.h"

static int nproc, rpn;

#define MAXG 1000

/* A created group and what the test expects of it. */
struct tg {
    ARMCI_Group g;
    int n, rank;
    int abs[1024];
};

/* Create over the default group (parent NULL) or a parent whose absolute
 * ids are pabs; pids are ranks of the parent. */
static void make(struct tg *t, int n, int *pids, ARMCI_Group *parent, const int *pabs)
{
    if (parent)
        ARMCI_Group_create_child(n, pids, &t->g, parent);
    else
        ARMCI_Group_create(n, pids, &t->g);
    t->n = n;
    t->rank = -1;
    for (int i = 0; i < n; i++) {
        t->abs[i] = pabs ? pabs[pids[i]] : pids[i];
        if (t->abs[i] == me)
            t->rank = i;
    }
}

/* Handle fields, Group_rank/size, Absolute_id of every rank; for members
 * that the id agrees and a barrier, broadcast and sum work. */
static void check_group(struct tg *t, const char *what, int colls)
{
    int r = -2, s = -2;
    CHECK(ARMCI_Group_rank(&t->g, &r) == 0 && r == t->rank, "%s: Group_rank %d, want %d", what,
          r, t->rank);
    ARMCI_Group_size(&t->g, &s);
    CHECK(s == t->n && t->g.size == t->n && t->g.rank == t->rank, "%s: size %d, want %d", what,
          s, t->n);
    for (int i = 0; i < t->n; i++)
        CHECK(ARMCI_Absolute_id(&t->g, i) == t->abs[i], "%s: Absolute_id(%d) = %d, want %d",
              what, i, ARMCI_Absolute_id(&t->g, i), t->abs[i]);
    if (t->rank < 0 || !colls)
        return;
    {
        long v[3] = {t->g.id, -(long)t->g.id, me}, sum = 0;
        armci_msg_group_lgop(v, 2, "max", &t->g);
        CHECK(v[0] == -v[1] && v[0] == t->g.id, "%s: members disagree on the id (%ld..%ld)",
              what, -v[1], v[0]);
        armci_msg_group_lgop(&v[2], 1, "+", &t->g);
        for (int i = 0; i < t->n; i++)
            sum += t->abs[i];
        CHECK(v[2] == sum, "%s: sum of ranks %ld, want %ld", what, v[2], sum);
    }
    armci_msg_group_barrier(&t->g);
    for (int root = 0; root < t->n; root += (t->n > 4 ? t->n / 3 : 1)) {
        int x[3] = {-1, -1, -1};
        if (t->rank == root)
            x[0] = 1000 + me, x[1] = t->g.id, x[2] = root;
        armci_msg_group_bcast_scope(SCOPE_ALL, x, sizeof x, t->abs[root], &t->g);
        CHECK(x[0] == 1000 + t->abs[root] && x[1] == t->g.id && x[2] == root,
              "%s: bcast from group rank %d got %d %d %d", what, root, x[0], x[1], x[2]);
    }
}

static void test_world(void)
{
    ARMCI_Group w, d;
    int r;
    ARMCI_Group_get_world(&w);
    ARMCI_Group_get_default(&d);
    CHECK(w.size == nproc && w.rank == me, "world: size %d rank %d", w.size, w.rank);
    CHECK(d.size == nproc && d.rank == me && d.id == w.id, "default is not the world");
    CHECK(ARMCI_Group_rank(&w, &r) == 0 && r == me, "world Group_rank %d", r);
    for (int i = 0; i < nproc; i++)
        CHECK(ARMCI_Absolute_id(&d, i) == i, "world Absolute_id(%d)", i);
}

static void test_domains(void)
{
    int nn = (nproc + rpn - 1) / rpn, seen[1024] = {0}, total = 0;
    CHECK(armci_domain_count(ARMCI_DOMAIN_SMP) == nn, "domain_count %d, want %d",
          armci_domain_count(ARMCI_DOMAIN_SMP), nn);
    CHECK(armci_domain_my_id(ARMCI_DOMAIN_SMP) == me / rpn, "domain_my_id %d",
          armci_domain_my_id(ARMCI_DOMAIN_SMP));
    for (int p = 0; p < nproc; p++) {
        CHECK(armci_domain_id(ARMCI_DOMAIN_SMP, p) == p / rpn, "domain_id(%d) = %d", p,
              armci_domain_id(ARMCI_DOMAIN_SMP, p));
        CHECK(armci_domain_same_id(ARMCI_DOMAIN_SMP, p) == (p / rpn == me / rpn),
              "domain_same_id(%d)", p);
        CHECK(ARMCI_Same_node(p) == (p / rpn == me / rpn), "ARMCI_Same_node(%d)", p);
    }
    for (int id = 0; id < nn; id++) {
        int np = armci_domain_nprocs(ARMCI_DOMAIN_SMP, id);
        CHECK(np == rpn, "domain_nprocs(%d) = %d, want %d", id, np, rpn);
        for (int i = 0; i < np; i++) {
            int p = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, id, i);
            CHECK(p == id * rpn + i && !seen[p], "glob_proc_id(%d, %d) = %d", id, i, p);
            seen[p] = 1;
            total++;
        }
    }
    CHECK(total == nproc, "domains hold %d ranks, want %d", total, nproc);
}

/* Groups of several shapes live at once, then children and grandchildren. */
static void test_shapes(void)
{
    static struct tg all, even, empty, single, child, grand, over;
    int pids[1024], n = 0;

    for (int r = nproc - 1; r >= 0; r--)
        pids[n++] = r;
    make(&all, n, pids, NULL, NULL);
    n = 0;
    for (int r = 0; r < nproc; r += 2)
        pids[n++] = r;
    make(&even, n, pids, NULL, NULL);
    make(&empty, 0, NULL, NULL, NULL);
    pids[0] = nproc - 1;
    make(&single, 1, pids, NULL, NULL);

    check_group(&all, "all reversed", 1);
    check_group(&even, "even ranks", 1);
    check_group(&empty, "empty", 1);
    check_group(&single, "singleton", 1);
    CHECK(all.g.id != even.g.id && all.g.id != single.g.id && even.g.id != single.g.id &&
              all.g.id != empty.g.id,
          "live groups share an id (%d %d %d %d)", all.g.id, even.g.id, empty.g.id,
          single.g.id);

    /* Child of "even": its last and first member (ranks of even). */
    if (even.rank >= 0) {
        int cp[2] = {even.n - 1, 0};
        make(&child, even.n > 1 ? 2 : 1, cp, &even.g, even.abs);
        check_group(&child, "child of even", 1);
        if (child.rank >= 0) {
            int gp = child.n - 1;
            make(&grand, 1, &gp, &child.g, child.abs);
            check_group(&grand, "grandchild", 1);
            ARMCI_Group_free(&grand.g);
        }
        ARMCI_Group_free(&child.g);

        /* With "even" as the default, Group_create takes ranks of it. */
        ARMCI_Group_set_default(&even.g);
        {
            ARMCI_Group d;
            int r, k = 0;
            ARMCI_Group_get_default(&d);
            CHECK(d.size == even.n && d.id == even.g.id, "get_default is not \"even\"");
            CHECK(armci_msg_me() == me && armci_msg_nproc() == nproc,
                  "armci_msg_me/nproc must stay world ranks");
            for (int i = even.n - 1; i >= 0; i -= 2)
                pids[k++] = i;
            make(&over, k, pids, NULL, even.abs);
            check_group(&over, "created over default=even", 1);
            ARMCI_Group_free(&over.g);
            r = me;
            armci_msg_igop(&r, 1, "max"); /* over the default group */
            CHECK(r == even.abs[0] + (even.n - 1) * 2, "igop over default=even: %d", r);
        }
        /* Freeing the default group makes the world the default again. */
        {
            ARMCI_Group copy = even.g, d;
            ARMCI_Group_free(&copy);
            ARMCI_Group_get_default(&d);
            CHECK(d.size == nproc && d.rank == me, "default after freeing it: size %d", d.size);
        }
    } else {
        ARMCI_Group_free(&even.g);
    }
    armci_msg_barrier();
    ARMCI_Group_free(&all.g);
    ARMCI_Group_free(&empty.g);
    ARMCI_Group_free(&single.g);
}

/* About a thousand live groups from three parents -- the world, a
 * permutation of it, and the lower half of the ranks (only they create
 * over it) -- so candidate ids collide, and collide at some ranks only:
 * the ids must still agree among members and never repeat among one
 * rank's live groups. */
static void test_many(void)
{
    static struct tg gs[MAXG];
    int per = 330, count = 0, pids[1024], half = (nproc + 1) / 2;
    struct tg parent, low;

    for (int r = 0; r < nproc; r++)
        pids[r] = (r * 7 + 3) % nproc; /* a permutation of the world */
    if (nproc % 7 == 0)
        for (int r = 0; r < nproc; r++)
            pids[r] = nproc - 1 - r;
    make(&parent, nproc, pids, NULL, NULL);
    for (int r = 0; r < half; r++)
        pids[r] = r;
    make(&low, half, pids, NULL, NULL);

    for (int k = 0; k < per; k++) {
        int n = 0, sel[1024];
        for (int r = 0; r < nproc; r++)
            if ((r + k) % 3 != 0 || nproc < 3)
                sel[n++] = r;
        make(&gs[count++], n, sel, NULL, NULL);
        make(&gs[count++], n, sel, &parent.g, parent.abs);
        if (low.rank >= 0) {
            int m = 0;
            for (int r = 0; r < half; r++)
                if ((r + k) % 2 == 0 || half < 2)
                    sel[m++] = r;
            make(&gs[count++], m, sel, &low.g, low.abs);
        }
    }
    for (int k = 0; k < count; k++) {
        for (int j = 0; j < k; j++)
            CHECK(gs[k].g.id != gs[j].g.id, "live groups %d and %d share id %d", j, k,
                  gs[k].g.id);
        CHECK(gs[k].g.id > 0 && gs[k].g.id <= 65000, "id %d", gs[k].g.id);
    }
    /* Members check their ids agree in the same order: the world's and
     * the permutation's groups at every rank, then the low half's. */
    for (int k = 0; k < count; k++)
        if (low.rank < 0 || k % 3 != 2)
            check_group(&gs[k], "many", 1);
    for (int k = 2; k < count && low.rank >= 0; k += 3)
        check_group(&gs[k], "many (low half)", 1);
    for (int k = 0; k < count; k++)
        ARMCI_Group_free(&gs[k].g);
    /* Create and free at once: ids are reused safely. */
    for (int k = 0; k < 40; k++) {
        int sel[2] = {k % nproc, (k + 1) % nproc};
        make(&gs[0], nproc > 1 ? 2 : 1, sel, NULL, NULL);
        check_group(&gs[0], "create+free", k % 10 == 0);
        ARMCI_Group_free(&gs[0].g);
    }
    ARMCI_Group_free(&low.g);
    ARMCI_Group_free(&parent.g);
}

/* coll.h's non-blocking collectives: three in flight on three groups,
 * started in a different order on odd and even ranks. */
static void test_nonblocking(void)
{
    struct tg all, odd;
    ARMCI_Group world;
    int pids[1024], n = 0, opc = armcii_reduce_op("+", ARMCI_LONG);
    long sum[64];
    int bc[1000];
    armcii_coll_t c[3] = {NULL, NULL, NULL};

    CHECK(opc >= 0, "armcii_reduce_op");
    ARMCI_Group_get_world(&world);
    for (int r = nproc - 1; r >= 0; r--)
        pids[n++] = r;
    make(&all, n, pids, NULL, NULL);
    n = 0;
    for (int r = 1; r < nproc; r += 2)
        pids[n++] = r;
    if (n == 0)
        pids[n++] = 0;
    make(&odd, n, pids, NULL, NULL);

    for (int iter = 0; iter < 10; iter++) {
        int done = 0;
        for (int i = 0; i < 64; i++)
            sum[i] = me * 64 + i + iter;
        for (int i = 0; i < 1000; i++)
            bc[i] = me == 0 ? i * 3 + iter : -1;
        for (int k = 0; k < 3; k++) {
            int which = me % 2 ? 2 - k : k;
            if (which == 0)
                c[0] = armcii_coll_ibarrier(&world);
            else if (which == 1)
                c[1] = armcii_coll_ibcast(&all.g, bc, sizeof bc, all.n - 1); /* world rank 0 */
            else if (odd.rank >= 0)
                c[2] = armcii_coll_iallreduce(&odd.g, sum, 64, ARMCI_LONG, opc);
        }
        while (done < 3) {
            done = 0;
            for (int k = 0; k < 3; k++) {
                if (c[k] && armcii_coll_test(c[k]))
                    c[k] = NULL;
                done += c[k] == NULL;
            }
            if (done < 3)
                sched_yield(); /* 2 cores for up to 16 ranks */
        }
        for (int i = 0; i < 1000; i++)
            CHECK(bc[i] == i * 3 + iter, "ibcast element %d = %d", i, bc[i]);
        if (odd.rank >= 0)
            for (int i = 0; i < 64; i++) {
                long want = 0;
                for (int m = 0; m < odd.n; m++)
                    want += odd.abs[m] * 64 + i + iter;
                CHECK(sum[i] == want, "iallreduce element %d = %ld, want %ld", i, sum[i], want);
            }
    }
    /* The blocking forms on handles too. */
    {
        int mine[2] = {me, -me}, got[2048];
        armcii_coll_allgather(&all.g, mine, sizeof mine, got);
        for (int i = 0; i < all.n; i++)
            CHECK(got[2 * i] == all.abs[i] && got[2 * i + 1] == -all.abs[i],
                  "allgather block %d = %d", i, got[2 * i]);
        armcii_coll_barrier(&all.g);
        armcii_coll_bcast(&all.g, mine, sizeof mine, 0);
        CHECK(mine[0] == nproc - 1, "coll_bcast %d", mine[0]);
    }
    ARMCI_Group_free(&all.g);
    ARMCI_Group_free(&odd.g);
}

static int err_case(const char *name)
{
    ARMCI_Group g, w, copy;
    int pids[4] = {0, 99, 0, 0}, r;

    if (!strcmp(name, "pid_range"))
        ARMCI_Group_create(2, pids, &g);
    else if (!strcmp(name, "pid_dup")) {
        pids[0] = pids[1] = 1;
        ARMCI_Group_create(2, pids, &g);
    } else if (!strcmp(name, "n_neg"))
        ARMCI_Group_create(-1, pids, &g);
    else if (!strcmp(name, "n_big"))
        ARMCI_Group_create(3, pids, &g);
    else if (!strcmp(name, "null_list"))
        ARMCI_Group_create(1, NULL, &g);
    else if (!strcmp(name, "null_out"))
        ARMCI_Group_create(1, pids, NULL);
    else if (!strcmp(name, "child_range")) {
        pids[1] = 1;
        ARMCI_Group_create(2, pids, &g);
        if (me == 2)
            return 1;
        pids[0] = 2;
        ARMCI_Group_create_child(1, pids, &copy, &g);
    } else if (!strcmp(name, "freed")) {
        ARMCI_Group_create(1, pids, &g);
        ARMCI_Group_free(&g);
        ARMCI_Group_size(&g, &r);
    } else if (!strcmp(name, "garbage")) {
        memset(&g, 0x5a, sizeof g);
        ARMCI_Group_rank(&g, &r);
    } else if (!strcmp(name, "stale_copy")) {
        ARMCI_Group_create(1, pids, &g);
        copy = g;
        ARMCI_Group_free(&g);
        ARMCI_Absolute_id(&copy, 0);
    } else if (!strcmp(name, "free_world")) {
        ARMCI_Group_get_world(&w);
        ARMCI_Group_free(&w);
    } else if (!strcmp(name, "bcast_root")) {
        /* the root of a group broadcast is a world rank (GA passes it so) */
        int x = 0;
        ARMCI_Group_get_world(&w);
        armci_msg_group_bcast_scope(SCOPE_ALL, &x, sizeof x, 2, &w);
    } else if (!strcmp(name, "abs_range")) {
        ARMCI_Group_get_world(&w);
        ARMCI_Absolute_id(&w, 2);
    } else if (!strcmp(name, "nonmember_default")) {
        ARMCI_Group_create(1, pids, &g);
        if (me == 0)
            return 1;
        ARMCI_Group_set_default(&g);
    } else if (!strcmp(name, "nonmember_coll")) {
        ARMCI_Group_create(1, pids, &g);
        if (me == 0)
            return 1;
        armci_msg_group_barrier(&g);
    } else if (!strcmp(name, "pid_mismatch")) {
        /* overlapping lists that disagree: rank r names r and r+1, whose
         * own list is different (disjoint lists would be fine) */
        pids[0] = me;
        pids[1] = (me + 1) % nproc;
        ARMCI_Group_create(nproc > 1 ? 2 : 1, pids, &g);
    } else if (!strcmp(name, "domain_id"))
        armci_domain_nprocs(ARMCI_DOMAIN_SMP, 2);
    else if (!strcmp(name, "domain_proc"))
        ARMCI_Same_node(-1);
    else if (!strcmp(name, "domain_loc"))
        armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, 1, 2);
    else {
        fprintf(stderr, "unknown error case %s\n", name);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *s = getenv("EMUNIC_LOCAL_SIZE");
    setvbuf(stdout, NULL, _IOLBF, 0);
    rpn = s ? atoi(s) : 0;
    if (ARMCI_Init() != 0 || rpn <= 0) {
        fprintf(stderr, "FAIL rank ? test_groups.c:%d ARMCI_Init or EMUNIC_LOCAL_SIZE\n",
                __LINE__);
        return 1;
    }
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    if (argc == 3 && !strcmp(argv[1], "err")) {
        if (err_case(argv[2]) == 0)
            printf("NO ERROR from case %s on rank %d\n", argv[2], me);
        ARMCI_Finalize();
        return 0;
    }
    CHECK(nproc <= 1024, "at most 1024 ranks");
    test_world();
    test_domains();
    test_shapes();
    test_many();
    test_nonblocking();
    armci_msg_barrier();
    if (me == 0)
        printf("test_groups: all checks passed on %d ranks\n", nproc);
    ARMCI_Finalize();
    return 0;
}
