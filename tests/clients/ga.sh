# Global Arrays (sourced by run.sh): built from its archive against an
# installed emunic whose libarmci is the MPI variant (-DEMUNIC_ARMCI_MPI=ON,
# a second install, docs/runtime.md), with Debian's MPICH and Fortran on:
#   configure --with-armci=PREFIX --with-mpi --enable-opt CC=mpicc.mpich ...
# then `make checkprogs` and GA's own `make check` once per NIC, each test
# program under the installed emunic-run (serial ones at 1x1).
# shellcheck shell=bash

stage_ga() {
    local tarball gadir pmpi=$work/prefix-armci-mpi nic
    tarball=$(archive 'ga-*.tar.gz') || { nfail=$((nfail + 1)); failed_list+=("GA archive"); return; }
    for t in mpicc.mpich mpif77.mpich mpicxx.mpich; do
        command -v "$t" >/dev/null || {
            report_failure "GA: $t missing" /dev/null "apt-get install mpich libmpich-dev gfortran"
            return
        }
    done
    step "GA: emunic with the MPI libarmci (-DEMUNIC_ARMCI_MPI=ON), installed to $pmpi"
    if ! quiet "$work/emunic-mpi-configure.log" "${CMAKE:-cmake}" -S "$src" -B "$work/emunic-mpi" \
             -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMUNIC_ARMCI_MPI=ON -DEMUNIC_BUILD_TESTS=OFF ||
       ! quiet "$work/emunic-mpi-build.log" "${CMAKE:-cmake}" --build "$work/emunic-mpi" -j2 ||
       ! install_emunic "$work/emunic-mpi" "$pmpi"; then
        report_failure "GA: emunic MPI variant" "$work/emunic-mpi-build.log" "see $work/emunic-mpi-*.log"
        return
    fi
    step "GA: unpack $(basename "$tarball"), autoreconf"
    mkdir -p "$work/ga-src"
    tar -xzf "$tarball" -C "$work/ga-src"
    gadir=$(dirname "$(ls -d "$work"/ga-src/*/configure.ac | head -n 1)")
    # --enable-opt: GA's configure adds no -O at all without it (its default
    # is off, whatever its --help says), and laplace.x and sprs_test.x then
    # spend most of their time in GA's own unoptimised loops (perf, 2026-12-02)
    step "GA: configure --with-armci=$pmpi --with-mpi --enable-opt (MPICH, Fortran), make -j2, make checkprogs"
    if ! (cd "$gadir" && quiet "$work/ga-autoreconf.log" autoreconf -vif &&
          LD_LIBRARY_PATH="$pmpi/lib" quiet "$work/ga-configure.log" ./configure \
              --with-armci="$pmpi" --with-mpi --enable-opt \
              CC=mpicc.mpich CXX=mpicxx.mpich F77=mpif77.mpich \
              MPICC=mpicc.mpich MPICXX=mpicxx.mpich MPIF77=mpif77.mpich \
              --prefix="$work/ga-install" &&
          quiet "$work/ga-make.log" make -j2 &&
          quiet "$work/ga-checkprogs.log" make -j2 checkprogs); then
        report_failure "GA build" "$work/ga-make.log" "see $work/ga-*.log"
        return
    fi
    # GA's configure must have taken the groups' communicators from the
    # installed header alone.
    grep -q 'checking for ARMCI_Group.comm... yes' "$work/ga-configure.log" || {
        report_failure "GA configure: ARMCI_Group.comm not found in the installed armci.h" \
            "$work/ga-configure.log" "see $work/ga-configure.log"
        return
    }
    # make check runs GA over Portals; GA_NICS="portals pami dcmf" runs all
    # three (docs/clients.md has the results of each)
    for nic in ${GA_NICS:-portals}; do
        ga_check "$gadir" "$pmpi" "$nic"
    done
}

# ga_check GADIR PREFIX NIC: GA's make check with our LOG_COMPILER (GA's own
# picks mpiexec through a shell trick the current automake's test driver
# does not run), the serial tests named to it through GA_SERIAL.
ga_check() {
    local gadir=$1 pmpi=$2 nic=$3 runner long=$here/ga_long
    if [ "${CLIENTS_FULL:-0}" = 1 ]; then long=; fi
    runner="$here/ga_exec"
    step "GA: make check over --nic $nic at ${GA_NODES:-2}x${GA_RPN:-2}"
    find "$gadir" -name '*.trs' -delete
    find "$gadir" -name 'test-suite.log' -delete
    # twice the clients' limit: laplace.x and sprs_test.x take 130-190 s
    # each on a quiet 2-core host (docs/clients.md), and a loaded one is slower
    LD_LIBRARY_PATH="$pmpi/lib" EMUNIC_RUN="$pmpi/bin/emunic-run" GA_NIC=$nic GA_TIMEOUT=$((timeout * 2)) \
        GA_KNOWN="$here/ga_known_failures" GA_LONG="$long" \
        make -C "$gadir" -k check LOG_COMPILER="$runner" \
        AM_TESTS_ENVIRONMENT='GA_SERIAL="$(SERIAL_TESTS)"; export GA_SERIAL;' \
        >"$work/ga-check-$nic.log" 2>&1 || true
    cp "$gadir/test-suite.log" "$work/ga-test-suite-$nic.log" 2>/dev/null || true
    local k
    # ga_exec's one line for a listed program it did not run, from either list
    for k in $(grep -l ' over --nic [a-z]*, not run: ' $(find "$gadir" -name '*.log' -newer "$work/ga-checkprogs.log") 2>/dev/null); do
        echo "  GA $nic: ${k#"$gadir"/}: $(head -n 1 "$k")"
    done
    automake_results "$gadir" "GA $nic:" "$runner" \
        "LD_LIBRARY_PATH=$pmpi/lib EMUNIC_RUN=$pmpi/bin/emunic-run GA_NIC=$nic"
}
