/* Clients: start-up and shut-down, the configuration attributes, clocks,
 * error text and extensions. A client is collective over the job, as on
 * BG/Q: creating one publishes this task's address space for RMA by
 * virtual address and waits for every task to do the same. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emunic/waiter.h"
#include "pami_lib.h"

struct pamil_state pamil = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .demux_mu = PTHREAD_MUTEX_INITIALIZER,
};

pami_client_t PAMI_CLIENT_NULL = NULL;

/* The clock PAMI_Wtimebase counts: BG/Q's 1.6 GHz core clock. */
#define CLOCK_MHZ 1600

/* ---- errors ---- */

static _Thread_local char last_error[256];

pami_result_t pamil_fail(pami_result_t rc, const char *fn, const char *fmt, ...)
{
    char buf[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(last_error, sizeof last_error, "%s: %s", fn, buf);
    if (emunic_initialized())
        fprintf(stderr, "emunic pami: task %u: %s\n", emunic_rank(), last_error);
    else /* no client: the task is not known, and 0 would name another */
        fprintf(stderr, "emunic pami: %s\n", last_error);
    return rc;
}

long pamil_env_long(const char *name, long lo, long hi, long dflt, const char *unit)
{
    const char *e = getenv(name);
    if (!e)
        return dflt;
    char *end;
    long v = strtol(e, &end, 10);
    if (end == e || *end || v < lo || v > hi) {
        fprintf(stderr, "emunic pami: %s=%s is not %ld..%ld %s; using the default\n", name, e, lo, hi, unit);
        return dflt;
    }
    return v;
}

pami_event_function pamil_event_fn(const char *fn, const char *field, pami_event_function f)
{
    enum { FIRST_MAPPABLE = 65536 };
    static atomic_flag warned = ATOMIC_FLAG_INIT; /* the first one says it; a loop would flood */
    if (!f || (uintptr_t)f >= FIRST_MAPPABLE)
        return f;
    if (!atomic_flag_test_and_set(&warned))
        fprintf(stderr, "emunic pami: task %u: %s: %s is %p, which cannot be code (left uninitialized?); "
                        "taken as NULL (said once)\n", emunic_initialized() ? emunic_rank() : 0, fn, field,
                (void *)(uintptr_t)f);
    return NULL;
}

void pamil_note(const char *fn, const char *what)
{
    snprintf(last_error, sizeof last_error, "%s: %s", fn, what);
}

pami_result_t pamil_post_result(const char *fn, int rc)
{
    if (rc == 0)
        return PAMI_SUCCESS;
    if (rc == -EPIPE)
        return pamil_fail(PAMI_SHUTDOWN, fn, "the node's NIC is gone or the job is ending");
    if (rc == -ENOMEM)
        return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
    return pamil_fail(PAMI_ERROR, fn, "the NIC refused the command (%s)", strerror(-rc));
}

pami_result_t pamil_status_result(unsigned st)
{
    switch (st) {
    case EMU_OK: return PAMI_SUCCESS;
    case EMU_E_INVAL:
    case EMU_E_ACCES:
    case EMU_E_NOKEY: return PAMI_INVAL;
    case EMU_E_NOTSUP: return PAMI_UNIMPL;
    case EMU_E_DEAD: return PAMI_SHUTDOWN;
    case EMU_E_LOST: return PAMI_ERROR; /* lost by the network (--unreliable) */
    default: return PAMI_ERROR;
    }
}

size_t PAMI_Error_text(char *string, size_t length)
{
    if (!string || !length)
        return 0;
    size_t n = strlen(last_error);
    if (n >= length)
        n = length - 1;
    memcpy(string, last_error, n);
    string[n] = 0;
    return n;
}

/* ---- handles ---- */

struct pamil_client *pamil_client_of(const char *fn, pami_client_t c)
{
    struct pamil_client *cl = c;
    if (!cl) {
        pamil_fail(PAMI_INVAL, fn, "the client is PAMI_CLIENT_NULL");
        return NULL;
    }
    for (unsigned i = 0; i < PAMIL_MAX_CLIENTS; i++)
        if (pamil.clients[i] == cl && cl->magic == PAMIL_CLIENT_MAGIC)
            return cl;
    pamil_fail(PAMI_INVAL, fn, "%p is not a live client", c);
    return NULL;
}

uint32_t pamil_space_key(const char *fn, uint32_t task)
{
    uint32_t k = emunic_space_key(task);
    if (!k)
        pamil_fail(PAMI_ERROR, fn, "task %u has no client (its memory cannot be addressed)", task);
    return k;
}

/* ---- create / destroy ---- */

pami_result_t PAMI_Client_create(const char *name, pami_client_t *client,
                                 pami_configuration_t configuration[], size_t num_configs)
{
    static const char fn[] = "PAMI_Client_create";
    if (!client)
        return pamil_fail(PAMI_INVAL, fn, "client is NULL");
    *client = PAMI_CLIENT_NULL;
    if (!name)
        return pamil_fail(PAMI_INVAL, fn, "name is NULL");
    if (num_configs && !configuration)
        return pamil_fail(PAMI_INVAL, fn, "%zu configurations but the array is NULL", num_configs);
    for (size_t i = 0; i < num_configs; i++)
        if (configuration[i].name != PAMI_CLIENT_NUM_CONTEXTS &&
            configuration[i].name != PAMI_CLIENT_CONST_CONTEXTS)
            return pamil_fail(PAMI_INVAL, fn, "attribute %d cannot be set at creation",
                              (int)configuration[i].name);
    int rc = emunic_init();
    if (rc == -ENOENT)
        return pamil_fail(PAMI_ERROR, fn, "not started by emunic-run (run: emunic-run -N nodes -n tasks --nic pami -- prog)");
    if (rc)
        return pamil_fail(PAMI_ERROR, fn, "cannot attach to the emulated NIC (%s)", strerror(-rc));
    pthread_mutex_lock(&pamil.mu);
    unsigned idx = PAMIL_MAX_CLIENTS;
    for (unsigned i = 0; i < PAMIL_MAX_CLIENTS; i++) {
        if (pamil.clients[i] && !strcmp(pamil.clients[i]->name, name)) {
            pthread_mutex_unlock(&pamil.mu);
            emunic_finalize();
            return pamil_fail(PAMI_INVAL, fn, "a client named '%s' exists already", name);
        }
        if (!pamil.clients[i] && idx == PAMIL_MAX_CLIENTS)
            idx = i;
    }
    struct pamil_client *cl = idx < PAMIL_MAX_CLIENTS ? calloc(1, sizeof *cl) : NULL;
    if (!cl) {
        pthread_mutex_unlock(&pamil.mu);
        emunic_finalize();
        return idx < PAMIL_MAX_CLIENTS ? pamil_fail(PAMI_ENOMEM, fn, "out of memory")
                                       : pamil_fail(PAMI_EAGAIN, fn, "at most %d clients", PAMIL_MAX_CLIENTS);
    }
    int64_t key = emunic_expose_space();
    if (key <= 0) {
        pthread_mutex_unlock(&pamil.mu);
        free(cl);
        emunic_finalize();
        return pamil_fail(PAMI_ERROR, fn, "cannot expose this task's memory (%s)", strerror((int)-key));
    }
    cl->magic = PAMIL_CLIENT_MAGIC;
    cl->index = idx;
    snprintf(cl->name, sizeof cl->name, "%s", name);
    cl->task = emunic_rank();
    cl->size = emunic_size();
    cl->space_key = (uint32_t)key;
    pamil.clients[idx] = cl;
    /* once: the budget reads the host's core count from /sys (~10 us) */
    pamil.poll_ns = emu_poll_budget_ns(emunic_size() + emunic_nnodes());
    if (!pamil.idle_sleep_ns) {
        const char *e = getenv("EMUNIC_PAMI_IDLE_SLEEP_US");
        pamil.idle_sleep_ns = e ? (int64_t)strtoll(e, NULL, 10) * 1000 : 1000000;
        if (pamil.idle_sleep_ns <= 0)
            pamil.idle_sleep_ns = -1;
    }
    pthread_mutex_unlock(&pamil.mu);
    pami_result_t r = pamil_coll_client_init(cl);
    if (r != PAMI_SUCCESS) {
        pthread_mutex_lock(&pamil.mu);
        pamil.clients[idx] = NULL;
        pthread_mutex_unlock(&pamil.mu);
        free(cl);
        emunic_finalize();
        return r;
    }
    /* every task's memory is addressable before anyone returns */
    if (emunic_barrier() != 0)
        return pamil_fail(PAMI_ERROR, fn, "the job is ending");
    *client = cl;
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Client_destroy(pami_client_t *client)
{
    static const char fn[] = "PAMI_Client_destroy";
    if (!client)
        return pamil_fail(PAMI_INVAL, fn, "client is NULL");
    struct pamil_client *cl = pamil_client_of(fn, *client);
    if (!cl)
        return PAMI_INVAL;
    pthread_mutex_lock(&pamil.demux_mu); /* destroyv changes the count under it */
    int left = cl->contexts_created;
    pthread_mutex_unlock(&pamil.demux_mu);
    if (left)
        return pamil_fail(PAMI_INVAL, fn, "destroy the client's %d contexts first (PAMI_Context_destroyv)", left);
    pamil_coll_client_fini(cl);
    pamil_context_bury(cl);
    pthread_mutex_lock(&pamil.mu);
    pamil.clients[cl->index] = NULL;
    pthread_mutex_unlock(&pamil.mu);
    cl->magic = 0;
    free(cl);
    *client = PAMI_CLIENT_NULL;
    emunic_finalize();
    return PAMI_SUCCESS;
}

/* ---- attributes ---- */

/* Hardware threads of the emulated node: the host's cores, or
 * EMUNIC_PAMI_HWTHREADS (a bigger node, as a BG/Q node's 64, for programs
 * that insist on helper threads; they time-share the host's cores). */
static size_t node_hwthreads(void)
{
    long v = pamil_env_long("EMUNIC_PAMI_HWTHREADS", 1, 1024, 0, "hardware threads");
    if (v)
        return (size_t)v;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

pami_result_t pamil_attr_query(const char *fn, struct pamil_client *cl, pami_configuration_t *a)
{
    static size_t *local_tasks;
    static char procname[64];
    switch (a->name) {
    case PAMI_CLIENT_CLOCK_MHZ:
    case PAMI_CLIENT_WTIMEBASE_MHZ:
        a->value.intval = CLOCK_MHZ;
        break;
    case PAMI_CLIENT_CONST_CONTEXTS:
        a->value.intval = 1; /* every task gets the contexts it asks for */
        break;
    case PAMI_CLIENT_HWTHREADS_AVAILABLE: {
        size_t per = node_hwthreads() / emunic_local_size();
        a->value.intval = per ? per : 1;
        break;
    }
    case PAMI_CLIENT_MEMREGION_SIZE:
        a->value.intval = sizeof(pami_memregion_t);
        break;
    case PAMI_CLIENT_MEM_SIZE: { /* megabytes this task may use */
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        size_t mb = pages > 0 && psz > 0 ? (size_t)pages / 1024 * (size_t)psz / 1024 : 1024;
        a->value.intval = mb / emunic_local_size();
        break;
    }
    case PAMI_CLIENT_NUM_TASKS:
        a->value.intval = cl->size;
        break;
    case PAMI_CLIENT_NUM_LOCAL_TASKS:
        a->value.intval = emunic_local_size();
        break;
    case PAMI_CLIENT_LOCAL_TASKS: {
        pthread_mutex_lock(&pamil.mu);
        if (!local_tasks) {
            uint32_t n = emunic_local_size(), first = emunic_rank() - emunic_local_rank();
            local_tasks = calloc(n, sizeof *local_tasks);
            for (uint32_t i = 0; local_tasks && i < n; i++)
                local_tasks[i] = first + i;
        }
        pthread_mutex_unlock(&pamil.mu);
        if (!local_tasks)
            return pamil_fail(PAMI_ENOMEM, fn, "out of memory");
        a->value.intarray = local_tasks;
        break;
    }
    case PAMI_CLIENT_NUM_CONTEXTS:
        a->value.intval = PAMIL_MAX_CONTEXTS;
        break;
    case PAMI_CLIENT_PROCESSOR_NAME:
        snprintf(procname, sizeof procname, "emunic-node%u-task%u", emunic_node(), cl->task);
        a->value.chararray = procname;
        break;
    case PAMI_CLIENT_TASK_ID:
        a->value.intval = cl->task;
        break;
    case PAMI_CLIENT_WTICK:
        a->value.doubleval = 1.0 / (CLOCK_MHZ * 1e6);
        break;
    case PAMI_CONTEXT_DISPATCH_ID_MAX:
        a->value.intval = PAMIL_DISPATCH_MAX - 1;
        break;
    case PAMI_DISPATCH_RECV_IMMEDIATE_MAX:
        a->value.intval = PAMIL_RECV_IMMEDIATE_MAX;
        break;
    case PAMI_DISPATCH_SEND_IMMEDIATE_MAX:
        a->value.intval = PAMIL_SEND_IMMEDIATE_MAX;
        break;
    case PAMI_DISPATCH_ATOM_SIZE_MAX:
        a->value.intval = 8;
        break;
    default:
        return pamil_fail(PAMI_INVAL, fn, "attribute %d cannot be queried here", (int)a->name);
    }
    return PAMI_SUCCESS;
}

pami_result_t pamil_attr_query_all(const char *fn, struct pamil_client *cl, pami_configuration_t cfg[], size_t n)
{
    if (n && !cfg)
        return pamil_fail(PAMI_INVAL, fn, "%zu configurations but the array is NULL", n);
    pami_result_t rc = PAMI_SUCCESS;
    for (size_t i = 0; i < n; i++)
        if (pamil_attr_query(fn, cl, &cfg[i]) != PAMI_SUCCESS)
            rc = PAMI_INVAL; /* the others are still answered */
    return rc;
}

pami_result_t pamil_attr_update_none(const char *fn, const pami_configuration_t cfg[], size_t n)
{
    if (n && !cfg)
        return pamil_fail(PAMI_INVAL, fn, "%zu configurations but the array is NULL", n);
    if (n)
        return pamil_fail(PAMI_INVAL, fn, "attribute %d is read-only", (int)cfg[0].name);
    return PAMI_SUCCESS;
}

pami_result_t PAMI_Client_query(pami_client_t client, pami_configuration_t configuration[],
                                size_t num_configs)
{
    struct pamil_client *cl = pamil_client_of("PAMI_Client_query", client);
    if (!cl)
        return PAMI_INVAL;
    return pamil_attr_query_all("PAMI_Client_query", cl, configuration, num_configs);
}

pami_result_t PAMI_Client_update(pami_client_t client, pami_configuration_t configuration[],
                                 size_t num_configs)
{
    if (!pamil_client_of("PAMI_Client_update", client))
        return PAMI_INVAL;
    return pamil_attr_update_none("PAMI_Client_update", configuration, num_configs);
}

/* ---- time ---- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double PAMI_Wtime(pami_client_t client)
{
    (void)client; /* one clock for every client, as on BG/Q */
    return (double)mono_ns() * 1e-9;
}

unsigned long long PAMI_Wtimebase(pami_client_t client)
{
    (void)client;
    return (unsigned long long)mono_ns() * CLOCK_MHZ / 1000;
}

double PAMI_Wtick(pami_client_t client)
{
    (void)client;
    return 1.0 / (CLOCK_MHZ * 1e6);
}

