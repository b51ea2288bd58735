#!/usr/bin/env bash
# Scale: 64 ranks (-N 8 -n 8) attach, meet in a barrier and exit 0; 256
# ranks start even when the soft open-file limit is too low for their pipes.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "-N 8 -n 8 with init + barrier"
LIMIT=100 run -v -N 8 -n 8 -- "$HELPER" tag=$TAG init barrier env finalize
expect_status 0
[[ $(count_out '^\[n[0-7]\.r[0-9]+\] env RANK=') -eq 64 ]] || fail "expected 64 env lines"
for r in $(seq 0 63); do
    grep -qE "^\[n$((r / 8))\.r$r\] env RANK=$r SIZE=64 NODE=$((r / 8)) NNODES=8 LOCAL_RANK=$((r % 8)) LOCAL_SIZE=8 " "$OUT" ||
        fail "rank $r missing or wrong"
done
expect_err "started 8 daemons and 64 rank"
assert_clean "$(jobid_from)"

case_begin "256 ranks with a soft fd limit of 256"
( ulimit -Sn 256; LIMIT=100 run -v -N 16 -n 16 -- "$HELPER" tag=$TAG out=up; echo "$STATUS $OUT $ERR" >"$TMP/r" )
read -r STATUS OUT ERR <"$TMP/r"
expect_status 0
[[ $(count_out '\] up$') -eq 256 ]] || fail "expected 256 lines, got $(count_out '\] up$')"
assert_clean "$(jobid_from)"
