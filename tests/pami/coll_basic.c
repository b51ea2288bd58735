/* Every collective with every algorithm of the world geometry (both lists,
 * as far as the metadata allows), broadcasts and reductions from every
 * root, v-variants, scans, back-to-back instances. */
#include "coll_suite.h"

int main(int argc, char **argv)
{
    ct_init(argc, argv);
    size_t *tasks = malloc(ct_size * sizeof *tasks);
    for (size_t i = 0; i < ct_size; i++)
        tasks[i] = i;
    struct cs_geom G = {ct_world, ct_size, tasks, ct_task};
    /* the lists: list 0 never empty; shm-only only on one node */
    size_t num[2];
    CHECK_RC(PAMI_Geometry_algorithms_num(ct_world, PAMI_XFER_ALLREDUCE, num), PAMI_SUCCESS);
    CHECK(num[0] >= 3 && num[1] >= 1, "allreduce lists %zu/%zu", num[0], num[1]);
    if (ct_quick) {
        cs_barrier(&G);
        cs_bcast(&G);
        cs_allreduce(&G);
        cs_back_to_back(&G);
    } else {
        cs_all(&G);
    }
    free(tasks);
    ct_fini();
    if (ct_task == 0)
        printf("coll_basic: %zu tasks ok\n", ct_size);
    return 0;
}
