/* How the launcher reacts: children ending, signals, the timeout, and the
 * start-up sequence (daemons ready -> ranks). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "emunic/waiter.h"
#include "io.h"
#include "launcher.h"
#include "msg.h"
#include "status.h"

#define TICK_MAX_NS (10ll * 1000000)

static void note_failure(struct launcher *L, int code)
{
    if (L->first_failure < 0)
        L->first_failure = code;
}

static void rank_ended(struct launcher *L, struct proc *p, int st)
{
    uint32_t r = p->idx;
    if (r == 0) /* nobody left to read the forwarded stdin */
        fwd_stop(L->fwd);
    bool live_phase = L->phase == PH_RUNNING;
    /* a rank a daemon named is already reported (ctl.c), and we ended it */
    if (!status_ok(st) && live_phase && !(L->culprit && L->culprit[r])) {
        char how[96];
        status_describe(st, how, sizeof how);
        msg("rank %u (node %u) %s", r, r / L->o->rpn, how);
        note_failure(L, status_code(st));
        if (!L->o->keep_going)
            td_begin(L, -1);
    }
    if (L->procs.ranks_alive == 0 && L->phase == PH_RUNNING)
        td_stop_daemons(L);
}

static void daemon_ended(struct launcher *L, struct proc *p, int st)
{
    if (L->phase != PH_STARTING && L->phase != PH_RUNNING)
        return; /* we asked it to stop */
    char how[96];
    status_describe(st, how, sizeof how);
    msg("NIC daemon of node %u died (%s)%s", p->idx, how,
        L->phase == PH_STARTING ? " during start-up" : "");
    note_failure(L, WIFSIGNALED(st) ? status_code(st) : 1);
    /* without its daemon a node cannot start, whatever --keep-going says */
    if (!L->o->keep_going || L->phase == PH_STARTING)
        td_begin(L, -1);
}

void sv_reap(struct launcher *L)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        struct proc *p = procs_find(&L->procs, pid);
        if (!p)
            continue; /* an orphan we adopted as subreaper */
        procs_reaped(&L->procs, p, st);
        /* the writer is dead, so whatever it wrote is in the pipe now */
        if (p->out >= 0)
            relay_drain(&L->relay, (uint32_t)p->out);
        if (p->err >= 0)
            relay_drain(&L->relay, (uint32_t)p->err);
        if (p->kind == PROC_RANK) {
            /* NICs refuse work for a rank that is gone (EMU_E_DEAD) */
            if (L->job_made)
                atomic_store(&L->job.ranks[p->idx].state, EMU_RANK_GONE);
            /* an abort the rank sent just before exiting comes first */
            if (L->pmi)
                pmi_drain(L->pmi, p->idx);
            rank_ended(L, p, st);
            if (L->pmi)
                pmi_gone(L->pmi, p->idx);
        }
        else
            daemon_ended(L, p, st);
    }
}

/* A signal sent to our process group reaches an --isolate relay, which
 * passes on a marked copy, and us: copies sent to us and copies the relay
 * passed on are counted apart, and only a second one of the same kind, or
 * any signal in a teardown that no signal began, asks again. */
void sv_signal(struct launcher *L, int sig, bool relayed)
{
    unsigned *copies = relayed ? &L->sigs_relayed : &L->sigs_direct;
    ++*copies;
    if (L->phase == PH_TEARDOWN || L->phase == PH_STOPPING) {
        /* asked again: skip the grace period */
        if (L->kills_sent == 0 && (!L->stopped_by_signal || *copies >= 2))
            td_grace_expired(L);
        return;
    }
    L->stopped_by_signal = true;
    msg("caught SIG%s, stopping the job", sigabbrev_np(sig));
    td_begin(L, 128 + sig);
}

void sv_timeout(struct launcher *L)
{
    if (L->phase != PH_STARTING && L->phase != PH_RUNNING)
        return;
    msg("timeout after %.10g s", L->o->timeout_s);
    td_begin(L, 124);
}

static void start_ranks(struct launcher *L)
{
    for (uint32_t r = 0; r < L->nranks; r++)
        if (spawn_rank(L, r) < 0) {
            sv_start_failed(L);
            return;
        }
    L->phase = PH_RUNNING;
    L->t_launched = emu_now_ns();
    if (L->o->verbose)
        report_started(L);
    fwd_start(L->fwd);
}

void sv_tick(struct launcher *L)
{
    if (L->phase != PH_STARTING)
        return;
    uint32_t waiting = L->o->nnodes;
    for (uint32_t i = 0; i < L->o->nnodes; i++)
        if (atomic_load(&L->job.nodes[i].ready) == 1)
            waiting--;
        else
            break;
    if (waiting == 0) {
        start_ranks(L);
        return;
    }
    if (emu_now_ns() > L->ready_deadline) {
        msg("NIC daemons not ready after %d s (node %u is not)",
            READY_LIMIT_S, L->o->nnodes - waiting);
        sv_start_failed(L);
        return;
    }
    /* back off: daemons start within milliseconds, but never spin */
    if (L->tick_ns < TICK_MAX_NS)
        L->tick_ns *= 2;
    io_arm(L->tfd_tick, L->tick_ns);
}

void sv_fail(struct launcher *L, int code)
{
    note_failure(L, code);
    td_begin(L, -1);
}

void sv_start_failed(struct launcher *L)
{
    note_failure(L, 1);
    td_begin(L, -1);
}
