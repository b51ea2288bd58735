#!/bin/sh
# Build OSPRI/A1 (branches/a1-lite, DCMF device) and its benchmarks/a1 against
# an *installed* emunic, with A1's own configure; then (optionally) run them.
#
# usage: tests/clients/a1.sh PREFIX WORKDIR [run]
# Run by hand: not yet a stage of run.sh (most of benchmarks/a1 fails on
# A1's own bugs, docs/clients.md "OSPRI A1").
#   PREFIX   emunic install prefix (cmake --install BUILD --prefix PREFIX)
#   WORKDIR  scratch dir (A1 is unpacked into WORKDIR/src, installed into WORKDIR/a1-install)
#   run      also run every benchmarks/a1 program at 2x1 and 2x2 (results in WORKDIR/runs)
# env: A1_TARBALL (default /work/shared/clients/ospri-a1-lite-463f1fcc.tar.gz),
#      JOBS (default 2), TIMEOUT (default 120), JEMALLOC (default Debian's libjemalloc.so.2)
#
# Build glue only, A1's files are never edited:
#  - autoreconf with automake-1.11 (see below).
#  - configure --with-device=dcmfd --with-dcmf=PREFIX --with-spi=PREFIX: A1's
#    configure looks for IBM's libdcmf-fast.cnk / libSPI.cna, does not find them
#    and enables dcmfd anyway, so the library name is given by LIBS=-ldcmf;
#    our headers (dcmf.h, bpcore/, spi/) come from PREFIX/include.
#  - --disable-error-checking is NOT used: A1's checks stay on.
#  - benchmarks/a1/Makefile is written for mpixlc_r on BG/P; we pass CC=mpicc.mpich, COPT,
#    INCLUDE and LIBS on the make command line.
#  - -fcommon: A1 and its benchmarks define globals in headers.
#  - at run time emunic-run --no-aslr, as BG/P's CNK ran every rank (A1_Put_bw
#    passes the target's buffer address as its local source).
#  - at run time LD_PRELOAD=libjemalloc.so.2 hides A1's one-past-the-end write in
#    A1DI_Handle_pool_initialize (dcmfd_handlepool.c) from glibc's heap checks.
set -eu
PREFIX=$(cd "$1" && pwd)
WORK=$2
ACTION=${3:-build}
A1_TARBALL=${A1_TARBALL:-/work/shared/clients/ospri-a1-lite-463f1fcc.tar.gz}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-120}
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
# A1 on BG/P was built with mpixlc_r; A1_RMW and A1_AllFlushAll_latency use MPI:
# Debian's MPICH (mpicc.mpich), which starts under emunic-run through its PMI-1 server.
MPICC=${MPICC:-mpicc.mpich}   # not "mpicc": on Debian that may be Open MPI

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
SRC=$WORK/src/ospri/branches/a1-lite
INST=$WORK/a1-install
LIBDIR=$(dirname "$(find "$PREFIX" -name libdcmf.so -print -quit)")

if [ ! -f "$SRC/configure.ac" ]; then
    mkdir -p "$WORK/src"
    tar xzf "$A1_TARBALL" -C "$WORK/src"
fi

cd "$SRC"
# A1 says AM_INIT_AUTOMAKE([-Wall -Werror foreign 1.11]); automake 1.16 warns
# (AM_PROG_AR, subdir-objects) and -Werror from configure.ac cannot be
# overridden from the command line, so use the automake of A1's era: Debian's
# automake1.11 package (apt-get install -y automake1.11). Default automake is untouched.
if [ ! -f Makefile.in ]; then
    command -v automake-1.11 >/dev/null || apt-get install -y automake1.11 > "$WORK/apt.log" 2>&1
    AUTOMAKE=automake-1.11 ACLOCAL=aclocal-1.11 autoreconf -vif > "$WORK/autogen.log" 2>&1
fi
./configure --prefix="$INST" --with-device=dcmfd \
    --with-dcmf="$PREFIX" --with-spi="$PREFIX" \
    CC="$MPICC" CFLAGS="-g -O2 -fcommon" \
    LDFLAGS="-L$LIBDIR -Wl,-rpath,$LIBDIR" LIBS="-ldcmf -lpthread -lm" \
    > "$WORK/configure.log" 2>&1
make -j"$JOBS" V=1 > "$WORK/make.log" 2>&1
make install > "$WORK/make-install.log" 2>&1

cd "$SRC/benchmarks/a1"
make -j"$JOBS" CC="$MPICC" COPT="-g -O2 -fcommon" A1_INSTALL="$INST" \
    LIBS="-L$INST/lib -la1 -L$LIBDIR -Wl,-rpath,$LIBDIR -ldcmf -lpthread -lm" \
    > "$WORK/bench-make.log" 2>&1
ls "$SRC"/benchmarks/a1/*.x

[ "$ACTION" = run ] || exit 0

# Programs written for exactly two ranks run at 2x1 only.
TWO_ONLY="A1_PutS_overlap A1_PutS_overlap_dgemm A1_PutAccS_bw"
# A1_GLUE=1: A1D_GET_PACKING_LIMIT=8192 sends every strided get of the benchmarks
# (blocks <= 1024 doubles) through A1's packed Send path, around A1DI_Direct_gets
# (dcmfd_gets.c), which passes the local memregion as DCMF_Get's source.
[ "${A1_GLUE:-0}" = 1 ] && export A1D_GET_PACKING_LIMIT=8192
mkdir -p "$WORK/runs"
RES=$WORK/runs/summary.txt
: > "$RES"
for x in "$SRC"/benchmarks/a1/*.x; do
    p=$(basename "$x" .x)
    for lay in 2x1 2x2; do
        case " $TWO_ONLY " in *" $p "*) [ $lay = 2x1 ] || continue ;; esac
        N=${lay%x*}; n=${lay#*x}
        log=$WORK/runs/$p.$lay.log
        set +e
        # --no-aslr: BG/P's CNK put every rank's allocations at the same
        # addresses, and A1_Put_bw passes the target's buffer as its source
        LD_PRELOAD=$JEMALLOC "$PREFIX/bin/emunic-run" -N "$N" -n "$n" --nic dcmf --no-aslr \
            --timeout "$TIMEOUT" -- "$x" > "$log" 2>&1
        rc=$?
        set -e
        echo "$p $lay rc=$rc" | tee -a "$RES"
    done
done
