#!/usr/bin/env bash
# Added cost of the LD_PRELOAD probe per ibv_post_send / ibv_poll_cq call,
# with and without the probe in the same run (bench/probe_bench.c, null
# provider).  Target: at most 25 ns added per call (PROBE_BENCH_LIMIT_NS).
set -u
BUILD=${BUILD:-build}
echo "== probe overhead (null provider)"
"$BUILD/bench/probe_bench" "${PROBE_BENCH_LIMIT_NS:-25}"
