/* PtlAbort: the threads blocked in PtlEQWait/PtlCTWait when it is called
 * return PTL_ABORTED; once they have left, waits work again (the Portals
 * reference's PtlAbort, which its test_abort_* programs rely on). PtlAbort
 * with nobody waiting changes nothing. One rank. */
#include <pthread.h>
#include <unistd.h>

#include "ptest.h"

static ptl_handle_eq_t eq;
static ptl_handle_ct_t ct;
static _Atomic int waited_rc = -1, ct_rc = -1;

static void *waiter(void *arg)
{
    (void)arg;
    ptl_event_t ev;
    waited_rc = PtlEQWait(eq, &ev);
    return NULL;
}

static void *ct_waiter(void *arg)
{
    (void)arg;
    ptl_ct_event_t ce;
    ct_rc = PtlCTWait(ct, 1, &ce);
    return NULL;
}

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    OK(PtlEQAlloc(ni, 8, &eq));
    OK(PtlCTAlloc(ni, &ct));
    PtlAbort(); /* nobody waits: no effect */
    ptl_ct_event_t ce;
    ptl_event_t ev;
    unsigned which;
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(&eq, 1, 10, &ev, &which));
    pthread_t t, t2;
    REQUIRE(pthread_create(&t, NULL, waiter, NULL) == 0, "thread");
    REQUIRE(pthread_create(&t2, NULL, ct_waiter, NULL) == 0, "thread");
    usleep(100000); /* let them block: nothing will ever arrive */
    CHECK(waited_rc == -1 && ct_rc == -1, "a wait returned (%d, %d) before PtlAbort", waited_rc, ct_rc);
    PtlAbort();
    pthread_join(t, NULL);
    pthread_join(t2, NULL);
    CHECK(waited_rc == PTL_ABORTED, "blocked PtlEQWait returned %s", pt_rcname(waited_rc));
    CHECK(ct_rc == PTL_ABORTED, "blocked PtlCTWait returned %s", pt_rcname(ct_rc));
    /* both have left: waits are ordinary again */
    EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(&eq, 1, 10, &ev, &which));
    OK(PtlCTInc(ct, (ptl_ct_event_t){1, 0}));
    OK(PtlCTWait(ct, 1, &ce));
    CHECK(ce.success == 1 && ce.failure == 0, "counter after abort: %llu/%llu", (unsigned long long)ce.success,
          (unsigned long long)ce.failure);
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_abort");
}
