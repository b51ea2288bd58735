# Sandia OpenSHMEM (sourced by run.sh): built from its archive against the
# installed emunic as its README says (autogen.sh, configure
# --with-portals4=PREFIX --enable-pmi-simple), then its own `make check`
# for unit, shmemx, spec-example and apps with TEST_RUNNER = the installed
# emunic-run. The unit set also runs all remote (4x1), and node-local (1x4)
# with CLIENTS_LAYOUTS=all (make check-clients-full).
# shellcheck shell=bash

# sos_runner NODES RPN: SOS's TEST_RUNNER for that layout.
sos_runner() {
    echo "$prefix/bin/emunic-run --nic portals -N $1 -n $2 --timeout $timeout --"
}

# sos_check SET NODES RPN: SOS's make check of one test directory.
sos_check() {
    local set=$1 dir=$sosdir/modules/tests-sos/test/$1 runner
    runner=$(sos_runner "$2" "$3")
    step "SOS $set at $2x$3"
    rm -f "$dir"/*.log "$dir"/*.trs
    # make's exit status is the suite's: the .trs files say which failed
    # The installed libportals is found at run time as any library in a
    # non-system prefix is: through LD_LIBRARY_PATH.
    LD_LIBRARY_PATH="$prefix/lib" make -C "$dir" check TEST_RUNNER="$runner" >"$work/sos-$set-$2x$3.log" 2>&1 || true
    automake_results "$dir" "SOS $set $2x$3:" "$runner" "LD_LIBRARY_PATH=$prefix/lib"
}

stage_sos() {
    local tarball
    tarball=$(archive 'sos-*.tar.gz') || { nfail=$((nfail + 1)); failed_list+=("SOS archive"); return; }
    step "SOS: unpack $(basename "$tarball")"
    mkdir -p "$work/sos-src"
    tar -xzf "$tarball" -C "$work/sos-src"
    sosdir=$(dirname "$(ls -d "$work"/sos-src/*/configure.ac | head -n 1)")
    step "SOS: autogen.sh, configure --with-portals4=$prefix --enable-pmi-simple, make -j2"
    if ! (cd "$sosdir" && quiet "$work/sos-autogen.log" ./autogen.sh &&
          quiet "$work/sos-configure.log" ./configure --with-portals4="$prefix" \
              --enable-pmi-simple --prefix="$work/sos-install" &&
          quiet "$work/sos-make.log" make -j2 &&
          quiet "$work/sos-checkprogs.log" make -j2 check TESTS=); then
        report_failure "SOS build" "$work/sos-make.log" "see $work/sos-*.log"
        return
    fi
    local set
    for set in unit shmemx spec-example apps; do
        sos_check "$set" 2 2
    done
    # all remote (4x1) in every run; node-local (1x4) only in the full run,
    # to keep make check in CI's 90 minutes
    case ${CLIENTS_LAYOUTS:-default} in
        all) sos_check unit 1 4; sos_check unit 4 1 ;;
        default) sos_check unit 4 1 ;;
    esac
}
