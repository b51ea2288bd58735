/* Resource-exhaustion faults as Portals reports them (docs/faults.md):
 *
 *   fault_res reg N      N rounds of PtlMDBind, PtlLEAppend and
 *                        emunic_expose on every rank; prints
 *                        "res: rank R ok K refused F seq BITS" (BITS: 1 for
 *                        each refusal, in order), for regfail plans
 *   fault_res eq T0 T1   two ranks; the plan must be eqfull=1@T0+(T1-T0),
 *                        rank=r1 (seconds of job time): checks, inside the
 *                        window, that rank 1's PtlEQAlloc/PtlCTAlloc fail
 *                        with PTL_NO_SPACE, that puts to a flow-controlled
 *                        PT disable it (initiator: PTL_NI_PT_DISABLED,
 *                        target: one PTL_EVENT_PT_DISABLED) and that puts
 *                        to a plain PT land with their events dropped; after
 *                        it, that the next event reports PTL_EQ_DROPPED and
 *                        allocation works again. Prints "res: eq ok".
 *
 * Every result is checked exactly: a refusal must be PTL_NO_SPACE (or
 * -ENOMEM from the core), never another error, and bad arguments stay
 * PTL_ARG_INVALID under the plan. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emunic/emunic.h"
#include "emunic/job.h"
#include "portals4.h"

#define DIE(...)                                                                    \
    do {                                                                            \
        fprintf(stderr, "FAIL fault_res rank %u: ", emunic_rank());                \
        fprintf(stderr, __VA_ARGS__);                                               \
        fputc('\n', stderr);                                                        \
        exit(1);                                                                    \
    } while (0)
#define EXPECT(call, want)                                                          \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != (want))                                                          \
            DIE("%s returned %d, expected %d", #call, rc_, (int)(want));            \
    } while (0)
#define OK(call) EXPECT(call, PTL_OK)

static ptl_handle_ni_t ni;

static void barrier(void)
{
    if (emunic_barrier())
        DIE("barrier");
}

static ptl_le_t le_of(void *buf, size_t len, unsigned options)
{
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = buf;
    le.length = len;
    le.ct_handle = PTL_CT_NONE;
    le.uid = PTL_UID_ANY;
    le.options = options;
    return le;
}

/* ---- regfail ---- */

static int reg_mode(unsigned rounds)
{
    static char mem[4096];
    char *seq = calloc(3 * (size_t)rounds + 1, 1);
    if (!seq)
        DIE("out of memory");
    ptl_pt_index_t pt;
    OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &pt));
    unsigned ok = 0, refused = 0, k = 0;
    ptl_md_t d;
    memset(&d, 0, sizeof d);
    d.start = mem;
    d.length = sizeof mem;
    d.eq_handle = PTL_EQ_NONE;
    d.ct_handle = PTL_CT_NONE;
    /* a bad call is refused for its arguments, plan or not */
    EXPECT(PtlMDBind(ni, &d, NULL), PTL_ARG_INVALID);
    for (unsigned r = 0; r < rounds; r++) {
        ptl_handle_md_t md;
        int rc = PtlMDBind(ni, &d, &md);
        if (rc != PTL_OK && rc != PTL_NO_SPACE)
            DIE("PtlMDBind returned %d", rc);
        if (rc == PTL_OK)
            OK(PtlMDRelease(md));
        seq[k++] = rc == PTL_OK ? '0' : '1';

        ptl_le_t le = le_of(mem, sizeof mem, PTL_LE_OP_PUT);
        ptl_handle_le_t leh;
        rc = PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh);
        if (rc != PTL_OK && rc != PTL_NO_SPACE)
            DIE("PtlLEAppend returned %d", rc);
        if (rc == PTL_OK)
            OK(PtlLEUnlink(leh));
        seq[k++] = rc == PTL_OK ? '0' : '1';

        int64_t key = emunic_expose(mem, sizeof mem, EMU_PERM_READ);
        if (key <= 0 && key != -ENOMEM)
            DIE("emunic_expose returned %lld", (long long)key);
        if (key > 0 && emunic_unexpose((uint32_t)key))
            DIE("emunic_unexpose");
        seq[k++] = key > 0 ? '0' : '1';
    }
    for (unsigned i = 0; i < k; i++)
        seq[i] == '1' ? refused++ : ok++;
    printf("res: rank %u ok %u refused %u seq %s\n", emunic_rank(), ok, refused, seq);
    free(seq);
    barrier();
    return 0;
}

/* ---- eqfull ---- */

static int64_t job_start_ns;

static double job_time(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - job_start_ns) / 1e9;
}

static void sleep_until(double t)
{
    double left;
    while ((left = t - job_time()) > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* Rank 0: put 8 bytes to rank 1's pt; the ACK event's ni_fail_type. */
static int put_acked(ptl_handle_md_t md, ptl_handle_eq_t eq, ptl_pt_index_t pt, uint64_t off)
{
    ptl_process_t to = {.rank = 1};
    OK(PtlPut(md, 0, 8, PTL_ACK_REQ, to, pt, 0, off, (void *)(uintptr_t)(off + 1), 0));
    ptl_event_t ev;
    OK(PtlEQWait(eq, &ev));
    if (ev.type != PTL_EVENT_ACK || ev.user_ptr != (void *)(uintptr_t)(off + 1))
        DIE("expected the ACK of the put at %llu, got type %d", (unsigned long long)off, (int)ev.type);
    return (int)ev.ni_fail_type;
}

static int eq_mode(double t0, double t1)
{
    struct emu_job job;
    if (emu_job_attach(&job, emunic_jobid()) != 0)
        DIE("cannot attach the job");
    job_start_ns = emu_job_netcfg(&job)->start_ns;
    emu_job_detach(&job);
    uint32_t me = emunic_rank();
    if (emunic_size() != 2)
        DIE("eq mode needs 2 ranks");
    static uint64_t flow_buf[8], plain_buf[8], src;
    ptl_handle_eq_t eq_flow = PTL_EQ_NONE, eq_plain = PTL_EQ_NONE, eq_ack = PTL_EQ_NONE;
    ptl_pt_index_t pt_flow = 0, pt_plain = 1;
    ptl_handle_md_t md;
    /* everything is allocated before the window opens */
    if (job_time() > t0 - 0.2)
        DIE("set-up reached the window (job time %.2f s, window at %.2f s)", job_time(), t0);
    if (me == 1) {
        OK(PtlEQAlloc(ni, 16, &eq_flow));
        OK(PtlEQAlloc(ni, 16, &eq_plain));
        OK(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, eq_flow, pt_flow, &pt_flow));
        OK(PtlPTAlloc(ni, 0, eq_plain, pt_plain, &pt_plain));
        unsigned opt = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE;
        ptl_le_t a = le_of(flow_buf, sizeof flow_buf, opt), b = le_of(plain_buf, sizeof plain_buf, opt);
        ptl_handle_le_t h;
        OK(PtlLEAppend(ni, pt_flow, &a, PTL_PRIORITY_LIST, NULL, &h));
        OK(PtlLEAppend(ni, pt_plain, &b, PTL_PRIORITY_LIST, NULL, &h));
    } else {
        OK(PtlEQAlloc(ni, 64, &eq_ack));
        ptl_md_t d;
        memset(&d, 0, sizeof d);
        d.start = &src;
        d.length = sizeof src;
        d.options = PTL_MD_EVENT_SEND_DISABLE;
        d.eq_handle = eq_ack;
        d.ct_handle = PTL_CT_NONE;
        OK(PtlMDBind(ni, &d, &md));
    }
    barrier();
    sleep_until(t0 + 0.2);
    if (job_time() > t1 - 0.5)
        DIE("woke too late for the window (job time %.2f s)", job_time());

    /* inside the window: allocations refused on rank 1 only */
    ptl_handle_eq_t e;
    ptl_handle_ct_t c;
    if (me == 1) {
        EXPECT(PtlEQAlloc(ni, 16, &e), PTL_NO_SPACE);
        EXPECT(PtlCTAlloc(ni, &c), PTL_NO_SPACE);
        EXPECT(PtlEQAlloc(ni, 0, &e), PTL_ARG_INVALID);
    } else {
        OK(PtlEQAlloc(ni, 16, &e));
        OK(PtlEQFree(e));
    }
    barrier();
    if (me == 0) {
        for (uint64_t i = 0; i < 4; i++) {
            src = 0x5a5a000000000000ull | i;
            int f = put_acked(md, eq_ack, pt_plain, i * 8);
            if (f != PTL_NI_OK)
                DIE("plain put %llu: ni_fail_type %d, expected PTL_NI_OK", (unsigned long long)i, f);
        }
        for (uint64_t i = 0; i < 4; i++) {
            int f = put_acked(md, eq_ack, pt_flow, i * 8);
            if (f != PTL_NI_PT_DISABLED)
                DIE("flow-controlled put %llu: ni_fail_type %d, expected PTL_NI_PT_DISABLED",
                    (unsigned long long)i, f);
        }
    }
    barrier();
    ptl_event_t ev;
    if (me == 1) {
        for (uint64_t i = 0; i < 4; i++)
            if (plain_buf[i] != (0x5a5a000000000000ull | i))
                DIE("plain put %llu did not land (0x%llx)", (unsigned long long)i,
                    (unsigned long long)plain_buf[i]);
        for (int i = 0; i < 8; i++)
            if (flow_buf[i])
                DIE("a put to the disabled PT wrote its buffer");
        OK(PtlEQGet(eq_flow, &ev));
        if (ev.type != PTL_EVENT_PT_DISABLED || ev.pt_index != pt_flow || ev.ni_fail_type != PTL_NI_PT_DISABLED)
            DIE("expected PT_DISABLED on pt %u, got type %d pt %u fail %d", pt_flow, (int)ev.type,
                ev.pt_index, (int)ev.ni_fail_type);
        EXPECT(PtlEQGet(eq_flow, &ev), PTL_EQ_EMPTY);
        EXPECT(PtlEQGet(eq_plain, &ev), PTL_EQ_EMPTY); /* the PUT events were dropped */
    }

    /* after the window */
    sleep_until(t1 + 0.2);
    barrier();
    if (me == 1) {
        OK(PtlEQAlloc(ni, 16, &e));
        OK(PtlCTAlloc(ni, &c));
        OK(PtlPTEnable(ni, pt_flow));
    }
    barrier();
    if (me == 0) {
        src = 77;
        if (put_acked(md, eq_ack, pt_plain, 32) != PTL_NI_OK || put_acked(md, eq_ack, pt_flow, 0) != PTL_NI_OK)
            DIE("puts after the window failed");
    }
    barrier();
    if (me == 1) {
        EXPECT(PtlEQGet(eq_plain, &ev), PTL_EQ_DROPPED); /* the event, and the news of the lost ones */
        if (ev.type != PTL_EVENT_PUT || ev.remote_offset != 32 || ev.mlength != 8)
            DIE("after the window: type %d offset %llu", (int)ev.type, (unsigned long long)ev.remote_offset);
        OK(PtlEQGet(eq_flow, &ev));
        if (ev.type != PTL_EVENT_PUT || flow_buf[0] != 77)
            DIE("re-enabled PT: type %d data %llu", (int)ev.type, (unsigned long long)flow_buf[0]);
        printf("res: eq ok\n");
    }
    barrier();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fault_res reg N | eq T0 T1\n");
        return 2;
    }
    OK(PtlInit());
    OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    int rc;
    if (!strcmp(argv[1], "reg") && argc == 3)
        rc = reg_mode((unsigned)atoi(argv[2]));
    else if (!strcmp(argv[1], "eq") && argc == 4)
        rc = eq_mode(atof(argv[2]), atof(argv[3]));
    else
        DIE("bad arguments");
    PtlNIFini(ni);
    PtlFini();
    return rc;
}
