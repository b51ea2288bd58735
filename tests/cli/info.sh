#!/usr/bin/env bash
# --info: host topology and the planned placement, exit 0, nothing created.
source "$(dirname "$0")/lib.sh" "$1"

case_begin "--info alone"
run --info
expect_status 0
expect_out "^host topology \(hwloc [0-9]+\.[0-9]+\.[0-9]+\):$"
expect_out "^  packages: [1-9][0-9]*, NUMA nodes: [1-9][0-9]*, cores: [1-9][0-9]*, PUs: [1-9][0-9]*$"
expect_out "^  package [0-9]+: PUs "
expect_out "^  NUMA node [0-9]+: PUs .*GiB"
expect_out "^placement for -N 1 -n 1 --bind none --nic core: 1 ranks \+ 1 NIC daemons = 2 processes on [0-9]+ PUs"
expect_out "^  node 0: NIC daemon \+ rank 0 on any PU \(unbound\)$"
# the segment is a memfd: no directory, the room is the host's memory
# (MemAvailable, less if our cgroup's memory limit leaves less)
SEG_RE='^shared segment: ([0-9]+\.[0-9]) MiB \(([0-9]+\.[0-9]) MiB of memory available\), heap ([0-9]+) KiB per rank$'
expect_out "$SEG_RE"
! grep -qE '/dev/shm|free\)' "$OUT" || fail "--info still speaks of a shared-memory directory"
seg1=$(sed -nE "s/$SEG_RE/\1/p" "$OUT"); avail=$(sed -nE "s/$SEG_RE/\2/p" "$OUT")
[[ $(sed -nE "s/$SEG_RE/\3/p" "$OUT") == 131072 ]] || fail "heap per rank is not the default 128M"
memavail=$(awk '/^MemAvailable:/ {print $2 / 1024}' /proc/meminfo)
awk -v a="$avail" -v m="$memavail" 'BEGIN { exit !(a > 0 && a <= m * 1.1 + 64) }' ||
    fail "$avail MiB available, but MemAvailable is $memavail MiB"
[[ ! -s $ERR ]] || fail "stderr not empty"

case_begin "--info -N 2 -n 3 --bind core"
run --info -N 2 -n 3 --bind core
expect_status 0
expect_out "^  node 0: NIC daemon \+ ranks 0-2 on PUs [0-9]"
expect_out "^  node 1: NIC daemon \+ ranks 3-5 on PUs [0-9]"
cores=$(sed -n 's/.*cores: \([0-9]*\),.*/\1/p' "$OUT")
s0=$(sed -n 's/^  node 0: .* on PUs //p' "$OUT"); s1=$(sed -n 's/^  node 1: .* on PUs //p' "$OUT")
if (( cores >= 2 )); then [[ $s0 != "$s1" ]] || fail "with $cores cores nodes should get different cores"; fi
pus=$(sed -n 's/.*PUs: \([0-9]*\)$/\1/p' "$OUT" | head -n1)
(( 8 > pus )) && expect_out "8 processes on $pus PUs \(oversubscribed\)"
expect_out "$SEG_RE"
seg6=$(sed -nE "s/$SEG_RE/\1/p" "$OUT")
awk -v a="$seg1" -v b="$seg6" 'BEGIN { exit !(b > a) }' || fail "6 ranks' segment ($seg6 MiB) is not bigger than 1 rank's ($seg1 MiB)"

case_begin "--info -N 3 --bind numa"
run --info -N 3 --bind numa
expect_status 0
[[ $(count_out '^  node [0-2]: NIC daemon \+ rank [0-2] on PUs [0-9]') -eq 3 ]] || fail "expected 3 bound nodes"

case_begin "--info creates nothing"
assert_clean
