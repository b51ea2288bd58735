# The Portals 4 reference's conformance tests (sourced by run.sh):
# test/basic (C programs, 2 ranks) and test/sfw (ptl_test driven by XML
# cases, test_n1 at 1 rank and test_n2 at 2 ranks), built unmodified against
# the installed emunic's portals4.h and -lportals with the reference's own
# support library (test/support.c, test/pmi.c) and PMI-1 client
# (src/runtime/pmi-simple). The reference's own library and its configure
# are not used: the programs, their sources and their -D flags come from its
# Makefile.am files (build glue only, the tests are not changed).
#
# Environment:
#   P4_SFW      all (default) or a share: "N" runs every N-th sfw case
#               (a fixed, documented share, docs/portals.md)
#   P4_LAYOUT2  the 2-rank layout, NODESxRPN (default 2x1: all remote)
#   P4_SETS     which sets run (default "basic sfw abi"; abi: test/basic
#               built against the reference's own header, run on ours)
#   P4_TIMEOUT  emunic-run --timeout of each program (default 60)
# shellcheck shell=bash

# p4_am_var FILE VAR: a Makefile.am variable's value, continuation lines
# joined, $(AM_CPPFLAGS) and friends dropped (we give our own).
p4_am_var() {
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" |
        sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" | head -n 1 |
        sed -e "s|\$(top_srcdir)|$ref|g" -e 's/\$([A-Za-z_]*)//g'
}

# p4_build_program DIR NAME: compile one basic test as its Makefile.am says.
p4_build_program() {
    local dir=$1 name=$2 srcs flags s objs=()
    srcs=$(p4_am_var "$dir/Makefile.am" "${name}_SOURCES")
    [ -n "$srcs" ] || srcs="$name.c"
    flags=$(p4_am_var "$dir/Makefile.am" "${name}_CPPFLAGS")
    for s in $srcs; do
        case $s in *.c) objs+=("$dir/$s") ;; esac
    done
    # shellcheck disable=SC2086 # the flags are words
    ${CC:-cc} -O1 -g -w $flags "${p4_inc[@]}" -I"$dir" -o "$p4_bin/$name" "${objs[@]}" \
        "$p4_bin/libtestsupport.a" -L"$prefix/lib" -lportals -lm -lpthread
}

# p4_run LABEL NAME NODES RPN LOG CMD...: one program under the installed
# emunic-run over the Portals NIC (listed_run, p4_known_failures).
p4_run() {
    local label=$1 name=$2 n=$3 r=$4 log=$5
    shift 5
    listed_run "$label" "$name" "$here/p4_known_failures" portals "$n" "$r" "$p4_timeout" "$log" "$@"
}

# p4_summary SUITE: the suite's own `N passed, M failed` line.
p4_summary() { suite_summary "Portals 4 reference $1" p4_known_failures; }

stage_portals4() {
    local tarball ref every=${P4_SFW:-all} layout=${P4_LAYOUT2:-2x1}
    local n2=${layout%x*} r2=${layout#*x}
    p4_timeout=${P4_TIMEOUT:-60}
    tarball=$(archive 'portals4-ref-*.tar.gz') || { nfail=$((nfail + 1)); failed_list+=("Portals 4 reference archive"); return; }
    step "Portals 4 reference: unpack $(basename "$tarball")"
    mkdir -p "$work/p4-src"
    tar -xzf "$tarball" -C "$work/p4-src"
    ref=$(dirname "$(ls -d "$work"/p4-src/*/configure.ac | head -n 1)")
    p4_bin=$work/p4-bin
    mkdir -p "$p4_bin"
    # config.h: what its configure would find on Linux
    printf '#define HAVE_%s 1\n' STDLIB_H STRING_H STRINGS_H UNISTD_H SYS_TYPES_H SYS_SOCKET_H >"$p4_bin/config.h"
    p4_inc=(-I"$p4_bin" -I"$prefix/include" -I"$ref/test" -I"$ref/src/runtime/portals4")

    step "Portals 4 reference: test support library and PMI-1 client"
    if ! (cd "$p4_bin" && quiet "$work/p4-support.log" ${CC:-cc} -O1 -g -w -c "${p4_inc[@]}" -DUSE_PMI_PORT \
              "$ref/test/support.c" "$ref/test/pmi.c" \
              "$ref/src/runtime/pmi-simple/simple_pmi.c" "$ref/src/runtime/pmi-simple/simple_pmiutil.c" &&
          quiet "$work/p4-support.log" ar rcs libtestsupport.a support.o pmi.o simple_pmi.o simple_pmiutil.o); then
        report_failure "Portals 4 reference: support library" "$work/p4-support.log" "see $work/p4-support.log"
        return
    fi

    case " ${P4_SETS:-basic sfw abi} " in *" basic "*) p4_basic "$ref" "$n2" "$r2" ;; esac
    case " ${P4_SETS:-basic sfw abi} " in *" sfw "*) p4_sfw "$ref" "$every" "$n2" "$r2" ;; esac
    case " ${P4_SETS:-basic sfw abi} " in *" abi "*) p4_abi "$ref" "$n2" "$r2" ;; esac
}

# p4_abi REF NODES RPN: drop-in ABI. test/basic compiled against the
# reference's own portals4.h (not ours), run on our libportals.so.4 found by
# LD_LIBRARY_PATH: struct layouts, constants and the library's name match.
p4_abi() {
    local ref=$1 saved_inc=("${p4_inc[@]}") saved_bin=$p4_bin
    p4_inc=(-I"$p4_bin" -I"$ref/include" -I"$ref/test" -I"$ref/src/runtime/portals4")
    p4_bin=$work/p4-abi
    mkdir -p "$p4_bin"
    cp "$saved_bin/config.h" "$saved_bin/libtestsupport.a" "$p4_bin/"
    p4_basic "$@" "ABI" "basic built against its own header (ABI)"
    if ! readelf -d "$p4_bin/test_init" 2>/dev/null | grep -F '[libportals.so.4]' >/dev/null; then
        report_failure "Portals 4 ABI: programs do not ask for libportals.so.4" /dev/null "readelf -d $p4_bin/test_init"
    fi
    p4_bin=$saved_bin p4_inc=("${saved_inc[@]}")
}

# p4_basic REF NODES RPN [TAG SUITE]: every program of test/basic's TESTS,
# built with p4_inc into p4_bin, at 2 ranks; TAG names the set in logs and
# reports (default basic), SUITE in the summary.
p4_basic() {
    local ref=$1 n2=$2 r2=$3 tag=${4:-basic} suite=${5:-basic} name list logs
    logs=$work/p4-logs/$tag
    step "Portals 4 reference: build test/basic ($suite)"
    list=$(p4_am_var "$ref/test/basic/Makefile.am" TESTS)
    for name in $list; do
        if ! p4_build_program "$ref/test/basic" "$name" >"$work/p4-build-$tag-$name.log" 2>&1; then
            suite_fail=$((suite_fail + 1))
            report_failure "Portals 4 $tag $name: build" "$work/p4-build-$tag-$name.log" "see the log"
        fi
    done
    step "Portals 4 reference: run test/basic ($suite) at ${n2}x${r2}"
    mkdir -p "$logs"
    cd "$p4_bin" || return
    for name in $list; do
        [ -x "$name" ] || continue
        p4_run "Portals 4 $tag $name" "$name" "$n2" "$r2" "$logs/$name.log" "./$name"
    done
    cd - >/dev/null || return
    p4_summary "$suite"
}

# p4_sfw REF EVERY NODES RPN: ptl_test, then each XML case of test_n1 at one
# rank and of test_n2 at two (every EVERY-th case unless EVERY is all).
p4_sfw() {
    local ref=$1 every=$2 n2=$3 r2=$4 dir f k=0 srcs
    step "Portals 4 reference: build test/sfw's ptl_test (libxml2)"
    srcs=$(p4_am_var "$ref/test/sfw/Makefile.am" ptl_test_SOURCES)
    # shellcheck disable=SC2046,SC2086 # words
    if ! quiet "$work/p4-build-ptl_test.log" ${CC:-cc} -O1 -g -w "${p4_inc[@]}" -I"$ref/test/sfw" \
            $(pkg-config --cflags libxml-2.0) -o "$p4_bin/ptl_test" \
            $(for f in $srcs; do case $f in *.c) echo "$ref/test/sfw/$f" ;; esac; done) \
            "$p4_bin/libtestsupport.a" -L"$prefix/lib" -lportals $(pkg-config --libs libxml-2.0) -lm -lpthread; then
        suite_fail=$((suite_fail + 1))
        report_failure "Portals 4 sfw: build ptl_test" "$work/p4-build-ptl_test.log" "see the log"
        p4_summary sfw
        return
    fi
    step "Portals 4 reference: run test/sfw (test_n1 at 1x1, test_n2 at ${n2}x${r2}; share: $every)"
    mkdir -p "$work/p4-logs/sfw"
    for dir in test_n1 test_n2; do
        cd "$ref/test/sfw/$dir" || return
        for f in $(p4_am_var Makefile.am TESTS); do
            k=$((k + 1))
            [ "$every" = all ] || [ $((k % every)) -eq 0 ] || continue
            if [ $dir = test_n1 ]; then
                p4_run "Portals 4 sfw $dir/$f" "$dir/$f" 1 1 "$work/p4-logs/sfw/$f.log" "$p4_bin/ptl_test" -b ./ -f "$f"
            else
                p4_run "Portals 4 sfw $dir/$f" "$dir/$f" "$n2" "$r2" "$work/p4-logs/sfw/$f.log" "$p4_bin/ptl_test" -b ./ -f "$f"
            fi
        done
        cd - >/dev/null || return
    done
    p4_summary sfw
}
