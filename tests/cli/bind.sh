#!/usr/bin/env bash
# --bind core: each node's daemon and ranks run on the PUs --info planned;
# --bind none leaves them where the launcher may run.
source "$(dirname "$0")/lib.sh" "$1"

run --info -N 2 -n 2 --bind core
expect_status 0
declare -a plan
for n in 0 1; do plan[$n]=$(sed -n "s/^  node $n: .* on PUs //p" "$OUT"); done
[[ -n ${plan[0]} && -n ${plan[1]} ]] || fail "no plan"

case_begin "--bind core"
start_bg -v --bind core -N 2 -n 2 -- "$HELPER" tag=$TAG cpus ready sleep=2000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from)
for n in 0 1; do
    d=$(live_pids "emunic-nicd --job $id --node $n")
    got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$d/status")
    [[ $got == "${plan[$n]}" ]] || fail "daemon of node $n on $got, planned ${plan[$n]}"
done
wait_bg 20
expect_status 0
for r in 0 1 2 3; do
    n=$((r / 2))
    grep -qxF "[n$n.r$r] cpus ${plan[$n]}" "$OUT" || fail "rank $r not on ${plan[$n]}"
done
assert_clean "$id"

case_begin "--bind none"
mine=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
run -v -N 2 -n 1 -- "$HELPER" tag=$TAG cpus
expect_status 0
[[ $(count_out "cpus $mine\$") -eq 2 ]] || fail "unbound ranks should run on $mine"
assert_clean "$(jobid_from)"
