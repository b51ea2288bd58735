# Sourced by every cli test: bash lib for running emunic-run and checking
# that a job left nothing behind. Usage in a test: source lib.sh "$BIN".
set -euo pipefail

BIN=${1:?usage: $0 BIN_DIR}
RUN="$BIN/emunic-run"
HELPER="$BIN/rank_behave"
[[ -x $RUN && -x $HELPER ]] || { echo "FAIL: $RUN or $HELPER missing" >&2; exit 1; }
# A test must not inherit settings from the caller's environment.
unset EMUNIC_SHM_DIR EMUNIC_MAX_RANKS EMUNIC_HEAP_SIZE EMUNIC_NICD EMUNIC_JOBID EMUNIC_RANK
SHM=/dev/shm
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

# Leaks: objects that appeared during the test and whose launcher is dead
# (job ids are "<launcher pid>-<hex>"). Objects of live launchers belong to
# other jobs on the host; a second look skips objects a finishing job was
# just about to remove.
shm_names() { ls -1 "$SHM" 2>/dev/null | grep '^emunic\.' | sort || true; }
SHM_BEFORE=$(shm_names)
shm_leaks() {
    local pass f id pid found
    for pass in 1 2; do
        found=""
        for f in $(comm -13 <(echo "$SHM_BEFORE") <(shm_names)); do
            id=${f#emunic.}; id=${id%%.*}; pid=${id%%-*}
            [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && continue
            found+="$f "
        done
        [[ -z $found ]] && return 0
        sleep 0.2
    done
    echo "$found"
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

# assert_clean [JOBID]: no object of the job in $SHM, no daemon of the job,
# no helper process of this test, no new orphaned emunic.* object.
assert_clean() {
    local id=${1:-} i
    for i in $(seq 50); do
        [[ -z $(live_pids "$TAG") && ( -z $id || -z $(live_pids "emunic-nicd --job $id") ) ]] && break
        sleep 0.02
    done
    [[ -z $(live_pids "$TAG") ]] || fail "helper processes remain: $(live_pids "$TAG" | tr '\n' ' ')"
    if [[ -n $id ]]; then
        [[ -z $(live_pids "emunic-nicd --job $id") ]] || fail "daemons of $id remain"
        compgen -G "$SHM/emunic.$id.*" >/dev/null && fail "objects of job $id remain: $(ls "$SHM"/emunic."$id".*)"
    fi
    local leaks
    leaks=$(shm_leaks)
    [[ -z $leaks ]] || fail "new orphaned objects in $SHM: $leaks"
    return 0
}

expect_status() { [[ $STATUS -eq $1 ]] || fail "exit status $STATUS, expected $1"; }
expect_out() { grep -qE -- "$1" "$OUT" || fail "stdout lacks /$1/"; }
expect_err() { grep -qE -- "$1" "$ERR" || fail "stderr lacks /$1/"; }
expect_no_err() { ! grep -qE -- "$1" "$ERR" || fail "stderr has /$1/"; }
count_out() { grep -cE -- "$1" "$OUT" || true; }
