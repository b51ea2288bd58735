#include "handoff.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define MAXP 16
#define STALL_NS (60ll * 1000000000)

/* one futex word per process, each on its own cache line */
struct slot {
    _Alignas(64) _Atomic uint32_t go;
};

struct chain {
    struct slot s[MAXP];
    _Atomic uint32_t abort;
};

static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
    struct timespec ts = {1, 0};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, val, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void pass(struct chain *c, int to, enum handoff_wait how)
{
    atomic_fetch_add_explicit(&c->s[to].go, 1, memory_order_release);
    if (how == HANDOFF_FUTEX)
        futex_wake(&c->s[to].go);
}

/* Wait until our word moves past *seen. Returns 0, or -1 on stall/abort. */
static int await(struct chain *c, int me, uint32_t *seen, enum handoff_wait how)
{
    int64_t start = 0;
    for (unsigned spins = 0;; spins++) {
        uint32_t v = atomic_load_explicit(&c->s[me].go, memory_order_acquire);
        if (v != *seen) {
            *seen = v;
            return 0;
        }
        if (how == HANDOFF_FUTEX)
            futex_wait(&c->s[me].go, v);
        else
            sched_yield();
        if (how == HANDOFF_FUTEX || spins % 1024 == 1023) {
            if (atomic_load(&c->abort))
                return -1;
            int64_t now = bench_now_ns();
            if (!start)
                start = now;
            else if (now - start > STALL_NS)
                return -1;
        }
    }
}

static void child(struct chain *c, int me, int procs, long laps, enum handoff_wait how)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    uint32_t seen = 0;
    long receipts = me == procs - 1 ? laps : 2 * laps;
    for (long k = 0; k < receipts; k++) {
        if (await(c, me, &seen, how)) {
            atomic_store(&c->abort, 1);
            _exit(1);
        }
        /* the last process turns the token round; a middle one forwards
         * it on the way out and passes it back on the way home */
        int to = me == procs - 1 ? me - 1 : (k % 2 == 0 ? me + 1 : me - 1);
        pass(c, to, how);
    }
    _exit(0);
}

static void csw_now(double *v, double *iv)
{
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    *v = (double)a.ru_nvcsw + (double)b.ru_nvcsw;
    *iv = (double)a.ru_nivcsw + (double)b.ru_nivcsw;
}

int handoff_chain(int procs, enum handoff_wait how, long laps, long warm, double *samples,
                  struct handoff_csw *csw)
{
    if (procs < 2 || procs > MAXP || laps < 1 || warm < 0)
        return -1;
    double v0, iv0;
    csw_now(&v0, &iv0);
    struct chain *c = bench_shared_page(sizeof *c);
    long total = laps + warm;
    pid_t pids[MAXP];
    int n = 0, rc = 0;
    fflush(NULL); /* no buffered output duplicated into the children */
    for (int i = 1; i < procs; i++) {
        pid_t p = fork();
        if (p < 0) {
            perror("fork");
            atomic_store(&c->abort, 1);
            rc = -1;
            break;
        }
        if (p == 0)
            child(c, i, procs, total, how);
        pids[n++] = p;
    }
    uint32_t seen = 0;
    for (long lap = 0; rc == 0 && lap < total; lap++) {
        int64_t t0 = bench_now_ns();
        pass(c, 1, how);
        if (await(c, 0, &seen, how)) {
            atomic_store(&c->abort, 1);
            rc = -1;
            break;
        }
        int64_t t1 = bench_now_ns();
        if (lap >= warm)
            samples[lap - warm] = (double)(t1 - t0) / 1e3;
    }
    for (int i = 0; i < n; i++) {
        int st;
        while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            rc = -1;
    }
    munmap(c, sizeof *c);
    if (csw) {
        double v1, iv1;
        csw_now(&v1, &iv1);
        csw->vcsw = (v1 - v0) / (double)total;
        csw->ivcsw = (iv1 - iv0) / (double)total;
    }
    return rc;
}
