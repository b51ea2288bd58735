/* Requests, explicit handles and implicit completion. */
#include "op.h"
#include "chan.h"
#include "serial.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HDL_MAGIC 0xa5c1d00du

struct slot {
    struct armcii_req req;
    unsigned gen;
    int used;
};

static struct slot **slots; /* slots never move: completions point into them */
static int nslots;
static struct armcii_req *implicit;
static int implicit_n;
static struct armcii_cmpl *free_cmpl;

static void cmpl_done(struct adev_cmpl *c, int status)
{
    struct armcii_cmpl *x = (struct armcii_cmpl *)c;
    armcii_req_done(x->req, status);
    if (x->tmp)
        x->release(x->tmp);
    x->next = free_cmpl;
    free_cmpl = x;
}

struct armcii_cmpl *armcii_cmpl_new(struct armcii_req *req)
{
    struct armcii_cmpl *x = free_cmpl;
    if (x)
        free_cmpl = x->next;
    else if (!(x = malloc(sizeof *x)))
        armcii_error(1, "armci: out of memory for a completion record");
    x->c.fn = cmpl_done;
    x->req = req;
    x->tmp = NULL;
    x->release = free;
    x->next = NULL;
    req->pending++;
    return x;
}

void armcii_req_done(struct armcii_req *r, int status)
{
    if (status && !r->status)
        r->status = status;
    if (--r->pending > 0 || !r->parent)
        return;
    struct armcii_req *p = r->parent;
    r->parent = NULL;
    armcii_req_done(p, r->status);
}

static void wait_req(struct armcii_req *r, int let_others_in)
{
    while (r->pending > 0) {
        armcii_progress(1);
        if (let_others_in)
            armcii_serial_yield();
    }
    armcii_server_sync();
}

void armcii_req_wait(struct armcii_req *r)
{
    wait_req(r, 0);
}

void armcii_req_wait_issued(struct armcii_req *r)
{
    wait_req(r, 1);
}

struct armcii_req *armcii_req_implicit(int proc)
{
    return &implicit[proc];
}

/* The slot a handle names while its operations are in flight, else NULL
 * (never initialised, waited for, or garbage: no error here). */
static struct slot *live_slot(const armci_hdl_t *hdl)
{
    if (hdl->magic != HDL_MAGIC || hdl->slot < 0 || hdl->slot >= nslots)
        return NULL;
    struct slot *s = slots[hdl->slot];
    return s->used && s->gen == hdl->gen ? s : NULL;
}

static struct slot *slot_of(armci_hdl_t *hdl, const char *fn)
{
    if (hdl->magic != HDL_MAGIC)
        armcii_error(1, "%s: handle %p was not initialised with ARMCI_INIT_HANDLE", fn, (void *)hdl);
    if (hdl->slot < 0)
        return NULL;
    struct slot *s = live_slot(hdl);
    if (!s)
        armcii_error(1, "%s: handle %p is stale (already waited for)", fn, (void *)hdl);
    return s;
}

struct armcii_req *armcii_req_for(armci_hdl_t *hdl, int proc, const char *fn)
{
    if (!hdl)
        return armcii_req_implicit(proc);
    struct slot *s = slot_of(hdl, fn);
    if (s)
        return &s->req; /* aggregate (or reused before a wait): add to it */
    int i = 0;
    while (i < nslots && slots[i]->used)
        i++;
    if (i == nslots) {
        int n = nslots ? 2 * nslots : 64;
        struct slot **g = realloc(slots, (size_t)n * sizeof *g);
        if (!g)
            armcii_error(1, "%s: out of memory for handles", fn);
        slots = g;
        for (int k = nslots; k < n; k++)
            if (!(slots[k] = calloc(1, sizeof **slots)))
                armcii_error(1, "%s: out of memory for handles", fn);
        nslots = n;
    }
    struct slot *s2 = slots[i];
    s2->used = 1;
    s2->gen++;
    s2->req = (struct armcii_req){0};
    hdl->slot = i;
    hdl->gen = s2->gen;
    return &s2->req;
}

/* Wait for what the handle names, then free its slot, unless another
 * thread re-initialised the handle or reused the slot while this one let
 * it in: its new operation must not be forgotten. Returns the status. */
static int finish(armci_hdl_t *hdl, struct slot *s)
{
    int idx = hdl->slot;
    unsigned gen = hdl->gen;
    armcii_req_wait_issued(&s->req);
    int st = s->req.status;
    if (s->used && s->gen == gen)
        s->used = 0;
    if (hdl->slot == idx && hdl->gen == gen)
        hdl->slot = -1;
    return st;
}

void ARMCI_INIT_HANDLE(armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    if (!hdl)
        armcii_error(1, "ARMCI_INIT_HANDLE: hdl is NULL");
    /* Re-initialising a handle whose operations are in flight would orphan
     * them: nobody waits, and a get's data lands after its buffer is freed.
     * Global Arrays' handle pool (nbutil.c) does it when two threads pick
     * the same handle; complete them first. */
    struct slot *s = live_slot(hdl);
    if (s)
        (void)finish(hdl, s);
    hdl->magic = HDL_MAGIC;
    hdl->aggregate = 0;
    hdl->slot = -1;
    hdl->gen = 0;
}

void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    if (!hdl || hdl->magic != HDL_MAGIC)
        armcii_error(1, "ARMCI_SET_AGGREGATE_HANDLE: handle not initialised");
    hdl->aggregate = 1;
}

void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    if (!hdl || hdl->magic != HDL_MAGIC)
        armcii_error(1, "ARMCI_UNSET_AGGREGATE_HANDLE: handle not initialised");
    hdl->aggregate = 0;
}

int ARMCI_Wait(armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Wait");
    if (!hdl)
        armcii_error(1, "ARMCI_Wait: hdl is NULL");
    struct slot *s = slot_of(hdl, "ARMCI_Wait");
    if (!s)
        return 0;
    return finish(hdl, s) ? 1 : 0;
}

int ARMCI_Test(armci_hdl_t *hdl)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Test");
    if (!hdl)
        armcii_error(1, "ARMCI_Test: hdl is NULL");
    /* ARMCI's convention: 0 when complete, 1 while in flight */
    struct slot *s = slot_of(hdl, "ARMCI_Test");
    if (!s)
        return 0;
    if (s->req.pending > 0)
        armcii_progress(0);
    if (s->req.pending > 0)
        return 1;
    s->used = 0;
    hdl->slot = -1;
    return 0;
}

int ARMCI_WaitProc(int proc)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_WaitProc");
    if (proc < 0 || proc >= implicit_n)
        armcii_error(1, "ARMCI_WaitProc: proc %d out of range 0..%d", proc, implicit_n - 1);
    armcii_req_wait(&implicit[proc]);
    return 0;
}

int ARMCI_WaitAll(void)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_WaitAll");
    for (int p = 0; p < implicit_n; p++)
        armcii_req_wait(&implicit[p]);
    return 0;
}

int armcii_ops_init(int nproc)
{
    implicit = calloc((size_t)nproc, sizeof *implicit);
    implicit_n = nproc;
    return implicit ? 0 : -ENOMEM;
}

void armcii_ops_finalize(void)
{
    free(implicit);
    implicit = NULL;
    implicit_n = 0;
    for (int i = 0; i < nslots; i++)
        free(slots[i]);
    free(slots);
    slots = NULL;
    nslots = 0;
    while (free_cmpl) {
        struct armcii_cmpl *n = free_cmpl->next;
        free(free_cmpl);
        free_cmpl = n;
    }
}
