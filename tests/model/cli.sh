#!/usr/bin/env bash
# --machine / --congestion mistakes: exit 2, one "emunic-run: " line, and
# for errors inside a profile file the FILE:LINE.
source "$(dirname "$0")/../cli/lib.sh" "$1"

bad() { # NAME REGEX ARGS...
    local name=$1 re=$2; shift 2
    case_begin "bad input: $name"
    LIMIT=10 run "$@"
    expect_status 2
    [[ ! -s $OUT ]] || fail "stdout not empty"
    [[ $(wc -l <"$ERR") -eq 1 ]] || fail "expected exactly one line on stderr, got $(wc -l <"$ERR")"
    grep -qE -- "$re" "$ERR" || fail "stderr lacks /$re/"
}

H="$HELPER tag=$TAG"
printf 'overhead_ns: 1\nlatency_ns: 2\nhop_ns: 3\nlink_bw: 1e9\nmtu: 64\nspeed: 9\n' >"$TMP/unknown.yaml"
printf 'overhead_ns: 1\nlatency_ns: [2\n' >"$TMP/broken.yaml"
printf 'overhead_ns: 1\nlatency_ns: 2\nhop_ns: -3\nlink_bw: 1e9\nmtu: 64\n' >"$TMP/neg.yaml"
bad "unknown machine"      "no machine profile 'bogus' \(available: ideal, xt5, bgp, bgq, p7ih" --machine bogus -- $H
bad "missing file"         "cannot read $TMP/none.yaml"                 --machine "$TMP/none.yaml" -- $H
bad "unknown key in file"  "^emunic-run: $TMP/unknown.yaml:6: unknown key 'speed'" --machine "$TMP/unknown.yaml" -- $H
bad "bad YAML"             "^emunic-run: $TMP/broken.yaml:[0-9]+: bad YAML" --machine "$TMP/broken.yaml" -- $H
bad "negative value"       "^emunic-run: $TMP/neg.yaml:3: hop_ns: negative" --machine "$TMP/neg.yaml" -- $H
bad "too many nodes"       "do not fit"                                 -N 600 -n 1 --machine bgq -- $H
bad "unknown congestion"   "unknown pattern 'storm'"                    --congestion storm -- $H
bad "congestion load"      "LOAD must be a fraction"                    --congestion uniform:1.5 -- $H

case_begin "every shipped profile runs a job"
for m in xt5 bgp bgq p7ih ideal; do
    LIMIT=30 run -N 2 -n 1 --machine "$m" -- $H
    expect_status 0
done
case_begin "--congestion runs"
LIMIT=30 run -N 4 -n 1 --machine bgq --congestion hotspot:0.5 -- $H
expect_status 0
