/* Background traffic (--congestion uniform|hotspot|bisection[:LOAD]): each
 * daemon occupies the links of routes from its node, as if it injected
 * LOAD x link_bw bytes per second of traffic nobody receives. No data
 * moves: emu_model_occupy only pushes the links' busy-until times.
 *
 *   uniform    each burst to a node chosen uniformly among the others
 *   hotspot    every node to node 0 (node 0 itself: uniform)
 *   bisection  node n to node (n + nnodes/2) mod nnodes, across the middle
 *
 * Traffic is reserved in bursts of CONG_BYTES, each at the time the daemon
 * gets to it (never in the past, which would occupy nothing, nor ahead of
 * time, which would leave holes a busy-until time cannot represent); the
 * daemon wakes at least every burst interval, CONG_BYTES / (LOAD link_bw)
 * times the dilation. When it wakes late the missed bytes go out at once,
 * so the offered load is kept on average. */
#include "congestion.h"

#include "emunic/model.h"

#define CONG_BYTES 4096u
#define CONG_MAX_CATCHUP 64 /* bursts reserved at once after a late wake */

static struct {
    const struct emu_netcfg *net;
    _Atomic uint64_t *links;
    uint32_t nnodes, node;
    int on;
    int64_t next, interval;
    uint64_t rng;
} cg;

static uint64_t rnd(void)
{
    cg.rng ^= cg.rng << 13;
    cg.rng ^= cg.rng >> 7;
    cg.rng ^= cg.rng << 17;
    return cg.rng;
}

void cong_init(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes, uint32_t node, int64_t now)
{
    cg.net = net;
    cg.links = links;
    cg.nnodes = nnodes;
    cg.node = node;
    cg.on = net->congestion != EMU_CONG_NONE && net->m.link_bw && net->congestion_load > 0 && nnodes > 1;
    if (!cg.on)
        return;
    double k = net->dilate >= 1 ? net->dilate : 1;
    double ns = (double)CONG_BYTES * 1e9 / ((double)net->m.link_bw * net->congestion_load) * k;
    cg.interval = ns < 1 ? 1 : (int64_t)ns;
    cg.rng = (net->seed ^ (0x9e3779b97f4a7c15ull * (node + 1))) | 1;
    cg.next = now + (int64_t)(rnd() % (uint64_t)cg.interval); /* daemons out of step */
}

static uint32_t pick_dst(void)
{
    uint32_t n = cg.nnodes;
    switch (cg.net->congestion) {
    case EMU_CONG_HOTSPOT:
        if (cg.node != 0)
            return 0;
        break;
    case EMU_CONG_BISECTION:
        return (cg.node + n / 2) % n;
    default:
        break;
    }
    uint32_t d = (uint32_t)(rnd() % (n - 1));
    return d >= cg.node ? d + 1 : d;
}

int64_t cong_progress(int64_t now)
{
    if (!cg.on)
        return INT64_MAX;
    int k = 0;
    while (cg.next <= now && k < CONG_MAX_CATCHUP) {
        uint32_t dst = pick_dst();
        if (dst != cg.node)
            emu_model_occupy(cg.net, cg.links, cg.nnodes, cg.node, dst, CONG_BYTES, now);
        cg.next += cg.interval;
        k++;
    }
    if (cg.next <= now) /* too far behind: drop the rest of the backlog */
        cg.next = now + cg.interval;
    return cg.next;
}
