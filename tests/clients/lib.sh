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
