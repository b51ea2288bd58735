#!/usr/bin/env bash
# stdin goes to rank 0 only; EOF reaches it; a file, a pipe and /dev/null
# all work; a rank 0 that never reads does not block the launcher.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "pipe into rank 0, EOF to the others"
set +e
printf 'alpha\nbeta\n' | timeout -s KILL 30 "$RUN" -v -N 1 -n 2 -- "$HELPER" tag=$TAG stdin >"$TMP/o" 2>"$TMP/e"
STATUS=$?; set -e; OUT="$TMP/o"; ERR="$TMP/e"
expect_status 0
grep -qxF "[n0.r0] in: alpha" "$OUT" || fail "rank 0 did not get line 1"
grep -qxF "[n0.r0] in: beta" "$OUT" || fail "rank 0 did not get line 2"
grep -qxF "[n0.r0] stdin-eof" "$OUT" || fail "rank 0 did not see EOF"
grep -qxF "[n0.r1] stdin-eof" "$OUT" || fail "rank 1 did not see EOF"
! grep -q "^\[n0.r1\] in:" "$OUT" || fail "rank 1 got input"
assert_clean "$(jobid_from)"

case_begin "a 2 MB regular file as stdin"
seq 1 300000 >"$TMP/in.txt"
STDIN="$TMP/in.txt" run -v -N 1 -n 1 -- "$HELPER" tag=$TAG stdin
expect_status 0
[[ $(count_out '^\[n0\.r0\] in: [0-9]+$') -eq 300000 ]] || fail "lines lost: $(count_out '^\[n0\.r0\] in: ')"
grep -qxF "[n0.r0] in: 300000" "$OUT" || fail "last line missing"
assert_clean "$(jobid_from)"

case_begin "/dev/null as stdin"
run -v -N 1 -n 1 -- "$HELPER" tag=$TAG stdin
expect_status 0
grep -qxF "[n0.r0] stdin-eof" "$OUT" || fail "no EOF"
assert_clean "$(jobid_from)"

case_begin "rank 0 never reads an endless stdin"
set +e
yes | timeout -s KILL 30 "$RUN" -v -N 1 -n 2 -- "$HELPER" tag=$TAG sleep=500 out=done >"$TMP/o" 2>"$TMP/e"
STATUS=${PIPESTATUS[1]}; set -e; OUT="$TMP/o"; ERR="$TMP/e"
expect_status 0
[[ $(count_out '^\[n0\.r[01]\] done$') -eq 2 ]] || fail "ranks did not finish"
assert_clean "$(jobid_from)"
