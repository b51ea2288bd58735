/* DCMF's multisend calls: a multicast sends one buffer to a list of ranks,
 * a many-to-many sends a slice of one buffer to each of a list of ranks,
 * each slice landing at its own offset of the receiver's buffer. Names,
 * types, signatures and values are DCMF's; the text is emunic's own. What
 * each protocol does here, and which ones are not provided: docs/dcmf.md.
 *
 * Register protocols in the same order on every rank: a multicast or
 * many-to-many protocol is known to its peers by its registration number
 * among protocols of its kind, as a send protocol is. */
#ifndef EMUNIC_DCMF_MULTISEND_H
#define EMUNIC_DCMF_MULTISEND_H

#include <dcmf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- multicast ---- */

/* A hint per destination: a point-to-point send, or a deposit-bit
 * broadcast along a torus line; and the tree network's operations. */
#define DCMF_LINE_BCAST_MASK                                                    \
    (DCMF_LINE_BCAST_XP | DCMF_LINE_BCAST_XM | DCMF_LINE_BCAST_YP | DCMF_LINE_BCAST_YM | \
     DCMF_LINE_BCAST_ZP | DCMF_LINE_BCAST_ZM)

typedef enum {
    DCMF_PT_TO_PT_SEND = 0,
    DCMF_LINE_BCAST_XP = 0x20,
    DCMF_LINE_BCAST_XM = 0x10,
    DCMF_LINE_BCAST_YP = 0x08,
    DCMF_LINE_BCAST_YM = 0x04,
    DCMF_LINE_BCAST_ZP = 0x02,
    DCMF_LINE_BCAST_ZM = 0x01,
    DCMF_COMBINE = 0x0100,
    DCMF_GI_BARRIER = 0x0200,
    DCMF_LOCKBOX_BARRIER = 0x0300,
    DCMF_TREE_BARRIER = 0x0400,
    DCMF_TREE_BCAST = 0x0500,
    DCMF_TREE_ALLREDUCE = 0x0600,
    DCMF_REDUCE_RECV_STORE = 0x0700,
    DCMF_REDUCE_RECV_NOSTORE = 0x0800,
    DCMF_BCAST_RECV_STORE = 0x0900,
    DCMF_BCAST_RECV_NOSTORE = 0x0a00,
    DCMF_LOCALCOPY = 0x0b00,
    DCMF_UNDEFINED_OPCODE = ~DCMF_LINE_BCAST_MASK
} DCMF_Opcode_t;

typedef enum {
    DCMF_DEFAULT_MSEND_PROTOCOL = 0,
    DCMF_MEMFIFO_DMA_MSEND_PROTOCOL, /* through the memory FIFOs */
    DCMF_GI_MSEND_PROTOCOL,          /* global interrupt network */
    DCMF_TREE_MSEND_PROTOCOL,        /* collective (tree) network, with reductions */
    DCMF_DPUT_DMA_MSEND_PROTOCOL,    /* direct put into a posted receive */
    DCMF_TREE_DPUT_MSEND_PROTOCOL
} DCMF_Multicast_Protocol;

/* A multicast arrives: info/count is the sender's msginfo, peer the
 * sender, sndlen its length, conn_id the sender's connection id, arg the
 * registration's clientdata. Set *rcvlen (at most sndlen) and *rcvbuf and
 * *cb_done, *pipewidth (the unit in which the data may be handed over),
 * and return request storage for the message, which cb_done releases. */
typedef DCMF_Request_t *(*DCMF_RecvMulticast)(const DCQuad *info, unsigned count, unsigned peer,
                                              unsigned sndlen, unsigned conn_id, void *arg,
                                              unsigned *rcvlen, char **rcvbuf,
                                              unsigned *pipewidth, DCMF_Callback_t *cb_done);

typedef struct {
    DCMF_Multicast_Protocol protocol;
    DCMF_RecvMulticast cb_recv;
    void *clientdata;
    void **connectionlist; /* nconnections slots, the library's */
    unsigned nconnections; /* connection ids are 0 .. nconnections-1 */
} DCMF_Multicast_Configuration_t;

/* One multicast: bytes of src to each of ranks[0 .. nranks), with a hint
 * per destination (opcodes) and count quads of msginfo. op and dt are for
 * the tree network's reductions. The structure may be reused at once; src,
 * ranks, opcodes and request stay in use until cb_done. */
typedef struct {
    DCMF_Protocol_t *registration;
    DCMF_Request_t *request;
    DCMF_Callback_t cb_done;
    DCMF_Consistency consistency;
    unsigned connection_id;
    unsigned bytes;
    const char *src;
    unsigned nranks;
    unsigned *ranks;
    DCMF_Opcode_t *opcodes;
    const DCQuad *msginfo;
    unsigned count;
    DCMF_Op op;
    DCMF_Dt dt;
    unsigned flags;
} DCMF_Multicast_t;

/* A receive posted on a connection, for the protocols that take no
 * receive callback. */
typedef struct {
    DCMF_Protocol_t *registration;
    DCMF_Request_t *request;
    DCMF_Callback_t cb_done;
    unsigned connection_id;
    unsigned bytes;
    char *dst;
    unsigned pwidth;
    DCMF_Opcode_t opcode;
    DCMF_Op op;
    DCMF_Dt dt;
} DCMF_MulticastRecv_t;

DCMF_Result DCMF_Multicast_register(DCMF_Protocol_t *registration,
                                    DCMF_Multicast_Configuration_t *configuration);
int DCMF_Multicast(DCMF_Multicast_t *mcastinfo);
int DCMF_Multicast_postrecv(DCMF_MulticastRecv_t *mrecv);

/* ---- many-to-many ---- */

/* The first slice of a many-to-many (connection conn_id) arrives: describe
 * the receive buffer for the whole operation. Slice i lands at
 * *rcvbuf + (*rcvdispls)[i], at most (*rcvlens)[i] bytes; *rcvcounters
 * has *nranks entries the library may use; *rankIndex is this rank's own
 * index in those arrays (0xffffffff: none). cb_done runs when a slice has
 * arrived at every index but this rank's own (a slice longer than its
 * index's length is cut). The arrays and the returned request stay in use
 * until then. */
typedef DCMF_Request_t *(*DCMF_RecvManytomany)(unsigned conn_id, void *arg, char **rcvbuf,
                                               unsigned **rcvlens, unsigned **rcvdispls,
                                               unsigned **rcvcounters, unsigned *nranks,
                                               unsigned *rankIndex, DCMF_Callback_t *cb_done);

typedef enum {
    DCMF_DEFAULT_M2M_PROTOCOL = 0,
    DCMF_MEMFIFO_DMA_M2M_PROTOCOL /* at most 32 connections */
} DCMF_Manytomany_Protocol;

typedef struct {
    DCMF_Manytomany_Protocol protocol;
    DCMF_RecvManytomany cb_recv;
    void *arg;
    unsigned nconnections;
} DCMF_Manytomany_Configuration_t;

DCMF_Result DCMF_Manytomany_register(DCMF_Protocol_t *registration,
                                     DCMF_Manytomany_Configuration_t *configuration);
/* Send sndlens[k] bytes at sndbuf + sdispls[k] to ranks[k], taking k in
 * the order permutation[0 .. nranks) gives. The receiver puts the slice
 * at its index rindices[k] when index_vector is nonzero, else at rindex
 * (the same for every destination). sndcounters has nranks entries the
 * library may use. cb_done: every slice has left sndbuf. */
int DCMF_Manytomany(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                    DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                    unsigned connection_id, unsigned index_vector, unsigned rindex,
                    unsigned *rindices, const char *sndbuf, unsigned *sndlens,
                    unsigned *sdispls, unsigned *sndcounters, unsigned *ranks,
                    unsigned *permutation, unsigned nranks);

#ifdef __cplusplus
}
#endif

#endif
