#!/usr/bin/env bash
# --trace and --stats-json files: a path that cannot be created (or a
# directory) is refused before the job starts (exit 2, one line); a file
# whose final write fails is named and fails the job (exit 1, or the
# status of an earlier failure), never exit 0 for a document not written.
source "$(dirname "$0")/lib.sh" "$1"

H="$HELPER tag=$TAG init barrier finalize"

refused() { # NAME REGEX ARGS...
    local name=$1 re=$2; shift 2
    case_begin "refused at start: $name"
    LIMIT=20 run -N 2 -n 1 "$@" -- $H
    expect_status 2
    [[ ! -s $OUT ]] || fail "stdout not empty"
    [[ $(wc -l <"$ERR") -eq 1 ]] || fail "expected one line on stderr, got $(wc -l <"$ERR")"
    expect_err "^emunic-run: $re"
    assert_clean
}
refused "trace is a directory"      "cannot write the --trace file $TMP: Is a directory" --trace "$TMP"
refused "trace dir missing"         "cannot write the --trace file $TMP/no/t.json: No such file" --trace "$TMP/no/t.json"
refused "trace in /proc"            "cannot write the --trace file /proc/emunic-t.json: " --trace /proc/emunic-t.json
refused "stats-json is a directory" "cannot write the --stats-json file $TMP: Is a directory" --stats-json "$TMP"

late() { # NAME WANT_STATUS REGEX ARGS...
    local name=$1 want=$2 re=$3; shift 3
    case_begin "final write fails: $name"
    LIMIT=30 run -N 2 -n 1 "$@"
    expect_status "$want"
    expect_err "^emunic-run: $re"
    assert_clean
}
# /dev/full opens for anyone and fails every write with ENOSPC
late "trace to /dev/full"      1 "cannot write the --trace file /dev/full: No space left" --trace /dev/full -- $H
late "stats-json to /dev/full" 1 "cannot write the --stats-json file /dev/full: No space left" --stats-json /dev/full -- $H
late "a rank's failure wins"   3 "cannot write the --trace file /dev/full" --trace /dev/full -- $H @1:exit=3
if [[ -w /proc/version ]]; then # root: the open succeeds, the write does not
    late "trace to /proc/version" 1 "cannot write the --trace file /proc/version: " --trace /proc/version -- $H
fi

case_begin "written: exit 0"
LIMIT=30 run -N 2 -n 1 --trace "$TMP/t.json" --stats-json "$TMP/s.json" -- $H
expect_status 0
grep -q '"traceEvents"' "$TMP/t.json" || fail "no trace document"
[[ $(tail -c 4 "$TMP/t.json") == *']}'* ]] || fail "trace document not closed"
grep -q '"nodes"' "$TMP/s.json" || fail "no stats document"
assert_clean
