/* The whole-job collectives (DCMF_Global*). Every protocol value of each
 * configuration (default, GI, tree) maps onto the same algorithms here
 * (coll_algo.c): BG/P's global interrupt and tree networks do not exist,
 * so the torus-style algorithms stand in for them. The instance state is
 * malloc'd; the caller's DCMF_Request_t holds a mark and a pointer to it. */
#include <string.h>

#include "coll_impl.h"

void dcmfl_collectives_init(void)
{
    dcmfl_lock();
    coll_ensure("DCMF_Messager_initialize");
    dcmfl_unlock();
}

void dcmfl_collectives_fini(void)
{
    dcmfl_lock();
    coll_engine_fini();
    coll_geometry_fini();
    dcmfl_unlock();
}

static DCMF_Result global_register(const char *fn, DCMF_Protocol_t *registration, int have_cfg,
                                   unsigned algo, unsigned nalgos, enum dcmfl_proto_kind kind)
{
    DCMF_Result rc = coll_register_begin(fn, registration, have_cfg, algo, nalgos);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct dcmfl_proto *p = (struct dcmfl_proto *)registration;
    memset(p, 0, sizeof *p);
    p->magic = DCMFL_PROTO_MAGIC;
    p->kind = kind;
    p->algo = algo;
    dcmfl_unlock();
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_GlobalBarrier_register(DCMF_Protocol_t *registration,
                                        DCMF_GlobalBarrier_Configuration_t *cfg)
{
    return global_register("DCMF_GlobalBarrier_register", registration, cfg != NULL,
                           cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_GLOBALBARRIER_PROTOCOLS,
                           DCMFL_P_GBARRIER);
}

DCMF_Result DCMF_GlobalBcast_register(DCMF_Protocol_t *registration,
                                      DCMF_GlobalBcast_Configuration_t *cfg)
{
    return global_register("DCMF_GlobalBcast_register", registration, cfg != NULL,
                           cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_GLOBALBCAST_PROTOCOLS,
                           DCMFL_P_GBCAST);
}

DCMF_Result DCMF_GlobalAllreduce_register(DCMF_Protocol_t *registration,
                                          DCMF_GlobalAllreduce_Configuration_t *cfg)
{
    return global_register("DCMF_GlobalAllreduce_register", registration, cfg != NULL,
                           cfg ? (unsigned)cfg->protocol : 0, DCMF_NUM_GLOBALALLREDUCE_PROTOCOLS,
                           DCMFL_P_GALLREDUCE);
}

/* The checks every global call starts with; on success the caller holds
 * the lock and is inside coll_enter. */
static DCMF_Result global_begin(const char *fn, DCMF_Protocol_t *registration,
                                enum dcmfl_proto_kind kind, DCMF_Request_t *request)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    dcmfl_lock();
    rc = coll_ensure(fn);
    if (rc == DCMF_SUCCESS && !dcmfl_proto_of(fn, registration, kind))
        rc = DCMF_INVAL;
    if (rc == DCMF_SUCCESS)
        rc = coll_check_request(fn, request, sizeof *request);
    if (rc != DCMF_SUCCESS) {
        dcmfl_unlock();
        return rc;
    }
    coll_enter();
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_GlobalBarrier(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                               DCMF_Callback_t cb_done)
{
    const char *fn = "DCMF_GlobalBarrier";
    DCMF_Result rc = global_begin(fn, registration, DCMFL_P_GBARRIER, request);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct coll_inst *in = coll_inst_new(&coll_global, CK_BARRIER, cb_done,
                                         DCMF_MATCH_CONSISTENCY, request, sizeof *request);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    return coll_end(coll_launch(fn, in, coll_setup_barrier(in)));
}

DCMF_Result DCMF_GlobalBcast(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                             DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                             unsigned root, char *buffer, unsigned bytes)
{
    const char *fn = "DCMF_GlobalBcast";
    DCMF_Result rc = global_begin(fn, registration, DCMFL_P_GBCAST, request);
    if (rc != DCMF_SUCCESS)
        return rc;
    if ((rc = dcmfl_check_consistency(fn, consistency)) != DCMF_SUCCESS)
        return coll_end(rc);
    if (root >= dcmfl.size)
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "root %u out of range (size %u)", root, dcmfl.size));
    if (bytes && !buffer)
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "buffer is NULL with %u bytes", bytes));
    struct coll_inst *in = coll_inst_new(&coll_global, CK_BCAST, cb_done, consistency, request,
                                         sizeof *request);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    return coll_end(coll_launch(fn, in, coll_setup_bcast(in, root, buffer, bytes)));
}

DCMF_Result DCMF_GlobalAllreduce(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                                 DCMF_Callback_t cb_done, DCMF_Consistency consistency,
                                 int root, char *sbuffer, char *rbuffer, unsigned count,
                                 DCMF_Dt dt, DCMF_Op op)
{
    const char *fn = "DCMF_GlobalAllreduce";
    DCMF_Result rc = global_begin(fn, registration, DCMFL_P_GALLREDUCE, request);
    if (rc != DCMF_SUCCESS)
        return rc;
    if ((rc = dcmfl_check_consistency(fn, consistency)) != DCMF_SUCCESS ||
        (rc = coll_check_op(fn, op, dt)) != DCMF_SUCCESS)
        return coll_end(rc);
    if (root < -1 || (root >= 0 && (unsigned)root >= dcmfl.size))
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "root %d out of range (-1 or 0..%u)", root,
                                     dcmfl.size - 1));
    int gets = root < 0 || (unsigned)root == dcmfl.rank;
    if (count && (!sbuffer || (gets && !rbuffer)))
        return coll_end(dcmfl_fail(DCMF_INVAL, fn, "%s is NULL with count %u",
                                     sbuffer ? "rbuffer" : "sbuffer", count));
    struct coll_inst *in = coll_inst_new(&coll_global, CK_ALLREDUCE, cb_done, consistency, request,
                                         sizeof *request);
    if (!in)
        return coll_end(dcmfl_fail(DCMF_ERROR, fn, "out of memory"));
    rc = coll_setup_reduce(in, root < 0 ? 0 : (uint32_t)root, sbuffer, rbuffer, count, dt, op,
                           root < 0);
    return coll_end(coll_launch(fn, in, rc));
}
