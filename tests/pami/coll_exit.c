/* A node leader that leaves right after a hybrid barrier must not take the
 * node's shared area with it while a member has yet to read the release
 * (IBM's collectives/barrier at 2x2 hung there: the leader's exit zeroed
 * the area under the slow member). Members arrive, then stay away from
 * advance for a while; the leader destroys its client and exits at once.
 * Every member's barrier must still complete. */
#include "coll_test.h"

/* the node's lowest task leads its shared area */
static int am_leader(void)
{
    pami_configuration_t q = {.name = PAMI_CLIENT_LOCAL_TASKS};
    CHECK_RC(PAMI_Client_query(ct_client, &q, 1), PAMI_SUCCESS);
    pami_configuration_t n = {.name = PAMI_CLIENT_NUM_LOCAL_TASKS};
    CHECK_RC(PAMI_Client_query(ct_client, &n, 1), PAMI_SUCCESS);
    size_t low = ct_task;
    for (size_t i = 0; i < n.value.intval; i++)
        if (q.value.intarray[i] < low)
            low = q.value.intarray[i];
    return low == ct_task;
}

static void hybrid_barrier(pami_geometry_t g, int leader)
{
    pami_xfer_t x;
    memset(&x, 0, sizeof x);
    CHECK(ct_find(g, PAMI_XFER_BARRIER, "I0:Hybrid:SHMEM:P2P", &x.algorithm, NULL, NULL), "no hybrid barrier");
    atomic_long done = 0;
    x.cb_done = ct_done;
    x.cookie = &done;
    CHECK_RC(PAMI_Collective(ct_ctx, &x), PAMI_SUCCESS);
    if (!leader) {
        /* arrive, then be slow to look for the release */
        double end = ct_now() + 0.2;
        while (ct_now() < end)
            PAMI_Context_advance(ct_ctx, 1);
        usleep(1500 * 1000);
    }
    ct_wait(&done, 1, 60, "hybrid barrier");
}

int main(int argc, char **argv)
{
    ct_init(argc, argv);
    int leader = am_leader();
    for (int i = 0; i < 3; i++)
        hybrid_barrier(ct_world, leader);
    CHECK_RC(PAMI_Context_destroyv(&ct_ctx, 1), PAMI_SUCCESS);
    CHECK_RC(PAMI_Client_destroy(&ct_client), PAMI_SUCCESS);
    return 0;
}
