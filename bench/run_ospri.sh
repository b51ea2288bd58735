#!/bin/sh
# Run the [OSPRI] comparisons (bench/armci_ospri.c) on the ARMCI runtime
# over its DCMF device, print one table and write the CSVs (one per job,
# its stderr in NAME.log) and the table (table.txt) to OUT_DIR.
#
#   bench/run_ospri.sh [-b BUILD_DIR] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and bin/armci_ospri
#                 (default: build/ at the top of the source tree)
#   -q            quick: few iterations, up to 8 ranks (a smoke test;
#                 default OUT_DIR then BUILD_DIR/bench-ospri-results-quick)
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-ospri-results)
#
# What runs, every job under emunic-run --nic dcmf, the two settings of a
# pair back to back:
#   (a) allfence  p = 2, 4, 8, 16 (-N 2 -n 1, -N 2 -n 2, -N 4 -n 2,
#                 -N 4 -n 4) x ARMCI_ALLFENCE=touched / all; each rank puts
#                 8 bytes to its right neighbour before every AllFence
#   (b) order     -N 2 -n 1 x ARMCI_ORDER=strict / partial
#   (c) helper    -N 1 -n 2 x ARMCI_HELPER=1 / 0, rank 1 idle and computing
#                 (one node: on a 2-core host a computing target on a node of
#                 its own would share its core with that node's NIC daemon
#                 and helper, and the scheduler's time slices would be the
#                 measurement)
# Extra options: $ALLFENCE_ARGS, $ORDER_ARGS, $HELPER_ARGS (armci_ospri);
# $RUN_ARGS (emunic-run). Before each job it waits (up to $QUIET_WAIT
# seconds, default 120; 0: not at all) until the host is idle.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
quick=0
bset=0
usage() { sed -n '2,29s/^# \{0,1\}//p' "$0"; }
[ "${1:-}" = --help ] && { usage; exit 0; }
while getopts b:qh opt; do
    case $opt in
    b) build=$(cd "$OPTARG" && pwd); bset=1 ;;
    q) quick=1 ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -gt 1 ]; then
    echo "run_ospri.sh: one OUT_DIR at most (got: $*)" >&2
    usage >&2
    exit 2
fi
sub=bench-ospri-results
[ "$quick" = 1 ] && sub=bench-ospri-results-quick
me=run_ospri.sh
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_dirs "$sub" "${1:-}"
need="build the armci_ospri target first"
bench_need emunic-run emunic-nicd armci_ospri
mkdir -p "$out"

allfence_args=${ALLFENCE_ARGS:-}
order_args=${ORDER_ARGS:-}
helper_args=${HELPER_ARGS:-}
run_args=${RUN_ARGS:-}
layouts="2x1 2x2 4x2 4x4"
if [ "$quick" = 1 ]; then
    allfence_args="--iters 50 $allfence_args"
    order_args="--iters 50 --sizes 8,4K $order_args"
    helper_args="--iters 50 $helper_args"
    layouts="2x1 2x2 4x2"
fi
quiet_wait=${QUIET_WAIT:-120}

# One job: $1 output stem, $2 "VAR=value", $3 layout NxR, rest armci_ospri's
# arguments.
one() {
    stem=$1 setting=$2 lay=$3
    shift 3
    bench_quiet
    echo "== $stem (host ${load}% busy): $setting -N ${lay%x*} -n ${lay#*x} $*" >&2
    {
        echo "# host ${load}% busy before the run; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "# cmd: env $setting emunic-run -N ${lay%x*} -n ${lay#*x} --nic dcmf -- armci_ospri $*"
    } >"$out/$stem.log"
    # shellcheck disable=SC2086
    if ! timeout 900 env "$setting" "$run" -N "${lay%x*}" -n "${lay#*x}" --nic dcmf $run_args \
            --no-prefix --timeout 800 -- "$bin/armci_ospri" "$@" \
            >"$out/$stem.csv" 2>>"$out/$stem.log"; then
        echo "run_ospri.sh: $stem failed; see $out/$stem.log" >&2
        tail -n 5 "$out/$stem.log" >&2
        exit 1
    fi
}

rows() { grep -v '^#' "$1" | tail -n +2; }

# ---- (a) AllFence against the number of ranks ----
for lay in $layouts; do
    p=$((${lay%x*} * ${lay#*x}))
    for af in touched all; do
        # shellcheck disable=SC2086
        one "allfence.p$p.$af" "ARMCI_ALLFENCE=$af" "$lay" --mode allfence $allfence_args
    done
done
# ---- (b) a get behind outstanding writes, strict vs partial ----
for o in strict partial; do
    # shellcheck disable=SC2086
    one "order.$o" "ARMCI_ORDER=$o" 2x1 --mode order $order_args
done
# ---- (c) blocking latency with and without the helper thread ----
for h in 1 0; do
    # shellcheck disable=SC2086
    one "helper.$h" "ARMCI_HELPER=$h" 1x2 --mode helper $helper_args
done

# one CSV per mode, every job's rows under the first job's comments and header
merge() {
    first=1
    for f in "$@"; do
        if [ "$first" = 1 ]; then
            cat "$f"
            first=0
        else
            rows "$f"
        fi
    done
}
# shellcheck disable=SC2046
merge $(for lay in $layouts; do p=$((${lay%x*} * ${lay#*x})); \
    echo "$out/allfence.p$p.touched.csv $out/allfence.p$p.all.csv"; done) >"$out/allfence.csv"
merge "$out/order.strict.csv" "$out/order.partial.csv" >"$out/order.csv"
merge "$out/helper.1.csv" "$out/helper.0.csv" >"$out/helper.csv"

{
    echo "[OSPRI] comparisons, ARMCI over DCMF: $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n)"
    echo
    echo "(a) ARMCI_AllFence after each rank put 8 bytes to one peer (median us, rank 0;"
    echo "    flush-puts: 0-byte puts with ack that one AllFence sent):"
    rows "$out/allfence.csv" | awk -F, '
        { k = $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k; nodes[k] = $4 }
          med[k, $2] = $7; mx[k, $2] = $11; fp[k, $2] = $12 }
        END {
            printf "    %5s %5s  %9s %9s  %6s  %14s %14s  %s\n", "procs", "nodes", "touched", "all",
                "ratio", "max-rank touch", "max-rank all", "flush-puts touched/all"
            for (i = 1; i <= n; i++) {
                k = order[i]
                printf "    %5s %5s  %9.2f %9.2f  %6.2f  %14.2f %14.2f  %s / %s\n", k, nodes[k],
                    med[k, "touched"], med[k, "all"],
                    (med[k, "touched"] > 0 ? med[k, "all"] / med[k, "touched"] : 0),
                    mx[k, "touched"], mx[k, "all"], fp[k, "touched"], fp[k, "all"]
            }
        }'
    echo
    echo "(b) blocking ARMCI_Get from rank 1 right after N non-blocking writes of 4 KiB to"
    echo "    the same allocation (-N 2 -n 1; median us; plain: nothing outstanding):"
    rows "$out/order.csv" | awk -F, '
        { k = $3 "," $4 "," $6; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
          med[k, $2] = $8; plain[$6, $2] = $11 }
        END {
            printf "    %-9s %5s %8s  %9s %9s  %6s  %s\n", "writes", "N", "get B", "strict",
                "partial", "ratio", "plain strict/partial"
            for (i = 1; i <= n; i++) {
                split(order[i], a, ",")
                s = med[order[i], "strict"]; p = med[order[i], "partial"]
                printf "    %-9s %5s %8s  %9.2f %9.2f  %6.2f  %.2f / %.2f\n", a[1], a[2], a[3], s, p,
                    (p > 0 ? s / p : 0), plain[a[3], "strict"], plain[a[3], "partial"]
            }
        }'
    echo
    echo "(c) rank 0's blocking operations on rank 1, one node (-N 1 -n 2), rank 1 idle in a"
    echo "    barrier or computing (slices without ARMCI calls); median us:"
    rows "$out/helper.csv" | awk -F, '
        { k = $3 "," $4 "," $5; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
          med[k, $2] = $7 }
        END {
            printf "    %-8s %-11s %6s  %10s %10s\n", "target", "op", "bytes", "HELPER=1", "HELPER=0"
            for (i = 1; i <= n; i++) {
                split(order[i], a, ",")
                printf "    %-8s %-11s %6s  %10.2f %10.2f\n", a[1], a[2], a[3], med[order[i], "1"],
                    med[order[i], "0"]
            }
        }'
} >"$out/table.txt"
cat "$out/table.txt"
echo "CSVs in $out" >&2
