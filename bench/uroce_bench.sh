#!/usr/bin/env bash
# uroce benchmark: 1 MiB RDMA WRITE throughput and 8-byte SEND ping-pong over
# uroce on loopback, beside TCP loopback throughput and a UDP ping-pong from
# the same run.  Targets (docs/uroce.md): WRITE >= 1000 MB/s and >= 1/4 of
# TCP; ping-pong within 2x of UDP.  Prints a table; exits 0 (a benchmark,
# not a test).  SECONDS and ITERS can be set in the environment.
set -u
BUILD=${BUILD:-build}
B=$BUILD/bench/uroce_bench
SECONDS_RUN=${SECONDS_RUN:-3}
ITERS=${ITERS:-20000}
[ -x "$B" ] || { echo "uroce_bench: $B not built (make all)"; exit 1; }
export UROCE_ADDR=127.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 250 + 1)),127.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 250 + 1))
unset UROCE_FAULTS
w=$("$B" write "$SECONDS_RUN")
g=$(UROCE_GSO=1 "$B" write "$SECONDS_RUN")
t=$("$B" tcp "$SECONDS_RUN")
p=$("$B" pingpong "$ITERS")
u=$("$B" udp "$ITERS")
echo "uroce benchmark (loopback, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
printf '  %-38s %10s MB/s\n' "RDMA WRITE 1 MiB (uroce, MTU 4096)" "$w" "  same with UDP GSO (UROCE_GSO=1)" "$g" \
	"TCP loopback, 1 MiB writes" "$t"
printf '  %-38s %10s us\n' "SEND 8 B ping-pong RTT (uroce)" "$p" "UDP 8 B ping-pong RTT" "$u"
awk -v w="$w" -v g="$g" -v t="$t" -v p="$p" -v u="$u" 'BEGIN {
	printf "  WRITE/TCP = %.2f, with GSO %.2f (target >= 0.25); >= 1000 MB/s: %s\n", w / t, g / t,
	       (w >= 1000 || g >= 1000 ? "yes" : "no");
	printf "  ping-pong / UDP = %.2f (target <= 2)\n", p / u }'
