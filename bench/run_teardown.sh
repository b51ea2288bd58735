#!/bin/bash
# kill -9 under traffic (issue 19): how long until every process of the job
# is gone, and what is left behind, when a rank, a NIC daemon or emunic-run
# itself is SIGKILLed while core_bw moves data.
#
#   bench/run_teardown.sh [-b BUILD_DIR] [-t TRIALS] [-q] [OUT_CSV]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and bin/core_bw
#                 (default: build/ at the top of the source tree)
#   -t TRIALS     trials of each victim (default 20)
#   -q            quick: 3 trials, for a smoke test
#   -i            the jobs run with --isolate (the launcher victim is then
#                 the relay the user started; ranks are children of the
#                 launcher proper, the namespace's init)
#   OUT_CSV       one line per trial (default BUILD_DIR/bench-results/teardown.csv)
#
# Each trial starts `emunic-run -N 2 -n 1 -- core_bw` (4 KiB windows for
# minutes), waits until both ranks move data, notes every process of the
# job (the launcher's descendants), SIGKILLs the victim and polls /proc
# every 2 ms until all of them are gone. Times are from the kill to the
# last process gone (ms); "left" counts the job's processes still alive
# 5 s after the kill (then killed by this script) and the processes that
# still map or hold the job's memory (memfds) after the launcher ended
# (before and after `emunic-run --cleanup`). The summary prints median and worst per victim.
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
trials=20
iso=""
while getopts "b:t:qih" o; do
    case $o in
    b) build=$(cd "$OPTARG" && pwd) ;;
    t) trials=$OPTARG ;;
    q) trials=3 ;;
    i) iso=--isolate ;;
    h) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
out=${1:-"$build/bench-results/teardown.csv"}
bin=$build/bin
for p in emunic-run core_bw; do
    [ -x "$bin/$p" ] || { echo "run_teardown.sh: $bin/$p is missing; build first" >&2; exit 2; }
done
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d /tmp/emunic-teardown.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# the clock and the naps of the poll loop are builtins: no fork per poll
export LC_ALL=C # EPOCHREALTIME with a '.'
now_us() { now=${EPOCHREALTIME/./}; }
mkfifo "$tmp/nap" # read -t on a FIFO only we hold open: a builtin sleep
exec {nap_fd}<>"$tmp/nap"
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }

# descendants PID: every process below PID, one per line
descendants() {
    ps -e -o pid=,ppid= | awk -v root="$1" '
        { parent[$1] = $2; pids[NR] = $1 }
        END { for (i in pids) { p = pids[i]; q = parent[p]
                while (q > 1) { if (q == root) { print p; break } q = parent[q] } } }'
}

# alive PID...: which are still running (alive_pids; a zombie is gone) and
# how many (alive_n); no forks, so that a poll costs microseconds, not the
# milliseconds being measured
alive() {
    local p st
    alive_pids=()
    for p in "$@"; do
        { read -r st <"/proc/$p/stat"; } 2>/dev/null || continue
        st=${st##*) }
        [ "${st%% *}" != Z ] && alive_pids+=("$p")
    done
    alive_n=${#alive_pids[@]}
}

echo "victim,trial,ms_to_gone,left_procs,left_mem,left_mem_after_cleanup,launcher_status" >"$out"
echo "# teardown host=$(hostname) nproc=$(nproc) date=$(date -u +%FT%TZ) commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null) trials=$trials${iso:+ $iso}" >&2

for victim in rank daemon launcher; do
    for t in $(seq 1 "$trials"); do
        log=$tmp/run.$victim.$t
        "$bin/emunic-run" -v $iso -N 2 -n 1 --timeout 600 -- "$bin/core_bw" --sizes 4096 --volume 1024G --max-windows 100000000 \
            >"$log.out" 2>"$log.err" &
        launcher=$!
        # started: both daemons and both ranks exist and a second has passed
        for _ in $(seq 500); do
            [ "$(descendants "$launcher" | wc -l)" -ge 4 ] && break
            sleep 0.01
        done
        sleep 1
        id=$(sed -n 's/.*job \([0-9]*-[0-9a-f]*\).*/\1/p' "$log.err" | head -n 1)
        mapfile -t procs < <(descendants "$launcher")
        all=("$launcher" "${procs[@]}")
        proper=$launcher
        [ -n "$iso" ] && proper=$(for p in "${procs[@]}"; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = emunic-run ] && echo "$p"; done | head -n 1)
        case $victim in
        # a rank is the launcher's child (core_bw forks helpers of its own)
        rank) target=$(for p in "${procs[@]}"; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = core_bw ] &&
                           [ "$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)" = "$proper" ] && echo "$p"; done | head -n 1) ;;
        daemon) target=$(for p in "${procs[@]}"; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = emunic-nicd ] && echo "$p"; done | head -n 1) ;;
        launcher) target=$launcher ;;
        esac
        if [ -z "$target" ]; then
            echo "run_teardown.sh: $victim trial $t: no $victim among ${all[*]}" >&2
            kill -9 "${all[@]}" 2>/dev/null; wait "$launcher" 2>/dev/null
            continue
        fi
        now_us; t0=$now
        kill -9 "$target"
        gone=""
        while alive "${all[@]}"; [ "$alive_n" -gt 0 ]; do
            now_us
            [ $(( now - t0 )) -ge 5000000 ] && break
            nap 0.002
        done
        now_us
        alive "${all[@]}"
        [ "$alive_n" -eq 0 ] && gone=$(( (now - t0) / 1000 ))
        left=$alive_n
        # only what is still running: a pid that is gone may be reused
        [ "$left" -gt 0 ] && kill -9 "${alive_pids[@]}" 2>/dev/null
        wait "$launcher" 2>/dev/null
        status=$?
        # processes that still map or hold one of the job's memfds
        holders() { { grep -ls "emunic\.$id\." /proc/[0-9]*/maps; for l in /proc/[0-9]*/fd/*; do
                          [[ $(readlink "$l" 2>/dev/null) == *"emunic.$id."* ]] && echo "${l%/fd/*}"; done; } |
                        sed 's|^/proc/\([0-9]*\)/.*|\1|' | sort -u | wc -l; }
        nshm=0 nclean=0
        if [ -n "$id" ]; then
            nshm=$(holders)
            if [ "$nshm" -gt 0 ]; then
                "$bin/emunic-run" --cleanup >/dev/null 2>&1
                nclean=$(holders)
            fi
        fi
        echo "$victim,$t,${gone:-timeout},$left,$nshm,$nclean,$status" >>"$out"
        printf '  %-8s trial %2d: %s ms, %d processes left, %d holding its memory (%d after --cleanup)\n' \
            "$victim" "$t" "${gone:->5000}" "$left" "$nshm" "$nclean" >&2
    done
done

awk -F, 'NR > 1 { v = $1; n[v]++; if ($3 == "timeout") to[v]++; else { ms[v, ++k[v]] = $3 }
                  lp[v] += $4; ls[v] += ($5 > 0); lc[v] += ($6 > 0) }
         END { printf "%-8s %6s %9s %9s %9s %12s %14s\n", "victim", "trials", "median_ms", "worst_ms", "timeouts", "procs_left", "mem_left(cln)"
               for (v in n) { m = k[v]
                   for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (ms[v, j] < ms[v, i]) { x = ms[v, i]; ms[v, i] = ms[v, j]; ms[v, j] = x }
                   printf "%-8s %6d %9s %9s %9d %12d %9d (%d)\n", v, n[v], m ? ms[v, int((m + 1) / 2)] : "-", m ? ms[v, m] : "-", to[v], lp[v], ls[v], lc[v] } }' "$out"
echo "run_teardown.sh: per-trial lines in $out" >&2
