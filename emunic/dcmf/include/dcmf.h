/* DCMF, the Blue Gene/P Deep Computing Messaging Framework (version 0.3.0
 * of the interface), as emunic provides it: `#include <dcmf.h>`, link with
 * -ldcmf, run under `emunic-run --nic dcmf`. Names, types, signatures and
 * values are DCMF's; the text is emunic's own. What each call does here,
 * and what it does not, is in docs/dcmf.md. */
#ifndef EMUNIC_DCMF_H
#define EMUNIC_DCMF_H

#include <stddef.h>
#include <stdint.h>

#include <dcmf_impl.h>

#define DCMF_VERSION_RELEASE 0
#define DCMF_VERSION_MAJOR 3
#define DCMF_VERSION_MINOR 0

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DCMF_MATCH_CONSISTENCY,      /* in-order delivery; completions may pass */
    DCMF_RELAXED_CONSISTENCY,    /* no order at all (dynamic routing) */
    DCMF_SEQUENTIAL_CONSISTENCY, /* in-order delivery and completion */
    DCMF_WEAK_CONSISTENCY        /* deprecated; treated as relaxed */
} DCMF_Consistency;

typedef enum {
    DCMF_DEVICE_GI = 1,
    DCMF_DEVICE_TREE = 2,
    DCMF_DEVICE_TORUS = 4,
    DCMF_DEVICE_DMA = 8,
    DCMF_DEVICE_IPC = 16,
} DCMF_Device;

typedef enum {
    DCMF_SUCCESS = 0,
    DCMF_NERROR = -1,
    DCMF_ERROR = 1,
    DCMF_INVAL,
    DCMF_UNIMPL,
    DCMF_EAGAIN,
    DCMF_SHUTDOWN,
    DCMF_CHECK_ERRNO,
    DCMF_OTHER,
} DCMF_Result;

typedef struct DCMF_Error_t {
    DCMF_Result result;
} DCMF_Error_t;

typedef enum {
    DCMF_UNDEFINED_OP = 0,
    DCMF_NOOP,
    DCMF_MAX,
    DCMF_MIN,
    DCMF_SUM,
    DCMF_PROD,
    DCMF_LAND,
    DCMF_LOR,
    DCMF_LXOR,
    DCMF_BAND,
    DCMF_BOR,
    DCMF_BXOR,
    DCMF_MAXLOC,
    DCMF_MINLOC,
    DCMF_USERDEFINED_OP,
    DCMF_OP_COUNT
} DCMF_Op;

typedef enum {
    DCMF_UNDEFINED_DT = 0,
    DCMF_SIGNED_CHAR,
    DCMF_UNSIGNED_CHAR,
    DCMF_SIGNED_SHORT,
    DCMF_UNSIGNED_SHORT,
    DCMF_SIGNED_INT,
    DCMF_UNSIGNED_INT,
    DCMF_SIGNED_LONG_LONG,
    DCMF_UNSIGNED_LONG_LONG,
    DCMF_FLOAT,
    DCMF_DOUBLE,
    DCMF_LONG_DOUBLE,
    DCMF_LOGICAL,
    DCMF_SINGLE_COMPLEX,
    DCMF_DOUBLE_COMPLEX,
    DCMF_LOC_2INT,
    DCMF_LOC_SHORT_INT,
    DCMF_LOC_FLOAT_INT,
    DCMF_LOC_DOUBLE_INT,
    DCMF_LOC_2FLOAT,
    DCMF_LOC_2DOUBLE,
    DCMF_USERDEFINED_DT,
    DCMF_DT_COUNT
} DCMF_Dt;

typedef enum {
    DCMF_DEFAULT_NETWORK = 0,
    DCMF_TORUS_NETWORK,
    DCMF_SOCKET_NETWORK,
    DCMF_SHMEM_NETWORK,
    DCMF_NETWORK_COUNT
} DCMF_Network;

#define DCMF_MAX_DIMS 4

typedef struct DCMF_NetworkCoord_t {
    DCMF_Network network;
    union {
        struct {
            size_t x, y, z, t;
        } torus;
        struct {
            size_t coords[DCMF_MAX_DIMS];
        } n_torus;
        struct {
            int recv_fd, send_fd;
        } socket;
        struct {
            size_t rank, peer;
        } shmem;
    };
} DCMF_NetworkCoord_t;

/* Completion callback: error is NULL on success. */
typedef void (*DCMF_Callback)(void *clientdata, DCMF_Error_t *error);

typedef struct DCMF_Callback_t {
    DCMF_Callback function; /* NULL: no notification */
    void *clientdata;
} DCMF_Callback_t;

#define DCMF_HARDWARE_MAX_PROCESSOR_NAME 128
#define DCMF_HARDWARE_NUM_DIMS 4

typedef struct {
    uint32_t lrank, lsize, prank, psize;
    union {
        uint32_t Size[DCMF_HARDWARE_NUM_DIMS];
        struct {
            uint32_t tSize, zSize, ySize, xSize;
        };
    };
    union {
        uint32_t Coord[DCMF_HARDWARE_NUM_DIMS];
        struct {
            uint32_t tCoord, zCoord, yCoord, xCoord;
        };
    };
    union {
        uint32_t Torus[DCMF_HARDWARE_NUM_DIMS];
        struct {
            uint32_t tTorus, zTorus, yTorus, xTorus;
        };
    };
    uint32_t rankInPset, sizeOfPset, idOfPset;
    uint32_t clockMHz;
    uint32_t memSize; /* MiB */
    char name[DCMF_HARDWARE_MAX_PROCESSOR_NAME];
} DCMF_Hardware_t;

/* Opaque, caller-owned storage; must outlive its use. */
typedef DCQuad DCMF_Protocol_t[DCMF_PROTOCOL_NQUADS];
typedef DCQuad DCMF_Request_t[DCMF_REQUEST_NQUADS];
typedef DCQuad DCMF_Error_request_t[DCMF_ERROR_NQUADS];
typedef DCQuad DCMF_Control_t[DCMF_CONTROL_NQUADS];
typedef DCQuad DCMF_Memregion_t[DCMF_MEMREGION_NQUADS];

/* ---- messager ----
 * Calls without arguments are declared with an empty list, as DCMF's own
 * header declares them: clients written against it (OSPRI passes an
 * argument to DCMF_Messager_advance) must still compile. */

unsigned DCMF_Messager_initialize(); /* 1 the first time, then 0 */
unsigned DCMF_Messager_finalize();

/* Critical section: a real recursive lock once threads or interrupts are
 * configured (the flag is then 1), free otherwise. x = 0: global lock. */
extern int32_t DCMF_CriticalSection_flag;
void DCMF_CriticalSection_enter_func(uint32_t x);
void DCMF_CriticalSection_exit_func(uint32_t x);
void DCMF_CriticalSection_cycle_func(uint32_t x);

#define DCMF_CriticalSection_enter(a)                                       \
    do {                                                                    \
        if (DCMF_CriticalSection_flag)                                      \
            DCMF_CriticalSection_enter_func(a);                             \
    } while (0)
#define DCMF_CriticalSection_exit(a)                                        \
    do {                                                                    \
        if (DCMF_CriticalSection_flag)                                      \
            DCMF_CriticalSection_exit_func(a);                              \
    } while (0)
#define DCMF_CriticalSection_cycle(a)                                       \
    do {                                                                    \
        if (DCMF_CriticalSection_flag)                                      \
            DCMF_CriticalSection_cycle_func(a);                             \
    } while (0)

#define DCMF_CHANNEL_ALL ((unsigned)-1)
#define DCMF_PROTOCOL_HAS_NO_CHANNELS ((unsigned)-2)
#define DCMF_PROTOCOL_NULL NULL
DCMF_Result DCMF_Channel_info(DCMF_Protocol_t *p, unsigned *base, unsigned *count,
                              unsigned *current);
DCMF_Result DCMF_Channel_acquire(unsigned channel);
DCMF_Result DCMF_Channel_release();
DCMF_Result DCMF_Channel_handoff(unsigned channel, DCMF_Callback_t cb);
unsigned DCMF_Channel_current();
#define DCMF_MESSAGER_USE_CHANNEL
int DCMF_Messager_use_channel(unsigned channel);

typedef struct {
    unsigned channel;
} DCMF_Messager_advance_options;

/* Runs every pending callback; returns how many events it processed. */
unsigned DCMF_Messager_advance();
unsigned DCMF_Messager_advance_expert(DCMF_Messager_advance_options opt);

size_t DCMF_Messager_rank();
size_t DCMF_Messager_size();
DCMF_Result DCMF_Hardware(DCMF_Hardware_t *hw);
DCMF_Result DCMF_Messager_network2rank(const DCMF_NetworkCoord_t *address, size_t *rank,
                                       DCMF_Network *network);
DCMF_Result DCMF_Messager_rank2network(size_t rank, DCMF_Network network,
                                       DCMF_NetworkCoord_t *address);

typedef enum {
    DCMF_THREAD_SINGLE = 0,
    DCMF_THREAD_FUNNELED = 1,
    DCMF_THREAD_SERIALIZED = 2,
    DCMF_THREAD_MULTIPLE = 3
} DCMF_Thread;

typedef enum {
    DCMF_INTERRUPTS_OFF = 0,
    DCMF_INTERRUPTS_ON = 1
} DCMF_Interrupts;

typedef struct {
    DCMF_Thread thread_level;
    DCMF_Interrupts interrupts;
} DCMF_Configure_t;

/* Either pointer may be NULL, or both the same. */
DCMF_Result DCMF_Messager_configure(DCMF_Configure_t *config, DCMF_Configure_t *out);

double DCMF_Timer();               /* seconds */
double DCMF_Tick();                /* seconds per timebase cycle */
unsigned long long DCMF_Timebase(); /* cycles of the emulated 850 MHz core */

typedef void (*DCMF_GlobalError)(DCMF_Error_t *error, size_t peer);
DCMF_Result DCMF_Error_register(DCMF_Error_request_t *req, DCMF_GlobalError func);

/* ---- send ---- */

/* A message that fits one packet (always a 0-byte one); src is valid only
 * during the call. count <= 7 quads of msginfo. */
typedef void (*DCMF_RecvSendShort)(void *clientdata, const DCQuad *msginfo, unsigned count,
                                   size_t peer, const char *src, size_t bytes);
/* A longer message: return request storage, the buffer and its length;
 * cb_done runs when rcvlen bytes (at most sndlen) have arrived. */
typedef DCMF_Request_t *(*DCMF_RecvSend)(void *clientdata, const DCQuad *msginfo,
                                         unsigned count, size_t peer, size_t sndlen,
                                         size_t *rcvlen, char **rcvbuf,
                                         DCMF_Callback_t *cb_done);

typedef enum {
    DCMF_DEFAULT_SEND_PROTOCOL,
    DCMF_EAGER_SEND_PROTOCOL,
    DCMF_RZV_SEND_PROTOCOL,
    DCMF_USER0_SEND_PROTOCOL,
    DCMF_USER1_SEND_PROTOCOL,
    DCMF_USER2_SEND_PROTOCOL,
    DCMF_USER3_SEND_PROTOCOL,
    DCMF_SEND_PROTOCOL_COUNT
} DCMF_Send_Protocol;

typedef struct {
    DCMF_Send_Protocol protocol;
    DCMF_Network network;
    DCMF_RecvSendShort cb_recv_short;
    void *cb_recv_short_clientdata;
    DCMF_RecvSend cb_recv;
    void *cb_recv_clientdata;
} DCMF_Send_Configuration_t;

/* Register protocols in the same order on every rank: a protocol is known
 * to its peers by its registration number, as in DCMF. */
DCMF_Result DCMF_Send_register(DCMF_Protocol_t *registration,
                               DCMF_Send_Configuration_t *configuration);
DCMF_Result DCMF_Send(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                      DCMF_Callback_t cb_done, DCMF_Consistency consistency, size_t rank,
                      size_t bytes, char *src, DCQuad *msginfo, unsigned count);

/* ---- control ---- */

typedef void (*DCMF_RecvControl)(void *clientdata, const DCMF_Control_t *info, size_t peer);

typedef enum {
    DCMF_DEFAULT_CONTROL_PROTOCOL,
    DCMF_OVERSEND_CONTROL_PROTOCOL,
    DCMF_USER0_CONTROL_PROTOCOL,
    DCMF_USER1_CONTROL_PROTOCOL,
    DCMF_USER2_CONTROL_PROTOCOL,
    DCMF_USER3_CONTROL_PROTOCOL,
    DCMF_CONTROL_PROTOCOL_COUNT
} DCMF_Control_Protocol;

typedef struct {
    DCMF_Control_Protocol protocol;
    DCMF_Network network;
    DCMF_RecvControl cb_recv;
    void *cb_recv_clientdata;
} DCMF_Control_Configuration_t;

DCMF_Result DCMF_Control_register(DCMF_Protocol_t *registration,
                                  DCMF_Control_Configuration_t *configuration);
/* Out of band: not ordered with Send/Put/Get. Returns once sent. */
DCMF_Result DCMF_Control(DCMF_Protocol_t *registration, DCMF_Consistency consistency,
                         size_t rank, DCMF_Control_t *info);

/* ---- memory regions and one-sided ---- */

/* base NULL with bytes_in (size_t)-1 registers the whole address space. */
DCMF_Result DCMF_Memregion_create(DCMF_Memregion_t *memregion, size_t *bytes_out,
                                  size_t bytes_in, void *base, uint64_t options);
DCMF_Result DCMF_Memregion_destroy(DCMF_Memregion_t *memregion);
DCMF_Result DCMF_Memregion_query(DCMF_Memregion_t *memregion, size_t *bytes, void **base);

typedef enum {
    DCMF_DEFAULT_PUT_PROTOCOL,
    DCMF_OVERSEND_PUT_PROTOCOL,
    DCMF_USER0_PUT_PROTOCOL,
    DCMF_USER1_PUT_PROTOCOL,
    DCMF_USER2_PUT_PROTOCOL,
    DCMF_USER3_PUT_PROTOCOL,
    DCMF_PUT_PROTOCOL_COUNT
} DCMF_Put_Protocol;

typedef struct {
    DCMF_Put_Protocol protocol;
    DCMF_Network network;
} DCMF_Put_Configuration_t;

DCMF_Result DCMF_Put_register(DCMF_Protocol_t *registration,
                              DCMF_Put_Configuration_t *configuration);
/* cb_done: the source may be reused; cb_ack: the data is at the target. */
DCMF_Result DCMF_Put(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                     DCMF_Callback_t cb_done, DCMF_Consistency consistency, size_t rank,
                     size_t bytes, DCMF_Memregion_t *src_memregion,
                     DCMF_Memregion_t *dst_memregion, size_t src_offset, size_t dst_offset,
                     DCMF_Callback_t cb_ack);

typedef enum {
    DCMF_DEFAULT_GET_PROTOCOL,
    DCMF_OVERSEND_GET_PROTOCOL,
    DCMF_USER0_GET_PROTOCOL,
    DCMF_USER1_GET_PROTOCOL,
    DCMF_USER2_GET_PROTOCOL,
    DCMF_USER3_GET_PROTOCOL,
    DCMF_GET_PROTOCOL_COUNT
} DCMF_Get_Protocol;

typedef struct {
    DCMF_Get_Protocol protocol;
    DCMF_Network network;
} DCMF_Get_Configuration_t;

DCMF_Result DCMF_Get_register(DCMF_Protocol_t *registration,
                              DCMF_Get_Configuration_t *configuration);
/* src_memregion is the remote one, dst_memregion the local one. */
DCMF_Result DCMF_Get(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                     DCMF_Callback_t cb_done, DCMF_Consistency consistency, size_t rank,
                     size_t bytes, DCMF_Memregion_t *src_memregion,
                     DCMF_Memregion_t *dst_memregion, size_t src_offset, size_t dst_offset);

/* Post a completed Send, Put or Get request again, unchanged. */
DCMF_Result DCMF_Restart(DCMF_Request_t *request);

DCMF_Result DCMF_Messager_suspend();
DCMF_Result DCMF_Messager_resume();

#ifdef __cplusplus
}
#endif

#endif
