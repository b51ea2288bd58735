/* DCMF's whole-partition collectives (BG/P's global interrupt and tree
 * networks): barrier, broadcast and allreduce over every rank of the job.
 * Each takes caller-owned DCMF_Request_t storage and completes through its
 * callback during DCMF_Messager_advance. */
#ifndef EMUNIC_DCMF_GLOBALCOLLECTIVES_H
#define EMUNIC_DCMF_GLOBALCOLLECTIVES_H

#include <dcmf.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DCMF_DEFAULT_GLOBALBARRIER_PROTOCOL,
    DCMF_GI_GLOBALBARRIER_PROTOCOL,
    DCMF_NUM_GLOBALBARRIER_PROTOCOLS
} DCMF_GlobalBarrier_Protocol;

typedef struct {
    DCMF_GlobalBarrier_Protocol protocol;
} DCMF_GlobalBarrier_Configuration_t;

DCMF_Result DCMF_GlobalBarrier_register(DCMF_Protocol_t *registration,
                                        DCMF_GlobalBarrier_Configuration_t *configuration);
DCMF_Result DCMF_GlobalBarrier(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                               DCMF_Callback_t cb_done);

typedef enum {
    DCMF_DEFAULT_GLOBALBCAST_PROTOCOL,
    DCMF_TREE_GLOBALBCAST_PROTOCOL,
    DCMF_NUM_GLOBALBCAST_PROTOCOLS
} DCMF_GlobalBcast_Protocol;

typedef struct {
    DCMF_GlobalBcast_Protocol protocol;
} DCMF_GlobalBcast_Configuration_t;

DCMF_Result DCMF_GlobalBcast_register(DCMF_Protocol_t *registration,
                                      DCMF_GlobalBcast_Configuration_t *configuration);
/* bytes from root's buf into every other rank's buf. */
DCMF_Result DCMF_GlobalBcast(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                             DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                             unsigned root, char *buffer, unsigned bytes);

typedef enum {
    DCMF_DEFAULT_GLOBALALLREDUCE_PROTOCOL,
    DCMF_TREE_GLOBALALLREDUCE_PROTOCOL,
    DCMF_NUM_GLOBALALLREDUCE_PROTOCOLS
} DCMF_GlobalAllreduce_Protocol;

typedef struct {
    DCMF_GlobalAllreduce_Protocol protocol;
} DCMF_GlobalAllreduce_Configuration_t;

DCMF_Result DCMF_GlobalAllreduce_register(DCMF_Protocol_t *registration,
                                          DCMF_GlobalAllreduce_Configuration_t *configuration);
/* root -1: every rank gets the result (allreduce); otherwise only root. */
DCMF_Result DCMF_GlobalAllreduce(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                                 DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                                 int root, char *sbuffer, char *rbuffer, unsigned count,
                                 DCMF_Dt dt, DCMF_Op op);

#ifdef __cplusplus
}
#endif

#endif
