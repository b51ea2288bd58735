#!/bin/sh
# Run the PAMI collectives benchmark ([P7IH-COLL]) and write its CSVs: one
# per layout and run (pami_coll.LAYOUT.runK.csv, stderr in .log), the
# median over runs (pami_coll.LAYOUT.csv) and summary.txt.
#
#   bench/run_pami_coll.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and bin/pami_coll
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each layout (default 3; 1 with -q)
#   -q            quick: fewer iterations, layouts and sizes
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-pami-coll-results)
#
# Layouts (nodes x tasks per node): 1x2 1x8 1x16 (shared memory against
# point to point within a node), 2x1 4x1 8x1 (the CAU against point to
# point across nodes), 4x4 and 4x16 (hybrids). Every algorithm of the
# world geometry that its metadata allows runs: barrier, broadcast (8 B to
# 64 KiB, rotating roots) and allreduce (doubles, SUM).
# Extra options: $COLL_ARGS (pami_coll), $RUN_ARGS (emunic-run).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
me=run_pami_coll.sh
usage() { sed -n '2,20s/^# \{0,1\}//p' "$0"; }
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
bench_outdir bench-pami-coll-results "$@"
need="build them first: cmake --build $build --target pami_coll"
bench_need emunic-run emunic-nicd pami_coll
mkdir -p "$out"

coll_args=${COLL_ARGS:-}
run_args=${RUN_ARGS:-}
layouts="1x2 1x8 1x16 2x1 4x1 8x1 4x4 4x16"
if [ "$quick" = 1 ]; then
    coll_args="--iters 30 --max 4096 $coll_args"
    layouts="1x8 8x1 4x4"
fi
quiet_wait=${QUIET_WAIT:-120}
bench_name=$me
bench_env='^EMUNIC_PAMI_'
nn() { echo "${1%x*}"; }
nr() { echo "${1#*x}"; }
k=1
while [ "$k" -le "$runs" ]; do
    for lay in $layouts; do
        extra=""
        # 64 tasks on a small host: fewer iterations
        [ "$(($(nn "$lay") * $(nr "$lay")))" -ge 32 ] && extra="--iters 40"
        # shellcheck disable=SC2086
        bench_one "pami_coll.$lay.run$k" "$run" -N "$(nn "$lay")" -n "$(nr "$lay")" --nic pami $run_args \
            --no-prefix --timeout 850 -- "$bin/pami_coll" $extra $coll_args
    done
    k=$((k + 1))
done
for lay in $layouts; do
    bench_merge "pami_coll.$lay"
done
{
    echo "PAMI collectives, host $(uname -n), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs run(s), medians over runs."
    echo "Task 0's mean latency per collective in microseconds (us_per_op)."
    for lay in $layouts; do
        echo
        echo "== $lay"
        grep -v '^#' "$out/pami_coll.$lay.csv"
    done
} >"$out/summary.txt"
cat "$out/summary.txt"
