#!/usr/bin/env bash
# A SIGKILLed launcher's daemons remove the job's names once its ranks are
# gone. --cleanup, after a launcher was SIGKILLed and a rank survived it
# (its shared memory stays, so the job can be found): the memory is removed
# and any process of the job still alive is killed. Segments that are not jobs
# are stale too, unless they are seconds old (maybe being created). Live
# jobs are left alone.
source "$(dirname "$0")/lib.sh" "$1"

EMPTY="clitest$$-empty"; JUNK="clitest$$-junk"; FRESH="clitest$$-fresh"
EXIT_HOOKS+=("rm -f $SHM/emunic.$EMPTY.job $SHM/emunic.$JUNK.job $SHM/emunic.$FRESH.job")

case_begin "a SIGKILLed launcher whose ranks die with it leaves nothing"
start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready hold=30000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from)
compgen -G "$SHM/emunic.$id.heap.*" >/dev/null || fail "expected the ranks' heaps to exist"
kill -9 "$BG"
wait_bg 10
# the daemons remove the names once every rank is gone (no timing bound:
# 10 s is only where a hang is declared)
for i in $(seq 500); do compgen -G "$SHM/emunic.$id.*" >/dev/null || break; sleep 0.02; done
assert_clean "$id"

case_begin "leftovers of a SIGKILLed launcher whose rank survives it"
start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready @0:survive @0:sleep=30000 hold=30000
wait_lines "$OUT" '\] ready$' 4
id=$(jobid_from); DEAD_LAUNCHER=$BG
DEAD_CG=$(sed -n "s/^emunic-run: the job's cgroup is //p" "$ERR")
kill -9 "$BG"
wait_bg 10
compgen -G "$SHM/emunic.$id.*" >/dev/null || fail "expected the job's objects to remain"
# PDEATHSIG takes down all but the rank that cleared it
for i in $(seq 100); do [[ $(live_pids "$TAG" | wc -l) -le 1 ]] && break; sleep 0.02; done
[[ $(live_pids "$TAG" | wc -l) -eq 1 ]] || fail "expected exactly the surviving rank, got: $(live_pids "$TAG" | tr '\n' ' ')"
# the daemons wait (5 s) for the ranks to go before giving up on removing
# the names; the survivor keeps them
for i in $(seq 1000); do [[ -z $(live_pids "emunic-nicd --job $id") ]] && break; sleep 0.02; done
[[ -z $(live_pids "emunic-nicd --job $id") ]] || fail "the daemons of $id outlived their launcher by 20 s"
compgen -G "$SHM/emunic.$id.*" >/dev/null || fail "the daemons removed the names of a job whose rank lives"

# segments that are not jobs: empty and garbage (old), garbage (fresh)
: >"$SHM/emunic.$EMPTY.job"
head -c 8192 /dev/urandom >"$SHM/emunic.$JUNK.job"
touch -d '-1 min' "$SHM/emunic.$EMPTY.job" "$SHM/emunic.$JUNK.job"
head -c 8192 /dev/urandom >"$SHM/emunic.$FRESH.job"

# a live job
start_bg -v -N 1 -n 1 -- "$HELPER" tag=$TAG-live init barrier ready hold=30000
LIVE_BG=$BG; LIVE_OUT=$OUT; LIVE_ERR=$ERR
wait_lines "$LIVE_OUT" '\] ready$' 1
live_id=$(jobid_from "$LIVE_ERR")

case_begin "emunic-run --cleanup"
run --cleanup
expect_status 0
expect_out "^emunic-run: removed stale job $id \(launcher $DEAD_LAUNCHER is gone; killed 1 process, removed [0-9]+ objects\)$"
expect_out "^emunic-run: removed stale job $EMPTY \(not a valid job segment"
expect_out "^emunic-run: removed stale job $JUNK \(not a valid job segment"
! grep -q "$FRESH" "$OUT" || fail "a fresh segment was removed"
[[ -z $DEAD_CG || ! -d $DEAD_CG ]] || fail "the stale job's cgroup $DEAD_CG is still there"
! grep -q "$live_id" "$OUT" || fail "the live job was touched"
expect_out "^emunic-run: cleanup of $SHM: [0-9]+ stale jobs? removed, [0-9]+ live jobs? left alone"
[[ -e $SHM/emunic.$FRESH.job ]] || fail "fresh segment gone"
[[ ! -e $SHM/emunic.$EMPTY.job && ! -e $SHM/emunic.$JUNK.job ]] || fail "stale segments remain"
compgen -G "$SHM/emunic.$live_id.*" >/dev/null || fail "live job's objects removed"
[[ -z $(live_pids "$TAG-live") ]] && fail "the live job's rank was killed"
rm -f "$SHM/emunic.$FRESH.job"

case_begin "the live job still ends cleanly"
BG=$LIVE_BG; OUT=$LIVE_OUT; ERR=$LIVE_ERR
kill -INT "$BG"
wait_bg 10
expect_status 130
assert_clean "$live_id"
assert_clean "$id"

case_begin "--cleanup with nothing to do"
run --cleanup
expect_status 0
! grep -q "removed stale job" "$OUT" || true
expect_out "^emunic-run: cleanup of "
