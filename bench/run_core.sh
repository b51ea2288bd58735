#!/bin/sh
# Run the core benchmarks (core_pingpong, core_bw, core_scale) several times
# and write their CSVs: one per run (NAME.runK.csv, its stderr in
# NAME.runK.log) and the median over runs (NAME.csv).
#
#   bench/run_core.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and the bench programs
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each benchmark (default 3)
#   -q            quick: small iteration counts, for a smoke test (default
#                 OUT_DIR then BUILD_DIR/bench-results-quick)
#   OUT_DIR       where the CSVs go (default: BUILD_DIR/bench-results); a
#                 build tree (it has CMakeCache.txt) given without -b is
#                 taken as BUILD_DIR instead, as `make bench` passes it
# Extra options for each program: $PINGPONG_ARGS, $BW_ARGS, $SCALE_ARGS;
# for emunic-run (core_pingpong and core_bw): $RUN_ARGS, e.g. "--bind core".
# Before each run it waits (up to $QUIET_WAIT seconds, default 300; 0: not
# at all) until nothing else is running on the host: on a 2-core box one
# stray compiler doubles every latency.
# `cmake --build BUILD_DIR --target bench` runs this with the defaults.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
usage() { sed -n '2,23s/^# \{0,1\}//p' "$0"; }
runs_default=3 runs_quick=3
me=run_core.sh
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
sub=bench-results
[ "$quick" = 1 ] && sub=bench-results-quick
bench_dirs "$sub" "${1:-}"
need="build the bench targets first"
bench_need emunic-run emunic-nicd core_pingpong core_bw core_scale core_scale_rank
mkdir -p "$out"

pp_args=${PINGPONG_ARGS:-}
bw_args=${BW_ARGS:-}
sc_args=${SCALE_ARGS:-}
run_args=${RUN_ARGS:-}
if [ "$quick" = 1 ]; then
    pp_args="--iters 2000 --sweep-iters 500 --base-iters 2000 --sizes 8,1K,64K $pp_args"
    bw_args="--trials 1 --volume 32M --msg-windows 200 --sizes 8,64K,1M,16M $bw_args"
    sc_args="--runs 1 --ops-budget 2000 --layouts 1x2,2x1,8x8 $sc_args"
fi

quiet_wait=${QUIET_WAIT:-300}


# one benchmark, $runs times; $1 name, rest the command
bench() {
    name=$1
    shift
    files=""
    k=1
    while [ "$k" -le "$runs" ]; do
        bench_quiet
        echo "== $name run $k/$runs: $*" >&2
        "$@" >"$out/$name.run$k.csv" 2>"$out/$name.run$k.log" || {
            echo "run_core.sh: $name run $k failed; see $out/$name.run$k.log" >&2
            tail -n 5 "$out/$name.run$k.log" >&2
            exit 1
        }
        files="$files $out/$name.run$k.csv"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086
    awk -f "$src/bench/median_runs.awk" $files >"$out/$name.csv"
}

# shellcheck disable=SC2086
bench core_pingpong "$run" -N 2 -n 1 $run_args --no-prefix --timeout 900 -- "$bin/core_pingpong" $pp_args
# shellcheck disable=SC2086
bench core_bw "$run" -N 2 -n 1 $run_args --no-prefix --timeout 900 -- "$bin/core_bw" $bw_args
# shellcheck disable=SC2086
bench core_scale "$bin/core_scale" --emunic-run "$run" --rank-prog "$bin/core_scale_rank" $sc_args

# the headline numbers, from the medians
awk -F, '
    $1 == "core_pingpong" && $3 == 8 { printf "%-24s %10.2f us median round trip (%d hand-offs)\n", $2, $5, $11 }
    $1 == "core_bw" && ($3 == 1048576 || $2 ~ /^msgrate/) {
        if ($2 ~ /^msgrate/) printf "%-24s %10.0f msgs/s (8 B, window %d)\n", $2, $8, $4
        else printf "%-24s %10.0f MB/s at 1 MiB (%.2fx memcpy)\n", $2, $7, $9 }
    $1 == "core_scale" { printf "%-24s %10.2f us/op per rank, %.0f ops/s, start-up %.3f s (floor %.3f s)\n",
        "scale " $2, $7, $11, $22, $20 }
' "$out/core_pingpong.csv" "$out/core_bw.csv" "$out/core_scale.csv"
echo "CSVs in $out" >&2
