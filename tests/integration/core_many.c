/* Many ranks at once (64 as 8 x 8 on a 2-core box): a ring of writes and
 * reads between neighbours, every rank hammering one NIC-side counter, and
 * the module hook, all checked exactly. */
#include "itest.h"

#define MSG 4096
#define ITERS 50

int main(void)
{
    itest_init();
    uint32_t me = emunic_rank(), n = emunic_size();
    uint32_t right = (me + 1) % n, left = (me + n - 1) % n;
    char *in = emunic_malloc(MSG), *out = emunic_malloc(MSG);
    int64_t *ctr = emunic_malloc(64);
    char *priv = malloc(MSG);
    CHECK(in && out && ctr && priv, "alloc");
    *ctr = 0;
    int64_t kp = emunic_expose(priv, MSG, EMU_PERM_READ | EMU_PERM_WRITE);
    CHECK(kp > 0, "expose");
    struct { uint64_t in, ctr, priv; uint32_t kp; } mine = {(uint64_t)(uintptr_t)in, (uint64_t)(uintptr_t)ctr, (uint64_t)(uintptr_t)priv, (uint32_t)kp}, *all;
    all = calloc(n, sizeof *all);
    itest_allgather(&mine, sizeof mine, all);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < MSG; i++)
            out[i] = (char)pattern(me, (uint64_t)it, (uint64_t)i);
        uint64_t c1 = cookie(), c2 = cookie();
        CHECK(emunic_write(right, EMU_KEY_HEAP, all[right].in, out, MSG, EMU_F_REMOTE_CQ, c1, 0) == 0, "post");
        CHECK(emunic_write(right, all[right].kp, all[right].priv, out, MSG, EMU_F_REMOTE_CQ, c2, 0) == 0, "post");
        int64_t one = 1, old;
        uint64_t c3 = cookie();
        CHECK(emunic_atomic(0, EMU_KEY_HEAP, all[0].ctr, EMU_AOP_SUM, EMU_INT64, &one, 8, NULL, &old, EMU_F_REMOTE_CQ, c3) == 0, "post");
        CHECK(wait_done(c1, EMU_DONE_REMOTE) == 0, "ring write");
        CHECK(wait_done(c2, EMU_DONE_REMOTE) == 0, "ring write private");
        CHECK(wait_done(c3, EMU_DONE_REMOTE) == 0, "fadd");
        CHECK(emunic_barrier() == 0, "barrier");
        for (int i = 0; i < MSG; i++) {
            CHECK((uint8_t)in[i] == pattern(left, (uint64_t)it, (uint64_t)i), "iter %d heap byte %d from %u", it, i, left);
            CHECK((uint8_t)priv[i] == pattern(left, (uint64_t)it, (uint64_t)i), "iter %d private byte %d", it, i);
        }
        CHECK(emunic_barrier() == 0, "barrier");
    }
    if (me == 0) {
        CHECK(*ctr == (int64_t)n * ITERS, "counter %lld want %lld", (long long)*ctr, (long long)n * ITERS);
        printf("many: %u ranks on %u nodes: %d ring iterations, counter %lld exact: ok\n", n, emunic_nnodes(), ITERS, (long long)*ctr);
    }
    free(all);
    free(priv);
    emunic_finalize();
    return 0;
}
