#!/usr/bin/env bash
# -N 2 -n 3: every rank sees the right EMUNIC_* variables, its output is
# prefixed with its node and rank, and it holds only its node's doorbell:
# none of the daemons' objects (wire, control block), also once attached.
source "$(dirname "$0")/lib.sh" "$1"

for nic in core pami; do
    case_begin "environment, --nic $nic"
    run -v -N 2 -n 3 --nic $nic -- "$HELPER" tag=$TAG env eventfds init daemon-objects barrier finalize
    expect_status 0
    id=$(jobid_from)
    [[ -n $id ]] || fail "no job id in -v output"
    [[ $(count_out '^\[n[01]\.r[0-5]\] env ') -eq 6 ]] || fail "expected 6 env lines"
    for r in 0 1 2 3 4 5; do
        node=$((r / 3)); local_rank=$((r % 3))
        want="[n$node.r$r] env RANK=$r SIZE=6 NODE=$node NNODES=2 LOCAL_RANK=$local_rank LOCAL_SIZE=3 NIC=$nic JOBID=$id"
        grep -qxF -- "$want" "$OUT" || fail "rank $r: missing line '$want'"
        grep -qxF -- "[n$node.r$r] eventfds=1" "$OUT" || fail "rank $r should hold exactly its node's eventfd"
        grep -qxF -- "[n$node.r$r] daemon-objects=0" "$OUT" || fail "rank $r holds or maps a daemons' object"
    done
    assert_clean "$id"
done
