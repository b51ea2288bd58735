# A1's build recipe (the glue documented in a1.sh), shared by the a1 client
# stage and bench/run_a1.sh so that both measure the same A1.
# shellcheck shell=bash

# a1_install SRC INST PREFIX: A1 in SRC (its a1-lite directory) configured
# against the emunic installed at PREFIX and installed to INST; output on
# stdout and stderr.
a1_install() {
    local src=$1 inst=$2 prefix=$3 lib=$3/lib
    (cd "$src" &&
        env AUTOMAKE=automake-1.11 ACLOCAL=aclocal-1.11 autoreconf -vif &&
        ./configure --prefix="$inst" --with-device=dcmfd --with-dcmf="$prefix" --with-spi="$prefix" \
            CC=mpicc.mpich CFLAGS="-g -O2 -fcommon" LDFLAGS="-L$lib -Wl,-rpath,$lib" \
            LIBS="-ldcmf -lpthread -lm" &&
        make -j2 && make install)
}
