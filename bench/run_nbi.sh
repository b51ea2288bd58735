#!/bin/sh
# Run the [SHMEM-NBI] study on the ARMCI runtime (bench/nbi_*.c) for the
# paper's three designs and write their CSVs (NAME.runK.csv, its stderr in
# NAME.runK.log, NAME.csv the median over runs), then print the tables
# (also in OUT_DIR/summary.txt).
#
#   bench/run_nbi.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and the nbi_* programs
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each configuration (default 1)
#   -q            quick: small counts, a smoke test (default OUT_DIR then
#                 BUILD_DIR/bench-nbi-results-quick)
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-nbi-results)
#
# Designs, all under emunic-run --nic portals:
#   shm    one node, ARMCI_SHM=1: same-node put/get is a direct copy
#   lb     one node, ARMCI_SHM=0: same-node put/get loops back through the NIC
#   inter  ranks on different nodes (ARMCI_SHM=0; it only concerns one node)
# Layouts: nbi_latency, nbi_rate, nbi_overlap: -N 1 -n 2 (shm, lb), -N 2 -n 1;
# nbi_stencil: 8, 27, 64 ranks as -N 1 -n R (shm, lb) and -N 2 -n 4,
# -N 3 -n 9, -N 4 -n 16 (inter); nbi_alltoall: -N 1 -n 4 (shm, lb), -N 4 -n 1.
# Extra options: $LAT_ARGS, $RATE_ARGS, $OVL_ARGS, $STENCIL_ARGS, $A2A_ARGS;
# for emunic-run: $RUN_ARGS. nbi_overlap also runs lb and inter with
# EMUNIC_POLL_US=$POLL_US (default 20000: NIC daemons that do not sleep).
# Before each run it waits (up to $QUIET_WAIT seconds, default 30; 0: not
# at all) until the host is idle.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
usage() { sed -n '2,28s/^# \{0,1\}//p' "$0"; }
runs_default=1
me=run_nbi.sh
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
bench_outdir bench-nbi-results "$@"
need="build the nbi_* targets first"
bench_need emunic-run emunic-nicd nbi_latency nbi_rate nbi_overlap nbi_stencil nbi_alltoall
mkdir -p "$out"

lat_args=${LAT_ARGS:-}
rate_args=${RATE_ARGS:-}
ovl_args=${OVL_ARGS:-}
stencil_args=${STENCIL_ARGS:-}
a2a_args=${A2A_ARGS:-}
run_args=${RUN_ARGS:-}
cubes="8 27 64"
if [ "$quick" = 1 ]; then
    lat_args="--sizes 8,4K,1M --iters 50 $lat_args"
    rate_args="--sizes 8,4K --reps 5 --trials 1 $rate_args"
    ovl_args="--sizes 8,64K,1M --iters 10 $ovl_args"
    stencil_args="--n 8 --iters 5 $stencil_args"
    a2a_args="--sizes 4K --iters 5 $a2a_args"
    cubes="8"
fi
quiet_wait=${QUIET_WAIT:-30}
poll_us=${POLL_US:-20000}
bench_name=run_nbi.sh
bench_env='^ARMCI_\|^EMUNIC_POLL_US'
job_env=""

# $1 stem, $2 ARMCI_SHM, $3 nodes, $4 ranks per node, rest: program and args;
# $job_env: more VAR=value words for the job's environment
job() {
    jstem=$1 shm=$2 nn=$3 nr=$4
    shift 4
    k=1
    while [ "$k" -le "$runs" ]; do
        # shellcheck disable=SC2086
        bench_one "$jstem.run$k" env ARMCI_SHM="$shm" $job_env "$run" -N "$nn" -n "$nr" --nic portals \
            $run_args --no-prefix --timeout 600 -- "$@"
        k=$((k + 1))
    done
    bench_merge "$jstem"
}

# $1 program: its three designs' rows in one CSV (header of the first)
combine() {
    first=1
    for f in "$@"; do
        if [ "$first" = 1 ]; then
            grep -v '^#' "$out/$f.csv"
            first=0
        else
            grep -v '^#' "$out/$f.csv" | grep -v '^bench,'
        fi
    done
}

for p in latency rate overlap; do
    case $p in
    latency) a=$lat_args ;;
    rate) a=$rate_args ;;
    *) a=$ovl_args ;;
    esac
    # shellcheck disable=SC2086
    job "nbi_$p.shm" 1 1 2 "$bin/nbi_$p" $a
    # shellcheck disable=SC2086
    job "nbi_$p.lb" 0 1 2 "$bin/nbi_$p" $a
    # shellcheck disable=SC2086
    job "nbi_$p.inter" 0 2 1 "$bin/nbi_$p" $a
    combine "nbi_$p.shm" "nbi_$p.lb" "nbi_$p.inter" >"$out/nbi_$p.csv"
done

# The NIC daemon sleeps after a poll budget (docs/core.md, "Waiting"); the
# rank's doorbell then wakes it, and where the kernel runs it decides
# whether the transfer overlaps the compute. A long budget keeps it awake.
job_env="EMUNIC_POLL_US=$poll_us"
# shellcheck disable=SC2086
job nbi_overlap.lb_poll 0 1 2 "$bin/nbi_overlap" $ovl_args
# shellcheck disable=SC2086
job nbi_overlap.inter_poll 0 2 1 "$bin/nbi_overlap" $ovl_args
job_env=""

st=""
for r in $cubes; do
    case $r in
    8) inn=2 ;;
    27) inn=3 ;;
    *) inn=4 ;;
    esac
    # shellcheck disable=SC2086
    job "nbi_stencil.p$r.shm" 1 1 "$r" "$bin/nbi_stencil" $stencil_args
    # shellcheck disable=SC2086
    job "nbi_stencil.p$r.lb" 0 1 "$r" "$bin/nbi_stencil" $stencil_args
    # shellcheck disable=SC2086
    job "nbi_stencil.p$r.inter" 0 "$inn" $((r / inn)) "$bin/nbi_stencil" $stencil_args
    st="$st nbi_stencil.p$r.shm nbi_stencil.p$r.lb nbi_stencil.p$r.inter"
done
# shellcheck disable=SC2086
combine $st >"$out/nbi_stencil.csv"

# shellcheck disable=SC2086
job nbi_alltoall.shm 1 1 4 "$bin/nbi_alltoall" $a2a_args
# shellcheck disable=SC2086
job nbi_alltoall.lb 0 1 4 "$bin/nbi_alltoall" $a2a_args
# shellcheck disable=SC2086
job nbi_alltoall.inter 0 4 1 "$bin/nbi_alltoall" $a2a_args
combine nbi_alltoall.shm nbi_alltoall.lb nbi_alltoall.inter >"$out/nbi_alltoall.csv"

# size x (design, case) table of one column: $1 CSV, $2 value column, $3 cases
pivot() {
    awk -F, -v col="$2" -v cases="$3" '
        NR == 1 { next }
        { k = $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }; v[k, $4, $2] = $col }
        END {
            nc = split(cases, c, " "); nd = split("shm lb inter", d, " ")
            printf "%8s", "size"
            for (i = 1; i <= nd; i++) for (j = 1; j <= nc; j++) printf " %14s", d[i] ":" c[j]
            printf "\n"
            for (r = 1; r <= n; r++) {
                printf "%8s", order[r]
                for (i = 1; i <= nd; i++) for (j = 1; j <= nc; j++) printf " %14s", v[order[r], d[i], c[j]]
                printf "\n"
            }
        }' "$1"
}

{
    echo "[SHMEM-NBI] on ARMCI, $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n), $runs run(s) each"
    echo "designs: shm = 1 node, ARMCI_SHM=1 (direct copy); lb = 1 node, ARMCI_SHM=0 (NIC loopback);"
    echo "inter = ranks on different nodes"
    echo
    echo "Latency, us (median): blk = ARMCI_Put/Get, nbi = NbPut/NbGet(NULL) + WaitAll"
    pivot "$out/nbi_latency.csv" 6 "put_blocking put_nbi" | sed 's/put_blocking/put_blk/g'
    pivot "$out/nbi_latency.csv" 6 "get_blocking get_nbi" | sed 's/get_blocking/get_blk/g'
    echo
    echo "Message rate, million messages/s (window $(awk -F, 'NR == 2 { print $5 }' "$out/nbi_rate.csv") then WaitAll)"
    awk -F, 'NR > 1 { $7 = sprintf("%.3f", $7 / 1e6) } { print }' OFS=, "$out/nbi_rate.csv" >"$out/nbi_rate_mps.csv"
    pivot "$out/nbi_rate_mps.csv" 7 "put_blocking put_nbi get_blocking get_nbi" | sed 's/_blocking/_blk/g'
    echo
    echo "Overlap %: (T + C - total) / min(T, C) * 100, T = issue+wait alone, C ~ T of compute"
    pivot "$out/nbi_overlap.csv" 11 "put_blocking put_nbi get_blocking get_nbi" | sed 's/_blocking/_blk/g'
    echo "  with EMUNIC_POLL_US=$poll_us (NIC daemons keep polling), overlap %:"
    for d in lb_poll inter_poll; do
        awk -F, -v d="$d" '!/^#/ && $1 != "bench" && ($2 == "put_nbi" || $2 == "get_nbi") {
                if (!n++) printf "    %-10s", d
                printf " %s/%s=%s", $2, $3, $11 }
            END { printf "\n" }' "$out/nbi_overlap.$d.csv"
    done
    echo "  T (comm_us) of the NBI get, us:"
    pivot "$out/nbi_overlap.csv" 6 "get_nbi"
    echo
    echo "3-D stencil, us per iteration (average over ranks), checksum checked against a serial solve"
    awk -F, 'NR == 1 { next }
        { k = $5 " " $4; if (!(k in s)) { s[k] = 1; o[++n] = k; g[k] = $6; nn[k] = $7; fb[k] = $9 }
          t[k, $2] = $10; ok[k] = ok[k] $13 " " }
        END { printf "%6s %-6s %-6s %4s %7s %12s %12s %8s %s\n", "ranks", "design", "grid", "n", "face_B", "blocking_us", "nbi_us", "speedup", "checksums"
              for (i = 1; i <= n; i++) { k = o[i]; split(k, p, " ")
                  printf "%6s %-6s %-6s %4s %7s %12s %12s %8.2f %s\n", p[1], p[2], g[k], nn[k], fb[k], t[k, "blocking"], t[k, "nbi"],
                      (t[k, "nbi"] > 0 ? t[k, "blocking"] / t[k, "nbi"] : 0), ok[k] } }' "$out/nbi_stencil.csv"
    echo
    echo "All-to-all with overlapped compute (4 ranks), us; barrier time subtracted"
    awk -F, 'NR == 1 { printf "%8s %-6s %-9s %9s %9s %9s %9s %9s %9s %8s\n", "size", "design", "case", "barrier", "comm", "compute", "init", "wait", "total", "overlap%"; next }
        { printf "%8s %-6s %-9s %9s %9s %9s %9s %9s %9s %8s\n", $3, $4, $2, $7, $8, $9, $10, $11, $12, $13 }' "$out/nbi_alltoall.csv"
} >"$out/summary.txt"
cat "$out/summary.txt"
echo "CSVs in $out" >&2
