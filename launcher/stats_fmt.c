/* Counter formatting shared by emunic-run (--stats, --stats-json) and
 * emunic-stat: the text tables and the JSON document of docs/observe.md. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
#define N_(name, doc) #name,
    EMU_COUNTERS(N_)
#undef N_
};
static const char *const docs[] = {
#define D_(name, doc) doc,
    EMU_COUNTERS(D_)
#undef D_
};
#define NCTR (sizeof names / sizeof names[0])

unsigned stats_nctr(void) { return (unsigned)NCTR; }
const char *stats_ctr_name(unsigned i) { return i < NCTR ? names[i] : "?"; }
const char *stats_ctr_doc(unsigned i) { return i < NCTR ? docs[i] : "?"; }

int stats_ctr_index(const char *name)
{
    for (unsigned i = 0; i < NCTR; i++)
        if (strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

static void load_one(const struct emu_nic_counters *c, uint64_t *v, int add)
{
    unsigned i = 0;
#define L_(name, doc)                                                                   \
    {                                                                                   \
        uint64_t x = atomic_load_explicit(&c->name, memory_order_relaxed);              \
        if (add && strcmp(#name, "queue_max") == 0)                                     \
            v[i] = v[i] > x ? v[i] : x; /* a maximum adds up to the maximum */          \
        else                                                                            \
            v[i] = add ? v[i] + x : x;                                                  \
        i++;                                                                            \
    }
    EMU_COUNTERS(L_)
#undef L_
}

void stats_load(const struct emu_job *j, uint32_t n, uint64_t *v)
{
    if (n != UINT32_MAX) {
        load_one(&j->nodes[n].ctr, v, 0);
        return;
    }
    memset(v, 0, NCTR * sizeof *v);
    for (uint32_t k = 0; k < j->geo.nnodes; k++)
        load_one(&j->nodes[k].ctr, v, 1);
}

static double elapsed_s(const struct emu_job *j)
{
    return (double)(emu_now_ns() - j->geo.created_ns) / 1e9;
}

#define COLS 8 /* NIC columns per block of the text table */

/* The network configuration as the tools print it: a snapshot with its
 * strings terminated, since any rank may have written over it. */
static void net_snapshot(const struct emu_job *j, struct emu_netcfg *net)
{
    memcpy(net, emu_job_netcfg(j), sizeof *net);
    net->m.name[sizeof net->m.name - 1] = 0;
    net->m.mapping[sizeof net->m.mapping - 1] = 0;
    net->trace_dir[sizeof net->trace_dir - 1] = 0;
}

void stats_print_text(FILE *f, const struct emu_job *j)
{
    const struct emu_job_geo *h = &j->geo;
    struct emu_netcfg snap, *net = &snap;
    net_snapshot(j, net);
    uint32_t nn = h->nnodes;
    uint64_t tot[NCTR], (*v)[NCTR] = calloc(nn, sizeof *v);
    if (!v) {
        fprintf(f, "emunic-run: out of memory printing the counters\n");
        return;
    }
    stats_load(j, UINT32_MAX, tot);
    for (uint32_t n = 0; n < nn; n++)
        stats_load(j, n, v[n]);
    fprintf(f, "emunic-run: counters of job %s: %u node%s x %u rank%s, nic %s, machine %s, "
               "seed %llu, %.3f s\n",
            h->jobid, nn, nn == 1 ? "" : "s", h->ranks_per_node, h->ranks_per_node == 1 ? "" : "s",
            h->nic, net->m.name, (unsigned long long)net->seed, elapsed_s(j));
    for (uint32_t b = 0; b < nn; b += COLS) {
        uint32_t e = b + COLS < nn ? b + COLS : nn;
        fprintf(f, "%-14s", "counter");
        if (b == 0)
            fprintf(f, " %14s", "total");
        for (uint32_t n = b; n < e; n++) {
            char col[16];
            snprintf(col, sizeof col, "nic%u", n);
            fprintf(f, " %12s", col);
        }
        fputc('\n', f);
        for (unsigned i = 0; i < NCTR; i++) {
            fprintf(f, "%-14s", names[i]);
            if (b == 0)
                fprintf(f, " %14llu", (unsigned long long)tot[i]);
            for (uint32_t n = b; n < e; n++)
                fprintf(f, " %12llu", (unsigned long long)v[n][i]);
            fputc('\n', f);
        }
    }
    free(v);
    fprintf(f, "%-8s %6s %12s %12s %12s %12s\n", "rank", "node", "wakeups", "doorbells", "sleeps",
            "yields");
    for (uint32_t r = 0; r < h->nranks; r++) {
        const struct emu_waiter *w = &j->ranks[r].cq_waiter;
        fprintf(f, "%-8u %6u %12llu %12llu %12llu %12llu\n", r, r / h->ranks_per_node,
                (unsigned long long)atomic_load(&w->wakeups),
                (unsigned long long)atomic_load(&w->doorbells),
                (unsigned long long)atomic_load(&w->sleeps),
                (unsigned long long)atomic_load(&w->yields));
    }
    fflush(f);
}

/* A JSON string literal (job ids, names: printable ASCII in practice). */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void jcounters(FILE *f, const uint64_t *v)
{
    fputc('{', f);
    for (unsigned i = 0; i < NCTR; i++)
        fprintf(f, "%s\"%s\": %llu", i ? ", " : "", names[i], (unsigned long long)v[i]);
    fputc('}', f);
}

/* Times a producer rang node n's daemon: other daemons on its doorbell,
 * its ranks each on the bell in their own entry. */
static unsigned long long daemon_rings(const struct emu_job *j, uint32_t n)
{
    const struct emu_job_geo *g = &j->geo;
    unsigned long long k = atomic_load(&j->nodes[n].doorbell.doorbells);
    for (uint32_t r = n * g->ranks_per_node; r < (n + 1) * g->ranks_per_node; r++)
        k += atomic_load(&j->ranks[r].nic_bell.doorbells);
    return k;
}

int stats_print_json(FILE *f, const struct emu_job *j, bool live)
{
    const struct emu_job_geo *h = &j->geo;
    struct emu_netcfg snap, *net = &snap;
    net_snapshot(j, net);
    const struct emu_machine *m = &net->m;
    uint64_t v[NCTR];
    fprintf(f, "{\n  \"format\": \"emunic-stats\",\n  \"version\": 1,\n  \"live\": %s,\n  \"job\": ",
            live ? "true" : "false");
    jstr(f, h->jobid);
    fprintf(f, ",\n  \"elapsed_s\": %.6f,\n", elapsed_s(j));
    fprintf(f, "  \"layout\": {\"nodes\": %u, \"ranks_per_node\": %u, \"ranks\": %u, \"nic\": ",
            h->nnodes, h->ranks_per_node, h->nranks);
    jstr(f, h->nic);
    fprintf(f, "},\n  \"machine\": {\"name\": ");
    jstr(f, m->name);
    fprintf(f, ", \"overhead_ns\": %llu, \"ack_overhead_ns\": %llu, \"latency_ns\": %llu, \"hop_ns\": %llu, "
               "\"link_bw\": %llu, \"mtu\": %u, \"fifo_depth\": %u, \"credits\": %u, \"dims\": [",
            (unsigned long long)m->overhead_ns, (unsigned long long)m->ack_overhead_ns,
            (unsigned long long)m->latency_ns,
            (unsigned long long)m->hop_ns, (unsigned long long)m->link_bw, m->mtu, m->fifo_depth,
            m->credits);
    for (uint32_t d = 0; d < m->ndims && d < EMU_NET_MAX_DIMS; d++)
        fprintf(f, "%s%u", d ? ", " : "", m->dims[d]);
    fprintf(f, "]},\n  \"seed\": %llu,\n  \"dilate\": %g,\n  \"reliable\": %s,\n  \"fault_rules\": %u,\n",
            (unsigned long long)net->seed, net->dilate,
            (net->flags & EMU_NET_RELIABLE) ? "true" : "false", net->nrules);
    fprintf(f, "  \"counter_docs\": {");
    for (unsigned i = 0; i < NCTR; i++) {
        fprintf(f, "%s\n    \"%s\": ", i ? "," : "", names[i]);
        jstr(f, docs[i]);
    }
    fprintf(f, "\n  },\n  \"nics\": [");
    for (uint32_t n = 0; n < h->nnodes; n++) {
        stats_load(j, n, v);
        fprintf(f, "%s\n    {\"node\": %u, \"daemon_pid\": %d, \"daemon_wakeups\": %llu, "
                   "\"daemon_doorbells\": %llu, \"counters\": ",
                n ? "," : "", n, (int)atomic_load(&j->nodes[n].daemon_pid),
                (unsigned long long)atomic_load(&j->nodes[n].doorbell.wakeups),
                (unsigned long long)daemon_rings(j, n));
        jcounters(f, v);
        fputc('}', f);
    }
    stats_load(j, UINT32_MAX, v);
    fprintf(f, "\n  ],\n  \"total\": ");
    jcounters(f, v);
    fprintf(f, ",\n  \"ranks\": [");
    for (uint32_t r = 0; r < h->nranks; r++) {
        const struct emu_waiter *w = &j->ranks[r].cq_waiter;
        fprintf(f, "%s\n    {\"rank\": %u, \"node\": %u, \"pid\": %d, \"wakeups\": %llu, "
                   "\"doorbells\": %llu, \"sleeps\": %llu, \"yields\": %llu}",
                r ? "," : "", r, r / h->ranks_per_node, (int)atomic_load(&j->ranks[r].pid),
                (unsigned long long)atomic_load(&w->wakeups),
                (unsigned long long)atomic_load(&w->doorbells),
                (unsigned long long)atomic_load(&w->sleeps),
                (unsigned long long)atomic_load(&w->yields));
    }
    fprintf(f, "\n  ]\n}\n");
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

bool stats_fault_summary(const struct emu_job *j, char *buf, size_t n)
{
    static const char *const which[] = {"drops", "dups", "corrupt", "reordered", "retransmits",
                                        "lost", "starved", "refused"};
    uint64_t v[NCTR];
    stats_load(j, UINT32_MAX, v);
    size_t o = 0;
    bool any = false;
    buf[0] = 0;
    for (size_t k = 0; k < sizeof which / sizeof which[0]; k++) {
        int i = stats_ctr_index(which[k]);
        if (i < 0)
            continue;
        if (v[i])
            any = true;
        int w = snprintf(buf + o, n - o, "%s%s %llu", k ? ", " : "", which[k],
                         (unsigned long long)v[i]);
        if (w < 0 || (size_t)w >= n - o)
            break;
        o += (size_t)w;
    }
    if (!any)
        buf[0] = 0;
    return any;
}
