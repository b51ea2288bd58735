/* Read-modify-write and mutexes. RMW runs on the network's atomics when
 * the device has them (ARMCI_RMW=nic) or at the target's server. Mutexes
 * live at the server, which queues lock requests and grants them in
 * order, so a waiting rank sleeps instead of polling remote memory. */
#include <stdlib.h>
#include "chan.h"
#include "coll.h"
#include "config.h"
#include "mem.h"
#include "order.h"
#include "serial.h"

static int *nmutex; /* mutexes each rank hosts */

/* The mutexes this rank holds, so that unlocking one it does not hold (or
 * locking one twice, which would wait forever) is an error here rather
 * than a confused server. */
static struct held {
    int proc, mutex;
} *held;
static int nheld, held_cap;

static int find_held(int mutex, int proc)
{
    for (int i = 0; i < nheld; i++)
        if (held[i].proc == proc && held[i].mutex == mutex)
            return i;
    return -1;
}

int ARMCI_Rmw(int op, void *ploc, void *prem, int extra, int proc)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Rmw");
    armcii_check_proc(proc, "ARMCI_Rmw");
    int is_long = op == ARMCI_FETCH_AND_ADD_LONG || op == ARMCI_SWAP_LONG;
    if (op < ARMCI_FETCH_AND_ADD || op > ARMCI_SWAP_LONG)
        armcii_error(1, "ARMCI_Rmw: unknown op %d", op);
    if (!ploc)
        armcii_error(1, "ARMCI_Rmw: ploc is NULL");
    size_t sz = is_long ? sizeof(long) : sizeof(int);
    struct armcii_seg *seg = armcii_seg_check(proc, prem, sz, "ARMCI_Rmw", "prem");
    int fadd = op == ARMCI_FETCH_AND_ADD || op == ARMCI_FETCH_AND_ADD_LONG;
    long operand = fadd ? (long)extra : is_long ? *(long *)ploc : (long)*(int *)ploc;
    int amo = armcii_dev->caps & ADEV_CAP_AMO;
    int srv_ok = seg->kind == ARMCII_MEM_HEAP || armcii_server_of(proc) == proc;
    /* auto and nic: the NIC's atomics when there are any. Memory the
     * server cannot reach goes to the device's amo() even without them
     * (a device then has the target run it), as accumulates do. */
    int use_srv = srv_ok && (armcii_cfg.rmw_path == ARMCII_PATH_HELPER || !amo);
    long old;
    armcii_order_before(proc, seg, ARMCII_OP_RMW, use_srv ? ARMCII_SRV : ARMCII_RDMA);
    if (use_srv) {
        old = (long)armcii_srv_rmw(proc, op, prem, operand);
    } else {
        struct armcii_req r = {0};
        struct armcii_cmpl *c = armcii_cmpl_new(&r);
        long fetched = 0;
        int iv = (int)operand, ifetched = 0;
        ARMCII_POST("ARMCI_Rmw",
                    armcii_dev->amo(ADEV_CTX_RANK, proc, fadd ? ADEV_AMO_FADD : ADEV_AMO_SWAP,
                                    is_long ? ADEV_INT64 : ADEV_INT32, prem,
                                    is_long ? (void *)&operand : (void *)&iv, sz,
                                    is_long ? (void *)&fetched : (void *)&ifetched, &c->c));
        armcii_req_wait_issued(&r);
        if (r.status)
            armcii_error(1, "ARMCI_Rmw: the network atomic failed (%d)", r.status);
        old = is_long ? fetched : ifetched;
    }
    armcii_order_after(proc, seg, ARMCII_OP_RMW, use_srv ? ARMCII_SRV : ARMCII_RDMA);
    if (is_long)
        *(long *)ploc = old;
    else
        *(int *)ploc = (int)old;
    return 0;
}

int ARMCI_Create_mutexes(int num)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Create_mutexes");
    if (num < 0)
        armcii_error(1, "ARMCI_Create_mutexes: num %d < 0", num);
    if (nmutex)
        armcii_error(1, "ARMCI_Create_mutexes: mutexes exist already (ARMCI_Destroy_mutexes first)");
    if (!(nmutex = calloc((size_t)armcii_nproc(), sizeof *nmutex)))
        armcii_error(1, "ARMCI_Create_mutexes: out of memory");
    armcii_coll_allgather(armcii_group_world(), &num, sizeof num, nmutex);
    return 0;
}

int ARMCI_Destroy_mutexes(void)
{
    ARMCII_SERIAL;
    armcii_need_init("ARMCI_Destroy_mutexes");
    if (!nmutex)
        armcii_error(1, "ARMCI_Destroy_mutexes: no mutexes were created");
    if (nheld)
        armcii_error(1, "ARMCI_Destroy_mutexes: mutex %d on rank %d is still held by this rank",
                     held[0].mutex, held[0].proc);
    armcii_coll_barrier(armcii_group_world());
    free(nmutex);
    nmutex = NULL;
    return 0;
}

static void check_mutex(int mutex, int proc, const char *fn)
{
    armcii_need_init(fn);
    armcii_check_proc(proc, fn);
    if (!nmutex)
        armcii_error(1, "%s: no mutexes were created (ARMCI_Create_mutexes)", fn);
    if (mutex < 0 || mutex >= nmutex[proc])
        armcii_error(1, "%s: mutex %d out of range 0..%d on rank %d", fn, mutex,
                     nmutex[proc] - 1, proc);
}

void ARMCI_Lock(int mutex, int proc)
{
    ARMCII_SERIAL;
    check_mutex(mutex, proc, "ARMCI_Lock");
    if (find_held(mutex, proc) >= 0)
        armcii_error(1, "ARMCI_Lock: mutex %d on rank %d is already held by this rank "
                     "(mutexes are not recursive)", mutex, proc);
    if (nheld == held_cap) {
        int cap = held_cap ? 2 * held_cap : 8;
        struct held *g = realloc(held, sizeof *g * (size_t)cap);
        if (!g)
            armcii_error(1, "ARMCI_Lock: out of memory");
        held = g;
        held_cap = cap;
    }
    armcii_srv_lock(proc, mutex);
    held[nheld++] = (struct held){proc, mutex};
}

/* Writes made under the lock must land before the next holder reads:
 * fence the target first. */
void ARMCI_Unlock(int mutex, int proc)
{
    ARMCII_SERIAL;
    check_mutex(mutex, proc, "ARMCI_Unlock");
    int i = find_held(mutex, proc);
    if (i < 0)
        armcii_error(1, "ARMCI_Unlock: mutex %d on rank %d is not held by this rank", mutex, proc);
    held[i] = held[--nheld];
    armcii_fence(proc);
    armcii_srv_unlock(proc, mutex);
}

void armcii_sync_finalize(void)
{
    free(nmutex);
    nmutex = NULL;
    free(held);
    held = NULL;
    nheld = held_cap = 0;
}
