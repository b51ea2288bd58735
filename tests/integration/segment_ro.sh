#!/usr/bin/env bash
# A rank's wild store into the job header through its own mapping: the
# kernel stops it (SIGSEGV in that rank), emunic-run names that rank,
# fails the job at once and leaves nothing: no process maps or holds the
# job's memory any more.
#   segment_ro.sh EMUNIC_RUN CORE_SEGMENT_RO
set -uo pipefail
run=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$run" -v -N 2 -n 2 --timeout 100 -- "$prog" stray >"$tmp/out" 2>"$tmp/err"
rc=$?
show() { cat "$tmp/out" "$tmp/err"; }
[[ $rc != 0 ]] || { show; echo "FAIL: the job exited 0"; exit 1; }
grep -q 'stray: rank 1 stores into the header' "$tmp/out" || { show; echo "FAIL: rank 1 never struck"; exit 1; }
! grep -q 'SURVIVED' "$tmp/out" || { show; echo "FAIL: the store into the header went through"; exit 1; }
# under ASan the sanitizer reports the SEGV and the rank exits 1
grep -q 'rank 1 (node 0) killed by signal 11' "$tmp/err" ||
    { grep -q 'AddressSanitizer: SEGV' "$tmp/err" && grep -q 'rank 1 (node 0) exited' "$tmp/err"; } ||
    { show; echo "FAIL: emunic-run did not name rank 1's SIGSEGV"; exit 1; }
! grep -q 'rank [023] (node' "$tmp/err" || { show; echo "FAIL: a victim was blamed"; exit 1; }
id=$(sed -n 's/^emunic-run: job \([^:]*\): .*/\1/p' "$tmp/err" | head -1)
[[ -n $id ]] || { show; echo "FAIL: no job id in the -v output"; exit 1; }
left=$(grep -ls "emunic\.$id\." /proc/[0-9]*/maps 2>/dev/null)
for l in /proc/[0-9]*/fd/*; do [[ $(readlink "$l" 2>/dev/null) == *"emunic.$id."* ]] && left+=" $l"; done
[[ -z $left ]] || { echo "FAIL: the job's memory is still held: $left"; exit 1; }
echo "segment_ro: rank 1 killed by SIGSEGV, named, nothing left"
