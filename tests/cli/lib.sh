# Sourced by every cli test: bash lib for running emunic-run and checking
# that a job left nothing behind. Usage in a test: source lib.sh "$BIN".
set -euo pipefail

BIN=${1:?usage: $0 BIN_DIR}
RUN="$BIN/emunic-run"
HELPER="$BIN/rank_behave"
[[ -x $RUN && -x $HELPER ]] || { echo "FAIL: $RUN or $HELPER missing" >&2; exit 1; }
# A test must not inherit settings from the caller's environment.
unset EMUNIC_MAX_RANKS EMUNIC_HEAP_SIZE EMUNIC_NICD EMUNIC_JOBID EMUNIC_RANK
TMP=$(mktemp -d /tmp/emunic-cli.XXXXXX)
# Every helper process of this test carries the tag, so pgrep -f finds
# exactly ours even when other jobs run on the host.
TAG="clitag-$$-$RANDOM"
CASE="(none)"
BG_PIDS=()
EXIT_HOOKS=()   # commands a test needs run however it ends (umount, rm)

on_exit() {
    local rc=$? h
    for p in "${BG_PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    for h in "${EXIT_HOOKS[@]}"; do eval "$h" || true; done
    rm -rf "$TMP"
    if [[ $rc -eq 0 ]]; then echo "PASS: $(basename "$0")"; fi
    exit $rc
}
trap on_exit EXIT

fail() {
    echo "FAIL [$CASE]: $*" >&2
    for f in "${OUT:-}" "${ERR:-}"; do
        [[ -n $f && -f $f ]] && { echo "--- $f" >&2; head -c 4000 "$f" >&2; }
    done
    exit 1
}

case_begin() { CASE=$1; echo "--- $CASE"; }

# A job's shared objects are memfds called emunic.<id>.<what> (the
# segment emunic.<id>.job, rank R's heap emunic.<id>.heap.R; a job id is
# "<launcher pid>-<hex>"). None has a name in any directory: one lives
# while a process holds it (/proc/PID/fd: "/memfd:NAME (deleted)") or maps
# it (a /proc/PID/maps line ending so), and that is where a test looks.
# memfd_users [JOBID]: "PID fd|map NAME", one per process and object (of
# job JOBID), for every emunic memfd a process we may look into holds or
# maps.
memfd_users() {
    local id=${1:-}
    {
        find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -type l \
            -lname "/memfd:emunic.${id:+$id.}*" -printf '%h %l\n' 2>/dev/null |
            sed -n 's#^/proc/\([0-9]*\)/fd /memfd:\(emunic\.[^ /]*\) (deleted)$#\1 fd \2#p'
        grep -HF -- "/memfd:emunic.${id:+$id.}" /proc/[0-9]*/maps 2>/dev/null |
            sed -nE 's#^/proc/([0-9]+)/maps:[0-9a-f]+-[0-9a-f]+ [^ ]+ [0-9a-f]+ [^ ]+ [0-9]+ +/memfd:(emunic\.[^ /]*) \(deleted\)$#\1 map \2#p'
    } | sort -u || true
}
# The names of the emunic memfds alive now.
memfd_names() { memfd_users | awk '{print $3}' | sort -u; }
MEMFD_BEFORE=$(memfd_names)
# "NAME (PID comm fd|map, ...)" for each line of memfd_users output $1.
memfd_describe() {
    awk '{ c = "?"; f = "/proc/" $1 "/comm"; if ((getline c < f) <= 0) c = "?"; close(f)
           u[$3] = u[$3] (u[$3] == "" ? "" : ", ") $1 " " c " " $2 }
         END { for (n in u) printf "%s (%s) ", n, u[n] }' <<<"$1"
}
# launcher_holds ID USERS: the job's launcher, the holder of its segment
# whose pid in its own namespace the job id starts with (1 under
# --isolate, as --cleanup judges it), still holds it.
launcher_holds() {
    local id=$1 p
    for p in $(awk -v n="emunic.$id.job" '$2 == "fd" && $3 == n { print $1 }' <<<"$2"); do
        [[ $(awk '$1 == "NSpid:" { print $NF }' "/proc/$p/status" 2>/dev/null) == "${id%%-*}" ]] && return 0
    done
    return 1
}
# Leaks: memfds that appeared during the test and whose job is over: its
# launcher (the pid the job id starts with) no longer holds the segment,
# yet some process still holds or maps them. Objects of live jobs belong
# to other jobs on the host; a second look skips those of a finishing job
# whose processes were just about to exit.
memfd_leaks() {
    local pass users n id found
    for pass in 1 2; do
        found=""
        users=$(memfd_users)
        for n in $(comm -13 <(echo "$MEMFD_BEFORE") <(awk '{print $3}' <<<"$users" | sort -u)); do
            id=${n#emunic.}; id=${id%%.*}
            launcher_holds "$id" "$users" && continue
            found+=$(grep -F " emunic.$id." <<<"$users" || true)$'\n'
        done
        [[ -z ${found//$'\n'/} ]] && return 0
        sleep 0.2
    done
    memfd_describe "$(sort -u <<<"$found")"
}

# run [emunic-run args...]: stdout -> $OUT, stderr -> $ERR, exit -> $STATUS.
# stdin comes from $STDIN (default /dev/null); never longer than $LIMIT s.
run() {
    OUT="$TMP/out.$RANDOM"; ERR="$TMP/err.$RANDOM"
    set +e
    timeout -s KILL "${LIMIT:-30}" "$RUN" "$@" >"$OUT" 2>"$ERR" <"${STDIN:-/dev/null}"
    STATUS=$?
    set -e
}

# start_bg [emunic-run args...]: like run, in the background; $BG is its pid.
start_bg() {
    OUT="$TMP/out.$RANDOM"; ERR="$TMP/err.$RANDOM"
    "$RUN" "$@" >"$OUT" 2>"$ERR" <"${STDIN:-/dev/null}" &
    BG=$!
    BG_PIDS+=("$BG")
}

# wait_bg [limit_s]: wait for $BG, set $STATUS and $ELAPSED (ms).
wait_bg() {
    local limit=${1:-20} t0 t1
    t0=$(date +%s%N)
    local deadline=$((t0 + limit * 1000000000))
    # a zombie still answers kill -0, so look at its state
    while [[ $(awk '{print $3}' "/proc/$BG/stat" 2>/dev/null || echo Z) != Z ]]; do
        (( $(date +%s%N) < deadline )) || fail "emunic-run still running after ${limit}s"
        sleep 0.02
    done
    set +e; wait "$BG"; STATUS=$?; set -e
    t1=$(date +%s%N)
    ELAPSED=$(( (t1 - t0) / 1000000 ))
}

# wait_lines FILE REGEX COUNT [limit_s]: until COUNT lines of FILE match.
wait_lines() {
    local f=$1 re=$2 n=$3 limit=${4:-20}
    local deadline=$(( $(date +%s) + limit ))
    while (( $(grep -cE -- "$re" "$f" 2>/dev/null || true) < n )); do
        (( $(date +%s) < deadline )) || fail "waited ${limit}s for $n lines /$re/ in $f"
        sleep 0.05
    done
}

# The job id emunic-run -v prints first.
jobid_from() {
    sed -n 's/^emunic-run: job \([^:]*\): .*/\1/p' "${1:-$ERR}" | head -n1
}

# pids of live (non-zombie) processes whose command line matches.
live_pids() {
    local p
    for p in $(pgrep -f -- "$1" || true); do
        [[ $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) == Z ]] || echo "$p"
    done
}

# assert_clean [JOBID]: no process holds or maps a memfd of the job, no
# daemon of the job, no helper process of this test, no new emunic memfd
# of a job whose launcher is gone.
assert_clean() {
    local id=${1:-} i users
    for i in $(seq 50); do
        [[ -z $(live_pids "$TAG") && ( -z $id || -z $(live_pids "emunic-nicd --job $id") ) ]] && break
        sleep 0.02
    done
    [[ -z $(live_pids "$TAG") ]] || fail "helper processes remain: $(live_pids "$TAG" | tr '\n' ' ')"
    if [[ -n $id ]]; then
        [[ -z $(live_pids "emunic-nicd --job $id") ]] || fail "daemons of $id remain"
        users=$(memfd_users "$id")
        [[ -z $users ]] || fail "objects of job $id remain: $(memfd_describe "$users")"
    fi
    local leaks
    leaks=$(memfd_leaks)
    [[ -z $leaks ]] || fail "new orphaned memfds: $leaks"
    return 0
}

expect_status() { [[ $STATUS -eq $1 ]] || fail "exit status $STATUS, expected $1"; }
expect_out() { grep -qE -- "$1" "$OUT" || fail "stdout lacks /$1/"; }
expect_err() { grep -qE -- "$1" "$ERR" || fail "stderr lacks /$1/"; }
expect_no_err() { ! grep -qE -- "$1" "$ERR" || fail "stderr has /$1/"; }
count_out() { grep -cE -- "$1" "$OUT" || true; }
