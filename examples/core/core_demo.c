/* A first look at the emulated NIC: every rank puts a greeting into its
 * right neighbour's memory, bumps a counter that lives on rank 0 with a
 * NIC-side fetch-and-add, and rank 0 reports what arrived where. */
#include <stdio.h>
#include <string.h>

#include "emunic/emunic.h"

#define MSG 64

int main(void)
{
    if (emunic_init() != 0) {
        fprintf(stderr, "core_demo: start me with emunic-run\n");
        return 1;
    }
    uint32_t me = emunic_rank(), n = emunic_size(), right = (me + 1) % n;
    /* the first heap block starts at the heap base, which peers can see */
    char *inbox = emunic_malloc(MSG);
    int64_t *counter = emunic_malloc(sizeof *counter);
    *counter = 0;
    memset(inbox, 0, MSG);
    emunic_barrier();

    char greeting[MSG];
    snprintf(greeting, sizeof greeting, "hello from rank %u on node %u", me, emunic_node());
    struct emu_msg done;
    emunic_write(right, EMU_KEY_HEAP, emunic_heap_addr(right), greeting, sizeof greeting, EMU_F_REMOTE_CQ, 1, 0);
    if (emunic_wait_cookie(1, &done) != 0) {
        fprintf(stderr, "write failed: %s\n", emu_status_str(done.status));
        return 1;
    }
    int64_t one = 1, ticket;
    /* rank 0's counter is its second heap block, 64 bytes in */
    emunic_atomic(0, EMU_KEY_HEAP, emunic_heap_addr(0) + 64, EMU_AOP_SUM, EMU_INT64, &one, sizeof one, NULL, &ticket,
                  EMU_F_REMOTE_CQ, 2);
    emunic_wait_cookie(2, &done);
    emunic_barrier();
    printf("rank %u got \"%s\" and drew ticket %lld from rank 0's counter\n", me, inbox, (long long)ticket);
    emunic_barrier();
    if (me == 0)
        printf("%u ranks on %u nodes; counter on rank 0 ends at %lld\n", n, emunic_nnodes(), (long long)*counter);
    emunic_finalize();
    return 0;
}
