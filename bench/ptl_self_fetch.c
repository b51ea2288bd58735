/* Whether a PtlFetchAtomic to the initiator itself has landed after the
 * initiator slept 10 ms instead of waiting for its event: the Portals 4
 * reference's sfw atomic cases do exactly that, so they count on the NIC
 * finishing within 10 ms whatever else the host runs.
 * bench/run_foreign_load.sh runs this beside CPU hogs.
 *   emunic-run -N 1 -n 1 --nic portals -- ptl_self_fetch [--iters N] [--gap-us U]
 * Each iteration makes two fetch-adds of 1 on a 4-byte entry (private
 * malloc memory, as ptl_test's). The first is waited for (PtlEQWait), so
 * the daemon has just worked, as after ptl_test's set-up calls. After
 * 0..U us (pseudo-random, so the daemon is met polling and asleep) the
 * second is posted; the rank sleeps 10 ms, looks at the fetched bytes (a
 * miss if they are not there yet), then looks every 50 us (nanosleep, no
 * library call) until they hold the expected count, and takes both
 * events. The time is from the post to the look that saw the bytes, so it
 * includes the rank's own wake-up.
 * CSV on stdout: case, iters, median/p90/p99/max us, misses after 10 ms. */
#include <getopt.h>
#include <portals4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define PT 5
#define SFW_SLEEP_NS 10000000     /* the sfw cases' <msleep count="10"/> */
#define LAND_LIMIT_NS 10000000000ll /* nothing after 10 s: the NIC lost it */

static void ok(int rc, const char *what)
{
    if (rc != PTL_OK) {
        fprintf(stderr, "ptl_self_fetch: %s failed: %d\n", what, rc);
        exit(1);
    }
}

static void nap_ns(long ns)
{
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    nanosleep(&ts, NULL);
}

/* both events of one fetch (SEND on the operand's MD, REPLY on the
 * result's), field by field */
static void take_events(ptl_handle_eq_t eq, uint32_t *got, uint32_t *src)
{
    int send = 0, reply = 0;
    while (!(send && reply)) {
        ptl_event_t ev;
        ok(PtlEQWait(eq, &ev), "PtlEQWait");
        if (ev.ni_fail_type != PTL_NI_OK) {
            fprintf(stderr, "ptl_self_fetch: event %d failed: %d\n", ev.type, ev.ni_fail_type);
            exit(1);
        }
        if (ev.type == PTL_EVENT_SEND && ev.start == src)
            send++;
        else if (ev.type == PTL_EVENT_REPLY && ev.start == got && ev.mlength == 4)
            reply++;
        else {
            fprintf(stderr, "ptl_self_fetch: unexpected event %d (start %p, mlength %lu)\n", ev.type, ev.start,
                    (unsigned long)ev.mlength);
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    long iters = 300, gap_us = 1000;
    static const struct option opts[] = {
        {"iters", required_argument, 0, 'i'}, {"gap-us", required_argument, 0, 'g'}, {"help", no_argument, 0, 'h'}, {0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'i')
            iters = bench_parse_long("--iters", optarg, 1, 1000000);
        else if (c == 'g')
            gap_us = bench_parse_long("--gap-us", optarg, 1, 1000000);
        else {
            printf("usage: emunic-run -N 1 -n 1 --nic portals -- ptl_self_fetch [--iters N] [--gap-us U]\n"
                   "Whether a PtlFetchAtomic to the rank itself has landed after the rank slept\n"
                   "10 ms (as the Portals 4 reference's sfw cases), and when it landed (looking\n"
                   "every 50 us); U: the most it sleeps before posting (1000).\n"
                   "CSV on stdout: case, iters, median/p90/p99/max us, misses after 10 ms.\n");
            return c == 'h' ? 0 : 2;
        }
    }
    ptl_handle_ni_t ni;
    ptl_process_t me;
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    ok(PtlInit(), "PtlInit");
    ok(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni), "PtlNIInit");
    ok(PtlGetPhysId(ni, &me), "PtlGetPhysId");
    ok(PtlEQAlloc(ni, 64, &eq), "PtlEQAlloc");
    ok(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt), "PtlPTAlloc");
    uint32_t *entry = calloc(1, sizeof *entry), *src = malloc(sizeof *src);
    volatile uint32_t *got = malloc(sizeof *got);
    double *us = malloc(iters * sizeof *us);
    if (!entry || !src || !got || !us)
        return 1;
    *src = 1;
    ptl_le_t le = {.start = entry, .length = sizeof *entry, .ct_handle = PTL_CT_NONE, .uid = PTL_UID_ANY,
                   .options = PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_EVENT_SUCCESS_DISABLE};
    ptl_handle_le_t leh;
    ok(PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &leh), "PtlLEAppend");
    ptl_md_t mds = {.start = src, .length = sizeof *src, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_md_t mdg = {.start = (void *)got, .length = sizeof *got, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t hs, hg;
    ok(PtlMDBind(ni, &mds, &hs), "PtlMDBind");
    ok(PtlMDBind(ni, &mdg, &hg), "PtlMDBind");
    bench_header(stdout, argc, argv);
    unsigned seed = 12345;
    long missed = 0;
    for (long i = 0; i < iters; i++) {
        /* a fetch waited for: the daemon has just worked and now polls */
        ok(PtlFetchAtomic(hg, 0, hs, 0, 4, me, pt, 0, 0, NULL, 0, PTL_SUM, PTL_UINT32_T), "PtlFetchAtomic");
        take_events(eq, (uint32_t *)got, src);
        if (*got != (uint32_t)(2 * i)) {
            fprintf(stderr, "ptl_self_fetch: iteration %ld's first fetch got %u, not %ld\n", i, *got, 2 * i);
            return 1;
        }
        seed = seed * 1103515245u + 12345u;
        nap_ns((long)((seed >> 8) % (unsigned)gap_us) * 1000);
        uint32_t want = (uint32_t)(2 * i + 1);
        *got = 0xffffffffu;
        int64_t t0 = bench_now_ns(), t;
        ok(PtlFetchAtomic(hg, 0, hs, 0, 4, me, pt, 0, 0, NULL, 0, PTL_SUM, PTL_UINT32_T), "PtlFetchAtomic");
        nap_ns(SFW_SLEEP_NS);
        missed += *got != want;
        while (*got != want) {
            if (*got != 0xffffffffu) {
                fprintf(stderr, "ptl_self_fetch: iteration %ld fetched %u, not %u\n", i, *got, want);
                return 1;
            }
            if (bench_now_ns() - t0 > LAND_LIMIT_NS) {
                fprintf(stderr, "ptl_self_fetch: iteration %ld: nothing fetched after 10 s\n", i);
                return 1;
            }
            nap_ns(50000);
        }
        t = bench_now_ns() - t0;
        us[i] = t / 1e3;
        take_events(eq, (uint32_t *)got, src);
    }
    if (*entry != (uint32_t)(2 * iters)) {
        fprintf(stderr, "ptl_self_fetch: the entry holds %u after %ld fetch-adds\n", *entry, 2 * iters);
        return 1;
    }
    /* p99 by the nearest-rank rule, as bench_stats' p10/p90 */
    struct bench_stats st;
    bench_stats_of(us, (size_t)iters, &st);
    double p99 = us[(size_t)((iters * 99 + 99) / 100) - 1];
    printf("case,iters,median_us,p90_us,p99_us,max_us,missed_10ms\n");
    printf("self_fetch_sleeping,%ld,%.1f,%.1f,%.1f,%.1f,%ld\n", iters, st.median, st.p90, p99, st.max, missed);
    fprintf(stderr, "ptl_self_fetch: seen after median %.1f us, p99 %.1f us, max %.1f us; %ld of %ld not there after 10 ms\n", st.median,
            p99, st.max, missed, iters);
    PtlMDRelease(hg);
    PtlMDRelease(hs);
    PtlLEUnlink(leh);
    PtlPTFree(ni, pt);
    PtlEQFree(eq);
    PtlNIFini(ni);
    PtlFini();
    return 0;
}
