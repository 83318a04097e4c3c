#!/usr/bin/env bash
# Added cost of the LD_PRELOAD probe per ibv_post_send / ibv_poll_cq call,
# with and without the probe in the same run (bench/probe_bench.c, null
# provider): first the probe alone, then probe + real tracer writing a
# trace file; then over uroce (a real engine behind the same ops).  Target: at most 25 ns added per call (PROBE_BENCH_LIMIT_NS).
set -u
BUILD=${BUILD:-build}
LIMIT=${PROBE_BENCH_LIMIT_NS:-25}
T=$(mktemp -d /tmp/rt-probe-bench-XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "== probe overhead per call"
"$BUILD/bench/probe_bench_fake" "$LIMIT"
RDMATRACE_OUTPUT=$T/bench.rtr RDMATRACE_RING_KB=4096 RDMATRACE_COUNTER_MS=0 \
	"$BUILD/bench/probe_bench" "$LIMIT"
if [ -e "$BUILD/uroce/libibverbs.so.1" ]; then
	echo "== over uroce"
	LD_LIBRARY_PATH=$PWD/$BUILD/uroce UROCE_ADDR=127.$((100 + RANDOM % 100)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1)) \
		RDMATRACE_OUTPUT=$T/uroce.rtr RDMATRACE_RING_KB=4096 RDMATRACE_COUNTER_MS=0 \
		"$BUILD/bench/probe_bench_uroce" "$LIMIT"
fi
exit 0
