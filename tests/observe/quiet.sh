# Without --stats, --stats-json or --trace a job writes nothing of its own:
# no counters, no fault summary, no files in the working directory or TMPDIR.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../cli/lib.sh" "$1"
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR" "$TMP/cwd"
case_begin "no observability flags"
cd "$TMP/cwd"
run -N 2 -n 2 -- "$BIN/obs_work" 10 3 4 5
[[ $STATUS -eq 0 ]] || fail "exit $STATUS"
[[ ! -s $ERR && ! -s $OUT ]] || fail "job printed something"
[[ -z $(ls -A "$TMPDIR") && -z $(ls -A "$TMP/cwd") ]] || fail "files: $(ls -A "$TMPDIR" "$TMP/cwd")"
cd /
