#!/usr/bin/env bash
# Exit status is the first failing rank's; one line names rank, node and
# exit code or signal; the survivors are torn down quickly.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "all ranks exit 0"
run -v -N 2 -n 2 -- "$HELPER" tag=$TAG out=ok
expect_status 0
expect_no_err "^emunic-run: rank"
assert_clean "$(jobid_from)"

case_begin "a rank exits 7, the others are torn down"
t0=$(date +%s%N)
run -v -N 2 -n 2 -- "$HELPER" tag=$TAG @2:sleep=200 @2:exit=7 sleep=20000
t=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_status 7
expect_err "^emunic-run: rank 2 \(node 1\) exited with code 7$"
[[ $(grep -c "^emunic-run: rank" "$ERR") -eq 1 ]] || fail "more than one failure line"
(( t < 5000 )) || fail "teardown took ${t} ms"
assert_clean "$(jobid_from)"

case_begin "a rank killed by SIGSEGV"
run -v -N 2 -n 2 -- "$HELPER" tag=$TAG @1:signal=SEGV sleep=20000
expect_status 139
expect_err "^emunic-run: rank 1 \(node 0\) killed by signal 11 \(Segmentation fault\)"
assert_clean "$(jobid_from)"

case_begin "a rank that ignores SIGTERM is killed after the grace period"
t0=$(date +%s%N)
run -v -N 1 -n 3 -- "$HELPER" tag=$TAG ignore-term @0:sleep=300 @0:exit=4 sleep=20000
t=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_status 4
(( t < 3000 )) || fail "took ${t} ms"
assert_clean "$(jobid_from)"

case_begin "program that cannot be executed at exec time"
# found and executable, but not a valid binary nor script: exec fails ENOEXEC,
# then /bin/sh runs it and reports the syntax error; status is sh's.
printf '\x7fELF garbage(' >"$TMP/junk"; chmod 755 "$TMP/junk"
run -v -N 1 -n 1 -- "$TMP/junk"
[[ $STATUS -ne 0 ]] || fail "expected a failure"
expect_err "^emunic-run: rank 0 \(node 0\) exited with code [0-9]+$"
assert_clean "$(jobid_from)"
