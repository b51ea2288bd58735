/* Every mistake a collective call can report: the result code, and
 * exactly one line on stderr naming the call. Covers: the messager not
 * initialised; register calls with NULLs and out-of-range protocols (and
 * every in-range one accepted); unregistered and wrong-kind protocols;
 * NULL requests and buffers, requests still in use; roots out of range;
 * bad consistency; every invalid (op, datatype) pair and the user-defined
 * ones; geometry set-up mistakes; uninitialised and freed geometries;
 * protocols that analyze rejects. Afterwards each kind of collective
 * still works (failed calls must not disturb the sequence numbering). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dcmf.h>
#include <dcmf_collectives.h>
#include <dcmf_globalcollectives.h>

static size_t me, np;
static int saved_fd = -1; /* stderr while it is being captured */

#define FAIL(...)                                                               \
    do {                                                                        \
        if (saved_fd >= 0)                                                      \
            dup2(saved_fd, 2);                                                  \
        fprintf(stderr, "FAIL rank %zu line %d: ", me, __LINE__);               \
        fprintf(stderr, __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                    \
        exit(1);                                                                \
    } while (0)

/* Run call with stderr captured; it must return want and print one line
 * that contains fn (fn NULL: print nothing). */
static FILE *cap;

static void cap_begin(void)
{
    fflush(stderr);
    if (!cap && !(cap = tmpfile()))
        FAIL("tmpfile");
    if (ftruncate(fileno(cap), 0) != 0)
        FAIL("ftruncate");
    rewind(cap);
    saved_fd = dup(2);
    dup2(fileno(cap), 2);
}

static void cap_end(const char *what, const char *fn, int line)
{
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    saved_fd = -1;
    char text[2048] = "";
    rewind(cap);
    size_t n = fread(text, 1, sizeof text - 1, cap);
    text[n] = 0;
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    if (!fn && n)
        FAIL("line %d: %s printed: %s", line, what, text);
    if (fn && (lines != 1 || !strstr(text, fn)))
        FAIL("line %d: %s: expected one line naming %s, got: %s", line, what, fn, text);
}

#define EXPECT(call, want, fn)                                                  \
    do {                                                                        \
        cap_begin();                                                            \
        int rc_ = (int)(call);                                                  \
        cap_end(#call, fn, __LINE__);                                           \
        if (rc_ != (int)(want))                                                 \
            FAIL("%s returned %d, expected %d", #call, rc_, (int)(want));       \
    } while (0)

static volatile int ndone;

static void done_cb(void *cd, DCMF_Error_t *e)
{
    if (e)
        FAIL("collective completed with error %d", e->result);
    (*(volatile int *)cd)++;
}
#define CB ((DCMF_Callback_t){done_cb, (void *)&ndone})

static void wait_for(int target)
{
    double end = DCMF_Timer() + 60;
    while (ndone < target) {
        DCMF_Messager_advance();
        if (DCMF_Timer() > end)
            FAIL("timeout waiting for a collective");
    }
}

static DCMF_Protocol_t gbar, gbc, gar, sendp, zero_p;
static DCMF_CollectiveProtocol_t bar_bin, bar_gi, ar_bin, ar_tree, bc_bin, zero_cp;
static DCMF_Request_t req;
static DCMF_CollectiveRequest_t creq;

static void before_init(void)
{
    DCMF_GlobalBarrier_Configuration_t c = {DCMF_DEFAULT_GLOBALBARRIER_PROTOCOL};
    DCMF_Barrier_Configuration_t bc = {DCMF_BINOMIAL_BARRIER_PROTOCOL, NULL};
    DCMF_Geometry_t g;
    unsigned r0 = 0;
    char b[8];
    EXPECT(DCMF_GlobalBarrier_register(&gbar, &c), DCMF_ERROR, "DCMF_GlobalBarrier_register");
    EXPECT(DCMF_GlobalBarrier(&gbar, &req, CB), DCMF_ERROR, "DCMF_GlobalBarrier");
    EXPECT(DCMF_GlobalBcast(&gbc, &req, CB, DCMF_MATCH_CONSISTENCY, 0, b, 8), DCMF_ERROR, "DCMF_GlobalBcast");
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, -1, b, b, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_ERROR, "DCMF_GlobalAllreduce");
    EXPECT(DCMF_Collective_initialize() != 0, 1, "DCMF_Collective_initialize");
    EXPECT(DCMF_Barrier_register(&bar_bin, &bc), DCMF_ERROR, "DCMF_Barrier_register");
    EXPECT(DCMF_Geometry_initialize(&g, 1, &r0, 1, NULL, 0, NULL, 0, NULL, 1, 0), DCMF_ERROR,
           "DCMF_Geometry_initialize");
    EXPECT(DCMF_Geometry_analyze(&g, &bar_bin), 0, "DCMF_Geometry_analyze");
    EXPECT(DCMF_Barrier(&g, CB, DCMF_MATCH_CONSISTENCY), DCMF_ERROR, "DCMF_Barrier");
}

static void never_short(void *cd, const DCQuad *mi, unsigned count, size_t peer, const char *src,
                        size_t bytes)
{
    (void)cd, (void)mi, (void)count, (void)src, (void)bytes;
    FAIL("a message arrived on the test's send protocol from %zu", peer);
}

static void registration(void)
{
    for (int a = 0; a <= DCMF_NUM_GLOBALBARRIER_PROTOCOLS; a++) {
        DCMF_GlobalBarrier_Configuration_t c = {(DCMF_GlobalBarrier_Protocol)a};
        EXPECT(DCMF_GlobalBarrier_register(&gbar, &c), a < DCMF_NUM_GLOBALBARRIER_PROTOCOLS ? DCMF_SUCCESS : DCMF_INVAL,
               a < DCMF_NUM_GLOBALBARRIER_PROTOCOLS ? NULL : "DCMF_GlobalBarrier_register");
    }
    for (int a = 0; a <= DCMF_NUM_GLOBALBCAST_PROTOCOLS; a++) {
        DCMF_GlobalBcast_Configuration_t c = {(DCMF_GlobalBcast_Protocol)a};
        EXPECT(DCMF_GlobalBcast_register(&gbc, &c), a < DCMF_NUM_GLOBALBCAST_PROTOCOLS ? DCMF_SUCCESS : DCMF_INVAL,
               a < DCMF_NUM_GLOBALBCAST_PROTOCOLS ? NULL : "DCMF_GlobalBcast_register");
    }
    for (int a = 0; a <= DCMF_NUM_GLOBALALLREDUCE_PROTOCOLS; a++) {
        DCMF_GlobalAllreduce_Configuration_t c = {(DCMF_GlobalAllreduce_Protocol)a};
        EXPECT(DCMF_GlobalAllreduce_register(&gar, &c), a < DCMF_NUM_GLOBALALLREDUCE_PROTOCOLS ? DCMF_SUCCESS : DCMF_INVAL,
               a < DCMF_NUM_GLOBALALLREDUCE_PROTOCOLS ? NULL : "DCMF_GlobalAllreduce_register");
    }
    DCMF_CollectiveProtocol_t tmp;
    for (int a = 0; a <= DCMF_NUM_BARRIER_PROTOCOLS; a++) {
        DCMF_Barrier_Configuration_t c = {(DCMF_Barrier_Protocol)a, NULL};
        EXPECT(DCMF_Barrier_register(&tmp, &c), a < DCMF_NUM_BARRIER_PROTOCOLS ? DCMF_SUCCESS : DCMF_INVAL,
               a < DCMF_NUM_BARRIER_PROTOCOLS ? NULL : "DCMF_Barrier_register");
    }
    for (int a = 0; a <= DCMF_NUM_ALLREDUCE_PROTOCOLS; a++) {
        DCMF_Allreduce_Configuration_t c = {(DCMF_Allreduce_Protocol)a, NULL, 1};
        EXPECT(DCMF_Allreduce_register(&tmp, &c), a < DCMF_NUM_ALLREDUCE_PROTOCOLS ? DCMF_SUCCESS : DCMF_INVAL,
               a < DCMF_NUM_ALLREDUCE_PROTOCOLS ? NULL : "DCMF_Allreduce_register");
    }
    for (int a = 0; a <= DCMF_NUM_BROADCAST_PROTOCOLS; a++) {
        DCMF_Broadcast_Configuration_t c = {(DCMF_Broadcast_Protocol)a, NULL};
        EXPECT(DCMF_Broadcast_register(&tmp, &c), a < DCMF_NUM_BROADCAST_PROTOCOLS ? DCMF_SUCCESS : DCMF_INVAL,
               a < DCMF_NUM_BROADCAST_PROTOCOLS ? NULL : "DCMF_Broadcast_register");
    }
    DCMF_GlobalBarrier_Configuration_t gc = {DCMF_DEFAULT_GLOBALBARRIER_PROTOCOL};
    EXPECT(DCMF_GlobalBarrier_register(NULL, &gc), DCMF_INVAL, "DCMF_GlobalBarrier_register");
    EXPECT(DCMF_GlobalBarrier_register(&gbar, NULL), DCMF_INVAL, "DCMF_GlobalBarrier_register");
    EXPECT(DCMF_GlobalBcast_register(&gbc, NULL), DCMF_INVAL, "DCMF_GlobalBcast_register");
    EXPECT(DCMF_GlobalAllreduce_register(NULL, NULL), DCMF_INVAL, "DCMF_GlobalAllreduce_register");
    EXPECT(DCMF_Barrier_register(&tmp, NULL), DCMF_INVAL, "DCMF_Barrier_register");
    EXPECT(DCMF_Allreduce_register(NULL, NULL), DCMF_INVAL, "DCMF_Allreduce_register");
    EXPECT(DCMF_Broadcast_register(&tmp, NULL), DCMF_INVAL, "DCMF_Broadcast_register");

    /* the ones used below */
    DCMF_GlobalBarrier_Configuration_t c1 = {DCMF_GI_GLOBALBARRIER_PROTOCOL};
    DCMF_GlobalBcast_Configuration_t c2 = {DCMF_DEFAULT_GLOBALBCAST_PROTOCOL};
    DCMF_GlobalAllreduce_Configuration_t c3 = {DCMF_DEFAULT_GLOBALALLREDUCE_PROTOCOL};
    DCMF_Barrier_Configuration_t b1 = {DCMF_BINOMIAL_BARRIER_PROTOCOL, NULL}, b2 = {DCMF_GI_BARRIER_PROTOCOL, NULL};
    DCMF_Allreduce_Configuration_t a1 = {DCMF_TORUS_BINOMIAL_ALLREDUCE_PROTOCOL, NULL, 0},
                                   a2 = {DCMF_TREE_ALLREDUCE_PROTOCOL, NULL, 0};
    DCMF_Broadcast_Configuration_t k1 = {DCMF_TORUS_BINOMIAL_BROADCAST_PROTOCOL, NULL};
    DCMF_Send_Configuration_t sc = {DCMF_DEFAULT_SEND_PROTOCOL, DCMF_DEFAULT_NETWORK, NULL, NULL, NULL, NULL};
    sc.cb_recv_short = never_short; /* nothing is sent on it */
    EXPECT(DCMF_GlobalBarrier_register(&gbar, &c1), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_GlobalBcast_register(&gbc, &c2), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_GlobalAllreduce_register(&gar, &c3), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Barrier_register(&bar_bin, &b1), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Barrier_register(&bar_gi, &b2), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Allreduce_register(&ar_bin, &a1), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Allreduce_register(&ar_tree, &a2), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Broadcast_register(&bc_bin, &k1), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Send_register(&sendp, &sc), DCMF_SUCCESS, NULL);
}

static int valid(int op, int dt)
{
    if (dt <= DCMF_UNSIGNED_LONG_LONG)
        return op >= DCMF_NOOP && op <= DCMF_BXOR;
    if (dt <= DCMF_LONG_DOUBLE)
        return op >= DCMF_NOOP && op <= DCMF_LXOR;
    if (dt == DCMF_LOGICAL)
        return op == DCMF_NOOP || (op >= DCMF_LAND && op <= DCMF_LXOR);
    if (dt <= DCMF_DOUBLE_COMPLEX)
        return op == DCMF_NOOP || op == DCMF_SUM || op == DCMF_PROD;
    return op == DCMF_NOOP || op == DCMF_MAXLOC || op == DCMF_MINLOC;
}

static void global_errors(void)
{
    char b[64];
    const char *fb = "DCMF_GlobalBarrier", *fc = "DCMF_GlobalBcast", *fa = "DCMF_GlobalAllreduce";
    EXPECT(DCMF_GlobalBarrier(&zero_p, &req, CB), DCMF_INVAL, fb);
    EXPECT(DCMF_GlobalBarrier(NULL, &req, CB), DCMF_INVAL, fb);
    EXPECT(DCMF_GlobalBarrier(&sendp, &req, CB), DCMF_INVAL, fb);
    EXPECT(DCMF_GlobalBarrier(&gbc, &req, CB), DCMF_INVAL, fb);
    EXPECT(DCMF_GlobalBarrier(&gbar, NULL, CB), DCMF_INVAL, fb);
    EXPECT(DCMF_GlobalBcast(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, 0, b, 8), DCMF_INVAL, fc);
    EXPECT(DCMF_GlobalBcast(&gbc, &req, CB, DCMF_MATCH_CONSISTENCY, (unsigned)np, b, 8), DCMF_INVAL, fc);
    EXPECT(DCMF_GlobalBcast(&gbc, &req, CB, DCMF_MATCH_CONSISTENCY, 0, NULL, 8), DCMF_INVAL, fc);
    EXPECT(DCMF_GlobalBcast(&gbc, &req, CB, (DCMF_Consistency)99, 0, b, 8), DCMF_INVAL, fc);
    EXPECT(DCMF_GlobalAllreduce(&gbar, &req, CB, DCMF_MATCH_CONSISTENCY, -1, b, b, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, -2, b, b, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, (int)np, b, b, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, -1, NULL, b, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, -1, b, NULL, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, (int)me, b, NULL, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, (DCMF_Consistency)-1, -1, b, b, 1, DCMF_SIGNED_INT, DCMF_SUM),
           DCMF_INVAL, fa);
    /* every (op, datatype) pair outside the table, and the user-defined ones */
    int invalid = 0;
    for (int op = -1; op <= DCMF_OP_COUNT; op++)
        for (int dt = -1; dt <= DCMF_DT_COUNT; dt++) {
            int user = op == DCMF_USERDEFINED_OP || dt == DCMF_USERDEFINED_DT;
            int inrange = op > DCMF_UNDEFINED_OP && op < DCMF_OP_COUNT && dt > DCMF_UNDEFINED_DT &&
                          dt < DCMF_DT_COUNT;
            if (!user && inrange && valid(op, dt))
                continue;
            invalid++;
            EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, -1, b, b, 1, (DCMF_Dt)dt,
                                        (DCMF_Op)op),
                   user ? DCMF_UNIMPL : DCMF_INVAL, fa);
        }
    if (invalid < 100)
        FAIL("only %d invalid pairs tried", invalid);

    /* a request still in use; and a reduce whose non-roots pass no rbuf */
    int t = ndone + 1;
    EXPECT(DCMF_GlobalBarrier(&gbar, &req, CB), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_GlobalBarrier(&gbar, &req, CB), DCMF_INVAL, fb);
    EXPECT(DCMF_GlobalBcast(&gbc, &req, CB, DCMF_MATCH_CONSISTENCY, 0, b, 8), DCMF_INVAL, fc);
    wait_for(t);
    int v = (int)me + 1, out = 0;
    t = ndone + 1;
    EXPECT(DCMF_GlobalAllreduce(&gar, &req, CB, DCMF_MATCH_CONSISTENCY, 0, (char *)&v, me ? NULL : (char *)&out,
                                1, DCMF_SIGNED_INT, DCMF_SUM), DCMF_SUCCESS, NULL);
    wait_for(t);
    if (me == 0 && out != (int)(np * (np + 1) / 2))
        FAIL("reduce gave %d", out);
    /* zero bytes and zero count need no buffers */
    t = ndone + 2;
    DCMF_Request_t req2;
    EXPECT(DCMF_GlobalBcast(&gbc, &req, CB, DCMF_MATCH_CONSISTENCY, 0, NULL, 0), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_GlobalAllreduce(&gar, &req2, CB, DCMF_MATCH_CONSISTENCY, -1, NULL, NULL, 0, DCMF_DOUBLE,
                                DCMF_SUM), DCMF_SUCCESS, NULL);
    wait_for(t);
}

static void geometry_errors(void)
{
    const char *fi = "DCMF_Geometry_initialize";
    DCMF_Geometry_t g, g2, zero_g;
    memset(&zero_g, 0, sizeof zero_g);
    unsigned mine = (unsigned)me, other = (unsigned)((me + 1) % np), twice[2] = {mine, mine},
             out = (unsigned)np, both[2] = {mine, other};
    DCMF_CollectiveProtocol_t *bars[] = {&bar_bin}, *gi[] = {&bar_gi}, *bad[] = {&zero_cp},
                              *wrong[] = {&ar_bin};
    EXPECT(DCMF_Geometry_initialize(NULL, 5, &mine, 1, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, NULL, 1, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, &mine, 0, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, &out, 1, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, twice, 2, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, &mine, 1, NULL, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, &mine, 1, bad, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, &mine, 1, wrong, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g, 5, &mine, 1, bars, 1, bad, 1, NULL, 1, 0), DCMF_INVAL, fi);
    if (np > 1) {
        EXPECT(DCMF_Geometry_initialize(&g, 5, &other, 1, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
        EXPECT(DCMF_Geometry_initialize(&g, 5, both, 2, bars, 1, NULL, 0, NULL, 1, 1), DCMF_INVAL, fi);
    }
    /* a geometry of this rank alone, whose only barrier is GI (not global) */
    EXPECT(DCMF_Geometry_initialize(&g, 5, &mine, 1, gi, 1, NULL, 0, NULL, 1, 0), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Geometry_initialize(&g, 6, &mine, 1, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_initialize(&g2, 5, &mine, 1, bars, 1, NULL, 0, NULL, 1, 0), DCMF_INVAL, fi);
    EXPECT(DCMF_Geometry_analyze(&g, &bar_gi), 0, NULL);
    EXPECT(DCMF_Geometry_analyze(&g, &bar_bin), 1, NULL);
    EXPECT(DCMF_Geometry_analyze(&g, &ar_tree), 0, NULL);
    EXPECT(DCMF_Geometry_analyze(&g, &zero_cp), 0, "DCMF_Geometry_analyze");
    EXPECT(DCMF_Geometry_analyze(&zero_g, &bar_bin), 0, "DCMF_Geometry_analyze");
    EXPECT(DCMF_Barrier(&g, CB, DCMF_MATCH_CONSISTENCY), DCMF_INVAL, "DCMF_Barrier");
    EXPECT(DCMF_Barrier(&zero_g, CB, DCMF_MATCH_CONSISTENCY), DCMF_INVAL, "DCMF_Barrier");
    EXPECT(DCMF_Barrier(NULL, CB, DCMF_MATCH_CONSISTENCY), DCMF_INVAL, "DCMF_Barrier");

    const char *fa = "DCMF_Allreduce", *fb = "DCMF_Broadcast";
    int s = 1, r;
    char b[16];
    EXPECT(DCMF_Allreduce(&ar_tree, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&bc_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&zero_cp, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, NULL, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &zero_g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, NULL, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, NULL, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_FLOAT, DCMF_BXOR), DCMF_INVAL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_USERDEFINED_OP), DCMF_UNIMPL, fa);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, (DCMF_Consistency)7, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Broadcast(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, mine, b, 16), DCMF_INVAL, fb);
    EXPECT(DCMF_Broadcast(&bc_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (unsigned)np, b, 16), DCMF_INVAL, fb);
    if (np > 1)
        EXPECT(DCMF_Broadcast(&bc_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, other, b, 16), DCMF_INVAL, fb);
    EXPECT(DCMF_Broadcast(&bc_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, mine, NULL, 16), DCMF_INVAL, fb);
    EXPECT(DCMF_Broadcast(&bc_bin, NULL, CB, DCMF_MATCH_CONSISTENCY, &g, mine, b, 16), DCMF_INVAL, fb);

    /* the one-rank geometry works with a usable protocol; requests in use */
    int t = ndone + 1;
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Allreduce(&ar_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, (char *)&s, (char *)&r, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_INVAL, fa);
    EXPECT(DCMF_Broadcast(&bc_bin, &creq, CB, DCMF_MATCH_CONSISTENCY, &g, mine, b, 16), DCMF_INVAL, fb);
    wait_for(t);
    if (r != 1)
        FAIL("one-rank allreduce gave %d", r);

    EXPECT(DCMF_Geometry_free(&g), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Geometry_free(&g), DCMF_INVAL, "DCMF_Geometry_free");
    EXPECT(DCMF_Geometry_free(&zero_g), DCMF_INVAL, "DCMF_Geometry_free");
    EXPECT(DCMF_Geometry_free(NULL), DCMF_INVAL, "DCMF_Geometry_free");
    EXPECT(DCMF_Barrier(&g, CB, DCMF_MATCH_CONSISTENCY), DCMF_INVAL, "DCMF_Barrier");
    EXPECT(DCMF_Geometry_analyze(&g, &bar_bin), 0, "DCMF_Geometry_analyze");
}

/* Everything still runs, on every rank, after all those failures. */
static void still_works(void)
{
    DCMF_Geometry_t w;
    unsigned *all = malloc(np * sizeof *all);
    for (size_t i = 0; i < np; i++)
        all[i] = (unsigned)(np - 1 - i);
    DCMF_CollectiveProtocol_t *bars[] = {&bar_gi, &bar_bin};
    EXPECT(DCMF_Geometry_initialize(&w, 9, all, (unsigned)np, bars, 2, NULL, 0, NULL, 1, 1), DCMF_SUCCESS, NULL);
    int s = (int)me, r = -1;
    char b[300];
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = me == np - 1 ? (char)i : 0;
    DCMF_Request_t r1, r2, r3;
    int t = ndone + 6;
    EXPECT(DCMF_GlobalBarrier(&gbar, &r1, CB), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_GlobalBcast(&gbc, &r2, CB, DCMF_MATCH_CONSISTENCY, (unsigned)(np - 1), b, sizeof b), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_GlobalAllreduce(&gar, &r3, CB, DCMF_MATCH_CONSISTENCY, -1, (char *)&s, (char *)&r, 1,
                                DCMF_SIGNED_INT, DCMF_MAX), DCMF_SUCCESS, NULL);
    EXPECT(DCMF_Barrier(&w, CB, DCMF_MATCH_CONSISTENCY), DCMF_SUCCESS, NULL);
    int s2 = 1, r4 = 0;
    EXPECT(DCMF_Allreduce(&ar_tree, &creq, CB, DCMF_MATCH_CONSISTENCY, &w, (char *)&s2, (char *)&r4, 1,
                          DCMF_SIGNED_INT, DCMF_SUM), DCMF_SUCCESS, NULL);
    DCMF_CollectiveRequest_t creq2;
    char c[5] = {0};
    if (me == 0)
        memcpy(c, "abcd", 5);
    EXPECT(DCMF_Broadcast(&bc_bin, &creq2, CB, DCMF_MATCH_CONSISTENCY, &w, 0, c, 5), DCMF_SUCCESS, NULL);
    wait_for(t);
    for (size_t i = 0; i < sizeof b; i++)
        if (b[i] != (char)i)
            FAIL("bcast after errors: byte %zu", i);
    if (r != (int)np - 1 || r4 != (int)np || strcmp(c, "abcd"))
        FAIL("collectives after errors gave %d %d '%s'", r, r4, c);
    EXPECT(DCMF_Geometry_free(&w), DCMF_SUCCESS, NULL);
    free(all);
}

int main(void)
{
    me = (size_t)atoi(getenv("EMUNIC_RANK") ? getenv("EMUNIC_RANK") : "0");
    before_init();
    DCMF_Messager_initialize();
    me = DCMF_Messager_rank();
    np = DCMF_Messager_size();
    EXPECT(DCMF_Collective_initialize(), 0, NULL);
    EXPECT(DCMF_Collective_initialize(), 0, NULL);
    registration();
    global_errors();
    geometry_errors();
    still_works();
    if (me == 0)
        printf("dcmf_coll_err on %zu ranks: ok\n", np);
    DCMF_Messager_finalize();
    /* and after finalize: uninitialised again */
    EXPECT(DCMF_GlobalBarrier(&gbar, &req, CB), DCMF_ERROR, "DCMF_GlobalBarrier");
    DCMF_Geometry_t zero_g;
    memset(&zero_g, 0, sizeof zero_g);
    EXPECT(DCMF_Geometry_free(&zero_g), DCMF_ERROR, "DCMF_Geometry_free");
    return 0;
}
