#!/bin/sh
# Machine-model fidelity (issue 5): run bench/fidelity and bench/congestion
# under emunic-run and compare with the papers' figures. Writes one CSV per
# configuration (NAME.runK.csv, stderr in NAME.runK.log) and summary.txt.
#
#   bench/run_fidelity.sh [-b BUILD_DIR] [-r RUNS] [-q] [OUT_DIR]
#
#   -b BUILD_DIR  build tree with bin/emunic-run, fidelity, congestion
#                 (default: build/ at the top of the source tree)
#   -r RUNS       runs of each configuration (default 3; 1 with -q)
#   -q            quick: fewer sizes and operations, a smoke test
#   OUT_DIR       where the CSVs go (default BUILD_DIR/bench-fidelity-results)
#
# What runs (under --nic pami; dilations from $LAT_DILATE (1000),
# $BW_DILATE (100), $HOP_DILATE (10000), $CONG_DILATE (300)):
#   host    fidelity --mode lat on --machine ideal, no dilation: the host's
#           own overhead, which the dilation divides
#   bgq     lat (2 nodes), bw (2 nodes), hops (8 nodes: 1..3 hops)
#   bgp, xt5, p7ih   lat (vs the published bounds) and bw (2 nodes)
#   congestion       bgq, 5 nodes: 4 senders into node 0, slowdown vs load
# Extra emunic-run options: $RUN_ARGS.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build"
me=run_fidelity.sh
usage() { sed -n '2,22s/^# \{0,1\}//p' "$0"; }
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_args "$@"
shift "$nopt"
bench_outdir bench-fidelity-results "$@"
need="build them first: cmake --build $build --target fidelity congestion emunic_dilate"
bench_need emunic-run emunic-nicd fidelity congestion
mkdir -p "$out"

lat_k=${LAT_DILATE:-1000}
bw_k=${BW_DILATE:-100}
hop_k=${HOP_DILATE:-10000}
cong_k=${CONG_DILATE:-300}
run_args=${RUN_ARGS:-}
hop_iters=100 lat_iters=200 bw_sizes=256:1M:4 bw_iters=100 other_sizes=1K,4K,16K,64K,256K cong_iters=100
if [ "$quick" = 1 ]; then
    hop_iters=20 lat_iters=30 bw_sizes=1K,2K,4K,64K bw_iters=40 other_sizes=4K,256K cong_iters=20
fi
quiet_wait=${QUIET_WAIT:-120}
bench_name=$me
bench_env='^EMUNIC_'
f() { # STEM NODES MACHINE DILATE fidelity-args...
    stem=$1 nodes=$2 mach=$3 k=$4
    shift 4
    # shellcheck disable=SC2086
    bench_one "$stem.run$kk" "$run" -N "$nodes" -n 1 --nic pami --machine "$mach" --dilate "$k" $run_args \
        --no-prefix --timeout 800 -- "$bin/fidelity" "$@"
}
kk=1
while [ "$kk" -le "$runs" ]; do
    f host.lat 2 ideal 1 --iters "$lat_iters"
    f bgq.lat 2 bgq "$lat_k" --iters "$lat_iters"
    f bgq.bw 2 bgq "$bw_k" --mode bw --sizes "$bw_sizes" --iters "$bw_iters"
    f bgq.hops 8 bgq "$hop_k" --mode hops --iters "$hop_iters"
    for m in bgp xt5 p7ih; do
        f "$m.lat" 2 "$m" "$lat_k" --iters "$lat_iters"
        f "$m.bw" 2 "$m" "$bw_k" --mode bw --sizes "$other_sizes" --iters "$bw_iters"
    done
    # shellcheck disable=SC2086
    bench_one "congestion.bgq.run$kk" "$run" -N 5 -n 1 --machine bgq --dilate "$cong_k" $run_args --no-prefix \
        --timeout 800 -- "$bin/congestion" --iters "$cong_iters"
    kk=$((kk + 1))
done
{
    echo "Machine-model fidelity, host $(uname -n) ($(nproc) CPUs), $(date -u +%Y-%m-%dT%H:%M:%SZ), $runs run(s)."
    echo "Dilation: latency $lat_k, bandwidth $bw_k, hops $hop_k, congestion $cong_k. The host's own overhead (ideal machine,"
    echo "no dilation) is divided by the dilation: host_us / K is what it adds to a modelled time."
    echo
    echo "== host overhead (--machine ideal, no dilation), per run"
    grep -h ',summary,' "$out"/host.lat.run*.csv | awk -F, -v k="$lat_k" \
        '{ printf "%-8s %8.3f us  -> %.4f us at dilation %s\n", $5, $6, $6 / k, k }'
    echo
    echo "== summaries: machine,dilate,summary,what,measured,paper,error % (per run)"
    for s in bgq.lat bgq.bw bgq.hops bgp.lat bgp.bw xt5.lat xt5.bw p7ih.lat p7ih.bw; do
        grep -h ',summary,' "$out"/$s.run*.csv | cut -d, -f2-
    done
    echo
    echo "== bgp, xt5, p7ih 16 B latency against published figures (docs/machines.md; median of runs)"
    echo "   one-way = round trip / 2 (a put or get waits for its reply); paper: what it bounds"
    # machine|what the paper gives|one-way us|kind (le: paper is an upper bound, ref: a reference point)
    while IFS='|' read -r m what ref kind; do
        for op in put get; do
            grep -h ",lat,$op," "$out/$m.lat".run*.csv 2>/dev/null | cut -d, -f8 | sort -n | awk \
                -v m="$m" -v op="$op" -v ref="$ref" -v kind="$kind" -v what="$what" '
                { v[NR] = $1 }
                END {
                    if (!NR) { printf "%-5s %s: no runs\n", m, op; exit }
                    med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                    if (ref == "") { printf "%-5s %s %.3f us (one-way %.3f): no published latency (estimate)\n", m, op, med, med / 2; exit }
                    ow = med / 2; err = 100 * (ow - ref) / ref
                    verdict = kind == "le" ? (ow <= ref ? "within the bound" : "ABOVE the bound") : sprintf("%+.1f %%", err)
                    printf "%-5s %s %.3f us, one-way %.3f us vs %.2f us (%s): %s\n", m, op, med, ow, ref, what, verdict
                }'
        done
    done <<'EOF'
bgp|none||
xt5|Red Storm requirement, MPI one-way nearest neighbour|2.0|ref
xt5|XT3 Portals 3.3 zero-length one-way, measured "under six"|6.0|le
p7ih|[P7IH-COLL] 2-node P2P allreduce (>= one node-to-node message)|1.83|le
EOF
    echo
    echo "== bgq latency vs hops (16 B get)"
    grep -h ',hops,get,' "$out"/bgq.hops.run1.csv | cut -d, -f7,8 | sort -n | awk -F, \
        '{ s[$1] += $2; n[$1]++ } END { for (h in s) printf "%s hops: %.3f us\n", h, s[h] / n[h] }' | sort -n
    echo
    echo "== hot-spot congestion (bgq, 4 senders -> node 0)"
    grep -hv '^#' "$out"/congestion.bgq.run*.csv
} >"$out/summary.txt"
cat "$out/summary.txt"
