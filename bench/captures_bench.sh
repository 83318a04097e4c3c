#!/usr/bin/env bash
# Capture benchmark (make bench): packets per second on a generated
# 1,000,000-packet RoCEv2 capture (an RC conversation: SEND 64 B, WRITE
# 128 B, READ 64 B, ACKs, an occasional NAK and RNR NAK; ~116 bytes a
# frame), all in the same run:
#   decoder alone (with and without ICRC), our reader alone,
#   `rdmatrace packets` to /dev/null (our and the --libpcap reader),
#   a bare libpcap read loop, and tshark -T fields on a 50,000-packet
#   subset (extrapolated: tshark is too slow for the full file).
# Targets: full decode >= 5 M packets/s, > 150x tshark, within 2x of the
# bare libpcap loop; stretch: 15 M/s with our reader.
# Rates are packets per CPU second (user + system), the median of
# BENCH_RUNS runs (default 5; the best run is shown too), so that other work
# on a shared machine distorts them less; the bare libpcap loop and
# `rdmatrace packets` (text) take turns, run by run, so both see the same load.
# Environment: BUILD, BENCH_PACKETS (default 1000000), BENCH_TSHARK_PACKETS (50000),
# BENCH_RUNS (5).
set -u
BUILD=${BUILD:-build}
N=${BENCH_PACKETS:-1000000}
NT=${BENCH_TSHARK_PACKETS:-50000}
GEN=$BUILD/tests/captures/synth_gen
PROG=$BUILD/bench/captures_bench
RT=$BUILD/rdmatrace
tmp=$(mktemp -d /tmp/rt-capbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$GEN" traffic "$tmp/big.pcap" "$N" || exit 1
"$GEN" traffic "$tmp/small.pcap" "$NT" || exit 1
bytes=$(stat -c %s "$tmp/big.pcap")
echo "capture benchmark: $N packets, $((bytes / 1000000)) MB ($(( (bytes - 24) / N - 16 )) bytes a frame on average)"

RUNS=${BENCH_RUNS:-5}
# one run of a captures_bench mode: packets per CPU second
prog_rate() { "$PROG" "$1" "$tmp/big.pcap" | awk '{print $4}'; }
# CPU seconds (user + system) of a command; output to /dev/null
cpu_of() {
	local TIMEFORMAT='%U %S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.6f", a[1] + a[2] }'
}
# one run of a command over N packets: packets per CPU second
cmd_rate() {
	local n=$1 c; shift
	c=$(cpu_of "$@")
	awk -v n="$n" -v c="$c" 'BEGIN { printf "%.0f", (c > 0 ? n / c : 0) }'
}
# "median best" of the rates given
summary() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%s %s", v[int((NR + 1) / 2)], v[NR] }'; }

declare -A R
add() { R[$1]="${R[$1]:-} $2"; }
for ((run = 0; run < RUNS; run++)); do
	add libpcap "$(prog_rate libpcap)"
	add packets "$(cmd_rate "$N" "$RT" packets "$tmp/big.pcap")"
	add decode "$(prog_rate decode)"
	add decode_noicrc "$(prog_rate decode-noicrc)"
	add read_only "$(prog_rate read)"
	add read_decode "$(prog_rate read+decode)"
	add packets_json "$(cmd_rate "$N" "$RT" packets --json "$tmp/big.pcap")"
	add packets_libpcap "$(cmd_rate "$N" "$RT" packets --libpcap "$tmp/big.pcap")"
	add packets_stats "$(cmd_rate "$N" "$RT" packets --stats "$tmp/big.pcap")"
done
for k in "${!R[@]}"; do
	# shellcheck disable=SC2086
	read -r med best <<<"$(summary ${R[$k]})"
	printf -v "$k" '%s' "$med"
	printf -v "${k}_best" '%s' "$best"
done
tshark=0
if command -v tshark >/dev/null; then
	c=$(cpu_of tshark -r "$tmp/small.pcap" --disable-protocol rpcordma -T fields -e frame.number \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.aeth.syndrome)
	tshark=$(awk -v n="$NT" -v c="$c" 'BEGIN { printf "%.0f", (c > 0 ? n / c : 0) }')
fi

fmt() { awk -v v="$1" 'BEGIN { printf "%8.2f M/s", v / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else printf "n/a" }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "n/a" }'; }
row() { # LABEL VAR: median, and the best run
	local best_var="${2}_best"
	printf '  %-46s %s   (best %s)\n' "$1" "$(fmt "${!2}")" "$(fmt "${!best_var:-0}")"
}
echo "packets per CPU second, median of $RUNS runs:"
row "decoder alone (ICRC verified)" decode
row "decoder alone (no ICRC)" decode_noicrc
row "our reader alone" read_only
row "our reader + decoder" read_decode
row "bare libpcap loop (pcap_next_ex)" libpcap
row "rdmatrace packets > /dev/null" packets
row "rdmatrace packets --json > /dev/null" packets_json
row "rdmatrace packets --libpcap > /dev/null" packets_libpcap
row "rdmatrace packets --stats" packets_stats
printf '  %-46s %s\n' "tshark -T fields ($NT-packet subset, extrapolated)" "$(fmt "$tshark")"
echo "ratios:"
echo "  rdmatrace packets / tshark:           $(ratio "$packets" "$tshark")   (target > 150x)"
echo "  rdmatrace packets / bare libpcap:     $(ratio2 "$packets" "$libpcap")   (target >= 0.5x, i.e. within 2x)"
echo "  our reader + decoder / bare libpcap: $(ratio2 "$read_decode" "$libpcap")"
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v >= t ? "met" : "NOT met") }'; }
echo "targets:"
echo "  full decode (our reader + decoder + ICRC) >= 5 M/s: $(verdict "$read_decode" 5000000);" \
     "within 2x of bare libpcap: $(verdict "$read_decode" "$(awk -v l="$libpcap" 'BEGIN { print l / 2 }')")"
echo "  rdmatrace packets (text out) >= 5 M/s: $(verdict "$packets" 5000000);" \
     "within 2x of bare libpcap: $(verdict "$packets" "$(awk -v l="$libpcap" 'BEGIN { print l / 2 }')");" \
     "> 150x tshark: $(verdict "$packets" "$(awk -v t="$tshark" 'BEGIN { print t * 150 }')")"
echo "  stretch, our reader + decoder >= 15 M/s: $(verdict "$read_decode" 15000000)"
