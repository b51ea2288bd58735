#!/usr/bin/env bash
# Every bad --fault spec and --faults line: exit 2, exactly one
# "emunic-run: " line naming the spec (or FILE:LINE), nothing started.
source "$(dirname "$0")/lib.sh" "$1"

bad() { # NAME REGEX ARGS...
    local name=$1 re=$2; shift 2
    case_begin "bad: $name"
    run 20 -N 2 -n 2 "$@" -- /bin/true
    [[ $ST -eq 2 ]] || { fail "exit $ST, want 2"; show; }
    [[ ! -s $OUT ]] || fail "stdout not empty"
    [[ $(wc -l <"$ERR") -eq 1 ]] || { fail "want one line on stderr, got $(wc -l <"$ERR")"; show; }
    grep -qE "^emunic-run: " "$ERR" || fail "stderr does not start with 'emunic-run: '"
    grep -qE -- "$re" "$ERR" || { fail "stderr lacks /$re/"; show; }
}
f() { bad "$1" "$2" --fault "$3"; }
f "no ="              "expected KIND=VALUE"            drop
f "empty kind"        "expected KIND=VALUE"            =0.1
f "unknown kind"      "unknown fault 'boom'"           boom=1
f "no value"          "'drop' needs a value"           drop=
f "prob > 1"          "probability from 0 to 1"        drop=1.5
f "prob negative"     "probability from 0 to 1"        drop=-0.1
f "prob junk"         "probability from 0 to 1"        dup=0.1x
f "prob nan"          "probability from 0 to 1"        corrupt=nan
f "ge too few"        "drop=ge:P:R"                    drop=ge:0.1
f "ge r zero"         "bad->good probability"          drop=ge:0.1:0
f "ge too many"       "at most three"                  drop=ge:0.1:0.2:0.3:0.4
f "delay junk"        "delay needs D"                  delay=fast
f "delay unit"        "delay needs D"                  delay=5parsecs
f "delay jitter"      "delay needs D"                  delay=5us~x
f "delay huge"        "delay needs D"                  delay=20s
f "linkdown no win"   "needs a window"                 linkdown=n0:n1
f "linkdown no dur"   "needs a window"                 linkdown=n0:n1@1s
f "linkdown one node" "expected n<node>:n<node>"       linkdown=n0@1s+1s
f "linkdown same"     "same node twice"                linkdown=n1:n1@1s+1s
f "linkdown range"    "node out of range"              linkdown=n0:n9@1s+1s
f "linkdown rank"     "expected n<node>:n<node>"       linkdown=r0:r1@1s+1s
f "bad start"         "bad start time"                 linkdown=n0:n1@soon+1s
f "bad duration"      "bad duration"                   linkdown=n0:n1@1s+0s
f "kill no time"      "either a time @T or after=N"    kill=r3
f "kill both"         "either a time @T or after=N"    kill=r3@1s,after=5
f "kill node"         "expected a rank"                kill=n1@1s
f "kill range"        "rank out of range"              kill=r4@1s
f "kill after zero"   "above 0"                        kill=r1,after=0
f "after elsewhere"   "unknown option 'after'"         drop=0.1,after=3
f "crash no time"     "crash needs a time"             crash=n1
f "crash rank"        "expected a node"                crash=r1@1s
f "hang no dur"       "needs a window"                 hang=n1@1s
f "throttle no bw"    "throttle needs nA:nB:BANDWIDTH" throttle=n0:n1
f "throttle bad bw"   "bad bandwidth"                  throttle=n0:n1:fast
f "slow no factor"    "slow needs nN:FACTOR"           slow=n1
f "slow factor < 1"   "slow factor"                    slow=n1:0.5
f "unknown option"    "unknown option 'color'"         drop=0.1,color=red
f "empty option"      "empty option"                   drop=0.1,
f "bad node scope"    "node out of range"              drop=0.1,node=n7
f "bad link scope"    "expected n<node>:n<node>"       drop=0.1,link=n0
f "bad rank scope"    "expected a rank"                drop=0.1,rank=3
f "bad pair scope"    "same rank twice"                drop=0.1,pair=r1:r1
f "bad op"            "unknown operation 'frobnicate'" drop=0.1,op=frobnicate
f "empty op"          "empty operation"                drop=0.1,op=write+
f "regfail prob"      "regfail needs a probability"    regfail=2
f "regfail op"        "takes only node=, rank="        regfail=1,op=write
f "eqfull pair"       "takes only node=, rank="        eqfull=1,pair=r0:r1
f "eqfull link"       "takes only node=, rank="        eqfull=0.5,link=n0:n1
f "credits rank"      "expected a node"                credits=r1@1s+1s
f "credits no window" "credits needs a window"         credits=n1
f "credits open"      "credits needs a window"         credits=n1@1s
f "credits node opt"  "names its nodes in the value"   credits=n0@0s+1s,node=n1
f "linkdown node opt" "names its nodes in the value"   'linkdown=n0:n1@1s+1s,node=n1'
f "slow link opt"     "names its nodes in the value"   'slow=n1:4,link=n0:n1'
f "crash node opt"    "names its nodes in the value"   'crash=n1@1s,node=n0'
f "kill rank opt"     "names its rank in the value"    'kill=r3@1s,rank=r1'
f "kill pair opt"     "names its rank in the value"    'kill=r3@1s,pair=r1:r2'

f "credits same node" "same node twice"                credits=n1:n1@0s+1s
bad "the first bad of several" "--fault 'dup=2'" --fault drop=0.1 --fault dup=2

# --faults FILE: FILE:LINE: what
cat >"$TMP/plan" <<'PLAN'
# a plan
drop=0.05   # trailing comment

dup=0.01
linkdown=n0:n1@2s
PLAN
bad "file line"      "$TMP/plan:5: linkdown needs a window" --faults "$TMP/plan"
printf 'drop=0.1 dup=0.2\n' >"$TMP/plan2"
bad "two on a line"  "$TMP/plan2:1: one fault per line"      --faults "$TMP/plan2"
bad "missing file"   "--faults $TMP/none: No such file"      --faults "$TMP/none"
# not a small text file: refused at once, never read for ever
bad "device"         "--faults /dev/zero: not a regular file" --faults /dev/zero
bad "directory"      "--faults $TMP: not a regular file"      --faults "$TMP"
mkfifo "$TMP/fifo"
bad "fifo"           "--faults $TMP/fifo: not a regular file" --faults "$TMP/fifo"
printf 'drop=0.1\ndup=0.1\0x\n' >"$TMP/plan_nul"
bad "NUL byte"       "$TMP/plan_nul:2: a NUL byte"            --faults "$TMP/plan_nul"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$TMP/plan_big"
bad "oversized"      "--faults $TMP/plan_big: larger than"    --faults "$TMP/plan_big"
{ printf 'drop=0.1 #'; head -c 1100 /dev/zero | tr '\0' x; printf '\n'; } >"$TMP/plan_long"
bad "long line"      "$TMP/plan_long:1: line too long"        --faults "$TMP/plan_long"

# good specs parse (and run a trivial job)
good() {
    case_begin "good: $*"
    run 30 -N 2 -n 2 "$@" -- /bin/true
    [[ $ST -eq 0 ]] || { fail "exit $ST"; show; }
}
good --fault drop=0.05 --fault dup=0.01 --fault corrupt=0.001 --fault reorder=0.1
good --fault linkdown=n0:n1@2s+0.5s --fault kill=r3@100s
good --fault drop=ge:0.01:0.3:0.9,link=n0:n1,op=write+read,@0+10s --fault delay=20us~10us,node=n1
good --fault throttle=n0:n1:100MB/s --fault slow=n1:4 --fault hang=n1@50s+1s --fault crash=n0@60s
good --fault kill=r1,after=1000000 --fault dup=0.5,pair=r0:r3 --fault corrupt=0.1,rank=r2
printf '# plan\ndrop=0.01\n\n  dup=0.01  # x\n' >"$TMP/plan3"
good --faults "$TMP/plan3" --seed 42
finish
