#!/usr/bin/env bash
# make check-clients: real third-party clients, built from their source
# archives against an *installed* emunic and run through their own test
# suites under the installed emunic-run. Nothing is cached between runs.
#
#   tests/clients/run.sh [-b BUILD_DIR] [STAGE...]
#
#   -b BUILD_DIR  the emunic build to install (default: build/)
#   STAGE         sos, portals4, pami, ga, armci, a1 (default: all of them)
# Environment:
#   EMUNIC_CLIENTS   where the archives are (default: ../shared/clients
#                    beside the source tree); absent: one line, exit 0
#   CLIENTS_WORK     scratch directory (default: BUILD_DIR/clients, emptied)
#   CLIENTS_TIMEOUT  emunic-run --timeout of each test program (default 300;
#                    GA's programs get twice that)
#   CLIENTS_LAYOUTS  SOS's unit set also at 4x1 (default), at 1x4 and 4x1
#                    (all) or only 2x2 (2x2)
#   CLIENTS_FULL     1: every layout and long run of every stage (make
#                    check-clients-full; about an hour more than CI's)
#   GA_NICS          NICs GA's programs run over (default: portals; with
#                    CLIENTS_FULL all three, "portals pami dcmf")
# A failing client test prints its name, the last lines of its output and
# the command that reproduces it; the last line counts passes and failures.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
while getopts b:h opt; do
    case $opt in
        b) build=$(cd "$OPTARG" && pwd) ;;
        h) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(sos portals4 pami ga armci a1)

if [ "${CLIENTS_FULL:-0}" = 1 ]; then
    export PAMI_LONG=${PAMI_LONG:-1} A1_LONG=${A1_LONG:-1} CLIENTS_LAYOUTS=${CLIENTS_LAYOUTS:-all}
    export GA_NICS=${GA_NICS:-portals pami dcmf}
fi

# shellcheck source=tests/clients/lib.sh
. "$here/lib.sh"
# shellcheck source=tests/clients/sos.sh
. "$here/sos.sh"
# shellcheck source=tests/clients/portals4.sh
. "$here/portals4.sh"
# shellcheck source=tests/clients/pami_api.sh
. "$here/pami_api.sh"
# shellcheck source=tests/clients/ga.sh
. "$here/ga.sh"
# shellcheck source=tests/clients/armci_classic.sh
. "$here/armci_classic.sh"
# shellcheck source=tests/clients/a1.sh
. "$here/a1.sh"

clients=$(clients_dir)
if [ -z "$clients" ]; then
    echo "clients: skipped: no client archives (../shared/clients); point EMUNIC_CLIENTS=DIR at them"
    exit 0
fi
[ -x "$build/bin/emunic-run" ] || { echo "clients: build $build first (make build)" >&2; exit 2; }
timeout=${CLIENTS_TIMEOUT:-300}
work=${CLIENTS_WORK:-$build/clients}
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
t0=$(date +%s)

step "install emunic ($build) to $prefix"
install_emunic "$build" "$prefix" || exit 1

# each stage's wall time, printed at the end: CI's 90 minutes are shared
stage_times=
for s in "${stages[@]}"; do
    ts=$(date +%s)
    case $s in
        sos) stage_sos ;;
        portals4) stage_portals4 ;;
        pami) stage_pami ;;
        ga) stage_ga ;;
        armci) stage_armci ;;
        a1) stage_a1 ;;
        *) echo "clients: unknown stage '$s' (sos, portals4, pami, ga, armci, a1)" >&2; exit 2 ;;
    esac
    stage_times+="${stage_times:+, }$s $(( $(date +%s) - ts )) s"
done

echo "clients: took $(( $(date +%s) - t0 )) s ($stage_times); work tree $work"
if [ "$nfail" -gt 0 ]; then
    echo "clients: failed:"
    printf '  %s\n' "${failed_list[@]}"
fi
echo "clients: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
