#!/usr/bin/env bash
# `make demo` (for now): run the synthetic traced workload, which emits the
# events of an RC RDMA WRITE stream with one RNR NAK and one error
# completion, and show its trace.  Builds nothing: make demo built it.
# The lab issue replaces this with a real two-host run.
set -euo pipefail
BUILD=${BUILD:-build}
out=${RDMATRACE_DEMO_DIR:-$BUILD/demo}
mkdir -p "$out"
trace=$out/synth.rtr
rm -f "$trace"
echo "== running a traced synthetic workload (2 threads, 20 RDMA WRITEs each)"
RDMATRACE_OUTPUT=$trace "$BUILD/rdmatrace-synth" --threads 2 --messages 20 --rnr-at 5 --error-at 12
echo "== rdmatrace dump --info $trace"
"$BUILD/rdmatrace" dump --info "$trace"
echo "== the first records, in time order"
"$BUILD/rdmatrace" dump --no-clock "$trace" >"$out/synth.txt"
head -25 "$out/synth.txt"
echo "   ..."
echo "== the RNR NAK, the retry and the error completion"
"$BUILD/rdmatrace" dump --kind rnr,retry,completion "$trace" | grep -E ' rnr | retry |status=[A-Z_]*ERR' || true
echo
echo "trace file: $trace  (rdmatrace dump --json $trace for JSON Lines)"
