/* The launcher's children: daemons in slots [0, nnodes), ranks after them.
 * A pid hash makes reaping O(1), which matters with a thousand ranks. */
#ifndef EMUNIC_RUN_PROCS_H
#define EMUNIC_RUN_PROCS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum proc_kind { PROC_DAEMON, PROC_RANK };

struct proc {
    pid_t pid;            /* 0 until started */
    bool alive;           /* started and not yet reaped */
    enum proc_kind kind;
    uint32_t idx;         /* node for a daemon, rank for a rank */
    int wstatus;
    int out, err;         /* relay stream indices, -1 when inherited */
};

struct procs {
    struct proc *v;
    uint32_t nnodes, nranks;
    uint32_t alive;       /* started and not reaped */
    uint32_t ranks_alive;
    int32_t *hash;        /* slot+1 by pid, 0 empty; open addressing */
    uint32_t hmask;
};

int procs_init(struct procs *ps, uint32_t nnodes, uint32_t nranks);
void procs_free(struct procs *ps);
struct proc *procs_daemon(struct procs *ps, uint32_t node);
struct proc *procs_rank(struct procs *ps, uint32_t rank);
void procs_started(struct procs *ps, struct proc *p, pid_t pid);
/* The live child with this pid, or NULL (an adopted orphan, say). */
struct proc *procs_find(struct procs *ps, pid_t pid);
void procs_reaped(struct procs *ps, struct proc *p, int wstatus);

#endif
