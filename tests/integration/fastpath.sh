#!/usr/bin/env bash
# Cross-node operations applied by the initiator's daemon (nicd/fastpath.c):
# core_fastpath passes with the path and without it (EMUNIC_FAST_PATH=0),
# the counters show which road was taken, and a job with a machine model,
# fault rules or a trace keeps to the wire.
#   fastpath.sh EMUNIC_RUN CORE_FASTPATH
set -uo pipefail
run=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
counter() { awk -v c="$1" '$1 == c { print $2; exit }' "$tmp/err"; }
job() { # NAME, then emunic-run options
    local name=$1
    shift
    "$run" "$@" --timeout 200 --stats -- "$prog" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    [[ $rc == 0 ]] || { cat "$tmp/out" "$tmp/err"; echo "FAIL: $name exited $rc"; exit 1; }
    fast=$(counter fast_ops) tx=$(counter wire_tx)
}
for layout in "2 2" "3 1"; do
    set -- $layout
    shape="${1}x$2"
    job "$shape" -N "$1" -n "$2"
    [[ $fast -gt 0 ]] || { cat "$tmp/err"; echo "FAIL: $shape: fast_ops $fast, want > 0"; exit 1; }
    echo "$shape: fast path: fast_ops $fast, wire_tx $tx"
    EMUNIC_FAST_PATH=0 job "$shape EMUNIC_FAST_PATH=0" -N "$1" -n "$2"
    [[ $fast == 0 && $tx -gt 0 ]] || { echo "FAIL: $shape with EMUNIC_FAST_PATH=0: fast_ops $fast wire_tx $tx"; exit 1; }
    echo "$shape: EMUNIC_FAST_PATH=0: fast_ops 0, wire_tx $tx"
done
job "2x1 --machine xt5" -N 2 -n 1 --machine xt5
[[ $fast == 0 ]] || { echo "FAIL: with a machine model: fast_ops $fast, want 0"; exit 1; }
job "2x1 --fault dup=0.01" -N 2 -n 1 --fault dup=0.01 --seed 1
[[ $fast == 0 ]] || { echo "FAIL: with a fault rule: fast_ops $fast, want 0"; exit 1; }
job "2x1 --trace" -N 2 -n 1 --trace "$tmp/trace.json"
[[ $fast == 0 ]] || { echo "FAIL: with a trace: fast_ops $fast, want 0"; exit 1; }
echo "machine model, fault rule, trace: fast_ops 0"
echo "fastpath: ok"
