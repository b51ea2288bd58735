/* Completion bookkeeping: a request counts the device operations (and
 * helper replies) it still waits for. Blocking calls use one on the stack,
 * explicit handles name a slot of the handle table, implicit non-blocking
 * operations share one request per target rank. */
#ifndef ARMCII_OP_H
#define ARMCII_OP_H
#include <errno.h>
#include "armcii.h"

struct armcii_req {
    int pending;
    int status;
    /* a request nested in another (a handoff buffer's operations inside
     * the target's implicit request): told once when this one completes */
    struct armcii_req *parent;
};

/* A device completion that decrements req and then frees tmp (a staging
 * buffer owned by the operation), if any. */
struct armcii_cmpl {
    struct adev_cmpl c;
    struct armcii_req *req;
    void *tmp;
    void (*release)(void *tmp);
    struct armcii_cmpl *next;
};

struct armcii_cmpl *armcii_cmpl_new(struct armcii_req *req);
/* Run a device posting call, progressing while the device is out of
 * resources (-ENOMEM); any other failure is fatal, naming fn. call is
 * evaluated again on every retry: everything it allocates or counts
 * (completions, acks) must be made before, never in its arguments, or a
 * retry leaves a completion nobody will finish (a fence then waits
 * forever: GA's testmult.x over Portals did). */
#define ARMCII_POST(fn, call)                                                  \
    do {                                                                       \
        int rc_;                                                               \
        while ((rc_ = (call)) == -ENOMEM)                                      \
            armcii_progress(0);                                                \
        if (rc_)                                                               \
            armcii_error(1, "%s: the device refused the operation (%d)", fn, rc_); \
    } while (0)

void armcii_req_wait(struct armcii_req *r);
/* As armcii_req_wait, for a caller whose own operation is fully issued
 * (a blocking call's last step): other application threads may enter the
 * runtime while it waits. Mid-operation waits use armcii_req_wait, which
 * keeps the runtime to this thread. */
void armcii_req_wait_issued(struct armcii_req *r);
/* One thing r waited for is done (status != 0: it failed). */
void armcii_req_done(struct armcii_req *r, int status);
/* The request a non-blocking call adds to: the handle's slot, or the
 * implicit request of proc when hdl is NULL. */
struct armcii_req *armcii_req_for(armci_hdl_t *hdl, int proc, const char *fn);
struct armcii_req *armcii_req_implicit(int proc);
int armcii_ops_init(int nproc);
void armcii_ops_finalize(void);
#endif
