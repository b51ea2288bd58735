/* The client side of the data-server protocol (proto.h) and the server
 * itself. The server of a rank is its node's helper (ARMCI_HELPER=1, the
 * node's first rank hosts it on a thread) or the rank itself, serving
 * from inside its own ARMCI calls (ARMCI_HELPER=0). */
#ifndef ARMCII_CHAN_H
#define ARMCII_CHAN_H
#include <stdint.h>
#include "kernels.h"
#include "op.h"

int armcii_server_of(int proc);
int armcii_server_ctx(void); /* the context servers listen on */
/* Offsets in a server's buffer region: client c's slot i; spare j after
 * every client's slots (j == ARMCI_SPARE_BUFS: the region's size). */
uint64_t armcii_slot_off(int c, int i);
uint64_t armcii_spare_off(int j);

/* A strided transfer through the server of proc. PUTS / ACC read the
 * local section, GETS write it. Completes on req. Waits for credits. */
void armcii_srv_section(int kind, int proc, int acc_type, const void *scale, void *local,
                        const struct armcii_strided *lsec, void *remote,
                        const struct armcii_strided *rsec, struct armcii_req *req);
/* Blocking requests. Mutexes are the user's 0.. and the runtime's own: */
#define ARMCII_MUTEX_ACC (-1) /* per target: serialises source-driven accumulates */
int64_t armcii_srv_rmw(int proc, int op, void *prem, int64_t value);
void armcii_srv_lock(int proc, int mutex);
void armcii_srv_unlock(int proc, int mutex);
/* Wait until the server has executed everything sent to it. */
void armcii_chan_flush(int server);

/* Counters for the report. */
extern unsigned long armcii_nreq, armcii_ngrants, armcii_credit_waits;

int armcii_chan_init(void);
void armcii_chan_finalize(void);
void armcii_chan_on_ack(int src, const void *buf, size_t len);

/* server.c */
int armcii_server_init(void *region, size_t len);
void armcii_server_on_request(int ctx, int src, void *msg, size_t len);
/* An acquire of what the helper thread's server wrote (see server.c); the
 * application's waits call it before they return. */
void armcii_server_sync(void);
void armcii_server_on_small(int ctx, int src, const void *buf, size_t len);
void armcii_server_idle(int ctx); /* send acks held back for coalescing */
void armcii_server_finalize(void);
extern unsigned long armcii_srv_requests, armcii_srv_acks;
#endif
