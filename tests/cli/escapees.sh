#!/usr/bin/env bash
# Processes a rank leaves behind outside the job's process group (setsid,
# setpgid), ignoring SIGTERM: the launcher (a subreaper) finds them among
# its descendants and kills them, however the job ends, and promptly.
source "$(dirname "$0")/lib.sh" "$1"

escaped_pids() { sed -n 's/.*escaped \([0-9]*\)$/\1/p' "$OUT"; }
gone() {
    local p
    for p in $(escaped_pids); do
        [[ -d /proc/$p && $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) != Z ]] &&
            fail "escaped process $p still runs"
    done
    return 0
}

for how in setsid setpgid; do
    case_begin "$how child, job ends normally"
    t0=$(date +%s%N)
    LIMIT=30 run -N 2 -n 1 -- "$HELPER" tag=$TAG "escape=$how" out=done
    t1=$(date +%s%N)
    expect_status 0
    [[ $(escaped_pids | wc -l) -eq 2 ]] || fail "want 2 escaped children"
    gone
    (( (t1 - t0) / 1000000 < 3000 )) || fail "the job took $(( (t1 - t0) / 1000000 )) ms"
    assert_clean

    case_begin "$how child, a rank fails"
    t0=$(date +%s%N)
    LIMIT=30 run -N 2 -n 1 -- "$HELPER" tag=$TAG "escape=$how" @1:exit=5 sleep=20000
    t1=$(date +%s%N)
    expect_status 5
    gone
    (( (t1 - t0) / 1000000 < 3000 )) || fail "teardown took $(( (t1 - t0) / 1000000 )) ms"
    assert_clean
done

case_begin "setsid child, launcher stopped by SIGTERM"
start_bg -N 1 -n 2 -- "$HELPER" tag=$TAG escape=setsid ready sleep=30000
wait_lines "$OUT" 'ready$' 2
kill -TERM "$BG"
wait_bg 10
expect_status 143
gone
(( ELAPSED < 2000 )) || fail "teardown took ${ELAPSED} ms"
assert_clean

# A SIGKILLed launcher sweeps nothing: the ranks die by PDEATHSIG, and what
# they left running outside the process group is ended by the orphaned
# daemons through the job's cgroup (where a cgroup v2 hierarchy is
# writable; without one that child survives, as docs/launcher.md says).
case_begin "setsid child, launcher SIGKILLed"
start_bg -v -N 2 -n 1 -- "$HELPER" tag=$TAG escape=setsid ready sleep=30000
wait_lines "$OUT" 'ready$' 2
id=$(jobid_from)
if ! grep -q "^emunic-run: the job's cgroup is " "$ERR"; then
    echo "SKIP [setsid child, launcher SIGKILLed]: no cgroup here ($(grep -m1 'no cgroup for the job' "$ERR"))"
    kill -9 "$BG"
    wait_bg 10
    for p in $(escaped_pids); do kill -9 "$p" 2>/dev/null || :; done
else
    cg=$(sed -n "s/^emunic-run: the job's cgroup is //p" "$ERR")
    kill -9 "$BG"
    wait_bg 10
    # no timing bound: 20 s is only where a hang is declared
    deadline=$(( $(date +%s) + 20 ))
    while (( $(date +%s) < deadline )); do
        [[ ! -d $cg && -z $(memfd_users "$id") ]] && break
        sleep 0.02
    done
    gone
    [[ ! -d $cg ]] || fail "the job's cgroup $cg outlived the job"
    assert_clean "$id"
fi
