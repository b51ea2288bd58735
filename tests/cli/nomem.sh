#!/usr/bin/env bash
# Memory running out. The job's shared objects are memfds, which no tmpfs
# size bounds (this replaces enospc.sh, which gave $EMUNIC_SHM_DIR a 1 MiB
# tmpfs): the launcher refuses a segment that does not fit in the memory
# available, with one clear line and exit 2, before it allocates or starts
# anything; and a rank's emunic_malloc whose pages the kernel refuses says
# so, returns NULL with ENOMEM and gives the block back. Neither case
# really exhausts memory (that would wake the OOM killer): the first asks
# for more than the host has, the second preloads nomem_shim.so into the
# rank, which fails the heap's posix_fallocate as the kernel would.
source "$(dirname "$0")/lib.sh" "$1"
SHIM="$BIN/nomem_shim.so"
[[ -f $SHIM ]] || fail "$SHIM missing"

case_begin "a segment bigger than the memory available"
# 1048576 ranks: a segment of some 224 GiB (the heaps are the ranks' own)
export EMUNIC_MAX_RANKS=1048576
SEG_RE='^shared segment: ([0-9]+\.[0-9]) MiB \(([0-9]+\.[0-9]) MiB of memory available\)'
run --info -N 1024 -n 1024
expect_status 0
need=$(sed -nE "s/$SEG_RE.*/\1/p" "$OUT"); avail=$(sed -nE "s/$SEG_RE.*/\2/p" "$OUT")
[[ -n $need && -n $avail ]] || fail "--info gives no segment size"
if awk -v n="$need" -v a="$avail" 'BEGIN { exit !(n <= a) }'; then
    echo "SKIP [$CASE]: $avail MiB of memory available, the job needs only $need MiB"
else
    # --no-prefix --no-pmi: few enough descriptors to get that far
    t0=$(date +%s%N)
    run --no-prefix --no-pmi -N 1024 -n 1024 -- "$HELPER" tag=$TAG
    t1=$(date +%s%N)
    expect_status 2
    [[ $(wc -l <"$ERR") -eq 1 ]] || fail "expected exactly one line on stderr"
    expect_err "^emunic-run: not enough memory for the job: it needs $need MiB of shared memory, [0-9]+\.[0-9] MiB are available$"
    got=$(sed -nE 's/.*, ([0-9]+\.[0-9]) MiB are available$/\1/p' "$ERR")
    awk -v n="$need" -v a="$got" 'BEGIN { exit !(a > 0 && a < n) }' || fail "$got MiB available but $need needed"
    [[ ! -s $OUT ]] || fail "stdout not empty"
    # refused before anything was allocated (reserving 224 GiB page by
    # page would take seconds, or the OOM killer) or started
    (( (t1 - t0) / 1000000 < 2000 )) || fail "the refusal took $(( (t1 - t0) / 1000000 )) ms"
    assert_clean
fi
unset EMUNIC_MAX_RANKS

case_begin "a rank's emunic_malloc when memory runs out"
# a 1 MiB heap; reserving 512 KiB or more fails as if memory ran out.
# 640 KiB fails; if that block were not given back, the second of three
# 256 KiB blocks would not fit. 2 MiB is more than the heap: no message,
# that is the heap being full, not the memory.
ENV=$(command -v env)
run -v -N 1 -n 2 --heap 1M -- "$ENV" LD_PRELOAD="$SHIM" EMUNIC_TEST_NOMEM_AT=524288 \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$HELPER" tag=$TAG init @0:malloc=655360 malloc=262144 malloc=262144 malloc=262144 \
    malloc=2097152 barrier finalize out=done
expect_status 0
id=$(jobid_from)
[[ -n $id ]] || fail "no job id"
grep -qxF "[n0.r0] malloc 655360 failed: Cannot allocate memory" "$OUT" ||
    fail "rank 0's 640 KiB emunic_malloc did not fail with ENOMEM"
for r in 0 1; do
    [[ $(grep -cxF "[n0.r$r] malloc 262144 ok" "$OUT") -eq 3 ]] || fail "rank $r: not three 256 KiB blocks"
    grep -qxF "[n0.r$r] malloc 2097152 failed: Cannot allocate memory" "$OUT" || fail "rank $r: a block bigger than the heap"
    grep -qxF "[n0.r$r] done" "$OUT" || fail "rank $r did not finish"
done
! grep -q "malloc 655360" <(grep -F "[n0.r1]" "$OUT") || fail "rank 1 ran rank 0's action"
# one line, from rank 0, for the reservation the kernel refused; none for
# a full heap
expect_err "^\[n0\.r0\] emunic: rank 0: no memory left for a 655360-byte heap block$"
[[ $(grep -c "no memory left" "$ERR") -eq 1 ]] || fail "expected exactly one 'no memory left' line"
assert_clean "$id"
