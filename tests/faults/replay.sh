#!/usr/bin/env bash
# A seed replays the faults: two runs with the same --seed lose the same
# operations (same per-rank outcome, same "lost" count); another seed
# loses others. Under --unreliable with one working rank the packets on
# each link are the same every run, and fault decisions are a function of
# (seed, link, sequence number, attempt), so the outcome is exact.
source "$(dirname "$0")/lib.sh" "$1"

outcome() { # SEED -> "<rank lines>|lost N"
    run 120 -N 2 -n 1 --timeout 110 --unreliable --seed "$1" --fault drop=0.03 --fault corrupt=0.01 \
        --fault dup=0.02 -- "$BIN/fault_stress" 3000 lossy solo
    [[ $ST -eq 0 ]] || { fail "seed $1: exit $ST"; show; }
    echo "$(grep 'stress:' "$OUT" | sort | tr '\n' ' ')|lost $(counter lost)"
}
case_begin "same seed, same faults"
a=$(outcome 12345)
b=$(outcome 12345)
c=$(outcome 54321)
echo "seed 12345: $a"
echo "seed 12345: $b"
echo "seed 54321: $c"
[[ "$a" == "$b" ]] || fail "two runs with seed 12345 differ"
[[ "$a" != "$c" ]] || fail "seeds 12345 and 54321 lose exactly the same operations"
[[ "${a##*|lost }" -gt 0 ]] || fail "nothing lost: the test proves nothing"
finish
