# emunic-stat against a running job (held on a file, released at the end)
# and its error cases. emunic-stat finds jobs in /proc (a job's segment is
# the memfd emunic.<id>.job its launcher holds), so the script runs in a
# PID namespace of its own where it can make one (root, or unprivileged
# user namespaces): there the "no running job" and "only running job"
# defaults see its job alone. Elsewhere those two cases need a host with
# no other job running, and are skipped when there is one.
HERE=$(cd "$(dirname "$0")" && pwd)
if [[ -z ${EMUNIC_STAT_PIDNS:-} ]] && command -v unshare >/dev/null; then
    for how in "" "--user --map-root-user"; do
        # shellcheck disable=SC2086
        if unshare $how --pid --fork --mount-proc --kill-child true 2>/dev/null; then
            EMUNIC_STAT_PIDNS=1 exec unshare $how --pid --fork --mount-proc --kill-child \
                bash "$HERE/$(basename "$0")" "$@"
        fi
    done
fi
source "$HERE/../cli/lib.sh" "$1"
STAT="$BIN/emunic-stat"
[[ -x $STAT ]] || fail "$STAT missing"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
GO="$TMP/go"
(( $$ == 1 )) && echo "(in a PID namespace of its own)"

# live_jobs: the ids of the jobs whose launcher holds the segment.
live_jobs() { memfd_users | sed -n 's/^\([0-9]*\) fd emunic\.\(\1-[^.]*\)\.job$/\2/p' | sort -u; }
# alone [JOB]: true if no job but JOB (if given) runs; else say that the
# case is skipped, and why.
alone() {
    local others
    others=$(live_jobs | grep -vxF -- "${1:-/}" | tr '\n' ' ' || true)
    [[ -z $others ]] && return 0
    echo "SKIP [$CASE]: other jobs run on this host: $others"
    return 1
}

srun() { # srun ARGS...: emunic-stat, bounded; -> $SOUT $SERR $SST
    SOUT="$TMP/sout.$RANDOM"; SERR="$TMP/serr.$RANDOM"
    set +e; timeout -s KILL 20 "$STAT" "$@" >"$SOUT" 2>"$SERR" </dev/null; SST=$?; set -e
}

case_begin "no running job"
if alone; then
    srun --once
    [[ $SST -eq 1 && $(cat "$SERR") == "emunic-stat: no running job" ]] || fail "exit $SST: $(cat "$SERR")"
    [[ ! -s $SOUT ]] || fail "stdout not empty"
fi

case_begin "start a job held on a file"
start_bg -v -N 2 -n 1 -- "$BIN/obs_work" 20 0 0 0 "$GO"
JOB_BG=$BG JOB_OUT=$OUT JOB_ERR=$ERR
wait_lines "$JOB_OUT" '^\[n0\.r0\] ready' 1 30
JOB=$(jobid_from "$JOB_ERR")
[[ -n $JOB ]] || fail "emunic-run -v named no job"
[[ $JOB == "$JOB_BG-"* ]] || fail "job id $JOB does not start with the launcher's pid $JOB_BG"
# the segment, as the launcher holds it: /proc/PID/fd/N
SEG=""
for f in /proc/"$JOB_BG"/fd/*; do
    [[ $(readlink "$f" 2>/dev/null) == "/memfd:emunic.$JOB.job (deleted)" ]] && { SEG=$f; break; }
done
[[ -n $SEG ]] || fail "the launcher holds no memfd emunic.$JOB.job"

case_begin "--once JOB"
srun --once "$JOB"
[[ $SST -eq 0 ]] || fail "exit $SST: $(cat "$SERR")"
grep -q "^job $JOB: 2 nodes x 1 rank, nic core" "$SOUT" || fail "header: $(head -3 "$SOUT")"
grep -qE '^nic +ops +writes +reads +atomics +ams ' "$SOUT" || fail "column header"
for r in 0 1 total; do grep -qE "^$r +[0-9]+ " "$SOUT" || fail "no row $r"; done
grep -q $'\033' "$SOUT" && fail "escape codes on a pipe"

case_begin "--once, no JOB: the only running job"
if alone "$JOB"; then
    srun --once
    [[ $SST -eq 0 ]] && grep -q "^job $JOB:" "$SOUT" || fail "exit $SST: $(cat "$SERR")"
fi

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
python3 - "$SEG" <<'PY' || fail "could not scribble the header"
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

assert_clean "$JOB"

case_begin "finished job"
srun --once "$JOB"
[[ $SST -eq 1 && $(cat "$SERR") == "emunic-stat: no job $JOB (finished, or never started)" ]] || fail "exit $SST: $(cat "$SERR")"

case_begin "unknown job id"
# a live pid (ours) that holds no segment, and one no process has
for id in "$$-0123abcd" "999999999-1"; do
    srun --once "$id"
    [[ $SST -eq 1 && $(cat "$SERR") == "emunic-stat: no job $id (finished, or never started)" ]] || fail "$id: exit $SST: $(cat "$SERR")"
done

case_begin "not a job id"
# paths (a segment has none any more), the memfd's name, empty, too long
for arg in "$GO" "$TMP/nothing/here.job" "/dev/shm/emunic.$JOB.job" "emunic.$JOB.job" "" \
           "$(printf '1%.0s' {1..40})"; do
    srun --once "$arg"
    [[ $SST -eq 1 && $(cat "$SERR") == "emunic-stat: '$arg' is not a job id" ]] || fail "'$arg': exit $SST: $(cat "$SERR")"
done

case_begin "not a job"
# a memfd called like a job's segment, held by a process, with garbage
# (and one empty) in it
FAKE_READY="$TMP/fake.ready"
python3 - "$FAKE_READY" <<'PY' &
import os, sys, time
for name, data in (("emunic.fake-1.job", os.urandom(8192)), ("emunic.fake-2.job", b"")):
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
open(sys.argv[1], "w").close()
time.sleep(60)
PY
FAKE=$!
BG_PIDS+=("$FAKE")
for i in $(seq 500); do [[ -e $FAKE_READY ]] && break; sleep 0.02; done
[[ -e $FAKE_READY ]] || fail "the fake segments were not made"
for id in fake-1 fake-2; do
    srun --once "$id"
    [[ $SST -eq 1 && $(cat "$SERR") == "emunic-stat: job $id's segment is not an emunic job segment (or one of another emunic version)" ]] ||
        fail "$id: exit $SST: $(cat "$SERR")"
done
# nor is either a running job
if alone; then
    srun --once
    [[ $SST -eq 1 && $(cat "$SERR") == "emunic-stat: no running job" ]] || fail "exit $SST: $(cat "$SERR")"
fi
{ kill -9 "$FAKE" && wait "$FAKE"; } 2>/dev/null || true

case_begin "bad options"
for args in "--bogus" "--interval" "--interval abc" "--interval 0" "a b"; do
    # shellcheck disable=SC2086
    srun $args
    [[ $SST -eq 2 && $(wc -l <"$SERR") -eq 1 ]] && grep -q "^emunic-stat: " "$SERR" || fail "'$args': exit $SST: $(cat "$SERR")"
done
srun --help
[[ $SST -eq 0 ]] && grep -q "^usage: emunic-stat" "$SOUT" || fail "--help"
