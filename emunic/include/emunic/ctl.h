/* The channel between emunic-run and its NIC daemons, outside the job
 * segment: ranks neither map nor inherit any of it, so nothing here can be
 * changed by a rank's stray store.
 *
 * - The control block: a memfd the launcher writes and the daemons map
 *   read-only. It holds what a daemon must know about the job and cannot
 *   learn from the ranks themselves: each node's doorbell descriptor (as
 *   inherited by the daemons) and the pid of each process the launcher
 *   started as a rank, set once that rank is forked.
 * - The report pipe: a daemon writes one emu_ctl_report when it finds a
 *   rank's structures inconsistent and stops serving it; the launcher
 *   names that rank and ends it (or the job). */
#ifndef EMUNIC_CTL_H
#define EMUNIC_CTL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "emunic/cgroup.h"

#define EMU_CTL_MAGIC 0x656d756e6963746cull /* "emunictl" */

struct emu_ctl {
    uint64_t magic;
    uint32_t nnodes, nranks;
    char cgroup[EMU_CGROUP_PATH_MAX]; /* the job's cgroup (emunic/cgroup.h), "" if none */
    /* then: int32_t doorbell_fd[nnodes]; _Atomic int32_t rank_pid[nranks] */
};

static inline size_t emu_ctl_size(uint32_t nnodes, uint32_t nranks)
{
    return sizeof(struct emu_ctl) + sizeof(int32_t) * ((size_t)nnodes + nranks);
}

static inline int32_t *emu_ctl_doorbells(const struct emu_ctl *c)
{
    return (int32_t *)(void *)((char *)(uintptr_t)c + sizeof *c);
}

static inline _Atomic int32_t *emu_ctl_pids(const struct emu_ctl *c)
{
    return (_Atomic int32_t *)(void *)(emu_ctl_doorbells(c) + c->nnodes);
}

/* What a daemon found wrong with a rank. */
enum emu_ctl_what {
    EMU_CTL_CMDQ = 1, /* its command queue */
    EMU_CTL_CQ,       /* its completion queue */
    EMU_CTL_PROC,     /* its process entry (pid) */
    EMU_CTL_CQ_OVERFLOW, /* it leaves its completions untaken without bound */
};

/* How the daemon and the launcher say it: "rank R (node N) <verb> its
 * <what>: <detail>". */
static inline const char *emu_ctl_verb(uint32_t what)
{
    return what == EMU_CTL_CQ_OVERFLOW ? "overflowed" : "corrupted";
}

#define EMU_CTL_REPORT_MAGIC 0x72707274u /* "rprt" */

/* One record on the report pipe; far below PIPE_BUF, so the records of
 * several daemons never interleave. */
struct emu_ctl_report {
    uint32_t magic;
    uint32_t rank, node, what;
    char text[112]; /* NUL-terminated detail */
};

static inline const char *emu_ctl_what_name(uint32_t what)
{
    switch (what) {
    case EMU_CTL_CMDQ:
        return "command queue";
    case EMU_CTL_CQ:
        return "completion queue";
    case EMU_CTL_PROC:
        return "process entry";
    case EMU_CTL_CQ_OVERFLOW:
        return "completion queue";
    default:
        return "job entries";
    }
}

#endif
