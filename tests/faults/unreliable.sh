#!/usr/bin/env bash
# --unreliable: every lost operation yields exactly one failure completion
# (EMU_E_LOST); none missing (the program waits for every one, so a
# missing one is a time-out), none twice (a second completion for a cookie
# fails the program), and the ranks' count of lost operations equals the
# NICs' (counter "lost"). Data of operations that succeeded is checked.
source "$(dirname "$0")/lib.sh" "$1"

for plan in "--fault drop=0.05" \
            "--fault drop=0.05 --fault dup=0.01 --fault reorder=0.1 --fault corrupt=0.001" \
            "--fault drop=ge:0.02:0.2:0.9 --fault delay=50us~50us"; do
    case_begin "unreliable: $plan"
    run 120 -N 2 -n 2 --timeout 110 --unreliable $plan -- "$BIN/fault_stress" 4000 lossy
    echo "$(summary)"
    [[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
    [[ $(grep -c "stress: rank .* ops 4000 ok " "$OUT") -eq 4 ]] || { fail "not every rank finished"; show; }
    lost=$(field_sum lost)
    [[ $lost -gt 0 ]] || fail "nothing was lost"
    [[ $lost -eq $(counter lost) ]] || fail "ranks saw $lost lost operations, NICs report $(counter lost)"
done

case_begin "reliable run of the same program loses nothing"
run 120 -N 2 -n 2 --timeout 110 --fault drop=0.05 -- "$BIN/fault_stress" 4000 lossy
[[ $ST -eq 0 && $(field_sum lost) -eq 0 ]] || { fail "exit $ST, lost $(field_sum lost)"; show; }
finish
