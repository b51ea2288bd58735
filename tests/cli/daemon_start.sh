#!/usr/bin/env bash
# Daemons that fail to start: one that dies is named and the job ends with
# status 1; one that never reports ready is given up on after 10 s. No rank
# starts in either case. A daemon's own output is relayed as [n<node>.nic].
source "$(dirname "$0")/lib.sh" "$1"

FAKE="$TMP/emunic-nicd"   # named like the real one so pgrep patterns hold
cat >"$FAKE" <<'SH'
#!/usr/bin/env bash
# fake daemon: $FAKE_MODE says how to misbehave
echo "fake daemon $4 of $2: $FAKE_MODE" >&2
case $FAKE_MODE in
  die) [[ $4 == 1 ]] && exit 5; exec sleep 60 ;;
  hang) exec sleep 60 ;;
esac
SH
chmod +x "$FAKE"

case_begin "a daemon exits during start-up"
FAKE_MODE=die EMUNIC_NICD="$FAKE" run -v -N 2 -n 2 -- "$HELPER" tag=$TAG out=ran
expect_status 1
expect_err "^emunic-run: NIC daemon of node 1 died \(exited with code 5\) during start-up$"
expect_err "^\[n1\.nic\] fake daemon 1 of .*: die$"
[[ $(count_out ran) -eq 0 ]] || fail "ranks were started"
assert_clean "$(jobid_from)"

case_begin "daemons never become ready"
t0=$(date +%s)
FAKE_MODE=hang EMUNIC_NICD="$FAKE" LIMIT=40 run -v -N 2 -n 1 -- "$HELPER" tag=$TAG out=ran
t=$(( $(date +%s) - t0 ))
expect_status 1
expect_err "^emunic-run: NIC daemons not ready after 10 s \(node 0 is not\)$"
(( t >= 9 && t <= 15 )) || fail "gave up after ${t}s"
[[ $(count_out ran) -eq 0 ]] || fail "ranks were started"
assert_clean "$(jobid_from)"
