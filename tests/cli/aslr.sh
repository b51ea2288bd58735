#!/usr/bin/env bash
# --no-aslr: every rank starts without address randomisation (as on Blue
# Gene's CNK), so the same program puts main and its first allocation at
# the same addresses in every rank; without it ranks keep the launcher's
# own setting.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "--no-aslr at 2x2: the same layout in every rank"
run -N 2 -n 2 --no-aslr -- "$HELPER" tag=$TAG layout
expect_status 0
[[ $(count_out '^\[n[01]\.r[0-3]\] layout norand=1 ') -eq 4 ]] || fail "expected 4 ranks with randomisation off"
n=$(sed -n 's/^\[n[01]\.r[0-3]\] layout //p' "$OUT" | sort -u | wc -l)
[[ $n -eq 1 ]] || fail "ranks report $n different layouts: $(cat "$OUT")"

case_begin "default: ranks keep the launcher's setting"
mine=$(( (0x$(cat /proc/self/personality) & 0x0040000) != 0 ))
run -N 1 -n 2 -- "$HELPER" tag=$TAG layout
expect_status 0
[[ $(count_out "^\[n0\.r[01]\] layout norand=$mine ") -eq 2 ]] || fail "expected norand=$mine in both ranks: $(cat "$OUT")"
