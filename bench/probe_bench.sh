#!/usr/bin/env bash
# Added cost of the LD_PRELOAD probe per ibv_post_send / ibv_poll_cq call,
# with and without the probe in the same run (bench/probe_bench.c, null
# provider): first the probe alone, then probe + real tracer writing a
# trace file.  Target: at most 25 ns added per call (PROBE_BENCH_LIMIT_NS).
set -u
BUILD=${BUILD:-build}
LIMIT=${PROBE_BENCH_LIMIT_NS:-25}
T=$(mktemp -d /tmp/rt-probe-bench-XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "== probe overhead per call"
"$BUILD/bench/probe_bench_fake" "$LIMIT"
RDMATRACE_OUTPUT=$T/bench.rtr RDMATRACE_RING_KB=4096 RDMATRACE_COUNTER_MS=0 \
	"$BUILD/bench/probe_bench" "$LIMIT"
exit 0
