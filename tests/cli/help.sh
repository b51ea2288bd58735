#!/usr/bin/env bash
# --help documents every option, the exported environment and the exit
# statuses; --version prints the version.
source "$(dirname "$0")/lib.sh" "$1"

for h in --help -h; do
    case_begin "$h"
    run $h
    expect_status 0
    [[ ! -s $ERR ]] || fail "stderr not empty"
    expect_out "^Usage: emunic-run -N NODES -n RANKS_PER_NODE"
    for opt in "-N, --nodes" "-n, --ranks-per-node" "--nic core\|portals\|pami\|dcmf" "--bind none\|core\|numa" \
               "--timeout SEC" "--heap BYTES\[K\|M\|G\]" "--keep-going" "--no-prefix" "--no-pmi" "--pmi-port" "--no-aslr" "-v, --verbose" \
               "--info" "--cleanup" "-h, --help" "--version"; do
        expect_out "^  +$opt"
    done
    for var in EMUNIC_JOBID EMUNIC_RANK EMUNIC_SIZE EMUNIC_NODE EMUNIC_NNODES EMUNIC_LOCAL_RANK \
               EMUNIC_LOCAL_SIZE EMUNIC_NIC EMUNIC_MAX_RANKS EMUNIC_HEAP_SIZE EMUNIC_NICD EMUNIC_CGROUP; do
        expect_out "^  $var "
    done
    # the job's shared memory has no directory any more (memfds)
    ! grep -qE 'EMUNIC_SHM_DIR|/dev/shm' "$OUT" || fail "the page still names a shared-memory directory"
    expect_out "^\(memfds\): they are gone when the job ends, however it ends\.$"
    expect_out "^      --cleanup +end what jobs whose emunic-run was killed left$"
    expect_out "^Exit status:"
    for st in "0 " "K " "1 " "2 " "124 " "129/130/143"; do expect_out "^  $st"; done
done

case_begin "--help wins over the rest of the line"
run -N 2 --help -- whatever
expect_status 0
expect_out "^Usage:"

case_begin "--version"
run --version
expect_status 0
expect_out "^emunic-run \(emunic\) [0-9]+\.[0-9]+\.[0-9]+$"
assert_clean
