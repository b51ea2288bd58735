# IBM's PAMI API tests (sourced by run.sh): every program with a main under
# the archive's test/api, built unmodified against the installed emunic's
# pami.h and -lpami, the tests' own helper headers found by -idirafter (as
# IBM's makefiles put test/api on the include path), and run under
# emunic-run --nic pami at each layout. A .c file that only compiles as C++
# (send_general.h declares `extern "C"`) is built as C++, as IBM's C++
# compilers did; .cc programs are C++.
#
# How they run, and why:
#   - the stack limit is 256 MiB (context/post-perf keeps 128 MiB of
#     pami_work_t on its stack, as BG/Q's large stacks allowed);
#   - the emulated node has 8 hardware threads (EMUNIC_PAMI_HWTHREADS=8):
#     p2p/send/mmps and sqmr assert more than 2 for their helper threads;
#   - -O0 -g, a debug build: some tests have undefined behaviour that an
#     optimiser turns into nonsense (long-header-matrix writes four results
#     into a two-element array, and gcc -O1 then runs its loop past 4);
#   - a program written for an exact number of tasks (pami_tasks) runs
#     at that number in each layout's shape: at 2x2, a 2-task program
#     runs at 1x2 (the node-local pair the 2x2 layout adds);
#   - pami_timeouts gives some programs their own timeout: a benchmark of
#     millions of round trips longer than PAMI_LONG_OVER seconds (default
#     120) runs only with PAMI_LONG=1 (make check-clients-full), otherwise
#     it is one "skipped" line; a program that can never finish gets a
#     short one.
#
# Environment:
#   PAMI_LAYOUTS  layouts, NODESxRPN (default "2x1 2x2")
#   PAMI_TIMEOUT  emunic-run --timeout of each program (default 120)
#   PAMI_ONLY     a grep -E pattern: run only the programs it matches
#   PAMI_LONG     1: also run the long benchmarks of pami_timeouts
# shellcheck shell=bash

# pami_programs API: every source under API with a main, relative, sorted.
pami_programs() {
    (cd "$1" && grep -rlE --include='*.c' --include='*.cc' '^[[:space:]]*(int[[:space:]]+)?main[[:space:]]*\(' . |
        sed 's|^\./||' | sort)
}

# pami_build API SRC BIN: compile one program; C first, then C++.
pami_build() {
    local api=$1 src=$2 bin=$3 dir
    dir=$api/$(dirname "$src")
    local flags=(-O0 -g -w -pthread -I"$prefix/include" -idirafter "$api" -idirafter "$dir")
    local libs=(-L"$prefix/lib" -lpami -lm -lrt)
    case $src in
        *.c) ${CC:-cc} "${flags[@]}" -o "$bin" "$api/$src" "${libs[@]}" ||
                 ${CXX:-g++} -x c++ "${flags[@]}" -o "$bin" "$api/$src" -x none "${libs[@]}" ;;
        *) ${CXX:-g++} "${flags[@]}" -o "$bin" "$api/$src" "${libs[@]}" ;;
    esac
}

stage_pami() {
    local tarball api src name bin layout list=$here/pami_known_failures
    local tmo=${PAMI_TIMEOUT:-120} why
    tarball=$(archive 'pami-ibm-*.tar.gz') || { nfail=$((nfail + 1)); failed_list+=("PAMI archive"); return; }
    step "PAMI test/api: unpack $(basename "$tarball")"
    mkdir -p "$work/pami-src" "$work/pami-bin" "$work/pami-logs"
    tar -xzf "$tarball" -C "$work/pami-src"
    api=$(ls -d "$work"/pami-src/*/test/api "$work"/pami-src/test/api 2>/dev/null | head -n 1)
    [ -d "$api" ] || { report_failure "PAMI archive: no test/api" /dev/null "ls $work/pami-src"; return; }

    step "PAMI test/api: build"
    local progs=()
    for src in $(pami_programs "$api"); do
        [ -z "${PAMI_ONLY:-}" ] || echo "$src" | grep -qE "$PAMI_ONLY" || continue
        name=${src%.*}
        bin=$work/pami-bin/$(echo "$name" | tr / _)
        if pami_build "$api" "$src" "$bin" >"$bin.build.log" 2>&1; then
            progs+=("$name")
            continue
        fi
        why=$(list_reason "$name" "$list")
        if [ -n "$why" ]; then
            nskip=$((nskip + 1)); suite_xfail=$((suite_xfail + 1))
            echo "  PAMI $name: does not build, expected: $why"
        else
            suite_fail=$((suite_fail + 1))
            report_failure "PAMI $name: build" "$bin.build.log" "see the log"
        fi
    done

    local t
    for layout in ${PAMI_LAYOUTS:-2x1 2x2}; do
        step "PAMI test/api: run ${#progs[@]} programs at $layout"
        for name in "${progs[@]}"; do
            bin=$work/pami-bin/$(echo "$name" | tr / _)
            t=$(awk -v n="$name" '$1 == n { print $2; exit }' "$here/pami_timeouts")
            if [ -n "$t" ] && [ "$t" -gt "${PAMI_LONG_OVER:-120}" ] && [ "${PAMI_LONG:-0}" != 1 ]; then
                nskip=$((nskip + 1))
                echo "  PAMI $name $layout: skipped, a ${t}-second benchmark (pami_timeouts; PAMI_LONG=1 runs it)"
                continue
            fi
            t=${t:-$tmo}
            local n=${layout%x*} r=${layout#*x} only
            only=$(awk -v p="$name" '$1 == p { print $2; exit }' "$here/pami_tasks")
            if [ -n "$only" ] && [ $((n * r)) -ne "$only" ]; then
                # a program for exactly `only` tasks: the same shape at that size
                if [ "$r" -gt 1 ]; then n=1 r=$only; else n=$only r=1; fi
            fi
            # each runs in its own source directory, where its data files are
            cd "$api/$(dirname "$name")" || return
            LISTED_WRAP="prlimit --stack=268435456 --" EMUNIC_PAMI_HWTHREADS=8 \
                listed_run "PAMI $name ${n}x$r" "$name" "$list" pami "$n" "$r" "$t" \
                    "$work/pami-logs/$(basename "$bin").$layout.log" "$bin"
            cd - >/dev/null || return
        done
    done
    suite_summary "PAMI test/api" pami_known_failures
}
