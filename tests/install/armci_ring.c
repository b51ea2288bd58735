/* The smallest ARMCI program a user of an installed emunic would write:
 * every rank puts its rank number into its right neighbour's slot of a
 * collectively allocated array, then checks what its left neighbour put.
 *
 *   emunic-run -N 2 -n 2 --nic portals -- ./armci_ring
 */
#include <stdio.h>
#include <stdlib.h>

#include <armci.h>
#include <message.h>

int main(void)
{
    if (ARMCI_Init() != 0) {
        fprintf(stderr, "ARMCI_Init failed\n");
        return 1;
    }
    int me = armci_msg_me(), n = armci_msg_nproc();
    void **base = calloc((size_t)n, sizeof *base);
    if (!base || ARMCI_Malloc(base, sizeof(long)) != 0) {
        fprintf(stderr, "rank %d: ARMCI_Malloc failed\n", me);
        return 1;
    }
    long *mine = base[me];
    *mine = -1;
    ARMCI_Barrier();

    int right = (me + 1) % n, left = (me + n - 1) % n;
    long value = 1000 + me;
    if (ARMCI_Put(&value, base[right], (int)sizeof value, right) != 0) {
        fprintf(stderr, "rank %d: ARMCI_Put failed\n", me);
        return 1;
    }
    ARMCI_Fence(right);
    ARMCI_Barrier();

    int bad = *mine != 1000 + left;
    if (bad)
        fprintf(stderr, "rank %d: slot holds %ld, want %d\n", me, *mine, 1000 + left);
    else
        printf("rank %d: got %ld from rank %d\n", me, *mine, left);
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(base);
    ARMCI_Finalize();
    return bad;
}
