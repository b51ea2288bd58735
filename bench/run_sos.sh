#!/bin/sh
# Sandia OpenSHMEM's own performance programs on emunic's Portals, next to
# emunic's portals_lat and portals_bw in the same run: per run and program
# NAME.runK.csv (SOS's text also in NAME.runK.txt, stderr and the host's
# load in NAME.runK.log), then one table of medians (OUT_DIR/summary.txt).
#
#   bench/run_sos.sh [-b BUILD_DIR] [-r RUNS] [-q] [-s SOS_DIR] [OUT_DIR]
#
#   -b BUILD_DIR  build tree holding bin/emunic-run, portals_lat, portals_bw
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each program (default 3; 1 with -q)
#   -q            quick: small counts, a smoke test
#   -s SOS_DIR    an SOS source tree already configured with
#                 --with-portals4 (its perf programs are built if missing);
#                 default: build SOS from sos-*.tar.gz in $EMUNIC_CLIENTS or
#                 ../shared/clients into OUT_DIR/sos (once; reused while the
#                 archive is the same)
#   OUT_DIR       where results go (default BUILD_DIR/bench-sos-results)
#
# BUILD_DIR is installed into OUT_DIR/prefix (cmake --install); SOS runs on
# that libportals (LD_LIBRARY_PATH) under its emunic-run, 2 nodes x 1 PE,
# ideal machine. Each run alternates: portals_lat, SOS latency put,
# portals_lat --target-waits (the target rank waits on its counter as SOS's
# shmem_wait_until does), portals_bw (memcpy is its same-run floor), SOS bw
# put, latency get, bw get, bibw put, and an experiment: SOS bw put with its
# heap (SHMEM_SYMMETRIC_SIZE=64M) served from emunic's shared heap by
# libsos_shm_heap.so, what private memory costs SOS.
# Extra options: $SOS_LAT_ARGS, $SOS_BW_ARGS, $LAT_ARGS, $BW_ARGS; for
# emunic-run: $RUN_ARGS (e.g. -v: counters and wake-ups in the logs). Before
# each program it waits (up to $QUIET_WAIT seconds, default 120) for an
# idle host.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
me=run_sos.sh
usage() { sed -n '2,33s/^# \{0,1\}//p' "$0"; }
sos_tree=""
bench_extra_opts="s:"
bench_opt() {
    [ -d "$2" ] || { echo "$me: -s: no directory $2" >&2; exit 2; }
    sos_tree=$(cd "$2" && pwd)
}
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
bench_outdir bench-sos-results "$@"
need="build it first: cmake --build $build (the runner installs it)"
bench_need emunic-run emunic-nicd portals_lat portals_bw
timer="$build/lib/libsos_time.so"
shm_heap="$build/lib/libsos_shm_heap.so"
for f in "$timer" "$shm_heap"; do
    [ -f "$f" ] || { echo "$me: $f is missing; $need" >&2; exit 2; }
done

if [ -z "$sos_tree" ]; then
    clients=${EMUNIC_CLIENTS:-$src/../shared/clients}
    tarball=$(ls "$clients"/sos-*.tar.gz 2>/dev/null | head -n 1 || true)
    if [ -z "$tarball" ]; then
        echo "$me: no Sandia OpenSHMEM archive (sos-*.tar.gz) in $clients; skipped (set EMUNIC_CLIENTS=DIR or use -s SOS_DIR)"
        exit 0
    fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
prefix="$out/prefix"

# quiet LOG CMD...: CMD's output in LOG; on failure its end and exit 1.
quiet() {
    log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "$me: failed: $* (last lines of $log:)" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
}

echo "$me: installing $build into $prefix" >&2
quiet "$out/install.log" "${CMAKE:-cmake}" --install "$build" --prefix "$prefix"

progs="shmem_latency_put_perf shmem_latency_get_perf shmem_bw_put_perf shmem_bw_get_perf shmem_bibw_put_perf"
if [ -z "$sos_tree" ]; then
    stamp="$(basename "$tarball") for $prefix"
    sos_tree="$out/sos/sos"
    if [ "$(cat "$out/sos/built" 2>/dev/null || true)" != "$stamp" ]; then
        echo "$me: building SOS from $(basename "$tarball") in $out/sos (autogen, configure, make -j2; logs there)" >&2
        rm -rf "$out/sos"
        mkdir -p "$out/sos"
        tar -xzf "$tarball" -C "$out/sos"
        sos_tree=$(dirname "$(ls -d "$out"/sos/*/configure.ac | head -n 1)")
        (
            cd "$sos_tree"
            quiet "$out/sos/autogen.log" ./autogen.sh
            quiet "$out/sos/configure.log" ./configure --with-portals4="$prefix" --enable-pmi-simple \
                --prefix="$out/sos/install"
            quiet "$out/sos/make.log" make -j2
        )
        echo "$stamp" >"$out/sos/built"
    fi
    sos_tree=$(dirname "$(ls -d "$out"/sos/*/configure.ac | head -n 1)")
fi
perfdir="$sos_tree/modules/tests-sos/test/performance/shmem_perf_suite"
[ -d "$perfdir" ] || { echo "$me: $sos_tree has no $perfdir" >&2; exit 2; }
# shellcheck disable=SC2086
quiet "$out/sos-perf-make.log" make -C "$perfdir" -j2 $progs

lat_args=${LAT_ARGS:---iters 20000}
bw_args=${BW_ARGS:---max 1M}
sos_lat_args=${SOS_LAT_ARGS:--s 8 -e 8 -n 20000 -p 1000}
sos_bw_args=${SOS_BW_ARGS:--s 8 -e 1048576}
run_args=${RUN_ARGS:-}
if [ "$quick" = 1 ]; then
    lat_args="--iters 1000"
    bw_args="--max 1M --trials 1"
    sos_lat_args="-s 8 -e 8 -n 1000 -p 100"
    sos_bw_args="-s 8 -e 1048576 -m 0.2"
fi
sos_env= # extra environment of the next SOS program
quiet_wait=${QUIET_WAIT:-120}
bench_name=$me
bench_env='^EMUNIC_\|^SHMEM_'

# sos STEM PROG ARGS...: one SOS program at 2x1; its text in STEM.txt, as
# CSV (bench/sos_perf.awk) in STEM.csv. The latency programs run with
# libsos_time.so preloaded: it times each iteration of their loops (SOS
# prints only a mean) and leaves "# sos_time,..." lines in STEM.log.
sos() {
    stem=$1 prog=$2
    shift 2
    case $stem in
    shmem_latency_*) preload=$timer ;;
    shm_heap.*) preload=$shm_heap ;;
    *) preload= ;;
    esac
    # shellcheck disable=SC2086
    bench_one "$stem" env LD_LIBRARY_PATH="$prefix/lib" LD_PRELOAD="$preload" $sos_env "$prefix/bin/emunic-run" \
        -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 -- "$perfdir/$prog" "$@"
    mv "$out/$stem.csv" "$out/$stem.txt"
    awk -v prog="$prog" -f "$src/bench/sos_perf.awk" "$out/$stem.txt" >"$out/$stem.csv"
}

k=1
while [ "$k" -le "$runs" ]; do
    # shellcheck disable=SC2086
    bench_one "portals_lat.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 -- \
        "$bin/portals_lat" $lat_args
    # shellcheck disable=SC2086
    sos "shmem_latency_put_perf.run$k" shmem_latency_put_perf $sos_lat_args
    # shellcheck disable=SC2086
    bench_one "portals_lat_tw.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 -- \
        "$bin/portals_lat" --target-waits $lat_args
    # shellcheck disable=SC2086
    bench_one "portals_bw.run$k" "$run" -N 2 -n 1 --nic portals $run_args --no-prefix --timeout 800 -- \
        "$bin/portals_bw" $bw_args
    # shellcheck disable=SC2086
    sos "shmem_bw_put_perf.run$k" shmem_bw_put_perf $sos_bw_args
    # shellcheck disable=SC2086
    sos "shmem_latency_get_perf.run$k" shmem_latency_get_perf $sos_lat_args
    # shellcheck disable=SC2086
    sos "shmem_bw_get_perf.run$k" shmem_bw_get_perf $sos_bw_args
    # shellcheck disable=SC2086
    sos "shmem_bibw_put_perf.run$k" shmem_bibw_put_perf $sos_bw_args
    # the experiment: SOS's heap served from the emunic heap (shared memory)
    sos_env="SHMEM_SYMMETRIC_SIZE=64M"
    # shellcheck disable=SC2086
    sos "shm_heap.shmem_bw_put_perf.run$k" shmem_bw_put_perf $sos_bw_args
    sos_env=
    k=$((k + 1))
done

# One line "KEY VALUE" per figure of run $1, from its CSVs.
figures() {
    awk -F, '$1 == "ptl_put_ct_ack" { print "ptl_put_ct", $8; print "ptl_put_ct_med", $3 }
             $1 == "ptl_put_ack_event" { print "ptl_put_ev_med", $3 }
             $1 == "ptl_get_reply_ct" { print "ptl_get", $8; print "ptl_get_med", $3 }' "$out/portals_lat.run$1.csv"
    awk -F, '$1 == "ptl_put_ct_ack" { print "ptl_put_ct_tw", $8; print "ptl_put_ct_tw_med", $3 }' \
        "$out/portals_lat_tw.run$1.csv"
    awk -F, '$1 == 1048576 { print "memcpy_1M", $2; print "ptl_put_heap_1M", $3; print "ptl_put_priv_1M", $5
                             print "ptl_get_priv_1M", $6 }
             $1 == "# msgrate" { print "ptl_rate", $4 }
             $1 == "# msgrate_private" { print "ptl_rate_priv", $4 }' "$out/portals_bw.run$1.csv"
    # medians of SOS's own loops, timed by libsos_time.so
    cat "$out/shmem_latency_put_perf.run$1.log" "$out/shmem_latency_get_perf.run$1.log" |
        awk -F, '$1 == "# sos_time" && $3 == 8 { print "sos_" $2 "_med", $5; print "sos_" $2 "_mean", $8 }'
    for p in $progs shm_heap.shmem_bw_put_perf; do
        awk -F, -v tag="$p" '{ $1 = tag }
                 $2 == "stream" && $3 == 8 { print $1 "_lat8", $4 }
                 $2 == "long_p_pingpong" { print $1 "_pingpong", $4 }
                 ($2 == "uni" || $2 == "bi") && $3 == 8 { print $1 "_rate8", $5 }
                 ($2 == "uni" || $2 == "bi") && $3 == 1048576 { print $1 "_bw1M", $4 }' "$out/$p.run$1.csv"
    done
}
k=1
while [ "$k" -le "$runs" ]; do
    figures "$k" >"$out/figures.run$k"
    k=$((k + 1))
done
# the host's load before each program: range and median
# shellcheck disable=SC2046
loads=$(sed -n 's/^# host \([0-9]*\)% busy.*loadavg \([0-9.]*\).*/\1 \2/p' $(k=1; while [ "$k" -le "$runs" ]; do ls "$out"/*.run$k.log; k=$((k + 1)); done) | sort -n | awk '
    { b[NR] = $1; l = $2 + 0; if (NR == 1 || l < lmin) lmin = l; if (l > lmax) lmax = l }
    END { printf "%d-%d%% busy (median %d%%), loadavg %.2f-%.2f", b[1], b[NR], b[int((NR + 1) / 2)], lmin, lmax }')

{
    echo "Sandia OpenSHMEM on emunic Portals, 2 nodes x 1 PE, ideal machine; host $(uname -n), $(nproc) CPUs,"
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $runs run(s), medians over runs [per run]; ratios are per run (same run), then"
    echo "the median. Host busy before each program: $loads"
    echo
    # shellcheck disable=SC2046
    awk -v runs="$runs" '
    function med(key,    n, i, j, t, v) {
        n = 0
        for (i = 1; i <= runs; i++)
            if ((key, i) in val) v[++n] = val[key, i]
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n == 0 ? "" : n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function list(key, scale, fmt,    i, s) {
        s = ""
        for (i = 1; i <= runs; i++)
            s = s (i > 1 ? ", " : "") (((key, i) in val) ? sprintf(fmt, val[key, i] / scale) : "-")
        return s
    }
    function ratio(a, b, tag,    i, has) {
        for (i = 1; i <= runs; i++)
            if (((a, i) in val) && ((b, i) in val) && val[b, i] > 0) { val[tag, i] = val[a, i] / val[b, i]; has = 1 }
        return has ? sprintf("%.2fx", med(tag)) : "-"
    }
    function row(what, a, scale, fmt, unit, b, bscale, bwhat, goal, op, limit,    r, m, met) {
        r = b == "" ? "-" : ratio(a, b, a "/" b)
        m = med(a)
        met = "-"
        if (op == "le") met = (med(a "/" b) <= limit) ? "yes" : "NO"
        if (op == "ge") met = (med(a "/" b) >= limit) ? "yes" : "NO"
        if (op == "abs") met = (m != "" && m >= limit) ? "yes" : "NO"
        printf "%-44s %12s %-7s [%s]\n", what, (m == "" ? "-" : sprintf(fmt, m / scale)), unit, list(a, scale, fmt)
        if (b != "")
            printf "  vs %-40s %12s %-7s [%s]  ratio %s\n", bwhat, sprintf(fmt, med(b) / bscale), unit, list(b, bscale, fmt), r
        if (goal != "")
            printf "  goal: %-50s met: %s\n", goal, met
    }
    FNR == 1 { run++ }
    { val[$1, run] = $2 }
    END {
        row("SOS 8 B put RT (putmem+quiet), median", "sos_putmem_quiet_med", 1, "%.2f", "us",
            "ptl_put_ct_med", 1, "PtlPut+CT ACK+PtlCTWait RT, median", "SOS <= 1.5x PtlPut+ACK round trip", "le", 1.5)
        row("SOS 8 B put RT, its own figure (mean)", "shmem_latency_put_perf_lat8", 1, "%.2f", "us",
            "ptl_put_ct", 1, "PtlPut+CT ACK+PtlCTWait RT, mean")
        row("SOS 8 B put RT, median", "sos_putmem_quiet_med", 1, "%.2f", "us",
            "ptl_put_ct_tw_med", 1, "the same, target waits as SOS does")
        row("  PtlPut+ACK event+PtlEQWait RT, median", "ptl_put_ev_med", 1, "%.2f", "us")
        row("SOS 8 B long_p ping-pong: one way, mean", "shmem_latency_put_perf_pingpong", 1, "%.2f", "us")
        row("SOS 8 B get RT (blocking getmem), median", "sos_getmem_med", 1, "%.2f", "us",
            "ptl_get_med", 1, "PtlGet+PtlCTWait on REPLY RT, median")
        row("SOS 8 B get RT, its own figure (mean)", "shmem_latency_get_perf_lat8", 1, "%.2f", "us",
            "ptl_get", 1, "PtlGet+PtlCTWait on REPLY RT, mean")
        row("SOS 8 B put message rate (window 64 + quiet)", "shmem_bw_put_perf_rate8", 1e6, "%.3f", "M/s",
            "ptl_rate_priv", 1e6, "PtlPut 8 B into private memory, window 64", "SOS >= 1 M/s", "abs", 1e6)
        row("  PtlPut 8 B into the shm heap, window 64", "ptl_rate", 1e6, "%.3f", "M/s")
        row("SOS 8 B get message rate (blocking getmem)", "shmem_bw_get_perf_rate8", 1e6, "%.3f", "M/s")
        row("SOS 8 B bi-dir put message rate", "shmem_bibw_put_perf_rate8", 1e6, "%.3f", "M/s")
        row("SOS 1 MiB put bandwidth", "shmem_bw_put_perf_bw1M", 1000, "%.2f", "GB/s",
            "memcpy_1M", 1000, "memcpy 1 MiB (portals_bw, cache-hot)", "SOS >= 0.5x memcpy", "ge", 0.5)
        row("SOS 1 MiB get bandwidth", "shmem_bw_get_perf_bw1M", 1000, "%.2f", "GB/s",
            "memcpy_1M", 1000, "memcpy 1 MiB")
        row("SOS 1 MiB bi-dir put bandwidth (both ways)", "shmem_bibw_put_perf_bw1M", 1000, "%.2f", "GB/s")
        row("experiment, SOS heap in shm: 8 B put rate", "shm_heap.shmem_bw_put_perf_rate8", 1e6, "%.3f", "M/s",
            "shmem_bw_put_perf_rate8", 1e6, "SOS as it is (private heap)")
        row("experiment, SOS heap in shm: 1 MiB put bw", "shm_heap.shmem_bw_put_perf_bw1M", 1000, "%.2f", "GB/s",
            "memcpy_1M", 1000, "memcpy 1 MiB")
        row("emunic PtlPut 1 MiB into private memory", "ptl_put_priv_1M", 1000, "%.2f", "GB/s",
            "memcpy_1M", 1000, "memcpy 1 MiB")
        row("emunic PtlGet 1 MiB from private memory", "ptl_get_priv_1M", 1000, "%.2f", "GB/s")
        row("emunic PtlPut 1 MiB into shm heap memory", "ptl_put_heap_1M", 1000, "%.2f", "GB/s")
    }' $(k=1; while [ "$k" -le "$runs" ]; do echo "$out/figures.run$k"; k=$((k + 1)); done)
} >"$out/summary.txt"
cat "$out/summary.txt"
