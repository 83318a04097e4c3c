#!/bin/bash
# Benchmark: correlation of a generated run (about 1 M packets and 1.3 M trace
# events, bench/correlate_gen.c) end to end with `rdmatrace correlate`, against
# the pipeline a user would build today: tshark fields output joined with the
# trace events (`rdmatrace dump --json`) in a Python script.  tshark is slow,
# so the baseline runs on the first CORRELATE_BENCH_SUBSET packets and is
# extrapolated (printed as such).  Target: >= 3 M packets/s.
#
#   CORRELATE_BENCH_PACKETS=1000000 CORRELATE_BENCH_SUBSET=20000 bench/correlate_bench.sh
set -euo pipefail
BUILD=${BUILD:-build}
N=${CORRELATE_BENCH_PACKETS:-1000000}
SUBSET=${CORRELATE_BENCH_SUBSET:-20000}
base=/tmp
[ -d /dev/shm ] && [ "$(df -k --output=avail /dev/shm | tail -1)" -gt 4000000 ] && base=/dev/shm
dir=$(mktemp -d -p "$base" rdmatrace-correlate-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
now() { date +%s%N; }
echo "== correlate benchmark ($dir)"
gen=$("$BUILD/bench/correlate_gen" "$dir/run" "$N")
echo "generated: $gen"
packets=${gen%% packets*}

# wall and CPU (user + system) time of one command, in ns, into $wall_ns / $cpu_ns
measure() {
	local out
	out=$( { /usr/bin/time -f '%e %U %S' "$@" >/dev/null; } 2>&1 | tail -1)
	read -r w u s <<<"$out"
	wall_ns=$(python3 -c "print(int($w * 1e9))")
	cpu_ns=$(python3 -c "print(int(($u + $s) * 1e9))")
}
# how fast this machine gives new memory, which a large build mostly waits
# for on a virtual machine (bench/first_touch.c)
"$BUILD/bench/first_touch" 512 || true
# the first run after generating the run, apart: on a virtual machine whose
# host backs its memory lazily, the memory the generator just freed makes
# its system time (the kernel zeroing pages) vary by seconds
measure "$BUILD/rdmatrace" correlate --force --quiet --timeline-only "$dir/run"
first_tl=$wall_ns
first_cpu=$cpu_ns
# then the median of 5 runs (wall and CPU separately)
walls=()
cpus=()
for i in 1 2 3 4 5; do
	measure "$BUILD/rdmatrace" correlate --force --quiet --timeline-only "$dir/run"
	walls+=("$wall_ns")
	cpus+=("$cpu_ns")
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
best_tl=$(median "${walls[@]}")
best_cpu=$(median "${cpus[@]}")
measure "$BUILD/rdmatrace" correlate --force --quiet "$dir/run"
full=$wall_ns
full_cpu=$cpu_ns
t0=$(now)
"$BUILD/rdmatrace" diagnose "$dir/run" >/dev/null || true
t1=$(now)
diag=$((t1 - t0))

# the baseline on a subset
t0=$(now)
tshark -r "$dir/run/capture.pcap" -c "$SUBSET" -T fields -E separator=, -e frame.number -e frame.time_epoch \
	-e ip.src -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn -e infiniband.aeth.syndrome \
	-e infiniband.reth.dmalen >"$dir/fields.csv" 2>/dev/null
{ "$BUILD/rdmatrace" dump --json --kind wr_post,completion,qp_state "$dir"/run/traces/*.rtr 2>/dev/null |
	head -n $((SUBSET * 4 / 3 + 100)) >"$dir/events.jsonl"; } || true
python3 - "$dir/fields.csv" "$dir/events.jsonl" >"$dir/join.out" <<'PY'
import csv, json, sys
# WRs per QP with their PSN ranges (sq_psn from the QP state, 1024-byte MTU)
sq, wrs = {}, {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e["kind"] == "qp_state" and e.get("sq_psn"):
        sq[e["qpn"]] = e["sq_psn"]
    elif e["kind"] == "wr_post" and e.get("queue") == "send":
        q = e["qpn"]; n = max(1, -(-e["len"] // 1024))
        first = sq.get(q, 0); sq[q] = (first + n) & 0xFFFFFF
        for p in range(n):
            wrs[(first + p) & 0xFFFFFF] = e["wr_id"]
linked = acks = 0
for row in csv.reader(open(sys.argv[1])):
    if len(row) < 6 or not row[5]:
        continue
    psn = int(row[5]); op = int(row[3]) if row[3] else -1
    if op == 17:
        acks += 1
    elif psn in wrs:
        linked += 1
print(linked, acks)
PY
t1=$(now)
base_ns=$((t1 - t0))

python3 - "$packets" "$best_tl" "$full" "$diag" "$SUBSET" "$base_ns" "$best_cpu" "$full_cpu" "$first_tl" "$first_cpu" \
	"${walls[@]}" <<'PY'
import sys
pk, tl, full, diag, sub, base, tl_cpu, full_cpu, first, first_cpu = (int(x) for x in sys.argv[1:11])
runs = sorted(int(x) for x in sys.argv[11:])
s = lambda ns: ns / 1e9
print(f"packets in the run:            {pk}")
print(f"(CPU load while measuring: {open('/proc/loadavg').read().split()[0]} on {__import__('os').cpu_count()} CPUs)")
print(f"correlate --timeline-only:     {s(tl):.3f} s wall = {pk / s(tl) / 1e6:.2f} M packets/s; "
      f"{s(tl_cpu):.3f} s CPU = {pk / s(tl_cpu) / 1e6:.2f} M packets/s (median of 5: "
      f"{', '.join(f'{s(w):.2f}' for w in runs)} s wall)")
print(f"  the first run after generating the run (not in the median): {s(first):.3f} s wall, {s(first_cpu):.3f} s CPU")
print(f"correlate (+ annotated pcapng, annotations.jsonl): {s(full):.3f} s wall, {s(full_cpu):.3f} s CPU "
      f"= {pk / s(full_cpu) / 1e6:.2f} M packets/s CPU")
print(f"diagnose on the saved timeline: {s(diag):.3f} s")
rate = sub / s(base)
print(f"baseline tshark fields + python join on {sub} packets: {s(base):.3f} s = {rate / 1e3:.1f} k packets/s,"
      f" extrapolated to {pk} packets: {pk / rate:.1f} s")
print(f"speed-up over the baseline (wall): {(pk / s(tl)) / rate:.0f}x;  target 3 M packets/s: "
      f"{'met' if pk / s(tl) >= 3e6 else 'NOT met'} (CPU-bound rate {pk / s(tl_cpu) / 1e6:.2f} M packets/s)")
PY
