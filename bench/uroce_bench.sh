#!/usr/bin/env bash
# uroce benchmark: 1 MiB RDMA WRITE throughput and 8-byte SEND ping-pong over
# uroce on loopback, beside TCP loopback throughput and a UDP ping-pong from
# the same run.  Targets (docs/uroce.md): WRITE >= 1000 MB/s and >= 1/4 of
# TCP; ping-pong within 2x of UDP.  The headline is uroce with its default
# settings; extra lines show the same WRITE while a packet capture runs on lo
# (uroce then keeps UDP GSO off, see docs/uroce.md) and with UROCE_GSO=0.
# Every figure is the median of RUNS interleaved runs (min-max beside it).
# Prints a table; exits 0 (a benchmark, not a test).
#
# It runs in a network namespace of its own when it can (root: unshare -n),
# so captures other people run on the shared lo neither see its traffic nor
# change what it measures; otherwise on the host's lo, and it says so.
#
# Environment: BUILD, RUNS (default 3), SECONDS_RUN (per throughput run,
# default 3), ITERS (ping-pong round trips, default 20000).
set -u
BUILD=${BUILD:-build}
B=$BUILD/bench/uroce_bench
[ -x "$B" ] || { echo "uroce_bench: $B not built (make all)"; exit 1; }
if [ -z "${UROCE_BENCH_NETNS:-}" ] && unshare -n true 2>/dev/null; then
	exec unshare -n env UROCE_BENCH_NETNS=own bash -c 'ip link set lo up && exec bash "$0"' "$0"
fi
WHERE="host network namespace (captures by others on lo turn GSO off)"
[ "${UROCE_BENCH_NETNS:-}" = own ] && WHERE="own network namespace"
RUNS=${RUNS:-3}
SECONDS_RUN=${SECONDS_RUN:-3}
ITERS=${ITERS:-20000}
export UROCE_ADDR=127.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 250 + 1)),127.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 250 + 1))
unset UROCE_FAULTS UROCE_GSO UROCE_WINDOW
T=$(mktemp -d /tmp/uroce-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

# A capture on lo, as `rdmatrace record` or dumpcap would run it beside uroce.
capture_run() {
	dumpcap -q -i lo -f "udp port 4791" -w "$T/cap.pcapng" >/dev/null 2>&1 &
	local cpid=$!
	for _ in $(seq 50); do
		[ "$(wc -l </proc/net/packet)" -gt 1 ] && break
		sleep 0.1
	done
	sleep 0.3
	"$B" write "$SECONDS_RUN"
	kill -INT $cpid 2>/dev/null
	wait $cpid 2>/dev/null
	rm -f "$T/cap.pcapng"
}

have_dumpcap=0
command -v dumpcap >/dev/null && have_dumpcap=1
for r in $(seq "$RUNS"); do
	"$B" write "$SECONDS_RUN" >>"$T/w"
	[ $have_dumpcap = 1 ] && capture_run >>"$T/wc"
	UROCE_GSO=0 "$B" write "$SECONDS_RUN" >>"$T/w0"
	"$B" tcp "$SECONDS_RUN" >>"$T/t"
	"$B" pingpong "$ITERS" >>"$T/p"
	"$B" udp "$ITERS" >>"$T/u"
	# the same with every thread on one CPU: the software path alone, without
	# the wake-up latency of an idle CPU (tens of us in a VM) that dominates above
	if command -v taskset >/dev/null; then
		taskset -c 0 "$B" pingpong "$ITERS" >>"$T/p1"
		taskset -c 0 "$B" pingpong-signaled "$ITERS" >>"$T/p1s"
		taskset -c 0 "$B" udp "$ITERS" >>"$T/u1"
	fi
done
# median (min-max) of the numbers in a file
med() {
	[ -s "$1" ] || { echo "n/a"; return; }
	sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%.1f (%.1f-%.1f)", m, v[1], v[NR] }'
}
val() { med "$1" | cut -d' ' -f1; }
echo "uroce benchmark (loopback, $WHERE, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), median of $RUNS runs)"
printf '  %-44s %24s MB/s\n' "RDMA WRITE 1 MiB (uroce defaults, MTU 4096)" "$(med "$T/w")" \
	"  same while dumpcap captures on lo" "$(med "$T/wc")" \
	"  same with UROCE_GSO=0 (no GSO)" "$(med "$T/w0")" \
	"TCP loopback, 1 MiB writes" "$(med "$T/t")"
printf '  %-44s %24s us\n' "SEND 8 B ping-pong RTT (uroce)" "$(med "$T/p")" "UDP 8 B ping-pong RTT" "$(med "$T/u")" \
	"  uroce, every thread on one CPU" "$(med "$T/p1")" \
	"  same, every SEND signaled (prompt ACKs)" "$(med "$T/p1s")" "  UDP, both threads on one CPU" "$(med "$T/u1")"
awk -v w="$(val "$T/w")" -v t="$(val "$T/t")" -v p="$(val "$T/p")" -v u="$(val "$T/u")" \
    -v p1="$(val "$T/p1")" -v p1s="$(val "$T/p1s")" -v u1="$(val "$T/u1")" 'BEGIN {
	printf "  WRITE/TCP = %.2f (target >= 0.25); WRITE >= 1000 MB/s: %s\n", w / t, (w >= 1000 ? "yes" : "no");
	printf "  ping-pong / UDP = %.2f (target <= 2: %s)\n", p / u, (p / u <= 2 ? "met" : "NOT met");
	if (u1 > 0) {
		printf "  ping-pong / UDP on one CPU = %.2f (target <= 2: %s)\n", p1 / u1, (p1 / u1 <= 2 ? "met" : "NOT met");
		printf "  signaled ping-pong / UDP on one CPU = %.2f (target <= 2: %s)\n", p1s / u1, (p1s / u1 <= 2 ? "met" : "NOT met") } }'
