/* Portals 4 round trips (8 bytes, 2 ranks) next to the core's own
 * write-with-remote-completion round trip measured in the same run: the
 * personality's overhead over the NIC core.
 *   emunic-run -N 2 -n 1 --nic portals -- portals_lat [--iters N] [--sizes LIST]
 * --sizes runs only the put with a full ACK event, once per size (the
 * latency-against-size curve of bench/run_peers.sh --sweep). */
#include <getopt.h>
#include <portals4.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "emunic/emunic.h"

#define PT 8

static void ok(int rc, const char *what)
{
    if (rc != PTL_OK) {
        fprintf(stderr, "portals_lat: %s failed: %d\n", what, rc);
        exit(1);
    }
}

static uint64_t target_buf[64];
/* what the list entry exposes: target_buf, or with --sizes a buffer of the
 * largest size (private memory either way, as the peers' targets are) */
static void *le_start = target_buf;
static ptl_size_t le_len = sizeof target_buf;
static ptl_handle_ni_t ni;
static ptl_handle_md_t md_ct, md_ev, md_get;
static ptl_handle_ct_t ct_put, ct_get, ct_target;
/* --target-waits: rank 1 waits on a counter of its list entry as Sandia
 * OpenSHMEM's shmem_wait_until does (PtlCTGet, then PtlCTWait for one
 * more), woken by every operation, instead of sleeping in a barrier */
static int target_waits;
#define STOP_AT 63 /* target_buf element rank 0 sets to end the wait */
static ptl_handle_eq_t eq;
static ptl_process_t peer = {.rank = 1};
/* the core cases target the same private buffer the Portals LE exposes */
static struct {
    uint64_t addr;
    uint32_t key;
} core_target;

enum { C_CORE, C_CORE_READ, C_CORE_FADD, C_PUT_CT, C_PUT_ACK_EV, C_GET_CT, C_FADD_CT, C_COUNT };
static const char *const names[C_COUNT] = {"core_write_rcq", "core_read", "core_fetch_add", "ptl_put_ct_ack",
                                           "ptl_put_ack_event", "ptl_get_reply_ct", "ptl_fetch_add_ct"};
/* Which cases this binary runs: portals_lat all of them; the issue's
 * portals_put_lat / portals_get_lat / portals_atomic_lat are built from
 * this file with PORTALS_LAT_CASES set (each with its core baseline). */
#ifndef PORTALS_LAT_CASES
#define PORTALS_LAT_CASES 0x7f
#endif

/* the core operation each case is compared with */
static const int base_of[C_COUNT] = {C_CORE, C_CORE_READ, C_CORE_FADD, C_CORE, C_CORE, C_CORE_READ, C_CORE_FADD};

static void one(int c, uint64_t i, uint64_t *v)
{
    ptl_ct_event_t ce;
    ptl_event_t ev;
    struct emu_msg m;
    switch (c) {
    case C_CORE:
        if (emunic_write(1, core_target.key, core_target.addr, v, 8, EMU_F_REMOTE_CQ, i, 0) ||
            emunic_wait_cookie(i, &m) != 0) {
            fprintf(stderr, "portals_lat: core write failed\n");
            exit(1);
        }
        break;
    case C_CORE_READ:
    case C_CORE_FADD: {
        static const int64_t one_v = 1;
        int rc = c == C_CORE_READ
                     ? emunic_read(1, core_target.key, core_target.addr, v, 8, EMU_F_REMOTE_CQ, i)
                     : emunic_atomic(1, core_target.key, core_target.addr + 8, EMU_AOP_SUM, EMU_INT64, &one_v, 8,
                                     NULL, v, EMU_F_REMOTE_CQ, i);
        if (rc || emunic_wait_cookie(i, &m) != 0) {
            fprintf(stderr, "portals_lat: core %s failed\n", names[c]);
            exit(1);
        }
        break;
    }
    case C_PUT_CT:
        ok(PtlPut(md_ct, (ptl_size_t)(uintptr_t)v, 8, PTL_CT_ACK_REQ, peer, PT, 0, 0, NULL, 0), "PtlPut");
        ok(PtlCTWait(ct_put, i, &ce), "PtlCTWait");
        break;
    case C_PUT_ACK_EV:
        ok(PtlPut(md_ev, (ptl_size_t)(uintptr_t)v, 8, PTL_ACK_REQ, peer, PT, 0, 0, NULL, 0), "PtlPut");
        ok(PtlEQWait(eq, &ev), "PtlEQWait");
        if (ev.type != PTL_EVENT_ACK || ev.ni_fail_type != PTL_NI_OK) {
            fprintf(stderr, "portals_lat: event %d fail %d\n", ev.type, ev.ni_fail_type);
            exit(1);
        }
        break;
    case C_GET_CT:
        ok(PtlGet(md_get, (ptl_size_t)(uintptr_t)v, 8, peer, PT, 0, 0, NULL), "PtlGet");
        ok(PtlCTWait(ct_get, i, &ce), "PtlCTWait");
        break;
    case C_FADD_CT: {
        static const int64_t one_v = 1;
        ok(PtlFetchAtomic(md_get, (ptl_size_t)(uintptr_t)v, md_get, (ptl_size_t)(uintptr_t)&one_v, 8, peer, PT, 0,
                          8, NULL, 0, PTL_SUM, PTL_INT64_T), "PtlFetchAtomic");
        ok(PtlCTWait(ct_get, i, &ce), "PtlCTWait");
        break;
    }
    }
}

/* --sizes: PtlPut of each size with PTL_ACK_REQ until its ACK event, the
 * C_PUT_ACK_EV case at more sizes; rank 0 prints one row per size. */
static void size_sweep(const uint64_t *sizes, size_t nsizes, long iters, long warm, void *src)
{
    printf("case,size,iters,median_us,p10_us,p90_us,mean_us\n");
    double *t = malloc((size_t)iters * sizeof *t);
    if (!t) {
        fprintf(stderr, "portals_lat: out of memory\n");
        exit(1);
    }
    for (size_t z = 0; z < nsizes; z++) {
        for (long i = 0; i < warm + iters; i++) {
            ptl_event_t ev;
            int64_t t0 = bench_now_ns();
            ok(PtlPut(md_ev, (ptl_size_t)(uintptr_t)src, sizes[z], PTL_ACK_REQ, peer, PT, 0, 0, NULL, 0), "PtlPut");
            ok(PtlEQWait(eq, &ev), "PtlEQWait");
            if (ev.type != PTL_EVENT_ACK || ev.ni_fail_type != PTL_NI_OK || ev.mlength != sizes[z]) {
                fprintf(stderr, "portals_lat: size %llu: event %d fail %d mlength %llu\n",
                        (unsigned long long)sizes[z], ev.type, ev.ni_fail_type, (unsigned long long)ev.mlength);
                exit(1);
            }
            if (i >= warm)
                t[i - warm] = (double)(bench_now_ns() - t0) / 1000.0;
        }
        struct bench_stats s;
        bench_stats_of(t, (size_t)iters, &s);
        printf("%s,%llu,%ld,%.3f,%.3f,%.3f,%.3f\n", names[C_PUT_ACK_EV], (unsigned long long)sizes[z], iters, s.median,
               s.p10, s.p90, s.mean);
        fflush(stdout);
        fprintf(stderr, "portals_lat: %s %llu B median %.2f us\n", names[C_PUT_ACK_EV], (unsigned long long)sizes[z],
                s.median);
    }
    free(t);
}

static void setup(void)
{
    ok(PtlInit(), "PtlInit");
    ok(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni), "PtlNIInit");
    ptl_pt_index_t pt;
    ok(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt), "PtlPTAlloc");
    ptl_le_t le = {.start = le_start, .length = le_len, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_SUCCESS_DISABLE};
    if (target_waits) {
        ok(PtlCTAlloc(ni, &ct_target), "PtlCTAlloc");
        le.ct_handle = ct_target;
        le.options |= PTL_LE_EVENT_CT_COMM;
    }
    ptl_handle_le_t leh;
    ok(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh), "PtlLEAppend");
    ok(PtlCTAlloc(ni, &ct_put), "PtlCTAlloc");
    ok(PtlCTAlloc(ni, &ct_get), "PtlCTAlloc");
    ok(PtlEQAlloc(ni, 64, &eq), "PtlEQAlloc");
    ptl_md_t md = {.start = NULL, .length = PTL_SIZE_MAX, .options = PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_SUCCESS_DISABLE,
                   .eq_handle = PTL_EQ_NONE, .ct_handle = ct_put};
    ok(PtlMDBind(ni, &md, &md_ct), "PtlMDBind");
    md.options = PTL_MD_EVENT_SEND_DISABLE;
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE;
    ok(PtlMDBind(ni, &md, &md_ev), "PtlMDBind");
    md.options = PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_SUCCESS_DISABLE;
    md.eq_handle = PTL_EQ_NONE;
    md.ct_handle = ct_get;
    ok(PtlMDBind(ni, &md, &md_get), "PtlMDBind");
}

int main(int argc, char **argv)
{
    long iters = 20000, warm = 1000;
    uint64_t *sizes = NULL;
    size_t nsizes = 0;
    static const struct option opts[] = {{"iters", required_argument, 0, 'i'},
                                         {"sizes", required_argument, 0, 's'},
                                         {"target-waits", no_argument, 0, 'w'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'i') {
            iters = bench_parse_long("--iters", optarg, 10, 10000000);
        } else if (c == 'w') {
            target_waits = 1;
        } else if (c == 's') {
            if (bench_parse_sizes(optarg, &sizes, &nsizes) != 0 || nsizes == 0) {
                fprintf(stderr, "portals_lat: --sizes wants a list like 8,64,4K,1M or LO:HI, not '%s'\n", optarg);
                return 2;
            }
        } else {
            printf("usage: emunic-run -N 2 -n 1 --nic portals -- portals_lat [--iters N] [--target-waits]\n"
                   "       [--sizes LIST]\n"
                   "8-byte Portals round trips (put with counting ack, put with a full ACK\n"
                   "event, get, fetch-add) and the core's write round trip in the same run.\n"
                   "--target-waits: the target rank waits on its entry's counter (PtlCTGet +\n"
                   "PtlCTWait for one more, as Sandia OpenSHMEM's wait_until) instead of sleeping.\n"
                   "--sizes 8,64,4K,1M (or LO:HI): only the put with a full ACK event, at each\n"
                   "size; CSV case, size, iterations, median/p10/p90 us, mean us.\n"
                   "CSV on stdout: case, iterations, median/p10/p90 us, overhead vs core, mean us.\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (nsizes > 0 && target_waits) { /* the sweep has no stop message for a waiting target */
        fprintf(stderr, "portals_lat: --sizes and --target-waits do not go together\n");
        return 2;
    }
    if (emunic_init() != 0 || emunic_size() < 2) {
        fprintf(stderr, "portals_lat: run me as 2 ranks under emunic-run --nic portals\n");
        return 2;
    }
    /* rank 1 exposes target_buf to the core and leaves its address and key
     * in its first heap block (before Portals allocates EQs and CTs there),
     * where rank 0 reads them */
    uint64_t *info = emunic_malloc(64);
    void *src = NULL;
    if (nsizes > 0) {
        uint64_t max = 0;
        for (size_t z = 0; z < nsizes; z++)
            max = sizes[z] > max ? sizes[z] : max;
        le_len = max;
        le_start = bench_alloc_touched(max);
        src = bench_alloc_touched(max);
    }
    setup();
    int64_t key = emunic_expose(target_buf, sizeof target_buf, EMU_PERM_ALL);
    if (!info || key <= 0) {
        fprintf(stderr, "portals_lat: cannot expose the target buffer\n");
        return 1;
    }
    info[0] = (uint64_t)(uintptr_t)target_buf;
    info[1] = (uint64_t)key;
    emunic_barrier(); /* entries linked, info written */
    if (emunic_rank() == 0) {
        uint64_t got[2];
        struct emu_msg m;
        if (emunic_read(1, EMU_KEY_HEAP, emunic_heap_addr(1), got, sizeof got, EMU_F_REMOTE_CQ, 1) ||
            emunic_wait_cookie(1, &m) != 0) {
            fprintf(stderr, "portals_lat: cannot read rank 1's info\n");
            return 1;
        }
        core_target.addr = got[0];
        core_target.key = (uint32_t)got[1];
    }
    if (emunic_rank() == 0 && nsizes > 0) {
        bench_header(stdout, argc, argv);
        size_sweep(sizes, nsizes, iters, warm, src);
    } else if (emunic_rank() == 0) {
        bench_header(stdout, argc, argv);
        printf("case,iters,median_us,p10_us,p90_us,core_baseline,overhead_pct,mean_us\n");
        /* cases interleaved per iteration, so every case sees the same
         * mix of scheduling modes (round trips here are quantised by
         * context switches, docs/PERFORMANCE.md) */
        double *t = malloc((size_t)iters * C_COUNT * sizeof *t), med[C_COUNT];
        uint64_t v = 7;
        uint64_t count[C_COUNT] = {0};
        count[C_CORE] = 1; /* cookie 1 was the info read */
        for (long i = 0; i < warm + iters; i++)
            for (int k = 0; k < C_COUNT; k++) {
                if (!(PORTALS_LAT_CASES & (1u << k)))
                    continue;
                /* get and fetch-add complete on the same counter; the core
                 * cases share one cookie sequence */
                uint64_t *n = &count[k == C_FADD_CT ? C_GET_CT : k <= C_CORE_FADD ? C_CORE : k];
                int64_t t0 = bench_now_ns();
                one(k, ++*n, &v);
                if (i >= warm)
                    t[(size_t)k * iters + (i - warm)] = (double)(bench_now_ns() - t0) / 1000.0;
            }
        for (int k = 0; k < C_COUNT; k++) {
            if (!(PORTALS_LAT_CASES & (1u << k)))
                continue;
            struct bench_stats s;
            bench_stats_of(t + (size_t)k * iters, (size_t)iters, &s);
            med[k] = s.median;
            double base = med[base_of[k]];
            /* the mean too: clients that report total time / iterations
             * (Sandia OpenSHMEM's perf suite) compare with it */
            printf("%s,%ld,%.3f,%.3f,%.3f,%s,%.1f,%.3f\n", names[k], iters, s.median, s.p10, s.p90, names[base_of[k]],
                   100.0 * (s.median - base) / base, s.mean);
            fprintf(stderr, "portals_lat: %-18s median %.2f us (%+.1f%% vs %s)\n", names[k], s.median,
                    100.0 * (s.median - base) / base, names[base_of[k]]);
        }
        free(t);
        if (target_waits) {
            ptl_ct_event_t ce;
            ok(PtlPut(md_ct, (ptl_size_t)(uintptr_t)&(uint64_t){1}, 8, PTL_CT_ACK_REQ, peer, PT, 0, STOP_AT * 8, NULL,
                      0), "PtlPut");
            ok(PtlCTWait(ct_put, ++count[C_PUT_CT], &ce), "PtlCTWait");
        }
    } else if (target_waits) {
        _Atomic uint64_t *stop = (_Atomic uint64_t *)&target_buf[STOP_AT];
        ptl_ct_event_t ce;
        while (atomic_load(stop) != 1) {
            ok(PtlCTGet(ct_target, &ce), "PtlCTGet");
            if (atomic_load(stop) == 1)
                break;
            ok(PtlCTWait(ct_target, ce.success + ce.failure + 1, &ce), "PtlCTWait");
        }
    }
    emunic_barrier();
    PtlNIFini(ni);
    PtlFini();
    emunic_finalize();
    return 0;
}
