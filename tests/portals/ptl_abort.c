/* PtlAbort: a thread blocked in PtlEQWait returns PTL_ABORTED, and so
 * does every wait after it (a job tearing itself down). One rank. */
#include <pthread.h>
#include <unistd.h>

#include "ptest.h"

static ptl_handle_eq_t eq;
static int waited_rc = -1;

static void *waiter(void *arg)
{
    (void)arg;
    ptl_event_t ev;
    waited_rc = PtlEQWait(eq, &ev);
    return NULL;
}

int main(void)
{
    pt_env();
    OK(PtlInit());
    ptl_handle_ni_t ni;
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    ptl_handle_ct_t ct;
    OK(PtlEQAlloc(ni, 8, &eq));
    OK(PtlCTAlloc(ni, &ct));
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, waiter, NULL) == 0, "thread");
    usleep(100000); /* let it block: nothing will ever arrive */
    CHECK(waited_rc == -1, "PtlEQWait returned %d before PtlAbort", waited_rc);
    PtlAbort();
    pthread_join(t, NULL);
    CHECK(waited_rc == PTL_ABORTED, "blocked PtlEQWait returned %s", pt_rcname(waited_rc));
    ptl_ct_event_t ce;
    EXPECT_RC(PTL_ABORTED, PtlCTWait(ct, 1, &ce));
    ptl_event_t ev;
    unsigned which;
    EXPECT_RC(PTL_ABORTED, PtlEQPoll(&eq, 1, 10, &ev, &which));
    OK(PtlNIFini(ni));
    PtlFini();
    return pt_done("ptl_abort");
}
