#!/usr/bin/env bash
# --isolate: a job in a PID and mount namespace of its own. Its ranks see
# in /proc only their own job, so another job of the same user (here: this
# test's) has no process they can signal and no descriptor they can open
# its memory through; the outer emunic-run relays signals and the status;
# the kernel ends whatever of the job is left when its launcher ends.
source "$(dirname "$0")/lib.sh" "$1"

LIMIT=30 run --isolate -N 1 -n 1 -- true
if [[ $STATUS -eq 2 ]] && grep -q "^emunic-run: --isolate: cannot" "$ERR"; then
    echo "SKIP: --isolate is not possible here: $(head -n1 "$ERR")"
    exit 77
fi
expect_status 0

# The pids a rank lists in /proc with each one's command line.
LIST='for p in /proc/[0-9]*; do c=$(tr "\0" " " < $p/cmdline 2>/dev/null) && printf "proc %s %s\n" "${p#/proc/}" "$c"; done'

case_begin "a rank sees its own job only"
start_bg -v -N 1 -n 2 -- "$HELPER" tag=$TAG-other ready sleep=20000
other=$BG other_out=$OUT other_err=$ERR
wait_lines "$OUT" 'ready$' 2
other_id=$(jobid_from "$other_err")
[[ -n $other_id ]] || fail "no job id from the other job"
other_rank=""
for p in $(live_pids "$TAG-other"); do
    [[ $(cat /proc/$p/comm 2>/dev/null) == rank_behave ]] && other_rank=$p
done
[[ -n $other_rank ]] || fail "no rank of the other job found"
# what the test, outside, sees of the other job: its segment in the
# launcher's descriptors, its ranks
[[ -n $(memfd_users "$other_id") ]] || fail "the other job's memory is not visible from outside"
LIMIT=30 run -v --isolate -N 2 -n 1 -- sh -c "$LIST
    kill -0 $other_rank 2>/dev/null && echo reached-rank
    kill -0 $other 2>/dev/null && echo reached-launcher
    for f in /proc/[0-9]*/fd/*; do
        case \$(readlink \$f 2>/dev/null) in */memfd:emunic.$other_id.*) echo reached-memory \$f;; esac
    done
    echo pid \$\$"
expect_status 0
id=$(jobid_from)
[[ $id == 1-* ]] || fail "the job id '$id' does not start with the launcher's pid in its namespace (1)"
for r in 0 1; do
    lines=$(grep -F "[n$r.r$r] proc " "$OUT" || true)
    [[ $(grep -c 'emunic-nicd --job ' <<<"$lines") -eq 2 ]] || fail "rank $r does not see exactly its job's 2 daemons"
    [[ $(grep -cE '^\S+ proc 1 \S*emunic-run ' <<<"$lines") -eq 1 ]] || fail "rank $r does not see its launcher as pid 1"
    ! grep -q -- "$TAG-other" <<<"$lines" || fail "rank $r sees a process of the other job"
    n=$(wc -l <<<"$lines")
    (( n <= 8 )) || fail "rank $r sees $n processes"
done
reached='^\[n[0-9]+\.r[0-9]+\] reached-'
! grep -qE "$reached" "$OUT" || fail "a rank reached the other job: $(grep -E "$reached" "$OUT")"
# the job's own pids are small numbers of its own, never the host's
for p in $(sed -n 's/.*] pid \([0-9]*\)$/\1/p' "$OUT"); do
    (( p < 10 )) || fail "a rank's pid in its namespace is $p"
done
# the other job, not isolated, was untouched and still runs
[[ -d /proc/$other_rank ]] || fail "the other job's rank is gone"
kill -TERM "$other"
BG=$other OUT=$other_out ERR=$other_err
wait_bg 20
expect_status 143
assert_clean "$other_id"
assert_clean "$id"

case_begin "two isolated jobs do not see each other"
start_bg --isolate -N 1 -n 1 -- "$HELPER" tag=$TAG-first ready sleep=20000
first=$BG first_out=$OUT first_err=$ERR
wait_lines "$OUT" 'ready$' 1
LIMIT=30 run --isolate -N 1 -n 1 -- sh -c "$LIST"
expect_status 0
! grep -q -- "$TAG-first" "$OUT" || fail "the second job sees the first one's rank"
[[ $(grep -c 'emunic-nicd --job ' "$OUT") -eq 1 ]] || fail "the second job does not see exactly its own daemon"
kill -TERM "$first"
BG=$first OUT=$first_out ERR=$first_err
wait_bg 20
expect_status 143

# The host still sees an isolated job whole: emunic-stat finds it, and
# --cleanup knows its launcher (pid 1 of its namespace, as its id says).
case_begin "seen from outside"
start_bg -v --isolate -N 2 -n 1 -- "$HELPER" tag=$TAG ready sleep=20000
wait_lines "$OUT" 'ready$' 2
id=$(jobid_from)
"$BIN/emunic-stat" -1 "$id" >"$TMP/stat" 2>&1 || fail "emunic-stat cannot read $id: $(cat "$TMP/stat")"
grep -q "^job $id: 2 nodes x 1 rank" "$TMP/stat" || fail "emunic-stat: $(head -n1 "$TMP/stat")"
"$RUN" --cleanup >"$TMP/cleanup" 2>&1 || fail "--cleanup failed: $(cat "$TMP/cleanup")"
(( $(live_pids "$TAG" | wc -l) >= 3 )) || fail "--cleanup ended the live isolated job"
kill -TERM "$BG"
wait_bg 20
expect_status 143
assert_clean "$id"

case_begin "emunic-stat from outside sees the isolated job end"
start_bg -v --isolate -N 1 -n 1 -- "$HELPER" tag=$TAG ready sleep=1500
wait_lines "$OUT" 'ready$' 1
id=$(jobid_from)
timeout -s KILL 30 "$BIN/emunic-stat" -i 0.1 "$id" >"$TMP/follow" 2>&1 ||
    fail "emunic-stat -i did not end with the job (status $?)"
grep -qx "job $id ended" "$TMP/follow" || fail "emunic-stat: $(tail -n1 "$TMP/follow")"
wait_bg 20
expect_status 0

# The job's /dev/shm is its own: what a rank names there (DCMF's lockbox,
# MPI's segments) neither shows on the host nor outlives the job.
case_begin "a /dev/shm of the job's own"
shmfile=emunic-isolate-test.$TAG
start_bg --isolate -N 1 -n 2 -- sh -c "touch /dev/shm/$shmfile.\$EMUNIC_RANK && exec $HELPER tag=$TAG ready sleep=20000"
wait_lines "$OUT" 'ready$' 2
rank=""
for p in $(live_pids "$TAG"); do [[ $(cat /proc/$p/comm 2>/dev/null) == rank_behave ]] && rank=$p; done
# what one rank sees there: both ranks' files
[[ $(ls /proc/$rank/root/dev/shm/ | grep -c "^$shmfile\.[01]$") -eq 2 ]] ||
    fail "the ranks do not share their /dev/shm: $(ls /proc/$rank/root/dev/shm/)"
! ls /dev/shm/$shmfile.* >/dev/null 2>&1 || fail "a rank's /dev/shm file shows on the host"
kill -TERM "$BG"
wait_bg 20
expect_status 143
! ls /dev/shm/$shmfile.* >/dev/null 2>&1 || fail "a rank's /dev/shm file outlived the job"
assert_clean

case_begin "SIGUSR1 ends the job, as it ends a launcher that is not isolated"
start_bg --isolate -N 1 -n 2 -- "$HELPER" tag=$TAG ready sleep=20000
wait_lines "$OUT" 'ready$' 2
kill -USR1 "$BG"
wait_bg 20
expect_status 138
deadline=$(( $(date +%s) + 20 ))
while [[ -n $(live_pids "$TAG") ]] && (( $(date +%s) < deadline )); do sleep 0.05; done
assert_clean

case_begin "exit status and the failing rank are the launcher's"
LIMIT=30 run --isolate -N 2 -n 1 -- "$HELPER" tag=$TAG @1:exit=5 sleep=20000
expect_status 5
expect_err 'rank 1 \(node 1\) exited with code 5'
assert_clean

case_begin "a signal sent to emunic-run reaches the launcher"
for sig in INT TERM HUP; do
    start_bg --isolate -N 1 -n 2 -- "$HELPER" tag=$TAG ready sleep=20000
    wait_lines "$OUT" 'ready$' 2
    kill -$sig "$BG"
    wait_bg 20
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
    expect_status $want
    assert_clean
done

# kill -- -PGID (a shell's kill %1, GNU timeout) reaches the relay and the
# launcher alike: the relay passes its copy on, and the launcher must take
# the two as one request, not as "asked again" (which skips the SIGTERM
# grace: ranks that ignore SIGTERM would then die at once, not after 300 ms).
case_begin "a signal to the whole process group is one request"
OUT="$TMP/pg.out"; ERR="$TMP/pg.err"
setsid "$RUN" -v --isolate -N 1 -n 2 -- "$HELPER" tag=$TAG ignore-term ready sleep=30000 \
    >"$OUT" 2>"$ERR" </dev/null &
BG=$!; BG_PIDS+=("$BG")
wait_lines "$OUT" '\] ready$' 2
kill -INT -- "-$BG"
wait_bg 20
expect_status 130
[[ $(grep -c '^emunic-run: caught SIGINT' "$ERR") -eq 1 ]] || fail "want one 'caught SIGINT' line"
(( ELAPSED >= 250 )) || fail "the ranks were SIGKILLed after ${ELAPSED} ms: the grace period was skipped"
assert_clean
# the relay's copy late (it is stopped for a while): still one request;
# the grace is a lower bound, so a slow host cannot fail this
setsid "$RUN" -v --isolate -N 1 -n 2 -- "$HELPER" tag=$TAG ignore-term ready sleep=30000 \
    >"$OUT" 2>"$ERR" </dev/null &
BG=$!; BG_PIDS+=("$BG")
wait_lines "$OUT" '\] ready$' 2
t0=$(date +%s%N)
kill -STOP "$BG"
kill -INT -- "-$BG"
sleep 0.15
kill -CONT "$BG"
wait_bg 20
expect_status 130
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
(( ms >= 280 )) || fail "the ranks were SIGKILLed after ${ms} ms: a late relayed copy skipped the grace period"
assert_clean

# No cgroup, so nothing but the namespace ends the escaped children: when
# its init (the launcher) is SIGKILLed through the relay's death, the
# kernel kills every process of the job.
case_begin "SIGKILLed emunic-run: the job ends, escapees too"
EMUNIC_CGROUP=0 start_bg -v --isolate -N 2 -n 1 -- "$HELPER" tag=$TAG escape=setsid ready sleep=30000
wait_lines "$OUT" 'ready$' 2
id=$(jobid_from)
(( $(live_pids "$TAG" | wc -l) >= 4 )) || fail "want 2 ranks and 2 escaped children running"
kill -9 "$BG"
wait_bg 20
# no timing bound: 20 s is only where a hang is declared
deadline=$(( $(date +%s) + 20 ))
while (( $(date +%s) < deadline )); do
    [[ -z $(live_pids "$TAG") && -z $(memfd_users "$id") ]] && break
    sleep 0.05
done
assert_clean "$id"

case_begin "EMUNIC_ISOLATE"
EMUNIC_ISOLATE=1 LIMIT=30 run -N 1 -n 1 -- sh -c 'echo pid $$'
expect_status 0
expect_out '^\[n0\.r0\] pid [0-9]$'
EMUNIC_ISOLATE=yes LIMIT=30 run -N 1 -n 1 -- true
expect_status 2
expect_err "EMUNIC_ISOLATE must be 0 or 1, not 'yes'"
EMUNIC_ISOLATE=0 LIMIT=30 run -N 1 -n 1 -- sh -c 'echo pid $$'
expect_status 0
! grep -qE '^\[n0\.r0\] pid [0-9]$' "$OUT" || fail "EMUNIC_ISOLATE=0 isolated the job"

# Root without CAP_SYS_ADMIN (a container's root) cannot make a PID
# namespace by itself; a user namespace gives it one.
case_begin "root without CAP_SYS_ADMIN"
if [[ $(id -u) -ne 0 ]] || ! command -v setpriv >/dev/null ||
   ! setpriv --bounding-set=-sys_admin --inh-caps=-all true 2>/dev/null; then
    echo "SKIP [root without CAP_SYS_ADMIN]: not root, or no setpriv"
else
    OUT="$TMP/out.nosysadmin"; ERR="$TMP/err.nosysadmin"
    set +e
    timeout -s KILL 30 setpriv --bounding-set=-sys_admin --inh-caps=-all \
        "$RUN" --isolate -N 2 -n 1 -- sh -c 'echo pid $$' >"$OUT" 2>"$ERR" </dev/null
    STATUS=$?
    set -e
    expect_status 0
    [[ $(grep -cE '^\[n[01]\.r[01]\] pid [0-9]$' "$OUT") -eq 2 ]] ||
        fail "the ranks did not run with pids of their own namespace"
fi

# An ordinary user needs a user namespace for the other two.
case_begin "as an unprivileged user"
if [[ $(id -u) -ne 0 ]] || ! command -v setpriv >/dev/null ||
   ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$RUN" 2>/dev/null; then
    echo "SKIP [as an unprivileged user]: not root, no setpriv, or nobody cannot run $RUN"
else
    OUT="$TMP/out.nobody"; ERR="$TMP/err.nobody"
    set +e
    timeout -s KILL 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$RUN" --isolate -N 2 -n 1 -- sh -c 'echo uid $(id -u) pid $$' >"$OUT" 2>"$ERR" </dev/null
    STATUS=$?
    set -e
    if [[ $STATUS -eq 2 ]] && grep -q "^emunic-run: --isolate: cannot" "$ERR"; then
        echo "SKIP [as an unprivileged user]: $(head -n1 "$ERR")"
    else
        expect_status 0
        [[ $(grep -cE '^\[n[01]\.r[01]\] uid 65534 pid [0-9]$' "$OUT") -eq 2 ]] ||
            fail "the ranks did not run as uid 65534 with pids of their own namespace"
    fi
fi
assert_clean
