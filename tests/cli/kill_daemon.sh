#!/usr/bin/env bash
# kill -9 of a NIC daemon: the launcher names it, tears the job down and
# exits 128+9; with --keep-going the other node's ranks carry on.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "kill -9 of the daemon of node 1"
start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready hold=30000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from)
dpid=$(live_pids "emunic-nicd --job $id --node 1")
[[ -n $dpid ]] || fail "daemon of node 1 not found"
[[ $(pgrep -f 'emunic-nicd --job' | grep -cx "$dpid") -eq 1 ]] || fail "pgrep -f 'emunic-nicd --job' misses it"
kill -9 "$dpid"
wait_bg 10
expect_status 137
expect_err "^emunic-run: NIC daemon of node 1 died \(killed by signal 9 \(Killed\)\)$"
(( ELAPSED < 1500 )) || fail "teardown took ${ELAPSED} ms"
echo "teardown after daemon kill: ${ELAPSED} ms"
assert_clean "$id"

case_begin "daemon death with --keep-going"
start_bg -v --keep-going -N 2 -n 1 -- "$HELPER" tag=$TAG init barrier ready hold=2500 out=survived
wait_lines "$OUT" '\] ready$' 2
id=$(jobid_from)
kill -9 "$(live_pids "emunic-nicd --job $id --node 1")"
wait_bg 20
expect_status 137
expect_err "^emunic-run: NIC daemon of node 1 died"
grep -qxF "[n0.r0] survived" "$OUT" || fail "rank 0 did not carry on"
grep -qxF "[n1.r1] hold: nic gone" "$OUT" || fail "rank 1 did not see its NIC gone"
expect_err "^emunic-run: rank 1 \(node 1\) exited with code 3$"
assert_clean "$id"
