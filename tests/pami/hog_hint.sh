#!/usr/bin/env bash
# A task that starts an EXT_async_progress thread tells its NIC daemon to
# look for CPU hogs (EMU_HINT_HOGS): every NIC whose tasks did says so in
# its hog_watch counter, and a job without commthreads leaves them at 0.
set -u
BIN=${1:?usage: $0 BIN_DIR}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/emunic-hoghint.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# watch_of JSON: the per-NIC hog_watch values, one line
watch_of() {
    python3 -c 'import json,sys; print(" ".join(str(n["counters"]["hog_watch"]) for n in json.load(open(sys.argv[1]))["nics"]))' "$1"
}

for prog in pami_async pami_fence; do
    timeout -s KILL 150 "$BIN/emunic-run" -N 2 -n 1 --nic pami --timeout 120 --stats-json "$TMP/$prog.json" -- \
        "$BIN/$prog" >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "$prog: exit status $?"; }
    got=$(watch_of "$TMP/$prog.json") || fail "$prog: no stats"
    want="1 1"
    [[ $prog == pami_fence ]] && want="0 0"
    [[ "$got" == "$want" ]] || fail "$prog: hog_watch per NIC is '$got', want '$want'"
    echo "$prog: hog_watch per NIC $got"
done
echo PASS
