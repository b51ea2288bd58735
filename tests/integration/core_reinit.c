/* A rank that finalizes and initializes again (what PAMI_Client_destroy
 * then PAMI_Client_create does) is away, not gone: the others' barrier
 * waits for it, and its memory is a target again once it is back. A rank
 * that exits without coming to a barrier is gone: the others are told. */
#include <time.h>

#include "itest.h"

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    CHECK(n >= 2, "needs two ranks");
    if (me == 0) {
        CHECK(emunic_finalize() == 0, "finalize");
        /* long enough that the others wait in the barrier meanwhile;
         * correctness does not depend on it */
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL);
        int rc = emunic_init();
        CHECK(rc == 0, "init again: %s", strerror(-rc));
    }
    CHECK(emunic_barrier() == 0, "barrier while rank 0 was away");

    if (me == 1) {
        uint8_t out[64], back[64];
        for (size_t i = 0; i < sizeof out; i++)
            out[i] = (uint8_t)(0xA0 ^ i);
        uint64_t at = emunic_heap_addr(0) + 64, c = cookie();
        CHECK(emunic_write(0, EMU_KEY_HEAP, at, out, sizeof out, EMU_F_REMOTE_CQ, c, 0) == 0, "post");
        CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "write to the rank that came back");
        memset(back, 0, sizeof back);
        c = cookie();
        CHECK(emunic_read(0, EMU_KEY_HEAP, at, back, sizeof back, EMU_F_REMOTE_CQ, c) == 0, "post");
        CHECK(wait_done(c, EMU_DONE_REMOTE) == 0, "read from the rank that came back");
        for (size_t i = 0; i < sizeof out; i++)
            CHECK(back[i] == out[i], "byte %zu: %#x, wrote %#x", i, back[i], out[i]);
    }
    CHECK(emunic_barrier() == 0, "barrier");

    if (me == n - 1) {
        emunic_finalize();
        return 0;
    }
    int rc = emunic_barrier();
    CHECK(rc == -EPIPE, "barrier with a rank that exited: %d, not -EPIPE", rc);
    if (me == 0)
        printf("reinit: a finalized rank is waited for and served again; an exited one is reported: ok\n");
    emunic_finalize();
    return 0;
}
