/* Compile-time check of dcmf.h against the real API's facts
 * (../shared/api-facts/dcmf-api.txt): enum values, struct shapes, and the
 * sizes clients allocate. If it compiles, it passes; running it prints one
 * line so ctest has something to see. */
#include <stddef.h>
#include <stdio.h>

#include <dcmf.h>
#include <dcmf_collectives.h>
#include <dcmf_globalcollectives.h>
#include <dcmf_multisend.h>

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

/* dcmf_collectives.h: the async rectangle allreduces after the rectangle
 * ring one (DCMF's documented order), then the single-threaded ring; the
 * reduce protocols; the tree ones first */
SAME(DCMF_TREE_ALLREDUCE_PROTOCOL, 0);
SAME(DCMF_TORUS_RECTANGLE_RING_ALLREDUCE_PROTOCOL, 8);
SAME(DCMF_TORUS_ASYNC_RECTANGLE_ALLREDUCE_PROTOCOL, 9);
SAME(DCMF_TORUS_ASYNC_RECTANGLE_RING_ALLREDUCE_PROTOCOL, 10);
SAME(DCMF_TORUS_ASYNC_SHORT_RECTANGLE_ALLREDUCE_PROTOCOL, 11);
SAME(DCMF_TORUS_RRING_DPUT_ALLREDUCE_PROTOCOL_SINGLETH, 12);
SAME(DCMF_NUM_ALLREDUCE_PROTOCOLS, 13);
SAME(DCMF_TREE_REDUCE_PROTOCOL, 0);
SAME(DCMF_TORUS_BINOMIAL_REDUCE_PROTOCOL, 1);
SAME(DCMF_TORUS_RECTANGLE_RING_REDUCE_PROTOCOL, 3);
SAME(DCMF_NUM_REDUCE_PROTOCOLS, 4);
SAME(offsetof(DCMF_Reduce_Configuration_t, cb_geometry), sizeof(void *));

/* dcmf_multisend.h */
SAME(DCMF_PT_TO_PT_SEND, 0);
SAME(DCMF_LINE_BCAST_XP, 0x20);
SAME(DCMF_LINE_BCAST_ZM, 0x01);
SAME(DCMF_LINE_BCAST_MASK, 0x3f);
SAME(DCMF_COMBINE, 0x100);
SAME(DCMF_LOCALCOPY, 0xb00);
SAME(DCMF_UNDEFINED_OPCODE, ~0x3f);
SAME(DCMF_DEFAULT_MSEND_PROTOCOL, 0);
SAME(DCMF_MEMFIFO_DMA_MSEND_PROTOCOL, 1);
SAME(DCMF_DPUT_DMA_MSEND_PROTOCOL, 4);
SAME(DCMF_DEFAULT_M2M_PROTOCOL, 0);
SAME(DCMF_MEMFIFO_DMA_M2M_PROTOCOL, 1);
/* the fields clients set by name, in DCMF's order */
SAME(offsetof(DCMF_Multicast_Configuration_t, cb_recv), sizeof(void *));
SAME(offsetof(DCMF_Multicast_t, request), sizeof(void *));
SAME(offsetof(DCMF_Multicast_t, cb_done), 2 * sizeof(void *));
_Static_assert(offsetof(DCMF_Multicast_t, src) < offsetof(DCMF_Multicast_t, ranks) &&
                   offsetof(DCMF_Multicast_t, opcodes) < offsetof(DCMF_Multicast_t, msginfo) &&
                   offsetof(DCMF_Multicast_t, op) < offsetof(DCMF_Multicast_t, flags),
               "multicast field order");
SAME(offsetof(DCMF_Manytomany_Configuration_t, cb_recv), sizeof(void *));

int main(void)
{
    printf("dcmf.h: constants and layouts match the API facts\n");
    return 0;
}
