#!/usr/bin/env bash
# kill -9 of one rank: the job is gone within about a second, the status
# says so, and nothing remains.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "kill -9 of rank 3"
start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready hold=30000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from)
# the rank with EMUNIC_RANK=3 among this test's helpers
pid=""
for p in $(live_pids "$TAG"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "EMUNIC_RANK=3" && pid=$p
done
[[ -n $pid ]] || fail "rank 3 not found"
kill -9 "$pid"
wait_bg 10
expect_status 137
expect_err "^emunic-run: rank 3 \(node 1\) killed by signal 9 \(Killed\)$"
(( ELAPSED < 1500 )) || fail "teardown took ${ELAPSED} ms (want about 1 s)"
echo "teardown after kill -9: ${ELAPSED} ms"
assert_clean "$id"
