/* DCMF's geometry collectives: a geometry is an ordered list of ranks with
 * barrier protocols; barrier, broadcast, allreduce and reduce run over it.
 * What the protocols are here and which ones analyze accepts:
 * docs/dcmf.md. */
#ifndef EMUNIC_DCMF_COLLECTIVES_H
#define EMUNIC_DCMF_COLLECTIVES_H

#include <dcmf.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef DCQuad DCMF_CollectiveProtocol_t[DCMF_COLLECTIVE_PROTOCOL_NQUADS];
typedef DCQuad DCMF_CollectiveRequest_t[DCMF_COLLECTIVE_REQUEST_NQUADS];
typedef DCQuad DCMF_Geometry_t[DCMF_GEOMETRY_NQUADS];

/* Maps a geometry id (comm) to the caller's geometry object. */
typedef DCMF_Geometry_t *(*DCMF_Geometry_callback)(int comm);

int DCMF_Collective_initialize(); /* 0 on success */

typedef enum {
    DCMF_GI_BARRIER_PROTOCOL,
    DCMF_BINOMIAL_BARRIER_PROTOCOL,
    DCMF_LOCKBOX_BARRIER_PROTOCOL,
    DCMF_LOCKBOX_BINOMIAL_BARRIER_PROTOCOL,
    DCMF_TORUS_RECTANGLE_BARRIER_PROTOCOL,
    DCMF_TORUS_BINOMIAL_BARRIER_PROTOCOL,
    DCMF_NUM_BARRIER_PROTOCOLS
} DCMF_Barrier_Protocol;

typedef struct {
    DCMF_Barrier_Protocol protocol;
    DCMF_Geometry_callback cb_geometry;
} DCMF_Barrier_Configuration_t;

DCMF_Result DCMF_Barrier_register(DCMF_CollectiveProtocol_t *registration,
                                  DCMF_Barrier_Configuration_t *configuration);

/* ranks[0..nranks) in geometry order; the rank itself must be listed.
 * globalflag: the geometry spans the whole job. */
DCMF_Result DCMF_Geometry_initialize(DCMF_Geometry_t *geometry, unsigned id, unsigned *ranks,
                                     unsigned nranks, DCMF_CollectiveProtocol_t **barriers,
                                     unsigned nbarriers,
                                     DCMF_CollectiveProtocol_t **local_barriers,
                                     unsigned nlocal_barriers,
                                     DCMF_CollectiveRequest_t *request, unsigned numcolors,
                                     unsigned globalflag);
/* 1 if the protocol can run on this geometry, else 0. */
int DCMF_Geometry_analyze(DCMF_Geometry_t *geometry, DCMF_CollectiveProtocol_t *protocol);
DCMF_Result DCMF_Geometry_free(DCMF_Geometry_t *geometry);

DCMF_Result DCMF_Barrier(DCMF_Geometry_t *geometry, DCMF_Callback_t cb_done,
                         DCMF_Consistency consistency);

typedef enum {
    DCMF_TREE_ALLREDUCE_PROTOCOL,
    DCMF_TREE_PIPELINED_ALLREDUCE_PROTOCOL,
    DCMF_TREE_DPUT_PIPELINED_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_BINOMIAL_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_SHORT_BINOMIAL_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_ASYNC_BINOMIAL_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_ASYNC_SHORT_BINOMIAL_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_RECTANGLE_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_RECTANGLE_RING_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_ASYNC_RECTANGLE_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_ASYNC_RECTANGLE_RING_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_ASYNC_SHORT_RECTANGLE_ALLREDUCE_PROTOCOL,
    DCMF_TORUS_RRING_DPUT_ALLREDUCE_PROTOCOL_SINGLETH,
    DCMF_NUM_ALLREDUCE_PROTOCOLS
} DCMF_Allreduce_Protocol;

typedef struct {
    DCMF_Allreduce_Protocol protocol;
    DCMF_Geometry_callback cb_geometry;
    unsigned reuse_storage;
} DCMF_Allreduce_Configuration_t;

DCMF_Result DCMF_Allreduce_register(DCMF_CollectiveProtocol_t *registration,
                                    DCMF_Allreduce_Configuration_t *configuration);
DCMF_Result DCMF_Allreduce(DCMF_CollectiveProtocol_t *registration,
                           DCMF_CollectiveRequest_t *request, DCMF_Callback_t cb_done,
                           DCMF_Consistency consistency, DCMF_Geometry_t *geometry,
                           char *sbuffer, char *rbuffer, unsigned count, DCMF_Dt dt,
                           DCMF_Op op);

typedef enum {
    DCMF_TREE_BROADCAST_PROTOCOL,
    DCMF_TORUS_BINOMIAL_BROADCAST_PROTOCOL,
    DCMF_TORUS_RECTANGLE_BROADCAST_PROTOCOL,
    DCMF_NUM_BROADCAST_PROTOCOLS
} DCMF_Broadcast_Protocol;

typedef struct {
    DCMF_Broadcast_Protocol protocol;
    DCMF_Geometry_callback cb_geometry;
} DCMF_Broadcast_Configuration_t;

DCMF_Result DCMF_Broadcast_register(DCMF_CollectiveProtocol_t *registration,
                                    DCMF_Broadcast_Configuration_t *configuration);
DCMF_Result DCMF_Broadcast(DCMF_CollectiveProtocol_t *registration,
                           DCMF_CollectiveRequest_t *request, DCMF_Callback_t cb_done,
                           DCMF_Consistency consistency, DCMF_Geometry_t *geometry,
                           unsigned root, char *src, unsigned bytes);

typedef enum {
    DCMF_TREE_REDUCE_PROTOCOL,
    DCMF_TORUS_BINOMIAL_REDUCE_PROTOCOL,
    DCMF_TORUS_RECTANGLE_REDUCE_PROTOCOL,
    DCMF_TORUS_RECTANGLE_RING_REDUCE_PROTOCOL,
    DCMF_NUM_REDUCE_PROTOCOLS
} DCMF_Reduce_Protocol;

typedef struct {
    DCMF_Reduce_Protocol protocol;
    DCMF_Geometry_callback cb_geometry;
    unsigned reuse_storage;
} DCMF_Reduce_Configuration_t;

DCMF_Result DCMF_Reduce_register(DCMF_CollectiveProtocol_t *registration,
                                 DCMF_Reduce_Configuration_t *configuration);
/* count elements of sbuffer from every member combined into root's
 * rbuffer (root is a rank of the geometry; other ranks' rbuffer is not
 * written and may be NULL). */
DCMF_Result DCMF_Reduce(DCMF_CollectiveProtocol_t *registration, DCMF_CollectiveRequest_t *request,
                        DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                        DCMF_Geometry_t *geometry, unsigned root, char *sbuffer, char *rbuffer,
                        unsigned count, DCMF_Dt dt, DCMF_Op op);

#ifdef __cplusplus
}
#endif

#endif
