#!/usr/bin/env bash
# A rank that leaves its completions untaken: its daemon stays small and
# nothing is lost once the rank takes them. The old daemon parked all of
# them (about 27 MB here). Two mechanisms bound it: the NIC stops taking
# the rank's commands once PARK_SOFT completions are parked (counted as
# backpressure), and a rank whose command queue is then full moves its
# completions into its own stash while it waits (so a rank that keeps
# posting never sees the NIC hold back); either may act here.
set -u
BIN=${1:?usage: $0 BIN_DIR}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/emunic-noreap.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
N=100000
# under AddressSanitizer freed memory waits in a quarantine and would show
# in the daemon's RSS as if it were still parked; measure what is held
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
timeout -s KILL 170 "$BIN/emunic-run" -N 2 -n 1 --timeout 150 --stats-json "$TMP/s.json" -- \
    "$BIN/noreap" "$N" 3 >"$TMP/out" 2>"$TMP/err"
st=$?
cat "$TMP/out" "$TMP/err"
fail() { echo "FAIL: $*"; exit 1; }
[[ $st -eq 0 ]] || fail "exit status $st"
line=$(grep "noreap: posted $N reaped $N " "$TMP/out") || fail "not every completion taken"
growth=$(sed -n 's/.*rss_growth_kb \(-\{0,1\}[0-9]*\).*/\1/p' <<<"$line")
(( growth < 12 * 1024 )) || fail "the daemon grew by $growth KiB while the rank did not reap"
bp=$(grep -oE '"backpressure": [0-9]+' "$TMP/s.json" | tail -1 | grep -oE '[0-9]+$')
[[ -n "$bp" ]] || fail "no backpressure counter in the stats"
echo "PASS: daemon growth $growth KiB, backpressure $bp"
