#!/usr/bin/env bash
# Losses surface as the personality's own failure: Portals ACK events with
# ni_fail_type PTL_NI_UNDELIVERABLE, exactly one event per put, their
# number equal to the NICs' "lost" counter; with reliability on, none.
# The same for DCMF and PAMI: failure callbacks (DCMF_ERROR, PAMI_ERROR),
# each callback once, see dcmf_lossy.c and pami_lossy.c.
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

# lossy_check PREFIX OPS: the "PREFIX: ok K failed F retries T" line of a
# --unreliable run; every operation once, F > 0, F + T == NIC lost
lossy_check() {
    local line ok f t
    line=$(grep -oE "$1: ok [0-9]+ failed [0-9]+ retries [0-9]+" "$OUT")
    echo "$line $(summary)"
    [[ $ST -eq 0 && -n $line ]] || { fail "exit $ST"; show; return; }
    read -r ok f t < <(echo "$line" | grep -oE '[0-9]+' | xargs)
    [[ $f -gt 0 ]] || fail "no failures"
    [[ $((ok + f)) -eq $2 ]] || fail "ok $ok + failed $f != $2"
    [[ $((f + t)) -eq $(counter lost) ]] || fail "failed $f + retries $t != NIC lost $(counter lost)"
}

case_begin "dcmf, --unreliable"
run 120 -N 2 -n 1 --nic dcmf --timeout 110 --unreliable --fault drop=0.05 -- "$BIN/dcmf_lossy" 3000
lossy_check dcmf 3000

# a one-packet send's loss is invisible to its sender (docs/dcmf.md): the
# receiver counts arrivals; with only requests dropped (never their acks)
# every lost send is one the receiver did not get
case_begin "dcmf short sends, --unreliable"
run 120 -N 2 -n 1 --nic dcmf --timeout 110 --unreliable --fault drop=0.05,op=am -- "$BIN/dcmf_lossy" 3000 s
echo "$(grep 'dcmf: short' "$OUT") $(summary)"
if [[ $ST -ne 0 ]]; then
    fail "exit $ST"; show
else
    r=$(grep -oE 'short sends 3000 received [0-9]+' "$OUT" | awk '{print $5}')
    t=$(grep -oE 'retries [0-9]+' "$OUT" | awk '{print $2}')
    [[ -n $r && -n $t ]] || fail "no result line"
    [[ $r -lt 3000 ]] || fail "no short send lost"
    [[ $((3000 - r + t)) -eq $(counter lost) ]] || fail "3000 - received $r + retries $t != NIC lost $(counter lost)"
fi

case_begin "dcmf, reliable"
run 120 -N 2 -n 1 --nic dcmf --timeout 110 --fault drop=0.05 --fault dup=0.01 --fault corrupt=0.001 \
    --fault reorder=0.1 -- "$BIN/dcmf_lossy" 3000 pPgGrRls
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
grep -q 'dcmf: ok 2625 failed 0 retries 0' "$OUT" || { fail "losses with reliability on"; show; }
grep -q 'dcmf: short sends 375 received 375' "$OUT" || { fail "short sends lost with reliability on"; show; }

case_begin "pami, --unreliable"
run 120 -N 2 -n 1 --nic pami --timeout 110 --unreliable --fault drop=0.05 -- "$BIN/pami_lossy" 3000
lossy_check pami 3000

case_begin "pami, reliable"
run 120 -N 2 -n 1 --nic pami --timeout 110 --fault drop=0.05 --fault dup=0.01 --fault corrupt=0.001 \
    --fault reorder=0.1 -- "$BIN/pami_lossy" 3000
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
grep -q 'pami: ok 3000 failed 0 retries 0' "$OUT" || { fail "losses with reliability on"; show; }
finish
