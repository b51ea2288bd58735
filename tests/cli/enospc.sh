#!/usr/bin/env bash
# A shm directory without room for the job: one clear line, exit 2, and
# nothing left in the directory. Needs root to mount a 1 MiB tmpfs.
source "$(dirname "$0")/lib.sh" "$1"

[[ $(id -u) -eq 0 ]] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
D="$TMP/tiny"
mkdir "$D"
if ! mount -t tmpfs -o size=1m tmpfs "$D" 2>"$TMP/mount.err"; then
    echo "SKIP: mount -t tmpfs refused: $(cat "$TMP/mount.err")"
    exit 77
fi
EXIT_HOOKS+=("umount '$D'")

case_begin "-N 8 -n 8 in a 1 MiB tmpfs"
EMUNIC_SHM_DIR="$D" run -N 8 -n 8 -- "$HELPER" tag=$TAG
expect_status 2
[[ $(wc -l <"$ERR") -eq 1 ]] || fail "expected exactly one line on stderr"
expect_err "^emunic-run: no space in $D for the job: it needs [0-9]+\.[0-9] MiB of shared memory$"
[[ -z $(ls -A "$D") ]] || fail "left in $D: $(ls -A "$D")"
[[ ! -s $OUT ]] || fail "stdout not empty"
assert_clean

case_begin "a job that fits runs in EMUNIC_SHM_DIR and leaves it empty"
EMUNIC_SHM_DIR="$D" run -v -N 1 -n 1 --heap 64K -- "$HELPER" tag=$TAG init barrier finalize out=fits
expect_status 0
grep -qxF "[n0.r0] fits" "$OUT" || fail "the job did not run"
expect_err "in $D"
[[ -z $(ls -A "$D") ]] || fail "left in $D: $(ls -A "$D")"
assert_clean "$(jobid_from)"
