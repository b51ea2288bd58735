#!/usr/bin/env bash
# The DCMF lockbox is the one object a client names in the shm directory
# (spi/bgp_SPI.h, inline in the client): it must go with the job, both
# when the job ends and when its launcher is SIGKILLed (the orphaned
# daemons remove it once the ranks are gone).
#   lockbox_names.sh EMUNIC_RUN DCMF_SHIMS
set -uo pipefail
run=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export EMUNIC_SHM_DIR=$tmp/shm
mkdir "$EMUNIC_SHM_DIR"
fail() { echo "FAIL: $*"; cat "$tmp"/out* "$tmp"/err* 2>/dev/null | tail -20; exit 1; }

# each rank runs the shims, then lists the directory while the job lives
"$run" -v -N 2 -n 2 --nic dcmf --timeout 100 -- sh -c \
    '"$0" && ls "$EMUNIC_SHM_DIR" > "$1.$EMUNIC_RANK"' "$prog" "$tmp/seen" >"$tmp/out" 2>"$tmp/err" ||
    fail "the job failed"
id=$(sed -n 's/^emunic-run: job \([^:]*\): .*/\1/p' "$tmp/err" | head -1)
[[ -n $id ]] || fail "no job id in the -v output"
for r in 0 1 2 3; do
    grep -qxE "emunic\.$id\.lockbox\.n[01]" "$tmp/seen.$r" || fail "rank $r saw no lockbox of $id: $(cat "$tmp/seen.$r")"
done
left=$(ls -A "$EMUNIC_SHM_DIR")
[[ -z $left ]] || fail "left after the job: $left"

# the launcher SIGKILLed once every rank has its lockbox
"$run" -v -N 2 -n 1 --nic dcmf -- sh -c '"$0" && touch "$1.$EMUNIC_RANK" && sleep 30' \
    "$prog" "$tmp/up" >"$tmp/out2" 2>"$tmp/err2" &
bg=$!
for i in $(seq 1000); do [[ -e $tmp/up.0 && -e $tmp/up.1 ]] && break; sleep 0.02; done
[[ -e $tmp/up.0 && -e $tmp/up.1 ]] || { kill -9 $bg; fail "the ranks never got up"; }
[[ -n $(ls -A "$EMUNIC_SHM_DIR") ]] || { kill -9 $bg; fail "no lockbox while the job runs"; }
kill -9 $bg
wait $bg 2>/dev/null
# the daemons wait for the ranks (no timing bound: 20 s is where a hang is declared)
for i in $(seq 1000); do [[ -z $(ls -A "$EMUNIC_SHM_DIR") ]] && break; sleep 0.02; done
left=$(ls -A "$EMUNIC_SHM_DIR")
[[ -z $left ]] || fail "left 20 s after the launcher was SIGKILLed: $left"
echo "lockbox_names: the lockbox existed while the job ran and is gone after it, also after a SIGKILLed launcher"
