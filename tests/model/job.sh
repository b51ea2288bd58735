#!/usr/bin/env bash
# Jobs under the machine model: --dilate slows the ranks' clocks; a 16 B
# put or get on --machine bgq takes at least the modelled time (lower bounds only:
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

case_begin "bgq, --dilate 100: 16 B put and get take at least the modelled 2.61 and 2.80 us"
[[ -x $BIN/fidelity ]] || { echo "SKIP: fidelity not built"; exit 77; }
LIMIT=120 run -N 2 -n 1 --nic pami --machine bgq --dilate 100 -- "$BIN/fidelity" --iters 20
expect_status 0
for cm in put:2.61 get:2.80; do
    c=${cm%:*} model=${cm#*:}
    us=$(sed 's/^\[[^]]*\] //' "$OUT" | awk -F, -v c="$c" '$1 == "fidelity" && $4 == "lat" && $5 == c { print $8 }')
    echo "$c: $us us (model: $model us)"
    [[ -n $us ]] || fail "no $c line"
    awk -v v="$us" -v m="$model" 'BEGIN { exit !(v >= m - 0.05) }' || fail "$c took $us us, less than the model's $model"
done

# What grows with load is the model's queueing: the delay it adds per
# delayed packet (--stats-json delay_ns/delayed on the senders' NICs). The
# benchmark's own wall-clock slowdown is printed but not asserted: on a
# loaded host the ranks' scheduling stalls, divided by --dilate, swamp it
# (CI measured 2.9 at load 0.2 against 2.5 at 1.5; beside three CPU hogs
# the modelled delay still grew 4-10x).
case_begin "hot spot: modelled delay per packet grows with offered load (bgq, 4 senders -> node 0)"
[[ -x $BIN/congestion ]] || { echo "SKIP: congestion not built"; exit 77; }
for load in 0.2 1.5; do
    LIMIT=180 run -N 5 -n 1 --machine bgq --dilate 100 --stats-json "$TMP/hot.$load.json" -- \
        "$BIN/congestion" --iters 40 --loads "$load"
    expect_status 0
    sed 's/^\[[^]]*\] //' "$OUT" | grep '^congestion,' || fail "no congestion line at load $load"
done
python3 - "$TMP/hot.0.2.json" "$TMP/hot.1.5.json" <<'PY' || fail "modelled delay per packet: see the line above"
import json, sys
def per_packet(path):
    nics = json.load(open(path))["nics"]
    senders = [n["counters"] for n in nics if n["node"] != 0]
    delayed = sum(c["delayed"] for c in senders)
    if delayed == 0:
        sys.exit(path + ": the model delayed nothing")
    return sum(c["delay_ns"] for c in senders) / delayed / 1000
lo, hi = per_packet(sys.argv[1]), per_packet(sys.argv[2])
print("modelled delay per packet: %.0f us at load 0.2, %.0f us at 1.5" % (lo, hi))
sys.exit(0 if hi > 2 * lo else "it did not grow with the load (want more than 2x)")
PY

# A window of 16 puts on a 1 ms-latency machine: unbounded, they overlap
# (about 2 ms / 16 per put); with one credit per destination, or a FIFO of
# one message in flight, each waits for the one before it to arrive.
bw_us() { # PROFILE_EXTRA: sets US (per put of a window of 16) and STALLS
    printf 'overhead_ns: 0\nlatency_ns: 1000000\nhop_ns: 0\nlink_bw: 0\nmtu: 0\n%s\n' "$1" >"$TMP/win.yaml"
    LIMIT=120 run -N 2 -n 1 --nic pami --machine "$TMP/win.yaml" --stats -- "$BIN/fidelity" --mode bw \
        --sizes 1K --window 16 --iters 32
    expect_status 0
    US=$(sed 's/^\[[^]]*\] //' "$OUT" | awk -F, '$1 == "fidelity" && $4 == "bw" && $5 == "put" { print $8 }')
    STALLS=$(awk '$1 == "credit_stalls" { print $2 }' "$ERR")
}
case_begin "credits and fifo_depth hold messages until the ones ahead arrive"
bw_us "credits: 0"
free=$US
[[ $STALLS == 0 ]] || fail "credit stalls ($STALLS) without credits"
bw_us "credits: 1"
one=$US stalls=$STALLS
bw_us "fifo_depth: 1"
fifo=$US
echo "us per put: unbounded $free, credits 1: $one (stalls $stalls), fifo_depth 1: $fifo"
# Lower bounds only: the 1 ms latency is a floor a held put cannot beat,
# while a loaded host can slow the unbounded window to near it (CI,
# 2026-11-27: unbounded 626 us, credits 1045 us), so no ratio is asked.
for v in "$one" "$fifo"; do
    awk -v v="$v" 'BEGIN { exit !(v >= 950) }' ||
        fail "a put with one message in flight took $v us (unbounded: $free; want >= 950)"
done
[[ -n $stalls && $stalls -gt 0 ]] || fail "credits 1: no credit_stalls counted"
