#!/usr/bin/env bash
# Reliability on (the default): 10^6 random puts/gets/atomics at 2x2
# under 5% drop + 1% duplicate + 10% reorder + 0.1% corruption finish
# with every byte checked, every operation completed exactly once with
# status 0, and nothing reported lost. FAULT_STRESS_OPS overrides the
# total (default 1000000).
source "$(dirname "$0")/lib.sh" "$1"
TOTAL=${FAULT_STRESS_OPS:-1000000}
PER=$((TOTAL / 4))

case_begin "reliable: $TOTAL ops under drop+dup+reorder+corrupt"
start=$(date +%s)
run 170 -N 2 -n 2 --timeout 160 --fault drop=0.05 --fault dup=0.01 --fault reorder=0.1 \
    --fault corrupt=0.001 -- "$BIN/fault_stress" "$PER"
echo "took $(($(date +%s) - start)) s; $(summary)"
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
[[ $(grep -c "stress: rank .* ops $PER ok " "$OUT") -eq 4 ]] || { fail "not every rank finished"; show; }
[[ $(field_sum lost) -eq 0 ]] || fail "ranks saw losses"
[[ $(counter lost) -eq 0 ]] || fail "NICs report losses"
for k in drops dups corrupt reordered retransmits; do
    [[ $(counter $k) -gt 0 ]] || fail "no $k counted: $(summary)"
done
[[ $(counter retransmits) -ge $(($(counter drops) / 2)) ]] || fail "fewer retransmits than lost data packets?"

case_begin "reliable: bursts, delay, jitter, throttle, slow node, corruption"
run 170 -N 2 -n 2 --timeout 160 --fault drop=ge:0.01:0.3 --fault delay=20us~20us --fault corrupt=0.01 \
    --fault throttle=n0:n1:1GB/s --fault slow=n1:2 --fault dup=0.01,op=read+ack -- "$BIN/fault_stress" 25000
echo "$(summary)"
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
[[ $(grep -c "stress: rank .* ops 25000 ok " "$OUT") -eq 4 ]] || { fail "not every rank finished"; show; }
[[ $(counter lost) -eq 0 && $(counter drops) -gt 0 && $(counter corrupt) -gt 0 ]] || fail "$(summary)"
finish
