#!/usr/bin/env bash
# What `make demo` shows: a 2-node x 2-rank job on the emulated NIC, with
# the launcher's plan, each rank's output and the NICs' counters.
set -euo pipefail
build=${1:-build}
echo "== emunic demo: emunic-run -N 2 -n 2 -v -- core_demo"
"$build/bin/emunic-run" -N 2 -n 2 -v -- "$build/bin/core_demo"
echo "== what happened: each rank wrote a greeting into its neighbour's memory through"
echo "   its node's NIC daemon (cross-node writes travel the emulated wire), and drew a"
echo "   ticket from a counter on rank 0 with a NIC-side fetch-and-add. The counters"
echo "   above are each NIC's own: commands, target writes/atomics, wire packets, sleeps."
