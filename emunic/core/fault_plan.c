/* Shared decisions of the fault plan (see emunic/fault.h). */
#include "emunic/fault.h"
#include "emunic/waiter.h"

int emu_fault_covers(const struct emu_fault_rule *r, const struct emu_fault_subject *s, int64_t t)
{
    if (t < r->start_ns || (r->end_ns >= 0 && t >= r->end_ns))
        return 0;
    uint32_t a = s->node_a, b = s->node_b;
    if (r->node_a >= 0) {
        uint32_t na = (uint32_t)r->node_a;
        if (r->node_b >= 0) {
            uint32_t nb = (uint32_t)r->node_b;
            if (!((a == na && b == nb) || (a == nb && b == na)))
                return 0;
        } else if (a != na && b != na) {
            return 0;
        }
    }
    if (r->op_mask && (s->op < 0 || s->op >= 32 || !(r->op_mask & (1u << s->op))))
        return 0;
    if (r->rank_a >= 0) {
        if (s->src < 0)
            return 0;
        int32_t ra = r->rank_a, rb = r->rank_b;
        if (rb >= 0 ? !((s->src == ra && s->dst == rb) || (s->src == rb && s->dst == ra))
                    : (s->src != ra && s->dst != ra))
            return 0;
    }
    return 1;
}

uint64_t emu_fault_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

double emu_fault_draw(uint64_t seed, uint64_t who, uint64_t id, uint32_t rule, uint32_t what)
{
    uint64_t key = id ^ ((uint64_t)rule << 40 | (uint64_t)what << 56);
    uint64_t h = emu_fault_mix(seed ^ emu_fault_mix(who ^ emu_fault_mix(key)));
    return (double)(h >> 11) * 0x1.0p-53;
}

int emu_fault_refuse(const struct emu_netcfg *net, uint32_t kind, uint32_t node, uint32_t rank, uint64_t n)
{
    struct emu_fault_subject s = {node, node, -1, (int32_t)rank, (int32_t)rank};
    int64_t t = -1; /* read once, and only when a rule of the kind is there */
    for (uint32_t i = 0; i < net->nrules && i < EMU_FAULT_MAX; i++) {
        const struct emu_fault_rule *r = &net->rules[i];
        if (r->kind != kind)
            continue;
        if (t < 0)
            t = emu_now_ns() - net->start_ns;
        if (!emu_fault_covers(r, &s, t))
            continue;
        if (r->prob >= 1 || emu_fault_draw(net->seed, (uint64_t)kind << 32 | rank, n, i, 7) < r->prob)
            return 1;
    }
    return 0;
}
