#!/bin/sh
# emunic side by side with the native shared-memory transports of this box:
# builds small peer programs (bench/peers/), then runs round after round
# (round k: every peer, then every emunic program), and prints one table of
# medians over the rounds with each value's ratio to libfabric shm's.
#
#   bench/run_peers.sh [-b BUILD_DIR] [-r RUNS] [-q] [--busy] [--sweep] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run and the bench programs
#                 (default: build/ at the top of the source tree)
#   -r RUNS       rounds (default 3)
#   -q            quick: small iteration counts and 1 round (unless -r), a smoke test
#   --busy        one CPU hog per core (a shell loop) during every
#                 measurement: does emunic slow down more than the peers?
#                 (slow: on 2 cores a round took ~12 min instead of ~15 s)
#   --sweep       also put latency against size ($SWEEP_SIZES, default
#                 8,64,512,4K,32K,256K,1M) in every round: fi_rma and mpi_rma
#                 (Win_allocate) --lat-sizes, ucx_perftest ucp_put_lat per
#                 size, portals_lat --sizes at 2x1 and 1x2; rows
#                 "sweep: SYSTEM" in records.csv, medians in sweep.csv
#                 (draw it with bench/plot_peers)
#   OUT_DIR       default BUILD_DIR/bench-peers (-quick with -q, -busy with
#                 --busy, -sweep with --sweep); raw/NAME.runK.{out,err} per
#                 run, records.csv (every value of every round), peers.csv
#                 (the table), sweep.csv (system,size,median_us,rounds)
# Peers, from Debian packages (a missing one is named and its peer skipped;
# this script installs nothing): libfabric-dev (shm provider: fi_rma),
# mpich (MPI RMA over its ch4:ucx device: mpi_rma, with MPI_Win_allocate
# and MPI_Win_create memory), ucx-utils (ucx_perftest, server and client on
# 127.0.0.1). UCX runs with UCX_TLS=sm,self (shared memory only), also
# under MPICH. Ratios: value / libfabric shm's value of the same metric
# (latency: > 1 is slower; bandwidth and rate: < 1 is slower).
# Every process runs under timeout. $QUIET_WAIT (default 0: the alternating
# rounds are what keeps the comparison fair) waits up to that many seconds
# before each round for an idle host, as run_core.sh does.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
usage() { sed -n '2,35s/^# \{0,1\}//p' "$0"; }
me=run_peers.sh
runs_default=3 runs_quick=1

# --busy and --sweep are long options, which getopts cannot take: pull
# them out first
busy=0 sweep=0
for a in "$@"; do
    shift
    case $a in
    --busy) busy=1 ;;
    --sweep) sweep=1 ;;
    *) set -- "$@" "$a" ;;
    esac
done

# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
sub=bench-peers
[ "$busy" = 1 ] && sub=$sub-busy
[ "$sweep" = 1 ] && sub=$sub-sweep
bench_outdir "$sub" "$@"
need="build them first: cmake --build $build --target emunic-run emunic-nicd portals_lat portals_bw portals_msgrate core_pingpong core_bw pami_rma dcmf_latency"
bench_need emunic-run emunic-nicd
quiet_wait=${QUIET_WAIT:-0}
[ "$busy" = 1 ] && quiet_wait=0
mkdir -p "$out/raw" "$out/bin"
pbin="$out/bin"
rec="$out/records.csv"
: >"$rec"

load() { cut -d' ' -f1-3 /proc/loadavg; }
host=$(uname -n)
ncpu=$(nproc)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load_start=$(load)
# what emunic was measured: the commit and when the bench programs were built
emu_rev="$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown), emunic-run built $(date -u -r "$bin/emunic-run" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || echo '?')"

# ---- iteration counts ------------------------------------------------------
if [ "$quick" = 1 ]; then
    peer_args="--iters 3000 --warmup 300 --trials 3 --bw-windows 8 --rate-windows 200"
    ucx_lat_n=3000 ucx_bw_n=200 ucx_mr_n=100000 ucx_warm=300
    ptl_lat_args="--iters 2000"
    ptl_bw_args="--trials 1"
    pp_args="--iters 2000 --warmup 200"
    cbw_args="--trials 1 --volume 32M --msg-windows 200"
    pami_lat_args="--iters 500 --trials 1"
    pami_bw_args="--trials 1"
    dcmf_args="--iters 500 --trials 1"
    tmo=120
else
    peer_args="--iters 20000 --warmup 1000 --trials 5 --bw-windows 32 --rate-windows 2000"
    ucx_lat_n=20000 ucx_bw_n=2000 ucx_mr_n=1000000 ucx_warm=1000
    ptl_lat_args="--iters 20000"
    ptl_bw_args="--trials 3"
    pp_args="--iters 20000 --warmup 1000"
    cbw_args="--trials 3"
    pami_lat_args="--iters 2000 --trials 5"
    pami_bw_args="--trials 3"
    dcmf_args="--iters 2000 --trials 5"
    tmo=600
fi

# ---- --sweep: the sizes, in bytes (every system is given the same list) ---
sweep_sizes=""
if [ "$sweep" = 1 ]; then
    for z in $(echo "${SWEEP_SIZES:-8,64,512,4K,32K,256K,1M}" | tr ',' ' '); do
        case $z in
        *[Kk]) n=${z%?} f=1024 ;;
        *[Mm]) n=${z%?} f=1048576 ;;
        *) n=$z f=1 ;;
        esac
        case $n in '' | *[!0-9]*) echo "$me: SWEEP_SIZES: '$z' is not a size (8, 4K, 1M)" >&2; exit 2 ;; esac
        n=$((n * f))
        # 1 MiB: the buffer the peers register
        if [ "$n" -lt 1 ] || [ "$n" -gt 1048576 ]; then
            echo "$me: SWEEP_SIZES: $z is outside 1..1M" >&2
            exit 2
        fi
        sweep_sizes="$sweep_sizes,$n"
    done
    sweep_sizes=${sweep_sizes#,}
    # an older portals_lat has no --sizes: say so once, not as a failure per round
    if [ -x "$bin/portals_lat" ] && ! "$bin/portals_lat" --help 2>/dev/null | grep -q -e --sizes; then
        echo "$me: $bin/portals_lat has no --sizes (rebuild it): the sweep skips emunic" >&2
    fi
fi

# ---- the peers: what is installed, and building them ----------------------
cflags="-std=c11 -O2 -Wall -Wextra"
have_fi=0 have_mpi=0 have_ucx=0
# shellcheck disable=SC2086 # $cflags is a word list
if [ ! -f /usr/include/rdma/fabric.h ]; then
    echo "$me: package libfabric-dev is not installed: skipping the libfabric shm peer"
elif ! timeout 120 cc $cflags -o "$pbin/fi_rma" "$src/bench/peers/fi_rma.c" -lfabric 2>"$out/raw/build_fi_rma.err"; then
    echo "$me: bench/peers/fi_rma.c did not build (see $out/raw/build_fi_rma.err): skipping libfabric shm"
else
    have_fi=1
fi
mpiexec=""
for m in mpiexec.hydra mpiexec.mpich; do
    if command -v "$m" >/dev/null 2>&1; then mpiexec=$m; break; fi
done
# shellcheck disable=SC2086 # $cflags is a word list
if ! command -v mpicc.mpich >/dev/null 2>&1 || [ -z "$mpiexec" ]; then
    echo "$me: package mpich is not installed (mpicc.mpich, mpiexec.hydra): skipping the MPICH RMA peer"
elif ! timeout 120 mpicc.mpich $cflags -o "$pbin/mpi_rma" "$src/bench/peers/mpi_rma.c" 2>"$out/raw/build_mpi_rma.err"; then
    echo "$me: bench/peers/mpi_rma.c did not build (see $out/raw/build_mpi_rma.err): skipping MPICH RMA"
else
    have_mpi=1
fi
if ! command -v ucx_perftest >/dev/null 2>&1; then
    echo "$me: package ucx-utils is not installed (ucx_perftest): skipping the UCX peer"
else
    have_ucx=1
fi

# the emunic programs that are built (one line for each that is not)
emu_have() {
    [ -x "$bin/$1" ] && return 0
    echo "$me: $bin/$1 is missing (cmake --build $build --target $1): skipping it" >&2
    return 1
}

# ---- the CPU hogs of --busy ------------------------------------------------
hogs=""
stop_hogs() {
    for p in $hogs; do kill "$p" 2>/dev/null || :; done
    hogs=""
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT TERM
if [ "$busy" = 1 ]; then
    i=0
    while [ "$i" -lt "$ncpu" ]; do
        # bounded like everything else; timeout passes our kill on to the loop
        timeout 14400 sh -c 'while :; do :; done' &
        hogs="$hogs $!"
        i=$((i + 1))
    done
    echo "$me: --busy: $ncpu CPU hogs running (pids$hogs)" >&2
    sleep 2 # let the load show before the first measurement
fi

# ---- running and recording -------------------------------------------------
# records.csv lines are "round,system,metric,value": system names carry no comma.
# One run: $1 name, rest the command, under timeout; raw output in
# raw/NAME.runK.out and .err. Fails (1) with a note rather than stopping the
# whole comparison: one broken system must not hide the others.
run_one() {
    stem=$1
    shift
    f="$out/raw/$stem.run$k"
    echo "== round $k/$runs: $stem (load $(load)): $*" >&2
    timeout -k 10 "$tmo" "$@" >"$f.out" 2>"$f.err" && return 0
    echo "$me: $stem failed in round $k (exit $?); see $f.err" >&2
    tail -n 3 "$f.err" >&2
    return 1
}

# Record "metric,value" lines of $f.out (the peer programs' format) as $1.
rec_kv() {
    awk -F, -v k="$k" -v sys="$1" '!/^#/ && NF == 2 { print k "," sys "," $1 "," $2 }' "$f.out" >>"$rec"
}

# Record column $3 of the CSV rows of $f.out whose column $2 is $1 (and,
# if $5 is given, whose "size" column is $5) as system $4, metric $6; the
# header line names the columns.
rec_col() {
    awk -F, -v k="$k" -v key="$1" -v kcol="$2" -v vcol="$3" -v sys="$4" -v size="$5" -v metric="$6" '
        /^#/ { next }
        !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
        $col[kcol] == key && (size == "" || $col["size"] == size) && $col[vcol] != "" {
            print k "," sys "," metric "," $col[vcol] }' "$f.out" >>"$rec"
}

# ucx_perftest: a server and a client on 127.0.0.1; $1 name, rest the
# client's test options. The port is taken per run; the client starts once
# the server listens (seen in /proc/net/tcp, as its stdout is buffered).
ucx_port=$((20000 + $$ % 20000))
ucx_run() {
    stem=$1
    shift
    ucx_port=$((ucx_port + 1))
    [ "$ucx_port" -lt 60000 ] || ucx_port=20001
    f="$out/raw/$stem.run$k"
    UCX_TLS=sm,self timeout -k 5 "$tmo" ucx_perftest -p "$ucx_port" >"$f.server" 2>&1 &
    spid=$!
    hex=$(printf '%04X' "$ucx_port")
    i=0
    while [ "$i" -lt 100 ] && ! awk -v p=":$hex" '$2 ~ p "$" && $4 == "0A" { f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
        kill -0 "$spid" 2>/dev/null || break
        sleep 0.05
        i=$((i + 1))
    done
    rc=0
    run_one "$stem" env UCX_TLS=sm,self ucx_perftest 127.0.0.1 -p "$ucx_port" -v "$@" || rc=1
    if [ "$rc" = 1 ]; then kill "$spid" 2>/dev/null || :; fi
    wait "$spid" 2>/dev/null || :
    return "$rc"
}

# ucx_perftest -v: a header line and a line of values; $1 system, $2
# column, $3 metric, $4 factor.
rec_ucx() {
    awk -F, -v k="$k" -v sys="$1" -v c="$2" -v metric="$3" -v fac="$4" '
        !hdr && /^iterations,/ { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
        hdr && NF > 1 && (c in col) { printf "%s,%s,%s,%.6g\n", k, sys, metric, $col[c] * fac; exit }' "$f.out" >>"$rec"
}

emu() { # $1 stem, $2 nic, $3 nodes, $4 ranks per node, rest: program and args
    stem=$1 nic=$2 nn=$3 nr=$4
    shift 4
    run_one "$stem" "$run" -N "$nn" -n "$nr" --nic "$nic" --no-prefix --timeout "$((tmo - 20))" -- "$@"
}

# shellcheck disable=SC2086 # the *_args lists are word lists on purpose
round() {
    if [ "$have_fi" = 1 ] && run_one fi_shm env FI_PROVIDER=shm "$pbin/fi_rma" $peer_args; then
        rec_kv "libfabric shm"
    fi
    if [ "$have_mpi" = 1 ]; then
        for mem in allocate create; do
            opt=""
            [ "$mem" = create ] && opt=--create
            # -launcher fork -iface lo: no ssh, control traffic on loopback only
            if run_one "mpich_$mem" env UCX_TLS=sm,self "$mpiexec" -launcher fork -iface lo -n 2 \
                "$pbin/mpi_rma" $opt $peer_args; then
                rec_kv "MPICH RMA (Win_$mem)"
            fi
        done
    fi
    if [ "$have_ucx" = 1 ]; then
        # ping-pong: perftest reports half a round trip; x2 for the round trip
        if ucx_run ucx_put_lat -t ucp_put_lat -s 8 -n "$ucx_lat_n" -w "$ucx_warm"; then
            rec_ucx "UCX perftest" 50.0_percentile_lat put_lat_8B_us 2
        fi
        # perftest's MB are MiB
        if ucx_run ucx_put_bw -t ucp_put_bw -s 1048576 -n "$ucx_bw_n" -w 20; then
            rec_ucx "UCX perftest" overall_bw put_bw_1M_MBps 1.048576
        fi
        if ucx_run ucx_put_mr -t ucp_put_bw -s 8 -n "$ucx_mr_n" -w "$ucx_warm"; then
            rec_ucx "UCX perftest" overall_mr msgrate_8B_per_s 1
        fi
    fi

    # emunic: the Portals put with a full ACK event is the round trip that
    # fi_write with delivery complete and MPI_Put + flush stand for
    for lay in 2x1 1x2; do
        if emu_have portals_lat && emu "portals_lat_$lay" portals "${lay%x*}" "${lay#*x}" "$bin/portals_lat" $ptl_lat_args; then
            rec_col ptl_put_ack_event case median_us "emunic Portals $lay" "" put_lat_8B_us
            rec_col ptl_get_reply_ct case median_us "emunic Portals $lay" "" get_lat_8B_us
        fi
    done
    if emu_have portals_bw && emu portals_bw portals 2 1 "$bin/portals_bw" --window 16 --max 1M $ptl_bw_args; then
        rec_col 1048576 size put_heap_MBps "emunic Portals 2x1 heap" "" put_bw_1M_MBps
        rec_col 1048576 size put_private_MBps "emunic Portals 2x1 private" "" put_bw_1M_MBps
        rec_col 1048576 size memcpy_MBps "memcpy in portals_bw (warm)" "" put_bw_1M_MBps
    fi
    if emu_have portals_msgrate && emu portals_msgrate portals 2 1 "$bin/portals_msgrate" --window 64; then
        awk -F, -v k="$k" '
            $1 == "# msgrate" { print k ",emunic Portals 2x1 heap,msgrate_8B_per_s," $4 }
            $1 == "# msgrate_private" { print k ",emunic Portals 2x1 private,msgrate_8B_per_s," $4 }' "$f.out" >>"$rec"
    fi
    if emu_have core_pingpong && emu core_pingpong core 2 1 "$bin/core_pingpong" --only rtt --sizes 8 $pp_args; then
        rec_col rtt_remote_cq case median_us "emunic core 2x1" 8 put_lat_8B_us
    fi
    if emu_have core_bw && emu core_bw core 2 1 "$bin/core_bw" --sizes 1M $cbw_args; then
        rec_col write_heap case mbps "emunic core 2x1 heap" 1048576 put_bw_1M_MBps
        rec_col write_private case mbps "emunic core 2x1 private" 1048576 put_bw_1M_MBps
        rec_col memcpy case mbps "memcpy in core_bw (cold)" 1048576 put_bw_1M_MBps
        rec_col msgrate_all_cq case ops_s "emunic core 2x1 heap" 8 msgrate_8B_per_s
    fi
    if emu_have pami_rma; then
        if emu pami_rma_lat pami 2 1 "$bin/pami_rma" --sizes 8 $pami_lat_args; then
            rec_col put case us_per_op "emunic PAMI 2x1 private" 8 put_lat_8B_us
            rec_col get case us_per_op "emunic PAMI 2x1 private" 8 get_lat_8B_us
        fi
        if emu pami_rma_bw pami 2 1 "$bin/pami_rma" --sizes 1M --window 16 $pami_bw_args; then
            rec_col put case MBps "emunic PAMI 2x1 private" 1048576 put_bw_1M_MBps
        fi
    fi
    if emu_have dcmf_latency && emu dcmf_latency dcmf 2 1 "$bin/dcmf_latency" --sizes 8 --cases put,get $dcmf_args; then
        rec_col put case median_us "emunic DCMF 2x1 private" 8 put_lat_8B_us
        rec_col get case median_us "emunic DCMF 2x1 private" 8 get_lat_8B_us
    fi
}

# --sweep, after round's programs: put latency against size. Its rows are
# "sweep: SYSTEM" in records.csv, so the 8 B point of the sweep does not
# mix with round's put_lat_8B_us of the same system in peers.csv.
# The peers print their fixed metrics first, then after "# lat-sizes" one
# put_lat_<N>B_us line per size: record those as system "sweep: $1".
rec_sizes() {
    awk -F, -v k="$k" -v sys="sweep: $1" '
        /^# lat-sizes/ { on = 1; next }
        on && !/^#/ && NF == 2 && $1 ~ /^put_lat_[0-9]+B_us$/ { print k "," sys "," $1 "," $2 }' "$f.out" >>"$rec"
}

# shellcheck disable=SC2086 # the *_args lists are word lists on purpose
sweep_round() {
    if [ "$have_fi" = 1 ] && run_one fi_shm_sweep env FI_PROVIDER=shm "$pbin/fi_rma" $peer_args \
        --lat-sizes "$sweep_sizes"; then
        rec_sizes "libfabric shm"
    fi
    if [ "$have_mpi" = 1 ] && run_one mpich_allocate_sweep env UCX_TLS=sm,self "$mpiexec" -launcher fork -iface lo \
        -n 2 "$pbin/mpi_rma" $peer_args --lat-sizes "$sweep_sizes"; then
        rec_sizes "MPICH RMA (Win_allocate)"
    fi
    if [ "$have_ucx" = 1 ]; then
        for z in $(echo "$sweep_sizes" | tr ',' ' '); do
            # a ping-pong without flush (see the notes under the table),
            # named so in the system too; x2: perftest reports half of it
            if ucx_run "ucx_put_lat_${z}B" -t ucp_put_lat -s "$z" -n "$ucx_lat_n" -w "$ucx_warm"; then
                rec_ucx "sweep: UCX perftest ping-pong (no flush)" 50.0_percentile_lat "put_lat_${z}B_us" 2
            fi
        done
    fi
    if emu_have portals_lat && "$bin/portals_lat" --help 2>/dev/null | grep -q -e --sizes; then
        for lay in 2x1 1x2; do
            if emu "portals_lat_sweep_$lay" portals "${lay%x*}" "${lay#*x}" "$bin/portals_lat" $ptl_lat_args \
                --sizes "$sweep_sizes"; then
                awk -F, -v k="$k" -v sys="sweep: emunic Portals $lay" '
                    /^#/ { next }
                    !hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
                    $col["case"] == "ptl_put_ack_event" {
                        print k "," sys ",put_lat_" $col["size"] "B_us," $col["median_us"] }' "$f.out" >>"$rec"
            fi
        done
    fi
}

k=1
while [ "$k" -le "$runs" ]; do
    [ "$quiet_wait" -gt 0 ] && bench_quiet
    echo "== round $k/$runs starts (load $(load))" >&2
    round
    [ "$sweep" = 1 ] && sweep_round
    k=$((k + 1))
done
load_end=$(load)
stop_hogs

# ---- the table ---------------------------------------------------------------
versions=""
[ "$have_fi" = 1 ] && versions="libfabric $(awk '/^# fi_rma/ { for (i = 1; i <= NF; i++) if ($i ~ /^version=/) { sub(/version=/, "", $i); print $i; exit } }' "$out"/raw/fi_shm.run*.out 2>/dev/null | head -n 1)"
[ "$have_mpi" = 1 ] && versions="$versions, MPICH $(mpichversion 2>/dev/null | awk -F'\t' '/Version/ { print $NF; exit }')"
[ "$have_ucx" = 1 ] && versions="$versions, UCX $(ucx_info -v 2>/dev/null | awk '/Version/ { print $3; exit }')"
mode="normal"
[ "$quick" = 1 ] && mode="quick"
[ "$busy" = 1 ] && mode="$mode, busy ($ncpu CPU hogs)"
[ "$sweep" = 1 ] && mode="$mode, sweep"

{
    echo "# run_peers.sh host=$host nproc=$ncpu date=$started rounds=$runs mode=\"$mode\" peers=\"${versions#, }\""
    echo "# loadavg start: $load_start; end: $load_end"
    echo "# emunic: $emu_rev"
    echo "system,metric,median,ratio_to_libfabric_shm,rounds"
    # median over the rounds per (system, metric); metrics in a fixed order,
    # systems in the order they ran
    awk -F, '
        $2 ~ /^sweep: / { next }    # in sweep.csv
        { key = $2 SUBSEP $3
          if (!(key in n)) { order[++nk] = key; sysof[key] = $2; metof[key] = $3 }
          v[key, ++n[key]] = $4 + 0 }
        END {
            for (i = 1; i <= nk; i++) {
                key = order[i]; m = n[key]
                for (a = 2; a <= m; a++) {      # insertion sort of the rounds
                    x = v[key, a]
                    for (b = a - 1; b >= 1 && v[key, b] > x; b--) v[key, b + 1] = v[key, b]
                    v[key, b + 1] = x
                }
                med[key] = m % 2 ? v[key, (m + 1) / 2] : (v[key, m / 2] + v[key, m / 2 + 1]) / 2
            }
            nm = split("put_lat_8B_us get_lat_8B_us put_bw_1M_MBps msgrate_8B_per_s", mets, " ")
            for (j = 1; j <= nm; j++)
                for (i = 1; i <= nk; i++) {
                    key = order[i]
                    if (metof[key] != mets[j]) continue
                    ref = "libfabric shm" SUBSEP mets[j]
                    ratio = "-"
                    if (ref in med && med[ref] > 0) {
                        x = med[key] / med[ref]
                        ratio = sprintf(x >= 100 ? "%.0f" : x >= 0.1 ? "%.2f" : "%.2g", x)
                    }
                    val = med[key] >= 1000 ? sprintf("%.0f", med[key]) : sprintf("%.3g", med[key])
                    print sysof[key] "," mets[j] "," val "," ratio "," n[key]
                }
        }' "$rec"
} >"$out/peers.csv"

echo "# host $host, nproc $ncpu, $started, $runs round(s), $mode"
echo "# peers: ${versions#, }; emunic: $emu_rev"
echo "# load average at start: $load_start; at end: $load_end"
awk -F, '
    /^#/ || /^system,/ { next }
    { r[++n] = $0; s[n] = $1; m[n] = $2; v[n] = $3; q[n] = $4
      if (length($1) > ws) ws = length($1); if (length($2) > wm) wm = length($2) }
    END {
        if (ws < 6) ws = 6
        printf "%-" ws "s | %-" wm "s | %10s | %s\n", "system", "metric", "median", "ratio to libfabric shm"
        for (i = 1; i <= n; i++) {
            if (i > 1 && m[i] != m[i - 1]) printf "\n"
            printf "%-" ws "s | %-" wm "s | %10s | %s\n", s[i], m[i], v[i], q[i]
        }
    }' "$out/peers.csv"
cat <<'EOF'
# put_lat: libfabric fi_writemsg(FI_DELIVERY_COMPLETE) + completion; MPICH MPI_Put + MPI_Win_flush;
#   UCX ucp_put_lat ping-pong round trip (2 x perftest's half round trip: the peer sees the data by
#   polling memory, no flush); emunic PtlPut + ACK event, core write + remote CQ, PAMI_Put until
#   rdone, DCMF put until cb_ack. get_lat: read/get until the data is local. MPICH and UCX: UCX_TLS=sm,self.
# put_bw: 1 MiB puts, 16 in flight (core_bw: 64), remote completion except UCX (ucp_put_bw).
# msgrate: 8 B puts, 64 in flight, each completed (core_bw msgrate_all_cq; Portals: counting ACKs).
# ratio: median / libfabric shm median of the same metric (latency: > 1 slower; bandwidth, rate: < 1 slower).
EOF

# ---- --sweep: sweep.csv and its table -----------------------------------------
if [ "$sweep" = 1 ]; then
    {
        echo "# run_peers.sh --sweep host=$host nproc=$ncpu date=$started rounds=$runs mode=\"$mode\" peers=\"${versions#, }\""
        echo "# loadavg start: $load_start; end: $load_end"
        echo "# emunic: $emu_rev"
        echo "# put latency (round trip to remote completion; UCX: ping-pong, no flush), median over the rounds"
        echo "system,size,median_us,rounds"
        # systems in the order they ran, sizes ascending
        awk -F, '
            $2 !~ /^sweep: / || $3 !~ /^put_lat_[0-9]+B_us$/ { next }
            { sys = substr($2, 8); z = $3; gsub(/[^0-9]/, "", z); z += 0
              if (!(sys in seen)) { seen[sys] = 1; order[++ns] = sys }
              if (!((sys, z) in n)) { nz[sys]++; zs[sys, nz[sys]] = z }
              v[sys, z, ++n[sys, z]] = $4 + 0 }
            END {
                for (i = 1; i <= ns; i++) {
                    s = order[i]
                    for (a = 2; a <= nz[s]; a++) {      # sizes ascending
                        x = zs[s, a]
                        for (b = a - 1; b >= 1 && zs[s, b] > x; b--) zs[s, b + 1] = zs[s, b]
                        zs[s, b + 1] = x
                    }
                    for (j = 1; j <= nz[s]; j++) {
                        z = zs[s, j]; m = n[s, z]
                        for (a = 2; a <= m; a++) {      # the rounds, sorted
                            x = v[s, z, a]
                            for (b = a - 1; b >= 1 && v[s, z, b] > x; b--) v[s, z, b + 1] = v[s, z, b]
                            v[s, z, b + 1] = x
                        }
                        med = m % 2 ? v[s, z, (m + 1) / 2] : (v[s, z, m / 2] + v[s, z, m / 2 + 1]) / 2
                        printf "%s,%d,%.3f,%d\n", s, z, med, m
                    }
                }
            }' "$rec"
    } >"$out/sweep.csv"
    echo
    echo "# put latency (us) against size, median over the rounds (sweep.csv)"
    # one row per system, one column per size
    awk -F, '
        /^#/ || /^system,/ { next }
        { if (!($1 in seen)) { seen[$1] = 1; order[++ns] = $1; if (length($1) > ws) ws = length($1) }
          if (!($2 in zseen)) { zseen[$2] = 1; zs[++nz] = $2 + 0 }
          v[$1, $2 + 0] = $3 }
        END {
            for (a = 2; a <= nz; a++) {
                x = zs[a]
                for (b = a - 1; b >= 1 && zs[b] > x; b--) zs[b + 1] = zs[b]
                zs[b + 1] = x
            }
            printf "%-" ws "s", "system"
            for (j = 1; j <= nz; j++) {     # 4K, 1M; parentheses: a bare > in printf redirects
                z = zs[j]
                printf " | %9s", (z >= 1048576 && z % 1048576 == 0 ? z / 1048576 "M" : z >= 1024 && z % 1024 == 0 ? z / 1024 "K" : z)
            }
            printf "\n"
            for (i = 1; i <= ns; i++) {
                printf "%-" ws "s", order[i]
                for (j = 1; j <= nz; j++) printf " | %9s", (((order[i], zs[j]) in v) ? v[order[i], zs[j]] : "-")
                printf "\n"
            }
        }' "$out/sweep.csv"
    echo "# sweep: the same round trips as put_lat_8B_us above, at each size; UCX: ucp_put_lat ping-pong x2 (no flush)."
fi
echo "raw output in $out/raw, every value in $rec, the table in $out/peers.csv" >&2
if [ "$sweep" = 1 ]; then
    echo "sweep medians in $out/sweep.csv (bench/plot_peers $out draws them)" >&2
fi
