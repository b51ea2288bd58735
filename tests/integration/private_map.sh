#!/usr/bin/env bash
# Page-aligned RDMA between exposed private buffers that were moved onto
# memfds: every byte moves with memcpy, none with process_vm_* (vm_copies 0),
# and with EMUNIC_PRIVATE_MAP=0 the same job goes through process_vm_*.
#   private_map.sh EMUNIC_RUN CORE_PRIVATE_MAP
set -uo pipefail
run=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
counter() { awk -v c="$1" '$1 == c { print $2; exit }' "$2"; }
for layout in "2 1" "1 2"; do
    set -- $layout
    "$run" -N "$1" -n "$2" --timeout 200 --stats -- "$prog" fast >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [[ $rc == 0 ]] || { cat "$tmp/out" "$tmp/err"; echo "FAIL: ${1}x$2 exited $rc"; exit 1; }
    vm=$(counter vm_copies "$tmp/err") shm=$(counter shm_copies "$tmp/err")
    [[ $vm == 0 && $shm -gt 0 ]] || { cat "$tmp/err"; echo "FAIL: ${1}x$2: vm_copies $vm shm_copies $shm, want 0 and > 0"; exit 1; }
    EMUNIC_PRIVATE_MAP=0 "$run" -N "$1" -n "$2" --timeout 200 --stats -- "$prog" fast >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [[ $rc == 0 ]] || { cat "$tmp/out" "$tmp/err"; echo "FAIL: ${1}x$2 with EMUNIC_PRIVATE_MAP=0 exited $rc"; exit 1; }
    vm=$(counter vm_copies "$tmp/err")
    [[ $vm -gt 0 ]] || { echo "FAIL: ${1}x$2 with EMUNIC_PRIVATE_MAP=0: vm_copies $vm"; exit 1; }
    echo "${1}x$2: moved: vm_copies 0, shm_copies $shm; EMUNIC_PRIVATE_MAP=0: vm_copies $vm"
done
echo "private_map: ok"
