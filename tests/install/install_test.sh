#!/usr/bin/env bash
# Install the build tree into a scratch prefix and build against it the way
# a third party would: pkg-config for PAMI, DCMF, Portals and ARMCI programs, and
# a CMake project using find_package(emunic COMPONENTS pami dcmf armci). Every
# program runs under the installed emunic-run; run bare, one fails with one
# line naming emunic-run.
#
# install_test.sh BUILD_DIR SOURCE_DIR LIBDIR CC [SANITIZE]
# SANITIZE (EMUNIC_SANITIZE of the build): consumers are compiled and
# linked with the same -fsanitize flags, which the installed libraries need.
set -euo pipefail

build=$1 src=$2 libdir=$3 cc=$4 sanitize=${5:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/emunic-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 143' TERM INT
cmake=${CMAKE:-cmake}  # the build's cmake, as ctest passes it
prefix=$work/prefix

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install"; }

# The layout.
for f in bin/emunic-run bin/emunic-nicd; do
    [ -x "$prefix/$f" ] || fail "$f not installed"
done
for h in portals4.h pami.h pami_sys.h dcmf.h dcmf_impl.h dcmf_collectives.h dcmf_globalcollectives.h \
         dcmf_multisend.h \
         bpcore/bgp_atomic_ops.h bpcore/ppc450_inlines.h spi/bgp_SPI.h armci.h message.h \
         emunic/emunic.h emunic/msg.h emunic/atomic_op.h emunic/region.h; do
    [ -f "$prefix/include/$h" ] || fail "include/$h not installed"
done
for l in emunic dcmf armci; do
    [ -L "$prefix/$libdir/lib$l.so" ] && [ -L "$prefix/$libdir/lib$l.so.0" ] &&
        [ -f "$prefix/$libdir/lib$l.so.0.1.0" ] || fail "lib$l.so* not installed"
done
# libpami unversioned, as IBM's Linux installations have it
[ -f "$prefix/$libdir/libpami.so" ] && [ ! -L "$prefix/$libdir/libpami.so" ] || fail "libpami.so not installed"
readelf -d "$prefix/$libdir/libpami.so" | grep -F 'Library soname: [libpami.so]' >/dev/null ||
    fail "libpami's SONAME is not libpami.so"
# libportals as the Portals 4 reference installs it, so that its programs
# find ours by name (SONAME libportals.so.4)
[ -L "$prefix/$libdir/libportals.so" ] && [ -L "$prefix/$libdir/libportals.so.4" ] &&
    [ -f "$prefix/$libdir/libportals.so.4.0.0" ] || fail "libportals.so{,.4,.4.0.0} not installed"
readelf -d "$prefix/$libdir/libportals.so.4.0.0" | grep -F 'Library soname: [libportals.so.4]' >/dev/null ||
    fail "libportals's SONAME is not libportals.so.4"
for pc in emunic emunic-portals emunic-pami emunic-dcmf emunic-armci; do
    [ -f "$prefix/$libdir/pkgconfig/$pc.pc" ] || fail "$pc.pc not installed"
done
for f in emunicConfig.cmake emunicConfigVersion.cmake emunicTargets.cmake; do
    [ -f "$prefix/$libdir/cmake/emunic/$f" ] || fail "cmake/emunic/$f not installed"
done
for m in man1/emunic-run.1 man7/emunic.7; do
    [ -f "$prefix/share/man/$m" ] || fail "share/man/$m not installed"
done
# Installed binaries resolve their libraries inside the prefix, not the build.
if ldd "$prefix/bin/emunic-run" | grep -F "$build" >/dev/null; then
    fail "installed emunic-run loads libraries from the build tree"
fi
for b in bin/emunic-run bin/emunic-nicd "$libdir/libarmci.so"; do
    ldd "$prefix/$b" | grep -E "libemunic\.so\.0 => $prefix/" >/dev/null ||
        fail "installed $b does not find libemunic in $prefix"
done

# In a sanitizer build the installed libraries need the sanitizer runtime:
# consumers are then built with the same -fsanitize flags.
san_flags=()
if [ -n "$sanitize" ]; then
    san_flags=(-fsanitize="$sanitize" -fno-omit-frame-pointer)
    echo "EMUNIC_SANITIZE=$sanitize: consumers built with ${san_flags[*]}"
fi

# Everything below runs from the prefix: the launcher must find
# emunic-nicd next to itself, not through EMUNIC_NICD.
unset EMUNIC_NICD
run() { "$prefix/bin/emunic-run" -N 2 -n 2 --timeout 60 "$@"; }

export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
cd "$work"
pc_build() { # OUT SRC MODULE
    local rpath
    rpath=$(pkg-config --variable=libdir "$3")
    # shellcheck disable=SC2046
    "$cc" "${san_flags[@]}" -o "$1" "$2" $(pkg-config --cflags --libs "$3") -Wl,-rpath,"$rpath" ||
        fail "building $2 with pkg-config $3"
}

step "pkg-config emunic-dcmf: $(pkg-config --cflags --libs emunic-dcmf)"
pc_build pc_dcmf "$src/tests/dcmf/dcmf_smoke.c" emunic-dcmf
run --nic dcmf -- ./pc_dcmf || fail "pc_dcmf under emunic-run --nic dcmf"

# The multisend header and the BG/P shims' linkable kernel queries, from
# the installed headers and library.
pc_build pc_multisend "$src/tests/dcmf/dcmf_multisend.c" emunic-dcmf
run --nic dcmf -- ./pc_multisend || fail "pc_multisend under emunic-run --nic dcmf"
# shellcheck disable=SC2046
"$cc" "${san_flags[@]}" -o pc_shims "$src/tests/dcmf/dcmf_shims.c" "$src/tests/dcmf/dcmf_shims_kernel.c" \
    $(pkg-config --cflags --libs emunic-dcmf) -lpthread -Wl,-rpath,"$(pkg-config --variable=libdir emunic-dcmf)" ||
    fail "building dcmf_shims (bpcore/, spi/, linkable Kernel_*) against the prefix"
run --nic dcmf -- ./pc_shims >/dev/null || fail "pc_shims under emunic-run --nic dcmf"

step "pkg-config emunic-pami: $(pkg-config --cflags --libs emunic-pami)"
pc_build pc_pami "$src/tests/pami/pami_smoke.c" emunic-pami
run --nic pami -- ./pc_pami || fail "pc_pami under emunic-run --nic pami"

step "pkg-config emunic-portals"
pc_build pc_portals "$src/examples/portals/put_get_pingpong.c" emunic-portals
run --nic portals -- ./pc_portals || fail "pc_portals under emunic-run --nic portals"

step "message.h: a program defining ARMCI's constants itself (-Werror)"
# shellcheck disable=SC2046
"$cc" "${san_flags[@]}" -Werror -o pc_hdr "$src/tests/runtime/hdr/defs_before.c" \
    "$src/tests/runtime/hdr/defs_after.c" $(pkg-config --cflags emunic-armci) ||
    fail "message.h/armci.h redefinitions against the installed headers"
./pc_hdr || fail "pc_hdr"

step "pkg-config emunic-armci"
pc_build pc_armci "$src/tests/install/armci_ring.c" emunic-armci
run --nic portals -- ./pc_armci >"$work/armci.out" || fail "pc_armci under emunic-run --nic portals"
cat "$work/armci.out"
[ "$(grep -c 'got 10' "$work/armci.out")" -eq 4 ] || fail "pc_armci: want 4 'got' lines"

step "find_package(emunic COMPONENTS pami dcmf armci)"
"$cmake" -S "$src/tests/install/cmake_consumer" -B "$work/consumer" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_C_FLAGS="${san_flags[*]}" \
      -DEMUNIC_SOURCE_DIR="$src" >"$work/consumer.log" 2>&1 ||
    { cat "$work/consumer.log" >&2; fail "configuring the CMake consumer"; }
"$cmake" --build "$work/consumer" >>"$work/consumer.log" 2>&1 ||
    { cat "$work/consumer.log" >&2; fail "building the CMake consumer"; }
grep -qF "launcher $prefix/bin/emunic-run" "$work/consumer.log" ||
    { cat "$work/consumer.log"; fail "EMUNIC_RUN is not the installed emunic-run"; }
run --nic dcmf -- "$work/consumer/consumer_dcmf" >"$work/dcmf.out" ||
    fail "consumer_dcmf under emunic-run --nic dcmf"
grep -q "counter 400 (want 400)" "$work/dcmf.out" || { cat "$work/dcmf.out"; fail "consumer_dcmf output"; }
run --nic pami -- "$work/consumer/consumer_pami" || fail "consumer_pami under emunic-run --nic pami"
run --nic dcmf -- "$work/consumer/consumer_armci" >"$work/armci2.out" ||
    fail "consumer_armci under emunic-run --nic dcmf"
[ "$(grep -c 'got 10' "$work/armci2.out")" -eq 4 ] || fail "consumer_armci: want 4 'got' lines"

# A component that does not exist must fail the configure, naming it.
mkdir -p "$work/nosuch"
cat >"$work/nosuch/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.18)
project(nosuch LANGUAGES C)
find_package(emunic REQUIRED CONFIG COMPONENTS gasnet)
CML
if "$cmake" -S "$work/nosuch" -B "$work/nosuch/b" -DCMAKE_PREFIX_PATH="$prefix" >"$work/nosuch.log" 2>&1; then
    fail "find_package(emunic COMPONENTS gasnet) succeeded"
fi
grep -q "component 'gasnet'" "$work/nosuch.log" || { cat "$work/nosuch.log"; fail "no message naming gasnet"; }

step "an installed program outside emunic-run"
for p in pc_dcmf pc_pami pc_armci; do
    status=0
    env -u EMUNIC_JOBID -u EMUNIC_RANK "./$p" >"$work/bare.out" 2>"$work/bare.err" </dev/null || status=$?
    [ "$status" -ne 0 ] || fail "$p outside emunic-run exited 0"
    lines=$(cat "$work/bare.out" "$work/bare.err" | wc -l)
    [ "$lines" -eq 1 ] || { cat "$work/bare.out" "$work/bare.err"; fail "$p: want 1 line, got $lines"; }
    grep -q "emunic-run" "$work/bare.err" || { cat "$work/bare.err"; fail "$p: no mention of emunic-run"; }
    echo "$p (exit $status): $(cat "$work/bare.err")"
done

echo "PASS: install, pkg-config (pami, dcmf, portals, armci), find_package (pami, dcmf, armci), bare run"
