#include "procs.h"

#include <stdlib.h>

int procs_init(struct procs *ps, uint32_t nnodes, uint32_t nranks)
{
    uint32_t n = nnodes + nranks;
    uint32_t hsize = 16;
    while (hsize < 2 * n)
        hsize <<= 1;
    ps->v = calloc(n, sizeof *ps->v);
    ps->hash = calloc(hsize, sizeof *ps->hash);
    if (!ps->v || !ps->hash) {
        procs_free(ps);
        return -1;
    }
    ps->nnodes = nnodes;
    ps->nranks = nranks;
    ps->hmask = hsize - 1;
    ps->alive = ps->ranks_alive = 0;
    for (uint32_t i = 0; i < n; i++) {
        ps->v[i].kind = i < nnodes ? PROC_DAEMON : PROC_RANK;
        ps->v[i].idx = i < nnodes ? i : i - nnodes;
        ps->v[i].out = ps->v[i].err = -1;
    }
    return 0;
}

void procs_free(struct procs *ps)
{
    free(ps->v);
    free(ps->hash);
    ps->v = NULL;
    ps->hash = NULL;
}

struct proc *procs_daemon(struct procs *ps, uint32_t node)
{
    return &ps->v[node];
}

struct proc *procs_rank(struct procs *ps, uint32_t rank)
{
    return &ps->v[ps->nnodes + rank];
}

void procs_started(struct procs *ps, struct proc *p, pid_t pid)
{
    p->pid = pid;
    p->alive = true;
    ps->alive++;
    if (p->kind == PROC_RANK)
        ps->ranks_alive++;
    uint32_t h = (uint32_t)pid * 2654435761u;
    while (ps->hash[h & ps->hmask])
        h++;
    ps->hash[h & ps->hmask] = (int32_t)(p - ps->v) + 1;
}

struct proc *procs_find(struct procs *ps, pid_t pid)
{
    for (uint32_t h = (uint32_t)pid * 2654435761u;; h++) {
        int32_t s = ps->hash[h & ps->hmask];
        if (s == 0)
            return NULL;
        struct proc *p = &ps->v[s - 1];
        if (p->pid == pid && p->alive)
            return p;
    }
}

void procs_reaped(struct procs *ps, struct proc *p, int wstatus)
{
    p->alive = false;
    p->wstatus = wstatus;
    ps->alive--;
    if (p->kind == PROC_RANK)
        ps->ranks_alive--;
}
