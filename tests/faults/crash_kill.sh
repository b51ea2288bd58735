#!/usr/bin/env bash
# Injected kills and crashes: the job ends promptly with a clear message
# naming the fault and a failing exit status (the launcher's own teardown,
# whose cleanliness tests/cli checks); with --keep-going the other ranks
# finish.
source "$(dirname "$0")/lib.sh" "$1"
case_begin "kill a rank at a time"
start=$(date +%s%N)
run 60 -N 2 -n 1 --timeout 50 --fault kill=r1@0.3s -- "$BIN/fault_ops" 20
took=$((($(date +%s%N) - start) / 1000000))
[[ $ST -ne 0 ]] || fail "exit 0 after a kill"
grep -q "injected fault: kill rank 1 at" "$ERR" || { fail "no message naming the kill"; show; }
grep -qE "rank 1 \(node 1\) .*(KILL|signal 9)" "$ERR" || { fail "launcher did not report the killed rank"; show; }
[[ $took -lt 10000 ]] || fail "teardown took $took ms"

case_begin "kill a rank after N messages"
run 60 -N 2 -n 1 --timeout 50 --fault kill=r0,after=500 -- "$BIN/fault_ops" 20 min=600
[[ $ST -ne 0 ]] || fail "exit 0 after a kill"
grep -q "injected fault: kill rank 0 after 500 messages" "$ERR" || { fail "no message naming the kill"; show; }

case_begin "NIC crash"
run 60 -N 2 -n 1 --timeout 50 --fault crash=n1@0.3s -- "$BIN/fault_ops" 20
[[ $ST -ne 0 ]] || fail "exit 0 after a crash"
grep -q "injected fault: NIC crash" "$ERR" || { fail "no message naming the crash"; show; }
grep -q "NIC daemon of node 1 died" "$ERR" || { fail "launcher did not report the daemon"; show; }

# The kill is keyed to rank 3's own traffic, not to the clock: a kill at a
# fixed time lands before the ranks' start-up barrier on a slow host, and
# then nobody gets as far as printing. min=: rank 3 reaches its 40th
# message however slow the host is.
case_begin "kill with --keep-going: the others finish"
run 60 -N 2 -n 2 --timeout 50 --keep-going --fault kill=r3,after=40 -- "$BIN/fault_ops" 0.5 min=100
grep -q "injected fault: kill rank 3 after 40 messages" "$ERR" || { fail "no message naming the kill"; show; }
[[ $ST -eq 137 ]] || { fail "exit $ST, want 137 (rank 3 killed)"; show; }
grep -qE "rank 3 \(node 1\) .*(KILL|signal 9)" "$ERR" || { fail "launcher did not report the killed rank"; show; }
[[ $(grep -c 'ops: rank [012] ' "$OUT") -eq 3 ]] || { fail "the other ranks did not finish"; show; }
finish
