#!/usr/bin/env bash
# Jobs under the machine model: --dilate slows the ranks' clocks; a 16 B
# put on --machine bgq takes at least the modelled time (lower bounds only:
# a loaded host only makes things slower).
source "$(dirname "$0")/../cli/lib.sh" "$1"
CLOCK="$BIN/clock_rank"

case_begin "--dilate 10: a 100 ms sleep reads as about 10 ms"
LIMIT=30 run -N 1 -n 1 --dilate 10 -- "$CLOCK"
expect_status 0
read -r mono real tod _ < <(sed 's/^\[[^]]*\] //' "$OUT")
echo "dilated: monotonic $mono ms, realtime $real ms, gettimeofday $tod ms"
for v in "$mono" "$real" "$tod"; do
    awk -v v="$v" 'BEGIN { exit !(v >= 9.5 && v < 50) }' || fail "dilated 100 ms sleep measured $v ms (want 10..50)"
done

case_begin "no --dilate: a 100 ms sleep reads as 100 ms"
LIMIT=30 run -N 1 -n 1 -- "$CLOCK"
expect_status 0
read -r mono _ < <(sed 's/^\[[^]]*\] //' "$OUT")
awk -v v="$mono" 'BEGIN { exit !(v >= 99) }' || fail "undilated sleep measured $mono ms"

case_begin "bgq, --dilate 100: 16 B put and get take at least the modelled 2.80 us"
[[ -x $BIN/fidelity ]] || { echo "SKIP: fidelity not built"; exit 77; }
LIMIT=120 run -N 2 -n 1 --nic pami --machine bgq --dilate 100 -- "$BIN/fidelity" --iters 20
expect_status 0
for c in put get; do
    us=$(sed 's/^\[[^]]*\] //' "$OUT" | awk -F, -v c="$c" '$1 == "fidelity" && $4 == "lat" && $5 == c { print $8 }')
    echo "$c: $us us (model: 2.80 us)"
    [[ -n $us ]] || fail "no $c line"
    awk -v v="$us" 'BEGIN { exit !(v >= 2.75) }' || fail "$c took $us us, less than the model's 2.80"
done

case_begin "hot spot: slowdown grows with offered load (bgq, 4 senders -> node 0)"
[[ -x $BIN/congestion ]] || { echo "SKIP: congestion not built"; exit 77; }
LIMIT=180 run -N 5 -n 1 --machine bgq --dilate 100 -- "$BIN/congestion" --iters 40 --loads 0.2,1.5
expect_status 0
lo=$(sed 's/^\[[^]]*\] //' "$OUT" | awk -F, '$1 == "congestion" && $6 == "0.20" { print $9 }')
hi=$(sed 's/^\[[^]]*\] //' "$OUT" | awk -F, '$1 == "congestion" && $6 == "1.50" { print $9 }')
echo "slowdown at load 0.2: $lo, at 1.5: $hi"
[[ -n $lo && -n $hi ]] || fail "missing congestion lines"
awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(b > 1.5 * a) }' || fail "slowdown did not grow with load ($lo -> $hi)"
