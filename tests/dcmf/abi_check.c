/* Compile-time check of dcmf.h against the real API's facts
 * (../shared/api-facts/dcmf-api.txt): enum values, struct shapes, and the
 * sizes clients allocate. If it compiles, it passes; running it prints one
 * line so ctest has something to see. */
#include <stddef.h>
#include <stdio.h>

#include <dcmf.h>
#include <dcmf_collectives.h>
#include <dcmf_globalcollectives.h>

#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)

SAME(DCMF_SUCCESS, 0);
SAME(DCMF_NERROR, -1);
SAME(DCMF_ERROR, 1);
SAME(DCMF_INVAL, 2);
SAME(DCMF_UNIMPL, 3);
SAME(DCMF_EAGAIN, 4);
SAME(DCMF_SHUTDOWN, 5);
SAME(DCMF_CHECK_ERRNO, 6);
SAME(DCMF_OTHER, 7);

SAME(DCMF_MATCH_CONSISTENCY, 0);
SAME(DCMF_RELAXED_CONSISTENCY, 1);
SAME(DCMF_SEQUENTIAL_CONSISTENCY, 2);
SAME(DCMF_WEAK_CONSISTENCY, 3);

SAME(DCMF_DEVICE_GI, 1);
SAME(DCMF_DEVICE_TREE, 2);
SAME(DCMF_DEVICE_TORUS, 4);
SAME(DCMF_DEVICE_DMA, 8);
SAME(DCMF_DEVICE_IPC, 16);

SAME(DCMF_DEFAULT_NETWORK, 0);
SAME(DCMF_TORUS_NETWORK, 1);
SAME(DCMF_SOCKET_NETWORK, 2);
SAME(DCMF_SHMEM_NETWORK, 3);
SAME(DCMF_NETWORK_COUNT, 4);

SAME(DCMF_UNDEFINED_OP, 0);
SAME(DCMF_NOOP, 1);
SAME(DCMF_SUM, 4);
SAME(DCMF_BXOR, 11);
SAME(DCMF_MINLOC, 13);
SAME(DCMF_OP_COUNT, 15);

SAME(DCMF_UNDEFINED_DT, 0);
SAME(DCMF_SIGNED_INT, 5);
SAME(DCMF_DOUBLE, 10);
SAME(DCMF_DOUBLE_COMPLEX, 14);
SAME(DCMF_LOC_2INT, 15);
SAME(DCMF_LOC_2DOUBLE, 20);
SAME(DCMF_DT_COUNT, 22);

SAME(DCMF_THREAD_SINGLE, 0);
SAME(DCMF_THREAD_MULTIPLE, 3);
SAME(DCMF_INTERRUPTS_OFF, 0);
SAME(DCMF_INTERRUPTS_ON, 1);

SAME(DCMF_DEFAULT_SEND_PROTOCOL, 0);
SAME(DCMF_RZV_SEND_PROTOCOL, 2);
SAME(DCMF_SEND_PROTOCOL_COUNT, 7);
SAME(DCMF_OVERSEND_CONTROL_PROTOCOL, 1);
SAME(DCMF_CONTROL_PROTOCOL_COUNT, 6);
SAME(DCMF_PUT_PROTOCOL_COUNT, 6);
SAME(DCMF_GET_PROTOCOL_COUNT, 6);
SAME(DCMF_CHANNEL_ALL, (unsigned)-1);
SAME(DCMF_HARDWARE_NUM_DIMS, 4);
SAME(DCMF_HARDWARE_MAX_PROCESSOR_NAME, 128);
SAME(DCMF_VERSION_MAJOR, 3);

SAME(sizeof(DCQuad), 16);
SAME(_Alignof(DCQuad), 16);
SAME(sizeof(DCMF_Protocol_t), 512); /* "currently 512 bytes" */
SAME(sizeof(DCMF_Callback_t), 2 * sizeof(void *));
SAME(offsetof(DCMF_Callback_t, clientdata), sizeof(void *));
SAME(offsetof(DCMF_Send_Configuration_t, cb_recv_short), 8);
/* OSPRI packs two quads into a control message */
_Static_assert(sizeof(DCMF_Control_t) >= 2 * sizeof(DCQuad), "control payload");
/* the hardware struct's arrays alias the named fields, T first */
SAME(offsetof(DCMF_Hardware_t, tSize), offsetof(DCMF_Hardware_t, Size));
SAME(offsetof(DCMF_Hardware_t, xCoord), offsetof(DCMF_Hardware_t, Coord) + 12);
SAME(offsetof(DCMF_Hardware_t, rankInPset), 16 + 3 * 16);

int main(void)
{
    printf("dcmf.h: constants and layouts match the API facts\n");
    return 0;
}
