#!/usr/bin/env bash
# --timeout: the job is stopped with one line and status 124.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "--timeout 1"
t0=$(date +%s%N)
run -v --timeout 1 -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier hold=30000
t=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_status 124
expect_err "^emunic-run: timeout after 1 s$"
(( t >= 1000 && t < 3000 )) || fail "took ${t} ms"
assert_clean "$(jobid_from)"

case_begin "--timeout 0.3 (fractional)"
run -v --timeout 0.3 -N 1 -n 1 -- "$HELPER" tag=$TAG sleep=20000
expect_status 124
expect_err "^emunic-run: timeout after 0.3 s$"
assert_clean "$(jobid_from)"

case_begin "--timeout that does not expire"
run -v --timeout 20 -N 1 -n 2 -- "$HELPER" tag=$TAG out=quick
expect_status 0
expect_no_err "timeout"
assert_clean "$(jobid_from)"
