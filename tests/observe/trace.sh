# --trace FILE: valid Chrome trace-event JSON with a named track per NIC and
# per rank, one span per operation on the initiator's NIC and rank tracks,
# and nothing left in TMPDIR; a bad path refused before the job starts.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../cli/lib.sh" "$1"
WORK="$BIN/obs_work"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR"

check_trace() { # nodes rpn
    local N=$1 n=$2
    T="$TMP/trace.$N.$n.json"
    run -N "$N" -n "$n" --trace "$T" -- "$WORK" 10 3 4 5
    [[ $STATUS -eq 0 ]] || fail "exit $STATUS"
    [[ -z $(ls -A "$TMPDIR") ]] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
    python3 -m json.tool "$T" >/dev/null || fail "trace is not JSON"
    python3 - "$T" "$N" "$n" <<'PY' || fail "trace content"
import json, sys
from collections import Counter
d = json.load(open(sys.argv[1])); N, n = int(sys.argv[2]), int(sys.argv[3])
ev = d["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
want = {f"nic {k}" for k in range(N)} | {f"rank {r}" for r in range(N * n)}
assert set(names.values()) == want, names
assert len(names) == len(want), "tracks not distinct"
procs = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert procs == set(range(N)), procs
track = {v: k for k, v in names.items()}
spans = Counter()
for e in ev:
    if e["ph"] == "X":
        assert e["dur"] >= 0 and e["ts"] >= 0, e
        assert (e["pid"], e["tid"]) in names, e
        spans[(names[(e["pid"], e["tid"])], e["name"])] += 1
want_ops = {"write": 10, "read": 3, "atomic": 4, "am": 5}
for t in ("nic 0", "rank 0"):
    got = {op: spans[(t, op)] for op in want_ops}
    assert got == want_ops, (t, got)
others = sum(c for (t, op), c in spans.items() if t not in ("nic 0", "rank 0"))
assert others == 0, spans
for e in ev:
    if e["ph"] == "X" and e["args"].get("status", 0) != 0:
        raise AssertionError(e)
PY
}

case_begin "2 nodes x 1 rank"
check_trace 2 1
case_begin "2 nodes x 2 ranks"
check_trace 2 2

case_begin "a rank killed by a fault keeps the events it wrote"
T="$TMP/trace.kill.json"
run -N 2 -n 1 --keep-going --fault kill=r0,after=20 --trace "$T" -- "$WORK" 100 0 0 0
[[ $STATUS -ne 0 ]] || fail "the job with a killed rank exited 0"
grep -q "rank 0 (node 0) killed by signal 9" "$ERR" || fail "rank 0 was not killed"
python3 - "$T" <<'PY' || fail "trace content"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
rank0 = [e for e in ev if e["ph"] == "X" and names.get((e["pid"], e["tid"])) == "rank 0"]
kills = [e for e in ev if e["ph"] == "i" and e["name"] == "kill"]
# 20 messages passed the NIC; the rank saw the completion of all but the last
assert 15 <= len(rank0) <= 20, len(rank0)
assert len(kills) == 1, kills
PY

case_begin "--dilate 10: a rank's span of an operation contains its NIC's (one clock)"
T="$TMP/trace.dilate.json"
run -N 2 -n 1 --machine bgq --dilate 10 --trace "$T" -- "$WORK" 10 3 4 5
[[ $STATUS -eq 0 ]] || fail "exit $STATUS"
python3 - "$T" <<'PY' || fail "rank and NIC spans not aligned"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
spans = {}
for e in ev:
    if e["ph"] == "X":
        spans.setdefault(names[(e["pid"], e["tid"])], {})[e["args"]["cookie"]] = e
rank, nic = spans["rank 0"], spans["nic 0"]
assert len(rank) == 22 and set(rank) == set(nic), (len(rank), len(nic))
for c, r in rank.items():
    n = nic[c]
    # 1 us of slack for the microsecond rounding of ts and dur
    assert r["ts"] <= n["ts"] + 1 and n["ts"] + n["dur"] <= r["ts"] + r["dur"] + 1, (r, n)
PY

case_begin "bad --trace path refused before the job"
run -N 1 -n 1 --trace "$TMP/no/such/dir/t.json" -- "$WORK" 1 0 0 0
[[ $STATUS -eq 2 ]] || fail "exit $STATUS, want 2"
grep -q "cannot write the --trace file" "$ERR" || fail "no message"
[[ -z $(ls -A "$TMPDIR") ]] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
leaks=$(memfd_leaks)
[[ -z $leaks ]] || fail "memfds left: $leaks"
