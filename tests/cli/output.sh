#!/usr/bin/env bash
# Output relay: stdout and stderr stay apart, every line carries its rank's
# prefix, a last line without newline is completed, lines never mix, big and
# over-long outputs arrive whole; --no-prefix passes output straight on.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "prefixes, stdout/stderr separation, partial last line"
run -v -N 2 -n 2 -- "$HELPER" tag=$TAG out=hello err=oops lines=3 partial
expect_status 0
id=$(jobid_from)
for r in 0 1 2 3; do
    p="[n$((r / 2)).r$r]"
    for l in "hello" "line 0" "line 1" "line 2" "partial"; do
        grep -qxF "$p $l" "$OUT" || fail "missing '$p $l' on stdout"
    done
    grep -qxF "$p oops" "$ERR" || fail "missing '$p oops' on stderr"
    ! grep -qF "$p oops" "$OUT" || fail "stderr line on stdout"
    ! grep -qF "$p hello" "$ERR" || fail "stdout line on stderr"
    # order within one rank is kept
    [[ $(grep -F "$p" "$OUT" | sed "s/^.\{${#p}\} //" | tr '\n' '|') == "hello|line 0|line 1|line 2|partial|" ]] ||
        fail "rank $r lines out of order"
done
[[ $(wc -l <"$OUT") -eq 20 ]] || fail "expected 20 stdout lines"
assert_clean "$id"

case_begin "80000 lines from 4 ranks"
run -v -N 2 -n 2 -- "$HELPER" tag=$TAG lines=20000
expect_status 0
id=$(jobid_from)
[[ $(wc -l <"$OUT") -eq 80000 ]] || fail "expected 80000 lines, got $(wc -l <"$OUT")"
[[ $(grep -cvE '^\[n[01]\.r[0-3]\] line [0-9]+$' "$OUT" || true) -eq 0 ]] || fail "malformed lines"
for r in 0 1 2 3; do
    grep -F "[n$((r / 2)).r$r] " "$OUT" | awk -v r=$r '$3 != NR-1 { print "rank " r " line " NR " is " $3; exit 1 }' ||
        fail "rank $r lost or reordered lines"
done
assert_clean "$id"

case_begin "a line longer than the relay buffer is cut, not lost"
run -v -N 1 -n 1 -- bash -c 'head -c 200000 /dev/zero | tr "\0" x; echo; echo after'
expect_status 0
id=$(jobid_from)
[[ $(grep -c '^\[n0\.r0\] x' "$OUT") -ge 3 ]] || fail "long line not split into prefixed pieces"
[[ $(grep '^\[n0\.r0\] x' "$OUT" | sed 's/^\[n0\.r0\] //' | tr -d '\n' | wc -c) -eq 200000 ]] || fail "bytes of the long line lost"
grep -qxF "[n0.r0] after" "$OUT" || fail "line after the long one lost"
assert_clean "$id"

case_begin "--no-prefix"
run -v --no-prefix -N 2 -n 2 -- "$HELPER" tag=$TAG out=plain err=plainerr
expect_status 0
id=$(jobid_from)
[[ $(grep -cxF plain "$OUT") -eq 4 ]] || fail "expected 4 unprefixed lines on stdout"
[[ $(grep -cxF plainerr "$ERR") -eq 4 ]] || fail "expected 4 unprefixed lines on stderr"
! grep -q '^\[n' "$OUT" || fail "prefix present"
assert_clean "$id"

case_begin "stdout closed early (| head) does not stop the job"
set +e
"$RUN" -N 1 -n 2 -- "$HELPER" tag=$TAG lines=50000 out=end 2>"$TMP/h.err" </dev/null | head -n 1 >"$TMP/h.out"
st=${PIPESTATUS[0]}
set -e
[[ $st -eq 0 ]] || { ERR="$TMP/h.err"; fail "exit $st with a closed stdout"; }
[[ $(wc -l <"$TMP/h.out") -eq 1 ]] || fail "head got no line"
assert_clean
