#!/usr/bin/env bash
# RDMA CM connection setup over uroce on loopback: Debian's cmtime opens N
# connections at once (REQ/REP/RTU each) and tears them down (DREQ/DREP),
# and reports the time per step.  Run by `make bench`; BENCH_CONNS (default
# 200) sets N.
set -eu
BUILD=${BUILD:-build}
N=${BENCH_CONNS:-200}
export LD_LIBRARY_PATH=$PWD/$BUILD/uroce
A=127.$((100 + RANDOM % 100)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))
P=$((30000 + RANDOM % 20000))
OUT=$(mktemp /tmp/uroce-cm-bench.XXXXXX)
trap 'rm -f "$OUT"' EXIT
timeout 60 cmtime -b "$A" -p "$P" -c "$N" >/dev/null 2>&1 &
SPID=$!
sleep 0.5
timeout 60 cmtime -s "$A" -p "$P" -c "$N" >"$OUT" 2>&1
kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null || true  # cmtime -b serves until stopped
echo "== uroce RDMA CM: $N connections at once (cmtime, loopback)"
grep -E '^(step|resolve|create qp|connect|disconnect)' "$OUT"
awk -v n="$N" '$1 == "connect" { printf "connection setup: %.1f us per connection, %.0f connections/s\n", $6, n / ($3 / 1000) }' "$OUT"
