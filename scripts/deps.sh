#!/usr/bin/env bash
# Install what emunic needs to build and test, from Debian/Ubuntu packages.
# On another distribution: name the packages and stop.
set -euo pipefail

PKGS=(build-essential cmake pkg-config liburing-dev libhwloc-dev libcmocka-dev libyaml-dev mpich libmpich-dev
      libglobalarrays-dev libscalapack-mpich-dev
      libfabric-dev  # the daemons' link between hosts (emunic/nicd/hostlink.c)
      autoconf automake libtool gfortran  # building the real clients (make check-clients)
      libxml2-dev  # the Portals 4 reference's XML-driven conformance tests (test/sfw)
      automake1.11 libjemalloc2  # OSPRI A1's own build (automake 1.11) and its run glue (tests/clients/a1.sh)
      clang)  # libFuzzer, for the parsers' fuzz harnesses (make check-fuzz)

is_debian() {
    [ -f /etc/debian_version ] && return 0
    [ -r /etc/os-release ] && grep -qiE '^(ID|ID_LIKE)=.*(debian|ubuntu)' /etc/os-release
}

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
else
    missing=("${PKGS[@]}")
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if ! is_debian; then
    echo "emunic: this is not a Debian/Ubuntu system; install these (or your distribution's equivalents) and re-run:" >&2
    echo "  ${PKGS[*]}" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "emunic: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    SUDO="sudo"
fi
echo "emunic: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
