#!/usr/bin/env bash
# The job's shared objects are memfds: they go with the last process that
# holds or maps them, so a SIGKILLed launcher whose ranks die with it
# (PDEATHSIG) leaves nothing at all once its orphaned daemons have left.
# A rank that survived it (it cleared its death signal) still maps the
# segment, and that is how --cleanup finds the stale job: it kills that
# rank and ends the job's cgroup. Live jobs (their launcher holds the
# segment) are left alone.
# Gone with the named objects in /dev/shm: the cases of segment files that
# are not jobs (empty or garbage, stale or seconds old), which --cleanup
# removed. There is nothing to remove now, and a job no longer has a
# window between its objects existing and its launcher holding them.
# What is left of them: a process that is no job's but holds a memfd
# called like a segment (emunic.<id>.job, garbage in it) is not killed.
source "$(dirname "$0")/lib.sh" "$1"

# wait_objects_gone ID LIMIT_S: until no process holds or maps an object
# of job ID (LIMIT_S is only where a hang is declared).
wait_objects_gone() {
    local deadline=$(( $(date +%s) + $2 ))
    while [[ -n $(memfd_users "$1") ]]; do
        (( $(date +%s) < deadline )) || fail "objects of job $1 still there after $2 s: $(memfd_describe "$(memfd_users "$1")")"
        sleep 0.02
    done
}

case_begin "a SIGKILLed launcher whose ranks die with it leaves nothing"
start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready hold=30000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from)
[[ $(memfd_users "$id" | grep -c " fd emunic\.$id\.heap\.[0-3]$") -eq 4 ]] ||
    fail "expected the 4 ranks' heaps to exist: $(memfd_users "$id" | tr '\n' ';')"
grep -qxF "$BG fd emunic.$id.job" <(memfd_users "$id") || fail "the launcher does not hold the segment"
kill -9 "$BG"
wait_bg 10
# the memory goes with the daemons, the last processes of the job
wait_objects_gone "$id" 10
assert_clean "$id"
run --cleanup
expect_status 0
! grep -q "$id" "$OUT" || fail "--cleanup found something of job $id"

case_begin "leftovers of a SIGKILLed launcher whose rank survives it"
start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready @0:survive @0:sleep=30000 hold=30000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from); DEAD_LAUNCHER=$BG
DEAD_CG=$(sed -n "s/^emunic-run: the job's cgroup is //p" "$ERR")
kill -9 "$BG"
wait_bg 10
# PDEATHSIG takes down all but the rank that cleared it
for i in $(seq 100); do [[ $(live_pids "$TAG" | wc -l) -le 1 ]] && break; sleep 0.02; done
[[ $(live_pids "$TAG" | wc -l) -eq 1 ]] || fail "expected exactly the surviving rank, got: $(live_pids "$TAG" | tr '\n' ' ')"
SURVIVOR=$(live_pids "$TAG")
# the daemons wait (5 s) for the ranks to go, then leave; the survivor is
# left to --cleanup
for i in $(seq 1000); do [[ -z $(live_pids "emunic-nicd --job $id") ]] && break; sleep 0.02; done
[[ -z $(live_pids "emunic-nicd --job $id") ]] || fail "the daemons of $id outlived their launcher by 20 s"
# so that --cleanup can find the job: the survivor still maps the segment
# (and holds its heap), and it alone keeps anything of the job
users=$(memfd_users "$id")
grep -qxF "$SURVIVOR map emunic.$id.job" <<<"$users" || fail "the surviving rank no longer maps the segment: $(memfd_describe "$users")"
grep -qxF "$SURVIVOR fd emunic.$id.heap.0" <<<"$users" || fail "the surviving rank no longer holds its heap: $(memfd_describe "$users")"
[[ -z $(awk -v p="$SURVIVOR" '$1 != p' <<<"$users") ]] || fail "others than the survivor keep objects of $id: $(memfd_describe "$users")"
[[ $(memfd_leaks) == *"emunic.$id.job ($SURVIVOR "* ]] || fail "memfd_leaks does not see the stale job: '$(memfd_leaks)'"

# a live job
start_bg -v -N 1 -n 1 -- "$HELPER" tag=$TAG-live init barrier ready hold=30000
LIVE_BG=$BG; LIVE_OUT=$OUT; LIVE_ERR=$ERR
wait_lines "$LIVE_OUT" '\] ready$' 1
live_id=$(jobid_from "$LIVE_ERR")
live_users=$(memfd_users "$live_id")

# no job's process, holding memfds called like segments: of a launcher
# that is gone, and of one that is itself (python3 makes them)
HOLDER=""
if command -v python3 >/dev/null; then
    HOLD_READY="$TMP/hold.ready"
    python3 - "$HOLD_READY" <<'PY' &
import os, sys, time
for name in ("emunic.999999999-feed.job", "emunic.%d-feed.job" % os.getpid()):
    fd = os.memfd_create(name, 0)
    os.write(fd, os.urandom(8192))
open(sys.argv[1], "w").close()
time.sleep(60)
PY
    HOLDER=$!
    BG_PIDS+=("$HOLDER")
    for i in $(seq 500); do [[ -e $HOLD_READY ]] && break; sleep 0.02; done
    [[ -e $HOLD_READY ]] || fail "the fake segments were not made"
else
    echo "SKIP [fake segments]: no python3"
fi

# a live job in a PID namespace of its own (a container's): its id has the
# launcher's pid as the launcher knows it, not the one we see
NS_BG=""
if [[ $(id -u) -eq 0 ]] && unshare --pid --fork --mount-proc true 2>/dev/null; then
    NS_OUT="$TMP/ns.out"; NS_ERR="$TMP/ns.err"
    unshare --pid --fork --mount-proc --kill-child -- bash -c '"$@" & wait $!' _ \
        "$RUN" -v -N 1 -n 1 -- "$HELPER" tag=$TAG-ns init barrier ready hold=30000 >"$NS_OUT" 2>"$NS_ERR" &
    NS_BG=$!
    BG_PIDS+=("$NS_BG")
    wait_lines "$NS_OUT" '\] ready$' 1
    ns_id=$(jobid_from "$NS_ERR")
    [[ -n $ns_id && $ns_id != "$(pgrep -f -- "-v -N 1 -n 1 -- $HELPER tag=$TAG-ns" | head -1)-"* ]] ||
        fail "the namespaced job's id $ns_id is not made from its own view of its pid"
else
    echo "SKIP [a job in a PID namespace]: needs root and unshare --pid"
fi

# files clients name after a job (the DCMF lockbox): of a job that is
# gone, and of the live job
DEAD_NAMED="999999998-dead"
EXIT_HOOKS+=("rm -f /dev/shm/emunic.$DEAD_NAMED.lockbox.n0 /dev/shm/emunic.$live_id.lockbox.n0")
: >"/dev/shm/emunic.$DEAD_NAMED.lockbox.n0"
: >"/dev/shm/emunic.$live_id.lockbox.n0"

case_begin "emunic-run --cleanup"
run --cleanup
expect_status 0
[[ ! -s $ERR ]] || fail "stderr not empty"
expect_out "^emunic-run: ended stale job $id \(launcher $DEAD_LAUNCHER is gone; killed 1 process\)$"
[[ $(grep -c "^emunic-run: ended stale job $id " "$OUT") -eq 1 ]] || fail "job $id ended more than once"
[[ $(awk '{print $3}' "/proc/$SURVIVOR/stat" 2>/dev/null || echo Z) == Z ]] || fail "the surviving rank $SURVIVOR was not killed"
[[ -z $(memfd_users "$id") ]] || fail "objects of job $id remain: $(memfd_describe "$(memfd_users "$id")")"
[[ -z $DEAD_CG || ! -d $DEAD_CG ]] || fail "the stale job's cgroup $DEAD_CG is still there"
! grep -q "$live_id" "$OUT" || fail "the live job was touched"
expect_out "^emunic-run: cleanup: [1-9][0-9]* stale jobs? ended, [1-9][0-9]* live jobs? left alone$"
[[ $(tail -n1 "$OUT") == "emunic-run: cleanup: "* ]] || fail "the summary is not the last line"
[[ -n $(live_pids "$TAG-live") ]] || fail "the live job's rank was killed"
expect_out "^emunic-run: removed 1 file of ended job $DEAD_NAMED$"
[[ ! -e /dev/shm/emunic.$DEAD_NAMED.lockbox.n0 ]] || fail "the ended job's lockbox file remains"
[[ -e /dev/shm/emunic.$live_id.lockbox.n0 ]] || fail "the live job's lockbox file was removed"
[[ $(memfd_users "$live_id") == "$live_users" ]] || fail "the live job's objects changed: $(memfd_describe "$(memfd_users "$live_id")")"
if [[ -n $HOLDER ]]; then
    [[ $(awk '{print $3}' "/proc/$HOLDER/stat" 2>/dev/null || echo Z) != Z ]] || fail "a process that is no job's was killed"
    ! grep -qE "ended stale job 999999999-feed .*killed [1-9]" "$OUT" || fail "claims to have killed a process of 999999999-feed"
    ! grep -q "ended stale job $HOLDER-feed " "$OUT" || fail "a segment its launcher holds was taken for a stale job"
    { kill -9 "$HOLDER" && wait "$HOLDER"; } 2>/dev/null || true
fi

if [[ -n $NS_BG ]]; then
    ! grep -q "$ns_id" "$OUT" || fail "the job in a PID namespace was taken for a stale one"
    [[ -n $(live_pids "$TAG-ns") ]] || fail "the job in a PID namespace was killed"
    kill -9 "$NS_BG" 2>/dev/null # --kill-child: its namespace goes with it
    for i in $(seq 500); do [[ -z $(live_pids "$TAG-ns") && -z $(memfd_users "$ns_id") ]] && break; sleep 0.02; done
    [[ -z $(live_pids "$TAG-ns") ]] || fail "the namespaced job's processes outlived their namespace"
    [[ -z $(memfd_users "$ns_id") ]] || fail "objects of job $ns_id remain: $(memfd_describe "$(memfd_users "$ns_id")")"
fi

case_begin "the live job still ends cleanly"
BG=$LIVE_BG; OUT=$LIVE_OUT; ERR=$LIVE_ERR
kill -INT "$BG"
wait_bg 10
expect_status 130
[[ ! -e /dev/shm/emunic.$live_id.lockbox.n0 ]] || fail "the launcher left a file named after its job"
assert_clean "$live_id"
assert_clean "$id"

case_begin "--cleanup with nothing to do"
run --cleanup
expect_status 0
[[ ! -s $ERR ]] || fail "stderr not empty"
# (other jobs on the host may have gone stale meanwhile: only ours are
# known to be gone for good)
! grep -qE "ended stale job ($id|$live_id) " "$OUT" || fail "a job of this test was ended again"
expect_out "^emunic-run: cleanup: [0-9]+ stale jobs? ended, [0-9]+ live jobs? left alone$"
[[ $(grep -vc "^emunic-run: ended stale job " "$OUT") -eq 1 ]] || fail "expected the summary line besides ended jobs"
