# ARMCI's classic programs (sourced by run.sh, stage armci): test.c,
# perf.c, perf_nb.c, perf_aggr.c and msgcheck.c from GA's armci/testing,
# built unmodified against the installed armci.h and libarmci (the -D
# flags are what GA's config.h would say) and run under the installed
# emunic-run at 2x2 on every NIC; test, perf_aggr and msgcheck also at
# 4x4 (perf and perf_nb refuse 8 or more processes themselves).
#   ARMCI_NICS     NICs (default "portals pami dcmf")
#   ARMCI_LAYOUTS  layouts (default "2x2 4x4" on portals, "2x2" on the others;
#                  CLIENTS_FULL=1: "2x2 4x4" on every NIC). test.c at 4x4 takes
#                  80-95 s a NIC on 2 cores, and our own suite runs the
#                  runtime's 4x4 programs over pami and dcmf.
#   ARMCI_TIMEOUT  emunic-run --timeout of each run (default 600)

armci_progs="test perf perf_nb perf_aggr msgcheck"

stage_armci() {
    local tarball dir bin prog nic layout n r
    tarball=$(archive 'ga-*.tar.gz') || { nfail=$((nfail + 1)); failed_list+=("GA archive"); return; }
    dir=$work/armci-classic
    bin=$dir/bin
    mkdir -p "$bin"
    step "ARMCI classic: unpack armci/testing from $(basename "$tarball")"
    tar -xzf "$tarball" -C "$dir" --wildcards '*/armci/testing/*' || { nfail=$((nfail + 1)); failed_list+=("ARMCI classic unpack"); return; }
    local tdir
    tdir=$(dirname "$(find "$dir" -path '*/armci/testing/test.c' -print -quit)")
    step "ARMCI classic: build $armci_progs"
    for prog in $armci_progs; do
        if ! cc -O2 -g -DHAVE_STDIO_H=1 -DHAVE_STDLIB_H=1 -DHAVE_ASSERT_H=1 -DHAVE_UNISTD_H=1 \
            -DHAVE_STRING_H=1 -DHAVE_STRINGS_H=1 -DHAVE_MATH_H=1 -DHAVE_SYS_TIME_H=1 -DHAVE_TIME_H=1 \
            -I"$prefix/include" -I"$tdir" -o "$bin/$prog" "$tdir/$prog.c" \
            -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -larmci -lm >"$bin/$prog.build.log" 2>&1; then
            report_failure "ARMCI classic $prog: does not build" "$bin/$prog.build.log" \
                "cc -I$prefix/include $tdir/$prog.c -L$prefix/lib -larmci -lm"
        fi
    done
    pushd "$dir" >/dev/null || return
    for nic in ${ARMCI_NICS:-portals pami dcmf}; do
        local layouts="2x2 4x4"
        [ "$nic" = portals ] || [ "${CLIENTS_FULL:-0}" = 1 ] || layouts=2x2
        for layout in ${ARMCI_LAYOUTS:-$layouts}; do
            n=${layout%x*} r=${layout#*x}
            step "ARMCI classic: run over --nic $nic at $layout"
            for prog in $armci_progs; do
                [ -x "$bin/$prog" ] || continue
                # perf and perf_nb: "2 <= processes < 8"
                if [ $((n * r)) -ge 8 ] && { [ "$prog" = perf ] || [ "$prog" = perf_nb ]; }; then
                    continue
                fi
                listed_run "ARMCI $prog $nic $layout" "$prog" /dev/null "$nic" "$n" "$r" \
                    "${ARMCI_TIMEOUT:-600}" "$bin/$prog.$nic.$layout.log" "$bin/$prog"
            done
        done
    done
    popd >/dev/null || return
    suite_summary "ARMCI classic (GA armci/testing)" "no known failures"
}
