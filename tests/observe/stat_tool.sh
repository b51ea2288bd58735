# emunic-stat against a running job (held on a file, released at the end)
# and its error cases. The job lives in a private EMUNIC_SHM_DIR, so the
# "only running job" default sees it alone.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../cli/lib.sh" "$1"
STAT="$BIN/emunic-stat"
[[ -x $STAT ]] || fail "$STAT missing"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
export EMUNIC_SHM_DIR="$TMP/shm"
mkdir -p "$EMUNIC_SHM_DIR"
GO="$TMP/go"

srun() { # srun ARGS...: emunic-stat, bounded; -> $SOUT $SERR $SST
    SOUT="$TMP/sout.$RANDOM"; SERR="$TMP/serr.$RANDOM"
    set +e; timeout -s KILL 20 "$STAT" "$@" >"$SOUT" 2>"$SERR" </dev/null; SST=$?; set -e
}

case_begin "no running job"
srun --once
[[ $SST -eq 1 ]] && grep -q "^emunic-stat: no running job in $EMUNIC_SHM_DIR" "$SERR" || fail "exit $SST: $(cat "$SERR")"

case_begin "start a job held on a file"
start_bg -N 2 -n 1 -- "$BIN/obs_work" 20 0 0 0 "$GO"
JOB_BG=$BG JOB_OUT=$OUT
wait_lines "$JOB_OUT" '^\[n0\.r0\] ready' 1 30
JOB=$(ls "$EMUNIC_SHM_DIR" | sed -n 's/^emunic\.\(.*\)\.job$/\1/p')
[[ -n $JOB ]] || fail "no job segment in $EMUNIC_SHM_DIR"

case_begin "--once JOB"
srun --once "$JOB"
[[ $SST -eq 0 ]] || fail "exit $SST: $(cat "$SERR")"
grep -q "^job $JOB: 2 nodes x 1 rank, nic core" "$SOUT" || fail "header: $(head -3 "$SOUT")"
grep -qE '^nic +ops +writes +reads +atomics +ams ' "$SOUT" || fail "column header"
for r in 0 1 total; do grep -qE "^$r +[0-9]+ " "$SOUT" || fail "no row $r"; done
grep -q $'\033' "$SOUT" && fail "escape codes on a pipe"

case_begin "--once, no JOB: the only running job"
srun --once
[[ $SST -eq 0 ]] && grep -q "^job $JOB:" "$SOUT" || fail "exit $SST: $(cat "$SERR")"

case_begin "--once PATH"
srun --once "$EMUNIC_SHM_DIR/emunic.$JOB.job"
[[ $SST -eq 0 ]] && grep -q "^job $JOB:" "$SOUT" || fail "exit $SST: $(cat "$SERR")"

case_begin "--json"
srun --json "$JOB"
[[ $SST -eq 0 ]] || fail "exit $SST"
python3 - "$SOUT" "$JOB" <<'PY' || fail "json: $(head -c 600 "$SOUT")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["live"] is True and d["job"] == sys.argv[2]
assert d["layout"]["nodes"] == 2 and len(d["nics"]) == 2 and len(d["ranks"]) == 2
assert d["total"]["writes"] == 0  # held before the first write
PY

case_begin "live refresh until the job ends"
LOUT="$TMP/live.out"
timeout -s KILL 40 "$STAT" --interval 0.1 "$JOB" >"$LOUT" 2>&1 &
LIVE=$!
BG_PIDS+=("$LIVE")
sleep 0.5
# a rank's stray store into the header's geometry (nnodes, ranks_per_node,
# nranks = 2, 1, 2 in a row) while emunic-stat refreshes: it keeps its
# snapshot from attaching (was: loops to 100000 nodes, divides by zero)
python3 - "$EMUNIC_SHM_DIR/emunic.$JOB.job" <<'PY' || fail "could not scribble the header"
import struct, sys
with open(sys.argv[1], "r+b") as f:
    head = f.read(256)
    at = head.find(struct.pack("<III", 2, 1, 2))
    assert 0 <= at < 64, at
    f.seek(at)
    f.write(struct.pack("<II", 100000, 0))
PY
sleep 0.5
touch "$GO"
BG=$JOB_BG; wait_bg 30
[[ $STATUS -eq 0 ]] || fail "job exit $STATUS"
set +e; wait "$LIVE"; LST=$?; set -e
[[ $LST -eq 0 ]] || fail "live emunic-stat exit $LST: $(tail -5 "$LOUT")"
grep -q "^job $JOB ended" "$LOUT" || fail "no end line: $(tail -5 "$LOUT")"
(( $(grep -c "^job $JOB:" "$LOUT") >= 2 )) || fail "fewer than 2 refreshes"
grep "^job $JOB:" "$LOUT" | grep -vq "^job $JOB: 2 nodes x 1 rank," && fail "geometry from the scribbled header: $(grep "^job $JOB:" "$LOUT" | tail -2)"
grep -qE '^1 +20 +|^1 +[0-9]+ +20 ' "$LOUT" || grep -qE '^1 +0 +20 ' "$LOUT" || fail "never saw nic1's 20 writes: $(tail -6 "$LOUT")"

case_begin "finished job"
srun --once "$JOB"
[[ $SST -eq 1 ]] && grep -q "^emunic-stat: no job $JOB in $EMUNIC_SHM_DIR" "$SERR" || fail "exit $SST: $(cat "$SERR")"

case_begin "not a job"
head -c 8192 /dev/urandom >"$EMUNIC_SHM_DIR/emunic.fake-1.job"
srun --once fake-1
[[ $SST -eq 1 ]] && grep -q "is not an emunic job segment" "$SERR" || fail "exit $SST: $(cat "$SERR")"
srun --once "$TMP/go"
[[ $SST -eq 1 ]] && grep -q "is not an emunic job segment" "$SERR" || fail "exit $SST: $(cat "$SERR")"
srun --once "$TMP/nothing/here.job"
[[ $SST -eq 1 ]] && grep -q "^emunic-stat: no job segment" "$SERR" || fail "exit $SST: $(cat "$SERR")"
rm -f "$EMUNIC_SHM_DIR/emunic.fake-1.job"

case_begin "bad options"
for args in "--bogus" "--interval" "--interval abc" "--interval 0" "a b"; do
    # shellcheck disable=SC2086
    srun $args
    [[ $SST -eq 2 && $(wc -l <"$SERR") -eq 1 ]] && grep -q "^emunic-stat: " "$SERR" || fail "'$args': exit $SST: $(cat "$SERR")"
done
srun --help
[[ $SST -eq 0 ]] && grep -q "^usage: emunic-stat" "$SOUT" || fail "--help"
