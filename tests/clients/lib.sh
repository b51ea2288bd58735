# Shared by the client stages (sourced): where the archives are, a scratch
# work tree, installing emunic as a user would, and reporting a failed
# client test with what reproduces it.
# shellcheck shell=bash

# clients_dir: the archives, from $EMUNIC_CLIENTS or ../shared/clients
# beside the source tree; empty when neither exists.
clients_dir() {
    local d=${EMUNIC_CLIENTS:-$src/../shared/clients}
    [ -d "$d" ] && (cd "$d" && pwd)
}

# archive NAME-GLOB: the one archive matching, or fail.
archive() {
    local f
    f=$(ls "$clients"/$1 2>/dev/null | head -n 1)
    [ -n "$f" ] || { echo "clients: no archive $1 in $clients" >&2; return 1; }
    echo "$f"
}

step() { printf '== %s [%s]\n' "$*" "$(date -u +%T)"; }

# quiet LOG CMD...: run CMD with its output in LOG; on failure show the
# end of LOG and the command, and fail.
quiet() {
    local log=$1; shift
    if ! "$@" >"$log" 2>&1; then
        echo "clients: failed: $*" >&2
        echo "--- last lines of $log:" >&2
        tail -n 30 "$log" >&2
        return 1
    fi
}

# install_emunic BUILD PREFIX: cmake --install, as a user's make install.
install_emunic() {
    quiet "$2.install.log" "${CMAKE:-cmake}" --install "$1" --prefix "$2"
}

# Tallies across stages: each stage adds its passes and failures.
npass=0 nfail=0 nskip=0
failed_list=()

# report_failure NAME LOG REPRO: the name, the last lines of its output and
# the command that reproduces it.
report_failure() {
    nfail=$((nfail + 1))
    failed_list+=("$1")
    echo "---- FAILED: $1"
    echo "---- last lines of $2:"
    tail -n 15 "$2" 2>/dev/null | sed 's/^/    /'
    echo "---- reproduce: $3"
}

# automake_results DIR LABEL RUNNER ENVSET: read a `make check` run's
# test-suite.log in DIR: add its counts, print its summary, and report each
# FAIL/ERROR/XPASS with its log and a command that reproduces it.
automake_results() {
    local dir=$1 label=$2 runner=$3 envset=$4 t res p f
    grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' "$dir/test-suite.log" 2>/dev/null |
        sed "s/^/  $label /"
    for t in $(find "$dir" -name '*.trs' | sort); do
        res=$(sed -n 's/^:test-result: //p' "$t" | head -n 1)
        p=${t%.trs}
        case $res in
            PASS | XFAIL) npass=$((npass + 1)) ;;
            SKIP) nskip=$((nskip + 1)) ;;
            *)
                f=${p#"$dir"/}
                report_failure "$label $f" "$p.log" \
                    "cd $dir && $envset $runner ./$f" ;;
        esac
    done
}

# Per-suite tallies of listed_run, printed and reset by suite_summary.
suite_pass=0 suite_fail=0 suite_xfail=0

# list_reason NAME LIST: the reason LIST gives for NAME ("name reason"
# lines), empty when NAME is not listed.
list_reason() {
    awk -v n="$1" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }' "$2"
}

# listed_run LABEL NAME LIST NIC NODES RPN TIMEOUT LOG CMD...: one program
# under the installed emunic-run; pass on exit 0. A failure of a program
# named in the file LIST ("name reason" lines) counts as expected, its
# reason printed; a listed program that passes says so, so that the list is
# kept honest. LISTED_WRAP, if set, is a command prefix for emunic-run
# (such as prlimit with a bigger stack); LISTED_OPTS more emunic-run
# options; LISTED_BAD a grep -E pattern of log lines that fail a run which
# exits 0 (for clients that ignore the statuses they get).
listed_run() {
    local label=$1 name=$2 list=$3 nic=$4 n=$5 r=$6 tmo=$7 log=$8 runner rc=0 why
    shift 8
    runner="${LISTED_WRAP:+$LISTED_WRAP }$prefix/bin/emunic-run --nic $nic -N $n -n $r${LISTED_OPTS:+ $LISTED_OPTS} --timeout $tmo --"
    LD_LIBRARY_PATH="$prefix/lib" $runner "$@" >"$log" 2>&1 || rc=$?
    if [ $rc -eq 0 ] && [ -n "${LISTED_BAD:-}" ] && grep -qE -- "$LISTED_BAD" "$log"; then
        rc=1
        echo "  $label: exit 0, but its log has error lines (/$LISTED_BAD/): counted as rc 1"
    fi
    why=$(list_reason "$name" "$list")
    if [ $rc -eq 0 ]; then
        npass=$((npass + 1)); suite_pass=$((suite_pass + 1))
        [ -z "$why" ] || echo "  $label: passes but is listed in $(basename "$list"): take it off the list"
    elif [ -n "$why" ]; then
        nskip=$((nskip + 1)); suite_xfail=$((suite_xfail + 1))
        echo "  $label: expected failure (rc $rc): $why"
    else
        suite_fail=$((suite_fail + 1))
        report_failure "$label (rc $rc)" "$log" \
            "cd $(pwd) && LD_LIBRARY_PATH=$prefix/lib $runner $*"
    fi
}

# suite_summary SUITE LIST: the suite's own `N passed, M failed` line.
suite_summary() {
    echo "  $1: $suite_pass passed, $suite_fail failed, $suite_xfail expected failures ($2)"
    suite_pass=0 suite_fail=0 suite_xfail=0
}
