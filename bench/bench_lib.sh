# Shared by the bench/run_*.sh runners (sourced, not run): the build and
# output directories, the check that the programs are built, and the wait
# for an idle host (other jobs on a 2-core box double every latency).
# Each runner sets $me (its name, for messages) and $quiet_wait first.

# Where results go: $1 the default subdirectory of the build, $2 the
# OUT_DIR argument if any. A build directory given as OUT_DIR (it has a
# CMakeCache.txt) is taken as the build, unless -b named one ($bset = 1).
# Sets $build, $out, $bin and $run.
bench_dirs() {
    out=${2:-"$build/$1"}
    if [ -n "${2:-}" ] && [ "$bset" = 0 ] && [ -f "$2/CMakeCache.txt" ]; then
        build=$(cd "$2" && pwd)
        out="$build/$1"
    fi
    bin="$build/bin"
    run="$bin/emunic-run"
}

# Exit 2 naming the first of "$@" not built in $bin; $need says what to build.
bench_need() {
    for p in "$@"; do
        if [ ! -x "$bin/$p" ]; then
            echo "$me: $bin/$p is missing; $need" >&2
            exit 2
        fi
    done
}

# Percent of the host's CPU time used over one second (by anyone).
bench_busy() {
    a=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
    sleep 1
    b=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
    echo "$a $b" | awk '{ u = $3 - $1; t = u + $4 - $2; print (t > 0 ? int(100 * u / t) : 0) }'
}

# Wait (up to $quiet_wait seconds; 0: not at all) until the host is at
# most 10% busy; leaves the busy percentage it started with in $load.
bench_quiet() {
    load=$(bench_busy)
    [ "$quiet_wait" -gt 0 ] || return 0
    waited=0
    while [ "$load" -gt 10 ]; do
        if [ "$waited" -ge "$quiet_wait" ]; then
            echo "$me: host still ${load}% busy after ${waited}s; measuring anyway" >&2
            return 0
        fi
        [ "$waited" -eq 0 ] && echo "$me: waiting for a quiet host (CPU ${load}% busy)" >&2
        sleep 5
        waited=$((waited + 6))
        load=$(bench_busy)
    done
}

# One benchmark job: $1 output stem (NAME.runK), rest the command; its
# CSV goes to $out/NAME.runK.csv. The log starts with the host's load, so
# a noisy run can be told from a quiet one, and the variables matching
# $bench_env (a grep pattern) that set the run up. Callers set $out,
# $bench_name and $bench_env.
bench_one() {
    stem=$1
    shift
    bench_quiet
    echo "== $stem (host ${load}% busy, load $(cut -d' ' -f1-3 /proc/loadavg)): $*" >&2
    {
        echo "# host ${load}% busy before the run; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "# env: $(env | grep "$bench_env" | sort | tr '\n' ' ')"
        echo "# cmd: $*"
    } >"$out/$stem.log"
    if ! timeout 900 "$@" >"$out/$stem.csv" 2>>"$out/$stem.log"; then
        echo "$bench_name: $stem failed; see $out/$stem.log" >&2
        tail -n 5 "$out/$stem.log" >&2
        exit 1
    fi
}

# Median over the $runs run files of one configuration: $1 NAME.
bench_merge() {
    files=""
    k=1
    while [ "$k" -le "$runs" ]; do
        files="$files $out/$1.run$k.csv"
        k=$((k + 1))
    done
    # shellcheck disable=SC2086
    awk -f "$src/bench/median_runs.awk" $files >"$out/$1.csv"
}

# The runners' common options: -b BUILD_DIR, -r RUNS, -q, -h (usage is the
# caller's function; --help as the first argument too). Sets $build, $bset,
# $runs and $quick, and $nopt: how many arguments were options. Without -r,
# runs is $runs_default (3), or $runs_quick (1) with -q. A runner with
# options of its own lists them in $bench_extra_opts (getopts letters, e.g.
# "s:") and handles each in its function bench_opt LETTER OPTARG.
# Use: bench_args "$@"; shift "$nopt".
bench_args() {
    [ "${1:-}" = --help ] && { usage; exit 0; }
    runs="" quick=0 bset=0
    OPTIND=1
    while getopts "b:r:qh${bench_extra_opts:-}" opt; do
        case $opt in
        b) build=$(cd "$OPTARG" && pwd); bset=1 ;;
        r) runs=$OPTARG ;;
        q) quick=1 ;;
        h) usage; exit 0 ;;
        \?) usage >&2; exit 2 ;;
        *) bench_opt "$opt" "${OPTARG:-}" ;;
        esac
    done
    nopt=$((OPTIND - 1))
    case ${runs:-1} in
    '' | *[!0-9]* | 0) echo "$me: -r wants a positive number, not '$runs'" >&2; exit 2 ;;
    esac
    [ -n "$runs" ] || { [ "$quick" = 1 ] && runs=${runs_quick:-1} || runs=${runs_default:-3}; }
}

# After bench_args: at most one OUT_DIR may be left ("$@"); sets $out (and
# $bin, $run) from it or from the default subdirectory $1 of the build
# (with -quick appended under -q). Use: bench_outdir NAME "$@".
bench_outdir() {
    sub=$1
    shift
    if [ $# -gt 1 ]; then
        echo "$me: one OUT_DIR at most (got: $*)" >&2
        exit 2
    fi
    [ "$quick" = 1 ] && sub=$sub-quick
    bench_dirs "$sub" "${1:-}"
}
