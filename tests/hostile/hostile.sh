#!/usr/bin/env bash
# Drive tests/hostile/hostile.c over every field it can scribble and judge
# each job: no daemon or launcher crash, no hang, no silent corruption, no
# victim failure, nothing of the job's memory held and nothing left in the
# process table; the
# job either ignores the store (the field is not trusted any more: exit 0,
# every victim done) or names the hostile rank ("rank 3 (node 1) corrupted
# its ...") and, without --keep-going, ends within TEARDOWN_MS of it.
#
#   hostile.sh BIN_DIR [FIELD...]
#
# TRIALS (default 1): runs per field; the first uses the field's most
# harmful value, the others random bytes with seeds 1, 2, ... SECS
# (default 0.4): how long the victims run. TABLE=FILE: append one markdown
# row per field (docs/reliability.md): field, trials, ignored, named,
# crashes, hangs, silent corruptions, victim failures, stray bytes in the
# output, leftovers, worst teardown ms after the strike (named, without
# --keep-going). Exit 0 if every run was judged good.
set -u
BIN=${1:?usage: $0 BIN_DIR [FIELD...]}
shift
RUN="$BIN/emunic-run"
PROG="$BIN/hostile"
TRIALS=${TRIALS:-1}
SECS=${SECS:-0.4}
TEARDOWN_MS=${TEARDOWN_MS:-10000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/emunic-hostile.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
unset EMUNIC_MAX_RANKS EMUNIC_HEAP_SIZE EMUNIC_NICD EMUNIC_JOBID EMUNIC_RANK
BAD=0

# the value that does the most harm, per field
harm() {
    case $1 in
    hdr.ranks_per_node) echo 0 ;;
    hdr.nnodes) echo 100000 ;;
    hdr.nranks | hdr.cmd_slots | hdr.cq_slots | hdr.wire_slots) echo 0 ;;
    hdr.launcher_pid) echo 1 ;;
    rank.pid) echo peer_pid ;;
    rank.heap_base) echo peer_base ;;
    rank.node | rank.local) echo 0xffffffff ;;
    rank.cq_efd | node.doorbell_efd) echo 1 ;;
    node.daemon_pid) echo 1 ;;
    net.nrules) echo 1000000 ;;
    net.ndims) echo 0xffffffff ;;
    *) echo rand ;;
    esac
}

# run FIELD VALUE SEED KEEP(0/1): sets st, named, silent, crash, hang,
# leftover, victims, done_h, tear_ms
run() {
    local field=$1 value=$2 seed=$3 keep=$4 args=()
    [[ $keep == 1 ]] && args+=(--keep-going)
    local out="$TMP/out" err="$TMP/err" t1
    timeout -s KILL 60 "$RUN" -v -N 2 -n 2 --timeout 30 "${args[@]}" -- \
        "$PROG" "$field" "$value" "$SECS" "$seed" >"$out" 2>"$err" </dev/null
    st=$?
    t1=$(date +%s%N)
    named=0; silent=0; crash=0; hang=0; leftover=0; stray=0
    grep -q "^emunic-run: rank 3 (node 1) corrupted its" "$err" && named=1
    grep -q "SILENT CORRUPTION" "$err" && silent=1
    # bytes no line of ours has: a doorbell rung into somebody's stdout
    LC_ALL=C grep -q '[^[:print:][:space:]]' "$out" "$err" && stray=1
    # a daemon or a victim that died, or the launcher itself killed
    grep -qE "NIC daemon of node [0-9]+ died|rank [012] \(node [01]\) killed by" "$err" && crash=1
    (( st > 128 && st != 137 )) && crash=1
    grep -q "emunic-run: timeout after" "$err" && hang=1
    (( st == 137 )) && ! grep -q "emunic-run:" "$err" && hang=1
    victims=$(grep -c "victim: rank" "$out")
    done_h=$(grep -c "hostile: done" "$out")
    # the job's memfds go with the last process that maps or holds them
    local id l
    id=$(sed -n 's/^emunic-run: job \([^:]*\): .*/\1/p' "$err" | head -1)
    if [[ -n $id ]]; then
        grep -qs "emunic\.$id\." /proc/[0-9]*/maps && leftover=1
        for l in /proc/[0-9]*/fd/*; do
            [[ $(readlink "$l" 2>/dev/null) == *"emunic.$id."* ]] && leftover=1
        done
    fi
    local p
    for p in $(pgrep -f -- "$PROG $field" || true); do
        [[ $(awk '{print $3}' "/proc/$p/stat" 2>/dev/null) == Z ]] || { leftover=1; kill -9 "$p"; }
    done
    local strike
    strike=$(sed -n 's/.*hostile: .* at \([0-9]*\)$/\1/p' "$out" | head -1)
    tear_ms=-1
    [[ -n $strike ]] && tear_ms=$(( (t1 - strike) / 1000000 ))
    cp "$out" "$TMP/last.out"; cp "$err" "$TMP/last.err"
}

show() { echo "  stdout:"; tail -n 8 "$TMP/last.out" | sed 's/^/    /'; echo "  stderr:"; tail -n 8 "$TMP/last.err" | sed 's/^/    /'; }

fields=("$@")
[[ ${#fields[@]} -eq 0 ]] && mapfile -t fields < <("$PROG" list)
for field in "${fields[@]}"; do
    n=0; ign=0; nam=0; cr=0; hg=0; si=0; lo=0; vf=0; sb=0; worst=-1
    for ((t = 0; t < TRIALS; t++)); do
        value=$(harm "$field"); seed=$t
        (( t > 0 )) && value=rand
        run "$field" "$value" "$seed" 1
        n=$((n + 1))
        verdict=""
        (( crash )) && { cr=$((cr + 1)); verdict+="crash "; }
        (( hang )) && { hg=$((hg + 1)); verdict+="hang "; }
        (( silent )) && { si=$((si + 1)); verdict+="silent-corruption "; }
        (( leftover )) && { lo=$((lo + 1)); verdict+="leftovers "; }
        (( stray )) && { sb=$((sb + 1)); verdict+="stray-bytes-in-output "; }
        if (( victims != 3 )); then vf=$((vf + 1)); verdict+="victims-failed($victims/3) "; fi
        if (( named )); then
            nam=$((nam + 1))
            (( st == 1 )) || verdict+="status-$st "
        elif (( st == 0 && done_h == 1 )); then
            ign=$((ign + 1))
        else
            verdict+="neither-ignored-nor-named(status $st) "
        fi
        echo "--- $field := $value (seed $seed): ${verdict:-ok} ($([[ $named == 1 ]] && echo named || echo ignored))"
        if [[ -n $verdict ]]; then BAD=$((BAD + 1)); show; fi
        # a named rank without --keep-going: the whole job ends, promptly
        if (( named )); then
            run "$field" "$value" "$seed" 0
            if (( ! named || st != 1 || crash || hang || silent || leftover )); then
                echo "    without --keep-going: named $named status $st crash $crash hang $hang silent $silent leftovers $leftover"
                BAD=$((BAD + 1)); show
            fi
            (( tear_ms > worst )) && worst=$tear_ms
            if (( tear_ms > TEARDOWN_MS )); then
                echo "    without --keep-going: the job ended $tear_ms ms after the strike (limit $TEARDOWN_MS)"
                BAD=$((BAD + 1))
            fi
        fi
    done
    [[ -n ${TABLE:-} ]] && echo "| \`$field\` | $n | $ign | $nam | $cr | $hg | $si | $vf | $sb | $lo | $([[ $worst -ge 0 ]] && echo "$worst" || echo -) |" >>"$TABLE"
done
if (( BAD )); then
    echo "$BAD bad run(s)"
    exit 1
fi
echo "all runs judged good"
