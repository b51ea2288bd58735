#!/usr/bin/env bash
# Portals target work done by the initiator's daemon (nicd/fastpath.c,
# portals/nic ptln_peer_target): each program passes at 2x1 with the path
# and without it (EMUNIC_FAST_PATH=0), and the counters show which road
# was taken; with a machine model the path stays off.
#   fastpath.sh EMUNIC_RUN PROG...
set -uo pipefail
run=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
counter() { awk -v c="$1" '$1 == c { print $2; exit }' "$tmp/err"; }
job() { # NAME PROG, then emunic-run options
    local name=$1 prog=$2
    shift 2
    "$run" -N 2 -n 1 --nic portals "$@" --timeout 200 --stats -- "$prog" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [[ $rc == 0 ]] || { cat "$tmp/out" "$tmp/err"; echo "FAIL: $name exited $rc"; exit 1; }
    fast=$(counter fast_ops) tx=$(counter wire_tx)
}
for prog in "$@"; do
    name=$(basename "$prog")
    job "$name" "$prog"
    [[ $fast -gt 0 ]] || { cat "$tmp/err"; echo "FAIL: $name: fast_ops $fast, want > 0"; exit 1; }
    echo "$name 2x1: fast path: fast_ops $fast, wire_tx $tx"
    EMUNIC_FAST_PATH=0 job "$name EMUNIC_FAST_PATH=0" "$prog"
    [[ $fast == 0 && $tx -gt 0 ]] || { echo "FAIL: $name with EMUNIC_FAST_PATH=0: fast_ops $fast wire_tx $tx"; exit 1; }
    echo "$name 2x1: EMUNIC_FAST_PATH=0: fast_ops 0, wire_tx $tx"
done
job "$name --machine xt5" "$prog" --machine xt5
[[ $fast == 0 ]] || { echo "FAIL: $name with a machine model: fast_ops $fast, want 0"; exit 1; }
echo "$name --machine xt5: fast_ops 0"
echo "portals fastpath: ok"
