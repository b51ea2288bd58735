#!/usr/bin/env bash
# Before/after on a noisy host: alternate two build trees' core_pingpong
# (8 B write + remote completion round trip) and core_bw (8 B message
# rates), ROUNDS rounds, and print each round's values, then the medians
# and the median of the paired after/before ratios.
#   bench/ab_core.sh BEFORE_BIN AFTER_BIN [ROUNDS]   (default 15)
# LAYOUT (default "-N 2 -n 1") is passed to emunic-run; BEFORE_ENV and
# AFTER_ENV ("VAR=value ...") set its environment on each side, so one
# tree can be compared with itself (AFTER_ENV=EMUNIC_ISOLATE=1).
set -u
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
case ${1:-} in -h | --help) usage; exit 0 ;; esac
[[ $# -ge 2 ]] || { usage >&2; exit 2; }
A=$1 B=$2 R=${3:-15}
LAYOUT=${LAYOUT:--N 2 -n 1}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 0; i < R; i++)); do
    for side in before after; do
        bin=$A envs=${BEFORE_ENV:-}
        [[ $side == after ]] && bin=$B envs=${AFTER_ENV:-}
        # shellcheck disable=SC2086
        rtt=$(env $envs "$bin/emunic-run" $LAYOUT --no-prefix -- "$bin/core_pingpong" --sizes 8 --only rtt 2>/dev/null |
            awk -F, '$1 == "core_pingpong" && $2 == "rtt_remote_cq" { print $5 }')
        # shellcheck disable=SC2086
        bw=$(env $envs "$bin/emunic-run" $LAYOUT --no-prefix -- "$bin/core_bw" --sizes 8 --trials 5 2>/dev/null |
            awk -F, '$1 == "core_bw" && ($2 == "msgrate_all_cq" || $2 == "msgrate_last_cq") { printf "%s ", $8 }')
        echo "$i $side $rtt $bw" | tee -a "$out"
    done
done
python3 - "$out" <<'PY'
import statistics as st, sys
d = {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) == 5:
        d.setdefault(f[0], {})[f[1]] = [float(x) for x in f[2:]]
pairs = [v for v in d.values() if len(v) == 2]
for k, name in enumerate(["round trip, us", "rate, every write completed, /s", "rate, last of window completed, /s"]):
    b = [p["before"][k] for p in pairs]
    a = [p["after"][k] for p in pairs]
    if b:
        r = st.median(x / y for x, y in zip(a, b))
        print(f"{name}: before {st.median(b):.4g}, after {st.median(a):.4g}, paired ratio {r:.3f} ({len(b)} rounds)")
PY
