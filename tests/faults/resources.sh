#!/usr/bin/env bash
# Resource exhaustion (regfail, eqfull, credits): a refusal is the API's
# own out-of-resources error, scoped to the rank, node and window the plan
# names, counted ("refused", "starved") and replayable by seed; nothing
# else is lost.
source "$(dirname "$0")/lib.sh" "$1"
seqs() { grep -oE 'res: rank [0-9]+ .* seq [01]+' "$OUT" | sort; }

case_begin "regfail=1 on rank 1: every registration of rank 1 fails, rank 0's succeed"
run 60 -N 2 -n 1 --nic portals --timeout 50 --fault regfail=1,rank=r1 -- "$BIN/fault_res" reg 10
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
grep -q 'res: rank 0 ok 30 refused 0 ' "$OUT" || { fail "rank 0 was refused"; show; }
grep -q 'res: rank 1 ok 0 refused 30 ' "$OUT" || { fail "rank 1 was not refused every time"; show; }
[[ $(counter refused) -eq 30 ]] || fail "counter refused is $(counter refused), expected 30"

for nic in dcmf pami; do
    case_begin "regfail=1 on rank 0, $nic: Memregion_create refused there only"
    run 60 -N 2 -n 1 --nic $nic --timeout 50 --fault regfail=1,rank=r0 -- "$BIN/mr_regfail_$nic" 10
    [[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
    grep -q 'mr: rank 0 ok 0 refused 10' "$OUT" || { fail "rank 0 not refused every time"; show; }
    grep -q 'mr: rank 1 ok 10 refused 0' "$OUT" || { fail "rank 1 refused"; show; }
    [[ $(grep -c "registering .* failed (the fault plan's regfail)" "$ERR") -eq 10 ]] ||
        fail "not one stderr line per refusal"
    [[ $(counter refused) -eq 10 ]] || fail "counter refused is $(counter refused), expected 10"
done

case_begin "regfail=0.3, node scope: a seed replays the same refusals, another seed does not"
run 60 -N 2 -n 1 --nic portals --timeout 50 --seed 11 --fault regfail=0.3,node=n0 -- "$BIN/fault_res" reg 40
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
first=$(seqs)
grep -q 'res: rank 1 ok 120 refused 0 ' "$OUT" || fail "node 1 was refused"
r0=$(grep -oE 'res: rank 0 ok [0-9]+ refused [0-9]+' "$OUT" | awk '{print $NF}')
[[ -n $r0 && $r0 -gt 12 && $r0 -lt 60 ]] || fail "rank 0 refused $r0 of 120 at p=0.3"
run 60 -N 2 -n 1 --nic portals --timeout 50 --seed 11 --fault regfail=0.3,node=n0 -- "$BIN/fault_res" reg 40
[[ $ST -eq 0 && "$(seqs)" == "$first" ]] || { fail "seed 11 did not replay"; show; }
run 60 -N 2 -n 1 --nic portals --timeout 50 --seed 12 --fault regfail=0.3,node=n0 -- "$BIN/fault_res" reg 40
[[ $ST -eq 0 && "$(seqs)" != "$first" ]] || fail "seeds 11 and 12 refused the same registrations"

case_begin "eqfull on rank 1 in a window: EQ/CT allocation fails, PT disabled, events dropped, then recovery"
run 90 -N 2 -n 1 --nic portals --timeout 80 --fault 'eqfull=1@2s+2s,rank=r1' -- "$BIN/fault_res" eq 2 4
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
grep -q 'res: eq ok' "$OUT" || { fail "no 'res: eq ok'"; show; }
# EQAlloc + CTAlloc + the flow-controlled put's event + four plain PUT events
[[ $(counter refused) -eq 7 ]] || fail "counter refused is $(counter refused), expected 7"

case_begin "credits=n0 for 1 s: node 0's traffic waits out the window, nothing is lost"
run 90 -N 2 -n 1 --timeout 80 --fault 'credits=n0@1s+1s' -- "$BIN/fault_ops" 3
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
[[ $(grep -c 'ops: rank .* lost 0 ' "$OUT") -eq 2 ]] || { fail "an operation failed"; show; }
w=$(grep -oE 'ops: rank 0 .*maxwait_ms [0-9.]+' "$OUT" | awk '{print $NF}')
echo "rank 0 longest operation: $w ms; $(summary)"
awk -v w="$w" 'BEGIN { exit !(w >= 700) }' || fail "rank 0's longest operation took $w ms, not the ~1 s window"
[[ $(counter starved) -gt 0 ]] || fail "counter starved is 0"

case_begin "credits=n0:n2: only node 0's traffic to node 2 starves"
run 90 -N 3 -n 1 --timeout 80 --fault 'credits=n0:n2@1s+1s' -- "$BIN/fault_ops" 3
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
# rank 2 writes to node 0, whose acks to node 2 starve; rank 0 writes to node 1
w2=$(grep -oE 'ops: rank 2 .*maxwait_ms [0-9.]+' "$OUT" | awk '{print $NF}')
echo "rank 2 longest operation: $w2 ms"
awk -v w="$w2" 'BEGIN { exit !(w >= 700) }' || fail "rank 2's longest operation took $w2 ms"
[[ $(grep -c 'ops: rank .* lost 0 ' "$OUT") -eq 3 ]] || { fail "an operation failed"; show; }
finish
