#!/bin/bash
# A NIC daemon beside another job's CPU hogs: bench/ptl_self_fetch (a
# PtlFetchAtomic to the rank itself, checked after a 10 ms sleep, as the
# Portals 4 reference's sfw atomic cases) at 1x1, with the daemons' watch
# for foreign load (docs/core.md, "Beside another job's load") on (the
# default) and off (EMUNIC_HOG_US=0), alternated within each round, with
# and without hogs.
#
#   bench/run_foreign_load.sh [-b BUILD_DIR] [-r ROUNDS] [-H HOGS] [-i ITERS]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and bin/ptl_self_fetch
#                 (default: build/ at the top of the source tree)
#   -r ROUNDS     rounds (default 3)
#   -H HOGS       `while :` shell loops started for the hog runs (default 12)
#   -i ITERS      fetches per run (default 300)
#
# Prints one line per run (misses after 10 ms, and when the bytes were
# seen: median, p99, max) and the misses summed per setting.
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
rounds=3 hogs=12 iters=300
while getopts "b:r:H:i:h" o; do
    case $o in
    b) build=$(cd "$OPTARG" && pwd) ;;
    r) rounds=$OPTARG ;;
    H) hogs=$OPTARG ;;
    i) iters=$OPTARG ;;
    h) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
bin=$build/bin
for p in emunic-run ptl_self_fetch; do
    [ -x "$bin/$p" ] || { echo "run_foreign_load.sh: $bin/$p is missing; build first" >&2; exit 2; }
done

pids=()
hogs_stop() {
    [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    pids=()
}
trap hogs_stop EXIT

echo "# run_foreign_load host=$(uname -n) nproc=$(nproc) date=$(date -u +%FT%TZ) hogs=$hogs iters=$iters rounds=$rounds"
echo "round,hogs,setting,missed_10ms,median_us,p99_us,max_us"
declare -A total
for r in $(seq 1 "$rounds"); do
    for h in 0 "$hogs"; do
        for k in $(seq 1 "$h"); do
            sh -c 'while :; do :; done' &
            pids+=($!)
        done
        for setting in on off; do
            if [ $setting = off ]; then env=(EMUNIC_HOG_US=0); else env=(EMUNIC_BENCH_SETTING=on); fi
            line=$(env "${env[@]}" "$bin/emunic-run" -N 1 -n 1 --nic portals --timeout 600 -- \
                "$bin/ptl_self_fetch" --iters "$iters" 2>/dev/null | sed -n 's/^\[n0.r0\] self_fetch_sleeping,//p')
            [ -n "$line" ] || { echo "run_foreign_load.sh: ptl_self_fetch failed (round $r, $h hogs, $setting)" >&2; exit 1; }
            IFS=, read -r _ med _ p99 max missed <<<"$line"
            echo "$r,$h,$setting,$missed,$med,$p99,$max"
            total[$h.$setting]=$(( ${total[$h.$setting]:-0} + missed ))
        done
        hogs_stop
    done
done
for h in 0 "$hogs"; do
    for setting in on off; do
        echo "# $h hogs, watch $setting: ${total[$h.$setting]} of $((rounds * iters)) missed after 10 ms"
    done
done
