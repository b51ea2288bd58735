#!/usr/bin/env bash
# Losses surface as the personality's own failure: Portals ACK events with
# ni_fail_type PTL_NI_UNDELIVERABLE, exactly one event per put, their
# number equal to the NICs' "lost" counter; with reliability on, none.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "portals, --unreliable"
run 120 -N 2 -n 1 --nic portals --timeout 110 --unreliable --fault drop=0.05,op=module -- "$BIN/ptl_lossy" 3000
echo "$(grep 'ptl:' "$OUT") $(summary)"
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
u=$(grep -oE 'undeliverable [0-9]+' "$OUT" | awk '{print $2}')
ok=$(grep -oE 'ok [0-9]+' "$OUT" | awk '{print $2}')
[[ -n $u && $u -gt 0 ]] || fail "no PTL_NI_UNDELIVERABLE"
[[ $((u + ok)) -eq 3000 ]] || fail "ok $ok + undeliverable $u != 3000"
[[ $u -eq $(counter lost) ]] || fail "undeliverable $u != NIC lost $(counter lost)"

case_begin "portals, reliable"
run 120 -N 2 -n 1 --nic portals --timeout 110 --fault drop=0.05 --fault dup=0.01 --fault corrupt=0.001 \
    -- "$BIN/ptl_lossy" 3000
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
grep -q 'ptl: ok 3000 undeliverable 0' "$OUT" || { fail "losses with reliability on"; show; }
finish
