/* Memory regions and the one-sided operations. A region is an exposed
 * emunic region; its object carries the owner's rank, key, base and length
 * so that a copy sent to a peer names the memory completely. Ordered
 * (match, sequential) transfers are the core's own writes and reads;
 * relaxed ones longer than a packet go to the NIC's dynamic lane. */
#include <errno.h>
#include <string.h>

#include "../proto.h"
#include "dcmf_lib.h"

DCMF_Result DCMF_Memregion_create(DCMF_Memregion_t *memregion, size_t *bytes_out,
                                  size_t bytes_in, void *base, uint64_t options)
{
    const char *fn = "DCMF_Memregion_create";
    (void)options;
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!memregion)
        return dcmfl_fail(DCMF_INVAL, fn, "memregion is NULL");
    uint64_t b = (uint64_t)(uintptr_t)base, len = bytes_in;
    if (!base && bytes_in != (size_t)-1 && bytes_in != 0)
        return dcmfl_fail(DCMF_INVAL, fn, "base is NULL (only the whole address space, bytes_in = (size_t)-1, may start at NULL)");
    if (len && b + len < b) /* the whole address space is [base, UINT64_MAX] */
        len = UINT64_MAX - b;
    int64_t key = emunic_expose(base, len, EMU_PERM_READ | EMU_PERM_WRITE);
    if (key == -ENOSPC)
        return dcmfl_fail(DCMF_EAGAIN, fn, "no region slot left (destroy some regions)");
    if (key == -ENOMEM)
        return dcmfl_fail(DCMF_ERROR, fn, "registering %p+%zu failed (the fault plan's regfail)", base, bytes_in);
    if (key < 0)
        return dcmfl_fail(DCMF_ERROR, fn, "the NIC cannot expose %p+%zu", base, bytes_in);
    struct dcmfl_mr *mr = (struct dcmfl_mr *)memregion;
    memset(memregion, 0, sizeof(DCMF_Memregion_t));
    mr->magic = DCMFL_MR_MAGIC;
    mr->rank = dcmfl.rank;
    mr->key = (uint32_t)key;
    mr->base = b;
    mr->bytes = len;
    if (bytes_out)
        *bytes_out = (size_t)len;
    return DCMF_SUCCESS;
}

static struct dcmfl_mr *mr_of(const char *fn, DCMF_Memregion_t *m, const char *which)
{
    struct dcmfl_mr *mr = (struct dcmfl_mr *)m;
    if (!mr) {
        dcmfl_fail(DCMF_INVAL, fn, "%s memregion is NULL", which);
        return NULL;
    }
    if (mr->magic != DCMFL_MR_MAGIC) {
        dcmfl_fail(DCMF_INVAL, fn, "%s memregion was never created (or was destroyed)", which);
        return NULL;
    }
    return mr;
}

DCMF_Result DCMF_Memregion_destroy(DCMF_Memregion_t *memregion)
{
    const char *fn = "DCMF_Memregion_destroy";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct dcmfl_mr *mr = mr_of(fn, memregion, "the");
    if (!mr)
        return DCMF_INVAL;
    if (mr->rank != dcmfl.rank)
        return dcmfl_fail(DCMF_INVAL, fn, "the region belongs to rank %u; only its owner may destroy it", mr->rank);
    if (emunic_unexpose(mr->key) != 0)
        return dcmfl_fail(DCMF_INVAL, fn, "the region is not live");
    memset(memregion, 0, sizeof(DCMF_Memregion_t));
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Memregion_query(DCMF_Memregion_t *memregion, size_t *bytes, void **base)
{
    struct dcmfl_mr *mr = mr_of("DCMF_Memregion_query", memregion, "the");
    if (!mr)
        return DCMF_INVAL;
    if (bytes)
        *bytes = (size_t)mr->bytes;
    if (base)
        *base = (void *)(uintptr_t)mr->base;
    return DCMF_SUCCESS;
}

static DCMF_Result register_plain(const char *fn, DCMF_Protocol_t *registration,
                                  enum dcmfl_proto_kind kind, unsigned algo, DCMF_Network net,
                                  unsigned *counter)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    if (!registration)
        return dcmfl_fail(DCMF_INVAL, fn, "registration is NULL");
    if (algo >= DCMF_PUT_PROTOCOL_COUNT) /* same count for Get */
        return dcmfl_fail(DCMF_INVAL, fn, "protocol %u is not one of DCMF's", algo);
    if ((rc = dcmfl_check_network(fn, net)) != DCMF_SUCCESS)
        return rc;
    struct dcmfl_proto *p = (struct dcmfl_proto *)registration;
    memset(p, 0, sizeof *p);
    p->magic = DCMFL_PROTO_MAGIC;
    p->kind = kind;
    p->id = (*counter)++;
    p->algo = algo;
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Put_register(DCMF_Protocol_t *registration, DCMF_Put_Configuration_t *cfg)
{
    if (!cfg)
        return dcmfl_fail(DCMF_INVAL, "DCMF_Put_register", "configuration is NULL");
    return register_plain("DCMF_Put_register", registration, DCMFL_P_PUT, cfg->protocol,
                          cfg->network, &dcmfl.nput);
}

DCMF_Result DCMF_Get_register(DCMF_Protocol_t *registration, DCMF_Get_Configuration_t *cfg)
{
    if (!cfg)
        return dcmfl_fail(DCMF_INVAL, "DCMF_Get_register", "configuration is NULL");
    return register_plain("DCMF_Get_register", registration, DCMFL_P_GET, cfg->protocol,
                          cfg->network, &dcmfl.nget);
}

/* A relaxed transfer longer than a packet: the NIC's dynamic lane. */
static int post_relaxed(struct dcmfl_req *r, unsigned op, unsigned flags, uint64_t cookie)
{
    struct emu_msg m;
    memset(&m, 0, EMU_MSG_HDR_SIZE);
    m.op = EMU_OP_MODULE;
    m.module = EMU_MOD_DCMF;
    m.aop = DCMFX_RELAXED;
    m.dtype = (uint8_t)op;
    m.flags = (uint8_t)(flags | EMU_F_UNORDERED);
    m.dst = r->rank;
    m.key = r->key;
    m.laddr = r->laddr;
    m.raddr = r->raddr;
    m.len = r->bytes;
    m.cookie = cookie;
    return emunic_post_module(&m);
}

DCMF_Result dcmfl_post_onesided(const char *fn, struct dcmfl_req *r)
{
    int relaxed = (r->consistency == DCMF_RELAXED_CONSISTENCY ||
                   r->consistency == DCMF_WEAK_CONSISTENCY);
    /* the remote completion frees the FIFO slot, so it is always asked for */
    unsigned flags = EMU_F_LOCAL_CQ | EMU_F_REMOTE_CQ;
    r->pending = EMU_DONE_LOCAL;
    if (r->kind == DCMFL_R_PUT && r->ack.function)
        r->pending |= EMU_DONE_REMOTE;
    if (dcmfl_busy_add(r, sizeof(DCMF_Request_t)) != 0)
        return dcmfl_post_result(fn, -ENOMEM);
    uint64_t cookie = dcmfl_fifo_take(r);
    int rc = -ENOMEM;
    if (!cookie)
        ;
    else if (relaxed && r->bytes > DCMFX_PACKET)
        rc = post_relaxed(r, r->kind == DCMFL_R_PUT ? EMU_OP_WRITE : EMU_OP_READ, flags, cookie);
    else if (r->kind == DCMFL_R_PUT)
        rc = emunic_write(r->rank, r->key, r->raddr, (const void *)(uintptr_t)r->laddr, r->bytes,
                          flags | (relaxed ? EMU_F_UNORDERED : 0), cookie, 0);
    else
        rc = emunic_read(r->rank, r->key, r->raddr, (void *)(uintptr_t)r->laddr, r->bytes,
                         flags | (relaxed ? EMU_F_UNORDERED : 0), cookie);
    if (rc)
        dcmfl_fifo_undo(r, cookie);
    return dcmfl_post_result(fn, rc);
}

/* Checks shared by Put and Get; fills r's addresses. local/remote are
 * this rank's region and the target's. */
static DCMF_Result prepare(const char *fn, struct dcmfl_req *r, DCMF_Protocol_t *registration,
                           enum dcmfl_proto_kind kind, DCMF_Consistency consistency, size_t rank,
                           size_t bytes, DCMF_Memregion_t *local_m, DCMF_Memregion_t *remote_m,
                           size_t local_off, size_t remote_off)
{
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct dcmfl_proto *p = dcmfl_proto_of(fn, registration, kind);
    if (!p)
        return DCMF_INVAL;
    if (!r)
        return dcmfl_fail(DCMF_INVAL, fn, "request is NULL");
    if ((rc = dcmfl_check_consistency(fn, consistency)) != DCMF_SUCCESS ||
        (rc = dcmfl_check_rank(fn, rank)) != DCMF_SUCCESS)
        return rc;
    if ((rc = dcmfl_check_free(fn, r, sizeof(DCMF_Request_t))) != DCMF_SUCCESS)
        return rc;
    struct dcmfl_mr *lm = mr_of(fn, local_m, "the local");
    struct dcmfl_mr *rm = mr_of(fn, remote_m, "the remote");
    if (!lm || !rm)
        return DCMF_INVAL;
    if (lm->rank != dcmfl.rank)
        return dcmfl_fail(DCMF_INVAL, fn, "the local memregion belongs to rank %u, not to this rank", lm->rank);
    if (rm->rank != rank)
        return dcmfl_fail(DCMF_INVAL, fn, "the remote memregion belongs to rank %u, not to target rank %zu",
                          rm->rank, rank);
    if (local_off > lm->bytes || bytes > lm->bytes - local_off)
        return dcmfl_fail(DCMF_INVAL, fn, "local offset %zu + %zu bytes is outside the %llu-byte region",
                          local_off, bytes, (unsigned long long)lm->bytes);
    if (remote_off > rm->bytes || bytes > rm->bytes - remote_off)
        return dcmfl_fail(DCMF_INVAL, fn, "remote offset %zu + %zu bytes is outside the %llu-byte region",
                          remote_off, bytes, (unsigned long long)rm->bytes);
    memset(r, 0, sizeof *r);
    r->magic = DCMFL_REQ_MAGIC;
    r->kind = kind == DCMFL_P_PUT ? DCMFL_R_PUT : DCMFL_R_GET;
    r->consistency = (uint8_t)consistency;
    r->rank = (uint32_t)rank;
    r->key = rm->key;
    r->bytes = bytes;
    r->laddr = lm->base + local_off;
    r->raddr = rm->base + remote_off;
    r->proto = p;
    return DCMF_SUCCESS;
}

DCMF_Result DCMF_Put(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                     DCMF_Callback_t cb_done, DCMF_Consistency consistency, size_t rank,
                     size_t bytes, DCMF_Memregion_t *src_memregion,
                     DCMF_Memregion_t *dst_memregion, size_t src_offset, size_t dst_offset,
                     DCMF_Callback_t cb_ack)
{
    const char *fn = "DCMF_Put";
    struct dcmfl_req *r = (struct dcmfl_req *)request;
    dcmfl_lock();
    DCMF_Result rc = prepare(fn, r, registration, DCMFL_P_PUT, consistency, rank, bytes,
                             src_memregion, dst_memregion, src_offset, dst_offset);
    if (rc == DCMF_SUCCESS) {
        r->done = cb_done;
        r->ack = cb_ack;
        rc = dcmfl_post_onesided(fn, r);
    }
    dcmfl_unlock();
    return rc;
}

DCMF_Result DCMF_Get(DCMF_Protocol_t *registration, DCMF_Request_t *request,
                     DCMF_Callback_t cb_done, DCMF_Consistency consistency, size_t rank,
                     size_t bytes, DCMF_Memregion_t *src_memregion,
                     DCMF_Memregion_t *dst_memregion, size_t src_offset, size_t dst_offset)
{
    const char *fn = "DCMF_Get";
    struct dcmfl_req *r = (struct dcmfl_req *)request;
    dcmfl_lock();
    DCMF_Result rc = prepare(fn, r, registration, DCMFL_P_GET, consistency, rank, bytes,
                             dst_memregion, src_memregion, dst_offset, src_offset);
    if (rc == DCMF_SUCCESS) {
        r->done = cb_done;
        rc = dcmfl_post_onesided(fn, r);
    }
    dcmfl_unlock();
    return rc;
}

DCMF_Result DCMF_Restart(DCMF_Request_t *request)
{
    const char *fn = "DCMF_Restart";
    DCMF_Result rc = dcmfl_need_init(fn);
    if (rc != DCMF_SUCCESS)
        return rc;
    struct dcmfl_req *r = (struct dcmfl_req *)request;
    if (!r)
        return dcmfl_fail(DCMF_INVAL, fn, "request is NULL");
    dcmfl_lock();
    /* in use: the library's record; what it carried: the storage, which
     * the client must leave as the last operation left it to restart it */
    if (dcmfl_busy_overlaps(r, sizeof *request))
        rc = dcmfl_fail(DCMF_INVAL, fn, "the request has not completed yet");
    else if (r->magic != DCMFL_REQ_MAGIC || (r->kind != DCMFL_R_SEND && r->kind != DCMFL_R_PUT &&
                                             r->kind != DCMFL_R_GET))
        rc = dcmfl_fail(DCMF_INVAL, fn, "the request never carried a Send, Put or Get");
    else
        rc = r->kind == DCMFL_R_SEND ? dcmfl_post_send(fn, r) : dcmfl_post_onesided(fn, r);
    dcmfl_unlock();
    return rc;
}
