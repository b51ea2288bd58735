#!/bin/sh
# Run the DCMF benchmarks and write their CSVs: one per run (NAME.runK.csv,
# its stderr in NAME.runK.log), the median over runs (NAME.csv,
# bench/median_runs.awk), and summary.txt with the tables and the ratios to
# the same-run baselines.
#
#   bench/run_dcmf.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#   bench/run_dcmf.sh BUILD_DIR [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and the bench programs
#                 (default: build/ at the top of the source tree; a build
#                 tree, one with CMakeCache.txt, given as the first argument
#                 is taken as BUILD_DIR too)
#   -r RUNS       runs of each configuration (default 3; 1 with -q)
#   -q            quick: small counts, a smoke test (default OUT_DIR then
#                 BUILD_DIR/bench-dcmf-results-quick)
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-dcmf-results)
#
# What runs, every program under emunic-run --nic dcmf with 2 ranks:
#   dcmf_latency      2 nodes x 1 rank and 1 node x 2 ranks, each with
#                     --poll spin (a DCMF program's busy advance loop) and
#                     --poll yield (sched_yield after an empty advance)
#   dcmf_bandwidth    the same four configurations
#   dcmf_fifo         2x1, EMUNIC_DCMF_FIFO_DEPTH = 1 2 4 8 16 64 128 1024,
#                     private (malloc) and heap buffers
#   dcmf_consistency  2x1 and 1x2, poll spin and yield
# Runs of different configurations alternate, so that each configuration
# meets the same host. Extra options: $LAT_ARGS, $BW_ARGS, $FIFO_ARGS,
# $CONS_ARGS; for emunic-run: $RUN_ARGS. Before each run it waits (up to
# $QUIET_WAIT seconds, default 120; 0: not at all) until the host is idle,
# and logs the load it got.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
usage() { sed -n '2,31s/^# \{0,1\}//p' "$0"; }
me=run_dcmf.sh
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
# a build tree as the first argument, then an optional OUT_DIR
if [ "$bset" = 0 ] && [ $# -ge 1 ] && [ -f "$1/CMakeCache.txt" ]; then
    build=$(cd "$1" && pwd)
    bset=1
    shift
fi
if [ $# -gt 1 ]; then
    echo "run_dcmf.sh: one OUT_DIR at most (got: $*)" >&2
    exit 2
fi
sub=bench-dcmf-results
[ "$quick" = 1 ] && sub=bench-dcmf-results-quick
bench_dirs "$sub" "${1:-}"
need="build them first: cmake --build $build --target bench-dcmf (or the four dcmf_* targets)"
bench_need emunic-run emunic-nicd dcmf_latency dcmf_bandwidth dcmf_fifo dcmf_consistency
mkdir -p "$out"

lat_args=${LAT_ARGS:-}
bw_args=${BW_ARGS:-}
fifo_args=${FIFO_ARGS:-}
cons_args=${CONS_ARGS:-}
run_args=${RUN_ARGS:-}
layouts="2x1 1x2"
polls="spin yield"
depths="1 2 4 8 16 64 128 1024"
if [ "$quick" = 1 ]; then
    lat_args="--sizes 1,64,4K,64K,1M --iters 100 --trials 2 $lat_args"
    bw_args="--sizes 4K,1M --volume 16M --max-ops 2000 --trials 2 --msgs 5000 $bw_args"
    fifo_args="--msgs 10000 --volume 32M --trials 1 $fifo_args"
    cons_args="--sizes 64K,1M --iters 40 --min-iters 10 $cons_args"
    depths="1 16 128 1024"
fi
quiet_wait=${QUIET_WAIT:-120}
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

bench_name=run_dcmf.sh
bench_env='^EMUNIC_DCMF_'
one() { bench_one "$@"; }
merge() { bench_merge "$@"; }

# ---- the runs ----
# emunic-run's options for a layout NxR: -N N -n R
nn() { echo "${1%x*}"; }
nr() { echo "${1#*x}"; }
k=1
while [ "$k" -le "$runs" ]; do
    for lay in $layouts; do
        for poll in $polls; do
            # shellcheck disable=SC2086
            one "dcmf_latency.$lay.$poll.run$k" "$run" -N "$(nn "$lay")" -n "$(nr "$lay")" --nic dcmf $run_args \
                --no-prefix --timeout 800 -- "$bin/dcmf_latency" --poll "$poll" $lat_args
        done
    done
    for lay in $layouts; do
        for poll in $polls; do
            # shellcheck disable=SC2086
            one "dcmf_bandwidth.$lay.$poll.run$k" "$run" -N "$(nn "$lay")" -n "$(nr "$lay")" --nic dcmf $run_args \
                --no-prefix --timeout 800 -- "$bin/dcmf_bandwidth" --poll "$poll" $bw_args
        done
    done
    for mem in private heap; do
        for d in $depths; do
            # shellcheck disable=SC2086
            one "dcmf_fifo.$mem.d$d.run$k" env EMUNIC_DCMF_FIFO_DEPTH="$d" "$run" -N 2 -n 1 --nic dcmf $run_args \
                --no-prefix --timeout 800 -- "$bin/dcmf_fifo" --mem "$mem" $fifo_args
        done
    done
    for lay in $layouts; do
        for poll in $polls; do
            # shellcheck disable=SC2086
            one "dcmf_consistency.$lay.$poll.run$k" "$run" -N "$(nn "$lay")" -n "$(nr "$lay")" --nic dcmf \
                $run_args --no-prefix --timeout 800 -- "$bin/dcmf_consistency" --poll "$poll" $cons_args
        done
    done
    k=$((k + 1))
done
for lay in $layouts; do
    for poll in $polls; do
        merge "dcmf_latency.$lay.$poll"
        merge "dcmf_bandwidth.$lay.$poll"
        merge "dcmf_consistency.$lay.$poll"
    done
done
# one FIFO table: the first file's comments and header, every file's rows
first=1
for mem in private heap; do
    for d in $depths; do
        merge "dcmf_fifo.$mem.d$d"
        if [ "$first" = 1 ]; then
            grep '^#' "$out/dcmf_fifo.$mem.d$d.csv"
            grep '^bench,' "$out/dcmf_fifo.$mem.d$d.csv" | sed 's/^bench,case,/bench,case,/; s/$/,mem/'
            first=0
        fi
        grep -v '^#' "$out/dcmf_fifo.$mem.d$d.csv" | grep -v '^bench,' | sed "s/\$/,$mem/"
    done
done >"$out/dcmf_fifo.csv"

# ---- tables ----
name_of() { [ "$1" = 2x1 ] && echo "2 nodes x 1 rank" || echo "1 node x 2 ranks"; }
{
    echo "DCMF benchmarks, host $(uname -n), started $started, finished $(date -u +%Y-%m-%dT%H:%M:%SZ),"
    echo "$runs run(s) of each configuration; every number is the median over runs of per-run medians."
    echo "Build: $build. Ratios are to baselines measured in the same run (see each section)."
    for lay in $layouts; do
        for poll in $polls; do
            echo
            echo "== Latency, $(name_of "$lay") ($lay), --poll $poll: median round trip in us; in brackets the"
            echo "   ratio to the raw core baseline of the same trial (put/raw_write_rtt, get/raw_read,"
            echo "   send, send_longcb, control/raw_pingpong)"
            awk -F, '
                /^#/ || $1 == "bench" { next }
                $2 == "control" { cu = $7; cr = $14; cb = $13; next }
                $2 == "raw_pingpong_ctl" { next }
                { v[$2, $3] = $7; r[$2, $3] = $14; if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
                function sz(b) { return b >= 1048576 ? b / 1048576 "M" : b >= 1024 ? b / 1024 "K" : b }
                function cell(c, s) { return (c, s) in v ? sprintf("%9.2f (%5.2f)", v[c, s], r[c, s]) : sprintf("%17s", "-") }
                END {
                    printf "  %6s %10s %17s %10s %17s %10s %17s %17s\n", "size", "raw_write", "put", "raw_read", "get",
                        "raw_pp", "send", "send_longcb"
                    for (i = 1; i <= n; i++) {
                        s = order[i]
                        printf "  %6s %10.2f %s %10.2f %s %10.2f %s %s\n", sz(s), v["raw_write_rtt", s], cell("put", s),
                            v["raw_read", s], cell("get", s), v["raw_pingpong", s], cell("send", s), cell("send_longcb", s)
                    }
                    if (cu != "")
                        printf "  control (32 B): %.2f us, raw_pingpong %.2f us, ratio %.2f\n", cu, cb, cr
                }' "$out/dcmf_latency.$lay.$poll.csv"
        done
    done
    for lay in $layouts; do
        for poll in $polls; do
            echo
            echo "== Bandwidth, $(name_of "$lay") ($lay), --poll $poll: MB/s (10^6 B/s), window 16 (message"
            echo "   rate: msgs/s, window 64); [x memcpy of the same trial] and {x raw_write of the same trial}"
            awk -F, '
                /^#/ || $1 == "bench" { next }
                $2 ~ /^msgrate/ { m[$2] = $10; mm[$2] = $11; mr[$2] = $12; next }
                { v[$2, $3] = $9; rm[$2, $3] = $11; rr[$2, $3] = $12; if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
                function sz(b) { return b >= 1048576 ? b / 1048576 "M" : b >= 1024 ? b / 1024 "K" : b }
                function cell(c, s) { return sprintf("%7.0f [%5.3f] {%4.2f}", v[c, s], rm[c, s], rr[c, s]) }
                END {
                    printf "  %6s %8s %16s %24s %24s %24s\n", "size", "memcpy", "raw_write", "put", "get", "send"
                    for (i = 1; i <= n; i++) {
                        s = order[i]
                        printf "  %6s %8.0f %7.0f [%5.3f] %s %s %s\n", sz(s), v["memcpy", s], v["raw_write", s],
                            rm["raw_write", s], cell("put", s), cell("get", s), cell("send", s)
                    }
                    printf "  8-byte message rate (msgs/s): raw %.0f, put %.0f {%.2f x raw}, send %.0f {%.2f x raw}; memcpy %.0f\n",
                        m["msgrate_raw"], m["msgrate_put"], mr["msgrate_put"], m["msgrate_send"], mr["msgrate_send"],
                        m["msgrate_memcpy"]
                }' "$out/dcmf_bandwidth.$lay.$poll.csv"
        done
    done
    echo
    echo "== Injection FIFO depth (EMUNIC_DCMF_FIFO_DEPTH), 2 nodes x 1 rank, streamed puts, --poll spin:"
    echo "   puts/s (x the default depth 128), us inside DCMF_Put, rank 0 wake-ups per put, NIC backlog per put"
    awk -F, '
        /^#/ || $1 == "bench" { next }
        { k = $NF "," $3; r[k, $5] = $8; p[k, $5] = $10; w[k, $5] = $11; b[k, $5] = $12
          if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
          if (!($5 in ds)) { ds[$5] = 1; dl[++nd] = $5 } }
        END {
            for (i = 1; i <= nk; i++) {
                split(keys[i], kk, ",")
                printf "  %s memory, %s-byte puts:\n", kk[1], kk[2]
                printf "    %6s %11s %8s %9s %9s %9s\n", "depth", "puts/s", "x d128", "us/put", "wake/put", "backlog"
                for (j = 1; j <= nd; j++) {
                    d = dl[j]
                    if (!((keys[i], d) in r)) continue
                    base = r[keys[i], 128]
                    printf "    %6s %11.0f %8.2f %9.3f %9.4f %9.4f\n", d, r[keys[i], d], (base > 0 ? r[keys[i], d] / base : 0),
                        p[keys[i], d], w[keys[i], d], b[keys[i], d]
                }
            }
        }' "$out/dcmf_fifo.csv"
    for lay in $layouts; do
        for poll in $polls; do
            echo
            echo "== Consistency, $(name_of "$lay") ($lay), --poll $poll: us from posting a data put until a"
            echo "   following 8-byte flag put is visible at the target; how often the flag overtook the data"
            awk -F, '
                /^#/ || $1 == "bench" { next }
                { f[$2, $3] = $6; d[$2, $3] = $9; o[$2, $3] = $10; it[$3] = $5; if ($2 == "relaxed") q[$3] = $12
                  if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } }
                function sz(b) { return b >= 1048576 ? b / 1048576 "M" : b >= 1024 ? b / 1024 "K" : b }
                END {
                    printf "  %6s %12s %12s %10s %14s %14s %14s\n", "size", "seq flag", "relax flag", "relax/seq",
                        "seq data", "relax data", "overtook"
                    for (i = 1; i <= n; i++) {
                        s = order[i]
                        printf "  %6s %12.1f %12.1f %10.3f %14.1f %14.1f %9s/%-4s\n", sz(s), f["sequential", s],
                            f["relaxed", s], q[s], d["sequential", s], d["relaxed", s], o["relaxed", s], it[s]
                    }
                }' "$out/dcmf_consistency.$lay.$poll.csv"
        done
    done
} >"$out/summary.txt"
cat "$out/summary.txt"
echo "CSVs in $out" >&2
