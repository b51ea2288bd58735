/* One application thread in the runtime at a time. GA's threaded tests
 * (and any MPI_THREAD_MULTIPLE program) call ARMCI from several threads
 * at once; the core's request, channel and collective state is not built
 * for that, so every public entry point takes one lock, re-entrantly (a
 * public call may make others). A thread waiting in progress lets the lock
 * go to a thread that wants it, so one thread's wait never stalls the
 * others' issue. The helper thread never takes it: it has its own
 * context and state. */
#ifndef ARMCII_SERIAL_H
#define ARMCII_SERIAL_H

void armcii_serial_enter(void);
void armcii_serial_leave(int *unused);
/* The data server's half of an ordering no sanitizer can see: a request
 * the helper thread executes was sent after this rank's application made
 * its last runtime call (a barrier, a fence), but the news travelled
 * through the NIC, another process. Leaving the runtime releases a
 * counter; the server acquires it before each request (the mirror of
 * armcii_server_sync). Costs one atomic per call and per request. */
void armcii_serial_observe(void);

/* Threads waiting to enter: progress blocks for less while any do. */
int armcii_serial_wanted(void);
/* Called by a thread that waits: lets a waiting thread in, then returns
 * with the lock held again at the same depth. */
void armcii_serial_yield(void);

/* First statement of a public function: held until the function returns. */
#define ARMCII_SERIAL                                                            \
    int armcii_serial_scope_ __attribute__((cleanup(armcii_serial_leave), unused)) = \
        (armcii_serial_enter(), 0)
#endif
