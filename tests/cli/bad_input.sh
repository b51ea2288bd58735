#!/usr/bin/env bash
# Every usage mistake: exit 2, exactly one "emunic-run: " line on stderr,
# nothing on stdout, nothing created, no process started, never a hang.
source "$(dirname "$0")/lib.sh" "$1"

NOEXEC="$TMP/noexec"; printf '#!/bin/sh\nexit 0\n' >"$NOEXEC"; chmod 644 "$NOEXEC"

bad() { # NAME REGEX ARGS...
    local name=$1 re=$2; shift 2
    case_begin "bad input: $name"
    LIMIT=10 run "$@"
    expect_status 2
    [[ ! -s $OUT ]] || fail "stdout not empty"
    [[ $(wc -l <"$ERR") -eq 1 ]] || fail "expected exactly one line on stderr, got $(wc -l <"$ERR")"
    grep -qE "^emunic-run: " "$ERR" || fail "stderr line does not start with 'emunic-run: '"
    grep -qE -- "$re" "$ERR" || fail "stderr lacks /$re/"
}

H="$HELPER tag=$TAG"
bad "no arguments"        "no program"                    
bad "unknown long option" "unknown option '--bogus'"      --bogus -- $H
bad "unknown short"       "unknown option '-x'"           -x -- $H
bad "unknown in cluster"  "unknown option '-q'"           -vq -- $H
bad "missing value"       "missing value for option '-N'" -N
bad "missing long value"  "missing value for option '--nic'" --nic
bad "missing --"          "missing '--' before the program" -N 1 -n 1 $H
bad "missing program"     "no program given after '--'"   -N 1 -n 1 --
bad "N zero"              "-N must be .* not '0'"         -N 0 -n 1 -- $H
bad "N too big"           "-N must be .*1 to 1024"        -N 1025 -n 1 -- $H
bad "N not a number"      "-N must be .* not 'abc'"       -N abc -n 1 -- $H
bad "N negative"          "-N must be"                    -N -1 -n 1 -- $H
bad "N trailing junk"     "-N must be"                    -N 2x -n 1 -- $H
bad "n zero"              "-n must be .* not '0'"         -N 1 -n 0 -- $H
bad "n too big"           "-n must be .*1 to 1024"        -N 1 -n 1025 -- $H
bad "N*n over default"    "2048 ranks .* limit of 1024"   -N 32 -n 64 -- $H
EMUNIC_MAX_RANKS=4 bad "N*n over env limit" "6 ranks .* limit of 4" -N 2 -n 3 -- $H
EMUNIC_MAX_RANKS=abc bad "bad EMUNIC_MAX_RANKS" "EMUNIC_MAX_RANKS must be" -N 1 -n 1 -- $H
bad "bad --nic"           "--nic must be .* not 'foo'"    --nic foo -- $H
bad "bad --bind"          "--bind must be .* not 'socket'" --bind socket -- $H
bad "timeout zero"        "--timeout must be"             --timeout 0 -- $H
bad "timeout negative"    "--timeout must be"             --timeout=-3 -- $H
bad "timeout junk"        "--timeout must be"             --timeout 5s -- $H
bad "heap junk"           "--heap must be a size"         --heap 12X -- $H
bad "heap zero"           "--heap must be between"        --heap 0 -- $H
bad "heap too big"        "--heap must be between"        --heap 2048G -- $H
EMUNIC_HEAP_SIZE=lots bad "bad EMUNIC_HEAP_SIZE" "EMUNIC_HEAP_SIZE must be" -- $H
bad "program not in PATH" "program 'no_such_prog_x1' not found in PATH" -- no_such_prog_x1
bad "program path missing" "program '\./no/such' not found" -- ./no/such
bad "program not executable" "is not executable"          -- "$NOEXEC"
bad "program is a directory" "is a directory"             -- /tmp
PATH="$TMP:$PATH" bad "PATH hit not executable" "found as .* not executable" -- noexec
bad "info and cleanup"    "cannot be combined"            --info --cleanup
bad "info with bad N"     "-N must be"                    --info -N 0
EMUNIC_NICD=/no/such/nicd bad "missing daemon" "NIC daemon '/no/such/nicd'" -- $H
# An fd limit that cannot hold the pipes is caught before anything starts.
case_begin "bad input: fd limit"
( ulimit -Sn 64 && ulimit -Hn 64 && LIMIT=10 run -N 4 -n 16 -- $H; echo "$STATUS" >"$TMP/st"; cp "$ERR" "$TMP/fderr" )
STATUS=$(cat "$TMP/st"); ERR="$TMP/fderr"
expect_status 2
[[ $(wc -l <"$ERR") -eq 1 ]] || fail "expected one line"
expect_err "need [0-9]+ open files but the limit is 64"

assert_clean
