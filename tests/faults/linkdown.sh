#!/usr/bin/env bash
# A link down mid-transfer: with reliability the operations in flight wait
# (the longest took about the outage) and complete after the link is back,
# all correct; with --unreliable the ones that met the outage fail with
# EMU_E_LOST, and traffic resumes after it. Also: a NIC hang (same shape).
source "$(dirname "$0")/lib.sh" "$1"

case_begin "linkdown, reliable"
run 60 -N 2 -n 1 --timeout 50 --fault linkdown=n0:n1@0.3s+0.6s -- "$BIN/fault_ops" 1.5
echo "$(grep 'ops:' "$OUT" | tr '\n' ' ') $(summary)"
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
[[ $(grep -c 'ops: rank . ok [1-9][0-9]* lost 0 ' "$OUT") -eq 2 ]] || { fail "ranks did not all finish clean"; show; }
max=$(grep -oE 'maxwait_ms [0-9]+' "$OUT" | awk '{print $2}' | sort -n | tail -1)
[[ $max -ge 300 ]] || fail "no operation waited out the outage (max $max ms)"
[[ $(counter drops) -gt 0 && $(counter retransmits) -gt 0 ]] || fail "no drops/retransmits: $(summary)"

case_begin "linkdown, unreliable"
run 60 -N 2 -n 1 --timeout 50 --unreliable --fault linkdown=n0:n1@0.3s+0.6s -- "$BIN/fault_ops" 1.5 lossy
echo "$(grep 'ops:' "$OUT" | tr '\n' ' ') $(summary)"
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
[[ $(field_sum lost) -gt 0 ]] || fail "nothing reported lost"
[[ $(field_sum lost) -eq $(counter lost) ]] || fail "ranks saw $(field_sum lost), NICs report $(counter lost)"
[[ $(grep -c 'ops: rank . ok [1-9]' "$OUT") -eq 2 ]] || fail "no traffic got through"

case_begin "NIC hang, reliable"
run 60 -N 2 -n 1 --timeout 50 --fault hang=n1@0.3s+0.5s -- "$BIN/fault_ops" 1.2
[[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
grep -q "injected fault: NIC hang" "$ERR" || fail "no hang message"
max=$(grep -oE 'maxwait_ms [0-9]+' "$OUT" | awk '{print $2}' | sort -n | tail -1)
[[ $max -ge 250 ]] || fail "nobody waited for the hung NIC (max $max ms)"
finish
