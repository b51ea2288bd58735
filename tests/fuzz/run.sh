#!/bin/sh
# Build (if needed) and run the libFuzzer harnesses of tests/fuzz one after
# another, each for SECONDS (default: $FUZZ_SECONDS, else 30).
#   tests/fuzz/run.sh [-b BUILD_DIR] [-n] [SECONDS] [HARNESS...]
# -b: the clang build tree (default build-fuzz), configured and built here
#     with CC=clang -DEMUNIC_FUZZ=ON when fuzz_* are not there; -n: do not build.
# New corpus entries go to BUILD/fuzz/corpus/NAME, crash reproducers to
# BUILD/fuzz/artifacts/NAME/ and logs to BUILD/fuzz/NAME.log.
# Exit status: 0 when no harness crashed (or when there is no libFuzzer:
# one line says so), 1 on a crash, leak, timeout or out-of-memory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build="build-fuzz"
dobuild=1
while getopts b:n opt; do
    case $opt in
    b) build=$OPTARG ;;
    n) dobuild=0 ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-n] [SECONDS] [faults|machine|pmi|cmdq|wire ...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
secs=${FUZZ_SECONDS:-30}
case ${1:-} in [0-9]*) secs=$1; shift ;; esac
harnesses=${*:-faults machine pmi cmdq wire}
case $build in /*) ;; *) build=$top/$build ;; esac
cc=${FUZZ_CC:-clang}

# Can this compiler link a libFuzzer target at all?
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
    echo "fuzz: clang with libFuzzer not found, skipped"
    exit 0
fi

if [ $dobuild = 1 ]; then
    if ! grep -q '^EMUNIC_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
        CC=$cc cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMUNIC_FUZZ=ON >"$probe/cmake.log" 2>&1 ||
            { cat "$probe/cmake.log" >&2; echo "fuzz: configuring $build failed" >&2; exit 1; }
    fi
    cmake --build "$build" --target fuzzers -j2 >"$probe/build.log" 2>&1 ||
        { cat "$probe/build.log" >&2; echo "fuzz: building the harnesses in $build failed" >&2; exit 1; }
fi

# a smaller quarantine than ASan's 256 MB: the parsers allocate big
# buffers per input (a plan is read into 1 MiB) and this host is shared
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32}
export ASAN_OPTIONS
status=0
for h in $harnesses; do
    bin=$build/bin/fuzz_$h
    if [ ! -x "$bin" ]; then
        echo "fuzz: $bin not built (configure $build with CC=clang -DEMUNIC_FUZZ=ON)" >&2
        exit 1
    fi
    work=$build/fuzz/corpus/$h
    art=$build/fuzz/artifacts/$h
    log=$build/fuzz/$h.log
    mkdir -p "$work" "$art"
    dict=
    [ -f "$here/$h.dict" ] && dict=-dict=$here/$h.dict
    before=$(find "$art" -type f | wc -l)
    # one fuzzer at a time, one process, the target's own stdout/stderr
    # (its one-line usage errors) closed: libFuzzer and the sanitizers
    # keep a copy of stderr for their reports
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -close_fd_mask=3 -artifact_prefix="$art/" ${dict:+"$dict"} "$work" "$here/corpus/$h" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    crashes=$(($(find "$art" -type f | wc -l) - before))
    [ $rc != 0 ] && [ $crashes = 0 ] && crashes=1
    echo "fuzz: $h: ${execs:-?} inputs executed in ${secs}s, cov ${cov:-?}, ft ${ft:-?}, crashes $crashes"
    if [ $crashes != 0 ]; then
        status=1
        echo "fuzz: $h: exit status $rc; reproducer(s) in $art/, log $log:" >&2
        grep -E '^(==[0-9]+==ERROR|SUMMARY|[^ ]*runtime error|.*deadly signal|artifact_prefix|Test unit written)' "$log" | head -n 20 >&2
    fi
done
exit $status
