/* Injection FIFO, credits and credit starvation (see inject.h).
 *
 * A NIC keeps at most D messages in flight (fifo_depth: its injection
 * FIFO's slots, or SeaStar's simultaneous message streams) and at most C
 * to any one destination (credits); a slot or credit returns when the
 * message holding it has arrived. Both are sliding windows over the
 * arrival times already computed for earlier messages, so no timer runs:
 * the message D places behind waits for the arrival of the one ahead, and
 * the model's timed queue delivers it at its later time. A credits fault
 * starves a node (or one of its links) for a window: nothing it sends in
 * the window is injected before the window ends. */
#include "inject.h"

#include <errno.h>
#include <stdlib.h>

#include "emunic/fault.h"
#include "nic.h"
#include "trace.h"

static struct {
    const struct emu_netcfg *net;
    uint32_t me, nnodes, depth, credits;
    int starve; /* the plan has credits rules */
    int64_t *fifo; /* depth arrival times, a ring */
    uint64_t nfifo;
    int64_t *cred; /* nnodes x credits arrival times, a ring each */
    uint64_t *ncred;
} I;

int inject_init(const struct emu_netcfg *net, uint32_t nnodes, uint32_t me)
{
    I.net = net;
    I.me = me;
    I.nnodes = nnodes;
    I.depth = net->m.fifo_depth;
    I.credits = net->m.credits;
    I.starve = 0;
    for (uint32_t i = 0; i < net->nrules && i < EMU_FAULT_MAX; i++)
        I.starve |= net->rules[i].kind == EMU_FAULT_CREDITS;
    if (I.depth && !(I.fifo = calloc(I.depth, sizeof *I.fifo)))
        return -ENOMEM;
    if (I.credits && (!(I.cred = calloc((size_t)nnodes * I.credits, sizeof *I.cred)) ||
                      !(I.ncred = calloc(nnodes, sizeof *I.ncred))))
        return -ENOMEM;
    return 0;
}

void inject_fini(void)
{
    free(I.fifo);
    free(I.cred);
    free(I.ncred);
    I.fifo = I.cred = NULL;
    I.ncred = NULL;
}

int inject_on(void) { return I.depth || I.credits || I.starve; }

/* The end of the latest credits window that covers m at now, or now. */
static int64_t starved_until(uint32_t dst, const struct emu_msg *m, int64_t now)
{
    int64_t t = now - I.net->start_ns, until = now;
    struct emu_fault_subject s = {I.me, dst, m->op, (int32_t)m->src, (int32_t)m->dst};
    for (uint32_t i = 0; i < I.net->nrules && i < EMU_FAULT_MAX; i++) {
        const struct emu_fault_rule *r = &I.net->rules[i];
        /* the starved node is the sender; link= names one destination */
        if (r->kind != EMU_FAULT_CREDITS || (uint32_t)r->node_a != I.me || !emu_fault_covers(r, &s, t))
            continue;
        if (I.net->start_ns + r->end_ns > until)
            until = I.net->start_ns + r->end_ns;
    }
    return until;
}

int64_t inject_ready(struct emu_nic *nic, uint32_t dst, const struct emu_msg *m, int64_t now)
{
    int64_t ready = now;
    if (I.depth && I.fifo[I.nfifo % I.depth] > ready)
        ready = I.fifo[I.nfifo % I.depth];
    if (I.credits && dst < I.nnodes) {
        int64_t c = I.cred[(size_t)dst * I.credits + I.ncred[dst] % I.credits];
        if (c > ready)
            ready = c;
    }
    if (ready > now)
        EMU_CTR_ADD(nic->ctr, credit_stalls, 1);
    if (I.starve && dst != I.me) {
        int64_t s = starved_until(dst, m, now);
        if (s > ready) {
            ready = s;
            EMU_CTR_ADD(nic->ctr, starved, 1);
            if (TRACE_ON())
                trace_fault(nic, "starved", I.me, dst, m);
        }
    }
    return ready;
}

void inject_sent(uint32_t dst, int64_t arrival)
{
    if (I.depth)
        I.fifo[I.nfifo++ % I.depth] = arrival;
    if (I.credits && dst < I.nnodes)
        I.cred[(size_t)dst * I.credits + I.ncred[dst]++ % I.credits] = arrival;
}
