#include "armci_bench.h"

#include <message.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

extern char **environ;

void ab_require_portals_job(const char *prog)
{
    const char *nic = getenv("EMUNIC_NIC");
    if (!getenv("EMUNIC_JOBID") || !nic || strcmp(nic, "portals") != 0) {
        fprintf(stderr, "%s: run me under emunic-run --nic portals (see --help)\n", prog);
        exit(2);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void ab_env_comment(FILE *f)
{
    size_t n = 0;
    for (char **e = environ; *e; e++)
        n += strncmp(*e, "ARMCI_", 6) == 0;
    const char **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return;
    n = 0;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "ARMCI_", 6) == 0)
            v[n++] = *e;
    qsort(v, n, sizeof *v, cmp_str);
    fputs("# env", f);
    if (!n)
        fputs(" (no ARMCI_* variables: defaults)", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, " %s", v[i]);
    fputc('\n', f);
    free(v);
}

const char *ab_env_or(const char *name, const char *def)
{
    const char *v = getenv(name);
    return v && *v ? v : def;
}

void ab_spin_ns(int64_t ns)
{
    int64_t end = bench_now_ns() + ns;
    volatile double x = 1.0;
    while (bench_now_ns() < end)
        for (int i = 0; i < 64; i++)
            x = x * 1.0000001 + 1e-9; /* some work between clock reads */
}

/* libarmci's internal counters (runtime/core/chan.h); weak, see the header. */
extern unsigned long armcii_nreq __attribute__((weak));
extern unsigned long armcii_ngrants __attribute__((weak));
extern unsigned long armcii_credit_waits __attribute__((weak));
extern unsigned long armcii_srv_requests __attribute__((weak));
extern unsigned long armcii_srv_acks __attribute__((weak));

static unsigned long rd(const unsigned long *p)
{
    return p ? *(const volatile unsigned long *)p : 0;
}

void ab_proto_read(struct ab_proto_ctrs *c)
{
    c->have = &armcii_nreq != NULL && &armcii_srv_requests != NULL;
    c->requests = rd(&armcii_nreq);
    c->grants = rd(&armcii_ngrants);
    c->credit_waits = rd(&armcii_credit_waits);
    /* written by the helper thread; a torn read is impossible for an
     * aligned long, a slightly stale one does not matter between phases */
    c->srv_requests = rd(&armcii_srv_requests);
    c->srv_acks = rd(&armcii_srv_acks);
}

void ab_proto_sub(const struct ab_proto_ctrs *a, const struct ab_proto_ctrs *b,
                  struct ab_proto_ctrs *d)
{
    d->have = a->have && b->have;
    d->requests = a->requests - b->requests;
    d->grants = a->grants - b->grants;
    d->credit_waits = a->credit_waits - b->credit_waits;
    d->srv_requests = a->srv_requests - b->srv_requests;
    d->srv_acks = a->srv_acks - b->srv_acks;
}

void ab_proto_allsum(struct ab_proto_ctrs *c)
{
    long v[6] = {c->have, (long)c->requests, (long)c->grants, (long)c->credit_waits,
                 (long)c->srv_requests, (long)c->srv_acks};
    armci_msg_lgop(v, 6, "+");
    c->have = v[0] == armci_msg_nproc();
    c->requests = (unsigned long)v[1];
    c->grants = (unsigned long)v[2];
    c->credit_waits = (unsigned long)v[3];
    c->srv_requests = (unsigned long)v[4];
    c->srv_acks = (unsigned long)v[5];
}
