# --stats and --stats-json: every counter printed, the op counts of a known
# workload right on the right NIC, the JSON document valid and equal to the
# text; bad output paths refused before the job starts.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../cli/lib.sh" "$1"
WORK="$BIN/obs_work"
COUNTERS_H="$HERE/../../emunic/include/emunic/counters.h"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
NAMES=$(sed -n 's/^ *X(\([a-z_]*\),.*/\1/p' "$COUNTERS_H")
[[ $(wc -w <<<"$NAMES") -ge 20 ]] || fail "cannot read the counter names from $COUNTERS_H"

# value COUNTER COLUMN(1=total, 2=nic0, ...) from the --stats table in $ERR
value() { awk -v c="$1" -v k="$2" '$1 == c && NF >= k + 1 { print $(k + 1); exit }' "$ERR"; }

check_run() { # nodes rpn nic_of_target
    local N=$1 n=$2 tcol=$3
    JSON="$TMP/stats.$N.$n.json"
    run -N "$N" -n "$n" --stats --stats-json "$JSON" -- "$WORK" 10 3 4 5
    [[ $STATUS -eq 0 ]] || fail "exit $STATUS"
    grep -q "^emunic-run: counters of job " "$ERR" || fail "no counters header"
    for c in $NAMES; do
        [[ -n $(value "$c" 1) ]] || fail "counter $c missing from --stats"
    done
    [[ $(value writes 1) == 10 && $(value reads 1) == 3 && $(value atomics 1) == 4 &&
       $(value ams 1) == 5 ]] || fail "totals: writes $(value writes 1) reads $(value reads 1) atomics $(value atomics 1) ams $(value ams 1)"
    [[ $(value writes "$tcol") == 10 && $(value ams "$tcol") == 5 ]] || fail "target NIC column $tcol"
    [[ $(value cmds 2) == 22 ]] || fail "nic0 took $(value cmds 2) commands, want 22"
    [[ $(value bytes 1) == $((13 * 1024 + 4 * 8)) ]] || fail "bytes $(value bytes 1)"
    [[ $(value module_ops 1) == 0 && $(value errors 1) == 0 ]] || fail "module_ops/errors"
    for ((r = 0; r < N * n; r++)); do
        grep -qE "^$r +$((r / n)) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$" "$ERR" || fail "no wake-up line for rank $r"
    done
    grep -q "faults:" "$ERR" && fail "fault summary without faults"
    python3 -m json.tool "$JSON" >/dev/null || fail "--stats-json is not JSON"
    python3 - "$JSON" "$ERR" "$N" "$n" <<'PY' || fail "--stats-json does not match --stats"
import json, sys
d = json.load(open(sys.argv[1])); N, n = int(sys.argv[3]), int(sys.argv[4])
text = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 2 + N and f[0] in d["total"] and all(x.isdigit() for x in f[1:]):
        text[f[0]] = [int(x) for x in f[1:2 + N]]
assert d["format"] == "emunic-stats" and d["live"] is False
assert d["layout"] == {"nodes": N, "ranks_per_node": n, "ranks": N * n, "nic": "core"}, d["layout"]
assert d["machine"]["name"] and isinstance(d["seed"], int)
assert len(d["nics"]) == N and len(d["ranks"]) == N * n
assert set(d["counter_docs"]) == set(d["total"]) == set(d["nics"][0]["counters"])
for name, vals in text.items():
    assert vals[0] == d["total"][name], (name, vals, d["total"][name])
    for k in range(N):
        assert vals[1 + k] == d["nics"][k]["counters"][name], (name, k)
assert len(text) == len(d["total"]), (len(text), len(d["total"]))
assert d["total"]["writes"] == 10 and d["total"]["bytes"] == 13 * 1024 + 32
for r in d["ranks"]:
    assert set(r) >= {"rank", "node", "wakeups", "doorbells", "sleeps", "yields"}
PY
}

case_begin "two nodes: target is nic1"
check_run 2 1 3
case_begin "one node, two ranks: target is nic0"
check_run 1 2 2

case_begin "bad --stats-json path refused before the job"
run -N 1 -n 1 --stats-json "$TMP/no/such/dir/s.json" -- "$WORK" 1 0 0 0
[[ $STATUS -eq 2 ]] || fail "exit $STATUS, want 2"
grep -q "cannot write the --stats-json file" "$ERR" || fail "no message"
[[ $(wc -l <"$ERR") -eq 1 ]] || fail "more than one line"
leaks=$(memfd_leaks)
[[ -z $leaks ]] || fail "memfds left: $leaks"
