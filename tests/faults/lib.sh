# Shared by the fault tests: BIN (emunic-run, test programs), a scratch
# dir, and helpers. Each script: source lib.sh "$1"; ...; finish.
BIN=${1:?usage: $0 BIN_DIR}
RUN="$BIN/emunic-run"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/emunic-faults.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0
OUT="$TMP/out"
ERR="$TMP/err"

fail() { echo "FAIL: $CASE: $*"; FAILS=$((FAILS + 1)); }
case_begin() { CASE=$1; echo "--- $CASE"; }
# run LIMIT_S ARGS...: emunic-run with a hard limit; status in $ST
run() {
    local limit=$1; shift
    timeout -k 5 "$limit" "$RUN" "$@" >"$OUT" 2>"$ERR"
    ST=$?
}
# the launcher's fault summary: "drops N, dups N, ..., lost N"
summary() { grep -E '^emunic-run: faults: ' "$ERR" | head -1; }
counter() { summary | grep -oE "$1 [0-9]+" | grep -oE '[0-9]+$'; }
# sum of one field over the programs' "stress:"/"ops:" lines
field_sum() { grep -oE "$1 [0-9]+" "$OUT" | awk '{s += $2} END {print s + 0}'; }
show() { echo "stdout:"; tail -n 20 "$OUT"; echo "stderr:"; tail -n 20 "$ERR"; }
finish() {
    if [[ $FAILS -ne 0 ]]; then
        echo "$FAILS failure(s)"
        exit 1
    fi
    echo "all passed"
    exit 0
}
