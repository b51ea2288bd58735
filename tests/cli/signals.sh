#!/usr/bin/env bash
# SIGINT / SIGTERM / SIGHUP to the launcher: clean teardown, 128+signal.
# The job runs in its own process group, so a terminal's Ctrl-C reaches
# the launcher alone.
source "$(dirname "$0")/lib.sh" "$1"

for sig in INT TERM HUP; do
    case_begin "SIG$sig to the launcher"
    start_bg -v -N 2 -n 2 -- "$HELPER" tag=$TAG init barrier ready hold=30000
    wait_lines "$OUT" '\] ready$' 4
    id=$(jobid_from)
    if [[ $sig == INT ]]; then
        lpg=$(ps -o pgid= -p "$BG" | tr -d ' ')
        # the launcher's own command line carries the tag too
        kids=$( (live_pids "$TAG"; live_pids "emunic-nicd --job $id") | grep -vx "$BG")
        [[ $(wc -w <<<"$kids") -eq 6 ]] || fail "expected 4 ranks + 2 daemons, got: $kids"
        for p in $kids; do
            pg=$(ps -o pgid= -p "$p" | tr -d ' ')
            [[ $pg != "$lpg" ]] || fail "child $p shares the launcher's process group"
        done
        [[ $(for p in $kids; do ps -o pgid= -p "$p"; done | sort -u | wc -l) -eq 1 ]] ||
            fail "children are not in one process group"
    fi
    kill -s "$sig" "$BG"
    wait_bg 10
    case $sig in INT) want=130 ;; TERM) want=143 ;; HUP) want=129 ;; esac
    expect_status $want
    expect_err "^emunic-run: caught SIG$sig"
    (( ELAPSED < 1500 )) || fail "teardown took ${ELAPSED} ms"
    assert_clean "$id"
done

case_begin "SIGINT while the ranks ignore SIGTERM"
start_bg -v -N 1 -n 2 -- "$HELPER" tag=$TAG ignore-term init barrier ready hold=30000
wait_lines "$OUT" '\] ready$' 2
id=$(jobid_from)
kill -INT "$BG"
wait_bg 10
expect_status 130
(( ELAPSED < 2000 )) || fail "SIGKILL escalation took ${ELAPSED} ms"
assert_clean "$id"

case_begin "SIGINT to the whole foreground group (a terminal's Ctrl-C)"
# setsid gives the launcher a fresh group as a terminal would; the ranks
# must not see the group-wide signal themselves (no "rank killed" line).
OUT="$TMP/fg.out"; ERR="$TMP/fg.err"
setsid "$RUN" -v -N 1 -n 2 -- "$HELPER" tag=$TAG init barrier ready hold=30000 >"$OUT" 2>"$ERR" </dev/null &
BG=$!; BG_PIDS+=("$BG")
wait_lines "$OUT" '\] ready$' 2
id=$(jobid_from)
kill -INT -- "-$BG"
wait_bg 10
expect_status 130
expect_no_err "^emunic-run: rank"
assert_clean "$id"
