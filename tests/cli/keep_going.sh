#!/usr/bin/env bash
# --keep-going: failures do not stop the survivors; the job ends when all
# ranks have ended and reports the first failure.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "two failures, survivors finish"
run -v --keep-going -N 2 -n 2 -- "$HELPER" tag=$TAG @1:exit=5 @2:sleep=300 @2:signal=KILL sleep=1200 out=finished
expect_status 5
expect_err "^emunic-run: rank 1 \(node 0\) exited with code 5$"
expect_err "^emunic-run: rank 2 \(node 1\) killed by signal 9 \(Killed\)$"
grep -qxF "[n0.r0] finished" "$OUT" || fail "rank 0 did not finish"
grep -qxF "[n1.r3] finished" "$OUT" || fail "rank 3 did not finish"
assert_clean "$(jobid_from)"

case_begin "a barrier a dead rank never reaches fails at once, also behind a stuck rank"
# rank 2 exits before the barrier and rank 1 never gets there: rank 0 must
# not wait for rank 1 to learn that the barrier cannot complete
run -v --keep-going --timeout 8 -N 1 -n 3 -- "$HELPER" tag=$TAG init @2:exit=0 @1:sleep=30000 barrier out=passed
[[ $(count_out 'passed') -eq 0 ]] || fail "a barrier passed without rank 2"
expect_err "^emunic-run: rank 0 \(node 0\) exited with code 10$"
assert_clean "$(jobid_from)"

case_begin "without --keep-going the survivors are stopped"
run -v -N 2 -n 2 -- "$HELPER" tag=$TAG @1:exit=5 sleep=1200 out=finished
expect_status 5
[[ $(count_out 'finished') -eq 0 ]] || fail "survivors were not stopped"
assert_clean "$(jobid_from)"

case_begin "--keep-going still honours Ctrl-C"
start_bg -v --keep-going -N 1 -n 2 -- "$HELPER" tag=$TAG @0:exit=1 @1:ready @1:sleep=30000
wait_lines "$OUT" '\] ready$' 1
wait_lines "$ERR" '^emunic-run: rank 0' 1
kill -INT "$BG"
wait_bg 10
expect_status 130
assert_clean "$(jobid_from)"
