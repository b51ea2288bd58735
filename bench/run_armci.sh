#!/bin/sh
# Run the ARMCI benchmarks with their option sweeps and write their CSVs:
# one per run (NAME.runK.csv, its stderr in NAME.runK.log) and the median
# over runs (NAME.csv, bench/median_runs.awk), plus summary.txt with the
# issue's two target ratios.
#
#   bench/run_armci.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and the bench programs
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each configuration (default 3; 1 with -q)
#   -q            quick: small counts and sweeps, a smoke test (default
#                 OUT_DIR then BUILD_DIR/bench-armci-results-quick)
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-armci-results)
#
# What runs (2-core host: the counts stay small):
#   armci_perf    -N 2 -n 1, each run between two portals_lat runs (raw
#                 Portals round trips, the issue's baseline); then
#                 -N 1 -n 2 --same-node
#   armci_rmw_counter  p = 2, 4, 8 (-N 2 -n 1, -N 2 -n 2, -N 4 -n 2) x
#                 ARMCI_HELPER=1/0 x ARMCI_RMW=nic/helper, modes idle and
#                 compute in each job
#   armci_flow    -N 2 -n 1, --intimation on and off alternately
#   armci_order   -N 2 -n 1 x ARMCI_ORDER strict (with and without
#                 ARMCI_CONFLICT_TRACKING) / partial / unordered
# Extra options: $PERF_ARGS, $RMW_ARGS, $FLOW_ARGS, $ORDER_ARGS, $LAT_ARGS (portals_lat);
# for emunic-run: $RUN_ARGS. Before each run it waits (up to $QUIET_WAIT
# seconds, default 120; 0: not at all) until the host is idle, and logs the
# load it got.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
usage() { sed -n '2,29s/^# \{0,1\}//p' "$0"; }
me=run_armci.sh
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
bench_outdir bench-armci-results "$@"
need="build the bench-armci target first"
bench_need emunic-run emunic-nicd portals_lat armci_perf armci_rmw_counter armci_flow armci_order
mkdir -p "$out"

perf_args=${PERF_ARGS:-}
rmw_args=${RMW_ARGS:-}
flow_args=${FLOW_ARGS:-}
order_args=${ORDER_ARGS:-}
lat_args=${LAT_ARGS:-}
run_args=${RUN_ARGS:-}
layouts="2x1 2x2 4x2"
if [ "$quick" = 1 ]; then
    perf_args="--sizes 8,1K,64K,1M --iters 200 --trials 2 --volume 2M $perf_args"
    rmw_args="--iters 100 $rmw_args"
    flow_args="--sizes 16K,256K,1M --trials 2 --volume 2M $flow_args"
    order_args="--iters 50 $order_args"
    lat_args="--iters 2000 $lat_args"
    layouts="2x1 2x2"
fi
quiet_wait=${QUIET_WAIT:-120}


bench_name=run_armci.sh
bench_env='^ARMCI_'
one() { bench_one "$@"; }
merge() { bench_merge "$@"; }

# ---- armci_perf, each run between two raw Portals runs ----
k=1
while [ "$k" -le "$runs" ]; do
    # shellcheck disable=SC2086
    one "portals_lat.before.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 600 \
        -- "$bin/portals_lat" $lat_args
    # shellcheck disable=SC2086
    one "armci_perf.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 \
        -- "$bin/armci_perf" $perf_args
    # shellcheck disable=SC2086
    one "portals_lat.after.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 600 \
        -- "$bin/portals_lat" $lat_args
    k=$((k + 1))
done
merge armci_perf
k=1
while [ "$k" -le "$runs" ]; do
    # shellcheck disable=SC2086
    one "armci_perf_samenode.run$k" "$run" -N 1 -n 2 --nic portals $run_args --no-prefix --timeout 800 \
        -- "$bin/armci_perf" --same-node $perf_args
    k=$((k + 1))
done
merge armci_perf_samenode

# ---- armci_rmw_counter: p x helper x RMW path ----
rmw_names=""
for lay in $layouts; do
    nn=${lay%x*}
    nr=${lay#*x}
    for h in 1 0; do
        for r in nic helper; do
            name="rmw_counter.p$((nn * nr)).helper$h.$r"
            k=1
            while [ "$k" -le "$runs" ]; do
                # shellcheck disable=SC2086
                one "$name.run$k" env ARMCI_HELPER=$h ARMCI_RMW=$r "$run" -N "$nn" -n "$nr" --nic portals \
                    $run_args --no-prefix --timeout 800 -- "$bin/armci_rmw_counter" $rmw_args
                k=$((k + 1))
            done
            merge "$name"
            rmw_names="$rmw_names $name"
        done
    done
done
# one table: the first file's comments and header, every file's rows
first=1
for name in $rmw_names; do
    if [ "$first" = 1 ]; then
        cat "$out/$name.csv"
        first=0
    else
        grep -v '^#' "$out/$name.csv" | grep -v '^mode,'
    fi
done >"$out/armci_rmw_counter.csv"

# ---- armci_flow: intimation on / off, alternating ----
k=1
while [ "$k" -le "$runs" ]; do
    for i in on off; do
        # shellcheck disable=SC2086
        one "armci_flow.$i.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 \
            -- "$bin/armci_flow" --intimation "$i" $flow_args
    done
    k=$((k + 1))
done
merge armci_flow.on
merge armci_flow.off

# ---- armci_order: ordering modes and conflict tracking, alternating ----
order_sets="strict:1 strict:0 partial:1 unordered:1"
k=1
while [ "$k" -le "$runs" ]; do
    for set in $order_sets; do
        name="armci_order.${set%%:*}.ct${set##*:}"
        # shellcheck disable=SC2086
        one "$name.run$k" env ARMCI_ORDER="${set%%:*}" ARMCI_CONFLICT_TRACKING="${set##*:}" \
            "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 \
            -- "$bin/armci_order" $order_args
    done
    k=$((k + 1))
done
for set in $order_sets; do
    merge "armci_order.${set%%:*}.ct${set##*:}"
done
# bandwidth with intimation / without, per op and size: the ratio of the
# medians over runs, and the median of the per-run ratios (run K of each
# setting ran back to back, so their ratio shares the host's state)
awk -F, '
    /^#/ || $1 == "op" || $1 == "get_contig" { next }
    {
        k = $1 "," $3
        if (!(k in seen)) { seen[k] = 1; order[++n] = k }
        if (FILENAME ~ /\.run[0-9]+\.csv$/) {
            r = FILENAME; sub(/.*\.run/, "", r); sub(/\.csv$/, "", r)
            if (FILENAME ~ /\.on\./) pon[k, r] = $7; else poff[k, r] = $7
            if (r + 0 > runs) runs = r + 0
        } else if (FILENAME ~ /\.on\.csv$/) on[k] = $7
        else off[k] = $7
    }
    function median(a, m,    i, j, t) {
        for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        print "op,size,bw_on_MBps,bw_off_MBps,ratio_on_off,ratio_paired_median,ratios_per_run"
        for (i = 1; i <= n; i++) {
            k = order[i]; m = 0; list = ""
            for (r = 1; r <= runs; r++)
                if (poff[k, r] > 0) { v[++m] = pon[k, r] / poff[k, r]; list = list sprintf("%s%.2f", m > 1 ? " " : "", v[m]) }
            printf "%s,%s,%s,%.2f,%.2f,%s\n", k, on[k], off[k], (off[k] > 0 ? on[k] / off[k] : 0),
                (m ? median(v, m) : 0), list
        }
    }' "$out/armci_flow.on.csv" "$out/armci_flow.off.csv" "$out"/armci_flow.on.run*.csv \
    "$out"/armci_flow.off.run*.csv >"$out/armci_flow_ratio.csv"

# ---- the issue's targets ----
# portals_lat medians of every run (before and after), per case: median_us
lat_med() {
    awk -F, -v c="$1" '$1 == c { v[++n] = $3 }
        END { if (!n) { print 0; exit }
              for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
              print (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) }' "$out"/portals_lat.*.run*.csv
}
perf_col() { awk -F, -v o="$1" -v s="$2" -v c="$3" '$1 == o && $2 == "contig" && $3 == s { print $c }' "$out/armci_perf.csv"; }
# $1 ARMCI op, $2 the portals_lat median it is compared with
ratio_line() {
    echo "$1 $(perf_col "$1" 8 5) $(perf_col "$1" 8 11) $2" | awk '{
        sep = ($4 > 0 ? $2 / $4 : 0)
        printf "  %-10s same-job ratio %.3f (%s); vs portals_lat %.3f (%s)\n", $1, $3,
            ($3 <= 1.15 ? "met" : "NOT met"), sep, (sep <= 1.15 ? "met" : "NOT met") }'
}
ptl_put=$(lat_med ptl_put_ack_event)
ptl_get=$(lat_med ptl_get_reply_ct)
{
    echo "ARMCI benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n), $runs run(s) each"
    echo
    echo "8-byte latency, medians over runs (us): ARMCI -N 2 -n 1, raw Portals in the same job"
    echo "(armci_perf's second NI) and in portals_lat jobs just before and after:"
    for o in put put_fenced get ptl_put_ack ptl_get; do
        printf "  %-12s %8s\n" "$o" "$(perf_col "$o" 8 5)"
    done
    printf "  %-12s %8s   %-20s %8s\n" "portals_lat" "" "ptl_put_ack_event" "$ptl_put"
    printf "  %-12s %8s   %-20s %8s\n" "" "" "ptl_get_reply_ct" "$ptl_get"
    echo
    echo "Target: ARMCI contiguous put/get within 15% of raw Portals latency (ratio <= 1.15)."
    echo "Compared: put_fenced (ARMCI_Put + ARMCI_Fence, remote completion) with PtlPut+ACK;"
    echo "get with PtlGet. put (local completion) is not a round trip and is not compared."
    ratio_line put_fenced "$ptl_put"
    ratio_line get "$ptl_get"
    echo "  every size (same-job ratio; above 144 B a put is no longer inline):"
    awk -F, '$2 == "contig" && ($1 == "put_fenced" || $1 == "get") {
            r[$3, $1] = $11; if (!($3 in s)) { s[$3] = 1; o[++n] = $3 } }
        END { for (i = 1; i <= n; i++) printf "    %8s B  put_fenced %6s  get %6s\n", o[i], r[o[i], "put_fenced"], r[o[i], "get"] }' \
        "$out/armci_perf.csv"
    echo
    echo "Target: flow intimation >= 2x the bandwidth of plain credits (ARMCI_BUFS=2, 4 KiB):"
    echo "  (ratio of the medians over runs; paired: median of the per-run ratios)"
    awk -F, 'NR > 1 { printf "  %-4s %8s B  on %7s  off %7s MB/s  ratio %5s  paired %5s  %s  (runs: %s)\n",
        $1, $2, $3, $4, $5, $6, ($5 >= 2 && $6 >= 2 ? "met" : $5 >= 2 || $6 >= 2 ? "borderline" : "NOT met"), $7 }' \
        "$out/armci_flow_ratio.csv"
    echo
    echo "Load-balance counter (avg us seen by ranks 1..p-1):"
    awk -F, '!/^#/ && $1 != "mode" { printf "  p=%-2s %-22s %-8s avg %9s  median %9s\n", $2, $3, $1, $7, $8 }' \
        "$out/armci_rmw_counter.csv"
    echo
    echo "Get latency (us) behind outstanding writes, by ordering mode (armci_order):"
    for set in $order_sets; do
        awk -F, -v set="$set" '!/^#/ && $1 != "writes" {
            printf "  %-12s %-3s then get %-11s %8s us (nothing outstanding: %s)\n", set, $1, $2, $8, $11 }' \
            "$out/armci_order.${set%%:*}.ct${set##*:}.csv"
    done
} >"$out/summary.txt"
cat "$out/summary.txt"
echo "CSVs in $out" >&2
