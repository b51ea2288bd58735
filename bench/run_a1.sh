#!/bin/bash
# The [OSPRI] figures with OSPRI's own runtime: A1 (branches/a1-lite of the
# OSPRI archive) built unmodified over emunic's DCMF, next to emunic's own
# ARMCI over the same DCMF and raw DCMF put/get (dcmf_latency), in one run.
#
#   bench/run_a1.sh [-b BUILD_DIR] [-t TRIALS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  emunic build tree (default: build/ at the top of the tree);
#                 it is installed to OUT_DIR/prefix
#   -t TRIALS     trials of each latency program (default 15)
#   -q            quick: 3 trials, AllFlushAll at 2x1 only
#   -S LAYOUTS    instead: AllFlushAll against scale at LAYOUTS (for example
#                 2x1,2x2,4x1,4x2), every MPI_Barrier of the benchmark made
#                 to yield (bench/mpi_yield_barrier.c preloaded: MPICH's
#                 spins), A1 also without its spinning helper thread
#                 (A1D_ENABLE_CHT=0)
#   OUT_DIR       default BUILD_DIR/bench-a1-results
#
# A1 is built by the client stage's recipe (tests/clients/a1_recipe.sh:
# automake 1.11, mpicc.mpich, --with-device=dcmfd against the installed
# dcmf.h) and run with the same glue (jemalloc preloaded,
# A1D_GET_PACKING_LIMIT=8192, --no-aslr). OSPRI's benchmarks/armci
# programs ARMCI_Put_latency, ARMCI_Get_latency and
# ARMCI_AllFlushAll_latency are built twice from the same source: against
# A1's armci.h/liba1.a and against emunic's armci.h/libarmci. Each trial
# runs A1's (as it ships, and without its helper thread: a1_nocht), ours
# (default: a data-server helper thread per node), ours with
# ARMCI_HELPER=0 and dcmf_latency back to back at 2x1 (--nic dcmf);
# AllFlushAll runs at 2x1, 2x2 and 4x1, up to 5 trials (its 8-byte row: put
# to every rank, ARMCI_AllFence, MPI_Barrier; later rows accumulate
# earlier ones, a bug of the benchmark). The table has medians, min and
# max over trials.
# Needs ../shared/clients (or $EMUNIC_CLIENTS), mpich, automake1.11 and
# libjemalloc2 (scripts/deps.sh installs them).
set -u -o pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
trials=15
quick=0
scale=""
while getopts "b:t:qS:h" o; do
    case $o in
    b) build=$(cd "$OPTARG" && pwd) ;;
    t) trials=$OPTARG ;;
    q) quick=1; trials=3 ;;
    S) scale=${OPTARG//,/ } ;;
    h) sed -n '2,34s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
out=${1:-"$build/bench-a1-results"}
mkdir -p "$out"
out=$(cd "$out" && pwd)
clients=${EMUNIC_CLIENTS:-$src/../shared/clients}
tarball=$(ls "$clients"/ospri-a1-lite-*.tar.gz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "run_a1.sh: no ospri-a1-lite-*.tar.gz in $clients" >&2; exit 2; }
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
for t in automake-1.11 mpicc.mpich; do
    command -v $t >/dev/null || { echo "run_a1.sh: $t missing (scripts/deps.sh)" >&2; exit 2; }
done
[ -r $jemalloc ] || { echo "run_a1.sh: $jemalloc missing (libjemalloc2)" >&2; exit 2; }
[ -x "$build/bin/dcmf_latency" ] || { echo "run_a1.sh: $build/bin/dcmf_latency missing; build first" >&2; exit 2; }

step() { echo "run_a1.sh: $* [$(date +%T)]" >&2; }
# shellcheck source=tests/clients/a1_recipe.sh
. "$src/tests/clients/a1_recipe.sh"
prefix=$out/prefix lib=$out/prefix/lib
step "install emunic to $prefix"
cmake --install "$build" --prefix "$prefix" >"$out/install.log" 2>&1 || { echo "run_a1.sh: install failed ($out/install.log)" >&2; exit 1; }

step "build A1 (autoreconf, configure --with-device=dcmfd, make)"
rm -rf "$out/src" && mkdir -p "$out/src" && tar -xzf "$tarball" -C "$out/src"
a1=$(dirname "$(find "$out/src" -path '*/a1-lite/configure.ac' -print -quit)")
a1_install "$a1" "$out/a1" "$prefix" >"$out/a1-build.log" 2>&1 ||
    { echo "run_a1.sh: A1 does not build ($out/a1-build.log)" >&2; exit 1; }

step "build OSPRI's ARMCI benchmarks against A1 and against emunic"
progs="ARMCI_Put_latency ARMCI_Get_latency ARMCI_AllFlushAll_latency"
mkdir -p "$out/bin"
for p in $progs; do
    mpicc.mpich -g -O2 -fcommon -I"$out/a1/include" -o "$out/bin/$p.a1" "$a1/benchmarks/armci/$p.c" \
        -L"$out/a1/lib" -la1 -L"$lib" -Wl,-rpath,"$lib" -ldcmf -lpthread -lm &&
    mpicc.mpich -g -O2 -fcommon -I"$prefix/include" -o "$out/bin/$p.ours" "$a1/benchmarks/armci/$p.c" \
        -L"$lib" -Wl,-rpath,"$lib" -larmci -lpthread -lm || { echo "run_a1.sh: $p does not build" >&2; exit 1; }
done >"$out/bench-build.log" 2>&1
ybar=""
if [ -n "$scale" ]; then
    ybar=$out/bin/mpi_yield_barrier.so
    mpicc.mpich -O2 -shared -fPIC -o "$ybar" "$src/bench/mpi_yield_barrier.c" >>"$out/bench-build.log" 2>&1 ||
        { echo "run_a1.sh: mpi_yield_barrier.c does not build" >&2; exit 1; }
fi

export LD_LIBRARY_PATH=$lib
run="$prefix/bin/emunic-run"
# one job; its rank-0 lines, prefix stripped, to stdout
job() { # LAYOUT IMPL PROG
    local n=${1%x*} r=${1#*x}
    local tmo=${4:-240}
    local pre=${ybar:+ $ybar}
    case $2 in
    a1|a1_nocht) timeout $((tmo + 60)) "$run" -N "$n" -n "$r" --nic dcmf --no-aslr --timeout "$tmo" -- \
            env LD_PRELOAD="$jemalloc$pre" A1D_GET_PACKING_LIMIT=8192 \
            A1D_ENABLE_CHT=$([ "$2" = a1 ] && echo 1 || echo 0) "$out/bin/$3.a1" ;;
    ours) timeout $((tmo + 60)) "$run" -N "$n" -n "$r" --nic dcmf --timeout "$tmo" -- \
            env LD_PRELOAD="${pre# }" "$out/bin/$3.ours" ;;
    ours_nohelper) timeout $((tmo + 60)) "$run" -N "$n" -n "$r" --nic dcmf --timeout "$tmo" -- \
            env LD_PRELOAD="${pre# }" ARMCI_HELPER=0 "$out/bin/$3.ours" ;;
    esac 2>&1 | sed -n 's/^\[n0\.r0\] *//p'
}
# size and remote-completion column of a latency program's table
rows() { awk -v i="$1" -v t="$2" -v c="$3" '$1 ~ /^[0-9]+$/ && NF >= 2 && !seen[$1]++ { print i, c, $1, $NF, t }'; }

raw="$out/trials.txt"
: >"$raw"
: >"$out/failures.txt"
echo "# run_a1.sh host=$(hostname) nproc=$(nproc) date=$(date -u +%FT%TZ) commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null) trials=$trials${scale:+ scale=$scale (yielding MPI_Barrier)}" | tee "$out/table.txt" >&2
[ -n "$scale" ] && latency_trials=0 || latency_trials=$trials
for t in $(seq 1 "$latency_trials"); do
    step "trial $t of $trials"
    for p in ARMCI_Put_latency ARMCI_Get_latency; do
        for impl in a1 a1_nocht ours ours_nohelper; do
            # a run that fails (A1's own bugs) gives no figure, only a count
            if job 2x1 $impl $p >"$out/last.txt"; then
                rows "$impl" "$t" "${p#ARMCI_}" <"$out/last.txt" >>"$raw"
            else
                echo "$impl ${p#ARMCI_} failed (exit $?) in trial $t" >>"$out/failures.txt"
            fi
        done
    done
    timeout 300 "$run" -N 2 -n 1 --nic dcmf -- "$build/bin/dcmf_latency" --sizes 8,1024,65536,524288 \
        --cases put,get --trials 1 2>/dev/null | sed -n 's/^\[n0\.r0\] //p' |
        awk -F, -v t="$t" '$1 == "dcmf_latency" && ($2 == "put" || $2 == "get") { print "raw_dcmf", $2, $3, $7, t }' >>"$raw"
done
layouts="2x1 2x2 4x1"
[ $quick = 1 ] && layouts=2x1
impls="a1 ours ours_nohelper"
[ -n "$scale" ] && layouts=$scale impls="a1 a1_nocht ours ours_nohelper"
for l in $layouts; do
    for t in $(seq 1 $(( trials < 5 ? trials : 5 ))); do
        step "AllFlushAll $l trial $t"
        for impl in $impls; do
            # only the first (8-byte) row is used: a run may be cut short
            # by its --timeout once it is printed (A1's rows take seconds)
            job "$l" $impl ARMCI_AllFlushAll_latency 20 >"$out/last.txt"
            if grep -qE '^8 ' "$out/last.txt"; then
                awk -v i="$impl" -v t="$t" -v l="$l" '$1 == 8 && !seen++ { print i, "AllFlushAll_" l, 8, $2, t }' \
                    "$out/last.txt" >>"$raw"
            else
                echo "$impl AllFlushAll_$l failed (no 8-byte row) in trial $t" >>"$out/failures.txt"
            fi
        done
    done
done

{
    printf "%-13s %-22s %8s %10s %10s %10s %7s\n" impl case size median_us min_us max_us trials
    sort -k1,1 -k2,2 -k3n "$raw" | awk '
        function flush() { if (n) { m = int((n + 1) / 2)
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
            printf "%-13s %-22s %8s %10.2f %10.2f %10.2f %7d\n", k1, k2, k3, v[m], v[1], v[n], n } n = 0 }
        { key = $1 " " $2 " " $3; if (key != last) { flush(); last = key; k1 = $1; k2 = $2; k3 = $3 } v[++n] = $4 }
        END { flush() }' | grep -E ' (8|1024|65536|524288) '
    [ -s "$out/failures.txt" ] && { echo "failed runs (no figure):"; sort "$out/failures.txt" | sed 's/ in trial [0-9]*$//' | uniq -c; }
} | tee -a "$out/table.txt"
step "per-trial values in $raw, table in $out/table.txt"
