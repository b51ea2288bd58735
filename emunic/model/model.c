/* The machine model (see emunic/model.h and docs/machines.md).
 *
 * Topology: an n-D torus/mesh (m->dims, m->torus_mask) or none (ndims 0:
 * a full crossbar, every pair one hop). Node index -> coordinates follows
 * the mapping string (BG/Q style "ABCDET": the letter right before T varies
 * fastest, T = the ranks of a node, which emunic places in node order).
 * Routes are dimension-ordered (A first), the shorter way round a torus
 * dimension (ties go +). Links keep busy-until times in the job segment,
 * reserved with a CAS loop, so every daemon sees every other's traffic. */
#include "emunic/model.h"

#include <string.h>

static const char LETTERS[] = "ABCDEF";

int emu_model_active(const struct emu_netcfg *net)
{
    const struct emu_machine *m = &net->m;
    return m->overhead_ns || m->ack_overhead_ns || m->latency_ns || m->hop_ns || m->link_bw;
}

int emu_model_mapping_ok(const char *mapping, uint32_t ndims)
{
    if (!mapping[0])
        return 0;
    size_t n = strlen(mapping);
    if (ndims > EMU_NET_MAX_DIMS || n != ndims + 1 || mapping[n - 1] != 'T')
        return -1;
    unsigned seen = 0;
    for (size_t i = 0; i < ndims; i++) {
        const char *p = mapping[i] ? strchr(LETTERS, mapping[i]) : NULL;
        if (!p || (uint32_t)(p - LETTERS) >= ndims || (seen & (1u << (p - LETTERS))))
            return -1;
        seen |= 1u << (p - LETTERS);
    }
    return 0;
}

/* order[k]: the dimension that varies k-th fastest. */
static void dim_order(const char *mapping, uint32_t ndims, uint32_t *order)
{
    for (uint32_t k = 0; k < ndims; k++)
        order[k] = mapping[0] ? (uint32_t)(strchr(LETTERS, mapping[ndims - 1 - k]) - LETTERS)
                              : ndims - 1 - k;
}

uint64_t emu_model_nodes(const uint32_t *full, uint32_t ndims)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < ndims && n <= UINT32_MAX; d++)
        n *= full[d];
    return n;
}

int emu_model_subshape(const uint32_t *full, uint32_t ndims, const char *mapping, uint32_t nnodes,
                       uint32_t *out)
{
    uint32_t order[EMU_NET_MAX_DIMS];
    dim_order(mapping, ndims, order);
    uint64_t left = nnodes ? nnodes : 1;
    for (uint32_t k = 0; k < ndims; k++) {
        uint32_t d = order[k];
        uint64_t take = left < full[d] ? left : full[d];
        out[d] = (uint32_t)(take ? take : 1);
        left = (left + out[d] - 1) / out[d];
    }
    return ndims && emu_model_nodes(full, ndims) < nnodes ? -1 : 0;
}

void emu_model_coords(const struct emu_machine *m, uint32_t n, uint32_t *coords)
{
    uint32_t order[EMU_NET_MAX_DIMS];
    dim_order(m->mapping, m->ndims, order);
    for (uint32_t k = 0; k < m->ndims; k++) {
        uint32_t d = order[k], sz = m->dims[d] ? m->dims[d] : 1;
        coords[d] = n % sz;
        n /= sz;
    }
}

uint32_t emu_model_node_at(const struct emu_machine *m, const uint32_t *coords)
{
    uint32_t order[EMU_NET_MAX_DIMS];
    dim_order(m->mapping, m->ndims, order);
    uint32_t n = 0;
    for (uint32_t k = m->ndims; k-- > 0;) {
        uint32_t d = order[k], sz = m->dims[d] ? m->dims[d] : 1;
        n = n * sz + coords[d];
    }
    return n;
}

/* Signed steps along dimension d from a to b (shorter way on a torus). */
static int32_t steps(const struct emu_machine *m, uint32_t d, uint32_t a, uint32_t b)
{
    int32_t sz = (int32_t)m->dims[d], delta = (int32_t)b - (int32_t)a;
    if (!(m->torus_mask & (1u << d)) || sz <= 1)
        return delta;
    int32_t fwd = ((delta % sz) + sz) % sz;
    return fwd <= sz / 2 ? fwd : fwd - sz;
}

uint32_t emu_model_hops(const struct emu_machine *m, uint32_t nnodes, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    if (!m->ndims || a >= nnodes || b >= nnodes)
        return 1;
    uint32_t ca[EMU_NET_MAX_DIMS], cb[EMU_NET_MAX_DIMS], h = 0;
    emu_model_coords(m, a, ca);
    emu_model_coords(m, b, cb);
    for (uint32_t d = 0; d < m->ndims; d++) {
        int32_t s = steps(m, d, ca[d], cb[d]);
        h += (uint32_t)(s < 0 ? -s : s);
    }
    return h;
}

uint32_t emu_model_route(const struct emu_machine *m, uint32_t nnodes, uint32_t src, uint32_t dst,
                         uint32_t *out, uint32_t max)
{
    if (src == dst || max == 0)
        return 0;
    if (!m->ndims || src >= nnodes || dst >= nnodes) {
        out[0] = src * EMU_NET_LINKS_PER_NODE + 0;
        return 1;
    }
    uint32_t c[EMU_NET_MAX_DIMS], cb[EMU_NET_MAX_DIMS], n = 0;
    emu_model_coords(m, src, c);
    emu_model_coords(m, dst, cb);
    for (uint32_t d = 0; d < m->ndims; d++) {
        int32_t s = steps(m, d, c[d], cb[d]);
        uint32_t sz = m->dims[d];
        while (s != 0 && n < max) {
            uint32_t here = emu_model_node_at(m, c);
            out[n++] = here * EMU_NET_LINKS_PER_NODE + EMU_LINK_OUT(d, s < 0);
            c[d] = s > 0 ? (c[d] + 1) % sz : (c[d] + sz - 1) % sz;
            s += s > 0 ? -1 : 1;
        }
    }
    return n;
}

uint64_t emu_model_packets(const struct emu_machine *m, uint64_t bytes)
{
    if (!m->mtu || bytes == 0)
        return 1;
    return (bytes + m->mtu - 1) / m->mtu;
}

/* Reserve link l for dur ns from no earlier than t; returns the start. */
static int64_t reserve(_Atomic uint64_t *l, int64_t t, int64_t dur)
{
    uint64_t old = atomic_load_explicit(l, memory_order_relaxed);
    for (;;) {
        int64_t start = (int64_t)old > t ? (int64_t)old : t;
        if (atomic_compare_exchange_weak_explicit(l, &old, (uint64_t)(start + dur), memory_order_acq_rel,
                                                  memory_order_relaxed))
            return start;
    }
}

static int64_t scaled(double ns, double dilate) { return (int64_t)(ns * dilate + 0.5); }

/* Network part of a route from head time t; returns the tail's arrival. */
static int64_t traverse(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes, uint32_t src,
                        uint32_t dst, int64_t ser, int64_t t)
{
    const struct emu_machine *m = &net->m;
    double k = net->dilate >= 1 ? net->dilate : 1;
    uint32_t route[EMU_MODEL_MAX_ROUTE];
    uint32_t n = emu_model_route(m, nnodes, src, dst, route, EMU_MODEL_MAX_ROUTE);
    int64_t lat = scaled((double)m->latency_ns, k), hop = scaled((double)m->hop_ns, k);
    for (uint32_t i = 0; i < n; i++) {
        int64_t s = reserve(&links[route[i]], t, ser);
        t = s + (i == 0 ? lat : hop);
    }
    if (n == 0)
        t += lat;
    if (m->ndims < EMU_NET_MAX_DIMS)
        t = reserve(&links[(uint64_t)dst * EMU_NET_LINKS_PER_NODE + EMU_LINK_RX], t, ser);
    return t + ser;
}

static int64_t ser_ns(const struct emu_netcfg *net, uint64_t bytes)
{
    double k = net->dilate >= 1 ? net->dilate : 1;
    return net->m.link_bw ? scaled((double)bytes * 1e9 / (double)net->m.link_bw, k) : 0;
}

int64_t emu_model_send(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes, uint32_t src,
                       uint32_t dst, uint64_t bytes, int ack, int64_t ready_ns)
{
    if (!emu_model_active(net))
        return ready_ns;
    double k = net->dilate >= 1 ? net->dilate : 1;
    int64_t o = scaled((double)(ack ? net->m.ack_overhead_ns : net->m.overhead_ns), k);
    if (src == dst || src >= nnodes || dst >= nnodes)
        return ready_ns + o;
    int64_t ser = ser_ns(net, bytes);
    int64_t start = reserve(&links[(uint64_t)src * EMU_NET_LINKS_PER_NODE + EMU_LINK_INJ], ready_ns, o + ser);
    return traverse(net, links, nnodes, src, dst, ser, start + o);
}

int64_t emu_model_arrival(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes,
                          uint32_t src, uint32_t dst, uint64_t bytes, int64_t now_ns)
{
    return emu_model_send(net, links, nnodes, src, dst, bytes, 0, now_ns);
}

int64_t emu_model_occupy(const struct emu_netcfg *net, _Atomic uint64_t *links, uint32_t nnodes,
                         uint32_t src, uint32_t dst, uint64_t bytes, int64_t now_ns)
{
    if (!emu_model_active(net) || src == dst || src >= nnodes || dst >= nnodes)
        return now_ns;
    return traverse(net, links, nnodes, src, dst, ser_ns(net, bytes), now_ns);
}
