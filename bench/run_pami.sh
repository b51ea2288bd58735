#!/bin/sh
# Run the PAMI benchmarks and write their CSVs: one per run (NAME.runK.csv,
# stderr in NAME.runK.log), the median over runs (NAME.csv) and summary.txt.
#
#   bench/run_pami.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and the bench programs
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each configuration (default 3; 1 with -q)
#   -q            quick: small counts, a smoke test
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-pami-results)
#
# What runs, under emunic-run --nic pami:
#   pami_rma      latency at 2x1 and 1x2, bandwidth (--window 16) at 2x1
#   pami_rmw      fetch-and-add latency for 2, 4, 8 and 16 tasks (1x2, 2x2,
#                 2x4, 4x4): NIC-executed PAMI_Rmw, active message with task
#                 0 idle, computing, and computing with EXT_async_progress
# Extra options: $RMA_ARGS, $RMW_ARGS; for emunic-run: $RUN_ARGS.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
me=run_pami.sh
usage() { sed -n '2,19s/^# \{0,1\}//p' "$0"; }
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
bench_outdir bench-pami-results "$@"
need="build them first: cmake --build $build --target pami_rma pami_rmw"
bench_need emunic-run emunic-nicd pami_rma pami_rmw
mkdir -p "$out"

rma_args=${RMA_ARGS:-}
rmw_args=${RMW_ARGS:-}
run_args=${RUN_ARGS:-}
rmw_layouts="1x2 2x2 2x4 4x4"
if [ "$quick" = 1 ]; then
    rma_args="--sizes 8,4K,1M --iters 50 --trials 2 $rma_args"
    rmw_args="--iters 20 $rmw_args"
    rmw_layouts="1x2 2x2"
fi
quiet_wait=${QUIET_WAIT:-120}
bench_name=$me
bench_env='^EMUNIC_PAMI_'
nn() { echo "${1%x*}"; }
nr() { echo "${1#*x}"; }
k=1
while [ "$k" -le "$runs" ]; do
    for lay in 2x1 1x2; do
        # shellcheck disable=SC2086
        bench_one "pami_rma.lat.$lay.run$k" "$run" -N "$(nn "$lay")" -n "$(nr "$lay")" --nic pami $run_args \
            --no-prefix --timeout 800 -- "$bin/pami_rma" $rma_args
    done
    # shellcheck disable=SC2086
    bench_one "pami_rma.bw.2x1.run$k" "$run" -N 2 -n 1 --nic pami $run_args --no-prefix --timeout 800 -- \
        "$bin/pami_rma" --window 16 $rma_args
    for lay in $rmw_layouts; do
        # shellcheck disable=SC2086
        bench_one "pami_rmw.$lay.run$k" "$run" -N "$(nn "$lay")" -n "$(nr "$lay")" --nic pami $run_args \
            --no-prefix --timeout 800 -- "$bin/pami_rmw" $rmw_args
    done
    k=$((k + 1))
done
for stem in pami_rma.lat.2x1 pami_rma.lat.1x2 pami_rma.bw.2x1; do
    bench_merge "$stem"
done
for lay in $rmw_layouts; do
    bench_merge "pami_rmw.$lay"
done
{
    echo "PAMI benchmarks, host $(uname -n), $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs run(s), medians over runs."
    for stem in pami_rma.lat.2x1 pami_rma.lat.1x2 pami_rma.bw.2x1; do
        echo
        echo "== $stem (us_per_op; ratio = PAMI / raw core op of the same trial)"
        grep -v '^#' "$out/$stem.csv"
    done
    echo
    echo "== pami_rmw: fetch-and-add latency (us) on task 0's counter"
    grep -h '^bench' "$out/pami_rmw.$(echo "$rmw_layouts" | cut -d' ' -f1).csv"
    for lay in $rmw_layouts; do
        grep -hv '^#' "$out/pami_rmw.$lay.csv" | grep -v '^bench'
    done
} >"$out/summary.txt"
cat "$out/summary.txt"
